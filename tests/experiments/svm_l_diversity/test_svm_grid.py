"""The SVC/SVM grid of MC16 (Section 5): exact duplicate collapsing, solvers, the grid runner."""

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVC, LinearSVC

from privnb.data import Dataset
from privnb.experiments.svm_l_diversity import run_svm_grid
from privnb.learn import CLASSIFIER_NAMES, CollapseDuplicates, NystroemSVM, PrunedTraining, svm_classifier, svm_pipeline


def toy_dataset(n=240, seed=0):
    """Two numeric quasi-identifiers, one nominal, a 3-valued sensitive column; rows repeat."""
    rng = np.random.RandomState(seed)
    base = pd.DataFrame(
        {
            "a": rng.randint(0, 6, n).astype(float),
            "b": rng.randint(0, 4, n).astype(float),
            "c": rng.choice(["x", "y"], n),
            "s": rng.choice(["lo", "mid", "hi"], n),
        }
    )
    score = base["a"] - 2 * base["b"] + (base["c"] == "x") + rng.normal(0, 1, n)
    base["t"] = (score > 0).astype(np.int64)
    return Dataset(
        "toy",
        base,
        ("a", "b", "c"),
        "s",
        "t",
        {"a": "numeric", "b": "numeric", "c": "nominal", "s": "ordinal"},
        {"s": ("lo", "mid", "hi")},
        ("neg", "pos"),
    )


@pytest.mark.parametrize(
    "estimator",
    [SVC(kernel="rbf", gamma="auto"), SVC(kernel="linear"), LinearSVC(loss="hinge", max_iter=100000, tol=1e-8)],
)
def test_collapse_duplicates_solves_the_same_problem(estimator):
    rng = np.random.RandomState(1)
    X = rng.randint(0, 3, size=(300, 3)).astype(float)
    y = (X.sum(axis=1) + rng.normal(0, 1, 300) > 3).astype(int)
    collapsed = CollapseDuplicates(estimator).fit(X, y)
    assert collapsed.n_distinct_ == len(np.unique(np.column_stack([X, y]), axis=0)) < 300
    plain = estimator.fit(X, y)
    grid = rng.uniform(-1, 3, size=(200, 3))
    np.testing.assert_allclose(collapsed.decision_function(grid), plain.decision_function(grid), atol=5e-3)
    assert np.mean(collapsed.predict(grid) != plain.predict(grid)) <= 0.01


def test_collapse_duplicates_needs_matching_lengths():
    with pytest.raises(ValueError, match="one row per label"):
        CollapseDuplicates(SVC()).fit(np.zeros((3, 2)), [0, 1])


def test_nystroem_approximates_rbf():
    rng = np.random.RandomState(2)
    X = rng.normal(size=(400, 4))
    y = (np.linalg.norm(X, axis=1) > 2).astype(int)
    exact = SVC(kernel="rbf", gamma="auto").fit(X, y)
    approx = NystroemSVM(n_components=200, random_state=0).fit(X, y)
    assert np.mean(approx.predict(X) != exact.predict(X)) < 0.05


@pytest.mark.parametrize(
    "kernel, solver, message",
    [
        ("poly", "libsvm", "kernel must be"),
        ("rbf", "cuda", "solver must be"),
        ("linear", "nystroem", "RBF kernel only"),
    ],
)
def test_svm_classifier_bad_input(kernel, solver, message):
    with pytest.raises(ValueError, match=message):
        svm_classifier(kernel, solver=solver)


def test_sklearnex_solver_is_the_same_problem():
    pytest.importorskip("sklearnex")
    data = toy_dataset()
    libsvm = svm_pipeline(data, "rbf", solver="libsvm").fit(data.X, data.y)
    onedal = svm_pipeline(data, "rbf", solver="sklearnex").fit(data.X, data.y)
    assert np.mean(libsvm.predict(data.X) != onedal.predict(data.X)) <= 0.02


