"""privnb.experiments.feature_selection's runner (FSAC, Section 5.2): every method a view of run_folds, the
randomized baselines' shared stream, the "whole" reading's separate path and the majority-class reference."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

from privnb.experiments import run_folds
from privnb.experiments.feature_selection import auc_tables, dp_figure, summary_table
from privnb.experiments.feature_selection._views import AllFeaturesSVM, FlippedSVM, auc_scores
from privnb.experiments.feature_selection.runner import (
    ProtectedData,
    RunStream,
    evaluate_methods,
    run_seeds,
    selection_folds,
    whole_reading,
)
from privnb.experiments.folds import View
from privnb.mechanisms import randomized_flipping
from privnb.mechanisms.containment import check_binary


def _toy():
    rng = np.random.default_rng(0)
    X = (rng.random((160, 8)) < 0.4).astype(int)
    y = ((X[:, 0] | X[:, 1]) ^ (rng.random(160) < 0.1)).astype(int)
    return X, y


#: Per-fold test AUC of the toy at seed 2 (k = 3, epsilon = 1, 3 folds, 2 runs, C tuned and C = 1), as the
#: hand-written fold loop before run_folds gave them: the views must draw the same random numbers. The greedy
#: selectors' former rule (take the best feasible feature) now runs as the second stopping rule.
FORMER_LOOP = {
    "rf": [0.883590462833, 0.864369501466, 0.826086956522, 0.87237026648, 0.793988269795, 0.824637681159],
    "rf@C=1": [0.886395511921, 0.879032258065, 0.826086956522, 0.868162692847, 0.770527859238, 0.827536231884],
    "laplace-dp": [0.638148667602, 0.595307917889, 0.828260869565, 0.682328190743, 0.867302052786, 0.497826086957],
    "exponential-dp": [0.899719495091, 0.83284457478, 0.734782608696, 0.460028050491, 0.546187683284, 0.760144927536],
    "laplace-dp-paper": [0.763674614306, 0.615102639296, 0.68768115942, 0.892005610098, 0.405425219941, 0.784782608696],
    "greedy-distcnt@best-feasible": [0.856241234222, 0.816715542522, 0.842028985507],
    "full@C=1": [0.877980364656, 0.810117302053, 0.836231884058],
}


@pytest.fixture(scope="module")
def results():
    X, y = _toy()
    return evaluate_methods(
        X,
        y,
        dataset_name="toy",
        k_ac=[3],
        epsilons=[1.0],
        n_splits=3,
        n_runs=2,
        svm_settings=("tuned", "default"),
        stop_rules=("first-infeasible", "best-feasible"),
        random_state=2,
    )


def test_views_give_the_former_loops_numbers(results):
    auc = results[results["metric"] == "auc"].sort_values("fold")
    for method, former in FORMER_LOOP.items():
        assert auc.loc[auc["method"] == method, "value"].round(12).tolist() == former, method
    shares = results[(results["method"] == "rf") & (results["metric"] == "flipped_share")].sort_values("fold")
    assert shares["value"].round(12).tolist()[:2] == [0.108490566038, 0.121495327103]
    sizes = results[results["metric"] == "n_features"].groupby("method")["value"].mean()
    for method in ("greedy-distcnt", "greedy-hamdist", "cm-greedy", "k-anonymity-distcnt", "k-anonymity-hamdist"):
        assert sizes[method] <= sizes[f"{method}@best-feasible"]  # the paper's rule stops no later
    assert "maximal@best-feasible" not in sizes  # Maximal has no stopping rule
    assert sorted(results.loc[results["method"] == "rf", "fold"].unique()) == list(range(6))  # run * 3 + fold


def test_majority_is_the_reference_row_and_marks_methods_at_or_below_it(results):
    majority = results[results["method"] == "majority"]
    assert (majority["classifier"] == "majority").all() and (majority["value"] == 0.5).all() and len(majority) == 3
    auc = results["metric"] == "auc"
    edited = results.copy()
    edited.loc[auc & (edited["method"] == "laplace-dp"), "value"] = 0.5  # at the constant score's AUC
    edited.loc[auc & (edited["method"] == "maximal"), "value"] = 0.42  # below it
    summary = summary_table(edited, n_splits=3)
    assert set(summary.loc[summary["≤ majority"], "method"]) == {"laplace-dp", "maximal"}
    assert not summary_table(results, n_splits=3)["≤ majority"].any()
    cells = auc_tables(summary)
    assert cells.index[0] == ("toy", "Majority (constant score)") and cells.iloc[0].tolist() == ["0.500", "0.500"]
    assert cells.loc[("toy", "Maximal"), "k=3"].endswith("≤ majority")
    assert not cells.loc[("toy", "Greedy-DistCnt"), "k=3"].endswith("≤ majority")


def test_selection_folds_are_the_former_draws():
    y = np.array([0, 1] * 20)
    splits, whole_seed, seeds = selection_folds(y, 4, 7, whole=True)
    rng = np.random.RandomState(7)
    former = list(StratifiedKFold(4, shuffle=True, random_state=rng).split(np.zeros(40), y))
    assert all((a[1] == b[1]).all() for a, b in zip(splits, former))
    assert whole_seed == rng.randint(2**31 - 1) and seeds == [rng.randint(2**31 - 1) for _ in range(4)]
    assert run_seeds(seeds, 1) == [s + 2 * 7919 for s in seeds]
    assert selection_folds(y, 4, 7)[2] == [whole_seed, *seeds[:3]]  # no whole reading: no seed drawn for it


def test_views_of_one_stream_continue_one_generator():
    X, y = _toy()
    X = check_binary(X)
    stream = RunStream()
    first = FlippedSVM(3, stream=stream, random_state=11).fit(X, y)
    again = FlippedSVM(3, c_grid=(1.0,), stream=stream, random_state=11).fit(X, y)  # shares the flip
    other = FlippedSVM(4, stream=stream, random_state=11).fit(X, y)
    rng = np.random.RandomState(11)
    flip3 = randomized_flipping(X, 3, random_state=rng)
    from privnb.experiments.feature_selection._svm import fit_svm

    fit_svm(flip3.X, y, random_state=rng)  # the first view's validation split
    flip4 = randomized_flipping(X, 4, random_state=rng)
    assert first.facts_["flipped_share"] == again.facts_["flipped_share"] == flip3.flipped_share
    assert other.facts_["flipped_share"] == flip4.flipped_share
    alone = FlippedSVM(4, random_state=11).fit(X, y)  # a stream of its own: the generator's first draws
    assert alone.facts_["flipped_share"] == randomized_flipping(X, 4, random_state=11).flipped_share


def test_run_folds_takes_given_splits_and_seeds():
    X, y = _toy()
    data = ProtectedData("toy", check_binary(X), y)
    splits, _, seeds = selection_folds(y, 3, 0)
    rows = run_folds(data, [View("full", None, AllFeaturesSVM(), auc_scores)], splits=(splits, seeds), progress=False)
    assert rows["n_train"].tolist()[::2] == [len(train) for train, _ in splits]
    shuffled = run_folds(
        data, [View("full", None, AllFeaturesSVM(), auc_scores)], splits=(splits[::-1], seeds), progress=False
    )
    assert shuffled["n_train"].tolist()[::2] == [len(train) for train, _ in splits[::-1]]


def test_whole_reading_protects_the_whole_data_set_once_per_run():
    X, y = _toy()
    data = ProtectedData("toy", check_binary(X), y)
    splits, whole_seed, seeds = selection_folds(y, 3, 0, whole=True)
    options = dict(k_ac=[3], epsilons=[1.0], n_runs=2, dp_k=5, c_grid=(0.1, 1.0), readings=("train-fold", "whole"))
    rows = pd.concat(whole_reading(data, splits, seeds, whole_seed, methods=["rf", "laplace-dp"], **options))
    share = rows[rows["metric"] == "flipped_share"].sort_values("fold")
    first = randomized_flipping(data.X, 3, random_state=np.random.RandomState(whole_seed + 7919))
    assert (share["value"].iloc[:3] == first.flipped_share).all() and share["fold"].tolist() == list(range(6))
    assert set(rows["method"]) == {"rf@whole", "laplace-dp@whole"}
    dp = rows[(rows["method"] == "laplace-dp@whole") & (rows["metric"] == "auc")]
    assert len(dp) == 6 and dp["value"].between(0, 1).all()


def test_dp_figure_hatches_bars_at_or_below_the_majority():
    summary = pd.DataFrame(
        {
            "dataset": ["a", "b", "a", "b", "a"],
            "method": ["laplace-dp", "laplace-dp", "exponential-dp", "exponential-dp", "majority"],
            "param": [1.0, 1.0, 1.0, 1.0, np.nan],
            "auc": [0.5, 0.8, 0.45, 0.9, 0.5],
            "auc_std": np.nan,
        }
    )
    fig = dp_figure(summary, [1.0])
    hatched = [[bar.get_hatch() for bar in ax.patches] for ax in fig.axes]
    assert hatched == [["//", None], ["//", None]]
    assert any("majority" in line.get_label() for line in fig.axes[0].lines)


@pytest.mark.parametrize("method", ["auto", "packed", "loop"])
def test_repeated_rows_counts_each_row_and_label_pair_by_brute_force(method):
    from collections import Counter

    from privnb.experiments.feature_selection._svm import repeated_rows

    rng = np.random.default_rng(3)
    X = (rng.random((60, 4)) < 0.5).astype(int)
    y = rng.integers(0, 2, 60)
    rows, labels, counts = repeated_rows(check_binary(X), y, method=method)
    pairs = Counter((tuple(r), int(label)) for r, label in zip(X, y))
    got = {(tuple(r), int(label)): c for r, label, c in zip(rows.toarray(), labels, counts)}
    assert got == pairs and counts.sum() == 60
    order = list(dict.fromkeys((tuple(r), int(label)) for r, label in zip(X, y)))
    assert [(tuple(r), int(label)) for r, label in zip(rows.toarray(), labels)] == order  # first appearance


def test_repeated_rows_refuses_packing_what_cannot_be_packed():
    from privnb.experiments.feature_selection._svm import repeated_rows

    with pytest.raises(ValueError, match="needs 0/1 rows of at most 512 features"):
        repeated_rows(np.array([[2, 0], [2, 0]]), [0, 0], method="packed")
    with pytest.raises(ValueError, match="method must be"):
        repeated_rows(np.eye(2), [0, 1], method="bits")


def test_merged_repeats_fit_the_same_svm():
    from privnb.experiments.feature_selection._svm import fit_svm

    X, y = _toy()
    X = check_binary(np.repeat(X[:40], 5, axis=0))  # every row five times, as RF's k-anonymous rows
    y = np.repeat(y[:40], 5)
    for c_grid in ((0.1,), (0.01, 0.1, 1.0)):
        plain = fit_svm(X, y, c_grid=c_grid, random_state=4)
        merged = fit_svm(X, y, c_grid=c_grid, merge_repeats=True, random_state=4)
        assert plain.C == merged.C
        np.testing.assert_allclose(merged.coef_, plain.coef_, atol=2e-3)
        np.testing.assert_allclose(merged.intercept_, plain.intercept_, atol=2e-3)
