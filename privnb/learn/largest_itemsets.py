"""The largest maximal frequent itemsets, found exactly without mining every maximal itemset.

Maximal (Algorithm 1 of FSAC) scores only the ``n`` largest maximal itemsets with support ``>= k``
(Lemma 3: every such itemset is a k-AC feature set). On text with near-duplicate messages the number of
maximal itemsets explodes (PU1: no miner finishes over all tokens), but the largest ones are easy to reach:

1. **Row pruning.** An itemset of ``L`` or more items held by ``k`` rows needs ``k`` rows that pairwise share
   at least ``L`` items, each with ``k - 1`` such partners. Rows without them, and then items held by fewer
   than ``k`` of the remaining rows, are dropped until nothing changes (one sparse ``X X^T`` per round).
   Every row that holds an itemset of size ``>= L`` and support ``>= k`` survives, so supports (and
   maximality) of such itemsets are the same in the reduced data. Its rows lie in one connected component of
   the graph "share at least ``L`` items".
2. **Row enumeration.** In each component, closed itemsets are the intersections of row sets; they are
   enumerated once each by prefix-preserving closure extension over rows (LCM's rule on the transposed
   data), with items as Python integer bit sets. A branch stops when the intersection has fewer than ``L``
   items, or when fewer than ``k`` rows could still hold it (the rows in it plus the later rows sharing
   ``L`` of its items).
3. **Branch and bound over the size.** ``L`` starts at an upper bound (the largest over rows of the k-th
   largest overlap with a row, itself included) and shrinks until at least ``n`` maximal itemsets of size
   ``>= L`` are found (or ``L = 1``). All maximal itemsets of size ``>= L`` are then known, every other is
   smaller, so the ``n`` largest (ties in lexicographic order) are exact.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from privnb.mechanisms.containment import check_binary
from privnb.validation import check_int

_SHRINK = 0.7  # next size bound as a share of the last one


class SearchBudgetExceeded(RuntimeError):
    """The row enumeration visited more than ``max_nodes`` closed itemsets; raise ``max_nodes`` or ``n``."""


def largest_itemsets(X, k: int, n: int, *, max_nodes: int = 5_000_000) -> list[tuple[int, ...]]:
    """The ``n`` largest maximal itemsets with support ``>= k`` (Lemma 3 of FSAC), exactly.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        Rows are transactions, columns items.
    k : int
        Minimum support, 1 <= k <= n_rows.
    n : int
        How many itemsets (fewer when fewer maximal itemsets exist).
    max_nodes : int
        Bound on the closed itemsets the enumeration may visit, summed over the rounds; beyond it
        :class:`SearchBudgetExceeded` is raised (never an inexact answer).

    Returns
    -------
    list of tuples of column indices, sorted by decreasing size, then lexicographically: the same as the
    first ``n`` of :func:`privnb.learn.maximal_itemsets` sorted that way.
    """
    X = check_binary(X)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    n = check_int(n, "n")
    if X.nnz == 0:
        return []
    size = _size_upper_bound(X, k)
    visited = 0
    while True:
        found, nodes = _maximal_at_least(X, k, size, max_nodes - visited)
        visited += nodes
        if len(found) >= n or size <= 1:
            return found[:n]
        size = max(1, min(size - 1, int(size * _SHRINK)))


def largest_itemsets_stats(X, k: int, n: int) -> dict:
    """The size bound the search stopped at and the rows and items left after pruning (for notebooks).

    Parameters
    ----------
    X, k, n
        As in :func:`largest_itemsets`.

    Returns
    -------
    dict
        ``itemsets`` (how many were found), ``sizes`` (theirs), ``size_bound`` (the smallest size, 0 when
        none), ``rows_left`` and ``items_left`` (after row pruning at that size, at least 1).
    """
    X = check_binary(X)
    found = largest_itemsets(X, k, n)
    bound = min((len(s) for s in found), default=0)
    rows, cols = _prune(X, k, max(bound, 1))
    return {
        "itemsets": len(found),
        "sizes": [len(s) for s in found],
        "size_bound": bound,
        "rows_left": int(rows.size),
        "items_left": int(cols.size),
    }


def _size_upper_bound(X: sp.csr_array, k: int) -> int:
    """Largest over rows of the k-th largest overlap with a row (itself included): no itemset of support k
    is larger.
    """
    overlap = (X @ X.T).toarray()
    return int(np.partition(overlap, -k, axis=1)[:, -k].max())


def _prune(X: sp.csr_array, k: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows with ``k`` rows (itself included) sharing ``>= size`` items, items held by ``k`` such rows."""
    rows, cols = np.arange(X.shape[0]), np.arange(X.shape[1])
    while rows.size:
        sub = X[rows][:, cols]
        keep_cols = np.asarray(sub.sum(axis=0)).ravel() >= k
        sub, cols = sub[:, keep_cols], cols[keep_cols]
        keep_rows = ((sub @ sub.T).toarray() >= size).sum(axis=1) >= k
        if keep_rows.all() and keep_cols.all():
            break
        rows = rows[keep_rows]
    return rows, cols


