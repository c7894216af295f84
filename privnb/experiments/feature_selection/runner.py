"""Section 5.2 of FSAC: every feature-selection method cross-validated by :func:`privnb.experiments.run_folds`.

Each method is a view (:mod:`.views`) scored by the AUC of the linear SVM (:mod:`.svm`) on the test fold,
stratified 5-fold cross-validation. Every per-fold view sees only the training fold: selectors select on it,
RF flips it, the DP methods release a noisy table of it; the test fold is projected on the selected features.
Randomized methods (RF, Laplace-DP, Exponential-DP) repeat ``n_runs`` times on the same folds; their tidy rows
number folds ``run * n_splits + i``. The "whole" reading protects the whole data set before cross-validation,
which no view of a training fold can do: it is a separate path through the same runner, with the protected
data set as the runner's input (:func:`whole_reading`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.experiments.feature_selection._svm import C_GRID, auc_or_nan
from privnb.experiments.feature_selection._views import (
    DP_METHODS,
    GREEDY_SELECTORS,
    METHODS,
    SELECTORS,
    AllFeaturesSVM,
    DPReleaseSVM,
    FlippedSVM,
    RunStream,
    SelectorSVM,
    auc_scores,
)
from privnb.experiments.folds import View, majority_view, run_folds, tidy_frame
from privnb.learn.feature_selection import STOP_RULES, greedy_hamdist
from privnb.mechanisms.containment import check_binary
from privnb.mechanisms.dp_release import dp_select_release
from privnb.mechanisms.flipping import randomized_flipping

READINGS = ("train-fold", "whole", "both-folds")
"""How the data-releasing baselines (RF, DP) are tested; the paper does not say (Section 5.2 of FSAC):

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

_DEFAULT_C = (1.0,)
_RUN_STEP = 7919  # the seed of run r of a fold is the fold's seed + 7919 (r + 1)


@dataclass(frozen=True)
class ProtectedData:
    """Rows the runner cross-validates: a protected release of a whole data set ("whole" reading).

    Parameters
    ----------
    name : str
        The data set's name.
    X : matrix
        The protected rows.
    y : array
        Their labels.
    """

    name: str
    X: object
    y: np.ndarray


@shared_doc
def selection_folds(y, n_splits: int, random_state, *, whole: bool = False):
    """The stratified folds, the "whole" reading's seed and one seed per fold, as notebook 03 draws them.

    One generator draws the shuffle of the folds, then (only when the "whole" reading runs) the seed of the
    whole-data releases, then the folds' seeds: the draws FSAC's runner has always made, so a seed gives the
    same folds, selections and flips as before.

    Parameters
    ----------
    y : array
        Labels.
    n_splits : int
        Number of folds.
    random_state : int, RandomState or None
        Seeds everything.
        {random_state}
    whole : bool
        Draw the whole reading's seed.

    Returns
    -------
    (list of (train, test) index arrays, int or None, list of int)
    """
    rng = check_random_state(random_state)
    splits = list(StratifiedKFold(n_splits, shuffle=True, random_state=rng).split(np.zeros(len(y)), y))
    whole_seed = int(rng.randint(2**31 - 1)) if whole else None
    return splits, whole_seed, [int(rng.randint(2**31 - 1)) for _ in splits]


def run_seeds(seeds: Sequence[int], run: int) -> list[int]:
    """The seeds of run ``run`` (from 0) of the randomized methods, one per fold.

    Parameters
    ----------
    seeds : sequence of int
        The folds' seeds.
    run : int
        The run.

    Returns
    -------
    list of int
    """
    return [seed + _RUN_STEP * (run + 1) for seed in seeds]


def _grid(setting: str, c_grid):
    return _DEFAULT_C if setting == "default" else c_grid


def _name(method: str, reading: str, readings: Sequence[str], setting: str = "tuned") -> str:
    name = method if reading == readings[0] else f"{method}@{reading}"
    return name if setting == "tuned" else f"{name}@C=1"


