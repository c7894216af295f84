"""Section 5.2 of FSAC, the selected feature counts: each greedy selector under each stopping rule, on the whole
data and on the training folds, beside Tables 5-6; and the sizes of maximal feasible sets by feature order.

The paper's greedies stop at the first best feature that breaks the constraint (Algorithm 2's ``break``;
Algorithm 3 "identical"): on PU1's bare bodies, all 1,099 messages, selected on the whole data, that rule gives
every greedy and baseline count of Table 6 (tests/learn/test_feature_selection_pu1.py). Two readings of where
selection runs are named here: "whole data" (every row of the experiment, the reading that reproduces the
counts) and "training folds" (the mean over the cross-validation's training folds, what the AUC rows use).

Maximal's sizes (Table 6: 121 / 66 / 58) are not reachable from Algorithm 1's text: the largest itemsets of
support k are far larger. Maximal feasible sets under Definition 6 (no feature can be added) range widely by the
order features are tried: :func:`maximal_order_sizes` computes that range.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.experiments.feature_selection._views import GREEDY_SELECTORS, LABELS, SELECTORS
from privnb.experiments.feature_selection.tables import PAPER_TABLES
from privnb.learn.feature_selection import STOP_RULES, maximal_feasible
from privnb.mechanisms.containment import check_binary, feature_hamdist

#: The two readings of where a selection runs: on every row of the experiment, or per training fold (mean).
COUNT_READINGS = ("whole data", "training folds")


def _paper_count(dataset: str, method: str, k: int) -> float:
    part = PAPER_TABLES[
        (PAPER_TABLES["dataset"] == dataset) & (PAPER_TABLES["method"] == method) & (PAPER_TABLES["k"] == k)
    ]
    return float(part["size"].iloc[0]) if len(part) else np.nan


def _fold_count(summary: pd.DataFrame | None, dataset: str, name: str, k: int) -> float:
    if summary is None:
        return np.nan
    part = summary[(summary["dataset"] == dataset) & (summary["method"] == name) & np.isclose(summary["param"], k)]
    return float(part["n_features"].iloc[0]) if len(part) else np.nan


def selection_counts(
    inputs: Mapping[str, tuple],
    ks: Sequence[int],
    *,
    stop_rules: Sequence[str] = STOP_RULES,
    summary: pd.DataFrame | None = None,
    methods: Sequence[str] = tuple(SELECTORS),
) -> pd.DataFrame:
    """Selected feature counts of each selector, k and stopping rule, whole data and training folds.

    "whole data": the selector run on every row of ``inputs``; "training folds": the mean count over the
    training folds in ``summary`` (a :func:`summary_table`; its rows of the first stopping rule carry the plain
    method name, the others "@<rule>"), NaN for a rule that did not run there. ``paper``: the count of the
    paper's Tables 5-6 (Adult, PU1), NaN elsewhere. Maximal has no stopping rule: one row, rule "".

    Parameters
    ----------
    inputs : mapping
        Data set name -> ``(X, y, max_items)``, ``max_items`` going to Maximal.
    ks : sequence of int
        The anonymity levels.
    stop_rules : sequence of str
        :data:`privnb.learn.STOP_RULES` to run, the first being the one ``summary`` names plainly.
    summary : DataFrame, optional
        A :func:`summary_table` of the cross-validation (no "training folds" values without it).
    methods : sequence of str
        Names of :data:`SELECTORS`.

    Returns
    -------
    DataFrame
        Columns dataset, method (the paper's label), stop rule, k, paper, "whole data", "training folds".
    """
    rows = []
    for dataset, (X, y, max_items) in inputs.items():
        for method in methods:
            rules = stop_rules if method in GREEDY_SELECTORS else ("",)
            for position, rule in enumerate(rules):
                name = method if position == 0 else f"{method}@{rule}"
                for k in ks:
                    options = {"max_items": max_items, "stop": rule or STOP_RULES[0]}
                    whole = SELECTORS[method](X, y, int(k), options).features.size
                    rows.append(
                        (
                            dataset,
                            LABELS[method],
                            rule,
                            int(k),
                            _paper_count(dataset, method, int(k)),
                            whole,
                            _fold_count(summary, dataset, name, int(k)),
                        )
                    )
    return pd.DataFrame(rows, columns=["dataset", "method", "stop rule", "k", "paper", *COUNT_READINGS])


@shared_doc
def maximal_order_sizes(X, y, k: int, *, n_orders: int = 10, random_state=None) -> pd.DataFrame:
    """Sizes of maximal feasible feature sets (Definition 6 of FSAC: k-AC, and no feature can be added), one per
    order in which the features are tried (:func:`privnb.learn.maximal_feasible`).

    The named orders: by decreasing and by increasing HamDist (Definition 8), by decreasing and by increasing
    support (ties: lowest index); then ``n_orders`` uniformly random orders. Only features held by at least k
    rows are tried: a feature held by fewer is never feasible.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array
        Two-class labels (for HamDist).
    k : int
        The anonymity level.
    n_orders : int
        Random orders besides the four named ones.
    random_state : int, RandomState or None
        Draws the random orders.
        {random_state}

    Returns
    -------
    DataFrame
        Columns order, k, size.
    """
    X = check_binary(X)
    rng = check_random_state(random_state)
    support = np.asarray(X.sum(axis=0)).ravel()
    frequent = np.flatnonzero(support >= k)
    h = feature_hamdist(X, y)[frequent]
    named = {
        "HamDist, largest first": frequent[np.lexsort((frequent, -h))],
        "HamDist, smallest first": frequent[np.lexsort((frequent, h))],
        "support, largest first": frequent[np.lexsort((frequent, -support[frequent]))],
        "support, smallest first": frequent[np.lexsort((frequent, support[frequent]))],
    }
    orders = list(named.items()) + [(f"random {i + 1}", rng.permutation(frequent)) for i in range(int(n_orders))]
    return pd.DataFrame(
        [(name, int(k), maximal_feasible(X, k, order).features.size) for name, order in orders],
        columns=["order", "k", "size"],
    )


@shared_doc
def maximal_order_range(X, y, ks: Sequence[int], *, n_orders: int = 10, random_state=None) -> pd.DataFrame:
    """Per k: the smallest and largest maximal feasible set over the orders of :func:`maximal_order_sizes`.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array
        Two-class labels.
    ks : sequence of int
        The anonymity levels.
    n_orders : int
        Random orders per k.
    random_state : int, RandomState or None
        Draws the random orders (one generator for every k).
        {random_state}

    Returns
    -------
    DataFrame
        Indexed by k: "smallest", "largest", "orders" (how many were tried), "smallest by" and "largest by"
        (the order that gave each).
    """
    rng = check_random_state(random_state)
    sizes = pd.concat([maximal_order_sizes(X, y, k, n_orders=n_orders, random_state=rng) for k in ks])
    rows = {}
    for k, part in sizes.groupby("k"):
        low, high = part.loc[part["size"].idxmin()], part.loc[part["size"].idxmax()]
        rows[int(k)] = {
            "smallest": int(low["size"]),
            "largest": int(high["size"]),
            "orders": len(part),
            "smallest by": low["order"],
            "largest by": high["order"],
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("k")
