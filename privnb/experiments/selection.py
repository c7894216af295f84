"""Section 5.2 of seed 001: the SVM protocol that scores every feature-selection method.

A linear SVM with the squared hinge (L2) loss, its C tuned on a small validation split of the
training fold, stratified 5-fold cross-validation, AUC on the raw test fold. Every method sees only
the training fold: selectors select on it, RF flips it, the DP methods release a noisy table of it;
the test fold is projected on the selected features. Randomized methods (RF, Laplace-DP,
Exponential-DP) repeat ``n_runs`` times on the same folds; their tidy rows number folds
``run * n_splits + i``.

:mod:`privnb.experiments.selection_tables` holds the paper's Tables 5 (Adult) and 6 (Email) and our
tables. Notebook 03's loops live here too: :func:`dataset_statistics` (Table 3), :func:`time_miners`
and :func:`itemset_growth` (the maximal-itemset miners), :func:`evaluate_datasets` (the protocol over
data sets).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, StratifiedKFold, StratifiedShuffleSplit
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state

from privnb.data.binarize import density
from privnb.experiments.folds import COLUMNS, tidy_frame
from privnb.learn.feature_selection import greedy_cm, greedy_distcnt, greedy_hamdist, maximal, maximal_itemsets
from privnb.mechanisms.containment import check_binary, dataset_ac, feature_hamdist
from privnb.mechanisms.dp_release import dp_select_release, dp_table_release
from privnb.mechanisms.flipping import randomized_flipping

SELECTORS = {
    "maximal": lambda X, y, k, o: maximal(X, y, k, max_items=o.get("max_items")),
    "greedy-hamdist": lambda X, y, k, o: greedy_hamdist(X, y, k),
    "greedy-distcnt": lambda X, y, k, o: greedy_distcnt(X, y, k),
    "cm-greedy": lambda X, y, k, o: greedy_cm(X, y, k),
    "k-anonymity-hamdist": lambda X, y, k, o: greedy_hamdist(X, y, k, constraint="k-anonymity"),
    "k-anonymity-distcnt": lambda X, y, k, o: greedy_distcnt(X, y, k, constraint="k-anonymity"),
}
"""Deterministic selectors by method name (the rows of Tables 4-6 of seed 001)."""

DP_METHODS = {"laplace-dp": "laplace", "exponential-dp": "exponential", "laplace-dp-paper": "laplace-paper"}
"""DP method names and the selection mechanism of :func:`privnb.mechanisms.dp_select_release` they run.
"laplace-dp-paper" is the paper's text read literally: NOT epsilon-DP as booked."""

METHODS = (*SELECTORS, "rf", "full", *DP_METHODS)
"""Every method name :func:`evaluate_methods` knows, in the paper's table order."""

READINGS = ("train-fold", "whole", "both-folds")
"""How the data-releasing baselines (RF, DP) are tested; the paper does not say (Section 5.2 of seed 001):

- "train-fold" (default, the workbench's setting "train on protected data, test on raw data"): protect the
  training fold, test on the raw test fold;
- "whole": protect the whole data set once per run, then cross-validate on the protected rows (for DP, the
  synthetic rows of the released table);
- "both-folds": protect the training and the test fold separately (DP: the test fold's table of the features
  selected on the training fold is released with the same epsilon / 2 as the training fold's table).

Rows of the other readings carry the method name with "@whole" or "@both-folds" appended."""

SVM_SETTINGS = ("tuned", "default")
"""LinearSVC (LIBLINEAR, L2-regularized L2-loss = squared hinge, the "L2 loss" the paper names for LibSVM):
"tuned" picks C on a validation split (:data:`C_GRID`), "default" keeps LIBLINEAR's C = 1. "default" rows of
the full feature set and RF carry the method name with "@C=1" appended."""

