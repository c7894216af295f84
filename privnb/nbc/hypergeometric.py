"""The hypergeometric chain behind the exact audit: within one class each further attribute is an
independent uniform permutation, so the number of rows matching a quasi-identifier follows a chain of
hypergeometric laws, computed here in floating point blocks with negligible tails trimmed.
"""
from __future__ import annotations

import math

import numpy as np

# ------------------------------------------------------------------------------ the exact chain, vectorized
_LIMIT_LOG_MEAN = 60 * math.log(2)  # E[S] >= 2^60: E[K_c]/E[S] is the exact posterior to float64 precision


_FLOAT_EXACT = 2**53  # counts the float recurrences below hold exactly


_TAIL_SD, _TAIL_PAD = 17.0, 50.0  # hypergeometric window: mean - 17 sqrt(mean) .. mean + 17 sqrt(mean) + 50


_NEGLIGIBLE = 1e-60  # a pmf column below this in every row is dropped: far below float64 precision


_CHUNK = 96  # rows of a pmf batch thinned together (rows sorted by location share a narrow window)


def _hypergeometric_block(p: int, n: int, j_lo: int, j_hi: int) -> tuple[int, np.ndarray]:
    """Rows ``j = j_lo..j_hi`` of the pmf of ``HG(population p, successes n, draws j)``.

    Returns ``(k_lo, T)`` with ``T[j - j_lo, k - k_lo] = P(K = k | j draws)``. The log pmf follows the
    ratio recurrence ``P(k+1)/P(k) = (n-k)(j-k) / ((k+1)(p-n-j+k+1))``, whose partial sums split into
    ``C[k] - G[j-k]`` (two short cumulative sums, so the relative error stays near 1e-13, unlike
    differences of log-gamma values), normalized per row over its window: the support truncated to
    ``[mean - 17 sqrt(mean), mean + 17 sqrt(mean) + 50]``, outside which the Chernoff-Bennett bounds
    ``exp(-t^2 / (2 mean))`` and ``exp(-mean h(t / mean))``, ``h(u) = (1+u) log(1+u) - u`` (valid without
    replacement), leave less than 1e-60 of the mass.
    """
    j = np.arange(j_lo, j_hi + 1)
    mean = j * (n / p)
    spread = _TAIL_SD * np.sqrt(mean)
    lo = np.maximum(np.maximum(0, j + n - p), np.floor(mean - spread).astype(np.int64))
    hi = np.minimum(np.minimum(j, n), np.ceil(mean + spread + _TAIL_PAD).astype(np.int64))
    k_lo, k_hi = int(lo.min()), int(hi.max())
    k = np.arange(k_lo, k_hi + 1)

    def log(values):
        return np.log(np.maximum(values, 1).astype(float))

    c = np.concatenate([[0.0], np.cumsum(log(n - k[:-1]) - log(k[:-1] + 1))])
    d_min = j_lo - k_hi
    d = np.arange(d_min, j_hi - k_lo + 1)
    g = np.concatenate([[0.0], np.cumsum(log(d[1:]) - log(p - n + 1 - d[1:]))])
    log_pmf = c[None, :] - g[(j[:, None] - k[None, :]) - d_min]
    valid = (k[None, :] >= lo[:, None]) & (k[None, :] <= hi[:, None])
    log_pmf = np.where(valid, log_pmf, -np.inf)
    log_pmf -= log_pmf.max(axis=1, keepdims=True)
    pmf = np.exp(log_pmf)
    return k_lo, pmf / pmf.sum(axis=1, keepdims=True)


def _trim(offset: int, pmf: np.ndarray) -> tuple[int, np.ndarray]:
    """Drop leading and trailing columns that are negligible in every row."""
    keep = np.flatnonzero((pmf > _NEGLIGIBLE).any(axis=0))
    if not keep.size:
        return offset, pmf[:, :1]
    return offset + int(keep[0]), pmf[:, keep[0]:keep[-1] + 1]


