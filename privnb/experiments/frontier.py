"""Privacy measured, not assumed: every mechanism attacked on the same folds its learner is scored on.

For each fold (:func:`privnb.experiments.folds_and_seeds`) and each (mechanism, parameter), the training view
is fitted on the training fold and scored on the raw test fold (the papers' protocol), and the very release
it learned from is handed to the attack that fits it (:mod:`privnb.attacks`): the de Finetti attack and the
random-worlds guess on anatomy (seeds 002/003), prosecutor risk, homogeneity and distinct l-diversity on
full-domain and Mondrian k-anonymity, linkage on k-anonymity by containment (seed 001), the exact audit on
SafetyTransform's and differentially private NBC views (seed 004). :func:`frontier_points` turns the tidy
rows into one point per (mechanism, parameter): attack success above its baseline against test error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from privnb.attacks import (
    definetti_attack,
    dp_views,
    kanonymity_risk,
    linkage_attack,
    pruning_disclosure,
    random_worlds_rate,
)
from privnb.experiments.folds import chosen_folds, error_rate, folds_and_seeds, tidy_frame
from privnb.experiments.selection import SELECTORS, fit_svm
from privnb.learn.encoding import generalized_kinds
from privnb.learn.knn import IBkClassifier
from privnb.learn.training import AnatomizedTraining, GeneralizedTraining, OriginalTraining, PrunedTraining
from privnb.mechanisms.anatomy import NotLDiverseError
from privnb.mechanisms.containment import check_binary
from privnb.nbc import NBCViews, SafetyTransform, achieved_r

__all__ = ["anatomy_and_k_anonymity", "containment_linkage", "nbc_release_audit", "frontier_points", "AXES"]

AXES = {
    "anatomized": "correct guesses (de Finetti) - 1/l",
    "pruned": "kept row holds the true value - 1/l",
    "generalized": "homogeneity share",
    "mondrian": "homogeneity share",
    "k-ac": "users singled out (m known items)",
    "k-anonymity": "users singled out (m known items)",
    "full": "users singled out (m known items)",
    "safety_transform": "r - 1 (exact audit)",
    "dp_laplace": "r - 1 (exact audit)",
    "dp_geometric": "r - 1 (exact audit)",
}
"""What the x axis measures for each mechanism."""


def _views(dataset, ls, ks, hierarchies, n_neighbors):
    knn = IBkClassifier(n_neighbors, kinds=dataset.kinds, orders=dataset.orders)
    qi = list(dataset.quasi_identifiers)
    hq = [q for q in qi if q in (hierarchies or {})]
    # a generalized ordinal quasi-identifier holds labels of ranges of its order (Mondrian cuts every one)
    full_domain_knn = clone(knn).set_params(kinds=generalized_kinds(dataset.kinds, dict.fromkeys(hq)))
    mondrian_knn = clone(knn).set_params(kinds=generalized_kinds(dataset.kinds, dict.fromkeys(qi)))
    out = [("original", math.nan, OriginalTraining(knn))]
    out += [
        (
            "anatomized",
            float(l),
            AnatomizedTraining(
                clone(knn).set_params(factor_column=dataset.sensitive), sensitive=dataset.sensitive, l=l
            ),
        )
        for l in ls
    ]
    out += [
        (
            "pruned",
            float(l),
            PrunedTraining(knn, sensitive=dataset.sensitive, l=l, kinds=dataset.kinds, orders=dataset.orders),
        )
        for l in ls
    ]
    if hierarchies is not None:
        out += [
            (
                "generalized",
                float(k),
                GeneralizedTraining(full_domain_knn, quasi_identifiers=hq, k=k, hierarchies=hierarchies),
            )
            for k in ks
        ]
    out += [
        ("mondrian", float(k), GeneralizedTraining(mondrian_knn, quasi_identifiers=qi, k=k, method="mondrian"))
        for k in ks
    ]
    return out


def _attack_rows(method, param, fitted, train_frame, dataset, n_iter):
    """(metric, value) pairs of the attack that fits the release ``fitted`` learned from."""
    truth = train_frame[dataset.sensitive].reset_index(drop=True)
    if method in ("anatomized", "pruned"):
        anatomy = fitted.anatomy_
        qi = [c for c in anatomy.it.columns if c != "gid"]
        rows = [("random_worlds", random_worlds_rate(anatomy, truth))]
        if method == "pruned":
            return rows + [("pruning_disclosure", pruning_disclosure(fitted.pruning_.pruned, anatomy.sensitive, truth))]
        attack = definetti_attack(anatomy, quasi_identifiers=qi, l=int(param), n_iter=n_iter)
        reference = definetti_attack(anatomy, quasi_identifiers=qi, model_from=truth)
        return rows + [
            ("definetti", attack.success(truth)),
            ("definetti_iterations", attack.n_iter),
            ("original_model", reference.success(truth)),
        ]
    if method in ("generalized", "mondrian"):
        gen = fitted.generalizer_
        release = gen.generalized_
        risk = kanonymity_risk(release, gen.quasi_identifiers_, dataset.sensitive, k=int(param))
        return [
            (name, float(risk[name]))
            for name in ("prosecutor_highest", "prosecutor_mean", "homogeneity", "l_diversity")
        ]
    return []


def anatomy_and_k_anonymity(
    dataset,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (2, 3, 4, 5),
    hierarchies=None,
    n_neighbors: int = 5,
    n_splits: int = 10,
    folds=None,
    n_iter: int = 20,
    random_state=None,
) -> pd.DataFrame:
    """Test error of each training view and the attack on its release, fold by fold (seeds 002/003).

    Views: original, anatomized (k-NN on D_A, Definition 14 of seed 002) and pruned (D_P, seed 003) for each
    l, full-domain (when ``hierarchies``) and Mondrian k-anonymity for each k; all with Weka IBk k-NN
    (``n_neighbors``). Attack metrics: ``random_worlds``, ``definetti``, ``original_model`` (anatomized),
    ``pruning_disclosure`` (pruned), prosecutor risk, ``homogeneity`` and ``l_diversity`` (k-anonymity).

    Returns
    -------
    DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`), classifier ``"{n}-NN"``; an l beyond the
        sensitive domain gives N/A rows with the reason in ``note``.
    """
    X, y = dataset.X, np.asarray(dataset.y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state)
    views = _views(dataset, sorted(set(ls)), sorted(set(k_anonymity)), hierarchies, n_neighbors)
    rows, name = [], f"{n_neighbors}-NN"
    for fold in chosen_folds(folds, n_splits):
        train, test = splits[fold]
        for method, param, template in views:
            estimator = clone(template)
            estimator.set_params(
                **({"random_state": int(seeds[fold])} if "random_state" in estimator.get_params() else {})
            )
            base = (dataset.name, name, method, param, fold)
            try:
                estimator.fit(X.iloc[train], y[train])
            except NotLDiverseError as error:
                rows.append((*base, "error", np.nan, np.nan, np.nan, f"N/A: {error}"))
                continue
            n = (estimator.n_train_, estimator.n_suppressed_)
            rows.append((*base, "error", error_rate(y[test], estimator.predict(X.iloc[test])), *n, ""))
            rows += [
                (*base, metric, value, *n, "")
                for metric, value in _attack_rows(method, param, estimator, X.iloc[train], dataset, n_iter)
            ]
    return tidy_frame(rows)


def containment_linkage(
    X,
    y,
    *,
    dataset_name: str = "adult",
    k_ac: Sequence[int] = (5, 8, 11),
    ms: Sequence[int] = (1, 2, 3, 4, 5),
    n_splits: int = 5,
    folds=None,
    random_state=None,
) -> pd.DataFrame:
    """Linkage attack on seed 001's releases on the same folds as their linear SVM's test error.

    In each fold, Greedy-HamDist selects features on the training fold under k-AC (``"k-ac"``) and under
    classic k-anonymity (``"k-anonymity"``) for each k, plus the full feature set (``"full"``); the released
    projection of the training fold is attacked by :func:`privnb.attacks.linkage_attack` for each m
    (metric ``singled_out_m{m}``), and the linear SVM trained on it is scored on the raw test fold
    (``error``).
    """
    X, y = check_binary(X), np.asarray(y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state)
    rows = []
    for fold in chosen_folds(folds, n_splits):
        train, test = splits[fold]
        releases = [("full", math.nan, np.arange(X.shape[1]))]
        for k in k_ac:
            releases += [
                ("k-ac", float(k), SELECTORS["greedy-hamdist"](X[train], y[train], k, {}).features),
                ("k-anonymity", float(k), SELECTORS["k-anonymity-hamdist"](X[train], y[train], k, {}).features),
            ]
        for method, param, features in releases:
            features = np.asarray(features, dtype=np.intp)
            base = (dataset_name, "LinearSVC", method, param, fold)
            model = fit_svm(X[train][:, features], y[train], random_state=int(seeds[fold]))
            rows.append(
                (
                    *base,
                    "error",
                    error_rate(y[test], model.predict(X[test][:, features])),
                    len(train),
                    0,
                    f"{len(features)} features",
                )
            )
            for m in ms:
                out = linkage_attack(X[train], m, features, on_short="skip", random_state=int(seeds[fold]) + m)
                rows.append(
                    (
                        *base,
                        f"singled_out_m{m}",
                        out["singled_out"],
                        len(train),
                        0,
                        f"{out['n_skipped']} users with fewer than {m} items",
                    )
                )
    return tidy_frame(rows)


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
    """SafetyTransform and DP Naive Bayes views, same adversary, same test rows (seed 004).

    The views of the training half are published by SafetyTransform(gamma) and by Laplace and geometric
    DP counts (:func:`privnb.attacks.dp_views`) at each epsilon; each release is audited exactly
    (:func:`privnb.nbc.achieved_r`, quasi-identifiers of up to ``max_size`` attributes) and its NBC scored
    on the test half: metrics ``r_closeness`` and ``error`` (rows named ``dataset_name``).
    """
    seed = (
        int(np.random.RandomState(random_state).randint(2**31 - 1))
        if not isinstance(random_state, int)
        else random_state
    )
    train, test = train_test_split(frame, test_size=test_size, stratify=frame[class_column], random_state=seed)
    y_test = test[class_column].to_numpy()
    original = NBCViews.from_frame(train, list(attributes), class_column)
    releases = [("original", math.nan, original)]
    releases += [
        ("safety_transform", float(g), SafetyTransform(g, random_state=seed).fit(original).views_) for g in gammas
    ]
    releases += [
        (f"dp_{mech}", float(eps), dp_views(original, eps, mechanism=mech, random_state=seed))
        for mech in ("laplace", "geometric")
        for eps in epsilons
    ]
    rows = []
    for method, param, views in releases:
        base = (dataset_name, "NBC", method, param, 0)
        r = achieved_r(views, prior, max_size=max_size)
        rows.append((*base, "error", error_rate(y_test, views.predict(test)), len(train), 0, ""))
        rows.append((*base, "r_closeness", r, len(train), 0, f"max_size={max_size}"))
    return tidy_frame(rows)


_X_METRIC = {
    "anatomized": "definetti",
    "pruned": "pruning_disclosure",
    "generalized": "homogeneity",
    "mondrian": "homogeneity",
    "safety_transform": "r_closeness",
    "dp_laplace": "r_closeness",
    "dp_geometric": "r_closeness",
}


def frontier_points(results: pd.DataFrame, *, m: int = 5) -> pd.DataFrame:
    """One point per (mechanism, parameter): ``attack`` above its baseline against mean test ``error``.

    Anatomy: correct guesses minus 1/l (``definetti`` for the anatomized view, ``pruning_disclosure`` for
    the pruned one); k-anonymity: the homogeneity share; containment: users singled out with ``m`` known
    items; NBC releases: r - 1. Also ``axis`` (what x measures) and ``n_folds``.
    """
    means = results.groupby(["dataset", "method", "param", "metric"], dropna=False)["value"].mean().unstack()
    folds = results[results["metric"] == "error"].groupby(["dataset", "method", "param"], dropna=False)["fold"]
    out = []
    for (ds, method, param), row in means.iterrows():
        metric = _X_METRIC.get(method, f"singled_out_m{m}" if method in ("k-ac", "k-anonymity", "full") else None)
        if metric is None or metric not in row or pd.isna(row[metric]) or pd.isna(row.get("error")):
            continue
        x = row[metric] - (
            1.0 / param if method in ("anatomized", "pruned") else 1.0 if metric == "r_closeness" else 0.0
        )
        out.append(
            {
                "dataset": ds,
                "method": method,
                "param": param,
                "attack": x,
                "error": row["error"],
                "axis": AXES[method],
                "n_folds": int(folds.nunique().get((ds, method, param), 1)),
            }
        )
    return pd.DataFrame(out, columns=["dataset", "method", "param", "attack", "error", "axis", "n_folds"])
