"""Anatomy against its peers at the same l, and the utility of every release: tables of the frontier's rows.

:func:`like_for_like_table` sets anatomy beside l-diverse full-domain and Mondrian generalization and t-close
Mondrian at the same l (:data:`LIKE_FOR_LIKE`): the classifier's error beside the majority-class error, the common
adversary on each release (the same background, the same rows, the same baseline) with its 95% interval, the de
Finetti attack (on anatomy's groups, on the generalizations' equivalence classes), homogeneity, the membership
advantage of the model trained on it and the release's utility. :func:`utility_tables` gives one utility table per
mechanism; :func:`peer_releases` sets anatomy beside its l-diverse peers on one table (the tour's explorer).
"""

from __future__ import annotations

import pandas as pd

from privnb.attacks import class_release, definetti_attack
from privnb.attacks.anatomy_disclosure import group_prior
from privnb.mechanisms import (
    DistinctLDiversity,
    FullDomainGeneralizer,
    MondrianGeneralizer,
    anatomize,
    release_utility,
)

from ._scoring import UTILITY_METRICS
from .points import pooled_interval
from .views import PEERS

LIKE_FOR_LIKE = ("anatomized", *PEERS)
"""Anatomy and its peers at the same l: the views the like-for-like comparison sets side by side."""

__all__ = [
    "COMPARISON_COLUMNS",
    "LIKE_FOR_LIKE",
    "PEER_COLUMNS",
    "like_for_like_table",
    "peer_releases",
    "utility_tables",
]

COMPARISON_COLUMNS = (
    "error",
    "majority_error",
    "common",
    "common_baseline",
    "common_advantage",
    "common_advantage_low",
    "common_advantage_high",
    "common_low",
    "common_high",
    "definetti",
    "definetti_baseline",
    "definetti_advantage",
    "definetti_success_all_rows",
    "original_model",
    "homogeneity",
    "membership_advantage",
    *(f"utility_{name}" for name in UTILITY_METRICS),
)
"""The metrics of :func:`like_for_like_table`, in its column order."""


def _means(results: pd.DataFrame, methods) -> pd.DataFrame:
    rows = results[results["method"].isin(list(methods))]
    return rows.groupby(["method", "param", "metric"], sort=False)["value"].mean().unstack()


def like_for_like_table(results: pd.DataFrame, methods=LIKE_FOR_LIKE) -> pd.DataFrame:
    """Mean over folds of each view of ``methods`` at each l: error, disclosure, membership, utility.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.anatomy_and_k_anonymity` (with its peers).
    methods : sequence of str
        The views to compare (default anatomy and its three peers).

    Returns
    -------
    DataFrame
        Indexed by (method, l), in ``methods``' order and by l; the columns of :data:`COMPARISON_COLUMNS`
        that the rows hold (``homogeneity`` is not measured on anatomy, whose groups hold l distinct values
        by construction), and ``n_folds``.
    """
    means = _means(results, methods)
    if means.empty:
        return pd.DataFrame(columns=[*COMPARISON_COLUMNS, "n_folds"])
    table = means[[c for c in COMPARISON_COLUMNS if c in means.columns]].copy()
    rows = results[results["method"].isin(list(methods))]
    per_fold = rows.groupby(["method", "param", "fold", "metric"], sort=False)["value"].mean().unstack()
    for (method, param), folds in per_fold.groupby(level=[0, 1], sort=False):
        if "common_advantage_low" in folds:
            pooled = pooled_interval(folds, "common")
            table.loc[(method, param), ["common_advantage_low", "common_advantage_high"]] = pooled
    errors = results[(results["metric"] == "error") & results["method"].isin(list(methods))]
    table["n_folds"] = errors.groupby(["method", "param"])["fold"].nunique()
    table.index = table.index.set_names(["method", "l"])
    order = {method: i for i, method in enumerate(methods)}
    return table.sort_index(key=lambda level: level.map(order) if level.name == "method" else level)


