"""k-anonymity by containment (k-AC) and the counts FSAC's feature selectors rank features by.

A binary data matrix ``X`` (rows: entities, columns: features; dense, pandas or scipy.sparse) is
projected on a feature subset ``S``. The containment set of a row is the set of its features in ``S``
that hold a 1 (Definition 3 of FSAC). A row satisfies k-AC when at least ``k`` rows, itself
included, contain its containment set (Definition 4): the Table 1 example of the paper counts u1 and
the three rows u2, u4, u5 that contain it, so u1 is 4-AC. ``AC`` of a row is the largest such ``k``,
``AC`` of the data set the smallest over its rows (Definitions 5-6); an empty feature set gives
``AC = N``.

Every count is taken over the distinct projected rows ("patterns"), never over rows or row pairs:
``AC`` of a pattern is the sum of the multiplicities of the patterns that contain it, HamDist and
DistCnt (Definitions 7-9) come in closed form from per-feature and per-pattern class counts.

The selectors built on these counts live with the learners, each returning this module's :class:`Selection`
``(features, ac)``: Algorithm 1's ``maximal`` in :mod:`privnb.learn.maximal_selection`; Algorithm 2's
``greedy_hamdist``, Algorithm 3's ``greedy_distcnt``, the CM baseline ``greedy_cm``, Definition 6's
``maximal_feasible`` and ``ContainmentSelector`` (their scikit-learn face) in :mod:`privnb.learn.feature_selection`.
``constraint="k-anonymity"`` gives the paper's k-anonymity baselines of Section 5.2.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privnb._docstrings import shared_doc
from privnb.validation import check_int

CONSTRAINTS = ("k-ac", "k-anonymity")


"""Privacy constraints a selector can enforce on the projected data."""


_PAIRWISE_BLOCK = 1 << 22  # entries of one dense pattern-by-pattern block (4 MiB of bool, its products 16-32)


class Selection(NamedTuple):
    """A selected feature set and the anonymity by containment its projection reaches.

    ``features`` holds sorted column indices (the selection order is in ``order``); ``ac`` is
    ``AC`` of the projected data (Definition 6 of FSAC), ``N`` for the empty set.
    """

    features: np.ndarray
    ac: int
    order: np.ndarray


def check_binary(X) -> sp.csr_array:
    """Return ``X`` as a CSR array of 0/1 ``int32`` values, or raise a ValueError naming a bad column.

    Parameters
    ----------
    X : array-like, pandas.DataFrame or scipy.sparse matrix of shape (n_rows, n_features)
        Entries must be 0/1 or booleans.
    """
    names = list(X.columns) if isinstance(X, pd.DataFrame) else None
    if names is not None:
        for index, (name, dtype) in enumerate(X.dtypes.items()):
            if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
                raise ValueError(
                    f"X must be binary (0/1): {name!r} (column {index}) has dtype {dtype}; "
                    "binarize it first (e.g. privnb.data.binarize_adult)"
                )
    if sp.issparse(X):
        X = sp.csr_array(X)
        X.sum_duplicates()
        X.eliminate_zeros()
        data, cols = X.data, X.indices
    else:
        dense = np.asarray(X)
        if dense.ndim != 2:
            raise ValueError(f"X must be a 2-D binary matrix (rows x features); got shape {dense.shape}")
        X = sp.csr_array(dense)
        X.eliminate_zeros()
        data, cols = X.data, X.indices
    bad = ~np.isin(data, (1, True))
    if bad.any():
        col = int(cols[np.argmax(bad)])
        label = f"{names[col]!r} (column {col})" if names is not None else f"column {col}"
        raise ValueError(
            f"X must be binary (0/1): {label} holds the value {data[np.argmax(bad)]!r}; "
            "binarize it first (e.g. privnb.data.binarize_adult)"
        )
    return sp.csr_array((np.ones(X.nnz, dtype=np.int32), X.indices, X.indptr), shape=X.shape)


def _check_features(features, n_features: int) -> np.ndarray:
    if features is None:
        return np.arange(n_features)
    cols = np.asarray(features)
    if cols.dtype == bool:
        if cols.shape != (n_features,):
            raise ValueError(f"a boolean feature mask must have {n_features} entries; got {cols.shape}")
        return np.flatnonzero(cols)
    cols = cols.astype(np.int64, copy=False).ravel()
    if cols.size and (cols.min() < 0 or cols.max() >= n_features):
        raise ValueError(f"feature indices must lie in [0, {n_features}); got {cols.min()}..{cols.max()}")
    return cols


def check_labels(y, n_rows: int) -> np.ndarray:
    """Labels as a boolean "positive" vector; y holds two classes, the larger value is positive.

    Parameters
    ----------
    y : array-like
        Two-class labels, one per row.
    n_rows : int
        The number of rows of the matrix they label.

    Returns
    -------
    ndarray of bool
    """
    y = np.asarray(y).ravel()
    if y.shape[0] != n_rows:
        raise ValueError(f"y has {y.shape[0]} labels for {n_rows} rows")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y must hold exactly two classes (1 = positive); got {classes.tolist()}")
    return y == classes[1]


def check_constraint(constraint: str) -> str:
    if constraint not in CONSTRAINTS:
        raise ValueError(f"constraint must be one of {CONSTRAINTS}; got {constraint!r}")
    return constraint


class Patterns:
    """The distinct rows of ``X`` projected on ``features`` (Table 2 of FSAC is one such view).

    Parameters
    ----------
    X : scipy.sparse.csr_array
        The binary matrix (n_rows, n_features).
    features : ndarray of int
        The feature subset to project on.

    Attributes
    ----------
    matrix : scipy.sparse.csr_array of shape (n_patterns, len(features))
    inverse : ndarray of shape (n_rows,)
        Pattern index of each row.
    counts : ndarray of shape (n_patterns,)
        Rows per pattern.
    """

    def __init__(self, X: sp.csr_array, features: np.ndarray):
        projected = X[:, features] if len(features) else sp.csr_array((X.shape[0], 0), dtype=np.int32)
        self._superset = self._membership = None
        if projected.shape[1] == 0:
            self.inverse = np.zeros(X.shape[0], dtype=np.int64)
            self.counts = np.array([X.shape[0]])
            self.matrix = sp.csr_array((1, 0), dtype=np.int32)
        else:
            keys = row_keys(projected)
            _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
            self.inverse = inverse.ravel()
            self.counts = counts
            self.matrix = projected[first]
        self.sizes = np.asarray(self.matrix.sum(axis=1)).ravel()

    def split(self, holds: np.ndarray) -> Patterns:
        """The patterns of these features and one more, which the rows ``holds`` hold: each pattern split in two.

        The same patterns in the same order as :class:`Patterns` of the longer feature list (both sort the
        rows' bits, first feature first). A kept containment relation is carried over without a product: a
        part of pattern q contains a part of pattern p when q contained p and q's part holds the new feature
        wherever p's does.

        Parameters
        ----------
        holds : ndarray of bool, shape (n_rows,)
            Whether each row holds the new feature.
        """
        bits, inverse, counts = np.unique(2 * self.inverse + holds, return_inverse=True, return_counts=True)
        parent, bit = bits // 2, (bits % 2).astype(bool)
        out = copy.copy(self)
        out.inverse, out.counts, out.sizes = inverse.ravel(), counts, self.sizes[parent] + bit
        column = sp.csr_array(bit[:, None].astype(self.matrix.dtype))
        out.matrix = sp.hstack([self.matrix[parent], column], format="csr")
        out._superset = out._membership = None
        if self._superset is not None and len(bits) ** 2 <= _PAIRWISE_BLOCK:
            parts = np.bincount(parent, minlength=self.n_patterns)  # every pattern has one or two parts
            kept = np.repeat(np.repeat(self._superset, parts, axis=0), parts, axis=1)  # [parent][:, parent]
            out._superset = kept & (~bit[:, None] | bit[None, :])
        return out

    @property
    def n_patterns(self) -> int:
        return self.counts.size

    def group_sums(self, values) -> np.ndarray | sp.csr_array:
        """Sum ``values`` (rows x columns, dense or sparse) over the rows of each pattern."""
        if self._membership is None:  # patterns x rows, one 1 per row: built once per set of patterns
            self._membership = sp.csr_array(
                (np.ones(self.inverse.size), (self.inverse, np.arange(self.inverse.size))),
                shape=(self.n_patterns, self.inverse.size),
            )
        return self._membership @ values

    def superset_sums(self, weights) -> np.ndarray:
        """``out[p] = sum of weights[q] over the patterns q that contain pattern p`` (q >= p).

        ``weights`` is (n_patterns,) or (n_patterns, r), dense or sparse. Pattern ``q`` contains ``p``
        when their common ones number ``|p|``; the relation is built in blocks of rows of ``p``.
        """
        one_d = not sp.issparse(weights) and np.ndim(weights) == 1
        w, dtype = _exact_weights(weights.reshape(-1, 1) if one_d else weights)
        m = self.n_patterns
        if m * m <= _PAIRWISE_BLOCK:
            if self._superset is None:
                self._superset = self._containment_block(slice(0, m))
            out = self._superset.astype(dtype) @ w
        else:
            step = max(1, _PAIRWISE_BLOCK // m)
            blocks = (self._containment_block(slice(s, s + step)) for s in range(0, m, step))
            out = np.vstack([block.astype(dtype) @ w for block in blocks])
        return out.ravel() if one_d else out

    def _containment_block(self, rows: slice) -> np.ndarray:
        """Whether pattern q contains pattern p, for the rows p of ``rows`` and every q (bool)."""
        common = (self.matrix[rows] @ self.matrix.T).toarray()
        return common == self.sizes[rows, None]


def _exact_weights(weights):
    """(dense weights, the dtype a 0/1 relation is multiplied by them in): single precision when they are whole
    numbers whose sums stay below 2^24 (every sum is then exact, the same as in double precision), else double.
    """
    dense = _dense(weights)
    if np.all(dense == np.rint(dense)) and np.abs(dense).sum(axis=0).max(initial=0.0) < 2**24:
        return dense.astype(np.float32), np.float32
    return dense.astype(np.float64), np.float64


def _dense(a) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def row_keys(projected: sp.csr_array, chunk_bytes: int = 1 << 26) -> np.ndarray:
    """One exact, hashable key per row: the row's bits packed into a fixed-width byte string.

    Parameters
    ----------
    projected : scipy.sparse.csr_array
        A binary matrix.
    chunk_bytes : int
        Memory per packing chunk.

    Returns
    -------
    ndarray
        One key per row.
    """
    n, d = projected.shape
    width = (d + 7) // 8
    step = max(1, chunk_bytes // max(d, 1))
    packed = np.empty((n, width), dtype=np.uint8)
    for start in range(0, n, step):  # blocks of rows bound the dense temporary
        block = projected[start : start + step].astype(bool).toarray()
        packed[start : start + step] = np.packbits(block, axis=1)
    return np.ascontiguousarray(packed).view(np.dtype((np.void, width))).ravel()


@shared_doc
def entity_ac(X, features=None) -> np.ndarray:
    """``AC`` of every row: the rows, itself included, whose containment set contains its own.

    Definition 4 of FSAC; in Table 1, ``AC(u1) = 4`` (u1, u2, u4, u5).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    features : indices or boolean mask of the feature subset, default all
        The items projected on.

    Returns
    -------
    ndarray of int, shape (n_rows,)
    """
    X = check_binary(X)
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    return np.rint(patterns.superset_sums(patterns.counts.astype(np.float64))).astype(np.int64)[patterns.inverse]


@shared_doc
def dataset_ac(X, features=None) -> int:
    """``AC`` of the projected data set: the smallest ``AC`` of its rows (Definition 6 of FSAC).

    The empty feature set gives the number of rows.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    int
    """
    X = check_binary(X)
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return int(entity_ac(X, features).min())


@shared_doc
def is_k_ac(X, k: int, features=None) -> bool:
    """Whether the projection of ``X`` on ``features`` is k-anonymous by containment (Definition 6).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    k : int
        The anonymity level.
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    bool
    """
    X = check_binary(X)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    return dataset_ac(X, features) >= k


@shared_doc
def entity_anonymity(X, features=None) -> np.ndarray:
    """Classic anonymity of every row: how many rows share its projected vector (Definition 1).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    ndarray of int, shape (n_rows,)
    """
    X = check_binary(X)
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    return patterns.counts[patterns.inverse]


@shared_doc
def dataset_anonymity(X, features=None) -> int:
    """The largest ``k`` for which the projection is k-anonymous: its smallest group of equal rows.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    int
    """
    return int(entity_anonymity(X, features).min())


@shared_doc
def is_k_anonymous_binary(X, k: int, features=None) -> bool:
    """Whether the projection of ``X`` on ``features`` is k-anonymous (Definition 1 of FSAC).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    k : int
        The anonymity level.
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    bool
    """
    X = check_binary(X)
    return dataset_anonymity(X, features) >= check_int(k, "k", high=X.shape[0], high_name="the number of rows")


def _class_feature_counts(X: sp.csr_array, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ones_pos = np.asarray(X[positive].sum(axis=0)).ravel().astype(np.float64)
    ones_neg = np.asarray(X[~positive].sum(axis=0)).ravel().astype(np.float64)
    return ones_pos, ones_neg


@shared_doc
def feature_hamdist(X, y) -> np.ndarray:
    """HamDist of every single feature (Definition 8 of FSAC), from per-class counts.

    ``h_f = (a_f (N- - b_f) + (N+ - a_f) b_f) / (N+ N-)`` with ``a_f`` (``b_f``) the positive
    (negative) rows holding feature ``f``: the share of positive-negative pairs that ``f`` tells apart.
    HamDist is modular (Theorem 4.2.1), so ``hamdist(S) = sum of h_f over S``.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}

    Returns
    -------
    ndarray of float, shape (n_features,)
    """
    X = check_binary(X)
    positive = check_labels(y, X.shape[0])
    n_pos, n_neg = positive.sum(), (~positive).sum()
    a, b = _class_feature_counts(X, positive)
    return (a * (n_neg - b) + (n_pos - a) * b) / (n_pos * n_neg)


@shared_doc
def hamdist(X, y, features=None) -> float:
    """Average Hamming distance between positive and negative rows on ``features`` (Definition 8).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    float
    """
    X = check_binary(X)
    cols = _check_features(features, X.shape[1])
    return float(feature_hamdist(X[:, cols], y).sum()) if cols.size else 0.0


@shared_doc
def distcnt(X, y, features=None) -> int:
    """Positive-negative pairs told apart by at least one feature of ``features`` (Definition 9).

    Closed form: ``N+ N- - sum over projected patterns of n+(p) n-(p)``.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    int
    """
    X = check_binary(X)
    positive = check_labels(y, X.shape[0])
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    n_pos = np.bincount(patterns.inverse, weights=positive, minlength=patterns.n_patterns)
    n_neg = patterns.counts - n_pos
    return int(positive.sum() * (~positive).sum() - np.dot(n_pos, n_neg))


@shared_doc
def classification_metric(X, y, features=None) -> int:
    """Iyengar's CM (Definition 2 of FSAC) of the projection, without suppression.

    Each row in the minority class of its group of equal projected rows costs 1: ``sum min(n+, n-)``.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    features : indices or boolean mask, optional
        The feature subset, default all.

    Returns
    -------
    int
    """
    X = check_binary(X)
    positive = check_labels(y, X.shape[0])
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    n_pos = np.bincount(patterns.inverse, weights=positive, minlength=patterns.n_patterns)
    return int(np.minimum(n_pos, patterns.counts - n_pos).sum())
