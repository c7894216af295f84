"""A compiled roll-up for the full-domain lattice (numba, when it is installed): one pass that combines
each entry's part ids into its key at a node and counts the weighted groups in an open-addressing hash
table. Without numba :data:`rollup_counts` is None and :class:`~privnb.mechanisms.FullDomainLattice`
counts with numpy and pandas (the same group sizes, in another order).
"""

from __future__ import annotations

import math

import numpy as np

try:
    import numba
except ImportError:  # optional: the numpy path serves
    numba = None

__all__ = ["count_cells", "count_groups", "rollup_cells", "rollup_counts"]


def _rollup_counts(ids, radices, rep, weights):
    """(weighted size of each group, first position of each group) of the keys at a node.

    ``ids``: one int32 id array per part, over all entries; ``radices``: each part's number of ids; ``rep``:
    the source table's entries (empty: all entries, in order); ``weights``: the rows of each source entry.
    Keys must fit int64 (the caller checks the product of the radices).
    """
    m = len(weights)
    capacity = 16
    while capacity < 2 * m:
        capacity *= 2
    mask = capacity - 1
    slot_key = np.empty(capacity, np.int64)
    slot_group = np.full(capacity, -1, np.int64)
    size = np.zeros(m, np.float64)
    first = np.empty(m, np.int32)
    n = 0
    for i in range(m):
        entry = i if len(rep) == 0 else rep[i]
        key = np.int64(0)
        for p in range(len(ids)):
            key = key * radices[p] + ids[p][entry]
        h = ((key * np.int64(-7046029254386353131)) >> 24) & mask  # Fibonacci hashing
        while True:
            g = slot_group[h]
            if g < 0:
                slot_group[h], slot_key[h], first[n] = n, key, i
                g, n = n, n + 1
                break
            if slot_key[h] == key:
                break
            h = (h + 1) & mask
        size[g] += weights[i]
    return size[:n], first[:n]


def _rollup_cells(ids, radices, rep, value, weights, n_values):
    """(each group's rows per value, first position of each group) of the keys at a node, from a table of cells.

    A cell is a source entry ``rep[i]``, a value ``value[i]`` and its rows ``weights[i]`` (the non-zero cells
    of a class-by-value count table): the cells are grouped by their entries' keys as in
    :func:`_rollup_counts`, then summed into a dense group-by-value table.
    """
    m = len(weights)
    capacity = 16
    while capacity < 2 * m:
        capacity *= 2
    mask = capacity - 1
    slot_key = np.empty(capacity, np.int64)
    slot_group = np.full(capacity, -1, np.int64)
    group_of = np.empty(m, np.int64)
    first = np.empty(m, np.int32)
    n = 0
    for i in range(m):
        key = np.int64(0)
        for p in range(len(ids)):
            key = key * radices[p] + ids[p][rep[i]]
        h = ((key * np.int64(-7046029254386353131)) >> 24) & mask
        while True:
            g = slot_group[h]
            if g < 0:
                slot_group[h], slot_key[h], first[n] = n, key, i
                g, n = n, n + 1
                break
            if slot_key[h] == key:
                break
            h = (h + 1) & mask
        group_of[i] = g
    total = np.zeros((n, n_values), np.float64)
    for i in range(m):
        total[group_of[i], value[i]] += weights[i]
    return total, first[:n]


#: The compiled :func:`_rollup_counts`, or None without numba.
rollup_counts = None if numba is None else numba.njit(cache=True, nogil=True)(_rollup_counts)
#: The compiled :func:`_rollup_cells`, or None without numba.
rollup_cells = None if numba is None else numba.njit(cache=True, nogil=True)(_rollup_cells)

_ALL = np.empty(0, dtype=np.int32)  # rollup_counts' "every entry, in order"


def count_groups(ids, radices, rep, weights) -> tuple[np.ndarray, np.ndarray] | None:
    """(weighted size of each group, first position of each group) by :data:`rollup_counts`.

    Parameters
    ----------
    ids : list of int32 ndarray
        One id array per part (over all entries), parts with a single id left out.
    radices : list of int
        Each part's number of ids.
    rep : int32 ndarray or None
        The source table's entries (None: every entry, in order).
    weights : ndarray of float
        The rows of each source entry.

    Returns
    -------
    (ndarray of float, ndarray of int32), or None when numba is missing or the keys would overflow int64
    """
    if rollup_counts is None or math.prod(radices) >= 2**62:
        return None
    if not ids:  # the top node: one group
        return np.array([float(weights.sum())]), np.zeros(1, dtype=np.int32)
    return rollup_counts(tuple(ids), np.array(radices, dtype=np.int64), _ALL if rep is None else rep, weights)


def count_cells(ids, radices, rep, value, weights, n_values: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(each group's rows per value, first cell of each group) by :data:`rollup_cells`.

    Parameters
    ----------
    ids : list of int32 ndarray
        One id array per part (over all entries), parts with a single id left out.
    radices : list of int
        Each part's number of ids.
    rep : int32 ndarray
        Each cell's entry.
    value : ndarray of int
        Each cell's value (column).
    weights : ndarray of float
        Each cell's rows.
    n_values : int
        The number of values.

    Returns
    -------
    (ndarray of float of shape (n_groups, n_values), ndarray of int32), or None when numba is missing or the
    keys would overflow int64
    """
    if rollup_cells is None or math.prod(radices) >= 2**62:
        return None
    if not ids:  # the top node: one group
        return np.bincount(value, weights=weights, minlength=n_values)[None, :], np.zeros(1, dtype=np.int32)
    return rollup_cells(tuple(ids), np.array(radices, dtype=np.int64), rep, value, weights, n_values)
