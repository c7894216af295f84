"""Privacy measured, not assumed: every release attacked on the same folds its learner is scored on.

For each fold (:func:`~privnb.experiments.run_folds`) and each (mechanism, parameter), the training view is
fitted on the training fold and scored on the raw test fold (the papers' protocol), and the very release it
learned from is handed to the attacks its release kind registers (:data:`RELEASES`): the de Finetti attack
on anatomy (MC17, MC16), prosecutor re-identification and homogeneity on full-domain and Mondrian
k-anonymity, linkage by two adversaries on k-anonymity by containment (FSAC), the exact audit on
SafetyTransform's and differentially private NBC views (MZ09). Every view also reports the majority-class
error of its fold (``majority_error``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from privnb.attacks.registry import nbc_attacks
from privnb.experiments.folds import FoldData, evaluate_view, run_folds, tidy_frame
from privnb.learn.encoding import generalized_kinds
from privnb.learn.knn import IBkClassifier
from privnb.learn.training import AnatomizedTraining, GeneralizedTraining, OriginalTraining, PrunedTraining
from privnb.mechanisms import DistinctLDiversity, TCloseness, check_binary

from .releases import NBCRelease, SelectedLinearSVC
from .scoring import release_view

__all__ = ["PEERS", "anatomy_and_k_anonymity", "containment_linkage", "nbc_release_audit"]

PEERS = ("l-diverse full-domain", "l-diverse Mondrian", "t-close Mondrian")
"""Anatomy's peers at the same l: full-domain and Mondrian generalization with k = l and distinct l-diversity of
anatomy's sensitive attribute, and Mondrian with k = l and t-closeness (the equal distance) at a fixed t."""


def _knns(dataset, hierarchies, n_neighbors):
    """(k-NN, quasi-identifiers, those with a hierarchy, full-domain k-NN, Mondrian k-NN)."""
    knn = IBkClassifier(n_neighbors, kinds=dataset.kinds, orders=dataset.orders)
    qi = list(dataset.quasi_identifiers)
    hq = [q for q in qi if q in (hierarchies or {})]
    # a generalized ordinal quasi-identifier holds labels of ranges of its order (Mondrian cuts every one)
    full_domain_knn = clone(knn).set_params(kinds=generalized_kinds(dataset.kinds, dict.fromkeys(hq)))
    mondrian_knn = clone(knn).set_params(kinds=generalized_kinds(dataset.kinds, dict.fromkeys(qi)))
    return knn, qi, hq, full_domain_knn, mondrian_knn


def _knn_estimators(dataset, ls, ks, hierarchies, n_neighbors):
    knn, qi, hq, full_domain_knn, mondrian_knn = _knns(dataset, hierarchies, n_neighbors)
    anatomized_knn = clone(knn).set_params(factor_column=dataset.sensitive)
    out = [("original", None, OriginalTraining(knn))]
    out += [("anatomized", l, AnatomizedTraining(anatomized_knn, sensitive=dataset.sensitive, l=l)) for l in ls]
    out += [
        ("pruned", l, PrunedTraining(knn, sensitive=dataset.sensitive, l=l, kinds=dataset.kinds, orders=dataset.orders))
        for l in ls
    ]
    if hierarchies is not None:
        out += [
            ("generalized", k, GeneralizedTraining(full_domain_knn, quasi_identifiers=hq, k=k, hierarchies=hierarchies))
            for k in ks
        ]
    out += [
        ("mondrian", k, GeneralizedTraining(mondrian_knn, quasi_identifiers=qi, k=k, method="mondrian")) for k in ks
    ]
    return out


