"""Compiled loops of the attacks' inference (numba, when it is installed; otherwise the same loops run in Python).

- :func:`counting_weights`: the common adversary's counting programme over one cell
  (:func:`privnb.attacks.adversary.cell_posteriors`). A state is the multiset of values assigned so far, in
  mixed radix (value v's count is digit v, of stride ``strides[v]``). Forward, F_{j+1}(u + e_v) gains
  F_j(u) P[j, v]; backward, B_j(u) gains P[j, v] B_{j+1}(u + e_v); each step is divided by its largest entry
  (the posteriors are ratios); member j holds v with weight P[j, v] sum_u F_j(u) B_{j+1}(u + e_v).
- :func:`sinkhorn_sweep`: the row pass of a Sinkhorn sweep over the de Finetti attack's large groups
  (:func:`privnb.attacks.definetti.sinkhorn_marginals`): scale, sum, normalize and sum by group in one pass
  over the rows, where numpy made four.

Every loop adds in the order of the numpy formulation it replaces (value by value and states in increasing
order; a row of a C-ordered array summed as numpy's pairwise summation adds it, of a column-major one entry by
entry; group sums row by row, as a CSR product adds), so every number is the same to the last bit.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # optional: the same loops run in Python
    numba = None

__all__ = ["counting_weights", "sinkhorn_sweep"]


def _counting_passes(prior, counts, strides, n_states):
    m, d = prior.shape
    can = np.empty((d, n_states), np.bool_)  # state s can take one more of value v
    for v in range(d):
        for s in range(n_states):
            can[v, s] = (s // strides[v]) % (counts[v] + 1) < counts[v]
    forward = np.zeros((m + 1, n_states))
    backward = np.zeros((m + 1, n_states))
    forward[0, 0] = 1.0
    backward[m, n_states - 1] = 1.0  # every count used: the last state
    for j in range(m):
        for v in range(d):
            stride, weight = strides[v], prior[j, v]
            for s in range(n_states):
                if can[v, s]:
                    forward[j + 1, s + stride] += forward[j, s] * weight
        forward[j + 1] /= forward[j + 1].max()
    for j in range(m - 1, -1, -1):
        for v in range(d):
            stride, weight = strides[v], prior[j, v]
            for s in range(n_states):
                if can[v, s]:
                    backward[j, s] += weight * backward[j + 1, s + stride]
        backward[j] /= backward[j].max()
    return forward, backward, can


def _block_sum(a, start, n):
    """numpy's sum of at most 128 entries a[start:start + n]: in order below 8, else eight running sums."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += a[start + i]
        return total
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = start + 8
    while i < start + n - n % 8:
        r0, r1, r2, r3 = r0 + a[i], r1 + a[i + 1], r2 + a[i + 2], r3 + a[i + 3]
        r4, r5, r6, r7 = r4 + a[i + 4], r5 + a[i + 5], r6 + a[i + 6], r7 + a[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += a[i]
        i += 1
    return total


def _pairwise_sum(a, n):
    """numpy's ``pairwise_sum`` of a[:n]: blocks of at most 128 entries, and above that the sum of two halves
    (the first a multiple of 8), evaluated with a stack rather than by recursion (which numba's cache refuses).
    """
    if n <= 128:
        return _block_sum(a, 0, n)
    starts, sizes, lefts = np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64)
    done = np.zeros(64, np.bool_)  # frame's left half summed, its right half under way
    top, start, size = -1, 0, n
    while True:
        while size > 128:  # descend to the leftmost block, one frame per split
            top += 1
            starts[top], sizes[top], done[top] = start, size, False
            size = size // 2 - (size // 2) % 8
        value = _block_sum(a, start, size)
        while top >= 0 and done[top]:  # a right half finished: its frame's sum is complete
            value = lefts[top] + value
            top -= 1
        if top < 0:
            return value
        half = sizes[top] // 2 - (sizes[top] // 2) % 8
        lefts[top], done[top] = value, True
        start, size = starts[top] + half, sizes[top] - half


def _sinkhorn_sweep(base, scaling, group, scale, columns):
    columns[:] = 0.0
    row = np.empty(base.shape[1])
    for i in range(base.shape[0]):
        g = group[i]
        for v in range(base.shape[1]):
            row[v] = base[i, v] * scaling[g, v]
        s = 0.0 + _pairwise_sum(row, base.shape[1])  # numpy's reduction starts from its identity
        scale[i] = s
        for v in range(base.shape[1]):
            base[i, v] /= s
            columns[g, v] += row[v] / s


def _counting_weights(prior, counts, strides, n_states):
    forward, backward, can = _counting_passes(prior, counts, strides, n_states)
    m, d = prior.shape
    out = np.zeros((m, d))
    for v in range(d):
        for j in range(m):
            total = 0.0  # state by state: the order of numpy's row sums over its column-major gathered products
            for s in range(n_states):
                if can[v, s]:
                    total += forward[j, s] * backward[j + 1, s + strides[v]]
            out[j, v] = prior[j, v] * total
    return out


if numba is not None:
    _counting_passes = numba.njit(cache=True, nogil=True)(_counting_passes)
    _block_sum = numba.njit(cache=True, nogil=True)(_block_sum)
    _pairwise_sum = numba.njit(cache=True, nogil=True)(_pairwise_sum)
    _sinkhorn_sweep = numba.njit(cache=True, nogil=True)(_sinkhorn_sweep)
    _counting_weights = numba.njit(cache=True, nogil=True)(_counting_weights)


def counting_weights(prior: np.ndarray, counts: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """Each member's weight of holding each value in one cell (rows not normalized), by the counting programme.

    Parameters
    ----------
    prior : ndarray of shape (members, distinct values)
        Each member's background weight of each value.
    counts : ndarray of int
        The published count of each value.
    strides : ndarray of int
        Each value's stride in the state index (the product of (count + 1) of the values before it).

    Returns
    -------
    ndarray of shape (members, distinct values)
    """
    n_states = int(np.prod(counts + 1))
    prior = np.ascontiguousarray(prior, dtype=float)
    return _counting_weights(prior, counts.astype(np.int64), strides.astype(np.int64), n_states)


def sinkhorn_sweep(base, scaling, group, scale, columns) -> np.ndarray:
    """One Sinkhorn row pass: with m[i] = base[i] * scaling[group[i]], ``scale[i]`` = sum(m[i]), ``base[i]``
    divided by it in place, and ``columns`` (overwritten, and returned) the sums of m[i] / scale[i] by group.

    Parameters
    ----------
    base : ndarray of shape (rows, values)
        Each row's weights, divided in place.
    scaling : ndarray of shape (groups, values)
        Each group's value scaling.
    group : ndarray of int
        Each row's group.
    scale : ndarray of shape (rows,)
        Where each row's sum goes.
    columns : ndarray of shape (groups, values)
        Where each group's column sums go.
    """
    _sinkhorn_sweep(base, scaling, group, scale, columns)
    return columns
