"""MDAV microaggregation: k-anonymity for numeric quasi-identifiers by replacing each record's values with its
group's centroid (Domingo-Ferrer and Mateo-Sanz 2002, the method of sdcMicro's ``microaggregation`` and
anonypyx).

Maximum Distance to Average Vector: while at least 3k records remain, take the record r farthest from the
remaining records' centroid and form a group of r and its k-1 nearest remaining records; then the record s
farthest from r among those left and a group of s and its k-1 nearest. When 2k to 3k-1 records remain, one
more group forms around the record farthest from their centroid and the rest is the last group; fewer than
2k form one group. So every group has k to 2k-1 records. Distances are Euclidean, on standardized values by
default. Ties go to the lowest row position (the farthest record, and the nearest records after a stable
sort by distance; a group's seed record is always in its group). The remaining records' centroid is their
running sum (every record's, less each grouped record's, in row order) over their number.

:func:`mdav_groups` finds the farthest and nearest records on a k-d tree compiled with numba
(:mod:`privnb.mechanisms._mdav_kernel`, near O(n log n): a million rows in under a minute) or, without numba,
by scanning the remaining records at every step (O(n^2 / k)); both give the same groups.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import TransformerMixin
from sklearn.exceptions import NotFittedError

import privnb.mechanisms._mdav_kernel as mdav_kernel
from privnb.mechanisms.base import Mechanism
from privnb.mechanisms.grouping import check_frame
from privnb.mechanisms.releases import MicroaggregatedRelease
from privnb.validation import check_int, validated_rows

__all__ = ["MDAVMicroaggregator", "mdav_groups"]


def _squared_distances(points: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances summed over the dimensions in order (as the compiled tree sums them)."""
    total = np.zeros(len(points))
    for j in range(points.shape[1]):
        total += (points[:, j] - center[j]) ** 2
    return total


def _checked_points(points) -> np.ndarray:
    """``points`` as a 2-D float array, or a ValueError when MDAV could not end on them (a NaN is never the
    farthest nor the nearest point, so no group would form; a mean or a squared distance that overflows is
    inf or NaN).
    """
    points = np.asarray(points, dtype=float)
    if points.ndim != 2:
        raise ValueError(f"MDAV needs a 2-D array of points (records x dimensions), got shape {points.shape}")
    if not np.isfinite(points).all():
        raise ValueError("the points hold NaN or infinite values; drop or impute them before MDAV")
    with np.errstate(over="ignore", invalid="ignore"):
        center = points.mean(axis=0)
        reach = float(np.abs(points - center).max(initial=0.0))
        if not (np.isfinite(center).all() and np.isfinite(reach * reach * max(points.shape[1], 1))):
            raise ValueError(
                f"the points' mean or squared distances overflow float64 (values up to {np.abs(points).max():.3g}); "
                "rescale them first (MDAVMicroaggregator(standardize=True) does)"
            )
    return points


def mdav_groups(points, k: int, *, algorithm: str | None = None) -> np.ndarray:
    """The MDAV group of each record (groups numbered in the order they form).

    Parameters
    ----------
    points : array-like of shape (n_records, n_dimensions)
        The records' (standardized) quasi-identifier values.
    k : int
        The least group size; at least 1 and at most the number of records.
    algorithm : {"tree", "scan"} or None
        How the farthest and nearest records are found; both give the same groups. "tree": branch and bound
        on a k-d tree compiled with numba, near O(n log n) (a million rows in under a minute); "scan": every
        step scans the remaining records, O(n^2 / k) (about a minute at 100k rows), the reference and the path
        without numba. None: "tree" when numba is installed, else "scan".

    Returns
    -------
    ndarray of int, shape (n_records,)
    """
    points = _checked_points(points)
    n = len(points)
    k = check_int(k, "k")
    if n < k:
        raise ValueError(f"MDAV needs at least k = {k} records, got {n} sample(s)")
    if algorithm is None:
        algorithm = "scan" if mdav_kernel.numba is None else "tree"
    if algorithm == "tree":
        if mdav_kernel.numba is None:
            raise ImportError("MDAV's tree algorithm needs numba (pip install numba); algorithm='scan' does without")
        return mdav_kernel.mdav_tree_groups(points, k)
    if algorithm != "scan":
        raise ValueError(f"algorithm must be 'tree', 'scan' or None, got {algorithm!r}")
    return _scan_groups(points, k)


def _scan_groups(points: np.ndarray, k: int) -> np.ndarray:
    """MDAV by scanning the remaining records at every step (see :func:`mdav_groups`)."""
    n = len(points)
    group = np.full(n, -1, dtype=np.intp)
    ids, left = np.arange(n), points  # the remaining records, kept compact and in row order
    total = np.zeros(points.shape[1])
    for row in points:  # the running sum of the remaining records, in the tree's order
        total += row

    def form(seed: int, label: int) -> None:
        """Group the remaining record at position ``seed`` with its k-1 nearest (ties: lowest positions)."""
        nonlocal ids, left
        distance = _squared_distances(left, left[seed])
        distance[seed] = -1.0  # the seed first, whatever ties it has
        cut = np.partition(distance, k - 1)[k - 1]
        take = distance < cut
        take[np.flatnonzero(distance == cut)[: k - int(take.sum())]] = True
        group[ids[take]] = label
        for row in left[take]:
            total[:] -= row
        ids, left = ids[~take], left[~take]

    label = 0
    while len(ids) >= 3 * k:
        r = int(np.argmax(_squared_distances(left, total / len(ids))))
        far = left[r].copy()
        form(r, label)
        form(int(np.argmax(_squared_distances(left, far))), label + 1)
        label += 2
    if len(ids) >= 2 * k:
        form(int(np.argmax(_squared_distances(left, total / len(ids)))), label)
        label += 1
    group[ids] = label
    return group