def test_grid_rows_and_not_applicable_l():
    data = toy_dataset()
    rows = run_svm_grid(data, kernels=("linear", "rbf"), ls=(2, 4), n_splits=2, random_state=0)
    assert set(rows["classifier"]) == {*CLASSIFIER_NAMES.values(), "majority"}
    assert set(rows["method"]) == {"original", "identifying", "pruned", "majority"}
    na = rows[(rows["method"] == "pruned") & (rows["param"] == 4)]
    assert na["value"].isna().all() and na["note"].str.startswith("N/A").all()  # l = 4 > 3 sensitive values
    assert set(na["classifier"]) == {"SVC", "SVM"} and set(na["metric"]) == {"error", "balanced_accuracy", "auc"}
    ok = rows[rows["note"] == ""]
    assert ok["value"].between(0, 1).all() and len(ok) == (2 * 2 * 3 + 2) * 3  # and the baseline's 2 folds; 3 metrics
    majority = rows[(rows["method"] == "majority") & (rows["metric"] == "error")]
    baseline = rows[(rows["method"] == "majority") & (rows["metric"] != "error")]
    assert (baseline["value"] == 0.5).all()  # a constant guess: balanced accuracy and AUC one half
    y = np.asarray(data.y)
    assert majority["value"].tolist() == pytest.approx([np.mean(y != np.bincount(y).argmax())] * 2, abs=0.02)
    pruned = ok[ok["method"] == "pruned"]
    assert (pruned["n_train"] + pruned["n_suppressed"] == len(data.frame) // 2).all()


def test_grid_is_reproducible_and_collapse_changes_nothing():
    data = toy_dataset(seed=3)
    a = run_svm_grid(data, kernels=("rbf",), ls=(2,), n_splits=2, random_state=5)
    b = run_svm_grid(data, kernels=("rbf",), ls=(2,), n_splits=2, random_state=5, collapse=False)
    np.testing.assert_allclose(a["value"], b["value"], atol=1 / len(data.frame))


def test_grid_gives_the_rows_of_cross_validate_views():
    from privnb.experiments import cross_validate_views
    from privnb.experiments.class_metrics import CLASSIFICATION_METRICS
    from privnb.experiments.svm_l_diversity.grid import svm_views

    data = toy_dataset(seed=4)
    fast = run_svm_grid(data, kernels=("linear", "rbf"), ls=(2,), n_splits=3, random_state=7, majority=False)
    views = {**svm_views(data, "linear", ls=(2,)), **svm_views(data, "rbf", ls=(2,))}
    generic = cross_validate_views(
        data, views, n_splits=3, random_state=7, progress=False, metrics=CLASSIFICATION_METRICS
    )
    keys = ["classifier", "method", "param", "fold", "metric"]
    merged = fast.merge(generic, on=keys, suffixes=("_fast", "_generic"))
    assert len(merged) == len(fast) == len(generic)
    np.testing.assert_array_equal(merged["value_fast"], merged["value_generic"])
    np.testing.assert_array_equal(merged["n_train_fast"], merged["n_train_generic"])


def test_grid_needs_hierarchies_for_k():
    with pytest.raises(ValueError, match="hierarchies"):
        run_svm_grid(toy_dataset(), k_anonymity=(2,))


def test_theorem_inputs_are_those_of_each_folds_pruned_svc():
    """The rows Theorem 4.1 reads (||w_p||, R^2 extremes of D_A) come from the fold's own pruned linear SVC."""
    from privnb.experiments.class_metrics import CLASSIFICATION_METRICS
    from privnb.experiments.folds import folds_and_seeds
    from privnb.learn import PrunedTraining

    data = toy_dataset(seed=6)
    plain = run_svm_grid(data, kernels=("linear", "rbf"), ls=(2,), n_splits=2, random_state=3)
    rows = run_svm_grid(data, kernels=("linear", "rbf"), ls=(2,), n_splits=2, random_state=3, theorem_inputs=True)
    scored = rows["metric"].isin(list(CLASSIFICATION_METRICS))
    pd.testing.assert_frame_equal(rows[scored].reset_index(drop=True), plain)
    inputs = rows[~scored]
    assert set(inputs["classifier"]) == {"SVC"} and set(inputs["method"]) == {"pruned"}
    splits, seeds = folds_and_seeds(np.asarray(data.y), 2, 3)
    for fold, (train, _) in enumerate(splits):
        view = PrunedTraining(
            svm_pipeline(data, "linear"),
            sensitive="s",
            l=2,
            kinds=data.kinds,
            orders=data.orders,
            random_state=int(seeds[fold]),
        ).fit(data.X.iloc[train], np.asarray(data.y)[train])
        encoded = view.estimator_.steps[0][1].transform(view.anatomy_.join()[view.view_columns_])
        squared = (encoded**2).sum(axis=1)
        got = inputs[inputs["fold"] == fold].set_index("metric")["value"]
        assert got["w_norm"] == pytest.approx(np.sqrt((view.estimator_.steps[-1][1].estimator_.coef_ ** 2).sum()))
        assert (got["r2_min"], got["r2_max"]) == pytest.approx((squared.min(), squared.max()))
        assert got["appendix_b_r2_min"] <= got["appendix_b_r2_max"]


def test_space_appendix_b_is_seed_003s_r_d_plus_1_and_theorem_inputs_record_the_dimension():
    """space="appendix_b": one coordinate per attribute (d + 1 = 4 with the sensitive column); one-hot: 5."""
    from privnb.experiments.svm_l_diversity.grid import svm_views

    data = toy_dataset(seed=2)
    for space, width in (("appendix_b", 4), ("one_hot", 5)):
        rows = run_svm_grid(
            data,
            kernels=("linear",),
            ls=(2,),
            n_splits=2,
            random_state=0,
            theorem_inputs=True,
            progress=False,
            space=space,
        )
        assert set(rows.loc[rows["metric"] == "dimension", "value"]) == {float(width)}
        view = svm_views(data, "linear", ls=(2,), space=space)[("SVC", "pruned", 2)]
        assert view.estimator[0].scheme == {"appendix_b": "appendix_b", "one_hot": "standard"}[space]
    with pytest.raises(ValueError, match="space must be one of"):
        svm_pipeline(data, "linear", space="raw")


def test_compare_ordinal_centers_counts_the_kept_rows_that_move_and_their_error():
    from privnb.experiments.svm_l_diversity import compare_ordinal_centers

    data = toy_dataset(seed=4)
    table = compare_ordinal_centers(data, ls=(2, 3), kernels=("linear",), n_splits=2, random_state=0)
    assert table["l"].tolist() == [2, 3] and set(table["classifier"]) == {"SVC"}
    assert (table["kept rows differing"] <= table["rows"]).all() and (table["kept rows differing"] > 0).any()
    np.testing.assert_allclose(table["mode - mean"], table["error (mode)"] - table["error (mean)"])
    # no ordinal attribute: both readings are one preprocessing, nothing moves
    numeric = Dataset(
        "toy",
        data.frame.assign(s=data.frame["s"].map({"lo": "p", "mid": "q", "hi": "r"})),
        ("a", "b", "c"),
        "s",
        "t",
        {**data.kinds, "s": "nominal"},
        {},
        ("neg", "pos"),
    )
    same = compare_ordinal_centers(numeric, ls=(2,), kernels=("linear",), n_splits=2, random_state=0)
    assert (same["kept rows differing"] == 0).all() and (same["mode - mean"] == 0).all()


def test_hierarchies_come_from_the_data_when_not_given():
    from types import SimpleNamespace

    from privnb.experiments.svm_l_diversity.grid import SvmLearner, dataset_hierarchies, svm_grid_views

    own = {"a": object()}
    assert dataset_hierarchies(SimpleNamespace(hierarchies=own)) is own
    assert dataset_hierarchies(SimpleNamespace(hierarchies=own), {"b": 1}) == {"b": 1}
    assert dataset_hierarchies(SimpleNamespace(hierarchies={})) is None and dataset_hierarchies(object()) is None
    data = toy_dataset()
    with_hierarchies = SimpleNamespace(**{f: getattr(data, f) for f in ("name", "kinds", "orders", "sensitive")})
    with_hierarchies.quasi_identifiers, with_hierarchies.hierarchies = data.quasi_identifiers, own
    views = svm_grid_views(with_hierarchies, SvmLearner(), ls=(2,), k_anonymity=(2, 3))
    generalized = [view for view in views if view.method == "generalized"]
    assert [view.estimator.hierarchies for view in generalized] == [own, own]
    assert {view.batch for view in generalized} == {"generalized"}  # one task per fold: one lattice search
    assert len({view.batch for view in views}) == len(views) - 1 and views[-1].method == "majority"


def test_kernel_scorer_gives_each_kernels_metrics_and_theorem_rows_on_request():
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    from privnb.experiments.folds import FoldData
    from privnb.experiments.svm_l_diversity.grid import KernelScorer, SvmLearner, fitted_models

    data = toy_dataset(seed=8)
    X, y = data.X, np.asarray(data.y)
    learner = SvmLearner(kernels=("linear", "rbf"))
    view = PrunedTraining(learner.estimator(data), sensitive="s", l=2, kinds=data.kinds, random_state=0)
    view.fit(X.iloc[:160], y[:160])
    fold = FoldData(0, 0, X.iloc[:160], y[:160], X.iloc[160:], y[160:])
    scores = KernelScorer(("SVC", "SVM"))(view, fold)
    metrics = ("error", "balanced_accuracy", "auc")
    assert [(s.classifier, s.metric) for s in scores] == [(c, m) for c in ("SVC", "SVM") for m in metrics]
    test_rows = view.estimator_[0].transform(X.iloc[160:])
    for score in scores:
        model = fitted_models(view)[score.classifier]
        expected = {
            "error": np.mean(model.predict(test_rows) != y[160:]),
            "balanced_accuracy": balanced_accuracy_score(y[160:], model.predict(test_rows)),
            "auc": roc_auc_score(y[160:], model.decision_function(test_rows)),
        }[score.metric]
        assert score.value == pytest.approx(expected)
    with_theorem = KernelScorer(("SVC", "SVM"), theorem_inputs=True)(view, fold)
    assert [s.metric for s in with_theorem[6:]] == ["dimension", "w_norm", "r2_min", "r2_max"] + [
        "appendix_b_r2_min",
        "appendix_b_r2_max",
    ]
    assert KernelScorer(("SVC", "SVM")).outputs == tuple((c, m) for c in ("SVC", "SVM") for m in metrics)


def test_error_boxplot_draws_the_majority_baseline():
    from privnb.workbench import error_boxplot

    data = toy_dataset()
    rows = run_svm_grid(data, kernels=("linear",), ls=(2,), n_splits=2, random_state=0, progress=False)
    svc = rows[rows["classifier"] == "SVC"]
    figure = error_boxplot(svc, baseline=0.4)
    dashed = [line for line in figure.axes[0].lines if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and list(dashed[0].get_ydata()) == [0.4, 0.4]
    assert not [line for line in error_boxplot(svc).axes[0].lines if line.get_linestyle() == "--"]


def test_grid_rejects_an_unknown_option_by_name():
    with pytest.raises(ValueError, match=r"unknown SVM option\(s\) \['spaces'\]"):
        run_svm_grid(toy_dataset(), ls=(2,), n_splits=2, spaces="one_hot")
