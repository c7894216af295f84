"""notebooks/02_knn_l_diversity.ipynb runs end to end with tiny parameters and writes its artifacts."""

import json
from pathlib import Path

import pandas as pd
from own_data import write_own_data

from privnb.experiments import COLUMNS, unexplained

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_knn_l_diversity.ipynb"
TINY = {
    "dataset": "adult",
    "sample_size": 300,
    "n_splits": 2,
    "ks": [1, 3],
    "ls": [2, 3],
    "anonymity_ks": [],
    "convergence": True,
    "n_parts": 3,
    "theorem17_sizes": [50, 100],
    "mc_repeats": 50,
    "seed": 1,
}


def test_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("02_knn_l_diversity.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    errors = results[results["metric"] == "error"]
    assert set(errors["classifier"]) == {"1-NN", "3-NN", "majority"}
    assert set(errors["method"]) == {"original", "identifying", "anatomized", "majority"}
    curves = results[results["metric"] == "incremental_error"]
    assert set(curves["method"]) == {"original", "anatomized", "majority"}
    assert errors.loc[errors["note"] == "", "value"].between(0, 1).all()
    assert set(results["metric"]) == {"error", "balanced_accuracy", "auc", "incremental_error"}
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "adult" and metrics["claims"] >= metrics["claims_agreeing"] >= 0
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert len(claims) == metrics["claims"] and set(claims["verdict"]) <= {"agree", "differ", "both N/A", "n/a"}
    assert unexplained(claims).empty  # every differing claim carries its reason (this sample: at least "noise")
    assert metrics["rho2_simulation_all_within_4se"] is True  # E{rho^2} of (19) against the seeded simulation
    headline = metrics.pop("headline")
    assert headline[0] == "mean_error_majority_Majority" and set(headline) <= set(
        metrics
    )  # the report shows these first
    assert {"mean_balanced_accuracy_1-NN_Org.", "mean_auc_1-NN_Org."} <= set(headline)
    assert all(key.startswith(("mean_error_", "mean_balanced_accuracy_", "mean_auc_", "claims")) for key in headline)
    assert metrics["mean_balanced_accuracy_majority_Majority"] == metrics["mean_auc_majority_Majority"] == 0.5
    assert all(isinstance(v, (int, float, str, bool)) for v in metrics.values())
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert {"figure2_toy.png", "convergence_terms.png", "theorem17.png", "boxplots.png", "convergence.png"} <= figures


def test_runs_on_a_data_card_of_its_own(run_notebook, tmp_path):
    """A card that is none of the paper's data: every k-NN view runs (its hierarchies give the anonymized 1-NN);
    no claims against the paper.
    """
    card = write_own_data(tmp_path / "data")["table"]
    out = run_notebook("02_knn_l_diversity.ipynb", **{**TINY, "dataset": str(card), "anonymity_ks": [2]})
    results = pd.read_parquet(out / "results.parquet")
    errors = results[results["metric"] == "error"]
    assert set(errors["method"]) == {"original", "identifying", "anatomized", "generalized", "majority"}
    assert set(errors["classifier"]) == {"1-NN", "3-NN", "majority"} and errors["value"].between(0, 1).all()
    assert set(results["metric"]) == {"error", "balanced_accuracy", "auc", "incremental_error"}
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "ward" and metrics["rows"] == 300 and metrics["claims"] == 0
    assert "mean_error_1-NN_L=2" in metrics and "mean_error_majority_Majority" in metrics
    assert not (out / "claims.csv").exists()
