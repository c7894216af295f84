"""The convergence experiment of Section 5.2.6 of MC17 (Figure 9): the 1-NN's error against the size of its
training data, for the original and the anatomized 1-NN, trained on 1..n_parts parts of each fold.

It runs on :func:`~privnb.experiments.folds.run_folds` like every experiment: each view's estimator
(:class:`PartsTraining`) splits the training fold into parts and builds the training rows of every prefix
(each part anatomized on its own); its scorer (:class:`PrefixScorer`) measures the 1-NN of every prefix on
the raw test fold, one :class:`~privnb.experiments.folds.Score` per training size.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.experiments.folds import FoldData, Score, View, error_rate, run_folds
from privnb.experiments.knn_l_diversity.cross_validation import check_neighbors_ls, ibk_options
from privnb.learn.encoding import FrameEncoder, one_hot_blocks
from privnb.learn.knn import check_rules, numeric_ranges, running_range_segments
from privnb.learn.knn_votes import class_ranks, weka_vote
from privnb.learn.neighbors import (
    factor_rows,
    nearest_per_part,
    tied_counts_per_part,
    tied_counts_per_part_factored,
)
from privnb.mechanisms.anatomy import anatomize
from privnb.validation import check_int, with_labels


@shared_doc
class PartsTraining(BaseEstimator):
    """The training rows of every prefix of ``n_parts`` parts of a training fold (Section 5.2.6 of MC17).

    ``fit`` splits the rows into ``n_parts`` parts (stratified, at random) and, with ``l``, anatomizes each
    part on its own (groups never span parts), so the rows of parts 0..j are an l-diverse anatomization
    of those individuals. It learns nothing: :class:`PrefixScorer` trains the 1-NN of each prefix.

    Parameters
    ----------
    sensitive : str, optional
        The sensitive column (with ``l``).
    l : int, optional
        Anatomize each part with this l; None: the original rows.
    n_parts : int
        Parts of the training fold.
    draw : int
        The anatomization seeds are drawn after the split from the same generator; this view takes draw
        number ``draw`` (from 0), so views of several l seeded alike get the seeds one loop over the l
        would give.
    random_state : int, RandomState or None
        Seeds the split and the anatomizations.
        {random_state}

    Attributes
    ----------
    frame_ : DataFrame, the raw training rows (the encoder is fitted on them).
    rows_ : DataFrame, the training rows of all parts (D_A of each part with ``l``).
    labels_ : array, their labels; part_of_ : array, the part of each of ``rows_``.
    sizes_ : array, individuals in parts 0..j; suppressed_ : array, individuals anatomy dropped in parts 0..j.
    """

    def __init__(self, *, sensitive=None, l=None, n_parts=9, draw=0, random_state=None):
        self.sensitive = sensitive
        self.l = l
        self.n_parts = n_parts
        self.draw = draw
        self.random_state = random_state

    def fit(self, X, y):
        """Split the rows into parts and build every part's training rows (NotLDiverseError: l too large).

        Parameters
        ----------
        X : DataFrame
            The training fold.
        y : array-like
            Its labels.

        Returns
        -------
        self
        """
        n_parts = check_int(self.n_parts, "n_parts")
        y = np.asarray(y)
        rng = check_random_state(self.random_state)
        part_of = np.empty(len(y), dtype=int)
        for cls in np.unique(y):
            members = np.flatnonzero(y == cls)
            part_of[rng.permutation(members)] = np.arange(len(members)) % n_parts
        self.frame_ = X.reset_index(drop=True)
        self.sizes_ = np.cumsum(np.bincount(part_of, minlength=n_parts))
        if self.l is None:
            self.rows_, self.labels_, self.part_of_ = self.frame_, y, part_of
            self.suppressed_ = np.zeros(n_parts, dtype=int)
            return self
        for _ in range(self.draw):
            rng.randint(2**31 - 1)
        self._anatomize(y, part_of, int(rng.randint(2**31 - 1)))
        return self

    def _anatomize(self, y, part_of, seed):
        data, target = with_labels(self.frame_, y)
        pieces, piece_parts, suppressed = [], [], []
        for j in range(len(self.sizes_)):
            anatomy = anatomize(data[part_of == j], self.sensitive, self.l, random_state=seed + j)
            joined = anatomy.join()
            pieces.append(joined)
            piece_parts.append(np.full(len(joined), j))
            suppressed.append(len(anatomy.suppressed))
        joined = pd.concat(pieces, ignore_index=True)
        self.rows_ = joined[list(self.frame_.columns)]
        self.labels_ = joined[target].to_numpy()
        self.part_of_ = np.concatenate(piece_parts)
        self.suppressed_ = np.cumsum(suppressed)


@dataclass(frozen=True)
class PrefixScorer:
    """The 1-NN (Weka IBk's) trained on parts 0..j of a fitted :class:`PartsTraining`, for every j.

    One :class:`~privnb.experiments.folds.Score` per j: classifier ``"1-NN"``, metric
    ``"incremental_error"``, ``n_train`` the individuals of parts 0..j, ``n_suppressed`` those anatomy
    dropped in them. ``classifier="majority"`` scores the most frequent class of parts 0..j instead.

    Parameters
    ----------
    kinds, orders : mapping
        Column kinds and ordinal orders of the IBk distance.
    ties, ranges : str
        IBk's tie and range rules (:class:`~privnb.learn.IBkClassifier`).
    class_order : tuple
        The class values, first first (an even vote goes to the first).
    classifier : {"1-NN", "majority"}
        What is trained on each prefix.
    factor_column : str, optional
        The sensitive column of D_A: the 1-NN's search runs over the distinct quasi-identifier rows (about
        l times less work), with the same result.
    """

    kinds: dict
    orders: dict
    ties: str = "weka"
    ranges: str = "weka"
    class_order: tuple | None = None
    classifier: str = "1-NN"
    factor_column: str | None = None

    def __call__(self, fitted: PartsTraining, data: FoldData) -> list[Score]:
        """The error of each prefix's classifier on the raw test fold.

        Parameters
        ----------
        fitted : PartsTraining
            The fitted prefixes.
        data : FoldData
            The fold's rows.

        Returns
        -------
        list of Score
        """
        classes = np.unique(np.concatenate([np.asarray(data.y_train), np.asarray(data.y_test)]))
        if self.classifier == "majority":
            predictions = _prefix_majority(fitted.labels_, fitted.part_of_, classes, len(fitted.sizes_))
        else:
            encoder = FrameEncoder(kinds=self.kinds, orders=dict(self.orders), scheme="ibk").fit(fitted.frame_)
            search = _PrefixSearch(
                encoder, data.X_test, classes, class_ranks(classes, self.class_order), self.ties, self.ranges
            )
            factor = self.factor_column if fitted.l is not None else None
            predictions = search.predict(fitted.rows_, fitted.part_of_, fitted.labels_, factor)
        return [
            Score(self.classifier, "incremental_error", error_rate(data.y_test, p), "", float(n), float(s))
            for p, n, s in zip(predictions, fitted.sizes_, fitted.suppressed_)
        ]

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pair of every N/A row (one per part)."""
        return ((self.classifier, "incremental_error"),)


