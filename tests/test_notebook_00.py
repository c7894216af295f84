"""notebooks/00_tour.ipynb runs end to end with tiny parameters and writes its artifacts."""
import json

import pandas as pd

from privnb.experiments import COLUMNS

TINY = {"l": 2, "k": 3, "sample_size": 400, "n_splits": 2, "seed": 1}


def test_tour_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("00_tour.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["method"]) == {"original", "identifying", "anatomized", "generalized", "mondrian"}
    assert set(results["fold"]) == {0, 1}
    assert results["value"].between(0, 1).all()
    anatomized = results[results["method"] == "anatomized"]
    assert (anatomized["param"] == TINY["l"]).all()
    # the anatomized learner sees l candidate rows for every individual it kept
    assert (anatomized["n_train"] == TINY["l"] * (200 - anatomized["n_suppressed"])).all()
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["anatomy_groups"] * TINY["l"] + metrics["anatomy_rows_suppressed"] == TINY["sample_size"]
    assert {"error_original", "error_anatomized", "error_mondrian"} <= set(metrics)
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert figures == {"toy_anatomy.png", "anatomy_suppression.png", "equivalence_classes.png", "views_error.png"}
