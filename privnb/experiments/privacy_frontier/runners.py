"""Privacy measured, not assumed: every release attacked on the same folds its learner is scored on.

For each fold (:func:`~privnb.experiments.run_folds`) and each (mechanism, parameter), the training view is
fitted on the training fold and scored on the raw test fold (the papers' protocol), and the very release it
learned from (its ``release_``) is handed to the attacks registered for its type
(:func:`privnb.attacks.release_attacks`): the common adversary and the de Finetti attack on anatomy (MC17,
MC16) and on every generalization, homogeneity and prosecutor re-identification on full-domain, Mondrian and
MDAV k-anonymity, linkage by two adversaries on k-anonymity by containment (FSAC), the exact audit on
SafetyTransform's and differentially private NBC views (MZ09). Every view also reports the majority-class
error of its fold (``majority_error``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.experiments.folds import evaluate_view, run_folds, stratified_holdout, tidy_frame
from privnb.learn.training import OriginalTraining
from privnb.mechanisms.containment import check_binary

from ._releases import NBCRelease, SelectedLinearSVC
from ._scoring import release_view
from .views import PEERS, VIEWS, ViewSetting

__all__ = ["anatomy_and_k_anonymity", "containment_linkage", "nbc_release_audit"]


@shared_doc
def anatomy_and_k_anonymity(
    dataset,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (2, 3, 4, 5),
    hierarchies=None,
    n_neighbors: int = 5,
    n_splits: int = 10,
    folds=None,
    n_iter: int = 2000,
    tol: float = 1e-6,
    n_jobs: int | None = None,
    random_state=None,
    peers: Sequence[str] = PEERS,
    t_closeness: float | None = None,
    population: pd.DataFrame | None = None,
    lira_views: Sequence[str] = ("original",),
    lira_shadows: int = 16,
) -> pd.DataFrame:
    """Test error of each training view and the attacks on its release, fold by fold (MC17, MC16).

    Views: the original rows, then every registered view (:data:`VIEWS`: anatomized and pruned for each l,
    full-domain (when hierarchies are given or the data set has them), Mondrian and MDAV (on the numeric
    quasi-identifiers) for each k, and anatomy's ``peers`` at each l, like for like: the same l, the same
    sensitive attribute, the same folds, the same attacks); all with Weka IBk k-NN (``n_neighbors``). Every
    release meets every attack registered for its type, the common adversary first
    (:func:`privnb.attacks.common_adversary`, its background the fold's test rows and ``population``), and
    reports its utility (``utility_*`` rows).

    Parameters
    ----------
    dataset : Dataset
        The table (a sensitive attribute, quasi-identifiers, kinds and orders).
    ls : sequence of int
        The anatomy's l.
    k_anonymity : sequence of int
        The k of full-domain, Mondrian and MDAV k-anonymity.
    hierarchies : mapping, optional
        Generalization hierarchies; default the data set's (``dataset.hierarchies``), none: no full-domain view.
    n_neighbors : int
        The k-NN's k.
    n_splits : int
        Folds of the stratified cross-validation.
    folds : sequence of int, optional
        The folds to run (default all).
    n_iter : int
        Largest number of de Finetti EM iterations.
    tol : float
        The EM's tolerance (log-likelihood gain per individual).
    n_jobs : int, optional
        Parallel (fold x view) tasks.
    random_state : int, RandomState or None
        Seeds the folds and every mechanism.
        {random_state}
    peers : sequence of str
        Which of :data:`PEERS` to run beside anatomy at each l (full-domain only with hierarchies); ``()``
        for none.
    t_closeness : float, optional
        The t of the t-close peer (the equal distance); None: :func:`matching_t` at each l.
    population : DataFrame, optional
        Rows of the population outside ``dataset`` (its columns and target), added to every fold's background
        and the rows LiRA's shadow models learn from.
    lira_views : sequence of str
        The views (methods) whose classifiers LiRA attacks beside the loss threshold (with a population).
    lira_shadows : int
        LiRA's shadow models per attacked view.

    Returns
    -------
    DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`), classifier ``"{n}-NN"``; an l beyond the sensitive
        domain gives N/A rows with the reason in ``note``.
    """
    unknown = sorted(set(peers) - set(PEERS))
    if unknown:
        raise ValueError(f"peers {unknown} are not among {PEERS}")
    hierarchies = hierarchies if hierarchies is not None else getattr(dataset, "hierarchies", None) or None
    setting = ViewSetting(dataset, hierarchies, n_neighbors, t_closeness)
    name = f"{n_neighbors}-NN"
    options = {"n_iter": n_iter, "tol": tol, "sensitive": dataset.sensitive, "population": population}
    options |= {"target": dataset.target, "lira_shadows": lira_shadows}
    params = {"l": sorted(set(ls)), "k": sorted(set(k_anonymity))}
    lira = set(lira_views)
    views = [release_view("original", None, OriginalTraining(setting.knn()), name, options, lira="original" in lira)]
    for method, view in VIEWS.items():
        if view.peer and method not in peers:
            continue
        for param in params[view.parameter]:
            estimator = view.build(setting, param)
            if estimator is not None:
                views.append(release_view(method, param, estimator, name, options, lira=method in lira))
    return run_folds(
        dataset, views, n_splits=n_splits, random_state=random_state, folds=folds, n_jobs=n_jobs, progress=False
    )


class _Items:
    """A binary item matrix as a data set for :func:`run_folds`."""

    def __init__(self, name, X, y):
        self.name, self.X, self.y = name, check_binary(X), np.asarray(y)


@shared_doc
def containment_linkage(
    X,
    y,
    *,
    dataset_name: str = "adult",
    k_ac: Sequence[int] = (5, 8, 11),
    ms: Sequence[int] = (1, 2, 3, 4, 5),
    adversaries: Sequence[str] = ("items", "values"),
    n_splits: int = 5,
    folds=None,
    random_state=None,
) -> pd.DataFrame:
    """Linkage on FSAC's releases on the same folds as their linear SVM's test error.

    In each fold, Greedy-HamDist selects features on the training fold under k-AC (``"k-ac"``) and under
    classic k-anonymity (``"k-anonymity"``) for each k, plus the full feature set (``"full"``); the released
    projection of the training fold is attacked by :func:`privnb.attacks.linkage_attack` for each adversary
    and m (metrics ``linkage_{adversary}_m{m}``), and the linear SVM trained on it is scored on the raw test
    fold (``error``).

    Parameters
    ----------
    X : binary matrix
        The users' items.
    y : array-like
        Their classes.
    dataset_name : str
        The rows' ``dataset``.
    k_ac : sequence of int
        The k of k-AC and k-anonymity.
    ms : sequence of int
        Attribute values the adversary knows.
    adversaries : sequence of {"items", "values"}
        Who knows them (:data:`privnb.attacks.ADVERSARIES`).
    n_splits : int
        Folds.
    folds : sequence of int, optional
        The folds to run (default all).
    random_state : int, RandomState or None
        Seeds the folds, the SVM and the adversaries' draws.
        {random_state}

    Returns
    -------
    DataFrame
        Tidy rows, classifier ``"LinearSVC"``.
    """
    options = {"ms": tuple(ms), "adversaries": tuple(adversaries)}
    views = [release_view("full", None, SelectedLinearSVC(), "LinearSVC", options)]
    for k in k_ac:
        views += [
            release_view("k-ac", k, SelectedLinearSVC("greedy-hamdist", k), "LinearSVC", options),
            release_view("k-anonymity", k, SelectedLinearSVC("k-anonymity-hamdist", k), "LinearSVC", options),
        ]
    return run_folds(
        _Items(dataset_name, X, y), views, n_splits=n_splits, random_state=random_state, folds=folds, progress=False
    )


@shared_doc
def nbc_release_audit(
    frame: pd.DataFrame,
    attributes: Sequence[str],
    *,
    gammas: Sequence[float] = (2, 10, 100),
    epsilons: Sequence[float] = (0.1, 0.5, 1.0),
    class_column: str = "income",
    dataset_name: str = "adult",
    test_size: float = 0.5,
    max_size: int | None = None,
    prior=None,
    random_state=None,
) -> pd.DataFrame:
    """SafetyTransform and DP Naive Bayes views, same adversary, same test rows (MZ09).

    The views of the training half are published by SafetyTransform(gamma) and by Laplace and geometric
    DP counts (:func:`privnb.nbc.dp_views`) at each epsilon; each release is audited exactly
    (:func:`privnb.attacks.nbc_audit_attack`, quasi-identifiers of up to ``max_size`` attributes) and its
    NBC scored on the test half: metrics ``r_closeness`` (with its ``_max_size``) and ``error``.

    Parameters
    ----------
    frame : DataFrame
        The rows (the attributes and the class).
    attributes : sequence of str
        The views' attributes.
    gammas : sequence of float
        SafetyTransform's amplifications.
    epsilons : sequence of float
        The DP budgets.
    class_column : str
        The class column of ``frame``.
    dataset_name : str
        The rows' ``dataset``.
    test_size : float
        The test share of the one stratified split.
    max_size : int, optional
        The audit size (default all attributes).
    prior : array-like, optional
        The adversary's class prior.
    random_state : int, RandomState or None
        Seeds the split and every release.
        {random_state}

    Returns
    -------
    DataFrame
        Tidy rows, classifier ``"NBC"``, fold 0.
    """
    data = stratified_holdout(frame, class_column, test_size, random_state)
    options = {"prior": prior, "max_size": max_size}
    releases = [("original", None)] + [("safety_transform", g) for g in gammas]
    releases += [(f"dp_{mech}", eps) for mech in ("laplace", "geometric") for eps in epsilons]
    views = [
        release_view(kind, param, NBCRelease(kind, param, list(attributes), class_column), "NBC", options)
        for kind, param in releases
    ]
    return tidy_frame([row for view in views for row in evaluate_view(dataset_name, view, data, ())])