LABELS = {
    "maximal": "Maximal",
    "greedy-hamdist": "Greedy-HamDist",
    "greedy-distcnt": "Greedy-DistCnt",
    "cm-greedy": "CM Greedy",
    "rf": "RF",
    "k-anonymity-hamdist": "k-anonymity HamDist",
    "k-anonymity-distcnt": "k-anonymity DistCnt",
    "full": "Full-Feature-Set",
    "laplace-dp": "Laplace-DP",
    "exponential-dp": "Exponential-DP",
    "laplace-dp-paper": "Laplace-DP (paper's reading, not ε-DP as booked)",
}
"""Row labels of the paper's tables."""

C_GRID = (0.01, 0.1, 1.0)
"""Values of C tried on the validation split (the paper does not give its grid)."""
_MAX_ITER = 2000
_SOLVER_SEED = 0  # liblinear's coordinate order (see fit_svm)


def fit_svm(X, y, *, c_grid: Sequence[float] = C_GRID, validation_size: float = 0.2, random_state=None) -> LinearSVC:
    """LinearSVC (squared hinge loss) with C picked by AUC on a stratified validation split, refit on all.

    Section 5.2 of seed 001: "the only parameter ... which we tune using a small validation set".
    liblinear stops after 2000 iterations on data it cannot separate well (flipped or noisy rows); the
    unconverged fit is still a valid linear classifier, its AUC says how good, so that warning is muted.
    liblinear's dual solver visits coordinates in a random order, a detail of the solver: it gets a fixed
    seed, so a fit is reproducible (unseeded it drew from NumPy's global state) and the experiment's own
    random stream (folds, noise, flips) is left as it was.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _fit_svm(X, y, c_grid, validation_size, check_random_state(random_state))


def _fit_svm(X, y, c_grid, validation_size, rng) -> LinearSVC:
    best_c = c_grid[0]
    if len(c_grid) > 1 and np.bincount(y).min() >= 2:
        split = StratifiedShuffleSplit(1, test_size=validation_size, random_state=rng)
        fit_rows, val_rows = next(split.split(np.zeros(len(y)), y))
        scores = []
        for c in c_grid:
            model = LinearSVC(C=c, loss="squared_hinge", dual="auto", max_iter=_MAX_ITER, random_state=_SOLVER_SEED)
            model.fit(X[fit_rows], y[fit_rows])
            scores.append(_auc(y[val_rows], model.decision_function(X[val_rows])))
        best_c = c_grid[int(np.argmax(scores))]
    return LinearSVC(C=best_c, loss="squared_hinge", dual="auto", max_iter=_MAX_ITER, random_state=_SOLVER_SEED).fit(
        X, y
    )


def _auc(y_true, scores) -> float:
    return float(roc_auc_score(y_true, scores)) if np.unique(y_true).size == 2 else math.nan


def svm_auc(X_train, y_train, X_test, y_test, *, c_grid=C_GRID, random_state=None) -> tuple[float, str]:
    """Test AUC of the tuned SVM; 0.5 (a constant score) with a note when it cannot be trained."""
    if X_train.shape[1] == 0:
        return 0.5, "no feature selected: constant score"
    if np.unique(y_train).size < 2:
        return 0.5, "training data hold one class: constant score"
    model = fit_svm(X_train, y_train, c_grid=c_grid, random_state=random_state)
    return _auc(y_test, model.decision_function(X_test)), ""


def evaluate_methods(
    X,
    y,
    *,
    dataset_name: str,
    methods: Sequence[str] = METHODS,
    k_ac: Sequence[int] = (5, 8, 11),
    epsilons: Sequence[float] = (0.1, 0.5, 1.0),
    n_splits: int = 5,
    n_runs: int = 10,
    dp_k: int = 5,
    max_items: int | None = None,
    c_grid: Sequence[float] = C_GRID,
    readings: Sequence[str] = ("train-fold",),
    svm_settings: Sequence[str] = ("tuned",),
    random_state=None,
) -> pd.DataFrame:
    """Run the paper's protocol (Section 5.2 of seed 001) and return tidy rows (privnb.experiments.protocol).

    Metrics: "auc" and "n_features" (SFC) for every method; "ac" (AC of the projected training fold)
    for the selectors; "flipped_share" for RF. ``param`` is k, or epsilon for the DP methods, whose
    feature count is what Greedy-HamDist selects at ``k = dp_k`` on the same training fold.
    ``k_ac`` are the k-AC levels (k of the k-anonymity baselines and of RF); ``random_state`` (int,
    RandomState or None, as in :func:`privnb.experiments.cross_validate_views`) seeds the folds and
    every randomized method. ``readings`` (:data:`READINGS`) say how RF and the DP methods are tested,
    ``svm_settings`` (:data:`SVM_SETTINGS`) whether the full feature set and RF are also scored with
    LIBLINEAR's default C = 1; the first reading and "tuned" give the plain method names.
    """
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {METHODS}")
    bad = sorted(set(readings) - set(READINGS)) + sorted(set(svm_settings) - set(SVM_SETTINGS))
    if bad or not readings or "tuned" not in svm_settings:
        raise ValueError(
            f"readings must be a non-empty subset of {READINGS} and svm_settings a subset of "
            f"{SVM_SETTINGS} holding 'tuned'; got {list(readings)}, {list(svm_settings)}"
        )
    X = check_binary(X)
    y = np.asarray(y).astype(np.int64)
    rng = check_random_state(random_state)
    folds = list(StratifiedKFold(n_splits, shuffle=True, random_state=rng).split(np.zeros(len(y)), y))
    rows = []

    def add(method, param, fold, metric, value, n_train, note=""):
        rows.append((dataset_name, "linear-svm", method, param, fold, metric, value, n_train, 0, note))

    grids = {"tuned": c_grid, "default": (1.0,)}
    whole = _whole_releases(X, y, methods, k_ac, epsilons, n_splits, n_runs, dp_k, rng) if "whole" in readings else {}
    for i, (train, test) in enumerate(folds):
        Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
        seed = int(rng.randint(2**31 - 1))
        greedy_dp = None
        for method in methods:
            if method in SELECTORS:
                for k in k_ac:
                    sel = SELECTORS[method](Xtr, ytr, k, {"max_items": max_items})
                    if method == "greedy-hamdist" and k == dp_k:
                        greedy_dp = sel
                    auc, note = svm_auc(
                        Xtr[:, sel.features], ytr, Xte[:, sel.features], yte, c_grid=c_grid, random_state=seed
                    )
                    add(method, k, i, "auc", auc, len(train), note)
                    add(method, k, i, "n_features", sel.features.size, len(train))
                    add(method, k, i, "ac", sel.ac, len(train))
            elif method == "full":
                for setting in svm_settings:
                    auc, note = svm_auc(Xtr, ytr, Xte, yte, c_grid=grids[setting], random_state=seed)
                    name = method if setting == "tuned" else f"{method}@C=1"
                    add(name, math.nan, i, "auc", auc, len(train), note)
                    add(name, math.nan, i, "n_features", X.shape[1], len(train))
        for run in range(n_runs):
            run_rng = check_random_state(seed + 7919 * (run + 1))
            fold = run * n_splits + i
            if "rf" in methods:
                for k in k_ac:
                    for reading in readings:
                        name = "rf" if reading == readings[0] else f"rf@{reading}"
                        if reading == "whole":
                            flipped = whole[("rf", k, run)]
                            tr, te, share = flipped.X[train], flipped.X[test], flipped.flipped_share
                        else:
                            flipped = randomized_flipping(Xtr, k, random_state=run_rng)
                            tr, te, share = flipped.X, Xte, flipped.flipped_share
                            if reading == "both-folds":
                                te = randomized_flipping(Xte, min(k, Xte.shape[0]), random_state=run_rng).X
                        for setting in svm_settings if reading == readings[0] else ("tuned",):
                            auc, note = svm_auc(tr, ytr, te, yte, c_grid=grids[setting], random_state=run_rng)
                            label = name if setting == "tuned" else f"{name}@C=1"
                            add(label, k, fold, "auc", auc, len(train), note)
                            add(label, k, fold, "n_features", X.shape[1], len(train))
                            add(label, k, fold, "flipped_share", share, len(train))
            for method, mechanism in DP_METHODS.items():
                if method not in methods:
                    continue
                if greedy_dp is None:
                    greedy_dp = greedy_hamdist(Xtr, ytr, dp_k)
                n_dp = max(1, greedy_dp.features.size)
                for eps in epsilons:
                    for reading in readings:
                        name = method if reading == readings[0] else f"{method}@{reading}"
                        if reading == "whole":
                            rel, (w_train, w_test) = whole[(method, eps, run)], whole[(method, eps, run, i)]
                            tr_X, tr_y, te_X, te_y = rel.X[w_train], rel.y[w_train], rel.X[w_test], rel.y[w_test]
                            n_used = len(w_train)
                        else:
                            rel = dp_select_release(Xtr, ytr, n_dp, eps, mechanism=mechanism, random_state=run_rng)
                            tr_X, tr_y, te_X, te_y = rel.X, rel.y, Xte[:, rel.features].toarray(), yte
                            if reading == "both-folds":
                                te_X, te_y = dp_table_release(Xte, yte, rel.features, eps / 2, random_state=run_rng)
                            n_used = len(train)
                        auc, note = svm_auc(tr_X, tr_y, te_X, te_y, c_grid=c_grid, random_state=run_rng)
                        add(name, eps, fold, "auc", auc, n_used, note)
                        add(name, eps, fold, "n_features", rel.features.size, n_used)
    return tidy_frame(pd.DataFrame(rows, columns=list(COLUMNS)))


def _whole_releases(X, y, methods, k_ac, epsilons, n_splits, n_runs, dp_k, rng) -> dict:
    """The "whole" reading's protected data sets, one per run (and k or epsilon), with the folds over them."""
    out = {}
    seed = int(rng.randint(2**31 - 1))
    n_dp = max(1, greedy_hamdist(X, y, dp_k).features.size)
    for run in range(n_runs):
        run_rng = check_random_state(seed + 7919 * (run + 1))
        if "rf" in methods:
            for k in k_ac:
                out[("rf", k, run)] = randomized_flipping(X, k, random_state=run_rng)
        for method, mechanism in DP_METHODS.items():
            if method not in methods:
                continue
            for eps in epsilons:
                rel = dp_select_release(X, y, n_dp, eps, mechanism=mechanism, random_state=run_rng)
                out[(method, eps, run)] = rel
                splits = _release_folds(rel.y, n_splits, run_rng)
                out.update({(method, eps, run, i): split for i, split in enumerate(splits)})
    return out


