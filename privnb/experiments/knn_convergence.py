"""The convergence experiment of Section 5.2.6 of seed 002 (Figure 9): the 1-NN's error against the size
of its training data, for the original and the anatomized 1-NN, trained on 1..9 parts of each fold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from privnb.experiments.folds import chosen_folds, error_rate, folds_and_seeds, tidy_frame
from privnb.experiments.knn import _check_neighbors_ls, ibk_kinds, weka_class_order
from privnb.learn.encoding import FrameEncoder
from privnb.learn.knn import check_rules, numeric_ranges, running_range_segments
from privnb.learn.knn_votes import class_ranks, weka_vote
from privnb.learn.neighbors import nearest_per_part, tied_counts_per_part
from privnb.mechanisms.anatomy import NotLDiverseError, anatomize
from privnb.validation import with_labels


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
) -> pd.DataFrame:
    """The convergence experiment of Section 5.2.6 (Figure 9) of seed 002: 1-NN on 1..n_parts parts.

    In each fold the training rows are split (stratified, at random) into ``n_parts`` parts; the
    original 1-NN and, for each l, the anatomized 1-NN are trained on parts 1..j for j = 1..n_parts and
    scored on the raw test fold. Each part is anatomized on its own, so the anatomized data of parts
    1..j is an l-diverse anatomization of those rows (groups never span parts). The 1-NN is Weka IBk's,
    as in :func:`~privnb.experiments.cross_validate_knn`: ``ties="weka"`` (every row at the smallest
    distance votes, an even split to the class Weka declares first), ``ranges="weka"`` (the model trained
    on parts 1..j starts from those rows' min-max ranges and widens them with each test row) and
    ``sensitive_kind`` (:func:`~privnb.experiments.knn.ibk_kinds`); ``ties="exact-k"`` (the first nearest
    row by position) and ``ranges="train"`` (the ranges of parts 1..j) are privnb's other readings.

    One distance pass per (fold, view, range segment) serves every j whose ranges are the same
    (:func:`~privnb.learn.neighbors.tied_counts_per_part`); a j whose ranges differ (a small prefix that
    misses an extreme value) gets its own pass. ``folds`` (indices, default all) runs part of the folds
    with the same splits and seeds; ``n_jobs`` runs folds in parallel processes, with the same result;
    ``progress`` shows a progress bar over the folds.

    Returns
    -------
    DataFrame
        Tidy rows, classifier ``"1-NN"``, metric ``"incremental_error"`` (so they never mix with the
        ``"error"`` rows of :func:`cross_validate_knn` in one table); ``n_train`` holds the training-set
        size in individuals of parts 1..j (the x axis of Figure 9; the anatomized classifier sees l rows
        for each one kept), ``n_suppressed`` the individuals the anatomization of those parts dropped.
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    _, ls = _check_neighbors_ls([1], ls)
    check_rules(ties, ranges)
    splits, seeds = folds_and_seeds(np.asarray(dataset.y), n_splits, random_state)
    folds = chosen_folds(folds, n_splits)
    rule = {"ties": ties, "ranges": ranges, "sensitive_kind": sensitive_kind}
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_convergence_fold)(dataset, ls, n_parts, fold, *splits[fold], int(seeds[fold]), rule) for fold in folds
    )
    return tidy_frame(
        [
            row
            for rows in tqdm(outcomes, total=len(folds), disable=not progress, desc=f"convergence {dataset.name}")
            for row in rows
        ]
    )


