"""Feature selection under k-anonymity by containment (FSAC): the submodular greedy selectors
(Algorithms 2 and 3, and CM greedy), Maximal on maximal itemsets (Algorithm 1), and
:class:`ContainmentSelector`, a scikit-learn feature selector over them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from privnb.learn.largest_itemsets import largest_itemsets
from privnb.mechanisms.containment import (
    Patterns,
    Selection,
    check_binary,
    check_constraint,
    check_labels,
    dataset_ac,
    distcnt,
    feature_hamdist,
)
from privnb.validation import check_int

_FEASIBILITY_BATCH = 64  # candidate features checked together by the greedy selectors


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


def greedy_submodular(
    X, y, k: int, gains: Callable[[GreedyState, np.ndarray], np.ndarray], *, constraint: str = "k-ac"
) -> Selection:
    """Algorithm 3 of FSAC for any marginal-gain function: add the feasible feature of largest gain.

    Features are tried in decreasing gain, in batches; a feature found infeasible is dropped for good
    (Lemma 2: a superset of an infeasible set is infeasible), so the pick is the exact feasible argmax.
    The selection stops when no feasible feature has a positive gain (ties: the lowest index).

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        The rows' 0/1 features.
    y : array-like
        Two-class labels, one per row (the larger value is positive).
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    gains : callable
        ``gains(state, candidates)``: the marginal gain of each candidate (e.g. :func:`distcnt_gains`).
    constraint : {"k-ac", "k-anonymity"}
        "k-ac" (the paper's method) or "k-anonymity" (its k-anonymity baseline).

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
    alive = np.flatnonzero(support >= k)
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
    return _selection(X, state.selected)


def _selection(X: sp.csr_array, selected) -> Selection:
    order = np.asarray(selected, dtype=np.int64)
    return Selection(np.sort(order), dataset_ac(X, order), order)


def greedy_distcnt(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """Greedy with DistCnt (Algorithm 3 of FSAC): best marginal DistCnt among feasible features.

    DistCnt is monotone submodular (Theorem 4.2.2), so each step is the (1 - 1/e) greedy step. A
    selector that finds no feasible feature returns the empty set with ``ac = N``.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        The rows' 0/1 features.
    y : array-like
        Two-class labels, one per row (the larger value is positive).
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    constraint : {"k-ac", "k-anonymity"}
        "k-ac" (the paper's method) or "k-anonymity" (its k-anonymity baseline).

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """
    return greedy_submodular(X, y, k, distcnt_gains, constraint=constraint)


def greedy_hamdist(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """Greedy with HamDist (Algorithm 2 of FSAC).

    HamDist is modular, so features are sorted once by decreasing HamDist (ties: lowest index) and
    added while the projection stays feasible; the first feature that breaks the constraint ends the
    selection, as in the paper's pseudo-code. Features with zero HamDist (constant columns) are never
    added. No feasible first feature gives the empty set with ``ac = N``.

    Parameters
    ----------
    X, y, k, constraint
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
    order = np.lexsort((np.arange(h.size), -h))
    for feature in order[h[order] > 1e-15]:
        if not state.feasible(np.array([feature]))[0]:
            break
        state.add(feature)
    return _selection(X, state.selected)


def transactions(X) -> list[np.ndarray]:
    """Containment sets of the rows as item lists: the transaction view of Lemma 3 of FSAC."""
    X = check_binary(X)
    return np.split(X.indices, X.indptr[1:-1])


def maximal_itemsets(X, k: int, *, miner: str = "pyfim") -> list[tuple[int, ...]]:
    """Maximal frequent itemsets of the transaction view with minimum support ``k`` (Lemma 3).

    ``miner="pyfim"`` runs Borgelt's FP-growth (``fim.fpgrowth(target="m")``, C code);
    ``miner="mlxtend"`` runs mlxtend's ``fpmax`` (pure Python, for comparison). Both give the same sets.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        The rows' 0/1 features.
    k : int
        The minimum support, 1 <= k <= n_rows.
    miner : {"pyfim", "mlxtend"}
        The miner, as above.

    Returns
    -------
    list of tuple of int
        Each maximal itemset's column indices (sorted), the list in lexicographic order.
    """
    X = check_binary(X)
    k = check_int(k, "k", high=X.shape[0], high_name="the number of rows")
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


MAXIMAL_SEARCHES = ("auto", "largest", "mine-all")
"""How :func:`maximal` finds its candidates: by the data's shape, the exact largest-itemsets search, or mining
every maximal itemset."""


def maximal(
    X,
    y,
    k: int,
    *,
    score: str = "hamdist",
    n_candidates: int = 50,
    miner: str = "pyfim",
    max_items: int | None = None,
    search: str = "auto",
) -> Selection:
    """Maximal (Algorithm 1 of FSAC): the best of the largest maximal frequent itemsets.

    Scores the ``n_candidates`` largest maximal itemsets with support ``>= k`` (feasible by Lemma 3;
    ties: lexicographic order) and returns the one of highest ``score`` ("hamdist" or "distcnt"). The
    paper mines every token and limits only the candidates it scores; its value of that budget was lost
    in the text we have, 50 is our default. No feature with support ``k`` gives the empty set with
    ``ac = N``.

    Both searches below are exact; they differ in what they enumerate. ``search="auto"`` (default) takes
    the one suited to the data's shape: "largest" when the searched features outnumber the rows (PU1's
    tokens), "mine-all" otherwise (Adult's 19 features, where enumerating rows would be slow).
    ``search="largest"`` finds those candidates exactly with
    :func:`privnb.learn.largest_itemsets.largest_itemsets` (row pruning, then branch and bound over the
    itemset size), without enumerating every maximal itemset: on all of PU1's tokens it takes seconds.
    ``search="mine-all"`` mines every maximal itemset with ``miner`` (pyfim or mlxtend) and sorts them:
    the same candidates where it finishes, but on PU1 it does not finish within minutes over all tokens.

    ``max_items`` (default None: all features) restricts the search to that many features of highest
    HamDist (ties: lowest index), the earlier reading that capped PU1 at 20 tokens; its itemsets are
    frequent, hence feasible, and maximal within that universe only.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        The rows' 0/1 features.
    y : array-like
        Two-class labels, one per row (the larger value is positive).
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    score : {"hamdist", "distcnt"}
        How a candidate itemset is scored.
    n_candidates : int, default 50
        How many of the largest maximal itemsets are scored.
    miner : {"pyfim", "mlxtend"}
        The miner of ``search="mine-all"`` (:func:`maximal_itemsets`).
    max_items : int or None
        Restrict the search to this many features of highest HamDist, as above.
    search : {"auto", "largest", "mine-all"}
        How the candidates are found, as above.

    Returns
    -------
    Selection
        The selected features (sorted; ``order``: as added) and ``AC`` of the projection.

    References
    ----------
    .. [1] "Feature Selection for Classification under Anonymity Constraint" (FSAC); the text names
       no authors, venue or year.
    """
    if score not in ("hamdist", "distcnt"):
        raise ValueError(f"score must be 'hamdist' or 'distcnt'; got {score!r}")
    if search not in MAXIMAL_SEARCHES:
        raise ValueError(f"search must be one of {MAXIMAL_SEARCHES}; got {search!r}")
    if int(n_candidates) < 1:
        raise ValueError(f"n_candidates must be a positive integer; got {n_candidates!r}")
    X = check_binary(X)
    h = feature_hamdist(X, y)
    items = np.arange(X.shape[1])
    if max_items is not None:
        if int(max_items) < 1:
            raise ValueError(f"max_items must be a positive integer or None; got {max_items!r}")
        items = np.sort(np.lexsort((items, -h))[: int(max_items)])
    if search == "auto":
        search = "largest" if len(items) > X.shape[0] else "mine-all"
    if search == "largest":
        found = largest_itemsets(X[:, items], k, int(n_candidates))
    else:
        found = sorted(maximal_itemsets(X[:, items], k, miner=miner), key=lambda s: (-len(s), s))
    candidates = [tuple(items[list(s)]) for s in found][: int(n_candidates)]
    if not candidates:
        return _selection(X, [])
    if score == "hamdist":
        values = [h[list(c)].sum() for c in candidates]
    else:
        values = [distcnt(X, y, list(c)) for c in candidates]
    return _selection(X, list(candidates[int(np.argmax(values))]))


CONTAINMENT_SELECTORS = {
    "maximal": lambda X, y, s: maximal(
        X, y, s.k, score=s.score, n_candidates=s.n_candidates, miner=s.miner, max_items=s.max_items, search=s.search
    ),
    "greedy-hamdist": lambda X, y, s: greedy_hamdist(X, y, s.k, constraint=s.constraint),
    "greedy-distcnt": lambda X, y, s: greedy_distcnt(X, y, s.k, constraint=s.constraint),
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
        score: str = "hamdist",
        n_candidates: int = 50,
        miner: str = "pyfim",
        max_items: int | None = None,
        search: str = "largest",
    ):
        self.k = k
        self.method = method
        self.constraint = constraint
        self.score = score
        self.n_candidates = n_candidates
        self.miner = miner
        self.max_items = max_items
        self.search = search

    def fit(self, X, y):
        """Select the features of ``X`` under the anonymity constraint.

        Parameters
        ----------
        X : binary matrix (n_rows, n_features), dense or scipy.sparse
            The training rows' 0/1 features.
        y : array-like
            Two-class labels, one per row (the larger value is positive).
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


def greedy_cm(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """CM greedy of FSAC (Section 5.2): Algorithm 3 with the decrease of Iyengar's CM as the gain.

    CM never grows when groups split, so the gain is non-negative; the selection stops when no
    feasible feature lowers CM, which is why this baseline keeps few features.

    Parameters
    ----------
    X, y, k, constraint
        As in :func:`greedy_distcnt`.
    """
    return greedy_submodular(X, y, k, cm_gains, constraint=constraint)
