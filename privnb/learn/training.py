"""The papers' training views as scikit-learn meta-estimators: one mechanism, one wrapper.

A *mechanism* (``privnb.mechanisms``; imbalanced-learn's sampler interface) has
``fit_resample(X, y) -> (X', y')`` for the training rows, records what it did in fitted attributes
(``n_suppressed_``, ``anatomy_``, ``pruning_``, the generalization), and, when its rows live in another
space, ``transform(X)`` for test rows. :class:`ProtectedTraining` ``(mechanism, estimator)`` clones the
mechanism, applies it in ``fit`` only, fits a clone of the estimator on the result and predicts on raw,
unprotected rows (through ``mechanism_.transform`` when there is one): the papers' setting "train on
protected data, test on unprotected data" (Section 3 of MC17, Section 5 of MC16). So a view can
go straight into :func:`sklearn.model_selection.cross_validate`. A new mechanism is one class; no
learner changes.

=====================  =========================================  ====================================
view                   mechanism                                  training data
=====================  =========================================  ====================================
OriginalTraining       None                                       the original training data D
IdentifyingTraining    :class:`~privnb.mechanisms.anatomy.SensitiveDropper`  D_id (Definition 13 of MC17)
AnatomizedTraining     :class:`~privnb.mechanisms.Anatomizer`     D_A, N*l rows (Definitions 11-12)
PrunedTraining         :class:`~privnb.mechanisms.AnatomyPruner`  D_P (Definitions 13, 15 of MC16)
GeneralizedTraining    Full-domain or Mondrian generalizer        k-anonymous rows (MC16's "k=")
=====================  =========================================  ====================================

The views are conveniences: ``ProtectedTraining`` with the mechanism built from the view's parameters
(their fitted mechanism is ``mechanism_``; ``anatomy_``, ``pruning_``, ``generalizer_`` read it).

The wrapped classifier receives a DataFrame with the view's columns: put a
:class:`privnb.learn.FrameEncoder` in front of it in a pipeline. ``X`` may also be a numeric 2-D array
(mixed types need a DataFrame): its columns are then named by position, and a column role may be given
as a position.

Estimator checks: ``tests/learn/test_estimator_contract.py`` and ``tests/learn/test_learners.py`` run
``parametrize_with_checks`` on numeric arrays (sensitive column 0); the exclusions are listed there with
their reasons.
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

from privnb._docstrings import shared_doc
from privnb.mechanisms.anatomy import Anatomizer, SensitiveDropper
from privnb.mechanisms.pruning import AnatomyPruner

__all__ = [
    "TrainingData",
    "ProtectedTraining",
    "TrainingView",
    "OriginalTraining",
    "IdentifyingTraining",
    "AnatomizedTraining",
    "PrunedTraining",
    "GeneralizedTraining",
]


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


def _fitted_mechanism(attribute: str | None, doc: str) -> property:
    """A view's fitted attribute read from its fitted mechanism, or the mechanism itself when ``attribute``
    is None (NotFittedError before ``fit``).
    """

    def get(self):
        check_is_fitted(self, "mechanism_")
        return self.mechanism_ if attribute is None else getattr(self.mechanism_, attribute)

    return property(get, doc=doc)


class ProtectedTraining(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Fit a clone of ``estimator`` on the rows a privacy mechanism releases; predict on raw rows.

    Parameters
    ----------
    mechanism : mechanism or None
        An object with ``fit_resample(X, y) -> (X', y')`` (and ``transform(X)`` when test rows must be
        recoded); a clone is fitted on the training rows. ``None``: the original rows.
    estimator : classifier
        Fitted (a clone) on the released rows, a DataFrame with the mechanism's columns.

    Attributes
    ----------
    mechanism_ : the fitted clone of the mechanism (None for the original rows).
    release_ : what the mechanism published (its ``release_`` record, :mod:`privnb.mechanisms.releases`;
        None for the original rows or a mechanism that publishes nothing to attack).
    estimator_ : the fitted clone of the estimator.
    classes_ : ndarray, the classes the fitted estimator knows.
    n_train_ : int, rows the estimator saw (N*l for the anatomized view).
    n_suppressed_ : int, training individuals the mechanism dropped.
    view_columns_ : list, the columns handed to the estimator.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(self, mechanism, estimator):
        self.mechanism = mechanism
        self.estimator = estimator

    def new_mechanism(self):
        """A fresh, unfitted mechanism for one ``fit`` (a clone of ``mechanism``; views build theirs)."""
        return None if self.mechanism is None else clone(self.mechanism)

    def training_view(self, X: pd.DataFrame, y: np.ndarray) -> TrainingData:
        """The rows the estimator learns from: ``mechanism_.fit_resample`` of the validated training rows.

        Parameters
        ----------
        X : DataFrame
            The validated training rows.
        y : ndarray
            Their labels.

        Returns
        -------
        TrainingData
            The released rows, their labels and the number of suppressed training rows.
        """
        if self.mechanism_ is None:
            return TrainingData(X, y, 0)
        rows, labels = self.mechanism_.fit_resample(X, y)
        return TrainingData(rows, np.asarray(labels), int(getattr(self.mechanism_, "n_suppressed_", 0)))

    def test_view(self, X: pd.DataFrame) -> pd.DataFrame:
        """Raw rows as the fitted estimator expects them: recoded by ``mechanism_.transform`` when the
        mechanism has one, then the view's columns.
        """
        if self.mechanism_ is not None and hasattr(self.mechanism_, "transform"):
            X = self.mechanism_.transform(X)
        return X[self.view_columns_]

    def _frame(self, X, *, reset: bool) -> pd.DataFrame:
        frame_in = isinstance(X, pd.DataFrame)
        if not frame_in:
            X = check_array(X, ensure_all_finite="allow-nan" if self.__sklearn_tags__().input_tags.allow_nan else True)
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
        """Apply a clone of the mechanism to the training rows, then fit a clone of the estimator.

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features)
            The raw training rows.
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        self
        """
        frame = self._frame(X, reset=True)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        y = column_or_1d(y, warn=True)
        check_consistent_length(frame, y)
        check_classification_targets(y)
        self.mechanism_ = self.new_mechanism()
        view = self.training_view(frame, y)
        if len(view.X) == 0:
            raise ValueError(
                f"{type(self).__name__}'s mechanism left no training rows "
                f"({view.n_suppressed} suppressed); use more rows or a weaker setting."
            )
        self.view_columns_ = list(view.X.columns)
        self.estimator_ = clone(self.estimator).fit(view.X, view.y)
        self.classes_ = getattr(self.estimator_, "classes_", np.unique(view.y))
        self.n_train_ = len(view.X)
        self.n_suppressed_ = int(view.n_suppressed)
        self.release_ = getattr(self.mechanism_, "release_", None)
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


class TrainingView(ProtectedTraining):
    """Base class of the named views: a :class:`ProtectedTraining` whose mechanism is built from the
    view's own parameters by :meth:`new_mechanism` (which a view overrides).

    Subclasses store their parameters unchanged in ``__init__``, as scikit-learn asks. A new mechanism
    needs no new view: pass it to :class:`ProtectedTraining`.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def new_mechanism(self):
        """The view's mechanism, unfitted (the hook a view overrides; None: the original rows)."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement new_mechanism() (or use ProtectedTraining(mechanism, estimator))."
        )


class OriginalTraining(TrainingView):
    """Train on the original rows D (the papers' baseline "Org."): ``ProtectedTraining(None, estimator)``.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    """

    def new_mechanism(self):
        """None: the training rows unchanged."""
        return None


class IdentifyingTraining(TrainingView):
    """Train on the identifying training data D_id (Definition 13 of MC17; "Id." in the plots).

    The sensitive column is dropped from the training rows (:class:`privnb.mechanisms.anatomy.SensitiveDropper`)
    and from the test rows.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    sensitive : str or int
        The sensitive column (name, or position for array input).
    """

    def __init__(self, estimator, *, sensitive):
        self.estimator = estimator
        self.sensitive = sensitive

    def new_mechanism(self):
        """:class:`privnb.mechanisms.anatomy.SensitiveDropper` of ``sensitive``."""
        return SensitiveDropper(self.sensitive)


@shared_doc
class AnatomizedTraining(TrainingView):
    """Train on the anatomized training data D_A (Definitions 11-12 and 14 of MC17).

    The training rows, with their labels, are anatomized (:class:`privnb.mechanisms.Anatomizer`, Xiao
    and Tao's bucketization); IT is joined with ST, so each kept individual appears ``l`` times, once
    with each sensitive value of its group, and the estimator learns from those N*l rows.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
        Diversity of the anatomization (:func:`privnb.mechanisms.anatomize`).
    residue : {"suppress", "assign"}
        What happens to rows the bucketization cannot group (see :func:`privnb.mechanisms.anatomize`).
    random_state : int, RandomState or None
        Drives the anatomization's random choices.
        {random_state}

    Attributes
    ----------
    anatomy_ : privnb.mechanisms.Anatomy of the training rows (relabelled 0..n-1).
    """

    def __init__(self, estimator, *, sensitive, l, residue="suppress", random_state=None):
        self.estimator = estimator
        self.sensitive = sensitive
        self.l = l
        self.residue = residue
        self.random_state = random_state

    anatomy_ = _fitted_mechanism("anatomy_", "The Anatomy of the training rows (relabelled 0..n-1).")

    def new_mechanism(self):
        """:class:`privnb.mechanisms.Anatomizer` with the view's parameters."""
        return Anatomizer(self.sensitive, self.l, residue=self.residue, random_state=self.random_state)


@shared_doc
class PrunedTraining(AnatomizedTraining):
    """Train on the pruned training data D_P (Definitions 13 and 15 of MC16; "L=..." in its plots).

    The training rows are anatomized (as :class:`AnatomizedTraining`), IT is joined with ST (N*l rows)
    and :func:`privnb.mechanisms.prune` keeps one candidate row per individual
    (:class:`privnb.mechanisms.AnatomyPruner`), so the estimator learns from N rows, each with one
    sensitive value of its group. Test rows are raw.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
        Diversity of the anatomization (:func:`privnb.mechanisms.anatomize`).
    kinds : mapping, optional
        Column -> "numeric" | "ordinal" | "nominal" for the Appendix B preprocessing; columns left out
        are "numeric" when their dtype is numeric, else "nominal".
    orders : mapping, optional
        Ordinal column -> domain order (sorted values when absent).
    residue : {"suppress", "assign"}
        What happens to rows the bucketization cannot group (see :func:`privnb.mechanisms.anatomize`).
    ordinal_center : {"mean", "mode"}
        Where Appendix B centres ordinal codes when the pruning computes its squared norms ("set mode of
        the discrete values to be mean" read either way; see :func:`privnb.mechanisms.prune`).
    random_state : int, RandomState or None
        Drives the anatomization's random choices.
        {random_state}

    Attributes
    ----------
    anatomy_ : privnb.mechanisms.Anatomy of the training rows.
    pruning_ : Pruning (D_P, kept positions, preprocessed D_A, prerequisites).
    """

    def __init__(
        self,
        estimator,
        *,
        sensitive,
        l,
        kinds=None,
        orders=None,
        residue="suppress",
        ordinal_center="mean",
        random_state=None,
    ):
        super().__init__(estimator, sensitive=sensitive, l=l, residue=residue, random_state=random_state)
        self.kinds = kinds
        self.orders = orders
        self.ordinal_center = ordinal_center

    pruning_ = _fitted_mechanism("pruning_", "The Pruning of D_A (D_P, kept positions, prerequisites).")

    def new_mechanism(self):
        """:class:`privnb.mechanisms.AnatomyPruner` with the view's parameters."""
        return AnatomyPruner(
            self.sensitive,
            self.l,
            kinds=self.kinds,
            orders=self.orders,
            residue=self.residue,
            ordinal_center=self.ordinal_center,
            random_state=self.random_state,
        )


class GeneralizedTraining(TrainingView):
    """Train on a k-anonymous generalization of the training rows (MC16's "k=..." baseline).

    The generalizer (the mechanism) is fitted on the training rows; the suppressed rows are dropped and
    the others encoded by the generalizer's ``transform`` (numbers: interval midpoints; categories:
    generalized labels). Test rows are encoded by the same fitted generalization before prediction.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone) on the view's released rows.
    quasi_identifiers : sequence of str
        The columns generalized.
    k : int
        Every released group holds at least k rows.
    method : {"full-domain", "mondrian"}
        :class:`privnb.mechanisms.FullDomainGeneralizer` (needs ``hierarchies``) or
        :class:`privnb.mechanisms.MondrianGeneralizer`.
    hierarchies : mapping attribute -> Hierarchy or ARX table, optional
        Each quasi-identifier's hierarchy (full-domain: every one; Mondrian: used for nominal and ordinal ones).
    kinds, orders : mappings, optional
        Column kinds (Mondrian only) and ordinal orders (Mondrian's cuts; both methods: the sensitive
        attribute's order for an ordered t-closeness model that gives none).
    max_suppression : float
        Share of rows full-domain generalization may suppress.
    utility : {"discernibility", "loss", "geometric_loss"}
        How full-domain generalization chooses among minimal nodes.
    sensitive : str, optional
        The sensitive column the privacy models judge (both methods).
    privacy_models : sequence of PrivacyModel
        Models every released class satisfies beside k-anonymity (both methods; see
        :class:`privnb.mechanisms.FullDomainGeneralizer`).

    Attributes
    ----------
    generalizer_ : the fitted generalizer (``mechanism_``).
    """

    def __init__(
        self,
        estimator,
        *,
        quasi_identifiers,
        k,
        method="full-domain",
        hierarchies=None,
        kinds=None,
        orders=None,
        max_suppression=0.02,
        utility="discernibility",
        sensitive=None,
        privacy_models=(),
    ):
        self.estimator = estimator
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.method = method
        self.hierarchies = hierarchies
        self.kinds = kinds
        self.orders = orders
        self.max_suppression = max_suppression
        self.utility = utility
        self.sensitive = sensitive
        self.privacy_models = privacy_models

    generalizer_ = _fitted_mechanism(None, "The fitted generalizer.")

    def new_mechanism(self):
        """The generalizer ``method`` names, with the view's parameters (hierarchies not copied, so that
        views of one fold share the lattice search of :class:`privnb.mechanisms.FullDomainLattice`).
        """
        from privnb.mechanisms.full_domain import FullDomainGeneralizer
        from privnb.mechanisms.mondrian import MondrianGeneralizer

        if self.method == "full-domain":
            if self.hierarchies is None:
                raise ValueError(
                    "method='full-domain' needs hierarchies (one per quasi-identifier), "
                    "e.g. privnb.data.load('adult').hierarchies; or use method='mondrian'."
                )
            return FullDomainGeneralizer(
                self.quasi_identifiers,
                self.k,
                self.hierarchies,
                max_suppression=self.max_suppression,
                utility=self.utility,
                sensitive=self.sensitive,
                privacy_models=self.privacy_models,
                orders=self.orders,
            )
        if self.method == "mondrian":
            return MondrianGeneralizer(
                self.quasi_identifiers,
                self.k,
                kinds=self.kinds,
                hierarchies=self.hierarchies,
                orders=self.orders,
                sensitive=self.sensitive,
                privacy_models=self.privacy_models,
            )
        raise ValueError(f"method must be 'full-domain' or 'mondrian', got {self.method!r}.")
