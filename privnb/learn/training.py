"""The papers' training views as scikit-learn meta-estimators.

Each view wraps a classifier and the column roles. ``fit(X, y)`` applies the privacy mechanism to the
training rows only and fits a clone of the classifier on the result; ``predict``,
``decision_function`` and ``predict_proba`` see raw, unprotected rows: the papers' setting "train on
protected data, test on unprotected data" (Section 3 of seed 002, Section 5 of seed 003). So a view
can go straight into :func:`sklearn.model_selection.cross_validate`.

=====================  ===================================================================
OriginalTraining       the original training data D
IdentifyingTraining    D_id: the sensitive column dropped (Definition 13 of seed 002)
AnatomizedTraining     D_A: IT joined with ST, N*l rows (Definitions 11-12 of seed 002)
GeneralizedTraining    k-anonymous generalization (full-domain or Mondrian, privnb.generalize)
=====================  ===================================================================

A new view subclasses :class:`TrainingView` and overrides :meth:`TrainingView.training_view` (and
:meth:`TrainingView.test_view` when test rows need recoding), as ``privnb.pruning.PrunedTraining`` does.

The wrapped classifier receives a DataFrame with the view's columns: put a
:class:`privnb.encoding.FrameEncoder` in front of it in a pipeline. ``X`` may also be a numeric
2-D array (mixed types need a DataFrame): its columns are then named by position, and a column role
may be given as a position.

Estimator checks (``parametrize_with_checks`` on numeric arrays, sensitive column 0, run in
``tests/test_learners.py``): the views pass every check that applies. ``IdentifyingTraining`` fails
``check_classifiers_train`` by design: the check's blobs have two features and the view drops one of
them (the sensitive column), so the 0.83 accuracy bar is out of reach. ``GeneralizedTraining`` is not
run through them: it needs quasi-identifier roles and hierarchies that random arrays do not carry.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import check_array, get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d, validate_data

from privnb.mechanisms.anatomy import anatomize
from privnb.mechanisms.pruning import prune
from privnb.validation import infer_kinds


@dataclass
class TrainingData:
    """What a view hands the wrapped estimator: rows, labels and how many individuals were dropped."""

    X: pd.DataFrame
    y: np.ndarray
    n_suppressed: int = 0


def _estimator_has(attr):
    def check(self):
        return hasattr(self.estimator_ if hasattr(self, "estimator_") else self.estimator, attr)
    return check


def with_labels(frame: pd.DataFrame, y) -> tuple[pd.DataFrame, str]:
    """``frame`` with the labels ``y`` as one more column, and that column's name (one ``frame`` lacks).

    Mechanisms that move rows (anatomy puts the class in IT) carry the labels along this way.
    """
    target = "__target__"
    while target in frame.columns:
        target += "_"
    return frame.assign(**{target: y}), target


def resolve_column(frame: pd.DataFrame, column):
    """The label of ``column`` in ``frame``: a column name, or an integer position when not a name."""
    if column in frame.columns:
        return column
    if isinstance(column, (int, np.integer)) and not isinstance(column, bool) \
            and -frame.shape[1] <= column < frame.shape[1]:
        return frame.columns[column]
    raise ValueError(f"Column {column!r} is neither a column of X ({list(frame.columns)[:20]}) nor a "
                     f"position in 0..{frame.shape[1] - 1}.")


class TrainingView(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Base class: fit a clone of ``estimator`` on a training view of the rows, predict on raw rows.

    Subclasses override :meth:`training_view` (and possibly :meth:`test_view`) and store their
    parameters unchanged in ``__init__``, as scikit-learn asks.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the training view, a DataFrame with the view's columns.

    Attributes
    ----------
    estimator_ : the fitted clone.
    classes_ : ndarray, the classes the fitted estimator knows.
    n_train_ : int, rows the estimator saw (N*l for the anatomized view).
    n_suppressed_ : int, training individuals the mechanism dropped.
    view_columns_ : list, the columns handed to the estimator.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def training_view(self, X: pd.DataFrame, y: np.ndarray) -> TrainingData:
        """Build the rows the estimator learns from (the hook a view overrides).

        Called once by :meth:`fit` with the validated training rows; may set fitted attributes
        (names ending in ``_``), for example the mechanism's output.

        Parameters
        ----------
        X : DataFrame
            The training rows (columns named by position when ``fit`` got an array).
        y : ndarray of shape (n_samples,)

        Returns
        -------
        TrainingData
        """
        raise NotImplementedError(f"{type(self).__name__} must implement training_view(X, y).")

    def test_view(self, X: pd.DataFrame) -> pd.DataFrame:
        """Raw rows as the fitted estimator expects them; by default the view's columns of ``X``."""
        return X[self.view_columns_]

    def _frame(self, X, *, reset: bool) -> pd.DataFrame:
        frame_in = isinstance(X, pd.DataFrame)
        if not frame_in:
            X = check_array(X, ensure_all_finite="allow-nan"
                            if self.__sklearn_tags__().input_tags.allow_nan else True)
        X = validate_data(self, X, reset=reset, skip_check_array=True)
        if frame_in:
            if len(X) == 0:
                raise ValueError(f"Found 0 sample(s) in X; {type(self).__name__} needs training rows.")
            return X
        frame = pd.DataFrame(X)
        if hasattr(self, "feature_names_in_"):
            frame.columns = self.feature_names_in_
        return frame

    def fit(self, X, y):
        """Apply the view's mechanism to the training rows, then fit a clone of the estimator.

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        frame = self._frame(X, reset=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(frame, y)
        check_classification_targets(y)
        view = self.training_view(frame, y)
        if len(view.X) == 0:
            raise ValueError(f"{type(self).__name__}'s mechanism left no training rows "
                             f"({view.n_suppressed} suppressed); use more rows or a weaker setting.")
        self.view_columns_ = list(view.X.columns)
        self.estimator_ = clone(self.estimator).fit(view.X, view.y)
        self.classes_ = getattr(self.estimator_, "classes_", np.unique(view.y))
        self.n_train_ = len(view.X)
        self.n_suppressed_ = int(view.n_suppressed)
        return self

    def _test(self, X) -> pd.DataFrame:
        check_is_fitted(self, "estimator_")
        return self.test_view(self._frame(X, reset=False))

    def predict(self, X):
        """Predict classes of raw rows."""
        X = self._test(X)
        return self.estimator_.predict(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the fitted estimator on raw rows."""
        X = self._test(X)
        return self.estimator_.decision_function(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the fitted estimator on raw rows."""
        X = self._test(X)
        return self.estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities of the fitted estimator on raw rows."""
        X = self._test(X)
        return self.estimator_.predict_log_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        tags.input_tags.sparse = False
        return tags


class OriginalTraining(TrainingView):
    """Train on the original rows D (the papers' baseline "Org.").

    Parameters
    ----------
    estimator : classifier
    """

    def training_view(self, X, y):
        """The training rows unchanged."""
        return TrainingData(X, y, 0)


class IdentifyingTraining(TrainingView):
    """Train on the identifying training data D_id (Definition 13 of seed 002; "Id." in the plots).

    The sensitive column is dropped from the training rows and from the test rows.

    Parameters
    ----------
    estimator : classifier
    sensitive : str or int
        The sensitive column (name, or position for array input).
    """

    def __init__(self, estimator, *, sensitive):
        self.estimator = estimator
        self.sensitive = sensitive

    def training_view(self, X, y):
        """Every training row without the sensitive column."""
        view = X.drop(columns=resolve_column(X, self.sensitive))
        if view.shape[1] == 0:
            raise ValueError(f"X has {X.shape[1]} feature(s), only the sensitive one: the identifying "
                             "view would have no columns to learn from.")
        return TrainingData(view, y, 0)


class AnatomizedTraining(TrainingView):
    """Train on the anatomized training data D_A (Definitions 11-12 and 14 of seed 002).

    The training rows, with their labels, are anatomized with :func:`privnb.anatomy.anatomize`
    (Xiao and Tao's bucketization); IT is joined with ST, so each kept individual appears ``l`` times,
    once with each sensitive value of its group, and the estimator learns from those N*l rows.

    Parameters
    ----------
    estimator : classifier
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
    residue : {"suppress", "assign"}
        What happens to rows the bucketization cannot group (see :func:`~privnb.anatomy.anatomize`).
    random_state : int, RandomState or None

    Attributes
    ----------
    anatomy_ : privnb.anatomy.Anatomy of the training rows (relabelled 0..n-1).
    """

    def __init__(self, estimator, *, sensitive, l, residue="suppress", random_state=None):
        self.estimator = estimator
        self.sensitive = sensitive
        self.l = l
        self.residue = residue
        self.random_state = random_state

    def training_view(self, X, y):
        """Anatomize the training rows with their labels and join IT with ST."""
        joined, target = self.anatomized_rows(X, y)
        return TrainingData(joined[list(X.columns)], joined[target].to_numpy(), len(self.anatomy_.suppressed))

    def anatomized_rows(self, X, y):
        """D_A of the training rows (sets ``anatomy_``) and the name of its label column.

        The labels travel with the rows through the anatomization (they belong to IT); subclasses that
        select among each individual's candidate rows (``privnb.pruning.PrunedTraining``) start here.
        """
        sensitive = resolve_column(X, self.sensitive)
        if isinstance(self.l, (int, np.integer)) and len(X) < self.l:
            raise ValueError(f"Got {len(X)} sample(s): anatomizing with l={self.l} needs at least "
                             f"{self.l} training rows.")
        data, target = with_labels(X.reset_index(drop=True), y)
        self.anatomy_ = anatomize(data, sensitive, self.l, residue=self.residue,
                                  random_state=self.random_state)
        return self.anatomy_.join(), target


class GeneralizedTraining(TrainingView):
    """Train on a k-anonymous generalization of the training rows (seed 003's "k=..." baseline).

    The generalizer is fitted on the training rows; the suppressed rows are dropped and the others
    encoded by the generalizer's ``transform`` (numbers: interval midpoints; categories: generalized
    labels). Test rows are encoded by the same fitted generalization before prediction.

    Parameters
    ----------
    estimator : classifier
    quasi_identifiers : sequence of str
    k : int
    method : {"full-domain", "mondrian"}
        :class:`privnb.generalize.FullDomainGeneralizer` (needs ``hierarchies``) or
        :class:`privnb.generalize.MondrianGeneralizer`.
    hierarchies : mapping attribute -> Hierarchy or ARX table, optional
    kinds, orders : mappings, optional
        Column kinds and ordinal orders (Mondrian only).
    max_suppression : float
        Share of rows full-domain generalization may suppress.
    utility : {"discernibility", "loss"}
        How full-domain generalization chooses among minimal nodes.

    Attributes
    ----------
    generalizer_ : the fitted generalizer.
    """

    def __init__(self, estimator, *, quasi_identifiers, k, method="full-domain", hierarchies=None,
                 kinds=None, orders=None, max_suppression=0.02, utility="discernibility"):
        self.estimator = estimator
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.method = method
        self.hierarchies = hierarchies
        self.kinds = kinds
        self.orders = orders
        self.max_suppression = max_suppression
        self.utility = utility

    def _generalizer(self):
        from privnb.mechanisms.full_domain import FullDomainGeneralizer
        from privnb.mechanisms.mondrian import MondrianGeneralizer

        if self.method == "full-domain":
            if self.hierarchies is None:
                raise ValueError("method='full-domain' needs hierarchies (one per quasi-identifier), "
                                 "e.g. privnb.generalize.adult_hierarchies(); or use method='mondrian'.")
            return FullDomainGeneralizer(self.quasi_identifiers, self.k, self.hierarchies,
                                         max_suppression=self.max_suppression, utility=self.utility)
        if self.method == "mondrian":
            return MondrianGeneralizer(self.quasi_identifiers, self.k, kinds=self.kinds,
                                       hierarchies=self.hierarchies, orders=self.orders)
        raise ValueError(f"method must be 'full-domain' or 'mondrian', got {self.method!r}.")

    def training_view(self, X, y):
        """Fit the generalizer on the training rows; keep and recode the rows it did not suppress."""
        X = X.reset_index(drop=True)
        self.generalizer_ = self._generalizer().fit(X)
        kept = ~X.index.isin(self.generalizer_.suppressed_)
        return TrainingData(self.generalizer_.transform(X[kept]), y[kept], int((~kept).sum()))

    def test_view(self, X):
        """Raw rows recoded by the fitted generalization."""
        return self.generalizer_.transform(X)[self.view_columns_]



class PrunedTraining(AnatomizedTraining):
    """Train on the pruned training data D_P (Definitions 13 and 15 of seed 003; "L=..." in its plots).

    The training rows are anatomized (as :class:`privnb.learners.AnatomizedTraining`), IT is joined
    with ST (N*l rows) and :func:`prune` keeps one candidate row per individual, so the estimator
    learns from N rows, each with one sensitive value of its group. Test rows are raw.

    Parameters
    ----------
    estimator : classifier
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
    kinds : mapping, optional
        Column -> "numeric" | "ordinal" | "nominal" for the Appendix B preprocessing; columns left out
        are "numeric" when their dtype is numeric, else "nominal".
    orders : mapping, optional
        Ordinal column -> domain order (sorted values when absent).
    residue : {"suppress", "assign"}
    random_state : int, RandomState or None

    Attributes
    ----------
    anatomy_ : privnb.anatomy.Anatomy of the training rows.
    pruning_ : Pruning (D_P, kept positions, preprocessed D_A, prerequisites).
    """

    def __init__(self, estimator, *, sensitive, l, kinds=None, orders=None, residue="suppress",
                 random_state=None):
        super().__init__(estimator, sensitive=sensitive, l=l, residue=residue, random_state=random_state)
        self.kinds = kinds
        self.orders = orders

    def training_view(self, X, y):
        """Anatomize the training rows with their labels, join IT with ST and prune (Figure B.2)."""
        joined, target = self.anatomized_rows(X, y)
        self.pruning_ = prune(joined, infer_kinds(X, self.kinds), orders=self.orders, columns=list(X.columns))
        pruned = self.pruning_.pruned
        return TrainingData(pruned[list(X.columns)], pruned[target].to_numpy(), len(self.anatomy_.suppressed))