def fixed_views(
    methods: Sequence[str],
    k_ac: Sequence[int],
    *,
    max_items=None,
    c_grid=C_GRID,
    svm_settings=("tuned",),
    stop_rules=STOP_RULES[:1],
) -> list[View]:
    """The deterministic views: each selector at each k, the full feature set per SVM setting, the majority.

    A greedy selector runs once per stopping rule of ``stop_rules``: the first gives the plain method name, the
    others append "@<rule>" ("greedy-distcnt@best-feasible"); Maximal has no stopping rule and runs once.

    Parameters
    ----------
    methods : sequence of str
        Names of :data:`METHODS`; the randomized ones are left to :func:`randomized_views`.
    k_ac : sequence of int
        The anonymity levels.
    max_items : int or None
        Maximal's budget.
    c_grid : sequence of float
        The tuned SVM's values of C.
    svm_settings : sequence of str
        :data:`SVM_SETTINGS` of the full feature set.
    stop_rules : sequence of str
        :data:`privnb.learn.STOP_RULES` the greedy selectors run with, the first one named plainly.

    Returns
    -------
    list of View
    """
    views = []
    for method in methods:
        rules = stop_rules if method in GREEDY_SELECTORS else stop_rules[:1]
        if method in SELECTORS:
            views += [
                View(
                    _name(method, rule, stop_rules),
                    k,
                    SelectorSVM(method, k, max_items=max_items, stop=rule, c_grid=c_grid),
                    auc_scores,
                )
                for rule in rules
                for k in k_ac
            ]
        elif method == "full":
            views += [
                View(_name(method, "", ("",), s), None, AllFeaturesSVM(c_grid=_grid(s, c_grid)), auc_scores)
                for s in svm_settings
            ]
    if "majority" in methods:
        views.append(majority_view({"auc": auc_or_nan}))
    return views


def randomized_views(
    methods, k_ac, epsilons, *, dp_k=5, c_grid=C_GRID, readings=("train-fold",), svm_settings=("tuned",)
) -> list[View]:
    """RF at each k and the DP methods at each epsilon, per reading of a training fold, in the order they draw.

    The views of one reading share one :class:`RunStream` (made here: call once per run): in a fold, they draw
    from one generator seeded with the run's seed, RF's k in order, then each DP method's epsilons, so a
    reading's numbers do not depend on which other readings run.

    Parameters
    ----------
    methods : sequence of str
        Names of :data:`METHODS` ("rf" and :data:`DP_METHODS` are used).
    k_ac : sequence of int
        RF's k.
    epsilons : sequence of float
        The DP budgets.
    dp_k : int
        The DP methods pick as many features as Greedy-HamDist at this k.
    c_grid : sequence of float
        The tuned SVM's values of C.
    readings : sequence of str
        :data:`READINGS`; "whole" is left to :func:`whole_reading`.
    svm_settings : sequence of str
        :data:`SVM_SETTINGS` of RF in the first reading.

    Returns
    -------
    list of View
    """
    per_fold = [r for r in readings if r != "whole"]
    streams = {reading: RunStream() for reading in per_fold}
    views = []
    if "rf" in methods:
        for k, reading in ((k, r) for k in k_ac for r in per_fold):
            settings = svm_settings if reading == readings[0] else ("tuned",)
            views += [
                View(
                    _name("rf", reading, readings, s), k, _flipped(k, reading, s, c_grid, streams[reading]), auc_scores
                )
                for s in settings
            ]
    for method in (m for m in DP_METHODS if m in methods):
        for eps, reading in ((e, r) for e in epsilons for r in per_fold):
            estimator = DPReleaseSVM(
                DP_METHODS[method],
                eps,
                dp_k=dp_k,
                c_grid=c_grid,
                both_folds=reading == "both-folds",
                stream=streams[reading],
            )
            views.append(View(_name(method, reading, readings), eps, estimator, auc_scores))
    return views


def _flipped(k, reading, setting, c_grid, stream) -> FlippedSVM:
    return FlippedSVM(k, c_grid=_grid(setting, c_grid), both_folds=reading == "both-folds", stream=stream)


