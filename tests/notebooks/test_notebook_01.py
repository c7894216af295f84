"""notebooks/01_svm_l_diversity.ipynb runs end to end with tiny parameters and writes its artifacts."""

import json
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
from own_data import write_own_data

from privnb.experiments import CLAIM_COLUMNS, COLUMNS, VERDICTS, unexplained
from privnb.learn import DEFAULT_SPACE
from privnb.workbench import parameter_defaults

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "01_svm_l_diversity.ipynb"


def test_notebook_follows_conventions():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    defaults = parameter_defaults(nb)
    assert defaults["dataset"] == "adult" and defaults["n_splits"] == 3 and defaults["kernels"] == ["linear", "rbf"]
    assert defaults["space"] == DEFAULT_SPACE == "appendix_b_svm_scale"  # MC16's R^(d+1), scaled by LibSVM's svm-scale


def test_notebook_runs_with_tiny_parameters(run_notebook):
    out = run_notebook(
        "01_svm_l_diversity.ipynb", sample_size=500, n_splits=2, ls=[2, 3], ks=[2], other_spaces={"one_hot": ["linear"]}
    )
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["classifier"]) == {"SVC", "SVM", "majority"}
    assert set(results["method"]) == {"original", "identifying", "pruned", "generalized", "majority"}
    errors = results[results["metric"] == "error"]
    assert errors["value"].between(0, 1).all() and (results["n_suppressed"] >= 0).all()
    assert results.loc[results["metric"].isin(["balanced_accuracy", "auc"]), "value"].between(0, 1).all()
    inputs = results[~results["metric"].isin(["error", "balanced_accuracy", "auc"])].pivot_table(
        index=["param", "fold"], columns="metric", values="value"
    )
    assert len(inputs) == 2 * 2 and (inputs["w_norm"] > 0).all() and (inputs["r2_min"] <= inputs["r2_max"]).all()
    theorem = pd.read_csv(out / "theorem_4_1.csv")
    assert theorem["l"].tolist() == [2, 3]
    assert np.allclose(theorem["bound"], theorem["vc_term"] + theorem["pruning_term"]) and (theorem["bound"] > 0).all()
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "adult" and metrics["rows"] == 500 and metrics["claims_total"] > 0
    assert all(key in metrics for key in ("mean_error_SVC_Org.", "mean_error_SVM_L=2", "bound_4_6_L=2"))
    assert metrics["majority_error"] == metrics["mean_error_majority_Majority"] > 0
    headline = metrics["headline"]  # each names its metric: the error, balanced accuracy or AUC
    assert {"mean_balanced_accuracy_SVC_Org.", "mean_auc_SVC_Org."} <= set(headline)
    assert all(
        key.startswith(("majority_error", "mean_error_", "mean_balanced_accuracy_", "mean_auc_", "claims"))
        for key in headline
    )
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert list(claims.columns) == list(CLAIM_COLUMNS) and set(claims["verdict"]) <= set(VERDICTS)
    assert set(claims["reading"]) == {"", "paired t-test", "unpaired t-test"}
    assert unexplained(claims).empty  # every differing claim carries its reason (this sample: at least "noise")
    by_space = pd.read_csv(out / "claims_by_space.csv", keep_default_na=False)
    assert {"appendix_b_svm_scale", "one_hot", "verdict changes", "value (one_hot)"} <= set(by_space.columns)
    for name in ("toy_figures_1_4", "theorem_4_1", "errors_SVC", "errors_SVM"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 0


def test_notebook_runs_on_a_data_card_of_its_own(run_notebook, tmp_path):
    """A card that is none of the papers' data: every view runs (its hierarchies give k-anonymity); no claims."""
    card = write_own_data(tmp_path / "data")["table"]
    out = run_notebook(
        "01_svm_l_diversity.ipynb",
        dataset=str(card),
        sample_size=0,
        n_splits=2,
        ls=[2, 6, 7],
        ks=[2],
        other_spaces={},
        compare_centers=False,
    )
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["method"]) == {"original", "identifying", "pruned", "generalized", "majority"}
    na = results[(results["metric"] == "error") & results["value"].isna()]
    assert set(na["param"]) == {7.0} and na["note"].str.startswith("N/A").all()  # l = 7 > 6 diagnoses
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "ward" and metrics["rows"] == 591 and metrics["claims_total"] == 0
    assert not (out / "claims.csv").exists()
