"""Exact nearest-neighbour searches behind :class:`privnb.learn.knn.IBkClassifier` (tie rules there).

:func:`kneighbors` searches the training rows, :func:`kneighbors_factored` the distinct quasi-identifier
rows of D_A, both with squared distances compared after rounding to 1e-9 and queries in chunks of
bounded memory; ``ties=True`` keeps every row tied with the k-th (:class:`TiedNeighbors`).
:func:`nearest_per_part` and :func:`tied_counts_per_part` are the incremental 1-NN of Section 5.2.6 of MC17
(exact-k and Weka IBk's ties).
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

import numpy as np

from privnb.learn._screen import BLOCK as _BLOCK
from privnb.learn._screen import DistanceScreen, blocks_within
from privnb.learn.encoding import distinct_rows
from privnb.validation import check_int

_DECIMALS = 9  # squared distances tie when equal after rounding to this many decimals


def _rows_per_chunk(n_train, chunk_bytes):
    return int(max(1, min(4096, chunk_bytes // (8 * max(n_train, 1)))))


def _kth_bound(d2, k, block_min):
    """An upper bound of the k-th smallest entry of each row (exact when there are fewer than k blocks).

    The k-th smallest block minimum bounds it, since k blocks each hold an entry at most that large.
    """
    if block_min.shape[1] >= k:
        return np.partition(block_min, k - 1, axis=1)[:, k - 1]
    return np.partition(d2, k - 1, axis=1)[:, k - 1]


def _screen(d2, bound, block_min):
    """Rows/columns of the entries of ``d2`` at most ``bound`` (per row), found block by block.

    ``d2`` has a number of columns divisible by ``_BLOCK`` (padding holds +inf); ``block_min`` is
    the minimum of each of its blocks (:meth:`DistanceScreen.shifted`).
    """
    rows, blk = np.nonzero(block_min <= bound[:, None])
    cols = blk[:, None] * _BLOCK + np.arange(_BLOCK)
    keep = d2[rows[:, None], cols] <= bound[rows, None]
    return np.broadcast_to(rows[:, None], cols.shape)[keep], cols[keep]


#: Relative slack of the single-precision screen: a row is a candidate when its screened distance is within
#: this times (1 + the largest squared norm + the query's) of the bound, far above float32's rounding.
_SCREEN_TOL = 1e-5


def _first_k(query_of, exact, col, n_query, k):
    """The k candidates of each query with the smallest (rounded exact distance, column)."""
    exact = np.round(exact, _DECIMALS)
    order = np.lexsort((col, exact, query_of))
    first = np.searchsorted(query_of[order], np.arange(n_query))
    take = order[first[:, None] + np.arange(k)]
    return exact[take], col[take]


class TiedNeighbors(NamedTuple):
    """Ragged neighbour lists of :func:`kneighbors` with ``ties=True``: query q's neighbours are
    ``index[offsets[q]:offsets[q + 1]]``, nearest first (squared distances ``sq_dist``, rounded to 1e-9).
    Each list holds every training row whose distance is at most the query's k-th smallest.
    """

    offsets: np.ndarray
    sq_dist: np.ndarray
    index: np.ndarray


def _all_within_kth(query_of, exact, col, n_query, k):
    """Every candidate whose (rounded exact) distance is at most its query's k-th smallest, nearest first
    (then by column): (counts per query, distances, columns).
    """
    exact = np.round(exact, _DECIMALS)
    order = np.lexsort((col, exact, query_of))
    query_of, exact, col = query_of[order], exact[order], col[order]
    first = np.searchsorted(query_of, np.arange(n_query))
    keep = exact <= exact[first + k - 1][query_of]
    return np.bincount(query_of[keep], minlength=n_query), exact[keep], col[keep]


def _collect(pieces, n_query):
    counts = np.concatenate([c for c, _, _ in pieces]) if pieces else np.zeros(0, dtype=np.intp)
    offsets = np.zeros(n_query + 1, dtype=np.intp)
    np.cumsum(counts, out=offsets[1:])
    if not pieces:
        return TiedNeighbors(offsets, np.zeros(0), np.zeros(0, dtype=np.intp))
    return TiedNeighbors(
        offsets, np.concatenate([d for _, d, _ in pieces]), np.concatenate([i for _, _, i in pieces]).astype(np.intp)
    )


def kneighbors(X_train, X_query, n_neighbors, *, chunk_bytes=2**27, ties=False, blocks=()):
    """The ``n_neighbors`` nearest training rows of each query row (brute force, exact, chunked).

    With ``ties=True``, every training row whose distance is at most the k-th smallest is returned
    (Weka IBk's LinearNNSearch), as :class:`TiedNeighbors`; the lists for any smaller k are prefixes.

    Neighbours are ordered by (squared Euclidean distance, training row position): the distance tie rule
    of this module. Queries are processed in chunks so that one chunk's distance matrix takes at most
    about ``chunk_bytes`` (default 128 MiB); squared norms of the training rows are computed once.

    Parameters
    ----------
    X_train, X_query : arrays of shape (n_train, p) and (n_query, p)
        The training rows and the queries.
    n_neighbors : int
        k, at most n_train.
    chunk_bytes : int
        Memory of one query chunk's distance matrix.
    ties : bool
        Keep every row tied with the k-th (Weka IBk), as above.
    blocks : sequence of (start, stop)
        Column ranges that are one-hot blocks, each row holding one entry of the same value in each (the
        nominal attributes of the "ibk" encoding, :func:`privnb.learn.encoding.one_hot_blocks`): the screen
        compares their category codes instead of multiplying their columns. The result is the same.

    Returns
    -------
    sq_dist : array of shape (n_query, n_neighbors), squared distances, non-decreasing along each row
    index : array of shape (n_query, n_neighbors), positions in ``X_train``
        (or, with ``ties=True``, one :class:`TiedNeighbors`)
    """
    X_train, X_query = _check_pair(X_train, X_query)
    k = check_int(n_neighbors, "n_neighbors")
    if k > len(X_train):
        raise ValueError(f"n_neighbors={k} exceeds the {len(X_train)} training rows; use a smaller k")
    screen = DistanceScreen(X_train, blocks)
    scale = 1.0 + float(np.einsum("ij,ij->i", X_train, X_train).max())
    sq_dist = np.empty((len(X_query), k))
    index = np.empty((len(X_query), k), dtype=np.intp)
    pieces = []
    step = _rows_per_chunk(screen.width, chunk_bytes)
    for start in range(0, len(X_query), step):
        query = X_query[start : start + step]
        d2, sq_query, block_min = screen.shifted(query)
        tol = _SCREEN_TOL * (scale + sq_query)
        rows, cols = _screen(d2, _kth_bound(d2, k, block_min) + tol, block_min)
        del d2
        diff = query[rows] - X_train[cols]
        exact = np.einsum("ij,ij->i", diff, diff)
        if ties:
            pieces.append(_all_within_kth(rows, exact, cols, len(query), k))
        else:
            sq_dist[start : start + step], index[start : start + step] = _first_k(rows, exact, cols, len(query), k)
    return _collect(pieces, len(X_query)) if ties else (sq_dist, index)


def kneighbors_from_distances(distances, n_query, n_train, n_neighbors, *, chunk_bytes=2**27, ties=False):
    """:func:`kneighbors` over squared distances that a function computes, chunk by chunk of queries.

    For distances no embedding gives (IBk's rule for missing values, :func:`privnb.learn.knn.weka_sq_distances`):
    the ordering, tie rule and return values of :func:`kneighbors`, without its screen.

    Parameters
    ----------
    distances : callable
        ``distances(start, stop) -> array (stop - start, n_train)``: exact squared distances of queries
        start..stop-1 to every training row.
    n_query, n_train : int
        Numbers of queries and training rows.
    n_neighbors, chunk_bytes, ties
        As in :func:`kneighbors`.

    Returns
    -------
    (sq_dist, index) arrays of shape (n_query, k), or TiedNeighbors with ``ties=True``
    """
    k = check_int(n_neighbors, "n_neighbors")
    if k > n_train:
        raise ValueError(f"n_neighbors={k} exceeds the {n_train} training rows; use a smaller k")
    sq_dist, index, pieces = np.empty((n_query, k)), np.empty((n_query, k), dtype=np.intp), []
    step = _rows_per_chunk(n_train, chunk_bytes)
    for start in range(0, n_query, step):
        stop = min(start + step, n_query)
        d2 = np.asarray(distances(start, stop), dtype=float)
        rows = np.repeat(np.arange(stop - start), n_train)
        cols = np.tile(np.arange(n_train), stop - start)
        if ties:
            pieces.append(_all_within_kth(rows, d2.ravel(), cols, stop - start, k))
        else:
            sq_dist[start:stop], index[start:stop] = _first_k(rows, d2.ravel(), cols, stop - start, k)
    return _collect(pieces, n_query) if ties else (sq_dist, index)


def _check_pair(X_train, X_query):
    X_train = np.ascontiguousarray(X_train, dtype=float)
    X_query = np.ascontiguousarray(X_query, dtype=float)
    if X_train.ndim != 2 or X_query.ndim != 2 or X_train.shape[1] != X_query.shape[1]:
        raise ValueError(
            f"X_train and X_query must be 2-D with the same number of columns, got shapes "
            f"{X_train.shape} and {X_query.shape}"
        )
    return X_train, X_query


def kneighbors_factored(
    A_train, S_train, a_index, s_index, A_query, S_query, n_neighbors, *, chunk_bytes=2**27, ties=False, blocks=()
):
    """:func:`kneighbors` for training rows that combine few distinct parts: row r = (A[a_index[r]], S[s_index[r]]).

    The anatomized data D_A repeats each individual's quasi-identifiers with the l sensitive values of
    its group (Definition 12 of MC17): with A the distinct quasi-identifier rows and S the distinct
    sensitive encodings, squared distances split as |q_A - A_u|^2 + |q_S - S_v|^2. The large search runs
    over the distinct A rows only (about N instead of N*l): for each query the exact distances of the rows
    of its nearest A rows bound the k-th distance from above, every A row whose partial distance (a lower
    bound of its rows' distances) is within that bound is a candidate, and the candidates' rows are ranked
    exactly. Same result and tie rules as :func:`kneighbors` on the full rows (``ties`` as there).

    Parameters
    ----------
    A_train, S_train : arrays of shape (n_a, p_a) and (n_s, p_s)
        The distinct first parts and the distinct second parts.
    a_index, s_index : int arrays of shape (n_train,)
        The parts of each training row.
    A_query, S_query : arrays of shape (n_query, p_a) and (n_query, p_s)
        The queries' first and second parts.
    n_neighbors, chunk_bytes, ties
        As in :func:`kneighbors` (``n_neighbors`` at most n_train).
    blocks : sequence of (start, stop)
        One-hot blocks of the A columns, as in :func:`kneighbors`.
    """
    A_train, A_query = _check_pair(A_train, A_query)
    S_train, S_query = _check_pair(S_train, S_query)
    a_index, s_index = np.asarray(a_index, dtype=np.intp), np.asarray(s_index, dtype=np.intp)
    k = check_int(n_neighbors, "n_neighbors")
    n_train = len(a_index)
    if k > n_train:
        raise ValueError(f"n_neighbors={k} exceeds the {n_train} training rows; use a smaller k")
    rows_of = np.argsort(a_index, kind="stable")  # rows of each A row, in row order
    starts = np.searchsorted(a_index[rows_of], np.arange(len(A_train) + 1))
    sizes = np.diff(starts)
    screen = DistanceScreen(A_train, blocks)
    scale = 1.0 + float(np.einsum("ij,ij->i", A_train, A_train).max())
    scale += float(np.einsum("ij,ij->i", S_train, S_train).max())
    sq_dist = np.empty((len(A_query), k))
    index = np.empty((len(A_query), k), dtype=np.intp)
    pieces = []
    step = _rows_per_chunk(screen.width, chunk_bytes)

    def expand(q_of, a_of, query, ds):
        """Every training row of the candidate (query, A row) pairs, with its exact squared distance."""
        counts = sizes[a_of]
        diff = query[q_of] - A_train[a_of]
        q_rows = np.repeat(q_of, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = rows_of[np.repeat(starts[a_of], counts) + offsets]
        return q_rows, cols, np.repeat(np.einsum("ij,ij->i", diff, diff), counts) + ds[q_rows, s_index[cols]]

    for start in range(0, len(A_query), step):
        query, query_s = A_query[start : start + step], S_query[start : start + step]
        # partial distances (a lower bound of the rows' distances), less |q_A|^2
        d2, sq_query, block_min = screen.shifted(query)
        ds = ((query_s[:, None, :] - S_train[None, :, :]) ** 2).sum(axis=2)  # exact, (chunk, n_s)
        tol = _SCREEN_TOL * (scale + sq_query)
        # 1. the A rows nearest in the first part (at least k rows among them): their exact row
        #    distances bound the k-th distance from above
        q_rows, _, exact = expand(
            *_screen(d2, _kth_bound(d2, min(k, len(A_train)), block_min) + tol, block_min), query, ds
        )
        order = np.lexsort((exact, q_rows))
        first = np.searchsorted(q_rows[order], np.arange(len(query)))
        bound = exact[order[first + k - 1]] - sq_query + tol
        # 2. every A row whose partial distance is within the bound, ranked exactly
        q_rows, cols, exact = expand(*_screen(d2, bound, block_min), query, ds)
        del d2
        if ties:
            pieces.append(_all_within_kth(q_rows, exact, cols, len(query), k))
        else:
            sq_dist[start : start + step], index[start : start + step] = _first_k(q_rows, exact, cols, len(query), k)
    return _collect(pieces, len(A_query)) if ties else (sq_dist, index)


def _tied_nearest_per_part(layout, screen, scale, part_bounds, query):
    """For each part j (rows ``part_bounds[j]:part_bounds[j + 1]`` of ``layout``, the training rows laid out
    by :func:`_per_part`; ``screen``: its :class:`DistanceScreen`; ``scale``: 1 + the largest squared norm of
    a training row): each query's smallest squared distance within the part, rounded to 1e-9 (this module's
    tie rule), and the (query, column) pairs at it.
    """
    d2, sq_query, block_min = screen.shifted(query)
    tol = _SCREEN_TOL * (scale + sq_query)
    for lo, hi in pairwise(part_bounds):
        part_min = block_min[:, lo // _BLOCK : hi // _BLOCK]
        rows, cols = _screen(d2[:, lo:hi], part_min.min(axis=1) + tol, part_min)
        cols += lo
        diff = query[rows] - layout[cols]
        exact = np.round(np.einsum("ij,ij->i", diff, diff), _DECIMALS)
        part_d = np.minimum.reduceat(exact, np.searchsorted(rows, np.arange(len(query))))
        tied = exact == part_d[rows]
        yield part_d, rows[tied], cols[tied]


def _part_layout(X_train, parts, blocks=()):
    """The rows of ``X_train`` laid out part by part, each part padded to whole blocks of the screen.

    Returns (layout, position of each layout row in ``X_train`` (-1 on padding), part bounds in the layout,
    the layout's :class:`DistanceScreen` (one-hot ``blocks``) hiding the padding, 1 + the largest squared norm).
    """
    X_train = np.ascontiguousarray(X_train, dtype=float)
    parts = np.asarray(parts)
    sizes = np.bincount(parts, minlength=int(parts.max()) + 1)
    if np.any(sizes == 0):
        raise ValueError("every part must hold at least one training row")
    part_bounds = np.r_[0, np.cumsum(-(-sizes // _BLOCK) * _BLOCK)]
    order = np.argsort(parts, kind="stable")
    slot = part_bounds[parts[order]] + np.arange(len(parts)) - np.r_[0, np.cumsum(sizes)][parts[order]]
    layout = np.zeros((part_bounds[-1], X_train.shape[1]))
    layout[slot] = X_train[order]
    position = np.full(len(layout), -1)  # each layout row's position in X_train; -1 on padding
    position[slot] = order
    screen = DistanceScreen(layout, blocks, hide=position < 0)
    return layout, position, part_bounds, screen, 1.0 + float(np.einsum("ij,ij->i", X_train, X_train).max())


def _prefixes(nearest, n_parts, n_query, step, summarize, combine):
    """Prefix results over parts 0..j from each query chunk's per-part nearest rows.

    ``nearest(start, stop)`` yields, part by part, (smallest distance per query, query rows, training
    positions at it); each part's rows are summarized per query (``summarize(rows, positions, n_query)``);
    the prefix keeps the summary of the strictly nearest part and merges (``combine``) those of parts at
    the same distance.
    """
    out = None
    for start in range(0, n_query, step):
        stop = min(start + step, n_query)
        cur_d = cur = None
        for j, (part_d, rows, positions) in enumerate(nearest(start, stop)):
            part = summarize(rows, positions, stop - start)
            if cur is None:
                cur_d, cur = part_d, part
            else:
                closer, tie = part_d < cur_d, part_d == cur_d
                merged = combine(cur, part)
                pick = closer.reshape((-1,) + (1,) * (part.ndim - 1))
                same = tie.reshape(pick.shape)
                cur = np.where(pick, part, np.where(same, merged, cur))
                cur_d = np.minimum(cur_d, part_d)
            if out is None:
                out = np.empty((n_parts, n_query) + cur.shape[1:], dtype=cur.dtype)
            out[j, start:stop] = cur
    return out


def _per_part(X_train, parts, X_query, chunk_bytes, summarize, combine, blocks):
    """Prefix results of the 1-NN on parts 0..j for every j (Section 5.2.6 of MC17), by :func:`_prefixes`."""
    X_query = np.ascontiguousarray(X_query, dtype=float)
    layout, position, part_bounds, screen, scale = _part_layout(X_train, parts, blocks)

    def nearest(start, stop):
        found = _tied_nearest_per_part(layout, screen, scale, part_bounds, X_query[start:stop])
        for part_d, rows, cols in found:
            yield part_d, rows, position[cols]

    step = _rows_per_chunk(screen.width, chunk_bytes)
    return _prefixes(nearest, len(part_bounds) - 1, len(X_query), step, summarize, combine)


def nearest_per_part(X_train, parts, X_query, *, chunk_bytes=2**27, blocks=()):
    """Nearest neighbour of each query within every prefix of the parts: the incremental 1-NN, exact-k.

    Training rows carry a part number 0..P-1; the 1-NN trained on parts 0..j is, for each query, the
    nearest row among them (tie rule: (distance, position)). One pass over the distances gives each
    part's nearest rows; prefix minima give all P classifiers (Section 5.2.6 of MC17).

    Parameters
    ----------
    X_train, X_query : arrays of shape (n_train, p) and (n_query, p)
        The training rows and the queries.
    parts : int array of shape (n_train,)
        The part 0..P-1 of each training row; every part holds a row.
    chunk_bytes : int
        Memory of one query chunk's distance matrix.
    blocks : sequence of (start, stop)
        One-hot blocks of the columns, as in :func:`kneighbors`.

    Returns
    -------
    index : int array of shape (P, n_query): the 1-NN of the classifier trained on parts 0..j.
    """

    def first(rows, positions, n_query):
        best = np.full(n_query, np.iinfo(np.intp).max)
        np.minimum.at(best, rows, positions)
        return best

    return _per_part(X_train, parts, X_query, chunk_bytes, first, np.minimum, blocks)


def tied_counts_per_part(X_train, parts, X_query, labels, n_classes, *, chunk_bytes=2**27, blocks=()):
    """Weka IBk's 1-NN votes within every prefix of the parts: the incremental 1-NN with IBk's ties.

    For the 1-NN trained on parts 0..j, every row of those parts at the smallest distance votes (Weka's
    LinearNNSearch keeps the rows tied with the k-th, here k = 1); the class counts of those rows are what
    :func:`privnb.learn.knn_votes.weka_vote` turns into a prediction. One pass as :func:`nearest_per_part`.

    Parameters
    ----------
    X_train, parts, X_query, chunk_bytes, blocks
        As in :func:`nearest_per_part`.
    labels : int array of shape (n_train,)
        Class code 0..n_classes-1 of each training row.
    n_classes : int
        Number of classes.

    Returns
    -------
    counts : int array of shape (P, n_query, n_classes)
    """
    return _per_part(X_train, parts, X_query, chunk_bytes, _class_counts(labels, n_classes), np.add, blocks)


def _class_counts(labels, n_classes):
    """The summary of :func:`_prefixes` for IBk's votes: class counts (n_query, n_classes) of the rows."""
    labels = np.asarray(labels)

    def counts(rows, positions, n_query):
        flat = np.bincount(rows * n_classes + labels[positions], minlength=n_query * n_classes)
        return flat.reshape(n_query, n_classes)

    return counts


def _factored_nearest_per_part(layout_parts, S_train, rows_by_a, s_index, query_a, query_s):
    """:func:`_tied_nearest_per_part` for rows (A[a_index[r]], S[s_index[r]]) searched over their A rows.

    ``layout_parts``: :func:`_part_layout` of the distinct A rows by part; ``rows_by_a``: the rows of each A
    row (rows sorted by A row, where each A row's rows start, how many). Per part and query: the A rows
    nearest in the first part bound the smallest total distance from above (their rows' exact distances);
    every A row whose partial distance is within that bound is expanded into its rows, ranked exactly
    (as :func:`kneighbors_factored`). Yields (smallest distance per query, query rows, row positions at it).
    """
    layout, position, part_bounds, screen, scale = layout_parts
    rows_of, starts, sizes = rows_by_a
    d2, sq_query, block_min = screen.shifted(query_a)
    ds = ((query_s[:, None, :] - S_train[None, :, :]) ** 2).sum(axis=2)
    tol = _SCREEN_TOL * (scale + float(np.einsum("ij,ij->i", S_train, S_train).max()) + sq_query)

    def expand(q_of, slots):
        a_of = position[slots]
        counts = sizes[a_of]
        diff = query_a[q_of] - layout[slots]
        q_rows = np.repeat(q_of, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols = rows_of[np.repeat(starts[a_of], counts) + offsets]
        exact = np.repeat(np.einsum("ij,ij->i", diff, diff), counts) + ds[q_rows, s_index[cols]]
        return q_rows, cols, np.round(exact, _DECIMALS)

    for lo, hi in pairwise(part_bounds):
        part_min = block_min[:, lo // _BLOCK : hi // _BLOCK]
        q_of, slots = _screen(d2[:, lo:hi], part_min.min(axis=1) + tol, part_min)
        q_rows, _, exact = expand(q_of, slots + lo)
        bound = np.full(len(query_a), np.inf)
        np.minimum.at(bound, q_rows, exact)
        q_of, slots = _screen(d2[:, lo:hi], bound - sq_query + tol, part_min)
        q_rows, cols, exact = expand(q_of, slots + lo)
        part_d = np.full(len(query_a), np.inf)
        np.minimum.at(part_d, q_rows, exact)
        tied = exact == part_d[q_rows]
        yield part_d, q_rows[tied], cols[tied]


def factor_rows(X_train, factor_mask, parts):
    """The factoring :func:`tied_counts_per_part_factored` searches by: distinct (part, other columns) rows
    and distinct ``factor_mask`` rows, each as (first row of each distinct row, index of each row's one).

    Parameters
    ----------
    X_train, factor_mask, parts
        As in :func:`tied_counts_per_part_factored` (any column weights: scaling keeps equal rows equal).

    Returns
    -------
    (a_first, a_index, s_first, s_index) int arrays
    """
    X_train = np.ascontiguousarray(X_train, dtype=float)
    mask, parts = np.asarray(factor_mask, dtype=bool), np.asarray(parts, dtype=np.intp)
    _, a_index = distinct_rows(np.column_stack([parts, X_train[:, ~mask]]))
    _, s_index = distinct_rows(X_train[:, mask])
    # distinct rows are numbered 0, 1, ... in order of first appearance: their first rows, in that order
    return np.unique(a_index, return_index=True)[1], a_index, np.unique(s_index, return_index=True)[1], s_index


def tied_counts_per_part_factored(
    X_train, factor_mask, parts, X_query, labels, n_classes, *, factors=None, chunk_bytes=2**27, blocks=()
):
    """:func:`tied_counts_per_part` for rows that repeat their other columns with a few values of the
    ``factor_mask`` columns, as D_A does (Definition 12 of MC17: each individual's quasi-identifiers with the
    l sensitive values of its group): the search runs over the distinct (part, other columns) rows, about l
    times less work, and the counts are the same.

    Parameters
    ----------
    X_train, parts, X_query, labels, n_classes, chunk_bytes
        As in :func:`tied_counts_per_part`.
    blocks : sequence of (start, stop)
        One-hot blocks of X_train's columns (:func:`kneighbors`); those of the ``factor_mask`` columns are
        left to the exact part of the search.
    factor_mask : (p,) bool
        The columns that vary among the rows of one individual (the sensitive attribute's encoding).
    factors : tuple, optional
        :func:`factor_rows` of these rows (or of the same rows with other column weights), when known.

    Returns
    -------
    counts : int array of shape (P, n_query, n_classes)
    """
    X_train, X_query = _check_pair(X_train, X_query)
    mask, parts = np.asarray(factor_mask, dtype=bool), np.asarray(parts, dtype=np.intp)
    a_first, a_index, s_first, s_index = factor_rows(X_train, mask, parts) if factors is None else factors
    layout_parts = _part_layout(X_train[a_first][:, ~mask], parts[a_first], blocks_within(blocks, ~mask))
    S_train = X_train[s_first][:, mask]
    A_query, S_query = X_query[:, ~mask], X_query[:, mask]
    rows_of = np.argsort(a_index, kind="stable")
    starts = np.searchsorted(a_index[rows_of], np.arange(len(a_first) + 1))
    rows_by_a = (rows_of, starts, np.diff(starts))

    def nearest(start, stop):
        return _factored_nearest_per_part(
            layout_parts, S_train, rows_by_a, s_index, A_query[start:stop], S_query[start:stop]
        )

    step = _rows_per_chunk(layout_parts[3].width, chunk_bytes)
    return _prefixes(nearest, len(layout_parts[2]) - 1, len(X_query), step, _class_counts(labels, n_classes), np.add)