def _prefix_majority(labels, part_of, classes, n_parts):
    """The most frequent class of parts 0..j (the smallest on a tie, as scikit-learn's DummyClassifier)."""
    codes = np.searchsorted(classes, labels)
    counts = np.zeros((n_parts, len(classes)), dtype=np.intp)
    np.add.at(counts, (part_of, codes), 1)
    return classes[np.cumsum(counts, axis=0).argmax(axis=1)][:, None]


class _PrefixSearch:
    """The 1-NN trained on parts 0..j of some training rows, for every j, on one fold's test rows.

    The encoder is fitted on the fold's training rows (categories and reference widths); the ranges
    each model measures on are applied as column weights (:func:`running_range_segments`).
    """

    def __init__(self, encoder, query_frame, classes, first, ties, ranges):
        self.encoder, self.query_frame = encoder, query_frame
        self.query = encoder.transform(query_frame)
        columns = list(encoder.columns_)
        complete = not query_frame[columns].isna().to_numpy().any()
        self._blocks = one_hot_blocks(encoder) if complete else []  # a missing value encodes as no entry
        self.classes, self.first, self.ties, self.ranges = classes, first, ties, ranges

    def _segments(self, prefix_frame):
        running = self.ranges == "weka"
        return running_range_segments(
            self.encoder, numeric_ranges(self.encoder, prefix_frame), self.query_frame, running
        )

    def predict(self, frame, part_of, labels, factor_column=None):
        """Predicted labels, shape (n_parts, n_query): row j is the 1-NN trained on parts 0..j.

        ``factor_column``: a column whose values vary among rows that repeat all the others (the sensitive
        column of D_A); IBk's search then runs over the distinct rows of the others
        (:func:`~privnb.learn.neighbors.tied_counts_per_part_factored`), with the same result.
        """
        codes = np.searchsorted(self.classes, labels)
        encoded = self.encoder.transform(frame)
        blocks = [] if frame[list(self.encoder.columns_)].isna().to_numpy().any() else self._blocks
        mask = None
        if factor_column is not None:
            names = self.encoder.get_feature_names_out()
            mask = np.array([n == str(factor_column) or n.startswith(f"{factor_column}=") for n in names])
        n_parts = int(part_of.max()) + 1
        groups = {}
        for j in range(n_parts):
            segments = self._segments(frame[part_of <= j])
            key = tuple((start, stop, w.tobytes()) for start, stop, w in segments)
            groups.setdefault(key, (segments, []))[1].append(j)
        out = np.empty((n_parts, len(self.query)), dtype=np.intp)
        for segments, js in groups.values():
            rows = part_of <= max(js)
            factors = None if mask is None else factor_rows(encoded[rows], mask, part_of[rows])
            for start, stop, w in segments:
                train, query = encoded[rows] * w, self.query[start:stop] * w
                if self.ties == "exact-k":
                    nearest = nearest_per_part(train, part_of[rows], query, blocks=blocks)
                    out[js, start:stop] = codes[rows][nearest[js]]
                    continue
                if mask is None:
                    counts = tied_counts_per_part(
                        train, part_of[rows], query, codes[rows], len(self.classes), blocks=blocks
                    )
                else:
                    counts = tied_counts_per_part_factored(
                        train,
                        mask,
                        part_of[rows],
                        query,
                        codes[rows],
                        len(self.classes),
                        factors=factors,
                        blocks=blocks,
                    )
                out[js, start:stop] = weka_vote(counts[js], self.first)
        return self.classes[out]


