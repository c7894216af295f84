"""Maximal (Algorithm 1 of FSAC): the best of the largest maximal frequent itemsets, and the miners it uses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privnb._docstrings import shared_doc
from privnb.learn.largest_itemsets import largest_itemsets
from privnb.mechanisms.containment import Selection, check_binary, dataset_ac, distcnt, feature_hamdist
from privnb.validation import check_int


def selection_of(X: sp.csr_array, selected) -> Selection:
    """The :class:`~privnb.mechanisms.containment.Selection` of ``selected`` (in the order added) on ``X``.

    Parameters
    ----------
    X : scipy.sparse.csr_array
        The binary matrix.
    selected : sequence of int
        The selected columns, in the order they were added.

    Returns
    -------
    Selection
        The features sorted, ``AC`` of the projection (Definition 6 of FSAC) and the order.
    """
    order = np.asarray(selected, dtype=np.int64)
    return Selection(np.sort(order), dataset_ac(X, order), order)


def transactions(X) -> list[np.ndarray]:
    """Containment sets of the rows as item lists: the transaction view of Lemma 3 of FSAC."""
    X = check_binary(X)
    return np.split(X.indices, X.indptr[1:-1])


@shared_doc
def maximal_itemsets(X, k: int, *, miner: str = "pyfim") -> list[tuple[int, ...]]:
    """Maximal frequent itemsets of the transaction view with minimum support ``k`` (Lemma 3).

    ``miner="pyfim"`` runs Borgelt's FP-growth (``fim.fpgrowth(target="m")``, C code);
    ``miner="mlxtend"`` runs mlxtend's ``fpmax`` (pure Python, for comparison). Both give the same sets.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    k : int
        The minimum support, 1 <= k <= n_rows.
    miner : {"pyfim", "mlxtend"}
        The miner, as above.

    Returns
    -------
    list of tuple of int
        Each maximal itemset's column indices (sorted), the list in lexicographic order.
    """
    X = check_binary(X)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    if miner == "pyfim":
        import fim

        found = fim.fpgrowth([t.tolist() for t in transactions(X)], target="m", supp=-k, report="")
        return sorted(tuple(sorted(int(i) for i in items)) for items, *_ in found)
    if miner == "mlxtend":
        from mlxtend.frequent_patterns import fpmax

        keep = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() >= k)
        if keep.size == 0:
            return []
        frame = pd.DataFrame(X[:, keep].toarray().astype(bool), columns=keep)
        found = fpmax(frame, min_support=(k - 0.5) / X.shape[0], use_colnames=True)
        return sorted(tuple(sorted(int(i) for i in items)) for items in found["itemsets"])
    raise ValueError(f"miner must be 'pyfim' or 'mlxtend'; got {miner!r}")


MAXIMAL_SEARCHES = ("auto", "largest", "mine-all")
"""How :func:`maximal` finds its candidates: by the data's shape, the exact largest-itemsets search, or mining
every maximal itemset."""


@shared_doc
def maximal(
    X,
    y,
    k: int,
    *,
    score: str = "hamdist",
    n_candidates: int = 50,
    miner: str = "pyfim",
    max_items: int | None = None,
    search: str = "auto",
) -> Selection:
    """Maximal (Algorithm 1 of FSAC): the best of the largest maximal frequent itemsets.

    Scores the ``n_candidates`` largest maximal itemsets with support ``>= k`` (feasible by Lemma 3;
    ties: lexicographic order) and returns the one of highest ``score`` ("hamdist" or "distcnt"). The
    paper mines every token and limits only the candidates it scores; its value of that budget was lost
    in the text we have, 50 is our default. No feature with support ``k`` gives the empty set with
    ``ac = N``.

    Both searches below are exact; they differ in what they enumerate. ``search="auto"`` (default) takes
    the one suited to the data's shape: "largest" when the searched features outnumber the rows (PU1's
    tokens), "mine-all" otherwise (Adult's 19 features, where enumerating rows would be slow).
    ``search="largest"`` finds those candidates exactly with
    :func:`privnb.learn.largest_itemsets.largest_itemsets` (row pruning, then branch and bound over the
    itemset size), without enumerating every maximal itemset: on all of PU1's tokens it takes seconds.
    ``search="mine-all"`` mines every maximal itemset with ``miner`` (pyfim or mlxtend) and sorts them:
    the same candidates where it finishes, but on PU1 it does not finish within minutes over all tokens.

    ``max_items`` (default None: all features) restricts the search to that many features of highest
    HamDist (ties: lowest index), the earlier reading that capped PU1 at 20 tokens; its itemsets are
    frequent, hence feasible, and maximal within that universe only.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    score : {"hamdist", "distcnt"}
        How a candidate itemset is scored.
    n_candidates : int, default 50
        How many of the largest maximal itemsets are scored.
    miner : {"pyfim", "mlxtend"}
        The miner of ``search="mine-all"`` (:func:`maximal_itemsets`).
    max_items : int or None
        Restrict the search to this many features of highest HamDist, as above.
    search : {"auto", "largest", "mine-all"}
        How the candidates are found, as above.

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """
    if score not in ("hamdist", "distcnt"):
        raise ValueError(f"score must be 'hamdist' or 'distcnt'; got {score!r}")
    if search not in MAXIMAL_SEARCHES:
        raise ValueError(f"search must be one of {MAXIMAL_SEARCHES}; got {search!r}")
    if int(n_candidates) < 1:
        raise ValueError(f"n_candidates must be a positive integer; got {n_candidates!r}")
    X = check_binary(X)
    h = feature_hamdist(X, y)
    items = np.arange(X.shape[1])
    if max_items is not None:
        if int(max_items) < 1:
            raise ValueError(f"max_items must be a positive integer or None; got {max_items!r}")
        items = np.sort(np.lexsort((items, -h))[: int(max_items)])
    if search == "auto":
        search = "largest" if len(items) > X.shape[0] else "mine-all"
    if search == "largest":
        found = largest_itemsets(X[:, items], k, int(n_candidates))
    else:
        found = sorted(maximal_itemsets(X[:, items], k, miner=miner), key=lambda s: (-len(s), s))
    candidates = [tuple(items[list(s)]) for s in found][: int(n_candidates)]
    if not candidates:
        return selection_of(X, [])
    if score == "hamdist":
        values = [h[list(c)].sum() for c in candidates]
    else:
        values = [distcnt(X, y, list(c)) for c in candidates]
    return selection_of(X, list(candidates[int(np.argmax(values))]))