class MDAVMicroaggregator(TransformerMixin, Mechanism):
    """k-anonymity by MDAV microaggregation of numeric quasi-identifiers (a mechanism).

    :meth:`fit_resample` replaces each training row's quasi-identifiers with its MDAV group's centroid (the
    group means, on the original scale), so every released combination is shared by k to 2k-1 rows; nothing
    is suppressed and the other columns are unchanged. :meth:`transform` maps any row (a test row) to the
    centroid of its nearest group, in the same (standardized) space, so that ``ProtectedTraining`` can test
    on raw rows.

    Parameters
    ----------
    quasi_identifiers : sequence of str
        The numeric columns aggregated (positions for an array).
    k : int
        The least group size.
    standardize : bool
        Measure distances on values centred and scaled by the training rows' mean and standard deviation (a
        constant column is only centred); else on the raw values.

    Attributes
    ----------
    groups_ : ndarray of int
        The group of each training row.
    centroids_ : DataFrame
        One row per group: the mean of its quasi-identifiers.
    generalized_ : DataFrame
        The release: the training rows with their group's centroid.
    suppressed_ : Index
        Empty (MDAV suppresses nothing).
    n_groups_ : int
        The number of groups.
    n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(self, quasi_identifiers, k, *, standardize=True):
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.standardize = standardize

    def _values(self, frame: pd.DataFrame, qi: list) -> np.ndarray:
        bad = [a for a in qi if not pd.api.types.is_numeric_dtype(frame[a])]
        if bad:
            raise ValueError(
                f"MDAV aggregates numeric quasi-identifiers only; {bad} are not numeric "
                "(generalize them with FullDomainGeneralizer or MondrianGeneralizer instead)"
            )
        values = frame[qi].to_numpy(dtype=float)
        if not np.isfinite(values).all():
            raise ValueError(f"the quasi-identifiers {qi} hold missing or infinite values; drop or impute them first")
        return values

    def fit(self, X, y=None) -> MDAVMicroaggregator:
        """Form the MDAV groups of the training rows and their centroids.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            The training rows.
        y : None
            Ignored.

        Returns
        -------
        MDAVMicroaggregator
        """
        frame, qi = check_frame(validated_rows(self, X, reset=True), self.quasi_identifiers)
        k = check_int(self.k, "k")
        values = self._values(frame, qi)
        if len(frame) < k:
            raise ValueError(f"{len(frame)} sample(s) cannot form a group of k = {k}; need at least k rows")
        with np.errstate(over="ignore", invalid="ignore"):
            self.center_ = values.mean(axis=0) if self.standardize else np.zeros(len(qi))
            scale = values.std(axis=0) if self.standardize else np.ones(len(qi))
        if not (np.isfinite(self.center_).all() and np.isfinite(scale).all()):
            raise ValueError(f"the mean or standard deviation of {qi} overflows float64; rescale them first")
        self.scale_ = np.where(scale > 0, scale, 1.0)
        self.groups_ = mdav_groups((values - self.center_) / self.scale_, k)
        sums = np.zeros((int(self.groups_.max()) + 1, len(qi)))
        np.add.at(sums, self.groups_, values)
        means = sums / np.bincount(self.groups_)[:, None]
        self.quasi_identifiers_ = qi
        self.centroids_ = pd.DataFrame(means, columns=qi)
        self.n_groups_ = len(means)
        self.suppressed_ = frame.index[:0]
        self.generalized_ = self._with_centroids(frame, self.groups_)
        self.release_ = MicroaggregatedRelease(
            self.generalized_, tuple(qi), self.groups_, self.suppressed_, k, "mdav", centroids=self.centroids_
        )
        return self

    def _with_centroids(self, frame: pd.DataFrame, groups: np.ndarray) -> pd.DataFrame:
        out = frame.copy()
        for j, a in enumerate(self.quasi_identifiers_):
            out[a] = self.centroids_.to_numpy()[groups, j]
        return out

    def _validate_rows(self, X) -> pd.DataFrame:
        return validated_rows(self, X, reset=True).reset_index(drop=True)

    def _fit_resample(self, X, y):
        """Fit on the training rows and release each with its own group's centroid; with their labels."""
        self.fit(X)
        return self.generalized_, y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # a frame: centroids as floats, other columns unchanged
        tags.input_tags.sparse = False
        return tags

    def transform(self, X) -> pd.DataFrame:
        """Any rows with their quasi-identifiers replaced by the centroid of the nearest group.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            The rows (test rows; a training row may be nearer another group's centroid than its own).

        Returns
        -------
        DataFrame
        """
        if not hasattr(self, "centroids_"):
            raise NotFittedError("this MDAVMicroaggregator is not fitted yet; call fit(X) first")
        frame = check_frame(validated_rows(self, X, reset=False), self.quasi_identifiers_)[0]
        points = (self._values(frame, self.quasi_identifiers_) - self.center_) / self.scale_
        centers = (self.centroids_.to_numpy() - self.center_) / self.scale_
        nearest = np.empty(len(points), dtype=np.intp)
        step = max(1, (1 << 22) // len(centers))  # rows per block of the distance matrix (4M entries)
        for start in range(0, len(points), step):
            block = points[start : start + step]
            distances = (centers**2).sum(axis=1)[None, :] - 2 * block @ centers.T  # + |x|^2, equal per row
            nearest[start : start + step] = np.argmin(distances, axis=1)
        return self._with_centroids(frame, nearest)
