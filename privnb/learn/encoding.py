"""Turn a mixed-type frame into a float matrix for distance- and margin-based learners.

Two schemes, fitted on the training frame only:

``"ibk"``
    Weka IBk's distance (the k-NN experiments of MC17): numeric and ordinal attributes (ordinal
    values replaced by their rank in the domain order) are min-max scaled on the training range;
    nominal attributes become one-hot columns scaled by 1/sqrt(2), so that a mismatch adds exactly 1
    to the squared Euclidean distance, as Weka's overlap metric does. A value unseen in training sets one
    more column, ``column=<unseen>``, so that it too differs by 1 from every training value (Weka's header
    declares every value of a nominal attribute).
``"standard"``
    Numeric and ordinal ranks standardized (training mean and standard deviation); nominal one-hot.
``"appendix_b"``
    Appendix B of MC16a (rules 2 and 3), the space in which MC16 puts D and D_P (R^(d+1)): one
    column per attribute; numeric values minus their training mean, ordinal codes 1..|dom| minus their
    training mean (or mode, ``ordinal_center="mode"``), a nominal attribute 0 at its training mode and
    1 elsewhere (unseen values included). No scaling. The rules are
    :func:`privnb.mechanisms.pruning.appendix_b_statistics` and ``appendix_b_apply``, the very ones the
    pruning step uses, here fitted on the training view and applied to raw test rows.
``"appendix_b_scaled"``
    The same coordinates, each divided by its largest absolute value in training, so that every column
    lies in [-1, 1] and keeps Appendix B's centre at 0: the scaling LibSVM's documentation asks for before
    training, the library MC16 names; the centre stays at 0, so a column's scaled range is not all of [-1, 1].
``"appendix_b_svm_scale"``
    The same coordinates scaled as LibSVM's ``svm-scale -l -1 -u 1`` does: each column's training minimum
    maps to -1 and its maximum to 1, linearly; a column constant in training maps to 0 (svm-scale drops it);
    test values outside the training range are not clipped (svm-scale does not clip).

Categories unseen in training encode as all zeros (scheme "standard") or in their own column ("ibk").
Any subset of the described columns can be encoded (the identifying view drops the sensitive column).

The encoded rows, each distinct one once (:func:`distinct_rows`), are what the factored neighbour searches of
:mod:`privnb.learn.neighbors` run over.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from privnb.validation import KINDS, infer_kind, validated_rows

__all__ = ["FrameEncoder", "KINDS", "SCHEMES", "distinct_rows", "generalized_kinds", "one_hot_blocks"]

SCHEMES = ("ibk", "standard", "appendix_b", "appendix_b_scaled", "appendix_b_svm_scale")


def generalized_kinds(kinds: Mapping[str, str], hierarchies: Mapping | None) -> dict[str, str]:
    """The kinds of a generalized table: an ordinal column with a hierarchy becomes nominal, since above level 0
    its values are labels of ranges of the order (``low-medium``, ``*``), not values of it; numeric columns stay
    numeric (full-domain generalization gives their intervals' midpoints).

    Parameters
    ----------
    kinds : mapping
        Column -> ``"numeric" | "ordinal" | "nominal"`` of the raw table.
    hierarchies : mapping or None
        Column -> hierarchy of the generalized columns (only its keys are read); None: no column has one.
    """
    return {
        column: "nominal" if kind == "ordinal" and column in (hierarchies or {}) else kind
        for column, kind in kinds.items()
    }


def _as_frame(X) -> pd.DataFrame:
    """A DataFrame as is; a 2-D array as a frame whose column names are the positions 0..p-1."""
    if isinstance(X, pd.DataFrame):
        return X
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D table of rows, got an array of shape {X.shape}; "
            "reshape a single feature with X.reshape(-1, 1)."
        )
    return pd.DataFrame(X)


class FrameEncoder(TransformerMixin, BaseEstimator):
    """Encode numeric, ordinal and nominal columns into one float matrix.

    Parameters
    ----------
    kinds : mapping, optional
        Column -> ``"numeric" | "ordinal" | "nominal"``. Columns without a kind get ``"numeric"`` when
        their dtype is numeric and ``"nominal"`` otherwise; ``None`` infers every column that way.
    orders : mapping, optional
        Ordinal column -> its values in domain order (required for every ordinal column).
    scheme : {"ibk", "standard", "appendix_b", "appendix_b_scaled", "appendix_b_svm_scale"}
        How columns are encoded (see the module docstring).
    ordinal_center : {"mean", "mode"}
        Schemes "appendix_b*" only: the centre of ordinal codes (Appendix B's "set mode of the discrete
        values to be mean", read either way; see :func:`privnb.mechanisms.pruning.appendix_b_preprocess`).

    Attributes
    ----------
    columns_ : list
        The encoded columns, in the order of the fitted frame.
    kinds_ : dict
        The kind used for each column.
    categories_ : dict
        Nominal column -> the training categories (one output column each).
    center_, scale_ : dict
        Numeric/ordinal column -> (x - center) / scale is its output (schemes "ibk", "standard"); schemes
        "appendix_b_scaled" and "appendix_b_svm_scale": every column -> the centre and divisor of its Appendix B
        coordinate (svm-scale: the training range's midpoint and half-width; infinite for a constant column,
        which maps to 0).
    statistics_ : dict
        Schemes "appendix_b*": column -> (kind, centre or nominal mode, order), as
        :func:`privnb.mechanisms.pruning.appendix_b_statistics` returns them.
    n_features_in_, feature_names_in_
        As in scikit-learn (feature names when a frame's column names are all strings). A frame
        passed to ``transform`` may hold more columns (those fitted are used, by name); an array must
        have the fitted number of columns.
    """

    def __init__(
        self,
        kinds: Mapping[str, str] | None = None,
        orders: Mapping[str, tuple] | None = None,
        scheme: str = "ibk",
        ordinal_center: str = "mean",
    ):
        self.kinds = kinds
        self.orders = orders
        self.scheme = scheme
        self.ordinal_center = ordinal_center

    @classmethod
    def from_dataset(cls, dataset, *, scheme: str = "ibk", ordinal_center: str = "mean") -> FrameEncoder:
        """An encoder with the kinds and orders of a :class:`privnb.data.Dataset`.

        Parameters
        ----------
        dataset : Dataset
            Gives ``kinds`` and ``orders``.
        scheme, ordinal_center : str
            As in :class:`FrameEncoder`.
        """
        return cls(kinds=dict(dataset.kinds), orders=dict(dataset.orders), scheme=scheme, ordinal_center=ordinal_center)

    def _numbers(self, frame: pd.DataFrame, column) -> np.ndarray:
        values = frame[column]
        if self.kinds_[column] == "ordinal":
            order = list(self.orders[column])
            ranks = pd.Index(order).get_indexer(values).astype(float)
            unknown = (ranks < 0) & values.notna().to_numpy()
            if unknown.any():
                raise ValueError(
                    f"Ordinal column {column!r} has values outside its order: "
                    f"{sorted(set(values[unknown].astype(str)))[:5]}; add them to orders."
                )
            ranks[ranks < 0] = np.nan
            numbers = ranks
        else:
            numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            if np.isnan(numbers).sum() > values.isna().sum():
                raise ValueError(f"Numeric column {column!r} holds non-numbers; declare it 'nominal' in kinds.")
        if not np.isfinite(numbers).all():
            raise ValueError(f"Column {column!r} has missing or infinite values; impute them first.")
        return numbers

    def fit(self, X, y=None):
        """Learn ranges, means and categories from the training frame ``X``.

        Parameters
        ----------
        X : DataFrame or 2-D array
            The training rows (an array's columns are named 0..p-1).
        y : None
            Ignored.
        """
        frame = validated_rows(self, X, reset=True, ensure_all_finite=False)
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}.")
        if frame.shape[1] == 0:
            raise ValueError("0 feature(s): FrameEncoder needs at least one column.")
        kinds = dict(self.kinds or {})
        self.columns_ = list(frame.columns)
        self.kinds_ = {}
        for column in self.columns_:
            kind = kinds.get(column)
            if kind is None:
                kind = infer_kind(frame[column])
            if kind not in KINDS:
                raise ValueError(f"Column {column!r} has kind {kind!r}; kinds are {KINDS}.")
            if kind == "ordinal" and column not in (self.orders or {}):
                raise ValueError(
                    f"Ordinal column {column!r} has no order; pass orders={{{column!r}: (values in domain order)}}."
                )
            self.kinds_[column] = kind
        self.center_, self.scale_, self.categories_ = {}, {}, {}
        if self.scheme.startswith("appendix_b"):
            from privnb.mechanisms.pruning import appendix_b_apply, appendix_b_statistics

            for column in self.columns_:
                if self.kinds_[column] != "nominal":
                    self._numbers(frame, column)  # the same checks (and messages) as the other schemes
            self.statistics_ = appendix_b_statistics(
                frame, self.kinds_, orders=self.orders, columns=self.columns_, ordinal_center=self.ordinal_center
            )
            self._fit_scaling(appendix_b_apply(frame, self.statistics_))
            return self
        for column in self.columns_:
            if self.kinds_[column] == "nominal":
                values = frame[column].dropna().unique()
                self.categories_[column] = np.array(sorted(values, key=lambda v: (str(type(v)), v)), dtype=object)
                continue
            numbers = self._numbers(frame, column)
            if self.scheme == "ibk":
                low, high = (numbers.min(), numbers.max()) if len(numbers) else (0.0, 1.0)
                self.center_[column], self.scale_[column] = low, (high - low) or 1.0
            else:
                std = numbers.std() if len(numbers) else 1.0
                self.center_[column] = numbers.mean() if len(numbers) else 0.0
                self.scale_[column] = std or 1.0
        return self

    def _fit_scaling(self, encoded: np.ndarray) -> None:
        """The centres and divisors of the scaled Appendix B schemes, from the encoded training rows."""
        if self.scheme == "appendix_b_scaled":
            largest = np.abs(encoded).max(axis=0, initial=0.0)
            center, scale = np.zeros(encoded.shape[1]), np.where(largest > 0, largest, 1.0)
        elif self.scheme == "appendix_b_svm_scale":
            empty = np.zeros(encoded.shape[1])
            low, high = (encoded.min(axis=0), encoded.max(axis=0)) if len(encoded) else (empty, empty)
            center, scale = (low + high) / 2, np.where(high > low, (high - low) / 2, np.inf)
        else:
            return
        self.center_, self.scale_ = dict(zip(self.columns_, center)), dict(zip(self.columns_, scale))

    def transform(self, X) -> np.ndarray:
        """Encode ``X`` (any rows; it must hold every fitted column) as a float matrix."""
        check_is_fitted(self, "columns_")
        frame = validated_rows(self, X, reset=False, ensure_all_finite=False)
        missing = [c for c in self.columns_ if c not in frame.columns]
        if missing:
            raise ValueError(
                f"Columns {missing} seen in fit are missing from X; pass a frame with columns {self.columns_}."
            )
        if self.scheme.startswith("appendix_b"):
            from privnb.mechanisms.pruning import appendix_b_apply

            for column in self.columns_:
                if self.kinds_[column] != "nominal":
                    self._numbers(frame, column)
            encoded = appendix_b_apply(frame, self.statistics_)
            if self.scheme == "appendix_b":
                return encoded
            center = np.array([self.center_[column] for column in self.columns_])
            return (encoded - center) / np.array([self.scale_[column] for column in self.columns_])
        weight = 1 / np.sqrt(2) if self.scheme == "ibk" else 1.0
        unseen = self.scheme == "ibk"
        widths = self._widths()
        encoded = np.zeros((len(frame), sum(widths)))
        rows = np.arange(len(frame))
        for column, start in zip(self.columns_, np.cumsum([0, *widths[:-1]]), strict=True):
            if self.kinds_[column] == "nominal":
                codes = pd.Index(self.categories_[column]).get_indexer(frame[column])
                if unseen:  # an unseen value in the last column, a missing one in none
                    codes[(codes < 0) & frame[column].notna().to_numpy()] = len(self.categories_[column])
                known = codes >= 0
                encoded[rows[known], start + codes[known]] = weight
            else:
                encoded[:, start] = (self._numbers(frame, column) - self.center_[column]) / self.scale_[column]
        return encoded

    def _widths(self) -> list[int]:
        """Output columns of each input column (schemes "ibk" and "standard"): one per category of a nominal
        column, and one more for unseen values under "ibk"; one for a numeric or ordinal column.
        """
        unseen = self.scheme == "ibk"
        return [len(self.categories_[c]) + unseen if self.kinds_[c] == "nominal" else 1 for c in self.columns_]

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """``column`` for numeric and ordinal columns, ``column=value`` for one-hot columns."""
        check_is_fitted(self, "columns_")
        names = []
        for column in self.columns_:
            if self.kinds_[column] == "nominal" and not self.scheme.startswith("appendix_b"):
                names.extend(f"{column}={value}" for value in self.categories_[column])
                if self.scheme == "ibk":
                    names.append(f"{column}=<unseen>")
            else:
                names.append(str(column))
        return np.asarray(names, dtype=object)


def one_hot_blocks(encoder: FrameEncoder) -> list[tuple[int, int]]:
    """The (start, stop) output columns of each nominal attribute of a fitted "ibk" encoder: one-hot blocks
    in which every encoded row, unseen values included, holds exactly one entry 1/sqrt(2). Other schemes
    have none (the "standard" scheme encodes an unseen value as zeros).

    Parameters
    ----------
    encoder : FrameEncoder
        Fitted.
    """
    check_is_fitted(encoder, "columns_")
    if encoder.scheme != "ibk":
        return []
    widths = encoder._widths()
    starts = np.cumsum([0, *widths[:-1]])
    return [
        (int(start), int(start + width))
        for column, start, width in zip(encoder.columns_, starts, widths, strict=True)
        if encoder.kinds_[column] == "nominal"
    ]


def _row_hashes(X):
    """A 64-bit hash of each row of a float array: each entry's bits mixed, times an odd constant of its
    column, summed (modulo 2^64); rows in chunks of bounded memory.
    """
    multipliers = np.random.default_rng(0x5EED).integers(0, 2**62, size=X.shape[1], dtype=np.uint64) * 2 + 1
    hashes = np.empty(len(X), dtype=np.uint64)
    for lo in range(0, len(X), _HASH_ROWS):
        bits = X[lo : lo + _HASH_ROWS].view(np.uint64)
        bits = bits ^ (bits >> np.uint64(31))
        hashes[lo : lo + _HASH_ROWS] = bits @ multipliers
    return hashes


_HASH_ROWS = 2**15


def distinct_rows(X):
    """Distinct rows of X and, for each row, the index of its distinct row (first-seen order).

    Rows are grouped by a 64-bit hash, then checked for equality; on a (most unlikely) collision the
    exact but slower ``np.unique`` decides.
    """
    X = np.ascontiguousarray(X, dtype=float) + 0.0  # + 0.0 turns -0.0 into 0.0
    codes, uniques = pd.factorize(_row_hashes(X))
    first = np.full(len(uniques), len(X))
    np.minimum.at(first, codes, np.arange(len(X)))
    chunks = range(0, len(X), _HASH_ROWS)
    if all(np.array_equal(X[first[codes[lo : lo + _HASH_ROWS]]], X[lo : lo + _HASH_ROWS]) for lo in chunks):
        return X[first], codes
    keys = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return X[first], inverse.ravel()
