"""notebooks/03_feature_selection_k_ac.ipynb runs end to end with tiny parameters and writes its artifacts."""

import json
from pathlib import Path

import nbformat
import pandas as pd

from privnb.experiments import COLUMNS
from privnb.workbench import convention_problems, parameter_defaults

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "03_feature_selection_k_ac.ipynb"
TINY = {
    "adult_rows": 600,
    "datasets": ["adult", "pu1"],
    "ks": [5],
    "epsilons": [1.0],
    "n_splits": 2,
    "n_runs": 1,
    "readings": ["train-fold", "whole", "both-folds"],  # the paper sweep's readings and settings
    "svm_settings": ["tuned", "default"],
    "maximal_max_items": 8,
    "pu1_min_df": 30,
    "seed": 1,
}


def test_conventions_and_defaults():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert convention_problems(nb) == []
    defaults = parameter_defaults(nb)
    assert set(TINY) <= set(defaults) and "output_dir" in defaults
    kept = [c for c in nb.cells if "keep_output" in c.metadata.get("tags", [])]
    assert len(kept) == 2
    text = "".join(o.get("text", "") for c in kept for o in c.outputs)
    assert "'u1': 4" in text and "AC(D) = 1" in text and "HamDist 0.6667, DistCnt 6" in text


def test_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("03_feature_selection_k_ac.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["dataset"]) == {"adult", "pu1"}
    assert {
        "maximal",
        "greedy-hamdist",
        "greedy-distcnt",
        "cm-greedy",
        "rf",
        "full",
        "laplace-dp",
        "exponential-dp",
        "k-anonymity-hamdist",
        "k-anonymity-distcnt",
        "laplace-dp-paper",
        "rf@whole",
        "rf@both-folds",
        "full@C=1",
    } <= set(results["method"])  # the readings and settings add rows
    auc = results[results["metric"] == "auc"]["value"]
    assert auc.between(0, 1).all()
    ac = results[results["metric"] == "ac"]
    assert (ac["value"] >= ac["param"]).all()  # every selection keeps k-AC on its training fold
    flipped = results[results["metric"] == "flipped_share"]["value"]
    assert flipped.between(0, 1).all()
    metrics = json.loads((out / "metrics.json").read_text())
    assert 0.27 < metrics["adult_density"] < 0.28 and metrics["adult_ac_all_features"] == 1
    assert {p.name for p in (out / "figures").glob("*.png")} == {"figure1_dp.png"}
    side = pd.read_csv(out / "paper_vs_ours.csv")
    assert {"auc_paper", "auc_ours", "rank_paper", "rank_ours"} <= set(side.columns)
    at5 = side[side["k"] == 5]
    assert len(at5) == 2 * 8 and at5["auc_ours"].notna().all()  # two data sets x eight methods at k = 5