def _peer_estimators(dataset, ls, hierarchies, n_neighbors, peers, t_closeness):
    """Anatomy's peers (:data:`PEERS`) at each l: k = l plus distinct l-diversity, or plus t-closeness."""
    unknown = sorted(set(peers) - set(PEERS))
    if unknown:
        raise ValueError(f"peers {unknown} are not among {PEERS}")
    _, qi, hq, full_domain_knn, mondrian_knn = _knns(dataset, hierarchies, n_neighbors)
    specs = [  # (peer, its k-NN, quasi-identifiers, method, privacy model at l)
        ("l-diverse full-domain", full_domain_knn, hq, "full-domain", DistinctLDiversity),
        ("l-diverse Mondrian", mondrian_knn, qi, "mondrian", DistinctLDiversity),
        ("t-close Mondrian", mondrian_knn, qi, "mondrian", lambda l: TCloseness(t_closeness, "equal")),
    ]
    specs = [spec for spec in specs if spec[0] in peers and (spec[3] == "mondrian" or hierarchies is not None)]
    return [
        (
            peer,
            l,
            GeneralizedTraining(
                estimator,
                quasi_identifiers=columns,
                k=l,
                method=method,
                hierarchies=hierarchies if method == "full-domain" else None,  # Mondrian as the k-anonymity view
                sensitive=dataset.sensitive,
                privacy_models=[model(l)],
            ),
        )
        for l in ls
        for peer, estimator, columns, method, model in specs
    ]


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
    t_closeness: float = 0.3,
) -> pd.DataFrame:
    """Test error of each training view and the attacks on its release, fold by fold (MC17, MC16).

    Views: original, anatomized (k-NN on D_A, Definition 14 of MC17) and pruned (D_P, MC16) for each l,
    full-domain (when hierarchies are given or the data set has them) and Mondrian k-anonymity for each k;
    and anatomy's ``peers`` at each l (:data:`PEERS`, made like for like: the same l, the same sensitive
    attribute, the same folds, the same de Finetti attack); all with Weka IBk k-NN (``n_neighbors``). Every
    view with a release also reports its utility (``utility_*`` rows).

    Parameters
    ----------
    dataset : Dataset
        The table (a sensitive attribute, quasi-identifiers, kinds and orders).
    ls : sequence of int
        The anatomy's l.
    k_anonymity : sequence of int
        The k of full-domain and Mondrian k-anonymity.
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
    peers : sequence of str
        Which of :data:`PEERS` to run beside anatomy at each l (full-domain only with hierarchies); ``()``
        for none.
    t_closeness : float
        The t of the t-close peer (the equal distance: the total variation between a class's sensitive
        distribution and the training fold's).

    Returns
    -------
    DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`), classifier ``"{n}-NN"``; an l beyond the sensitive
        domain gives N/A rows with the reason in ``note``.
    """
    hierarchies = hierarchies if hierarchies is not None else getattr(dataset, "hierarchies", None) or None
    name = f"{n_neighbors}-NN"
    options = {"n_iter": n_iter, "tol": tol, "sensitive": dataset.sensitive}
    estimators = _knn_estimators(dataset, sorted(set(ls)), sorted(set(k_anonymity)), hierarchies, n_neighbors)
    estimators += _peer_estimators(dataset, sorted(set(ls)), hierarchies, n_neighbors, tuple(peers), t_closeness)
    views = [release_view(method, param, est, name, options) for method, param, est in estimators]
    return run_folds(
        dataset, views, n_splits=n_splits, random_state=random_state, folds=folds, n_jobs=n_jobs, progress=False
    )


class _Items:
    """A binary item matrix as a data set for :func:`run_folds`."""

    def __init__(self, name, X, y):
        self.name, self.X, self.y = name, check_binary(X), np.asarray(y)


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

    Returns
    -------
    DataFrame
        Tidy rows, classifier ``"NBC"``, fold 0.
    """
    seed = (
        int(np.random.RandomState(random_state).randint(2**31 - 1))
        if not isinstance(random_state, int)
        else random_state
    )
    train, test = train_test_split(frame, test_size=test_size, stratify=frame[class_column], random_state=seed)
    data = FoldData(0, seed, train, train[class_column].to_numpy(), test, test[class_column].to_numpy())
    options = {"prior": prior, "max_size": max_size}
    releases = [("original", None)] + [("safety_transform", g) for g in gammas]
    releases += [(f"dp_{mech}", eps) for mech in ("laplace", "geometric") for eps in epsilons]
    views = [
        release_view(
            kind, param, NBCRelease(kind, param, list(attributes), class_column), "NBC", options, attack=nbc_attacks
        )
        for kind, param in releases
    ]
    return tidy_frame([row for view in views for row in evaluate_view(dataset_name, view, data, ())])