def _maximal_at_least(X: sp.csr_array, k: int, size: int, budget: int) -> tuple[list[tuple[int, ...]], int]:
    """Every maximal itemset of support ``>= k`` with ``>= size`` items, sorted; and the nodes visited."""
    rows, cols = _prune(X, k, size)
    if rows.size < k or cols.size == 0:
        return [], 0
    sub = X[rows][:, cols]
    bits = [_bits(sub.indices[sub.indptr[i] : sub.indptr[i + 1]]) for i in range(rows.size)]
    graph = sp.csr_array((sub @ sub.T).toarray() >= size)
    _, label = connected_components(graph, directed=False)
    closed, visited = [], 0
    for component in np.unique(label):
        members = np.flatnonzero(label == component)
        if members.size >= k:
            more, nodes = _enumerate([bits[i] for i in members], k, size, budget - visited)
            closed.extend(more)
            visited += nodes
    closed.sort(key=lambda b: -b.bit_count())
    maximal = []
    for b in closed:  # a frequent superset is at least as large and comes first
        if not any(b & m == b for m in maximal):
            maximal.append(b)
    out = [tuple(int(c) for c in cols[_indices(b)]) for b in maximal]
    return sorted(out, key=lambda s: (-len(s), s)), visited


def _enumerate(rows: list[int], k: int, size: int, budget: int) -> tuple[list[int], int]:
    """Closed itemsets (as bit sets) of ``>= size`` items and support ``>= k`` among ``rows``, each once.

    Prefix-preserving closure extension over rows: from a closed row set ``R`` (its itemset ``I``, last
    row added ``e``) the child for a row ``j > e`` outside ``R`` is the set ``Q`` of all rows holding
    ``I & rows[j]``; it is kept when ``Q`` adds no row before ``j`` to ``R``.
    """
    m = len(rows)
    full = 0
    for r in rows:
        full |= r
    found, visited = [], 0
    stack = [(0, full, -1)]  # (row set as bit set over rows, itemset, last row added)
    while stack:
        rset, items, last = stack.pop()
        for j in range(last + 1, m):
            if rset >> j & 1:
                continue
            child = items & rows[j]
            if child.bit_count() < size:
                continue
            holders = [i for i in range(m) if rows[i] & child == child]
            closure = 0
            for i in holders:
                closure |= 1 << i
            if (closure ^ rset) & ((1 << j) - 1):
                continue  # the closure adds a row before j: reached from another prefix
            reachable = len(holders) + sum(
                1 for i in range(j + 1, m) if not closure >> i & 1 and (rows[i] & child).bit_count() >= size
            )
            if reachable < k:
                continue
            visited += 1
            if visited > budget:
                raise SearchBudgetExceeded(
                    f"the largest-itemset search visited more than its budget of closed "
                    f"itemsets at size >= {size}; raise max_nodes or lower n"
                )
            if len(holders) >= k:
                found.append(child)
            stack.append((closure, child, j))
    return found, visited


def _bits(indices: np.ndarray) -> int:
    out = 0
    for i in indices.tolist():
        out |= 1 << i
    return out


def _indices(b: int) -> np.ndarray:
    out = []
    while b:
        low = b & -b
        out.append(low.bit_length() - 1)
        b ^= low
    return np.array(out, dtype=np.int64)
