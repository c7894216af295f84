"""A compiled roll-up for the full-domain lattice (numba, when it is installed): one pass that combines
each entry's part ids into its key at a node and counts the weighted groups, in a table indexed by the key
when the keys span little more than the entries, else in an open-addressing hash table. Without numba
:data:`rollup_counts` is None and :class:`~privnb.mechanisms.FullDomainLattice` counts with numpy and pandas
(the same group sizes, in another order).
"""

from __future__ import annotations

import math

import numpy as np

try:
    import numba
except ImportError:  # optional: the numpy path serves
    numba = None

__all__ = ["count_cells", "count_groups", "rollup_cells", "rollup_counts"]


def _key_table(radices, m):
    """(slot keys, slot groups (-1: empty), hash mask, direct) of a table for ``m`` keys of the radices' span:
    indexed by the key itself (``direct``) when the span is at most about 4 m, else hashed.
    """
    span = 1
    for r in radices:
        span *= r
    if span <= 4 * m + 1024:
        return np.empty(0, np.int64), np.full(span, -1, np.int64), 0, True
    capacity = 16
    while capacity < 2 * m:
        capacity *= 2
    return np.empty(capacity, np.int64), np.full(capacity, -1, np.int64), capacity - 1, False


def _slot(key, slot_key, slot_group, mask, direct):
    """The slot of ``key`` in a :func:`_key_table`: the key itself, or by open addressing (Fibonacci hashing);
    an empty slot when the key is new.
    """
    if direct:
        return key
    h = ((key * np.int64(-7046029254386353131)) >> 24) & mask
    while slot_group[h] >= 0 and slot_key[h] != key:
        h = (h + 1) & mask
    return h


if numba is not None:  # the kernels call them compiled
    _key_table = numba.njit(cache=True)(_key_table)
    _slot = numba.njit(cache=True, inline="always")(_slot)


def _rollup_counts(ids, radices, rep, weights):
    """(weighted size of each group, first position of each group) of the keys at a node.

    ``ids``: one int32 id array per part, over all entries; ``radices``: each part's number of ids; ``rep``:
    the source table's entries (empty: all entries, in order); ``weights``: the rows of each source entry.
    Keys must fit int64 (the caller checks the product of the radices).
    """
    m = len(weights)
    slot_key, slot_group, mask, direct = _key_table(radices, m)
    size = np.zeros(m, np.float64)
    first = np.empty(m, np.int32)
    n = 0
    for i in range(m):
        entry = i if len(rep) == 0 else rep[i]
        key = np.int64(0)
        for p in range(len(ids)):
            key = key * radices[p] + ids[p][entry]
        h = _slot(key, slot_key, slot_group, mask, direct)
        g = slot_group[h]
        if g < 0:
            slot_group[h], first[n] = n, i
            if not direct:
                slot_key[h] = key
            g, n = n, n + 1
        size[g] += weights[i]
    return size[:n], first[:n]


def _rollup_cells(ids, radices, rep, value, weights, n_values):
    """(each group's rows per value, each group's entry, the groups' non-zero cells, each group's first source
    class, whether it merges several) of the keys at a node, from a table of cells.

    A cell is a source entry ``rep[i]``, a value ``value[i]`` and its rows ``weights[i]`` (the non-zero cells
    of a class-by-value count table, each class's cells in one run, all with its entry): the classes are
    grouped by their entries' keys as in :func:`_rollup_counts` and their cells summed into a dense
    group-by-value table; the groups' own cells (entry of the group's first cell, value, rows) are its non-zero
    entries in row-major order, as ``np.nonzero`` lists them.
    """
    m = len(weights)
    n_runs = 0
    for i in range(m):
        n_runs += i == 0 or rep[i] != rep[i - 1]
    slot_key, slot_group, mask, direct = _key_table(radices, n_runs)
    group_of = np.empty(n_runs, np.int64)  # the group of each source class (run of cells)
    first = np.empty(n_runs, np.int32)
    source = np.empty(n_runs, np.int32)
    merged = np.zeros(n_runs, np.bool_)
    n, run = 0, -1
    for i in range(m):
        if i > 0 and rep[i] == rep[i - 1]:
            continue
        run += 1
        key = np.int64(0)
        for p in range(len(ids)):
            key = key * radices[p] + ids[p][rep[i]]
        h = _slot(key, slot_key, slot_group, mask, direct)
        g = slot_group[h]
        if g < 0:
            slot_group[h], first[n], source[n] = n, i, run
            if not direct:
                slot_key[h] = key
            g, n = n, n + 1
        else:
            merged[g] = True
        group_of[run] = g
    total = np.zeros((n, n_values), np.float64)
    run = -1
    for i in range(m):
        run += i == 0 or rep[i] != rep[i - 1]
        total[group_of[run], value[i]] += weights[i]
    entries = np.empty(n, rep.dtype)
    n_cells = 0
    for g in range(n):
        entries[g] = rep[first[g]]
        for v in range(n_values):
            n_cells += total[g, v] != 0
    cell_entry = np.empty(n_cells, rep.dtype)
    cell_value = np.empty(n_cells, value.dtype)
    cell_rows = np.empty(n_cells, np.float64)
    c = 0
    for g in range(n):
        for v in range(n_values):
            if total[g, v] != 0:
                cell_entry[c], cell_value[c], cell_rows[c] = entries[g], v, total[g, v]
                c += 1
    return total, entries, cell_entry, cell_value, cell_rows, source[:n], merged[:n]


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


def count_cells(ids, radices, rep, value, weights, n_values: int):
    """A node's class-by-value counts rolled up from a table of cells by :data:`rollup_cells`.

    Parameters
    ----------
    ids : list of int32 ndarray
        One id array per part (over all entries), parts with a single id left out.
    radices : list of int
        Each part's number of ids.
    rep : int32 ndarray
        Each cell's entry (the cells of a class in one run).
    value : ndarray of int
        Each cell's value (column).
    weights : ndarray of float
        Each cell's rows.
    n_values : int
        The number of values.

    Returns
    -------
    (counts, entries, cells, source, merged), or None when numba is missing or the keys would overflow int64
        ``counts``: ndarray of float of shape (n_groups, n_values); ``entries``: an entry of each group;
        ``cells``: the non-zero cells of ``counts`` (entry, value, rows) in row-major order; ``source``: the
        first class of the table (its run of cells) in each group; ``merged``: whether a group holds several.
    """
    if rollup_cells is None or math.prod(radices) >= 2**62:
        return None
    if not ids:  # the top node: one group
        total = np.bincount(value, weights=weights, minlength=n_values)
        present = np.flatnonzero(total)
        entries = rep[:1]
        cells = np.repeat(entries, len(present)), present, total[present]
        return total[None, :], entries, cells, np.zeros(1, np.int32), np.array([bool((rep[1:] != rep[:-1]).any())])
    total, entries, *cells, source, merged = rollup_cells(
        tuple(ids), np.array(radices, dtype=np.int64), rep, value, weights, n_values
    )
    return total, entries, tuple(cells), source, merged