def whole_reading(
    data: ProtectedData,
    splits,
    seeds,
    whole_seed: int,
    *,
    methods,
    k_ac,
    epsilons,
    n_runs,
    dp_k,
    c_grid,
    readings,
    svm_settings=("tuned",),
) -> list[pd.DataFrame]:
    """The "whole" reading: each run protects the whole data set, then the runner cross-validates the release.

    RF's flipped rows keep their folds; a DP release's synthetic rows get folds of their own (stratified, or
    plain when a class has fewer rows than folds). The releases of run r draw from one generator seeded with
    ``whole_seed + 7919 (r + 1)``; the SVM of fold i draws its validation split from its run's seed.

    Parameters
    ----------
    data : ProtectedData
        The raw data set (binary CSR rows).
    splits : list of (train, test) index arrays
        The folds of the raw data set.
    seeds : sequence of int
        The folds' seeds.
    whole_seed : int
        Seeds the releases.
    methods, k_ac, epsilons, n_runs, dp_k, c_grid, readings, svm_settings
        As in :func:`evaluate_methods` (RF is scored with each SVM setting when "whole" is the first reading).

    Returns
    -------
    list of DataFrame
        Tidy rows, folds numbered ``run * n_splits + i``.
    """
    frames = []
    n_dp = max(1, greedy_hamdist(data.X, data.y, dp_k).features.size)
    for run in range(n_runs):
        rng = check_random_state(whole_seed + _RUN_STEP * (run + 1))
        fold_seeds = run_seeds(seeds, run)
        jobs = []
        if "rf" in methods:
            for k in k_ac:
                flipped = randomized_flipping(data.X, k, random_state=rng)
                facts = {"flipped_share": flipped.flipped_share}
                views = [
                    View(
                        _name("rf", "whole", readings, s),
                        k,
                        AllFeaturesSVM(c_grid=_grid(s, c_grid), facts=facts),
                        auc_scores,
                    )
                    for s in (svm_settings if readings[0] == "whole" else ("tuned",))
                ]
                jobs.append((ProtectedData(data.name, flipped.X, data.y), splits, views))
        for method, eps in ((m, e) for m in DP_METHODS if m in methods for e in epsilons):
            release = dp_select_release(data.X, data.y, n_dp, eps, mechanism=DP_METHODS[method], random_state=rng)
            folds = _release_folds(release.y, len(splits), rng)
            views = [View(_name(method, "whole", readings), eps, AllFeaturesSVM(c_grid=c_grid), auc_scores)]
            jobs.append((ProtectedData(data.name, release.X, release.y), folds, views))
        for protected, folds, views in jobs:
            rows = run_folds(protected, views, splits=(folds, fold_seeds), progress=False)
            frames.append(rows.assign(fold=rows["fold"] + run * len(splits)))
    return frames


