"""notebooks/04_nbc_publishing.ipynb runs end to end with tiny parameters and writes its artifacts."""

import json
from pathlib import Path

import nbformat
import pandas as pd

from privnb.experiments import COLUMNS
from privnb.workbench import convention_problems, parameter_defaults

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "04_nbc_publishing.ipynb"
TINY = {"n_rows": 3000, "gammas": [2, 30], "k_values": [2, 10], "prior_negative": 0.75, "r": 1.3, "seed": 1}


def test_conventions_and_defaults():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert convention_problems(nb) == []
    defaults = parameter_defaults(nb)
    assert set(TINY) <= set(defaults) and "output_dir" in defaults
    kept = [c.source for c in nb.cells if "keep_output" in c.metadata.get("tags", [])]
    assert any(
        "22/25" in "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if "keep_output" in c.metadata.get("tags", [])
    )
    assert len(kept) == 5  # changed on purpose: Definition 1 readings and the Corollary 4 counterexample


def test_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("04_nbc_publishing.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["method"]) == {"original", "published", "generalized", "safety_transform"}
    r = results[results["metric"] == "r_closeness"]
    assert sorted(r["param"]) == [2, 30] and (r["value"] >= 1).all() and (r["value"] <= r["param"]).all()
    scores = results[results["metric"].isin(["accuracy", "recall"])]
    assert scores["value"].between(0, 1).all()
    original = scores[scores["method"] == "original"].set_index("metric")["value"]
    published = scores[scores["method"] == "published"].set_index("metric")["value"]
    assert original.equals(published)  # no accuracy loss
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_rows"] == 3000 and metrics["p_negative"] + metrics["p_positive"] == 3000
    # the paper's prior (75% on <=50K) puts a floor of r = 2 under any classifier-keeping release: EST must fail
    assert metrics["est_success"] is False and metrics["est_r_lower_bound"] == 2 and metrics["est_seconds"] > 0
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert {"figure8.png", "figure9.png"} <= figures
    table = pd.read_csv(out / "paper_vs_ours.csv")
    assert list(table.columns) == ["claim", "paper", "ours"] and len(table) >= 8
