"""k-anonymity by containment (k-AC) and the privacy-aware feature selectors of seed 001.

A binary data matrix ``X`` (rows: entities, columns: features; dense, pandas or scipy.sparse) is
projected on a feature subset ``S``. The containment set of a row is the set of its features in ``S``
that hold a 1 (Definition 3 of seed 001). A row satisfies k-AC when at least ``k`` rows, itself
included, contain its containment set (Definition 4): the Table 1 example of the paper counts u1 and
the three rows u2, u4, u5 that contain it, so u1 is 4-AC. ``AC`` of a row is the largest such ``k``,
``AC`` of the data set the smallest over its rows (Definitions 5-6); an empty feature set gives
``AC = N``.

Every count is taken over the distinct projected rows ("patterns"), never over rows or row pairs:
``AC`` of a pattern is the sum of the multiplicities of the patterns that contain it, HamDist and
DistCnt (Definitions 7-9) come in closed form from per-feature and per-pattern class counts.

The selectors return a :class:`Selection` ``(features, ac)``: :func:`maximal` (Algorithm 1),
:func:`greedy_hamdist` (Algorithm 2) and :func:`greedy_distcnt` (Algorithm 3); ``constraint=
"k-anonymity"`` gives the paper's k-anonymity baselines of Section 5.2. :class:`ContainmentSelector`
wraps them as a scikit-learn feature selector, so a pipeline selects inside each training fold.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

CONSTRAINTS = ("k-ac", "k-anonymity")
"""Privacy constraints a selector can enforce on the projected data."""

_PAIRWISE_BLOCK = 1 << 22  # entries of one dense pattern-by-pattern block (32 MiB of float64)
_FEASIBILITY_BATCH = 64   # candidate features checked together by the greedy selectors


class Selection(NamedTuple):
    """A selected feature set and the anonymity by containment its projection reaches.

    ``features`` holds sorted column indices (the selection order is in ``order``); ``ac`` is
    ``AC`` of the projected data (Definition 6 of seed 001), ``N`` for the empty set.
    """

    features: np.ndarray
    ac: int
    order: np.ndarray


# ----------------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------------

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
                raise ValueError(f"X must be binary (0/1): {name!r} (column {index}) has dtype {dtype}; "
                                 "binarize it first (e.g. privnb.binarize.binarize_adult)")
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
        raise ValueError(f"X must be binary (0/1): {label} holds the value {data[np.argmax(bad)]!r}; "
                         "binarize it first (e.g. privnb.binarize.binarize_adult)")
    return sp.csr_array((np.ones(X.nnz, dtype=np.int32), X.indices, X.indptr), shape=X.shape)


def _check_k(k, n_rows: int) -> int:
    if isinstance(k, bool) or not float(k).is_integer() or not 1 <= k <= n_rows:
        raise ValueError(f"k must be an integer between 1 and the number of rows ({n_rows}); got {k!r}")
    return int(k)


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


def _check_labels(y, n_rows: int) -> np.ndarray:
    """Labels as a boolean "positive" vector; y holds two classes, the larger value is positive."""
    y = np.asarray(y).ravel()
    if y.shape[0] != n_rows:
        raise ValueError(f"y has {y.shape[0]} labels for {n_rows} rows")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y must hold exactly two classes (1 = positive); got {classes.tolist()}")
    return y == classes[1]


def _check_constraint(constraint: str) -> str:
    if constraint not in CONSTRAINTS:
        raise ValueError(f"constraint must be one of {CONSTRAINTS}; got {constraint!r}")
    return constraint


# ----------------------------------------------------------------------------------------------
# distinct projected rows and the containment relation between them
# ----------------------------------------------------------------------------------------------

class Patterns:
    """The distinct rows of ``X`` projected on ``features`` (Table 2 of seed 001 is one such view).

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
        if projected.shape[1] == 0:
            self.inverse = np.zeros(X.shape[0], dtype=np.int64)
            self.counts = np.array([X.shape[0]])
            self.matrix = sp.csr_array((1, 0), dtype=np.int32)
        else:
            keys = _row_keys(projected)
            _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                                  return_counts=True)
            self.inverse = inverse.ravel()
            self.counts = counts
            self.matrix = projected[first]
        self.sizes = np.asarray(self.matrix.sum(axis=1)).ravel()
        self._superset = None

    @property
    def n_patterns(self) -> int:
        return self.counts.size

    def group_sums(self, values) -> np.ndarray | sp.csr_array:
        """Sum ``values`` (rows x columns, dense or sparse) over the rows of each pattern."""
        onehot = sp.csr_array((np.ones(self.inverse.size), (self.inverse, np.arange(self.inverse.size))),
                              shape=(self.n_patterns, self.inverse.size))
        return onehot @ values

    def superset_sums(self, weights) -> np.ndarray:
        """``out[p] = sum of weights[q] over the patterns q that contain pattern p`` (q >= p).

        ``weights`` is (n_patterns,) or (n_patterns, r), dense or sparse. Pattern ``q`` contains ``p``
        when their common ones number ``|p|``; the relation is built in blocks of rows of ``p``.
        """
        one_d = not sp.issparse(weights) and np.ndim(weights) == 1
        w = weights.reshape(-1, 1) if one_d else weights
        m = self.n_patterns
        if m * m <= _PAIRWISE_BLOCK:
            if self._superset is None:
                self._superset = self._containment_block(slice(0, m))
            out = _dense(self._superset @ w)
        else:
            step = max(1, _PAIRWISE_BLOCK // m)
            out = np.vstack([_dense(self._containment_block(slice(s, s + step)) @ w)
                             for s in range(0, m, step)])
        return out.ravel() if one_d else out

    def _containment_block(self, rows: slice) -> np.ndarray:
        common = (self.matrix[rows] @ self.matrix.T).toarray()
        return (common == self.sizes[rows, None]).astype(np.float64)


def _dense(a) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _row_keys(projected: sp.csr_array, chunk_bytes: int = 1 << 26) -> np.ndarray:
    """One exact, hashable key per row: the row's bits packed into a fixed-width byte string."""
    n, d = projected.shape
    width = (d + 7) // 8
    step = max(1, chunk_bytes // max(d, 1))
    packed = np.empty((n, width), dtype=np.uint8)
    for start in range(0, n, step):  # blocks of rows bound the dense temporary
        block = projected[start:start + step].toarray().astype(bool)
        packed[start:start + step] = np.packbits(block, axis=1)
    return np.ascontiguousarray(packed).view(np.dtype((np.void, width))).ravel()


# ----------------------------------------------------------------------------------------------
# anonymity by containment and classic k-anonymity
# ----------------------------------------------------------------------------------------------

def entity_ac(X, features=None) -> np.ndarray:
    """``AC`` of every row: the rows, itself included, whose containment set contains its own.

    Definition 4 of seed 001; in Table 1, ``AC(u1) = 4`` (u1, u2, u4, u5).

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
    features : indices or boolean mask of the feature subset, default all

    Returns
    -------
    ndarray of int, shape (n_rows,)
    """
    X = check_binary(X)
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    return np.rint(patterns.superset_sums(patterns.counts.astype(np.float64))).astype(np.int64)[patterns.inverse]


def dataset_ac(X, features=None) -> int:
    """``AC`` of the projected data set: the smallest ``AC`` of its rows (Definition 6 of seed 001).

    The empty feature set gives the number of rows.
    """
    X = check_binary(X)
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return int(entity_ac(X, features).min())


def is_k_ac(X, k: int, features=None) -> bool:
    """Whether the projection of ``X`` on ``features`` is k-anonymous by containment (Definition 6)."""
    X = check_binary(X)
    k = _check_k(k, X.shape[0])
    return dataset_ac(X, features) >= k


def entity_anonymity(X, features=None) -> np.ndarray:
    """Classic anonymity of every row: how many rows share its projected vector (Definition 1)."""
    X = check_binary(X)
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    return patterns.counts[patterns.inverse]


def dataset_anonymity(X, features=None) -> int:
    """The largest ``k`` for which the projection is k-anonymous: its smallest group of equal rows."""
    return int(entity_anonymity(X, features).min())


def is_k_anonymous_binary(X, k: int, features=None) -> bool:
    """Whether the projection of ``X`` on ``features`` is k-anonymous (Definition 1 of seed 001)."""
    X = check_binary(X)
    return dataset_anonymity(X, features) >= _check_k(k, X.shape[0])


# ----------------------------------------------------------------------------------------------
# class-separation utilities (Definitions 7-9)
# ----------------------------------------------------------------------------------------------

def _class_feature_counts(X: sp.csr_array, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ones_pos = np.asarray(X[positive].sum(axis=0)).ravel().astype(np.float64)
    ones_neg = np.asarray(X[~positive].sum(axis=0)).ravel().astype(np.float64)
    return ones_pos, ones_neg


def feature_hamdist(X, y) -> np.ndarray:
    """HamDist of every single feature (Definition 8 of seed 001), from per-class counts.

    ``h_f = (a_f (N- - b_f) + (N+ - a_f) b_f) / (N+ N-)`` with ``a_f`` (``b_f``) the positive
    (negative) rows holding feature ``f``: the share of positive-negative pairs that ``f`` tells apart.
    HamDist is modular (Theorem 4.2.1), so ``hamdist(S) = sum of h_f over S``.
    """
    X = check_binary(X)
    positive = _check_labels(y, X.shape[0])
    n_pos, n_neg = positive.sum(), (~positive).sum()
    a, b = _class_feature_counts(X, positive)
    return (a * (n_neg - b) + (n_pos - a) * b) / (n_pos * n_neg)


def hamdist(X, y, features=None) -> float:
    """Average Hamming distance between positive and negative rows on ``features`` (Definition 8)."""
    X = check_binary(X)
    cols = _check_features(features, X.shape[1])
    return float(feature_hamdist(X[:, cols], y).sum()) if cols.size else 0.0


def distcnt(X, y, features=None) -> int:
    """Positive-negative pairs told apart by at least one feature of ``features`` (Definition 9).

    Closed form: ``N+ N- - sum over projected patterns of n+(p) n-(p)``.
    """
    X = check_binary(X)
    positive = _check_labels(y, X.shape[0])
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    n_pos = np.bincount(patterns.inverse, weights=positive, minlength=patterns.n_patterns)
    n_neg = patterns.counts - n_pos
    return int(positive.sum() * (~positive).sum() - np.dot(n_pos, n_neg))


def classification_metric(X, y, features=None) -> int:
    """Iyengar's CM (Definition 2 of seed 001) of the projection, without suppression.

    Each row in the minority class of its group of equal projected rows costs 1: ``sum min(n+, n-)``.
    """
    X = check_binary(X)
    positive = _check_labels(y, X.shape[0])
    patterns = Patterns(X, _check_features(features, X.shape[1]))
    n_pos = np.bincount(patterns.inverse, weights=positive, minlength=patterns.n_patterns)
    return int(np.minimum(n_pos, patterns.counts - n_pos).sum())


# ----------------------------------------------------------------------------------------------
# greedy machinery
# ----------------------------------------------------------------------------------------------

class GreedyState:
    """The selected set, its patterns and the per-pattern class counts a greedy step needs."""

    def __init__(self, X: sp.csr_array, positive: np.ndarray, k: int, constraint: str):
        self.X, self.positive, self.k, self.constraint = X, positive, k, constraint
        self.X_pos = sp.csr_array(X.multiply(positive[:, None].astype(np.int32)))
        self.selected: list[int] = []
        self.patterns = Patterns(X, np.array([], dtype=np.int64))

    def add(self, feature: int) -> None:
        self.selected.append(int(feature))
        self.patterns = Patterns(self.X, np.array(self.selected))

    def pattern_counts(self, candidates: np.ndarray):
        """Per pattern: rows, positive rows; per pattern and candidate: rows and positive rows with it."""
        p = self.patterns
        n = p.counts.astype(np.float64)
        n_pos = np.bincount(p.inverse, weights=self.positive, minlength=p.n_patterns)
        ones = sp.csr_array(p.group_sums(self.X[:, candidates]))
        ones_pos = sp.csr_array(p.group_sums(self.X_pos[:, candidates]))
        return n, n_pos, ones, ones_pos

    def feasible(self, candidates: np.ndarray) -> np.ndarray:
        """Whether adding each candidate keeps the constraint (given that the current set keeps it).

        Under k-AC only rows holding the candidate change: such a row in pattern ``p`` is contained by
        the rows holding the candidate in the patterns that contain ``p`` (Lemma 2 keeps the others).
        Under k-anonymity every pattern splits into the rows with and without the candidate.
        """
        if candidates.size == 0:
            return np.zeros(0, dtype=bool)
        ones = self.patterns.group_sums(self.X[:, candidates])
        ones = ones.toarray() if sp.issparse(ones) else np.asarray(ones)
        if self.constraint == "k-ac":
            ac = self.patterns.superset_sums(ones)
            return np.all((ones == 0) | (ac >= self.k - 0.5), axis=0)
        rest = self.patterns.counts[:, None] - ones
        return np.all(((ones == 0) | (ones >= self.k)) & ((rest == 0) | (rest >= self.k)), axis=0)


def distcnt_gains(state: GreedyState, candidates: np.ndarray) -> np.ndarray:
    """Marginal DistCnt of each candidate: pairs of a pattern that the candidate newly tells apart.

    ``sum over patterns p of a (n-(p) - b) + (n+(p) - a) b`` with ``a`` (``b``) the positive
    (negative) rows of ``p`` holding the candidate.
    """
    n, n_pos, ones, ones_pos = state.pattern_counts(candidates)
    a = ones_pos
    b = sp.csr_array(ones - ones_pos)
    n_neg = n - n_pos
    return (n_neg @ a + n_pos @ b - 2.0 * np.asarray(a.multiply(b).sum(axis=0)).ravel())


def greedy_submodular(X, y, k: int, gains: Callable[[GreedyState, np.ndarray], np.ndarray], *,
                      constraint: str = "k-ac") -> Selection:
    """Algorithm 3 of seed 001 for any marginal-gain function: add the feasible feature of largest gain.

    Features are tried in decreasing gain, in batches; a feature found infeasible is dropped for good
    (Lemma 2: a superset of an infeasible set is infeasible), so the pick is the exact feasible argmax.
    The selection stops when no feasible feature has a positive gain (ties: the lowest index).
    """
    X = check_binary(X)
    positive = _check_labels(y, X.shape[0])
    k = _check_k(k, X.shape[0])
    state = GreedyState(X, positive, k, _check_constraint(constraint))
    support = np.asarray(X.sum(axis=0)).ravel()
    alive = np.flatnonzero(support >= k)
    while alive.size:
        gain = gains(state, alive)
        order = np.lexsort((alive, -gain))
        order = order[gain[order] > 1e-12]
        chosen, dead = None, []
        for start in range(0, order.size, _FEASIBILITY_BATCH):
            batch = alive[order[start:start + _FEASIBILITY_BATCH]]
            ok = state.feasible(batch)
            if ok.any():
                first = int(np.argmax(ok))
                dead.extend(batch[:first])
                chosen = int(batch[first])
                break
            dead.extend(batch)
        if chosen is None:
            break
        state.add(chosen)
        alive = np.setdiff1d(alive, np.array(dead + [chosen], dtype=np.int64), assume_unique=True)
    return _selection(X, state.selected)


def _selection(X: sp.csr_array, selected) -> Selection:
    order = np.asarray(selected, dtype=np.int64)
    return Selection(np.sort(order), dataset_ac(X, order), order)


# ----------------------------------------------------------------------------------------------
# the paper's selectors
# ----------------------------------------------------------------------------------------------

def greedy_distcnt(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """Greedy with DistCnt (Algorithm 3 of seed 001): best marginal DistCnt among feasible features.

    DistCnt is monotone submodular (Theorem 4.2.2), so each step is the (1 - 1/e) greedy step. A
    selector that finds no feasible feature returns the empty set with ``ac = N``.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
    y : labels, two classes (the larger is positive)
    k : int, 1 <= k <= n_rows
    constraint : "k-ac" (the paper's method) or "k-anonymity" (its k-anonymity baseline)
    """
    return greedy_submodular(X, y, k, distcnt_gains, constraint=constraint)


def greedy_hamdist(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """Greedy with HamDist (Algorithm 2 of seed 001).

    HamDist is modular, so features are sorted once by decreasing HamDist (ties: lowest index) and
    added while the projection stays feasible; the first feature that breaks the constraint ends the
    selection, as in the paper's pseudo-code. Features with zero HamDist (constant columns) are never
    added. No feasible first feature gives the empty set with ``ac = N``.
    """
    X = check_binary(X)
    h = feature_hamdist(X, y)
    k = _check_k(k, X.shape[0])
    state = GreedyState(X, _check_labels(y, X.shape[0]), k, _check_constraint(constraint))
    order = np.lexsort((np.arange(h.size), -h))
    for feature in order[h[order] > 1e-15]:
        if not state.feasible(np.array([feature]))[0]:
            break
        state.add(feature)
    return _selection(X, state.selected)


def transactions(X) -> list[np.ndarray]:
    """Containment sets of the rows as item lists: the transaction view of Lemma 3 of seed 001."""
    X = check_binary(X)
    return np.split(X.indices, X.indptr[1:-1])


def maximal_itemsets(X, k: int, *, miner: str = "pyfim") -> list[tuple[int, ...]]:
    """Maximal frequent itemsets of the transaction view with minimum support ``k`` (Lemma 3).

    ``miner="pyfim"`` runs Borgelt's FP-growth (``fim.fpgrowth(target="m")``, C code);
    ``miner="mlxtend"`` runs mlxtend's ``fpmax`` (pure Python, for comparison). Both give the same sets.
    """
    X = check_binary(X)
    k = _check_k(k, X.shape[0])
    if miner == "pyfim":
        import fim
        found = fim.fpgrowth([t.tolist() for t in transactions(X)], target="m", supp=-k, report="")
        return sorted(tuple(sorted(int(i) for i in items)) for items, *_ in found)
    if miner == "mlxtend":
        from mlxtend.frequent_patterns import fpmax
        keep = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() >= k)
        if keep.size == 0:
            return []
        frame = pd.DataFrame(X[:, keep].toarray().astype(bool), columns=keep)
        found = fpmax(frame, min_support=(k - 0.5) / X.shape[0], use_colnames=True)
        return sorted(tuple(sorted(int(i) for i in items)) for items in found["itemsets"])
    raise ValueError(f"miner must be 'pyfim' or 'mlxtend'; got {miner!r}")


def maximal(X, y, k: int, *, score: str = "hamdist", n_candidates: int = 50,
            miner: str = "pyfim", max_items: int | None = None) -> Selection:
    """Maximal (Algorithm 1 of seed 001): the best of the largest maximal frequent itemsets.

    Mines the maximal itemsets with support ``>= k`` (feasible by Lemma 3), keeps the
    ``n_candidates`` largest (ties: lexicographic order), and returns the one of highest ``score``
    ("hamdist" or "distcnt"). The paper's value of this budget was lost in the text we have; 50 is
    our default. No feature with support ``k`` gives the empty set with ``ac = N``.

    ``max_items`` mines over that many features of highest HamDist only (ties: lowest index). The
    count of maximal itemsets explodes on text with near-duplicate messages: on PU1 at k = 5 we
    measured 475, 2754 and 7992 maximal itemsets over the top 20, 30 and 40 features, and no answer
    within minutes over all of them. Itemsets of a restricted universe are still frequent, hence
    feasible (Lemma 3); they are maximal within that universe.
    """
    if score not in ("hamdist", "distcnt"):
        raise ValueError(f"score must be 'hamdist' or 'distcnt'; got {score!r}")
    if int(n_candidates) < 1:
        raise ValueError(f"n_candidates must be a positive integer; got {n_candidates!r}")
    X = check_binary(X)
    h = feature_hamdist(X, y)
    items = np.arange(X.shape[1])
    if max_items is not None:
        if int(max_items) < 1:
            raise ValueError(f"max_items must be a positive integer or None; got {max_items!r}")
        items = np.sort(np.lexsort((items, -h))[:int(max_items)])
    itemsets = [tuple(items[list(s)]) for s in maximal_itemsets(X[:, items], k, miner=miner)]
    if not itemsets:
        return _selection(X, [])
    itemsets.sort(key=len, reverse=True)
    candidates = itemsets[:int(n_candidates)]
    if score == "hamdist":
        values = [h[list(c)].sum() for c in candidates]
    else:
        values = [distcnt(X, y, list(c)) for c in candidates]
    return _selection(X, list(candidates[int(np.argmax(values))]))


# ----------------------------------------------------------------------------------------------
# scikit-learn wrapper
# ----------------------------------------------------------------------------------------------

METHODS = {
    "maximal": lambda X, y, s: maximal(X, y, s.k, score=s.score, n_candidates=s.n_candidates,
                                       miner=s.miner, max_items=s.max_items),
    "greedy-hamdist": lambda X, y, s: greedy_hamdist(X, y, s.k, constraint=s.constraint),
    "greedy-distcnt": lambda X, y, s: greedy_distcnt(X, y, s.k, constraint=s.constraint),
}
"""The selectors :class:`ContainmentSelector` runs, by name."""


class ContainmentSelector(SelectorMixin, BaseEstimator):
    """Feature selection under anonymity by containment as a scikit-learn transformer.

    Parameters
    ----------
    k : int, default 5
    method : {"maximal", "greedy-hamdist", "greedy-distcnt"}
    constraint : {"k-ac", "k-anonymity"}, used by the greedy methods
    score, n_candidates, miner, max_items : passed to :func:`maximal`

    Attributes
    ----------
    features_ : ndarray, the selected column indices
    ac_ : int, ``AC`` of the projected training data
    n_features_in_ : int
    """

    def __init__(self, k: int = 5, method: str = "greedy-distcnt", *, constraint: str = "k-ac",
                 score: str = "hamdist", n_candidates: int = 50, miner: str = "pyfim",
                 max_items: int | None = None):
        self.k = k
        self.method = method
        self.constraint = constraint
        self.score = score
        self.n_candidates = n_candidates
        self.miner = miner
        self.max_items = max_items

    def fit(self, X, y):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {sorted(METHODS)}; got {self.method!r}")
        X = check_binary(X)
        selection = METHODS[self.method](X, y, self)
        self.features_, self.ac_ = selection.features, selection.ac
        self.n_features_in_ = X.shape[1]
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.features_] = True
        return mask
