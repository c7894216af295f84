"""privnb's one set of input rules, shared by every layer.

- :func:`check_int`: integer parameters (k, l, n_neighbors, n_splits), with the same message everywhere.
- :func:`as_fraction`: the float -> Fraction rule for exact arithmetic (counts, priors, gamma).
- :data:`KINDS` and :func:`infer_kinds`: the column kinds and how a missing kind is inferred.
- :func:`seed_unset_random_states`: every ``random_state`` left at None gets one seed.
- :func:`validated_rows`, :func:`resolve_column`, :func:`with_labels`: rows, column roles and labels for
  estimators and mechanisms that work on DataFrames.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import pandas as pd

__all__ = [
    "KINDS",
    "check_int",
    "as_fraction",
    "infer_kind",
    "infer_kinds",
    "seed_unset_random_states",
    "with_labels",
    "resolve_column",
    "validated_rows",
]

KINDS = ("numeric", "ordinal", "nominal")
"""Column kinds: numbers, ordered categories (with their order), unordered categories."""


def check_int(value, name: str, *, low: int = 1, high: int | None = None, high_name: str | None = None) -> int:
    """``value`` as an int when it is an integer in [low, high], else a ValueError naming ``name``.

    Python and NumPy integers only: booleans, floats (even ``3.0``) and NaN are refused.

    Parameters
    ----------
    value : int
        The value to check.
    name : str
        The parameter's name, for the error message.
    low : int
        The smallest value allowed.
    high : int, optional
        The largest value allowed.
    high_name : str, optional
        What ``high`` is, for the error message (e.g. "the number of rows").

    Returns
    -------
    int
    """
    integral = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if integral and low <= value and (high is None or value <= high):
        return int(value)
    if high is None:
        rule = f"an integer >= {low}" + (" (a positive integer)" if low == 1 else "")
    else:
        rule = f"an integer between {low} and {high_name or 'the maximum'} ({high})"
    raise ValueError(f"{name} must be {rule}; got {value!r}")


def as_fraction(value) -> Fraction:
    """``value`` as an exact Fraction, by one rule for counts, priors and gamma alike.

    Integers and fractions are taken as they are; a float is read as the decimal it prints as
    (``repr``), so 0.75 is 3/4, 1.1 is 11/10 and 2.5 is 5/2: the number a person typed, not its binary
    approximation. A prior typed as three 0.3333333333333333 sums to just under 1 and is renormalized
    by the caller. Booleans, NaN, infinities and non-numbers are refused.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"expected a finite real number, got {value!r}")
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if not math.isfinite(value):
        raise ValueError(f"expected a finite real number, got {value!r}")
    return Fraction(repr(float(value)))


def infer_kind(column: pd.Series) -> str:
    """The kind of a column whose kind was not given: "numeric" for a numeric dtype, else "nominal"."""
    return "numeric" if pd.api.types.is_numeric_dtype(column) else "nominal"


def infer_kinds(frame: pd.DataFrame, kinds: Mapping[str, str] | None = None) -> dict:
    """``kinds`` completed for every column of ``frame`` by :func:`infer_kind`.

    Parameters
    ----------
    frame : DataFrame
        The columns to classify.
    kinds : mapping, optional
        Kinds already given (column -> "numeric" | "ordinal" | "nominal"); they win.

    Returns
    -------
    dict
        Every column of ``frame`` -> its kind.
    """
    given = dict(kinds or {})
    return {c: given.get(c) or infer_kind(frame[c]) for c in frame.columns}


def seed_unset_random_states(estimator, seed: int):
    """Give every ``random_state`` parameter left at None (the estimator's own and nested ones) ``seed``.

    Parameters
    ----------
    estimator : estimator
        A scikit-learn estimator (changed in place).
    seed : int
        The seed given to every ``random_state`` left at None.

    Returns
    -------
    estimator
        ``estimator`` itself.
    """
    unset = {
        name: seed
        for name, value in estimator.get_params(deep=True).items()
        if (name == "random_state" or name.endswith("__random_state")) and value is None
    }
    return estimator.set_params(**unset) if unset else estimator


def with_labels(frame: pd.DataFrame, y) -> tuple[pd.DataFrame, str]:
    """``frame`` with the labels ``y`` as one more column, and that column's name (one ``frame`` lacks).

    Mechanisms that move rows (anatomy puts the class in IT) carry the labels along this way.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    y : array-like
        One label per row.

    Returns
    -------
    (DataFrame, str)
    """
    target = "__target__"
    while target in frame.columns:
        target += "_"
    return frame.assign(**{target: y}), target


def resolve_column(frame: pd.DataFrame, column):
    """The label of ``column`` in ``frame``: a column name, or an integer position when not a name.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    column : str or int
        A column name, or an integer position.

    Returns
    -------
    object
        The column's label.
    """
    if column in frame.columns:
        return column
    if (
        isinstance(column, (int, np.integer))
        and not isinstance(column, bool)
        and -frame.shape[1] <= column < frame.shape[1]
    ):
        return frame.columns[column]
    raise ValueError(
        f"Column {column!r} is neither a column of X ({list(frame.columns)[:20]}) nor a "
        f"position in 0..{frame.shape[1] - 1}."
    )


def validated_rows(estimator, X, *, reset: bool, ensure_all_finite=True) -> pd.DataFrame:
    """Rows for an estimator that works on frames: a DataFrame as is, an array validated by scikit-learn.

    A DataFrame may carry other columns than the ones the estimator uses, so at ``fit`` (``reset=True``)
    it only records ``n_features_in_`` and ``feature_names_in_``; at predict time its columns are checked
    by name by the estimator itself. An array goes through :func:`sklearn.utils.validation.validate_data`
    (2-D, not sparse, not complex, at least one row and one feature, the fitted number of features);
    an object array of numbers becomes float (strings stay: nominal columns); its columns are named by
    position.

    Parameters
    ----------
    estimator : estimator
        The estimator that records or checks ``n_features_in_``.
    X : DataFrame or array-like
        The rows.
    reset : bool
        True at ``fit`` (record the features), False at predict time (check them).
    ensure_all_finite : bool or "allow-nan"
        As in scikit-learn's ``check_array``, for array input.

    Returns
    -------
    DataFrame
    """
    from sklearn.utils.validation import validate_data  # here: the data layer imports this module

    if isinstance(X, pd.DataFrame):
        if reset:
            validate_data(estimator, X, reset=True, skip_check_array=True)
        return X
    X = validate_data(estimator, X, reset=reset, dtype=None, ensure_all_finite=ensure_all_finite)
    if X.dtype == object:
        with contextlib.suppress(ValueError):  # strings: nominal columns (an unconvertible object raises TypeError)
            X = X.astype(float)
    return pd.DataFrame(X)
