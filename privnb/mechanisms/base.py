"""The one base of every mechanism: validate the training rows, protect them, count what was suppressed.

A mechanism has imbalanced-learn's sampler interface: ``fit_resample(X, y) -> (X', y')`` protects the
training rows and records what it did in fitted attributes; a mechanism whose output lives in another
space (generalization) also has ``transform(X)`` for test rows. As in imbalanced-learn's ``BaseSampler``,
the public :meth:`Mechanism.fit_resample` validates its input and calls the mechanism's own
``_fit_resample``, which sets ``suppressed_`` (the training rows it dropped); the count ``n_suppressed_``
is kept here, once. ``privnb.learn.ProtectedTraining`` applies a mechanism in ``fit`` only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator


def as_rows(X) -> pd.DataFrame:
    """A DataFrame as is; a 2-D array as a frame whose columns are named by position.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_rows, n_columns)
        Training rows.

    Returns
    -------
    DataFrame
    """
    return X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))


class Mechanism(BaseEstimator):
    """Base class of the mechanisms: public ``fit_resample`` validates, ``_fit_resample`` protects.

    A subclass implements ``_fit_resample(rows, y) -> (rows', y')``, where ``rows`` is the validated
    DataFrame and ``y`` a 1-D array of one label per row, and sets ``suppressed_`` (the index labels of
    the training rows it suppressed; empty when none). It may override ``_validate_rows`` (scikit-learn's
    ``validate_data`` for the generalizers).

    Attributes
    ----------
    suppressed_ : Index
        The training rows the mechanism suppressed.
    n_suppressed_ : int
        Their number.
    """

    def _validate_rows(self, X) -> pd.DataFrame:
        return as_rows(X)

    def _fit_resample(self, rows: pd.DataFrame, y: np.ndarray):
        raise NotImplementedError(f"{type(self).__name__} must implement _fit_resample(rows, y)")

    def fit_resample(self, X, y):
        """Protect the training rows ``X`` with their labels ``y`` for learning.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            The training rows.
        y : array-like of shape (n_rows,)
            Their labels.

        Returns
        -------
        (DataFrame, ndarray)
            The released rows and their labels.
        """
        rows = self._validate_rows(X)
        labels = np.asarray(y)
        if labels.ndim != 1 or len(labels) != len(rows):
            raise ValueError(
                f"{type(self).__name__}: X has {len(rows)} rows but y has shape {labels.shape}; "
                "pass one label per training row"
            )
        released, released_labels = self._fit_resample(rows, labels)
        self.n_suppressed_ = len(self.suppressed_)
        return released, released_labels
