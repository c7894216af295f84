"""notebooks/04_nbc_publishing.ipynb runs end to end with tiny parameters and writes its artifacts, on Adult and on a
table card of one's own.
"""

import json
from pathlib import Path

import nbformat
import pandas as pd
from own_data import write_own_data

from privnb.experiments import CLAIM_COLUMNS, COLUMNS, unexplained

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04_nbc_publishing.ipynb"
TINY = {"n_rows": 3000, "gammas": [2, 30], "k_values": [2, 10], "prior_negative": 0.75, "r": 1.3, "seed": 1}


def test_kept_outputs_hold_the_worked_examples():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    kept = [c for c in nb.cells if "keep_output" in c.metadata.get("tags", [])]
    # changed on purpose: Definition 1 readings, the Corollary 4 counterexample, Lemma 2's algebra checked
    assert len(kept) == 6
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for c in kept for o in c.outputs)
    assert "22/25" in text and "7/9" in text  # Alice's exact posteriors
    latex = "".join(o.get("data", {}).get("text/latex", "") for c in kept for o in c.outputs)
    assert r"\tag*{Lemma 2, (7)}" in latex and r"\tag*{Corollary 4, (10)}" in latex  # rendered, numbered


def test_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("04_nbc_publishing.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["method"]) == {"original", "published", "generalized", "safety_transform", "majority"}
    r = results[results["metric"] == "r_closeness"]
    assert sorted(r["param"]) == [2, 30] and (r["value"] >= 1).all() and (r["value"] <= r["param"]).all()
    scores = results[results["metric"].isin(["accuracy", "recall"])]
    assert scores["value"].between(0, 1).all()
    original = scores[scores["method"] == "original"].set_index("metric")["value"]
    published = scores[scores["method"] == "published"].set_index("metric")["value"]
    assert original.equals(published)  # no accuracy loss
    majority = scores[scores["method"] == "majority"].set_index("metric")["value"]  # issue 25: the baseline
    assert majority["recall"] == 0 and original["accuracy"] > majority["accuracy"] > 0.7
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_rows"] == 3000 and metrics["p_negative"] + metrics["p_positive"] == 3000
    # the paper's prior (75% on <=50K) puts a floor of r = 2 under any classifier-keeping release: EST must fail
    assert metrics["est_success"] is False and metrics["est_r_lower_bound"] == 2 and metrics["est_seconds"] > 0
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert {"figure8.png", "figure9.png"} <= figures
    assert metrics["dataset"] == "adult" and not (out / "paper_vs_ours.csv").exists()
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)  # as the sweep report reads it ("n/a")
    assert list(claims.columns) == list(CLAIM_COLUMNS) and len(claims) >= 8 and set(claims["paper"]) == {"MZ09"}
    assert set(claims["verdict"]) <= {"agree", "differ", "n/a"} and (claims["verdict"] == "differ").any()
    assert unexplained(claims).empty  # every differing claim carries its reason
    # a sample of 3000 rows is not the paper's data: its class counts are not compared
    assert claims.set_index("claim").loc["Adult: class counts", "verdict"] == "n/a"


def test_runs_on_own_table_without_claims(run_notebook, tmp_path):
    cards = write_own_data(tmp_path / "cards")
    out = run_notebook("04_nbc_publishing.ipynb", **{**TINY, "n_rows": 0, "dataset": str(cards["table"])})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "ward" and metrics["n_rows"] == 591
    assert metrics["p_negative"] + metrics["p_positive"] == 591 and metrics["est_r_lower_bound"] >= 1
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["dataset"]) == {"ward"}
    assert set(results["method"]) == {"original", "published", "generalized", "safety_transform", "majority"}
    scores = results[results["metric"].isin(["accuracy", "recall"])]
    original = scores[scores["method"] == "original"].set_index("metric")["value"]
    assert original.equals(scores[scores["method"] == "published"].set_index("metric")["value"])
    # issue 25: the majority class of the same split beside the NBCs
    majority = scores[scores["method"] == "majority"].set_index("metric")["value"]
    assert majority["recall"] == 0 and metrics["accuracy_majority"] == majority["accuracy"]
    assert {"figure8.png", "figure9.png", "safety_transform_r.png"} <= {p.name for p in (out / "figures").glob("*.png")}
    # no claims against the paper for data of one's own
    assert not (out / "claims.csv").exists() and not (out / "paper_vs_ours.csv").exists()
    # issue 31: an achieved gamma far below the gamma asked says why
    executed = nbformat.read(out.parent / "04_nbc_publishing.ipynb", as_version=4)
    html = "".join(o.get("data", {}).get("text/html", "") for c in executed.cells for o in c.get("outputs", []))
    assert "achieved_gamma is the smallest gamma of Corollary 4 the published counts meet" in html
