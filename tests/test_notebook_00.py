"""notebooks/00_tour.ipynb runs end to end with tiny parameters and writes its artifacts."""

import json

import nbformat
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
    # the explorer's cell holds the default state as ordinary outputs (papermill has no widget frontend)
    executed = nbformat.read(out.parent / "00_tour.ipynb", as_version=4)
    cell = next(c for c in executed.cells if c.cell_type == "code" and c.source.startswith("tour_explorer("))
    html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
    text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
    for heading in (f"l = {TINY['l']}: anatomy", f"k = {TINY['k']}: equivalence classes", "SafetyTransform"):
        assert heading in html and heading in text
    assert "Joined training data D_A" in html and "Equivalence classes by method" in html
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in cell.outputs)
