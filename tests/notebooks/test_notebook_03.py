"""notebooks/03_feature_selection_k_ac.ipynb runs end to end with tiny parameters and writes its artifacts, on the
paper's data and on data cards of one's own.
"""

import json
from pathlib import Path

import nbformat
import pandas as pd
from own_data import write_own_data

from privnb.experiments import CLAIM_COLUMNS, COLUMNS, unexplained

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_feature_selection_k_ac.ipynb"
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


def test_kept_outputs_hold_the_worked_examples():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    kept = [c for c in nb.cells if "keep_output" in c.metadata.get("tags", [])]
    assert len(kept) == 2
    text = "\n".join(o.get("data", {}).get("text/plain", "") for c in kept for o in c.outputs)
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}
    assert rows["u1"][-1] == "4" and rows["u5"][-1] == "1"  # each user's AC (Definition 4)
    # AC(D), the largest k of k-anonymity, HamDist, DistCnt and CM of Table 2's feature sets (Section 2)
    sets = {line.split("}")[0]: line.split("}")[1].split() for line in text.splitlines() if "Feature Set" in line}
    assert sets["Feature Set-1 {a,b,e"] == ["2", "2", "0.6667", "6", "1"]
    assert sets["Feature Set-2 {c,d,e"] == ["2", "2", "0.8889", "4", "3"]
    assert "{abe}" in text and "Greedy-DistCnt at k = 2" in text  # the selectors on Table 1


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
    majority = results[results["method"] == "majority"]  # the reference row: a constant score, AUC 0.5
    assert set(majority["metric"]) == {"auc"} and (majority["value"] == 0.5).all() and len(majority) == 2 * 2
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert tuple(claims.columns) == CLAIM_COLUMNS and set(claims["paper"]) == {"FSAC"}
    assert set(claims["verdict"]) <= {"agree", "differ", "n/a"} and set(claims["dataset"]) == {"adult", "pu1"}
    assert unexplained(claims).empty  # every differing claim carries its reason
    assert claims.loc[claims["claim"].str.startswith("Greedy-DistCnt beats RF"), "paper value"].tolist() == [
        "no",
        "yes",
    ]
    rf = claims.loc[claims["claim"].str.startswith("Greedy-DistCnt beats RF"), "privnb value"]
    assert rf.str.contains("RF by reading: train-fold [0-9.]+, whole [0-9.]+, both-folds [0-9.]+").all()  # each one
    counts = pd.read_csv(out / "selection_counts.csv", keep_default_na=False)
    assert set(counts["stop rule"]) == {"first-infeasible", "best-feasible", ""}  # Maximal has no rule
    assert {"whole data", "training folds", "paper"} <= set(counts.columns)
    metrics = json.loads((out / "metrics.json").read_text())
    assert 0.27 < metrics["adult_density"] < 0.28 and metrics["adult_ac_all_features"] == 1
    assert metrics["pu1_k5_maximal_order_smallest"] <= metrics["pu1_k5_maximal_order_largest"]
    assert {p.name for p in (out / "figures").glob("*.png")} == {"figure1_dp.png"}
    side = pd.read_csv(out / "paper_vs_ours.csv")
    assert {"auc_paper", "auc_ours", "rank_paper", "rank_ours"} <= set(side.columns)
    at5 = side[side["k"] == 5]
    assert len(at5) == 2 * 8 and at5["auc_ours"].notna().all()  # two data sets x eight methods at k = 5


def test_runs_on_own_item_matrix_and_table(run_notebook, tmp_path):
    cards = write_own_data(tmp_path / "cards")
    own = {**TINY, "datasets": [str(cards["items"]), str(cards["table"])], "readings": ["train-fold"]}
    out = run_notebook("03_feature_selection_k_ac.ipynb", **{**own, "svm_settings": ["tuned"]})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "baskets+ward"
    assert metrics["baskets_features"] == 24 and metrics["baskets_ac_all_features"] >= 1
    # the table is binarized: age in 4 intervals, 4 wards, 2 sexes, 3 severities, 6 diagnoses
    assert metrics["ward_features"] == 4 + 4 + 2 + 3 + 6 and "ward_miner_pyfim_s" in metrics
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["dataset"]) == {"baskets", "ward"}
    ac = results[(results["metric"] == "ac") & results["method"].isin(["maximal", "greedy-hamdist"])]
    assert (ac["value"] >= ac["param"]).all()
    # no paper numbers for data of one's own: no claims, no side-by-side table, no rank correlation
    assert not (out / "claims.csv").exists() and not (out / "paper_vs_ours.csv").exists()
    assert not [key for key in metrics if "rank_spearman" in key]
