"""Feature selection under k-anonymity by containment (FSAC): the submodular greedy selectors
(Algorithms 2 and 3, and CM greedy), Maximal on maximal itemsets (Algorithm 1), and
:class:`ContainmentSelector`, a scikit-learn feature selector over them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from privnb._docstrings import shared_doc
from privnb.learn.maximal_selection import maximal, selection_of
from privnb.mechanisms.containment import (
    Patterns,
    Selection,
    check_binary,
    check_constraint,
    check_labels,
    feature_hamdist,
)
from privnb.validation import check_int

_FEASIBILITY_BATCH = 64  # candidate features checked together by the greedy selectors

STOP_RULES = ("first-infeasible", "best-feasible")
"""How a greedy selector of FSAC ends (Algorithms 2 and 3, CM greedy and the k-anonymity baselines):

- "first-infeasible" (default, the paper's rule): the best remaining feature (largest gain, ties: lowest index)
  is added while the selection stays feasible; the first best feature that breaks the constraint ends the
  selection (the ``break`` of Algorithm 2, "the terminating condition ... identical" of Algorithm 3). On PU1
  (bare bodies, all 1,099 messages) it gives Table 6's counts exactly;
- "best-feasible": an infeasible feature is skipped and the best feasible one is added, until no feasible
  feature has a positive gain (privnb's earlier reading for Greedy-DistCnt and CM greedy: larger selections)."""


class GreedyState:
    """The selected set, its patterns and the per-pattern class counts a greedy step needs.

    Parameters
    ----------
    X : scipy.sparse.csr_array
        The binary matrix (n_rows, n_features), as :func:`~privnb.mechanisms.containment.check_binary` gives it.
    positive : ndarray of bool
        Whether each row is of the positive class.
    k : int
        The anonymity parameter.
    constraint : {"k-ac", "k-anonymity"}
        The constraint :meth:`feasible` keeps.
    """

    def __init__(self, X: sp.csr_array, positive: np.ndarray, k: int, constraint: str):
        self.X, self.positive, self.k, self.constraint = X, positive, k, constraint
        self.columns = sp.csc_array(X)  # candidates are columns: sliced from a CSC copy
        self.columns_pos = sp.csc_array(X.multiply(positive[:, None].astype(np.int32)))
        self.selected: list[int] = []
        self.patterns = Patterns(X, np.array([], dtype=np.int64))

    def add(self, feature: int) -> None:
        self.selected.append(int(feature))
        self.patterns = self.patterns.split(self.columns[:, [int(feature)]].toarray().ravel() != 0)

    def pattern_counts(self, candidates: np.ndarray):
        """Per pattern: rows, positive rows; per pattern and candidate: rows and positive rows with it."""
        p = self.patterns
        n = p.counts.astype(np.float64)
        n_pos = np.bincount(p.inverse, weights=self.positive, minlength=p.n_patterns)
        ones = sp.csr_array(p.group_sums(self.columns[:, candidates]))
        ones_pos = sp.csr_array(p.group_sums(self.columns_pos[:, candidates]))
        return n, n_pos, ones, ones_pos

    def feasible(self, candidates: np.ndarray) -> np.ndarray:
        """Whether adding each candidate keeps the constraint (given that the current set keeps it).

        Under k-AC only rows holding the candidate change: such a row in pattern ``p`` is contained by
        the rows holding the candidate in the patterns that contain ``p`` (Lemma 2 keeps the others).
        Under k-anonymity every pattern splits into the rows with and without the candidate.
        """
        if candidates.size == 0:
            return np.zeros(0, dtype=bool)
        ones = self.patterns.group_sums(self.columns[:, candidates])
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

    Parameters
    ----------
    state : GreedyState
        The current selection.
    candidates : int ndarray
        The candidate features' column indices.
    """
    n, n_pos, ones, ones_pos = state.pattern_counts(candidates)
    a = ones_pos
    b = sp.csr_array(ones - ones_pos)
    n_neg = n - n_pos
    return n_neg @ a + n_pos @ b - 2.0 * np.asarray(a.multiply(b).sum(axis=0)).ravel()


def check_stop(stop: str) -> str:
    """``stop`` if it is one of :data:`STOP_RULES`, else a ValueError saying which are.

    Parameters
    ----------
    stop : str
        A stopping rule.
    """
    if stop not in STOP_RULES:
        raise ValueError(f"stop must be one of {STOP_RULES}; got {stop!r}")
    return stop


@shared_doc
def greedy_submodular(
    X,
    y,
    k: int,
    gains: Callable[[GreedyState, np.ndarray], np.ndarray],
    *,
    constraint: str = "k-ac",
    stop: str = "first-infeasible",
) -> Selection:
    """Algorithm 3 of FSAC for any marginal-gain function: add the feature of largest gain while feasible.

    ``stop="first-infeasible"`` (the paper's rule, :data:`STOP_RULES`): each step takes the feature of largest
    marginal gain among all features not selected (ties: the lowest index); the selection ends when that
    feature breaks the constraint or no feature has a positive gain. ``stop="best-feasible"``: features are
    tried in decreasing gain, in batches; a feature found infeasible is dropped for good (Lemma 2: a superset of
    an infeasible set is infeasible), so each pick is the exact feasible argmax, and the selection ends when no
    feasible feature has a positive gain.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    gains : callable
        ``gains(state, candidates)``: the marginal gain of each candidate (e.g. :func:`distcnt_gains`).
    constraint : {"k-ac", "k-anonymity"}
        "k-ac" (the paper's method) or "k-anonymity" (its k-anonymity baseline).
    stop : {"first-infeasible", "best-feasible"}
        The stopping rule (:data:`STOP_RULES`).

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.
    """
    X = check_binary(X)
    positive = check_labels(y, X.shape[0])
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    state = GreedyState(X, positive, k, check_constraint(constraint))
    support = np.asarray(X.sum(axis=0)).ravel()
    if check_stop(stop) == "first-infeasible":
        return _greedy_first_infeasible(state, np.flatnonzero(support > 0), gains)
    return _greedy_best_feasible(state, np.flatnonzero(support >= k), gains)  # support < k: never feasible


def _greedy_best_feasible(state: GreedyState, alive: np.ndarray, gains) -> Selection:
    """Algorithm 3's loop taking the feasible feature of largest gain, in batches (infeasible ones dropped)."""
    while alive.size:
        gain = gains(state, alive)
        order = np.lexsort((alive, -gain))
        order = order[gain[order] > 1e-12]
        chosen, dead = None, []
        for start in range(0, order.size, _FEASIBILITY_BATCH):
            batch = alive[order[start : start + _FEASIBILITY_BATCH]]
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
    return selection_of(state.X, state.selected)


def _greedy_first_infeasible(state: GreedyState, alive: np.ndarray, gains) -> Selection:
    """Algorithm 3's loop under the paper's rule: add the best feature until it is infeasible or gains nothing."""
    while alive.size:
        gain = gains(state, alive)
        best = int(np.argmax(gain))  # the first maximum: the lowest index among ties (alive is sorted)
        if gain[best] <= 1e-12 or not state.feasible(alive[best : best + 1])[0]:
            break
        state.add(alive[best])
        alive = np.delete(alive, best)
    return selection_of(state.X, state.selected)


@shared_doc
def greedy_distcnt(X, y, k: int, *, constraint: str = "k-ac", stop: str = "first-infeasible") -> Selection:
    """Greedy with DistCnt (Algorithm 3 of FSAC): the feature of best marginal DistCnt, while feasible.

    DistCnt is monotone submodular (Theorem 4.2.2), so each step is the (1 - 1/e) greedy step. ``stop``
    says whether the first infeasible best feature ends the selection (the paper's rule) or the best
    feasible feature is taken instead (:data:`STOP_RULES`). A selector that finds no feasible feature
    returns the empty set with ``ac = N``.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array-like
        {binary_labels}
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    constraint : {"k-ac", "k-anonymity"}
        "k-ac" (the paper's method) or "k-anonymity" (its k-anonymity baseline).
    stop : {"first-infeasible", "best-feasible"}
        The stopping rule (:data:`STOP_RULES`).

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """
    return greedy_submodular(X, y, k, distcnt_gains, constraint=constraint, stop=stop)


def greedy_hamdist(X, y, k: int, *, constraint: str = "k-ac", stop: str = "first-infeasible") -> Selection:
    """Greedy with HamDist (Algorithm 2 of FSAC).

    HamDist is modular, so features are sorted once by decreasing HamDist (ties: lowest index) and
    added while the projection stays feasible; under ``stop="first-infeasible"`` the first feature that
    breaks the constraint ends the selection, as in the paper's pseudo-code; under "best-feasible" it is
    skipped and the next one tried (:data:`STOP_RULES`). Features with zero HamDist (constant columns) are
    never added. No feasible first feature gives the empty set with ``ac = N``.

    Parameters
    ----------
    X, y, k, constraint, stop
        As in :func:`greedy_distcnt`.

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """
    X = check_binary(X)
    h = feature_hamdist(X, y)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    state = GreedyState(X, check_labels(y, X.shape[0]), k, check_constraint(constraint))
    if check_stop(stop) == "best-feasible":  # the same order, infeasible features skipped (checked in batches)
        support = np.asarray(X.sum(axis=0)).ravel()
        return _greedy_best_feasible(state, np.flatnonzero((h > 1e-15) & (support >= k)), lambda _s, c: h[c])
    order = np.lexsort((np.arange(h.size), -h))
    for feature in order[h[order] > 1e-15]:
        if not state.feasible(np.array([feature]))[0]:
            break
        state.add(feature)
    return selection_of(X, state.selected)


@shared_doc
def maximal_feasible(X, k: int, order, *, constraint: str = "k-ac") -> Selection:
    """A maximal feasible feature set (Definition 6 of FSAC: the projection is k-AC, and no feature can be added)
    built by trying the features in ``order``: each is added when the selection stays feasible.

    Which maximal set comes out depends on the order: on PU1 these sets span from a few dozen to hundreds of
    tokens, the range Table 6's Maximal sizes fall in. Features left out of ``order`` are never tried, so the
    set is maximal only when ``order`` holds every feature.

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    order : sequence of int
        The column indices in the order they are tried (each at most once).
    constraint : {"k-ac", "k-anonymity"}
        The constraint the selection keeps.

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.
    """
    X = check_binary(X)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
    order = np.asarray(order, dtype=np.int64)
    if order.ndim != 1 or np.unique(order).size != order.size or ((order < 0) | (order >= X.shape[1])).any():
        raise ValueError(f"order must list distinct column indices of X (0..{X.shape[1] - 1}); got {order!r}")
    priority = np.zeros(X.shape[1])
    priority[order] = np.arange(order.size, 0, -1, dtype=np.float64)  # the first tried has the largest "gain"
    state = GreedyState(X, np.zeros(X.shape[0], dtype=bool), k, check_constraint(constraint))  # no class is read
    return _greedy_best_feasible(state, np.sort(order), lambda _state, candidates: priority[candidates])


CONTAINMENT_SELECTORS = {
    "maximal": lambda X, y, s: maximal(
        X, y, s.k, score=s.score, n_candidates=s.n_candidates, miner=s.miner, max_items=s.max_items, search=s.search
    ),
    "greedy-hamdist": lambda X, y, s: greedy_hamdist(X, y, s.k, constraint=s.constraint, stop=s.stop),
    "greedy-distcnt": lambda X, y, s: greedy_distcnt(X, y, s.k, constraint=s.constraint, stop=s.stop),
}
"""The selectors :class:`ContainmentSelector` runs, by name."""


class ContainmentSelector(SelectorMixin, BaseEstimator):
    """Feature selection under anonymity by containment as a scikit-learn transformer.

    Parameters
    ----------
    k : int, default 5
        The anonymity parameter.
    method : {"maximal", "greedy-hamdist", "greedy-distcnt"}
        The selector (:data:`CONTAINMENT_SELECTORS`).
    constraint : {"k-ac", "k-anonymity"}
        The constraint of the greedy methods.
    stop : {"first-infeasible", "best-feasible"}
        The stopping rule of the greedy methods (:data:`STOP_RULES`).
    score, n_candidates, miner, max_items, search
        Passed to :func:`maximal` (here ``search`` defaults to "largest").

    Attributes
    ----------
    features_ : ndarray, the selected column indices
    ac_ : int, ``AC`` of the projected training data
    n_features_in_ : int

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """

    def __init__(
        self,
        k: int = 5,
        method: str = "greedy-distcnt",
        *,
        constraint: str = "k-ac",
        stop: str = "first-infeasible",
        score: str = "hamdist",
        n_candidates: int = 50,
        miner: str = "pyfim",
        max_items: int | None = None,
        search: str = "largest",
    ):
        self.k = k
        self.method = method
        self.constraint = constraint
        self.stop = stop
        self.score = score
        self.n_candidates = n_candidates
        self.miner = miner
        self.max_items = max_items
        self.search = search

    @shared_doc
    def fit(self, X, y):
        """Select the features of ``X`` under the anonymity constraint.

        Parameters
        ----------
        X : binary matrix (n_rows, n_features), dense or scipy.sparse
            The training rows' 0/1 features.
        y : array-like
            {binary_labels}
        """
        if self.method not in CONTAINMENT_SELECTORS:
            raise ValueError(f"method must be one of {sorted(CONTAINMENT_SELECTORS)}; got {self.method!r}")
        # shape, finiteness, n_features_in_ and feature_names_in_; check_binary then converts the original X
        validate_data(self, X, reset=True, accept_sparse=True, dtype=None)
        X = check_binary(X)
        selection = CONTAINMENT_SELECTORS[self.method](X, y, self)
        self.features_, self.ac_ = selection.features, selection.ac
        self.n_features_in_ = X.shape[1]
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # binary CSR matrices (check_binary)
        tags.target_tags.required = True
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.features_] = True
        return mask


def cm_gains(state: GreedyState, candidates: np.ndarray) -> np.ndarray:
    """Decrease of CM when each candidate splits the current groups of equal projected rows.

    A group with ``n+`` positive and ``n-`` negative rows costs ``min(n+, n-)``; splitting it by a
    feature held by ``a`` positive and ``b`` negative rows saves
    ``(|a - b| + |d - (a - b)| - |d|) / 2`` with ``d = n+ - n-`` (zero where ``a = b = 0``).

    Parameters
    ----------
    state : GreedyState
        The current selection.
    candidates : int ndarray
        The candidate features' column indices.
    """
    n, n_pos, ones, ones_pos = state.pattern_counts(candidates)
    diff = sp.csr_array(2 * ones_pos - ones).tocoo()  # a - b on its non-zero entries
    d = (2 * n_pos - n)[diff.row]
    saved = np.abs(diff.data) + np.abs(d - diff.data) - np.abs(d)
    return np.bincount(diff.col, weights=saved, minlength=candidates.size) / 2.0


def greedy_cm(X, y, k: int, *, constraint: str = "k-ac", stop: str = "first-infeasible") -> Selection:
    """CM greedy of FSAC (Section 5.2): Algorithm 3 with the decrease of Iyengar's CM as the gain.

    CM never grows when groups split, so the gain is non-negative; the selection stops when no feature
    lowers CM, or (``stop``, :data:`STOP_RULES`) at the first infeasible best feature (the paper's rule) or
    when no feasible feature lowers CM ("best-feasible"), which is why this baseline keeps few features.

    Parameters
    ----------
    X, y, k, constraint, stop
        As in :func:`greedy_distcnt`.
    """
    return greedy_submodular(X, y, k, cm_gains, constraint=constraint, stop=stop)
