"""The hypergeometric chain behind the exact audit: within one class each further attribute is an
independent uniform permutation, so the number of rows matching a quasi-identifier follows a chain of
hypergeometric laws, computed here in floating point blocks with negligible tails trimmed.

Memory is bounded: hypergeometric blocks are built in slices of draws, the classes are combined per group of
rows with narrow joint supports, and no array larger than :data:`MAX_ELEMENTS` is ever allocated (a request
that would need one raises :class:`AuditOutOfReach`, a ``MemoryError`` and ``ValueError``, before allocating).
Counts near 10^5 with a rare value (class counts 100,000 and 197,000) now take tens of MiB; the former dense
combination over the union of the rows' supports asked for over 100 GiB.
"""

from __future__ import annotations

import math

import numpy as np

# ------------------------------------------------------------------------------ the exact chain, vectorized
LIMIT_LOG_MEAN = 60 * math.log(2)
"""E[S] >= 2^60: E[K_c]/E[S] is the exact posterior to float64 precision."""


FLOAT_EXACT = 2**53
"""Counts the float recurrences below hold exactly."""


TAIL_SD, TAIL_PAD = 17.0, 50.0
"""The hypergeometric window: mean - 17 sqrt(mean) .. mean + 17 sqrt(mean) + 50 (the support kept)."""


_NEGLIGIBLE = 1e-60  # a pmf column below this in every row is dropped: far below float64 precision


_CHUNK = 96  # rows of a pmf batch thinned together (rows sorted by location share a narrow window)


BLOCK = 1 << 22
"""Elements (32 MiB of float64) of one working block: hypergeometric rows, share matrices."""


MAX_ELEMENTS = 1 << 27  # elements (1 GiB of float64) of the largest array the chain may hold


class AuditOutOfReach(MemoryError, ValueError):
    """The exact audit would need an array larger than :data:`MAX_ELEMENTS`: raised before allocating."""


def _allocate(shape: tuple[int, ...], what: str) -> np.ndarray:
    """``np.zeros(shape)``, or :class:`AuditOutOfReach` when it holds more than :data:`MAX_ELEMENTS`."""
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise AuditOutOfReach(
            f"the exact audit would hold {size:,} float64 values ({size * 8 / 2**30:.1f} GiB) for {what}, more "
            f"than its limit of {MAX_ELEMENTS:,} (privnb.nbc._hypergeometric.MAX_ELEMENTS): audit fewer "
            "quasi-identifier values at a time (max_size), or use method='expected'"
        )
    return np.zeros(shape)


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
    spread = TAIL_SD * np.sqrt(mean)
    lo = np.maximum(np.maximum(0, j + n - p), np.floor(mean - spread).astype(np.int64))
    hi = np.minimum(np.minimum(j, n), np.ceil(mean + spread + TAIL_PAD).astype(np.int64))
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
    return offset + int(keep[0]), pmf[:, keep[0] : keep[-1] + 1]


