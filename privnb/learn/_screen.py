"""The single-precision candidate screen of :mod:`privnb.learn.neighbors`: squared distances to every training
row, less the query's own |q|^2, computed fast and only approximately (the candidates are then ranked exactly).

The screen is -2 q.x + |x|^2. One-hot blocks, the nominal attributes of the ``"ibk"`` encoding
(:class:`privnb.learn.encoding.FrameEncoder`), are compared by category code: a block whose rows each hold one
value c in one column adds 2 c^2 when the codes differ and nothing when they agree, so a nominal attribute costs
one byte compare per pair rather than one product per category (Fatality's 24 nominal attributes span 379
of one fold's 384 columns). The other columns are multiplied out, in the same compiled pass when they are few.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # optional: the same count runs in numpy
    numba = None

BLOCK = 32  # training rows per block of the candidate screen
_TILE = 4096  # training rows whose codes the compiled count keeps in cache at once
_ROWS = 2**16  # rows whose block codes are read at once
_INLINE = 16  # dense columns the compiled pass multiplies out itself; more go through a matrix product


def _screen_rows(
    query_dense, train_dense, query_codes, train_codes, block_group, group_costs, shift, out, lows, counts
):
    """The screen of a chunk of queries in one pass (see :func:`screen_rows`), compiled by numba; ``counts``:
    scratch (n_groups, :data:`_TILE`) of unsigned integers wide enough for the number of blocks.
    """
    n_query, n_train = out.shape
    n_dense, n_blocks, n_groups = query_dense.shape[1], query_codes.shape[1], len(group_costs)
    values = np.empty(_TILE, dtype=np.float32)
    for lo in range(0, n_train, _TILE):  # one-dimensional slices in the inner loops: they vectorize
        hi = min(n_train, lo + _TILE)
        width = hi - lo
        for i in range(n_query):
            counts[:, :width] = 0
            for b in range(n_blocks):
                code, tally, row = query_codes[i, b], counts[block_group[b]], train_codes[b, lo:hi]
                for j in range(width):
                    tally[j] += row[j] != code
            row_out, row_shift = out[i, lo:hi], shift[lo:hi]
            for j in range(width):
                values[j] = row_out[j] + row_shift[j]
            for g in range(n_groups):
                tally, cost = counts[g], group_costs[g]
                for j in range(width):
                    values[j] += cost * np.float32(tally[j])
            for k in range(n_dense):
                weight, column = query_dense[i, k], train_dense[k, lo:hi]
                for j in range(width):
                    values[j] += weight * column[j]
            for j in range(width):
                row_out[j] = values[j]
            for block in range(width // BLOCK):
                lowest = values[block * BLOCK]
                for j in range(block * BLOCK + 1, (block + 1) * BLOCK):
                    lowest = values[j] if values[j] < lowest else lowest
                lows[i, lo // BLOCK + block] = lowest


def _screen_rows_numpy(
    query_dense, train_dense, query_codes, train_codes, block_group, group_costs, shift, out, lows, counts
):
    out += shift + query_dense @ train_dense
    for b in range(query_codes.shape[1]):
        out += group_costs[block_group[b]] * (query_codes[:, b, None] != train_codes[b][None, :])
    lows[:] = out.reshape(len(out), -1, BLOCK).min(axis=2)


_kernel = _screen_rows_numpy if numba is None else numba.njit(cache=True, nogil=True)(_screen_rows)


def screen_rows(query_dense, train_dense, query_codes, train_codes, block_group, group_costs, shift, out):
    """``out[i, j] += shift[j] + query_dense[i] . train_dense[:, j] + the sum over blocks b whose codes differ
    (``query_codes[i, b] != train_codes[b, j]``) of ``group_costs[block_group[b]]``, in one pass compiled by
    numba (numpy without it), and the minimum of each :data:`BLOCK` columns of the result.

    Parameters
    ----------
    query_dense, train_dense : float32 arrays (n_query, d) and (d, n_train)
        Columns multiplied out here (few: more go through a matrix product into ``out`` first).
    query_codes, train_codes : unsigned int arrays (n_query, n_blocks) and (n_blocks, n_train), one dtype
        Category codes of the one-hot blocks.
    block_group : int array (n_blocks,)
        Each block's cost group.
    group_costs : float32 array (n_groups,)
        What a differing block of each group adds (2 c^2).
    shift : float32 array (n_train,)
        Added to every query's row.
    out : float32 array (n_query, n_train), n_train a multiple of :data:`BLOCK`
        Updated in place.

    Returns
    -------
    lows : float32 array (n_query, n_train // BLOCK), the minimum of each block of columns of ``out``
    """
    lows = np.empty((len(out), out.shape[1] // BLOCK), dtype=np.float32)
    counts = np.empty((len(group_costs), _TILE), dtype=np.uint8 if query_codes.shape[1] < 256 else np.uint16)
    _kernel(query_dense, train_dense, query_codes, train_codes, block_group, group_costs, shift, out, lows, counts)
    return lows


def block_codes(X, blocks):
    """Each row's category code in each one-hot block of X, and each block's value c (NaN without rows): in a
    one-hot block every row holds one non-zero entry, the same c > 0 in every row. A ValueError says which
    block and rows break that.

    Parameters
    ----------
    X : float array (n, p)
        The rows.
    blocks : sequence of (start, stop)
        The blocks' column ranges.

    Returns
    -------
    codes : uint8 (uint16 for a block wider than 256 columns) array (n_blocks, n)
    values : float array (n_blocks,)
    """
    n, p = X.shape
    member = np.zeros((p, len(blocks)), dtype=np.float32)  # column -> its block
    offset = np.zeros(p, dtype=np.float32)  # column -> its place in its block
    for b, (start, stop) in enumerate(blocks):
        member[start:stop, b] = 1.0
        offset[start:stop] = np.arange(stop - start)
    widest = max((stop - start for start, stop in blocks), default=0)
    codes = np.empty((len(blocks), n), dtype=np.uint8 if widest <= 256 else np.uint16)
    values = np.full(len(blocks), np.nan)
    for lo in range(0, n, _ROWS):  # sums of products with 0/1 entries: exact in single precision
        rows = X[lo : lo + _ROWS]
        nonzero = (rows != 0).astype(np.float32)
        counts = nonzero @ member
        sums = rows @ member.astype(float)  # the one entry, when counts are 1
        if lo == 0:
            values = sums[0].copy()
        bad_rows, bad_blocks = np.nonzero(counts != 1)
        if len(bad_rows):
            b = bad_blocks[0]
            _refuse(blocks[b], f"row {lo + bad_rows[0]} holds {int(counts[bad_rows[0], b])} non-zero entries")
        differ = np.flatnonzero(np.any(sums != values, axis=0) | (values <= 0))
        if len(differ):
            _refuse(blocks[differ[0]], "its values differ or are not positive")
        codes[:, lo : lo + _ROWS] = (nonzero @ (member * offset[:, None])).T
    return codes, values


def _refuse(block, why):
    raise ValueError(
        f"columns {block[0]}:{block[1]} are not a one-hot block ({why}); every row must hold one entry, the same "
        "positive value in every row: pass only the blocks of nominal attributes (blocks=())"
    )


class DistanceScreen:
    """The screen of one training matrix: :meth:`shifted` gives, for a chunk of queries, |q - x|^2 - |q|^2 in
    single precision (shape (n_query, width), +inf on padding) and |q|^2.

    The training rows are padded to ``width``, a multiple of :data:`BLOCK`; ``sq`` holds each row's |x|^2 less
    twice its blocks' c^2 (+inf on padding and hidden rows).

    Parameters
    ----------
    X : float array (n, p)
        The training rows.
    blocks : sequence of (start, stop)
        Column ranges of X that are one-hot blocks (:func:`block_codes`), compared by code; the other
        columns go through the matrix product.
    hide : bool array (n,), optional
        Rows that are not training rows (a caller's padding): never near, and left out of the blocks' checks.
    """

    def __init__(self, X, blocks=(), hide=None):
        X = np.ascontiguousarray(X, dtype=float)
        n, p = X.shape
        shown = np.ones(n, dtype=bool) if hide is None else ~np.asarray(hide, dtype=bool)
        self.width = -(-n // BLOCK) * BLOCK
        self.blocks = sorted((int(start), int(stop)) for start, stop in blocks)
        bounds = [edge for block in self.blocks for edge in block]
        if bounds and (
            bounds[0] < 0
            or bounds[-1] > p
            or any(a >= b for a, b in zip(bounds[::2], bounds[1::2]))
            or any(a > b for a, b in zip(bounds[1:-1:2], bounds[2::2]))
        ):
            raise ValueError(f"blocks {self.blocks} must be disjoint, non-empty column ranges within 0..{p}")
        in_block = np.zeros(p, dtype=bool)
        for start, stop in self.blocks:
            in_block[start:stop] = True
        self._dense = np.flatnonzero(~in_block)
        self._train_dense = np.zeros((len(self._dense), self.width), dtype=np.float32)  # -2 x, column-major
        self._train_dense[:, :n] = -2.0 * X[:, self._dense].T
        self.sq = np.full(self.width, np.inf, dtype=np.float32)
        self.sq[:n] = np.einsum("ij,ij->i", X, X)
        codes, self._values = block_codes(X if hide is None else X[shown], self.blocks)
        self._codes = np.zeros((len(self.blocks), self.width), dtype=codes.dtype)
        self._codes[:, np.flatnonzero(shown)] = codes
        costs, self._block_group = np.unique(2.0 * self._values**2, return_inverse=True)
        self._group_costs = costs.astype(np.float32)
        self.sq[:n] -= (2.0 * self._values**2).sum()
        self.sq[np.flatnonzero(~shown)] = np.inf

    def shifted(self, query):
        """(single-precision |q - x|^2 - |q|^2 of every query row and training row, |q|^2 in double precision,
        the minimum of each :data:`BLOCK` training rows of the first).
        """
        query = np.ascontiguousarray(query, dtype=float)
        query_codes, values = block_codes(query, self.blocks)
        differ = np.flatnonzero(values != self._values) if len(query) else ()
        if len(differ):
            start, stop = self.blocks[differ[0]]
            raise ValueError(
                f"the queries' one-hot block {start}:{stop} holds {values[differ[0]]}, the training rows' "
                f"{self._values[differ[0]]}: encode both with the same encoder and column weights"
            )
        query_dense, train_dense = query[:, self._dense].astype(np.float32), self._train_dense
        if len(self._dense) <= _INLINE:
            d2 = np.zeros((len(query), self.width), dtype=np.float32)
        else:  # many dense columns: a matrix product first
            d2 = query_dense @ train_dense
            query_dense, train_dense = query_dense[:, :0], train_dense[:0]
        codes = np.ascontiguousarray(query_codes.T)
        args = (codes, self._codes, self._block_group, self._group_costs, self.sq, d2)
        lows = screen_rows(query_dense, train_dense, *args)
        return d2, np.einsum("ij,ij->i", query, query), lows


def blocks_within(blocks, keep):
    """The one-hot blocks among the columns a mask keeps, renumbered within them; blocks wholly left out are
    dropped, and a block cut in two raises a ValueError.

    Parameters
    ----------
    blocks : sequence of (start, stop)
        One-hot blocks of the full columns.
    keep : bool array (p,)
        The columns kept.
    """
    keep = np.asarray(keep, dtype=bool)
    new_position = np.cumsum(keep) - 1
    out = []
    for start, stop in blocks:
        kept = keep[start:stop]
        if kept.all():
            out.append((int(new_position[start]), int(new_position[stop - 1]) + 1))
        elif kept.any():
            raise ValueError(f"the column selection cuts the one-hot block {start}:{stop}; keep all of it or none")
    return out