def convergence_views(
    dataset,
    ls,
    n_parts=9,
    *,
    ties="weka",
    ranges="weka",
    sensitive_kind="weka",
    class_order="appearance",
    majority=True,
) -> list[View]:
    """The views of the convergence experiment: the original 1-NN, the anatomized 1-NN per l, the majority.

    Parameters
    ----------
    dataset : Dataset
        The data.
    ls : sequence of int
        The l of the anatomized views.
    n_parts : int
        Parts of each training fold.
    ties, ranges, sensitive_kind, class_order : str
        IBk's readings, as in :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`.
    majority : bool
        Add the majority class of each prefix (the baseline).

    Returns
    -------
    list of View
    """
    options = ibk_options(dataset, ties=ties, ranges=ranges, sensitive_kind=sensitive_kind, class_order=class_order)
    scorer = PrefixScorer(options["kinds"], dict(dataset.orders), ties, ranges, options["class_order"])
    views = [View("original", None, PartsTraining(n_parts=n_parts), scorer)]
    scorer = replace(scorer, factor_column=dataset.sensitive)
    views += [
        View(
            "anatomized",
            l,
            PartsTraining(sensitive=dataset.sensitive, l=l, n_parts=n_parts, draw=i),
            scorer,
            outputs=scorer.outputs * n_parts,  # one N/A row per training size
        )
        for i, l in enumerate(ls)
    ]
    if majority:
        views.append(
            View("majority", None, PartsTraining(n_parts=n_parts), PrefixScorer({}, {}, classifier="majority"))
        )
    return views