def _release_folds(y, n_splits, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified folds over released rows (plain folds when a class has fewer rows than folds)."""
    y = np.asarray(y)
    index = np.zeros(len(y))
    if np.unique(y).size == 2 and np.bincount(y).min() >= n_splits:
        return list(StratifiedKFold(n_splits, shuffle=True, random_state=rng).split(index, y))
    return list(KFold(n_splits, shuffle=True, random_state=rng).split(index))


PAPER_DATA = {"adult": ("Adult", 27.9, 19), "pu1": ("Email (PU1)", 0.9, 24604)}
"""The paper's data sets by privnb name: its label, density in percent and feature count (Table 3 of seed 001)."""


def dataset_statistics(inputs: Mapping) -> tuple[pd.DataFrame, dict]:
    """Table 3 of seed 001 for every data set (all its rows), beside the paper's density and size for its own.

    Parameters
    ----------
    inputs : mapping
        Name -> an object with ``X_all`` (binary features, every row), ``y_all`` (labels 0/1), ``how`` (how the
        features were made) and ``support.paper`` (the papers' name or None), e.g.
        :class:`privnb.experiments.selection_data.SelectionInput`.

    Returns
    -------
    stats : DataFrame
        One row per data set (the paper's label for its own): rows, features, positive, negative, density in
        percent, the AC with every feature published (Definition 5), how the features were made, and the
        paper's density and feature count (empty for other data).
    metrics : dict
        ``<name>_density``, ``<name>_features`` and ``<name>_ac_all_features`` per data set.
    """
    rows, metrics = [], {}
    for name, item in inputs.items():
        X, y = item.X_all, np.asarray(item.y_all)
        label, paper_density, paper_features = PAPER_DATA.get(item.support.paper, (name, np.nan, np.nan))
        ac = dataset_ac(X)
        metrics.update({f"{name}_density": density(X), f"{name}_features": int(X.shape[1])})
        metrics[f"{name}_ac_all_features"] = ac
        rows.append(
            {
                "data set": label,
                "rows": X.shape[0],
                "features": X.shape[1],
                "positive": int(y.sum()),
                "negative": int((1 - y).sum()),
                "density %": 100 * density(X),
                "AC, all features": ac,
                "features made as": item.how,
                "paper density %": paper_density,
                "paper features": paper_features,
            }
        )
    return pd.DataFrame(rows).set_index("data set"), metrics


def time_miners(X, k: int, miners: Sequence[str] = ("pyfim", "mlxtend")) -> dict[str, tuple[int, float]]:
    """Run each maximal-itemset miner at support ``k`` (Lemma 3, Algorithm 1's first line, seed 001).

    The paper mines with LCM; we compare pyfim and mlxtend. Returns miner -> (number of maximal
    itemsets found, wall seconds), in the order of ``miners``.
    """
    out = {}
    for miner in miners:
        start = time.perf_counter()
        found = maximal_itemsets(X, k, miner=miner)
        out[miner] = (len(found), time.perf_counter() - start)
    return out


def itemset_growth(X, y, n_items: Sequence[int] = (10, 15, 20), k: int = 5) -> dict[int, int]:
    """Number of maximal itemsets at support ``k`` over the ``n`` features of highest HamDist, per ``n``.

    Shows how Maximal's search space (Section 3 of seed 001) grows with the number of PU1 tokens mined;
    ties in HamDist keep the lower column index.
    """
    h = feature_hamdist(X, y)
    counts = {}
    for n in n_items:
        top = np.sort(np.argsort(-h, kind="stable")[:n])
        counts[n] = len(maximal_itemsets(X[:, top], k))
    return counts


def frequent_columns(X, min_df: int):
    """The columns of ``X`` (PU1's token presence) set in at least ``min_df`` rows, in their order."""
    keep = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() >= min_df)
    return X[:, keep]