def _thin(p: int, offset: int, pmf: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """One link of the chain: rows of ``pmf`` (the number of rows still matching, from ``offset``) mixed
    over ``HG(p, n, .)``: the rows that also carry the value counted ``n`` times.

    Rows are grouped by where their mass lies (buckets as wide as the widest row, at most ``_CHUNK`` rows
    each) and each group is thinned over its own narrow window (a one-hot row costs one block row)."""
    significant = pmf > _NEGLIGIBLE
    first = significant.argmax(axis=1)
    width = pmf.shape[1] - significant[:, ::-1].argmax(axis=1) - first
    bucket = first // max(1, int(width.max()))
    order = np.lexsort((pmf.argmax(axis=1), bucket))
    starts = np.flatnonzero(np.diff(bucket[order])) + 1
    parts = []
    for group in np.split(order, starts):
        for rows in np.array_split(group, math.ceil(len(group) / _CHUNK)):
            o, part = _trim(offset, pmf[rows])
            k_lo, block = _hypergeometric_block(p, n, o, o + part.shape[1] - 1)
            parts.append((rows, k_lo, part @ block))
    new_offset = min(k for _, k, _ in parts)
    out = np.zeros((pmf.shape[0], max(k + b.shape[1] for _, k, b in parts) - new_offset))
    for rows, k_lo, b in parts:
        out[rows, k_lo - new_offset:k_lo - new_offset + b.shape[1]] = b
    return _trim(new_offset, out)


def _class_prefix(p: int, tables: list[np.ndarray]) -> tuple[int, np.ndarray]:
    """The chain of one class over all but the last attribute of I: pmf of the matching count for every
    value of the product of their domains (rows, C order). Starts at ``K = P_c`` (no constraint yet)."""
    offset, pmf = p, np.ones((1, 1))
    for counts in tables:
        parts = [_thin(p, offset, pmf, int(n)) for n in counts]
        new_offset = min(o for o, _ in parts)
        width = max(o + b.shape[1] for o, b in parts) - new_offset
        out = np.zeros((pmf.shape[0], len(parts), width))
        for t, (o, b) in enumerate(parts):
            out[:, t, o - new_offset:o - new_offset + b.shape[1]] = b
        offset, pmf = _trim(new_offset, out.reshape(-1, width))
    return offset, pmf


def _convolve_rows(a: tuple[int, np.ndarray], b: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    """The pmf of the sum of two independent counts, row by row (loop over the shorter support)."""
    (oa, pa), (ob, pb) = (a, b) if a[1].shape[1] <= b[1].shape[1] else (b, a)
    out = np.zeros((pa.shape[0], pa.shape[1] + pb.shape[1] - 1))
    for i in range(pa.shape[1]):
        out[:, i:i + pb.shape[1]] += pa[:, i:i + 1] * pb
    return oa + ob, out


def _combine(pmfs: list[tuple[int, np.ndarray]]) -> np.ndarray:
    """``E[K_c / S | S >= 1]`` for every row, with ``S = sum_c K_c`` and the classes independent.

    ``sum_{k, s} P(K_c = k) P(S - K_c = s) k / (k + s)`` as one matrix product per class over the product
    of the (small) supports, divided by ``P(S >= 1) = sum_c P(K_c >= 1) prod_{c' < c} P(K_c' = 0)``
    (no cancellation); NaN where no world holds a matching row.
    """
    n_classes = len(pmfs)
    rows = pmfs[0][1].shape[0]
    zero = [pmf[:, 0] if offset == 0 else np.zeros(rows) for offset, pmf in pmfs]
    some = np.zeros(rows)
    none = np.ones(rows)
    for c, (offset, pmf) in enumerate(pmfs):
        some += none * (pmf[:, 1:].sum(axis=1) if offset == 0 else pmf.sum(axis=1))
        none *= zero[c]
    out = np.empty((rows, n_classes))
    for c, (offset, pmf) in enumerate(pmfs):
        rest = (0, np.ones((rows, 1)))
        for other, part in enumerate(pmfs):
            if other != c:
                rest = _convolve_rows(rest, part)
        k = offset + np.arange(pmf.shape[1], dtype=float)
        s = rest[0] + np.arange(rest[1].shape[1], dtype=float)
        total = k[:, None] + s[None, :]
        share = np.divide(k[:, None], total, out=np.zeros_like(total), where=total > 0)
        out[:, c] = np.einsum("rk,rk->r", pmf, rest[1] @ share.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(some[:, None] > 0, out / some[:, None], np.nan)


def _chain_posteriors(views, subset) -> np.ndarray:
    """Exact posteriors (float64) for every value of the grid of ``subset`` (C order) by the chain."""
    labels = list(views.labels)
    tables = [np.array(views.counts[a].to_numpy(), dtype=np.int64) for a in subset]
    p = [int(v) for v in views.class_counts]
    prefixes = [_class_prefix(p[c], [t[:, c] for t in tables[:-1]]) for c in range(len(labels))]
    last = tables[-1]
    rows = prefixes[0][1].shape[0]
    out = np.empty((rows, last.shape[0], len(labels)))
    for t in range(last.shape[0]):
        pmfs = [_thin(p[c], *prefixes[c], int(last[t, c])) for c in range(len(labels))]
        out[:, t, :] = _combine(pmfs)
    return out.reshape(-1, len(labels))

