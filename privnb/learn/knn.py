"""k-nearest neighbours with Weka IBk's distance, for the anatomized k-NN of MC17.

The paper trained Weka's IBk on the original, identifying (Definition 15), anatomized (Definition 14:
N*l rows of D_A) and k-anonymized training data (Section 5.1.3 of MC17). IBk's distance is the
Euclidean distance with numeric attributes min-max normalized on the training range and nominal
attributes contributing 0 (equal) or 1 (different): :class:`privnb.learn.encoding.FrameEncoder` with scheme
``"ibk"`` (one-hot scaled by 1/sqrt(2)) gives exactly that, and :class:`IBkClassifier` uses it.

Tie rules. The default, ``ties="weka"``, is Weka IBk's own (MC17 names IBk, so it is the paper's
rule; read from Weka 3.8's ``LinearNNSearch``, ``IBk`` and ``AbstractClassifier``):

- neighbours: every training row whose distance is at most the k-th smallest distance takes part, so
  "k neighbours" may be more than k rows (LinearNNSearch keeps the rows tied with its k-th);
- vote: unweighted, every class starting from the same 1 / max(1, n_train) (IBk.makeDistribution),
  each neighbour adding 1; the class with the most votes wins and an even split goes to the class
  declared FIRST for the class attribute (``AbstractClassifier.classifyInstance`` scans the classes
  upwards with a strict ``>``): ``class_order[0]`` of :class:`IBkClassifier`;
- ranges: numeric attributes are min-max normalized on ranges that IBk updates with every instance it
  sees: the training rows, then each test instance before it is classified
  (``IBk.distributionForInstance`` calls ``addInstanceInfo``), so the ranges of query i are those of
  the training rows and queries 0..i, in order (``ranges="weka"``; ``ranges="train"`` fixes them at the
  training rows). A range of zero width contributes 0, as in Weka's ``NormalizableDistance``.

Missing values follow Weka's ``NormalizableDistance.difference``: a missing nominal value is 1 away
from anything (a missing one too); a missing numeric value is 1 away from a missing one and max(v, 1 - v)
away from a present one of normalized value v; ranges leave missing values out. Rows with missing values
(training or queries) are measured that way (:func:`weka_sq_distances`, every pair, no factoring); rows
without any are measured on their encoding as before, with the same result.

``ties="exact-k"`` keeps privnb's earlier rule, an option: exactly k rows, ordered by (squared
distance, position of the training row), and vote ties to the tied class whose nearest member comes
first (for two classes: the nearest neighbour's class).

Distances compare after rounding to 1e-9 (squared distances recomputed exactly for the candidates),
so that equal distances summed in a different order still tie.

So one neighbour search for the largest k serves every smaller k (:meth:`IBkClassifier.predict_many`);
:func:`cross_validate_knn` does one search per (fold, view, l), and :func:`convergence_curves` runs
the incremental experiment of Section 5.2.6 (Figure 9) with one search per (fold, view, l) too.
On D_A the search runs over the distinct quasi-identifier rows (:func:`kneighbors_factored`, chosen
with ``IBkClassifier(factor_column=sensitive)``): same neighbours, about l times less work. Queries
go in chunks of bounded memory.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from privnb.data.digest import rows_digest
from privnb.learn._screen import blocks_within
from privnb.learn.encoding import FrameEncoder, distinct_rows, one_hot_blocks
from privnb.learn.knn_votes import class_ranks, tied_counts, vote, weka_vote
from privnb.learn.neighbors import (  # noqa: F401  (TiedNeighbors, nearest_per_part: re-exported)
    TiedNeighbors,
    kneighbors,
    kneighbors_factored,
    kneighbors_from_distances,
    nearest_per_part,
)
from privnb.validation import check_int, infer_kind, validated_rows

#: Tie rules of :class:`IBkClassifier`.
TIE_RULES = ("weka", "exact-k")


#: Range rules of :class:`IBkClassifier`.
RANGE_RULES = ("weka", "train")


def check_rules(ties, ranges) -> None:
    """Refuse a tie or range rule that is not one of :data:`TIE_RULES` and :data:`RANGE_RULES`.

    Parameters
    ----------
    ties : str
        The tie rule, one of :data:`TIE_RULES`.
    ranges : str
        The range rule, one of :data:`RANGE_RULES`.
    """
    if ties not in TIE_RULES or ranges not in RANGE_RULES:
        raise ValueError(
            f"ties must be one of {TIE_RULES} and ranges one of {RANGE_RULES}, got ties={ties!r}, ranges={ranges!r}"
        )


def _numeric_columns(encoder):
    """The columns of a fitted "ibk" encoder that are min-max normalized (numeric and ordinal)."""
    return [c for c in encoder.columns_ if encoder.kinds_[c] != "nominal"]


def numeric_ranges(encoder, X):
    """(minima, maxima) of the numeric and ordinal columns of ``encoder`` (fitted, scheme "ibk") over rows X.

    Parameters
    ----------
    encoder : FrameEncoder
        Fitted, scheme "ibk".
    X : DataFrame or 2-D array
        Rows with the fitted columns, no missing numeric or ordinal value.
    """
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
    numbers = [encoder._numbers(frame, c) for c in _numeric_columns(encoder)]
    return np.array([v.min() for v in numbers]), np.array([v.max() for v in numbers])


def running_range_segments(encoder, train_ranges, X, running=True):
    """Weka IBk's running min-max ranges as column weights: [(start, stop, weights)] over the queries X.

    IBk starts from the ranges of its training rows (``train_ranges``, :func:`numeric_ranges`) and widens
    them with each query before classifying it (``IBk.distributionForInstance``), so query i is measured
    on the ranges of the training rows and queries 0..i. A run of queries with the same ranges shares one
    weight vector: a numeric column's encoding (scaled by ``encoder``'s fitted width) is rescaled by
    fitted width / current width (0 for a zero-width range, as Weka's ``NormalizableDistance.norm``).
    ``running=False`` keeps the training ranges for every query (one segment).

    Parameters
    ----------
    encoder : FrameEncoder
        Fitted, scheme "ibk".
    train_ranges : (float array, float array)
        The training rows' minima and maxima of the numeric and ordinal columns (:func:`numeric_ranges`).
    X : DataFrame or 2-D array
        The queries, in the order they are classified.
    running : bool
        Widen the ranges with each query (IBk); False: the training ranges throughout.

    Returns
    -------
    list of (int, int, float array)
        Query runs ``start:stop`` and the weight of each encoded column for them.
    """
    numeric = _numeric_columns(encoder)
    names = list(encoder.get_feature_names_out())
    n = len(X)
    weights = np.ones(len(names))
    if not numeric or n == 0:
        return [(0, n, weights)]
    if running:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        values = np.column_stack([encoder._numbers(frame, c) for c in numeric])
        low = np.minimum(np.minimum.accumulate(values, axis=0), train_ranges[0])
        high = np.maximum(np.maximum.accumulate(values, axis=0), train_ranges[1])
    else:  # one row of ranges: no change, one segment
        low, high = np.atleast_2d(train_ranges[0]), np.atleast_2d(train_ranges[1])
    changes = np.flatnonzero(np.any((np.diff(low, axis=0) != 0) | (np.diff(high, axis=0) != 0), axis=1)) + 1
    cols = [names.index(str(c)) for c in numeric]
    fitted = np.array([encoder.scale_[c] for c in numeric])
    out = []
    for start, stop in zip(np.r_[0, changes], np.r_[changes, n]):
        width = high[start] - low[start]
        w = weights.copy()
        w[cols] = np.where(width > 0, fitted / np.where(width > 0, width, 1.0), 0.0)
        out.append((int(start), int(stop), w))
    return out


def weka_columns(encoder, X):
    """Rows ``X`` as Weka's distance reads them, missing values kept: (nominal codes, numbers).

    Codes index ``encoder.categories_`` (a value unseen in training gets a code no training row has, a
    missing value -1); numbers are the numeric values and ordinal ranks of the non-nominal columns of
    :func:`_numeric_columns`' order, NaN where missing.

    Parameters
    ----------
    encoder : FrameEncoder
        Fitted, scheme "ibk".
    X : DataFrame
        Rows with the fitted columns.

    Returns
    -------
    (int array (n, n_nominal), float array (n, n_numeric))
    """
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
    nominal = [c for c in encoder.columns_ if encoder.kinds_[c] == "nominal"]
    codes = np.empty((len(frame), len(nominal)), dtype=np.intp)
    for j, column in enumerate(nominal):
        categories = encoder.categories_[column]
        found = pd.Index(categories).get_indexer(frame[column])
        found[found < 0] = len(categories)
        found[frame[column].isna().to_numpy()] = -1
        codes[:, j] = found
    numbers = [_with_missing(encoder, frame, column) for column in _numeric_columns(encoder)]
    return codes, (np.column_stack(numbers) if numbers else np.empty((len(frame), 0)))


def _with_missing(encoder, frame, column):
    """A numeric or ordinal column's numbers, NaN where missing (the encoder's checks otherwise)."""
    present = frame[column].notna().to_numpy()
    numbers = np.full(len(frame), np.nan)
    if present.any():
        numbers[present] = encoder._numbers(frame.loc[present, [column]], column)
    return numbers


def weka_sq_distances(train, query, low, high) -> np.ndarray:
    """Weka IBk's squared distances (``EuclideanDistance`` over ``NormalizableDistance.difference``).

    Per nominal column: 0 for equal values, 1 otherwise and whenever either value is missing. Per numeric
    column, values normalized on the ranges ``low``..``high`` (v = (x - low) / (high - low), 0 for a range of
    zero width or no range): (v_a - v_b)^2 when both are present; max(v, 1 - v)^2 when one is missing and v
    is the other's; 1 when both are missing.

    Parameters
    ----------
    train, query : (codes, numbers)
        :func:`weka_columns` of the training rows and of the queries.
    low, high : float arrays
        The current minimum and maximum of each numeric column (NaN: no value seen).

    Returns
    -------
    array (n_query, n_train)
    """
    (t_codes, t_numbers), (q_codes, q_numbers) = train, query
    d2 = np.zeros((len(q_codes), len(t_codes)))
    for j in range(t_codes.shape[1]):
        a, b = q_codes[:, j, None], t_codes[None, :, j]
        d2 += (a < 0) | (b < 0) | (a != b)
    width = np.nan_to_num(np.asarray(high, dtype=float) - low, nan=0.0)
    for j in range(t_numbers.shape[1]):
        scale = 1.0 / width[j] if width[j] > 0 else 0.0
        v_q, v_t = (q_numbers[:, j] - low[j]) * scale, (t_numbers[:, j] - low[j]) * scale
        m_q, m_t = np.isnan(v_q)[:, None], np.isnan(v_t)[None, :]
        far_q, far_t = np.maximum(v_q, 1 - v_q)[:, None] ** 2, np.maximum(v_t, 1 - v_t)[None, :] ** 2
        both = (v_q[:, None] - v_t[None, :]) ** 2
        d2 += np.where(m_q & m_t, 1.0, np.where(m_q, far_t, np.where(m_t, far_q, both)))
    return d2


def weka_range_segments(low, high, numbers, running=True):
    """Weka's running ranges with missing values left out: [(start, stop, low, high)] over the queries.

    Parameters
    ----------
    low, high : float arrays
        The training rows' ranges (NaN where a column has no value).
    numbers : float array (n_query, n_numeric)
        The queries' numbers (:func:`weka_columns`), NaN where missing.
    running : bool
        Widen the ranges with each query before it is measured (IBk); False: one segment.

    Returns
    -------
    list of (int, int, array, array)
    """
    n = len(numbers)
    if not running or numbers.shape[1] == 0 or n == 0:
        return [(0, n, low, high)]
    lows = np.fmin(np.fmin.accumulate(numbers, axis=0), low)
    highs = np.fmax(np.fmax.accumulate(numbers, axis=0), high)
    same = (np.diff(lows, axis=0) == 0) | np.isnan(np.diff(lows, axis=0))
    same &= (np.diff(highs, axis=0) == 0) | np.isnan(np.diff(highs, axis=0))
    changes = np.flatnonzero(~same.all(axis=1)) + 1
    return [(int(a), int(b), lows[a], highs[a]) for a, b in zip(np.r_[0, changes], np.r_[changes, n])]


def _filled(frame, kinds, orders):
    """``frame`` with each missing value of a numeric or ordinal column replaced by a present value of it
    (so the encoder's ranges are those of the present values), and the resolved kinds.
    """
    kinds = {c: (kinds or {}).get(c) or infer_kind(frame[c]) for c in frame.columns}
    filled = frame.copy()
    for column in frame.columns:
        values = frame[column]
        if kinds[column] != "nominal" and values.isna().any():
            present = values.dropna()
            fallback = (orders or {}).get(column, (0.0,))[0] if kinds[column] == "ordinal" else 0.0
            filled[column] = values.fillna(present.iloc[0] if len(present) else fallback)
    return filled, kinds


class IBkClassifier(ClassifierMixin, BaseEstimator):
    """k-NN classifier with Weka IBk's distance (Section 5.1.3 of MC17), exact and tie-ruled.

    Frames are encoded by :class:`privnb.learn.encoding.FrameEncoder` (scheme ``"ibk"``) fitted on the training
    rows; the neighbour search is that of :func:`kneighbors`, the tie rules those of the module docstring.

    Parameters
    ----------
    n_neighbors : int
        k; an even k is allowed, though the paper assumes odd k.
    ties : {"weka", "exact-k"}
        "weka" (default, Weka IBk's rule): every row tied with the k-th distance votes, an even split
        goes to ``class_order[0]``; "exact-k": exactly k rows by (distance, position), vote ties to the
        nearest tied class (:func:`vote`).
    class_order : sequence, optional
        The class values in the order Weka's header declares them (CSVLoader: order of first appearance
        in the data file); an even vote goes to the first. Default: the sorted classes.
    ranges : {"weka", "train"}
        Min-max ranges of numeric attributes: "weka" (default) updates them with every query, in the
        order given, before it is classified (as IBk does); "train" keeps the training rows' ranges.
    kinds, orders : mapping, optional
        Column kinds and ordinal orders (``Dataset.kinds`` / ``Dataset.orders``); inferred when None.
    factor_column : str, optional
        A column whose values vary among training rows that repeat all the other columns: the
        sensitive column of the anatomized data D_A (each individual once with each of the l sensitive
        values of its group). The search then runs over the distinct rows of the other columns
        (:func:`kneighbors_factored`, about l times less work); the result is the same. Without it,
        training rows that are mostly repeats (generalized data) are searched the same way, over
        their distinct rows.
    chunk_bytes : int
        Memory of one query chunk's distance matrix.

    Attributes
    ----------
    encoder_ : fitted FrameEncoder; classes_ : array; fit_X_ : encoded training rows;
    n_features_in_ : int; n_samples_fit_ : int.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Instance-Based Learning with l-diversity", Transactions on
       Data Privacy 10, 2017 (MC17).
    """

    def __init__(
        self,
        n_neighbors=1,
        *,
        kinds=None,
        orders=None,
        factor_column=None,
        ties="weka",
        class_order=None,
        ranges="weka",
        chunk_bytes=2**27,
    ):
        self.n_neighbors = n_neighbors
        self.ties = ties
        self.class_order = class_order
        self.ranges = ranges
        self.kinds = kinds
        self.orders = orders
        self.factor_column = factor_column
        self.chunk_bytes = chunk_bytes

    def fit(self, X, y):
        """Encode the training rows (ranges and categories from them) and store them.

        Parameters
        ----------
        X : DataFrame or 2-D array
            The training rows (missing values allowed: Weka's rule).
        y : array-like
            Their class labels.
        """
        k = check_int(self.n_neighbors, "n_neighbors")
        X = validated_rows(self, X, reset=True, ensure_all_finite=False)
        if y is None:
            raise ValueError("IBkClassifier requires y to be passed, but the target y is None.")
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)} labels")
        if k > len(y):
            raise ValueError(
                f"n_neighbors={k} exceeds the {len(y)} training rows ({len(y)} sample(s)); use a smaller k"
            )
        check_rules(self.ties, self.ranges)
        self._missing = bool(X.isna().to_numpy().any())
        filled, kinds = _filled(X, self.kinds, self.orders) if self._missing else (X, self.kinds)
        self.encoder_ = FrameEncoder(kinds=kinds, orders=self.orders, scheme="ibk").fit(filled)
        self.fit_X_ = self.encoder_.transform(filled)
        self._factored = None if self._missing else self._factor()
        self.classes_, self._y = np.unique(y, return_inverse=True)
        self._first = class_ranks(self.classes_, self.class_order)
        self._last_votes = {}  # a memo, not state: the last prediction's votes and shares by its rows and ks
        self._weka_train = weka_columns(self.encoder_, X)
        self._low = np.fmin.reduce(self._weka_train[1], axis=0, initial=np.inf)
        self._high = np.fmax.reduce(self._weka_train[1], axis=0, initial=-np.inf)
        self._low[np.isinf(self._low)], self._high[np.isinf(self._high)] = np.nan, np.nan
        self.n_samples_fit_ = len(y)
        return self

    def _searches(self, X, k, ties, running):
        """One neighbour search for k per run of queries sharing their ranges: [(start, stop, found)].

        ``running``: Weka's running ranges (else the training rows'). Rows with missing values (training or
        queries) are measured by Weka's rule (:func:`weka_sq_distances`), the others by the encoded rows.
        """
        check_is_fitted(self, "fit_X_")
        X = validated_rows(self, X, reset=False, ensure_all_finite=False)
        if self._missing or X[self.encoder_.columns_].isna().to_numpy().any():
            query = weka_columns(self.encoder_, X)
            return [
                (start, stop, self._weka_search(query, start, stop, low, high, k, ties))
                for start, stop, low, high in weka_range_segments(self._low, self._high, query[1], running)
            ]
        query = self.encoder_.transform(X)
        segments = running_range_segments(self.encoder_, (self._low, self._high), X, running=running)
        return [(start, stop, self._search(query[start:stop], k, w, ties)) for start, stop, w in segments]

    def _weka_search(self, query, start, stop, low, high, k, ties):
        codes, numbers = query[0][start:stop], query[1][start:stop]
        return kneighbors_from_distances(
            lambda a, b: weka_sq_distances(self._weka_train, (codes[a:b], numbers[a:b]), low, high),
            stop - start,
            len(self._y),
            k,
            chunk_bytes=self.chunk_bytes,
            ties=ties,
        )

    def _search(self, query, k, w, ties):
        if self._factored is None:
            blocks = one_hot_blocks(self.encoder_)
            return kneighbors(self.fit_X_ * w, query * w, k, chunk_bytes=self.chunk_bytes, ties=ties, blocks=blocks)
        mask, (A, S), a_index, s_index = self._factored
        return kneighbors_factored(
            A * w[~mask],
            S * w[mask],
            a_index,
            s_index,
            query[:, ~mask] * w[~mask],
            query[:, mask] * w[mask],
            k,
            chunk_bytes=self.chunk_bytes,
            ties=ties,
            blocks=blocks_within(one_hot_blocks(self.encoder_), ~mask),
        )

    def _neighbor_counts(self, X, ks):
        """Class counts (len(ks), n_rows, n_classes) of Weka's tied neighbours, one search per range segment."""
        found = self._searches(X, max(ks), True, self.ranges == "weka")
        out = np.zeros((len(ks), found[-1][1] if found else 0, len(self.classes_)), dtype=np.intp)
        for start, stop, neighbors in found:
            out[:, start:stop] = tied_counts(neighbors, self._y, ks, len(self.classes_))
        return out

    def _factor(self):
        """(column mask, distinct parts, part of each row) for the factored search, or None.

        With ``factor_column``: the other columns and that column's encoding. Without it, training
        rows that repeat a lot (generalized data) are searched as their distinct rows when those are
        at most half of the rows; the second part is then empty.
        """
        if self.factor_column is None:
            A, a_index = distinct_rows(self.fit_X_)
            if 2 * len(A) > len(a_index):
                return None
            mask = np.zeros(self.fit_X_.shape[1], dtype=bool)
            return mask, (A, np.zeros((1, 0))), a_index, np.zeros(len(a_index), dtype=np.intp)
        if self.factor_column not in self.encoder_.columns_:
            raise ValueError(
                f"factor_column {self.factor_column!r} is not a training column; columns: {self.encoder_.columns_}"
            )
        column = str(self.factor_column)
        mask = np.array([n == column or n.startswith(column + "=") for n in self.encoder_.get_feature_names_out()])
        A, a_index = distinct_rows(self.fit_X_[:, ~mask])
        S, s_index = distinct_rows(self.fit_X_[:, mask])
        return mask, (A, S), a_index, s_index

    def kneighbors(self, X, n_neighbors=None, return_distance=True):
        """The k nearest training rows of raw rows ``X``, nearest first (Euclidean distances), exactly k
        per row ordered by (distance, position), on the training rows' ranges. Weka's tied neighbours
        (more than k rows when the k-th distance ties) are what :meth:`predict` uses.

        Parameters
        ----------
        X : DataFrame or 2-D array
            The query rows, raw (encoded here).
        n_neighbors : int, optional
            k; default ``self.n_neighbors``.
        return_distance : bool
            Whether the distances are returned too.

        Returns
        -------
        (distances, index) arrays of shape (n_rows, k), or ``index`` alone; ``index`` holds positions of
        the training rows.
        """
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        [(_, _, (sq, index))] = self._searches(X, k, False, running=False)
        return (np.sqrt(sq), index) if return_distance else index

    def predict_many(self, X, ks, *, proba=False):
        """Predictions for several k from ONE neighbour search for max(ks): array (len(ks), n_rows).

        Parameters
        ----------
        X : DataFrame or 2-D array
            The query rows, raw.
        ks : sequence of int
            The k values; row i of the result is the prediction of the classifier with k = ks[i].
        proba : bool
            Also return, from the same search, each k's class distribution (len(ks), n_rows, n_classes), as
            :meth:`predict_proba` gives it.
        """
        ks = [check_int(k, "k") for k in ks]
        check_is_fitted(self, "fit_X_")
        key = (rows_digest(X), tuple(ks), self.ties, self.ranges)  # predict, then predict_proba: one search
        if key not in self._last_votes:
            self._last_votes.clear()
            self._last_votes[key] = self._votes(X, ks)
        out, shares = self._last_votes[key]
        return (self.classes_[out], shares.copy()) if proba else self.classes_[out]

    def _votes(self, X, ks):
        """(each k's vote, each k's class distribution) of the rows ``X``, from one neighbour search."""
        n_classes = len(self.classes_)
        if self.ties == "exact-k":
            found = self._searches(X, max(ks), False, self.ranges == "weka")
            n_rows = found[-1][1] if found else 0
            out, shares = np.empty((len(ks), n_rows), dtype=np.intp), np.zeros((len(ks), n_rows, n_classes))
            for start, stop, (_, index) in found:
                labels = self._y[index]
                out[:, start:stop] = vote(labels, ks, n_classes)
                shares[:, start:stop] = [(labels[:, :k, None] == np.arange(n_classes)).mean(axis=1) for k in ks]
        else:
            counts = self._neighbor_counts(X, ks)
            out = weka_vote(counts, self._first)
            shares = counts + 1.0 / max(1, self.n_samples_fit_)
            shares = shares / shares.sum(axis=2, keepdims=True)
        return out, shares

    def __sklearn_tags__(self):
        """Missing values are allowed (Weka's rule); infinite ones are refused."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def predict(self, X):
        """Majority vote of the ``n_neighbors`` nearest training rows (with the tie rule of ``ties``)."""
        return self.predict_many(X, [self.n_neighbors])[0]

    def predict_proba(self, X):
        """IBk's distribution (``ties="weka"``): every class 1 / n_train plus its votes, normalized;
        with ``ties="exact-k"``, the share of each class among the k nearest rows.
        """
        return self.predict_many(X, [check_int(self.n_neighbors, "n_neighbors")], proba=True)[1][0]
