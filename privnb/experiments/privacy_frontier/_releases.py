"""The releases of FSAC and MZ09 as estimators, so that :func:`~privnb.experiments.run_folds` fits them on a
training fold and the frontier's attacks read the fitted release (``release_``: a
:class:`~privnb.mechanisms.ProjectionRelease`, the published :class:`~privnb.nbc.NBCViews`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from privnb._docstrings import shared_doc
from privnb.experiments.feature_selection._svm import fit_svm
from privnb.experiments.feature_selection._views import SELECTORS
from privnb.mechanisms import ProjectionRelease
from privnb.mechanisms.containment import check_binary
from privnb.nbc import NBCViews, SafetyTransform, dp_views

__all__ = ["SelectedLinearSVC", "NBCRelease", "NBC_RELEASES"]

NBC_RELEASES = ("original", "safety_transform", "dp_laplace", "dp_geometric")
"""The published NBC views :class:`NBCRelease` builds."""


@shared_doc
class SelectedLinearSVC(ClassifierMixin, BaseEstimator):
    """FSAC's release and learner: features selected under a containment constraint, a linear SVM on them.

    Parameters
    ----------
    selector : str or None
        A name of ``privnb.experiments.feature_selection._views.SELECTORS`` ("greedy-hamdist" for k-AC,
        "k-anonymity-hamdist"), or None for every feature.
    k : int or None
        The selector's k.
    random_state : int, RandomState or None
        Seeds the SVM's validation split and solver.
        {random_state}
    """

    def __init__(self, selector: str | None = None, k: int | None = None, random_state=None):
        self.selector = selector
        self.k = k
        self.random_state = random_state

    def fit(self, X, y):
        """Select the features on ``X`` (binary) and fit the SVM on the projection.

        Parameters
        ----------
        X : binary matrix
            The training rows.
        y : array-like
            Their labels.

        Returns
        -------
        self
        """
        X, y = check_binary(X), np.asarray(y)
        if self.selector is None:
            features = np.arange(X.shape[1])
        else:
            features = SELECTORS[self.selector](X, y, self.k, {}).features
        self.features_ = np.asarray(features, dtype=np.intp)
        self.release_ = ProjectionRelease(self.features_, self.k, self.selector or "none")
        self.model_ = fit_svm(X[:, self.features_], y, random_state=self.random_state)
        self.classes_ = self.model_.classes_
        self.n_train_, self.n_suppressed_ = len(y), 0
        return self

    def predict(self, X):
        """The SVM's labels of the projection of ``X``.

        Parameters
        ----------
        X : binary matrix
            Rows to classify.

        Returns
        -------
        ndarray
        """
        return self.model_.predict(check_binary(X)[:, self.features_])

    def decision_function(self, X):
        """The SVM's signed distances (of ``classes_[1]`` when binary) on the projection of ``X``.

        Parameters
        ----------
        X : binary matrix
            Rows to score.

        Returns
        -------
        ndarray
        """
        return self.model_.decision_function(check_binary(X)[:, self.features_])


@shared_doc
class NBCRelease(ClassifierMixin, BaseEstimator):
    """MZ09's published NBC views of the training rows: original, SafetyTransform(gamma) or DP counts(epsilon).

    Parameters
    ----------
    kind : {"original", "safety_transform", "dp_laplace", "dp_geometric"}
        The release.
    param : float or None
        gamma (SafetyTransform) or epsilon (DP); unused for the original views.
    attributes : sequence of str
        The views' attributes.
    class_column : str
        The class's name in the views.
    random_state : int, RandomState or None
        Seeds SafetyTransform or the noise.
        {random_state}
    """

    def __init__(
        self,
        kind: str = "original",
        param=None,
        attributes: Sequence[str] = (),
        class_column: str = "class",
        random_state=None,
    ):
        self.kind = kind
        self.param = param
        self.attributes = attributes
        self.class_column = class_column
        self.random_state = random_state

    def fit(self, X, y):
        """Count the views of ``X`` (with labels ``y``) and publish them.

        Parameters
        ----------
        X : DataFrame
            The training rows (holding ``attributes``).
        y : array-like
            Their classes.

        Returns
        -------
        self
        """
        if self.kind not in NBC_RELEASES:
            raise ValueError(f"kind must be one of {NBC_RELEASES}, got {self.kind!r}")
        attributes = list(self.attributes)
        frame = X[attributes].assign(**{self.class_column: np.asarray(y)})
        views = NBCViews.from_frame(frame, attributes, self.class_column)
        if self.kind == "safety_transform":
            views = SafetyTransform(self.param, random_state=self.random_state).fit(views).views_
        elif self.kind != "original":
            views = dp_views(views, self.param, mechanism=self.kind[3:], random_state=self.random_state)
        self.views_ = self.release_ = views
        self.n_train_, self.n_suppressed_ = len(frame), 0
        return self

    def predict(self, X):
        """The published NBC's labels of ``X``.

        Parameters
        ----------
        X : DataFrame
            Rows holding the attributes.

        Returns
        -------
        ndarray
        """
        return self.views_.predict(X)