def _convergence_fold(dataset, ls, n_parts, fold, train, test, seed, rule):
    """Result rows of one fold: the original 1-NN, then the anatomized 1-NN for each l."""
    X, y = dataset.X, np.asarray(dataset.y)
    rng = check_random_state(seed)
    part_of = np.empty(len(train), dtype=int)
    for cls in np.unique(y[train]):
        members = np.flatnonzero(y[train] == cls)
        part_of[rng.permutation(members)] = np.arange(len(members)) % n_parts
    frame = X.iloc[train].reset_index(drop=True)
    kinds = ibk_kinds(dataset, rule["sensitive_kind"])
    classes = np.unique(y)
    search = _PrefixSearch(
        FrameEncoder(kinds=kinds, orders=dict(dataset.orders), scheme="ibk").fit(frame),
        X.iloc[test],
        classes,
        class_ranks(classes, weka_class_order(dataset)),
        rule,
    )
    sizes = np.cumsum(np.bincount(part_of, minlength=n_parts))
    predictions = search.predict(frame, part_of, y[train])
    rows = [
        _convergence_row(dataset, "original", np.nan, fold, error_rate(y[test], predictions[j]), sizes[j], 0)
        for j in range(n_parts)
    ]
    for l in ls:
        rows += _anatomized_convergence(dataset, frame, y[train], part_of, search, y[test], l, rng, fold, sizes)
    return rows


class _PrefixSearch:
    """The 1-NN trained on parts 0..j of some training rows, for every j, on one fold's test rows.

    The encoder is fitted on the fold's training rows (categories and reference widths); the ranges
    each model measures on are applied as column weights (:func:`running_range_segments`).
    """

    def __init__(self, encoder, query_frame, classes, first, rule):
        self.encoder, self.query_frame = encoder, query_frame
        self.query = encoder.transform(query_frame)
        self.classes, self.first, self.rule = classes, first, rule

    def _segments(self, prefix_frame):
        running = self.rule["ranges"] == "weka"
        return running_range_segments(
            self.encoder, numeric_ranges(self.encoder, prefix_frame), self.query_frame, running
        )

    def predict(self, frame, part_of, labels):
        """Predicted labels, shape (n_parts, n_query): row j is the 1-NN trained on parts 0..j."""
        codes = np.searchsorted(self.classes, labels)
        encoded = self.encoder.transform(frame)
        n_parts = int(part_of.max()) + 1
        groups = {}
        for j in range(n_parts):
            segments = self._segments(frame[part_of <= j])
            key = tuple((start, stop, w.tobytes()) for start, stop, w in segments)
            groups.setdefault(key, (segments, []))[1].append(j)
        out = np.empty((n_parts, len(self.query)), dtype=np.intp)
        for segments, js in groups.values():
            rows = part_of <= max(js)
            for start, stop, w in segments:
                train, query = encoded[rows] * w, self.query[start:stop] * w
                if self.rule["ties"] == "weka":
                    counts = tied_counts_per_part(train, part_of[rows], query, codes[rows], len(self.classes))
                    out[js, start:stop] = weka_vote(counts[js], self.first)
                else:
                    out[js, start:stop] = codes[rows][nearest_per_part(train, part_of[rows], query)[js]]
        return self.classes[out]


def _convergence_row(dataset, method, param, fold, value, n_train, n_suppressed, note=""):
    """One tidy row of the convergence experiment (1-NN, metric ``incremental_error``)."""
    return (dataset.name, "1-NN", method, param, fold, "incremental_error", value, n_train, n_suppressed, note)


def _anatomized_convergence(dataset, frame, labels, part_of, search, y_test, l, rng, fold, sizes):
    n_parts = len(sizes)
    seed = int(rng.randint(2**31 - 1))
    data, target = with_labels(frame, labels)
    pieces, piece_parts, suppressed = [], [], np.zeros(n_parts, dtype=int)
    try:
        for j in range(n_parts):
            anatomy = anatomize(data[part_of == j], dataset.sensitive, l, random_state=seed + j)
            joined = anatomy.join()
            pieces.append(joined)
            piece_parts.append(np.full(len(joined), j))
            suppressed[j] = len(anatomy.suppressed)
    except NotLDiverseError as error:
        return [
            _convergence_row(dataset, "anatomized", float(l), fold, np.nan, sizes[j], np.nan, f"N/A: {error}")
            for j in range(n_parts)
        ]
    joined = pd.concat(pieces, ignore_index=True)
    predictions = search.predict(joined[list(frame.columns)], np.concatenate(piece_parts), joined[target].to_numpy())
    cumulative = np.cumsum(suppressed)
    return [
        _convergence_row(
            dataset, "anatomized", float(l), fold, error_rate(y_test, predictions[j]), sizes[j], cumulative[j]
        )
        for j in range(n_parts)
    ]
