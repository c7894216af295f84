"""Every feature-selection method of FSAC as a training view: an estimator that protects or selects on the
training fold, then fits the linear SVM (:mod:`.svm`), scored by its test AUC (Section 5.2 of FSAC).

- :class:`SelectorSVM`: a selector (Maximal, Greedy-HamDist / DistCnt, CM greedy, the k-anonymity twins) picks
  features on the training fold under the privacy constraint; the test fold is projected on them;
- :class:`AllFeaturesSVM`: every feature (the full feature set, or a release protected before the folds);
- :class:`FlippedSVM`: randomized flipping (RF) of the training fold;
- :class:`DPReleaseSVM`: a differentially private selection and noisy table of the training fold.

The randomized views (RF, DP) of one fold and run draw, in turn, from ONE generator seeded with the run's seed,
in the order the views are listed: :class:`RunStream` holds it (and the flipped training fold the tuned and
the C = 1 SVM share), so a batch of views run in order by :func:`privnb.experiments.run_folds` draws exactly
the random numbers the paper's runner drew.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.experiments.feature_selection._svm import (
    C_GRID,
    CLASSIFIER,
    CONSTANT_AUC,
    auc_or_nan,
    fit_svm,
    untrainable,
)
from privnb.experiments.folds import FoldData, Score
from privnb.learn.feature_selection import STOP_RULES, greedy_cm, greedy_distcnt, greedy_hamdist
from privnb.learn.maximal_selection import maximal
from privnb.mechanisms.dp_release import dp_select_release, dp_table_release
from privnb.mechanisms.flipping import randomized_flipping

SELECTORS = {
    "maximal": lambda X, y, k, o: maximal(X, y, k, max_items=o.get("max_items")),
    "greedy-hamdist": lambda X, y, k, o: greedy_hamdist(X, y, k, stop=o.get("stop", STOP_RULES[0])),
    "greedy-distcnt": lambda X, y, k, o: greedy_distcnt(X, y, k, stop=o.get("stop", STOP_RULES[0])),
    "cm-greedy": lambda X, y, k, o: greedy_cm(X, y, k, stop=o.get("stop", STOP_RULES[0])),
    "k-anonymity-hamdist": lambda X, y, k, o: greedy_hamdist(
        X, y, k, constraint="k-anonymity", stop=o.get("stop", STOP_RULES[0])
    ),
    "k-anonymity-distcnt": lambda X, y, k, o: greedy_distcnt(
        X, y, k, constraint="k-anonymity", stop=o.get("stop", STOP_RULES[0])
    ),
}
"""Deterministic selectors by method name (the rows of Tables 4-6 of FSAC): ``(X, y, k, options)``; options
``max_items`` (Maximal's budget) and ``stop`` (the greedy selectors' rule, :data:`privnb.learn.STOP_RULES`; default
the paper's "first-infeasible")."""

GREEDY_SELECTORS = tuple(m for m in SELECTORS if m != "maximal")
"""The selectors a stopping rule applies to: both greedies, CM greedy and the two k-anonymity baselines."""

DP_METHODS = {"laplace-dp": "laplace", "exponential-dp": "exponential", "laplace-dp-paper": "laplace-paper"}
"""DP method names and the selection mechanism of :func:`privnb.mechanisms.dp_select_release` they run.
"laplace-dp-paper" is the paper's text read literally: NOT epsilon-DP as booked."""

METHODS = (*SELECTORS, "rf", "full", *DP_METHODS, "majority")
"""Every method name :func:`evaluate_methods` knows, in the paper's table order, and the majority-class
baseline (a constant score: AUC 0.5)."""

LABELS = {
    "maximal": "Maximal",
    "greedy-hamdist": "Greedy-HamDist",
    "greedy-distcnt": "Greedy-DistCnt",
    "cm-greedy": "CM Greedy",
    "rf": "RF",
    "k-anonymity-hamdist": "k-anonymity HamDist",
    "k-anonymity-distcnt": "k-anonymity DistCnt",
    "full": "Full-Feature-Set",
    "laplace-dp": "Laplace-DP",
    "exponential-dp": "Exponential-DP",
    "laplace-dp-paper": "Laplace-DP (paper's reading, not ε-DP as booked)",
    "majority": "Majority (constant score)",
}
"""Row labels of the paper's tables."""


class RunStream:
    """The generator the randomized views of one fold and run draw from in turn, and what they share.

    One generator per seed (the run's seed of the fold, ``int``): the first view to ask for it creates it, the
    next ones continue its stream. :meth:`memo` keeps a value the views of one fold and run share (the flipped
    training fold of the tuned and the C = 1 SVM). scikit-learn's ``clone`` copies a view's parameters; a
    stream is not copied, so the views of one batch keep sharing it. A stream belongs to one run of
    :func:`privnb.experiments.run_folds`; make a new one for each.
    """

    def __init__(self):
        self._runs: dict[int, tuple[np.random.RandomState, dict]] = {}

    def __deepcopy__(self, memo) -> RunStream:
        return self

    def _run(self, seed) -> tuple[np.random.RandomState, dict]:
        if not isinstance(seed, (int, np.integer)):
            return check_random_state(seed), {}
        if int(seed) not in self._runs:
            self._runs[int(seed)] = (np.random.RandomState(int(seed)), {})
        return self._runs[int(seed)]

    def generator(self, seed) -> np.random.RandomState:
        """The generator of ``seed`` (an int: shared; a RandomState or None: as ``check_random_state``).

        Parameters
        ----------
        seed : int, RandomState or None
            The view's ``random_state``.

        Returns
        -------
        RandomState
        """
        return self._run(seed)[0]

    def memo(self, seed, key, make: Callable[[], object]):
        """The value ``make()`` gave the first view of ``seed`` that asked for ``key``.

        Parameters
        ----------
        seed : int, RandomState or None
            The view's ``random_state`` (values are shared only under an int).
        key : hashable
            What the value is.
        make : callable
            Computes it, drawing from :meth:`generator` as needed.

        Returns
        -------
        object
        """
        values = self._run(seed)[1]
        if key not in values:
            values[key] = make()
        return values[key]


class _SVMView(ClassifierMixin, BaseEstimator):
    """The linear SVM on the rows a view trains on; ``facts_`` are the view's other measured values."""

    def _fit_svm(self, X, y, random_state, merge_repeats=False) -> None:
        self.note_ = untrainable(X, y)
        fit = dict(c_grid=self.c_grid, merge_repeats=merge_repeats, random_state=random_state)
        self.svm_ = None if self.note_ else fit_svm(X, y, **fit)
        self.classes_ = np.unique(y)

    def test_view(self, X, y):
        """The test rows and labels the SVM is scored on (the view's columns of the raw test fold).

        Parameters
        ----------
        X : sparse matrix
            The raw test rows.
        y : array
            Their labels.

        Returns
        -------
        (matrix, array)
        """
        columns = getattr(self, "columns_", None)
        return (X if columns is None else X[:, columns]), y

    def decision_function(self, X):
        """The SVM's decision values on raw rows (0 for every row when it could not be trained).

        Parameters
        ----------
        X : sparse matrix
            Raw rows.

        Returns
        -------
        array of float
        """
        rows, _ = self.test_view(X, np.zeros(X.shape[0]))
        return np.zeros(X.shape[0]) if self.svm_ is None else self.svm_.decision_function(rows)

    def predict(self, X):
        """The SVM's class on raw rows.

        Parameters
        ----------
        X : sparse matrix
            Raw rows.

        Returns
        -------
        array
        """
        return np.where(self.decision_function(X) > 0, self.classes_[-1], self.classes_[0])


@shared_doc
class SelectorSVM(_SVMView):
    """A deterministic selector of :data:`SELECTORS` on the training fold, then the SVM on its features.

    Parameters
    ----------
    method : str
        A key of :data:`SELECTORS`.
    k : int
        The anonymity level (k-AC, or k-anonymity for the twins).
    max_items : int or None
        Maximal's budget (None: every feature).
    stop : {"first-infeasible", "best-feasible"}
        The greedy selectors' stopping rule (:data:`privnb.learn.STOP_RULES`; Maximal has none).
    c_grid : sequence of float
        The SVM's values of C.
    random_state : int, RandomState or None
        Draws the SVM's validation split.
        {random_state}
    """

    def __init__(self, method, k, *, max_items=None, stop=STOP_RULES[0], c_grid=C_GRID, random_state=None):
        self.method = method
        self.k = k
        self.max_items = max_items
        self.stop = stop
        self.c_grid = c_grid
        self.random_state = random_state

    def fit(self, X, y):
        """Select features on ``X``, ``y`` (binary CSR rows, labels 0/1) and fit the SVM on them.

        Parameters
        ----------
        X : sparse matrix
            The training fold's binary rows (CSR).
        y : array of int
            Their labels 0/1.

        Returns
        -------
        self
        """
        selection = SELECTORS[self.method](X, y, self.k, {"max_items": self.max_items, "stop": self.stop})
        self.selection_, self.columns_ = selection, selection.features
        self.facts_ = {"n_features": selection.features.size, "ac": selection.ac}
        self._fit_svm(X[:, selection.features], y, self.random_state)
        return self


@shared_doc
class AllFeaturesSVM(_SVMView):
    """The SVM on every feature of its rows: the full feature set, or a release protected before the folds.

    Parameters
    ----------
    c_grid : sequence of float
        The SVM's values of C.
    facts : dict, optional
        Further values to report beside the AUC and the feature count (RF's flipped share).
    random_state : int, RandomState or None
        Draws the SVM's validation split.
        {random_state}
    """

    def __init__(self, *, c_grid=C_GRID, facts=None, random_state=None):
        self.c_grid = c_grid
        self.facts = facts
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the SVM on every column of ``X``, ``y``.

        Parameters
        ----------
        X : sparse matrix
            The training fold's binary rows (CSR).
        y : array of int
            Their labels 0/1.

        Returns
        -------
        self
        """
        self.facts_ = {"n_features": X.shape[1], **(self.facts or {})}
        self._fit_svm(X, y, self.random_state)
        return self


@shared_doc
class FlippedSVM(_SVMView):
    """RF: the training fold flipped to k-anonymity (:func:`privnb.mechanisms.randomized_flipping`), then the SVM,
    which fits each repeated flipped row once, weighted by its count (``fit_svm(merge_repeats=True)``).

    Parameters
    ----------
    k : int
        Every row shares its flipped vector with at least k - 1 others.
    c_grid : sequence of float
        The SVM's values of C.
    both_folds : bool
        Flip the test fold too ("both-folds" reading), at ``min(k, test rows)``.
    stream : RunStream, optional
        The fold and run's shared generator (default a stream of this view alone).
    random_state : int, RandomState or None
        The run's seed of the fold.
        {random_state}
    """

    def __init__(self, k, *, c_grid=C_GRID, both_folds=False, stream=None, random_state=None):
        self.k = k
        self.c_grid = c_grid
        self.both_folds = both_folds
        self.stream = stream
        self.random_state = random_state

    def fit(self, X, y):
        """Flip ``X`` (the flip is shared with the other SVM setting of this fold and run) and fit the SVM.

        Parameters
        ----------
        X : sparse matrix
            The training fold's binary rows (CSR).
        y : array of int
            Their labels 0/1.

        Returns
        -------
        self
        """
        self.stream_ = self.stream if self.stream is not None else RunStream()
        rng = self.stream_.generator(self.random_state)
        key = ("rf", self.k, self.both_folds)
        flipped = self.stream_.memo(self.random_state, key, lambda: randomized_flipping(X, self.k, random_state=rng))
        self.facts_ = {"n_features": X.shape[1], "flipped_share": flipped.flipped_share}
        self._fit_svm(flipped.X, y, rng, merge_repeats=True)
        return self

    def test_view(self, X, y):
        """The raw test rows, or (``both_folds``) the test rows flipped with the run's generator.

        Parameters
        ----------
        X : sparse matrix
            The raw test rows.
        y : array
            Their labels.

        Returns
        -------
        (matrix, array)
        """
        if not self.both_folds:
            return X, y
        rng = self.stream_.generator(self.random_state)
        return randomized_flipping(X, min(self.k, X.shape[0]), random_state=rng).X, y


@shared_doc
class DPReleaseSVM(_SVMView):
    """A DP baseline: features chosen with ``epsilon / 2`` and their noisy table released with the rest
    (:func:`privnb.mechanisms.dp_select_release`), the SVM trained on the released rows.

    Parameters
    ----------
    mechanism : str
        The selection mechanism ("laplace", "exponential", "laplace-paper").
    epsilon : float
        The privacy budget of the release.
    dp_k : int
        The number of features picked is what Greedy-HamDist selects at this k on the training fold.
    c_grid : sequence of float
        The SVM's values of C.
    both_folds : bool
        Test on a noisy table of the test fold too ("both-folds" reading), released with ``epsilon / 2``.
    stream : RunStream, optional
        The fold and run's shared generator (default a stream of this view alone).
    random_state : int, RandomState or None
        The run's seed of the fold.
        {random_state}
    """

    def __init__(self, mechanism, epsilon, *, dp_k=5, c_grid=C_GRID, both_folds=False, stream=None, random_state=None):
        self.mechanism = mechanism
        self.epsilon = epsilon
        self.dp_k = dp_k
        self.c_grid = c_grid
        self.both_folds = both_folds
        self.stream = stream
        self.random_state = random_state

    def fit(self, X, y):
        """Release a DP table of ``X``, ``y`` and fit the SVM on its rows.

        Parameters
        ----------
        X : sparse matrix
            The training fold's binary rows (CSR).
        y : array of int
            Their labels 0/1.

        Returns
        -------
        self
        """
        self.stream_ = self.stream if self.stream is not None else RunStream()
        rng = self.stream_.generator(self.random_state)
        n_dp = self.stream_.memo(
            self.random_state, ("dp-features", self.dp_k), lambda: max(1, greedy_hamdist(X, y, self.dp_k).features.size)
        )
        release = dp_select_release(X, y, n_dp, self.epsilon, mechanism=self.mechanism, random_state=rng)
        self.columns_ = release.features
        self.facts_ = {"n_features": release.features.size}
        self._fit_svm(release.X, release.y, rng)
        return self

    def test_view(self, X, y):
        """The test fold's released columns, or (``both_folds``) a noisy table of them.

        Parameters
        ----------
        X : sparse matrix
            The raw test rows.
        y : array
            Their labels.

        Returns
        -------
        (matrix, array)
        """
        if not self.both_folds:
            return X[:, self.columns_].toarray(), y
        rng = self.stream_.generator(self.random_state)
        return dp_table_release(X, y, self.columns_, self.epsilon / 2, random_state=rng)


def auc_scores(fitted: _SVMView, data: FoldData) -> list[Score]:
    """A fitted view's test AUC (0.5 with a note when its SVM could not be trained), then its ``facts_``.

    Parameters
    ----------
    fitted : estimator of this module
        Fitted on ``data``'s training fold.
    data : FoldData
        The fold.

    Returns
    -------
    list of Score
        "auc", "n_features" and the view's other facts ("ac", "flipped_share"), classifier "linear-svm".
    """
    X, y = fitted.test_view(data.X_test, data.y_test)
    auc = CONSTANT_AUC if fitted.svm_ is None else auc_or_nan(y, fitted.svm_.decision_function(X))
    facts = [Score(CLASSIFIER, metric, float(value)) for metric, value in fitted.facts_.items()]
    return [Score(CLASSIFIER, "auc", auc, fitted.note_), *facts]
