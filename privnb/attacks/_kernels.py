"""Compiled loops of the attacks' inference (numba, when it is installed; otherwise the same loops run in Python).

- :func:`counting_passes`: the forward and backward passes of the common adversary's counting programme
  (:func:`privnb.attacks.adversary.cell_posteriors`). A state is the multiset of values assigned so far, in
  mixed radix (value v's count is digit v, of stride ``strides[v]``). Forward, F_{j+1}(u + e_v) gains
  F_j(u) P[j, v]; backward, B_j(u) gains P[j, v] B_{j+1}(u + e_v); each step is divided by its largest entry
  (the posteriors are ratios).
- :func:`scaled_rows` and :func:`normalize_rows`: the two passes of a Sinkhorn sweep over the de Finetti
  attack's large groups (:func:`privnb.attacks.definetti.sinkhorn_marginals`), each fusing what numpy did
  in several passes over the rows.

Every loop adds in the order of the numpy formulation it replaces (value by value and states in increasing
order; group sums row by row, as a CSR product adds), so every number is the same to the last bit.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # optional: the same loops run in Python
    numba = None

__all__ = ["counting_passes", "normalize_rows", "scaled_rows"]


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


def _scaled_rows(base, scaling, group, out):
    for i in range(base.shape[0]):
        g = group[i]
        for v in range(base.shape[1]):
            out[i, v] = base[i, v] * scaling[g, v]


def _normalize_rows(base, marginals, scale, group, columns):
    columns[:] = 0.0
    for i in range(base.shape[0]):
        g, s = group[i], scale[i]
        for v in range(base.shape[1]):
            base[i, v] /= s
            columns[g, v] += marginals[i, v] / s


if numba is not None:
    _counting_passes = numba.njit(cache=True, nogil=True)(_counting_passes)
    _scaled_rows = numba.njit(cache=True, nogil=True)(_scaled_rows)
    _normalize_rows = numba.njit(cache=True, nogil=True)(_normalize_rows)


def counting_passes(prior: np.ndarray, counts: np.ndarray, strides: np.ndarray):
    """(forward, backward, can) of one cell's counting programme: the tables of shape (members + 1, states), and
    whether each state can take one more of each value (shape (values, states)).

    Parameters
    ----------
    prior : ndarray of shape (members, distinct values)
        Each member's background weight of each value.
    counts : ndarray of int
        The published count of each value.
    strides : ndarray of int
        Each value's stride in the state index (the product of (count + 1) of the values before it).
    """
    n_states = int(np.prod(counts + 1))
    prior = np.ascontiguousarray(prior, dtype=float)
    return _counting_passes(prior, counts.astype(np.int64), strides.astype(np.int64), n_states)


def scaled_rows(base: np.ndarray, scaling: np.ndarray, group: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[i] = base[i] * scaling[group[i]]``, written into ``out`` and returned.

    Parameters
    ----------
    base : ndarray of shape (rows, values)
        Each row's weights.
    scaling : ndarray of shape (groups, values)
        Each group's value scaling.
    group : ndarray of int
        Each row's group.
    out : ndarray of shape (rows, values)
        Where the scaled rows go.
    """
    _scaled_rows(base, scaling, group, out)
    return out


def normalize_rows(base, marginals, scale, group, columns) -> np.ndarray:
    """Divide each row of ``base`` by its ``scale`` in place, and sum ``marginals / scale`` by ``group`` into
    ``columns`` (overwritten, and returned), as a CSR product of the group-by-row matrix sums them.

    Parameters
    ----------
    base : ndarray of shape (rows, values)
        Each row's weights, divided in place.
    marginals : ndarray of shape (rows, values)
        The scaled rows (:func:`scaled_rows`).
    scale : ndarray of shape (rows,)
        Each row's sum of ``marginals``.
    group : ndarray of int
        Each row's group.
    columns : ndarray of shape (groups, values)
        Where each group's column sums go.
    """
    _normalize_rows(base, marginals, scale, group, columns)
    return columns
