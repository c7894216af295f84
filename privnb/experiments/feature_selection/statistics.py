"""Notebook 03's data-set statistics and maximal-itemset miners (FSAC): Table 3 of every data set, the miners
timed, and how the number of maximal itemsets grows with the items mined.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.data.binarize import density
from privnb.learn.maximal_selection import maximal_itemsets
from privnb.mechanisms.containment import dataset_ac, feature_hamdist

PAPER_DATA = {"adult": ("Adult", 27.9, 19), "pu1": ("Email (PU1)", 0.9, 24604)}
"""The paper's data sets by privnb name: its label, density in percent and feature count (Table 3 of FSAC)."""


def dataset_statistics(inputs: Mapping) -> tuple[pd.DataFrame, dict]:
    """Table 3 of FSAC for every data set (all its rows), beside the paper's density and size for its own.

    Parameters
    ----------
    inputs : mapping
        Name -> an object with ``X_all`` (binary features, every row), ``y_all`` (labels 0/1), ``how`` (how the
        features were made) and ``support.paper`` (the papers' name or None), e.g.
        :class:`privnb.experiments.feature_selection.inputs.SelectionInput`.

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


@shared_doc
def time_miners(X, k: int, miners: Sequence[str] = ("pyfim", "mlxtend")) -> dict[str, tuple[int, float]]:
    """Run each maximal-itemset miner at support ``k`` (Lemma 3, Algorithm 1's first line, FSAC).

    The paper mines with LCM; we compare pyfim and mlxtend. Returns miner -> (number of maximal
    itemsets found, wall seconds), in the order of ``miners``.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    k : int
        The support.
    miners : sequence of str
        "pyfim", "mlxtend".

    Returns
    -------
    dict
    """
    out = {}
    for miner in miners:
        start = time.perf_counter()
        found = maximal_itemsets(X, k, miner=miner)
        out[miner] = (len(found), time.perf_counter() - start)
    return out


@shared_doc
def itemset_growth(X, y, n_items: Sequence[int] = (10, 15, 20), k: int = 5) -> dict[int, int]:
    """Number of maximal itemsets at support ``k`` over the ``n`` features of highest HamDist, per ``n``.

    Shows how Maximal's search space (Section 3 of FSAC) grows with the number of PU1 tokens mined;
    ties in HamDist keep the lower column index.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array
        Labels 0/1 (for HamDist).
    n_items : sequence of int
        Numbers of top-HamDist features mined.
    k : int
        The support.

    Returns
    -------
    dict of int to int
    """
    h = feature_hamdist(X, y)
    counts = {}
    for n in n_items:
        top = np.sort(np.argsort(-h, kind="stable")[:n])
        counts[n] = len(maximal_itemsets(X[:, top], k))
    return counts


def frequent_columns(X, min_df: int):
    """The columns of ``X`` (PU1's token presence) set in at least ``min_df`` rows, in their order.

    Parameters
    ----------
    X : sparse matrix
        Token presence.
    min_df : int
        Fewest rows a kept column is set in.

    Returns
    -------
    sparse matrix
    """
    keep = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() >= min_df)
    return X[:, keep]
