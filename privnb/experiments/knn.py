"""Seed 002's experiments: the k-NN error grid over training views, l and k (one neighbour search per view
for the largest k), and the convergence experiment (error against training size, Figure 9).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from privnb.experiments.folds import chosen_folds, error_rate, folds_and_seeds, tidy_frame
from privnb.learn.encoding import generalized_kinds
from privnb.learn.knn import IBkClassifier
from privnb.learn.training import (
    AnatomizedTraining,
    GeneralizedTraining,
    IdentifyingTraining,
    OriginalTraining,
)
from privnb.mechanisms.anatomy import NotLDiverseError
from privnb.validation import check_int

#: Data sets whose sensitive attribute Weka reads as nominal in the k-NN paper's setting: Adult's
#: education (nominal in the UCI/Weka header), Marketing's discretized age (Weka's Discretize filter
#: outputs a nominal attribute) and Fatality's alcohol involvement. IPUMS' educrec is an integer code in
#: the raw file, which Weka's CSV loader reads as numeric: it keeps the data set's (ordinal) kind.
WEKA_NOMINAL_SENSITIVE = ("adult", "bank", "fars")

#: Readings of the sensitive attribute's kind for the k-NN (``sensitive_kind``).
SENSITIVE_KINDS = ("weka", "nominal", "as-dataset")


def ibk_kinds(dataset, sensitive_kind: str = "weka") -> dict:
    """The column kinds IBk's distance uses for ``dataset`` (Section 5.1.3 of seed 002).

    ``"weka"`` (default): the sensitive attribute is nominal (a mismatch adds 1 to the squared distance)
    for the data sets of :data:`WEKA_NOMINAL_SENSITIVE`, as Weka reads the paper's data, and keeps its
    kind otherwise; ``"nominal"``: nominal for every data set; ``"as-dataset"``: ``dataset.kinds`` as they
    are (an ordinal sensitive attribute is then a rank scaled to [0, 1], privnb's earlier reading).
    """
    if sensitive_kind not in SENSITIVE_KINDS:
        raise ValueError(f"sensitive_kind must be one of {SENSITIVE_KINDS}, got {sensitive_kind!r}")
    kinds = dict(dataset.kinds)
    if sensitive_kind == "nominal" or (sensitive_kind == "weka" and dataset.name in WEKA_NOMINAL_SENSITIVE):
        kinds[dataset.sensitive] = "nominal"
    return kinds


def weka_class_order(dataset) -> tuple:
    """The class values in the order Weka declares them: first appearance in the data file, as Weka's
    CSV loader builds a nominal attribute's header. IBk gives an even vote split to the first: Adult
    ``0`` ("<=50K", the label of adult.data's first row), Marketing ``1`` ("yes": housing of
    bank-full.csv's first kept row), Fatality ``1`` ("Injured").
    """
    return tuple(pd.unique(np.asarray(dataset.y)).tolist())


def _view_estimators(dataset, k_max, ls, hierarchies, k_anonymity, ibk_options):
    """(method, param, estimator, ks_or_None) for the four views of Section 5 of seed 002."""
    base = IBkClassifier(k_max, orders=dataset.orders, **ibk_options)
    views = [
        ("original", np.nan, OriginalTraining(base), None),
        ("identifying", np.nan, IdentifyingTraining(base, sensitive=dataset.sensitive), None),
    ]
    factored = clone(base).set_params(factor_column=dataset.sensitive)
    views += [
        ("anatomized", float(l), AnatomizedTraining(factored, sensitive=dataset.sensitive, l=l), None) for l in ls
    ]
    if hierarchies is not None:
        qis = [q for q in dataset.quasi_identifiers if q in hierarchies]
        # a generalized ordinal quasi-identifier holds range labels ("low-medium", "*"): nominal for the distance
        options = {**ibk_options, "kinds": generalized_kinds(ibk_options["kinds"], qis)}
        one = IBkClassifier(1, orders=dataset.orders, **options)
        views += [
            (
                "generalized",
                float(l),
                GeneralizedTraining(one, quasi_identifiers=qis, k=l, hierarchies=hierarchies),
                (1,),
            )
            for l in k_anonymity
        ]
    return views


def _check_neighbors_ls(n_neighbors, ls):
    n_neighbors = sorted({check_int(k, "k") for k in n_neighbors})
    ls = sorted({check_int(l, "l") for l in ls})
    if not n_neighbors or not ls or ls[0] < 2:
        raise ValueError(
            f"n_neighbors must be non-empty and ls must be integers >= 2, got n_neighbors={n_neighbors}, ls={ls}"
        )
    return n_neighbors, ls


def cross_validate_knn(
    dataset,
    *,
    n_neighbors=(1, 3, 5, 7, 9),
    ls=(2, 3, 4, 5),
    n_splits=10,
    random_state=None,
    hierarchies=None,
    k_anonymity=None,
    views=("original", "identifying", "anatomized", "generalized"),
    folds=None,
    n_jobs=None,
    progress=True,
    ties="weka",
    ranges="weka",
    sensitive_kind="weka",
) -> pd.DataFrame:
    """The k-NN experiment of Section 5 of seed 002: every view, every k in ``n_neighbors``, every l.

    Views: original (Definition 8), identifying (Definition 15), anatomized for each l (Definition 14)
    and, when ``hierarchies`` are given, the anonymized 1-NN (Definition 7: full-domain k-anonymity
    with k = l, Section 5.1.2; ``k_anonymity`` picks other levels, default ``ls``). One neighbour search per
    (fold, view, l) for max(n_neighbors) serves every k, and one lattice search per fold serves every k of the
    anonymized views (:class:`privnb.mechanisms.FullDomainLattice`). An l beyond the sensitive domain
    gives N/A rows with the reason in ``note``. Folds are stratified and shuffled with
    ``random_state``; the anatomization of fold f is seeded from it too, so a seed reproduces the
    whole table. ``folds`` (indices, default all) runs part of the folds, e.g. to time one; ``n_jobs``
    runs folds in parallel processes (joblib), with the same result; ``progress`` shows a progress bar
    over the folds. ``n_neighbors`` are the k of k-NN, ``k_anonymity`` the k of k-anonymity.

    The k-NN is Weka IBk's (:class:`privnb.learn.IBkClassifier`): ``ties="weka"`` (every row tied with
    the k-th distance votes, an even split to the class Weka declares first, :func:`weka_class_order`),
    ``ranges="weka"`` (min-max ranges updated with each test row, in fold order) and
    ``sensitive_kind="weka"`` (:func:`ibk_kinds`); ``ties="exact-k"``, ``ranges="train"`` and
    ``sensitive_kind="as-dataset"`` give privnb's earlier readings.

    Returns
    -------
    DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`): classifier ``"{k}-NN"``, metric ``"error"``.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Instance-Based Learning with l-diversity", Transactions on
       Data Privacy 10, 2017 (seed 002).
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    n_neighbors, ls = _check_neighbors_ls(n_neighbors, ls)
    unknown = set(views) - {"original", "identifying", "anatomized", "generalized"}
    if unknown:
        raise ValueError(
            f"unknown views {sorted(unknown)}; choose among original, identifying, anatomized, generalized"
        )
    y = np.asarray(dataset.y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state)
    folds = chosen_folds(folds, n_splits)
    k_anonymity = ls if k_anonymity is None else sorted({check_int(k, "k") for k in k_anonymity})
    ibk_options = {
        "kinds": ibk_kinds(dataset, sensitive_kind),
        "ties": ties,
        "ranges": ranges,
        "class_order": weka_class_order(dataset),
    }
    chosen = [
        v
        for v in _view_estimators(dataset, max(n_neighbors), ls, hierarchies, k_anonymity, ibk_options)
        if v[0] in views
    ]
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_knn_fold)(dataset, chosen, n_neighbors, fold, *splits[fold], int(seeds[fold])) for fold in folds
    )
    return tidy_frame(
        [
            row
            for rows in tqdm(outcomes, total=len(folds), disable=not progress, desc=f"k-NN {dataset.name}")
            for row in rows
        ]
    )


def _knn_fold(dataset, views, n_neighbors, fold, train, test, seed):
    """Result rows of every view of one fold (:func:`cross_validate_knn`)."""
    X, y = dataset.X, np.asarray(dataset.y)
    rows = []
    for method, param, template, view_ks in views:
        view_ks = n_neighbors if view_ks is None else view_ks
        estimator = clone(template)
        if "random_state" in estimator.get_params():
            estimator.set_params(random_state=seed)
        try:
            estimator.fit(X.iloc[train], y[train])
        except NotLDiverseError as error:
            rows += [
                (dataset.name, f"{k}-NN", method, param, fold, "error", np.nan, np.nan, np.nan, f"N/A: {error}")
                for k in view_ks
            ]
            continue
        predictions = estimator.estimator_.predict_many(estimator.test_view(X.iloc[test]), view_ks)
        rows += [
            (
                dataset.name,
                f"{k}-NN",
                method,
                param,
                fold,
                "error",
                error_rate(y[test], pred),
                estimator.n_train_,
                estimator.n_suppressed_,
                "",
            )
            for k, pred in zip(view_ks, predictions)
        ]
    return rows