def _release_folds(y, n_splits, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified folds over released rows (plain folds when a class has fewer rows than folds)."""
    y = np.asarray(y)
    index = np.zeros(len(y))
    if np.unique(y).size == 2 and np.bincount(y).min() >= n_splits:
        return list(StratifiedKFold(n_splits, shuffle=True, random_state=rng).split(index, y))
    return list(KFold(n_splits, shuffle=True, random_state=rng).split(index))


def _check_options(methods, readings, svm_settings, stop_rules=STOP_RULES[:1]) -> None:
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {METHODS}")
    if not stop_rules or not set(stop_rules) <= set(STOP_RULES) or len(set(stop_rules)) < len(stop_rules):
        raise ValueError(
            f"stop_rules must be distinct rules of {STOP_RULES}, the first named plainly; got {stop_rules}"
        )
    bad = sorted(set(readings) - set(READINGS)) + sorted(set(svm_settings) - set(SVM_SETTINGS))
    if bad or not readings or "tuned" not in svm_settings:
        raise ValueError(
            f"readings must be a non-empty subset of {READINGS} and svm_settings a subset of "
            f"{SVM_SETTINGS} holding 'tuned'; got {list(readings)}, {list(svm_settings)}"
        )


@shared_doc
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
    stop_rules: Sequence[str] = STOP_RULES[:1],
    random_state=None,
) -> pd.DataFrame:
    """Run the paper's protocol (Section 5.2 of FSAC) and return tidy rows (:data:`privnb.experiments.COLUMNS`).

    Metrics: "auc" and "n_features" (SFC) for every method; "ac" (AC of the projected training fold)
    for the selectors; "flipped_share" for RF; the majority-class baseline ("majority", a constant score) has
    its "auc" only. ``param`` is k, or epsilon for the DP methods, whose feature count is what Greedy-HamDist
    selects at ``k = dp_k`` on the same training fold.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array
        Labels 0/1.
    dataset_name : str
        The ``dataset`` of the rows.
    methods : sequence of str
        Names of :data:`METHODS`.
    k_ac : sequence of int
        The k-AC levels (k of the k-anonymity baselines and of RF).
    epsilons : sequence of float
        The DP budgets.
    n_splits : int
        Number of folds.
    n_runs : int
        Runs of the randomized methods on the same folds.
    dp_k : int
        As in :func:`randomized_views`.
    max_items : int or None
        Maximal's budget.
    c_grid : sequence of float
        The tuned SVM's values of C.
    readings : sequence of str
        :data:`READINGS`: how RF and the DP methods are tested; the first gives the plain method names.
    svm_settings : sequence of str
        :data:`SVM_SETTINGS`: whether the full feature set and RF are also scored with LIBLINEAR's C = 1.
    stop_rules : sequence of str
        The greedy selectors' stopping rules (:func:`fixed_views`); default the paper's "first-infeasible".
    random_state : int, RandomState or None
        Seeds the folds and every randomized method (:func:`selection_folds`).
        {random_state}

    Returns
    -------
    DataFrame
    """
    _check_options(methods, readings, svm_settings, stop_rules)
    data = ProtectedData(dataset_name, check_binary(X), np.asarray(y).astype(np.int64))
    splits, whole_seed, seeds = selection_folds(data.y, n_splits, random_state, whole="whole" in readings)
    options = dict(dp_k=dp_k, c_grid=c_grid, readings=readings, svm_settings=svm_settings)
    frames = []
    fixed = fixed_views(
        methods, k_ac, max_items=max_items, c_grid=c_grid, svm_settings=svm_settings, stop_rules=stop_rules
    )
    if fixed:
        frames.append(run_folds(data, fixed, splits=(splits, seeds), progress=False))
    for run in range(n_runs):
        views = randomized_views(methods, k_ac, epsilons, **options)
        if views:
            rows = run_folds(data, views, splits=(splits, run_seeds(seeds, run)), progress=False)
            frames.append(rows.assign(fold=rows["fold"] + run * n_splits))
    if "whole" in readings:
        whole = dict(methods=methods, k_ac=k_ac, epsilons=epsilons, n_runs=n_runs, dp_k=dp_k, c_grid=c_grid)
        frames += whole_reading(data, splits, seeds, whole_seed, readings=readings, svm_settings=svm_settings, **whole)
    return tidy_frame(pd.concat(frames, ignore_index=True) if frames else ())


@shared_doc
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
    stop_rules: Sequence[str] = STOP_RULES[:1],
    random_state=None,
) -> tuple[pd.DataFrame, dict[str, float]]:
    """:func:`evaluate_methods` on each named data set (Section 5.2 of FSAC, Tables 5-6 and Figure 1).

    Parameters
    ----------
    inputs : mapping
        Name -> ``(X, y, max_items)``, ``max_items`` going to Maximal.
    datasets : sequence of str
        The names of ``inputs`` to run, in order.
    k_ac, epsilons, n_splits, n_runs, readings, svm_settings, stop_rules
        As in :func:`evaluate_methods`.
    random_state : int, RandomState or None
        Given as is to every data set's :func:`evaluate_methods` (an int seeds each the same way).
        {random_state}

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
                stop_rules=stop_rules,
                random_state=random_state,
            )
        )
        seconds[name] = time.perf_counter() - start
    return pd.concat(frames, ignore_index=True), seconds
