"""privnb.experiments.feature_selection's table and loop helpers (FSAC) on small inputs with known answers."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from privnb.data import feature_selection_table1
from privnb.experiments.feature_selection import (
    ac_table,
    auc_tables,
    dataset_statistics,
    evaluate_datasets,
    selection_metrics,
)
from privnb.experiments.feature_selection.runner import evaluate_methods
from privnb.experiments.feature_selection.statistics import frequent_columns, itemset_growth, time_miners


def test_frequent_columns_keeps_tokens_of_at_least_min_df_rows():
    X = sp.csr_array(np.array([[1, 0, 1, 0], [1, 0, 0, 1], [1, 1, 0, 1]]))
    assert frequent_columns(X, 2).toarray().tolist() == [[1, 0], [1, 1], [1, 1]]  # columns 0 and 3
    assert frequent_columns(X, 1).shape == (3, 4) and frequent_columns(X, 4).shape == (3, 0)


def test_time_miners_on_table1():
    table1 = feature_selection_table1()
    X = table1[list("abcde")].to_numpy()
    found = time_miners(X, 2)
    assert list(found) == ["pyfim", "mlxtend"]
    # the 2-AC maximal frequent itemsets of Table 1 are {a,b,e}, {a,c,e}, {a,d,e}
    assert [n for n, _ in found.values()] == [3, 3] and all(s >= 0 for _, s in found.values())
    assert [n for n, _ in time_miners(X, 4, ("mlxtend",)).values()] == [1]  # {a,c,e}: u1, u2, u4, u5


def test_itemset_growth_mines_the_top_hamdist_features():
    # feature 0 separates the classes perfectly, feature 1 is held by everybody, feature 2 by one row
    X = sp.csr_array(np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1], [0, 1, 0]]))
    y = np.array([1, 1, 0, 0])
    # top 1 feature (0): one maximal itemset {0}; top 2 ({0, 1} by HamDist): {0, 1}; all 3 at support 2: {0, 1}
    assert itemset_growth(X, y, (1, 2, 3), k=2) == {1: 1, 2: 1, 3: 1}
    # at support 1 all three: {0, 1} and {1, 2}
    assert itemset_growth(X, y, (3,), k=1) == {3: 2}


def test_dataset_statistics():
    def item(X, y, paper):
        return SimpleNamespace(X_all=X, y_all=np.array(y), how="made so", support=SimpleNamespace(paper=paper))

    inputs = {
        "adult": item(pd.DataFrame([[1, 0], [1, 1], [0, 0], [1, 0]]), [1, 0, 0, 1], "adult"),
        "pu1": item(sp.csr_array(np.array([[1, 0, 0], [0, 1, 0]])), [1, 0], "pu1"),
        "mine": item(pd.DataFrame([[1], [1]]), [0, 1], None),
    }
    stats, metrics = dataset_statistics(inputs)
    assert stats.index.tolist() == ["Adult", "Email (PU1)", "mine"]
    assert stats.loc["Adult", ["rows", "features", "positive", "negative"]].tolist() == [4, 2, 2, 2]
    assert stats.loc["Email (PU1)", ["rows", "features", "positive", "negative"]].tolist() == [2, 3, 1, 1]
    assert stats.loc["Adult", "density %"] == pytest.approx(50.0)
    assert stats.loc["Email (PU1)", "density %"] == pytest.approx(100 / 3)
    assert stats.loc["Adult", "paper density %"] == 27.9 and stats.loc["Email (PU1)", "paper features"] == 24604
    assert stats.loc["mine", ["paper density %", "paper features"]].isna().all()  # no paper numbers for it
    assert stats.loc["mine", "AC, all features"] == 2 and stats.loc["mine", "features made as"] == "made so"
    assert metrics == {
        "adult_density": pytest.approx(0.5),
        "adult_features": 2,
        "adult_ac_all_features": 1,  # rows 11 and 10/01 are unique
        "pu1_density": pytest.approx(1 / 3),
        "pu1_features": 3,
        "pu1_ac_all_features": 1,
        "mine_density": 1.0,
        "mine_features": 1,
        "mine_ac_all_features": 2,
    }


def test_evaluate_datasets_runs_evaluate_methods_per_data_set():
    rng = np.random.default_rng(0)
    X = (rng.random((80, 6)) < 0.4).astype(int)
    y = (X[:, 0] | X[:, 1]).astype(int)
    inputs = {"one": (X, y, None), "two": (X[:40], y[:40], 3), "unused": (X, y, None)}
    options = dict(k_ac=[3], epsilons=[1.0], n_splits=2, n_runs=1)
    results, seconds = evaluate_datasets(inputs, ["two", "one"], random_state=4, **options)
    assert list(seconds) == ["two", "one"] and all(s > 0 for s in seconds.values())
    expected = pd.concat(
        [
            evaluate_methods(X[:40], y[:40], dataset_name="two", max_items=3, random_state=4, **options),
            evaluate_methods(X, y, dataset_name="one", random_state=4, **options),
        ],
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(results, expected)


def _summary():
    return pd.DataFrame(
        {
            "dataset": ["adult"] * 4,
            "method": ["greedy-hamdist", "rf", "rf", "full"],
            "param": [5.0, 5.0, 8.0, math.nan],
            "auc": [0.7712, 0.8, 0.79, 0.82],
            "n_features": [9.0, 19.0, 19.0, 19.0],
            "auc_std": [math.nan, 0.0123, math.nan, math.nan],
            "ac": [6.26, math.nan, math.nan, math.nan],
            "flipped_share": [math.nan, 0.006, 0.01, math.nan],
        }
    )


def test_auc_tables_cells():
    tables = auc_tables(
        pd.concat(
            [
                _summary(),
                pd.DataFrame(
                    {"dataset": ["adult"], "method": ["laplace-dp"], "param": [0.1], "auc": [0.5], "n_features": [9.0]}
                ),
            ]
        )
    )
    assert tables.index.tolist() == [("adult", "Greedy-HamDist"), ("adult", "RF"), ("adult", "Full-Feature-Set")]
    assert tables.loc[("adult", "Greedy-HamDist"), "k=5"] == "0.771 (9)"
    assert tables.loc[("adult", "RF"), "k=5"] == "0.800±0.012 (0.60%)"  # std over runs
    assert tables.loc[("adult", "RF"), "k=8"] == "0.790 (1.00%)"  # a single run: no std
    assert tables.loc[("adult", "Full-Feature-Set"), "all"] == "0.820 (19)"
    assert pd.isna(tables.loc[("adult", "Greedy-HamDist"), "k=8"])


def test_ac_table():
    table = ac_table(_summary())
    assert table.loc[("adult", "greedy-hamdist"), 5.0] == 6.3
    assert ("adult", "rf") not in table.index  # RF selects nothing: no AC


def test_selection_metrics_keys_and_ranks():
    side = pd.DataFrame(
        {
            "dataset": ["adult"] * 3 + ["pu1"] * 3,
            "k": [5] * 6,
            "rank_paper": [1, 2, 3, 1, 2, 3],
            "rank_ours": [1, 2, 3, 3, 2, 1],
        }
    )
    metrics = selection_metrics(_summary(), side, {"adult": 12.5})
    assert metrics["adult_k5_rank_spearman"] == pytest.approx(1.0)
    assert metrics["pu1_k5_rank_spearman"] == pytest.approx(-1.0)
    assert metrics["adult_greedy-hamdist_5_auc"] == 0.7712 and metrics["adult_rf_8_n_features"] == 19.0
    assert metrics["adult_full_auc"] == 0.82 and "adult_full_nan_auc" not in metrics
    assert metrics["adult_seconds"] == 12.5
    assert len(metrics) == 2 * 2 + 2 * 4 + 1  # rank correlation without and with the full feature set


def test_side_by_side_shows_only_the_paper_data_sets_asked_for():
    from privnb.experiments.feature_selection import side_by_side

    empty = pd.DataFrame(columns=["dataset", "method", "param", "auc", "n_features", "auc_std", "flipped_share"])
    side = side_by_side(empty, ["pu1"])
    assert set(side["dataset"]) == {"pu1"} and len(side) == 8 * 3 and side["auc_ours"].isna().all()