def _thin(p: int, offset: int, pmf: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """One link of the chain: rows of ``pmf`` (the number of rows still matching, from ``offset``) mixed
    over ``HG(p, n, .)``: the rows that also carry the value counted ``n`` times.

    Rows are grouped by where their mass lies (buckets as wide as the widest row, at most ``_CHUNK`` rows
    each) and each group is thinned over its own narrow window (a one-hot row costs one block row).
    """
    significant = pmf > _NEGLIGIBLE
    first = significant.argmax(axis=1)
    width = pmf.shape[1] - significant[:, ::-1].argmax(axis=1) - first
    bucket = first // max(1, int(width.max()))
    order = np.lexsort((pmf.argmax(axis=1), bucket))
    starts = np.flatnonzero(np.diff(bucket[order])) + 1
    parts = []
    for group in np.split(order, starts):
        for rows in np.array_split(group, math.ceil(len(group) / _CHUNK)):
            parts.append((rows, *_thin_part(p, n, *_trim(offset, pmf[rows]))))
    new_offset = min(k for _, k, _ in parts)
    out = _allocate((pmf.shape[0], max(k + b.shape[1] for _, k, b in parts) - new_offset), "one link of the chain")
    for rows, k_lo, b in parts:
        out[rows, k_lo - new_offset : k_lo - new_offset + b.shape[1]] = b
    return _trim(new_offset, out)


def _thin_part(p: int, n: int, o: int, part: np.ndarray) -> tuple[int, np.ndarray]:
    """``part @ HG(p, n, j)`` for the draws ``j = o..o + width - 1`` of ``part``, in slices of ``j`` whose
    hypergeometric block holds at most about :data:`BLOCK` values (bounded memory for wide supports).
    """
    j_count = part.shape[1]
    window = 2 * TAIL_SD * math.sqrt(max(1.0, (o + j_count) * n / p)) + 2 * TAIL_PAD
    step = max(1, int(BLOCK // (window + j_count * n / p + 1)))
    if step >= j_count:
        k_lo, block = _hypergeometric_block(p, n, o, o + j_count - 1)
        return k_lo, part @ block
    pieces = []
    for start in range(0, j_count, step):
        piece = part[:, start : start + step]
        if not (piece > _NEGLIGIBLE).any():
            continue
        k_lo, block = _hypergeometric_block(p, n, o + start, o + start + piece.shape[1] - 1)
        pieces.append((k_lo, piece @ block))
    k_min = min(k for k, _ in pieces)
    out = _allocate((part.shape[0], max(k + b.shape[1] for k, b in pieces) - k_min), "one link of the chain")
    for k_lo, b in pieces:
        out[:, k_lo - k_min : k_lo - k_min + b.shape[1]] += b
    return _trim(k_min, out)


def _class_prefix(p: int, tables: list[np.ndarray]) -> tuple[int, np.ndarray]:
    """The chain of one class over all but the last attribute of I: pmf of the matching count for every
    value of the product of their domains (rows, C order). Starts at ``K = P_c`` (no constraint yet).
    """
    offset, pmf = p, np.ones((1, 1))
    for counts in tables:
        parts = [_thin(p, offset, pmf, int(n)) for n in counts]
        new_offset = min(o for o, _ in parts)
        width = max(o + b.shape[1] for o, b in parts) - new_offset
        out = _allocate((pmf.shape[0], len(parts), width), "the chain over the quasi-identifier's values")
        for t, (o, b) in enumerate(parts):
            out[:, t, o - new_offset : o - new_offset + b.shape[1]] = b
        offset, pmf = _trim(new_offset, out.reshape(-1, width))
    return offset, pmf


def _convolve_rows(a: tuple[int, np.ndarray], b: tuple[int, np.ndarray]) -> tuple[int, np.ndarray]:
    """The pmf of the sum of two independent counts, row by row (loop over the shorter support)."""
    (oa, pa), (ob, pb) = (a, b) if a[1].shape[1] <= b[1].shape[1] else (b, a)
    out = _allocate((pa.shape[0], pa.shape[1] + pb.shape[1] - 1), "the other classes' matching counts")
    for i in range(pa.shape[1]):
        out[:, i : i + pb.shape[1]] += pa[:, i : i + 1] * pb
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
        out[:, c] = _expected_share((offset, pmf), rest)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(some[:, None] > 0, out / some[:, None], np.nan)


def _support(pmf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and one-past-last significant column of every row (0, 1 for a row with none)."""
    significant = pmf > _NEGLIGIBLE
    first = significant.argmax(axis=1)
    last = pmf.shape[1] - significant[:, ::-1].argmax(axis=1)
    return first, np.maximum(last, first + 1)


def _row_groups(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """Rows in groups whose joint window (union of their ``a`` supports times union of their ``b``
    supports) holds at most :data:`BLOCK` values, or single rows: rows sorted by where their mass lies,
    taken greedily.
    """
    (fa, la), (fb, lb) = _support(a), _support(b)
    order = np.lexsort((fb, fa))
    groups, current = [], []
    lo_a = hi_a = lo_b = hi_b = 0
    for row in order.tolist():
        if current:
            na, xa = min(lo_a, fa[row]), max(hi_a, la[row])
            nb, xb = min(lo_b, fb[row]), max(hi_b, lb[row])
            if (xa - na) * (xb - nb) <= BLOCK and len(current) < 4 * _CHUNK:
                current.append(row)
                lo_a, hi_a, lo_b, hi_b = na, xa, nb, xb
                continue
            groups.append(np.array(current))
        current = [row]
        lo_a, hi_a, lo_b, hi_b = fa[row], la[row], fb[row], lb[row]
    if current:
        groups.append(np.array(current))
    return groups


def _expected_share(k_pmf: tuple[int, np.ndarray], s_pmf: tuple[int, np.ndarray]) -> np.ndarray:
    """``sum_{k, s} P(K = k) P(S' = s) k / (k + s)`` for every row, ``K`` and ``S'`` independent.

    Rows are taken in groups with narrow joint supports (:func:`_row_groups`) and the ``k / (k + s)`` matrix
    in slices of at most about :data:`BLOCK` values, so memory stays bounded however far apart the rows'
    supports lie (a rare and a common value of a class of 10^5 rows).
    """
    (ok, pk), (os_, ps) = k_pmf, s_pmf
    out = np.zeros(pk.shape[0])
    for rows in _row_groups(pk, ps):
        gk, a = _trim(ok, pk[rows])
        gs, b = _trim(os_, ps[rows])
        s = gs + np.arange(b.shape[1], dtype=float)
        step = max(1, BLOCK // b.shape[1])
        for start in range(0, a.shape[1], step):
            k = gk + start + np.arange(min(step, a.shape[1] - start), dtype=float)
            total = k[:, None] + s[None, :]
            share = np.divide(k[:, None], total, out=np.zeros_like(total), where=total > 0)
            out[rows] += np.einsum("rk,rk->r", a[:, start : start + len(k)], b @ share.T)
    return out


def chain_posteriors(views, subset) -> np.ndarray:
    """Exact posteriors (float64) for every value of the grid of ``subset`` (C order) by the chain.

    Parameters
    ----------
    views : NBCViews
        Integer, realistic views with counts below :data:`FLOAT_EXACT`.
    subset : sequence of str
        The quasi-identifier's attributes, in the views' order.

    Returns
    -------
    ndarray
        Shape (values of the grid, labels).
    """
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