@shared_doc
def convergence_curves(
    dataset,
    *,
    ls=(2, 3, 4, 5),
    n_splits=10,
    n_parts=9,
    random_state=None,
    folds=None,
    n_jobs=None,
    progress=True,
    ties="weka",
    ranges="weka",
    sensitive_kind="weka",
    class_order="appearance",
    majority=True,
) -> pd.DataFrame:
    """The convergence experiment of Section 5.2.6 (Figure 9) of MC17: 1-NN on 1..n_parts parts.

    In each fold the training rows are split (stratified, at random) into ``n_parts`` parts; the
    original 1-NN and, for each l, the anatomized 1-NN are trained on parts 1..j for j = 1..n_parts and
    scored on the raw test fold (:func:`convergence_views`, run by
    :func:`~privnb.experiments.folds.run_folds`). Each part is anatomized on its own, so the anatomized
    data of parts 1..j is an l-diverse anatomization of those rows (groups never span parts). The 1-NN
    is Weka IBk's, as in :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`: ``ties="weka"``
    (every row at the smallest distance votes, an even split to the class Weka declares first,
    ``class_order``), ``ranges="weka"`` (the model trained on parts 1..j starts from those rows' min-max
    ranges and widens them with each test row) and ``sensitive_kind``; ``ties="exact-k"`` (the first
    nearest row by position) and ``ranges="train"`` (the ranges of parts 1..j) are privnb's other readings.

    Cost: one distance pass per (fold, view, range segment) serves every j whose ranges are the same
    (:func:`~privnb.learn.neighbors.tied_counts_per_part`): n_test queries against the N rows of the
    original view, O(n_test N p); for D_A the pass runs over its N distinct quasi-identifier rows, not its
    N l rows (:func:`~privnb.learn.neighbors.tied_counts_per_part_factored`), as the cross-validation does;
    a j whose ranges differ (a small prefix that misses an extreme value) gets its own pass.

    Parameters
    ----------
    dataset : Dataset
        The data.
    ls : sequence of int
        The l of the anatomized views (at least 2).
    n_splits : int
        Folds (the paper: 10).
    n_parts : int
        Parts of each training fold (the paper: 9).
    random_state : int, RandomState or None
        Seeds the folds, the parts and the anatomizations.
        {random_state}
    folds : sequence of int, optional
        Fold indices to run (default all), with the same splits and seeds.
    n_jobs : int, optional
        Folds run in parallel processes, with the same rows.
    progress : bool
        Show a progress bar over the folds.
    ties, ranges, sensitive_kind, class_order : str
        IBk's readings, as in :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`.
    majority : bool
        Add the majority-class baseline of each prefix (classifier and method ``"majority"``).

    Returns
    -------
    DataFrame
        Tidy rows, classifier ``"1-NN"``, metric ``"incremental_error"`` (so they never mix with the
        ``"error"`` rows of :func:`cross_validate_knn` in one table); ``n_train`` holds the training-set
        size in individuals of parts 1..j (the x axis of Figure 9; the anatomized classifier sees l rows
        for each one kept), ``n_suppressed`` the individuals the anatomization of those parts dropped.
    """
    _, ls = check_neighbors_ls([1], ls)
    check_rules(ties, ranges)
    views = convergence_views(
        dataset,
        ls,
        check_int(n_parts, "n_parts"),
        ties=ties,
        ranges=ranges,
        sensitive_kind=sensitive_kind,
        class_order=class_order,
        majority=majority,
    )
    return run_folds(
        dataset,
        views,
        n_splits=n_splits,
        random_state=random_state,
        folds=folds,
        n_jobs=n_jobs,
        progress=progress,
        desc=f"convergence {dataset.name}",
    )