def utility_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One table per mechanism: the mean over folds of each ``utility_*`` metric at each parameter.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runners.

    Returns
    -------
    dict of str -> DataFrame
        Method -> table indexed by its parameter, columns :data:`UTILITY_METRICS` (those measured), in the
        order the methods first appear in ``results``; mechanisms without a release (the original rows) are
        left out.
    """
    names = [f"utility_{name}" for name in UTILITY_METRICS]
    rows = results[results["metric"].isin(names)]
    out = {}
    for method in dict.fromkeys(rows["method"]):
        table = _means(rows, [method]).droplevel("method")
        table = table[[c for c in names if c in table.columns]]
        table.columns = [c.removeprefix("utility_") for c in table.columns]
        out[method] = table.sort_index()
    return out


PEER_COLUMNS = (
    "classes",
    "median class",
    "rows suppressed",
    "fewest distinct values",
    "de Finetti (join model)",
    "prior",
    "gcp",
    "discernibility",
)
"""The columns of :func:`peer_releases`."""


def _peer_row(release, original, qi, sensitive, k, classes, hierarchies, anatomy) -> dict:
    sizes = release.groupby(classes, observed=True).size()
    distinct = release.assign(_s=original.loc[release.index, sensitive]).groupby(classes, observed=True)["_s"].nunique()
    guess = definetti_attack(anatomy, quasi_identifiers=qi, n_iter=0, large_groups="sinkhorn")
    utility = release_utility(release, original, qi, k=k, hierarchies=hierarchies, classes=classes).iloc[0]
    return {
        "classes": len(sizes),
        "median class": float(sizes.median()),
        "rows suppressed": len(original) - len(release),
        "fewest distinct values": int(distinct.min()),
        "de Finetti (join model)": guess.success(original[sensitive]),
        "prior": float(group_prior(anatomy).mean()),
        "gcp": float(utility["gcp"]),
        "discernibility": float(utility["discernibility"]),
    }


def peer_releases(data, quasi_identifiers, l: int, *, hierarchies=None, random_state=0) -> pd.DataFrame:
    """Anatomy of ``data`` at ``l`` beside its l-diverse full-domain and Mondrian generalizations (k = l).

    What the tour's explorer shows at its slider's l, on the whole table: the classes (anatomy's groups), the
    fewest distinct sensitive values in one, the de Finetti attack's join-model guess (one E-step, fast
    enough to follow a slider; the adversary models ``quasi_identifiers`` on every release) beside each
    release's prior, and two utility metrics (:func:`privnb.mechanisms.release_utility`).

    Parameters
    ----------
    data : Dataset
        The table (its ``frame``, ``sensitive``, ``kinds`` and ``orders``).
    quasi_identifiers : sequence of str
        The quasi-identifiers generalized and modelled.
    l : int
        The diversity (and k of the generalizations).
    hierarchies : mapping attribute -> Hierarchy, optional
        One per quasi-identifier; None leaves full-domain generalization out.
    random_state : int
        Anatomy's random choices.

    Returns
    -------
    DataFrame
        One row per release ("anatomy", "l-diverse full-domain", "l-diverse Mondrian"), columns
        :data:`PEER_COLUMNS`; raises :class:`~privnb.mechanisms.NotLDiverseError` when l exceeds the sensitive
        attribute's values.
    """
    qi, sensitive = list(quasi_identifiers), data.sensitive
    frame = data.frame.reset_index(drop=True)
    anatomy = anatomize(frame[[*qi, sensitive]], sensitive, l, random_state=random_state)
    rows = {"anatomy": _peer_row(anatomy.it, frame, qi, sensitive, l, "gid", None, anatomy)}
    models = {"sensitive": sensitive, "privacy_models": [DistinctLDiversity(l)]}
    releases = {"l-diverse Mondrian": MondrianGeneralizer(qi, l, kinds=data.kinds, orders=data.orders, **models)}
    if hierarchies is not None:
        releases = {"l-diverse full-domain": FullDomainGeneralizer(qi, l, hierarchies, **models), **releases}
    for name, generalizer in releases.items():
        release = generalizer.fit(frame).generalized_
        classes = class_release(release, frame, qi, sensitive, classes=qi, l=l)
        hier = getattr(generalizer, "hierarchies_", None)
        rows[name] = _peer_row(release, frame, qi, sensitive, l, qi, hier, classes)
    return pd.DataFrame.from_dict(rows, orient="index")[list(PEER_COLUMNS)]