def evaluate_datasets(
    inputs: Mapping[str, tuple],
    datasets: Sequence[str],
    *,
    k_ac: Sequence[int] = (5, 8, 11),
    epsilons: Sequence[float] = (0.1, 0.5, 1.0),
    n_splits: int = 5,
    n_runs: int = 10,
    readings: Sequence[str] = ("train-fold",),
    svm_settings: Sequence[str] = ("tuned",),
    random_state=None,
) -> tuple[pd.DataFrame, dict[str, float]]:
    """:func:`evaluate_methods` on each named data set (Section 5.2 of seed 001, Tables 5-6 and Figure 1).

    Parameters
    ----------
    inputs : mapping
        Name -> ``(X, y, max_items)``, ``max_items`` going to Maximal.
    datasets : sequence of str
        The names of ``inputs`` to run, in order.
    k_ac, epsilons, n_splits, n_runs, readings, svm_settings
        As in :func:`evaluate_methods`.
    random_state : int, RandomState or None
        Given as is to every data set's :func:`evaluate_methods` (an int seeds each the same way).

    Returns
    -------
    results : DataFrame
        The tidy rows of all data sets, concatenated in the order of ``datasets``.
    seconds : dict
        Name -> wall seconds of its run.
    """
    frames, seconds = [], {}
    for name in datasets:
        X, y, max_items = inputs[name]
        start = time.perf_counter()
        frames.append(
            evaluate_methods(
                X,
                y,
                dataset_name=name,
                k_ac=k_ac,
                epsilons=epsilons,
                n_splits=n_splits,
                n_runs=n_runs,
                max_items=max_items,
                readings=readings,
                svm_settings=svm_settings,
                random_state=random_state,
            )
        )
        seconds[name] = time.perf_counter() - start
    return pd.concat(frames, ignore_index=True), seconds
