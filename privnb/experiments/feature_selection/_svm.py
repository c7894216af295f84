"""The linear SVM of Section 5.2 of FSAC that scores every feature-selection method, and its test AUC.

A linear SVM with the squared hinge (L2) loss, its C tuned on a small validation split of the training
fold; the AUC of its decision values on the test fold.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.mechanisms.containment import row_keys

CLASSIFIER = "linear-svm"
"""The classifier name of every result row of notebook 03."""

C_GRID = (0.01, 0.1, 1.0)
"""Values of C tried on the validation split (the paper does not give its grid)."""

CONSTANT_AUC = 0.5
"""The AUC of a constant score (the majority-class baseline, or an SVM that cannot be trained)."""

_MAX_ITER = 2000
_SOLVER_SEED = 0  # liblinear's coordinate order (see fit_svm)
_PACKED_FEATURES = 512  # repeated rows keyed by their packed bits up to this many features, else by a loop


@shared_doc
def fit_svm(
    X,
    y,
    *,
    c_grid: Sequence[float] = C_GRID,
    validation_size: float = 0.2,
    merge_repeats: bool = False,
    random_state=None,
) -> LinearSVC:
    """LinearSVC (squared hinge loss) with C picked by AUC on a stratified validation split, refit on all.

    Section 5.2 of FSAC: "the only parameter ... which we tune using a small validation set".
    liblinear stops after 2000 iterations on data it cannot separate well (flipped or noisy rows); the
    unconverged fit is still a valid linear classifier, its AUC says how good, so that warning is muted.
    liblinear's dual solver visits coordinates in a random order, a detail of the solver: it gets a fixed
    seed, so a fit is reproducible (unseeded it drew from NumPy's global state) and the experiment's own
    random stream (folds, noise, flips) is left as it was.

    ``merge_repeats`` fits each row that repeats (same features, same label) once, weighted by its count
    (:func:`repeated_rows`): the same squared-hinge objective (liblinear scales C per row by its weight) with
    fewer dual variables. RF's k-anonymous rows repeat at least k times, so its fits run several times faster;
    converged fits agree up to the solver's tolerance, an unconverged one (2000 iterations) may end elsewhere.

    Parameters
    ----------
    X : array or sparse matrix
        Training rows.
    y : array of int
        Labels 0/1.
    c_grid : sequence of float
        Values of C; with one value (or a class of fewer than 2 rows) no validation split is drawn.
    validation_size : float
        Share of the rows held out to pick C (the split is drawn over the rows as given).
    merge_repeats : bool
        Fit repeated rows once, weighted by their count.
    random_state : int, RandomState or None
        Draws the validation split.
        {random_state}

    Returns
    -------
    LinearSVC
        Fitted on all of ``X`` with the chosen C.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _fit_svm(X, y, c_grid, validation_size, merge_repeats, check_random_state(random_state))


def _fit_svm(X, y, c_grid, validation_size, merge_repeats, rng) -> LinearSVC:
    best_c = c_grid[0]
    if len(c_grid) > 1 and np.bincount(y).min() >= 2:
        split = StratifiedShuffleSplit(1, test_size=validation_size, random_state=rng)
        fit_rows, val_rows = next(split.split(np.zeros(len(y)), y))
        scores = []
        for c in c_grid:
            model = _fit_linear_svc(c, X[fit_rows], y[fit_rows], merge_repeats)
            scores.append(auc_or_nan(y[val_rows], model.decision_function(X[val_rows])))
        best_c = c_grid[int(np.argmax(scores))]
    return _fit_linear_svc(best_c, X, y, merge_repeats)


def _fit_linear_svc(c, X, y, merge_repeats) -> LinearSVC:
    model = LinearSVC(C=c, loss="squared_hinge", dual="auto", max_iter=_MAX_ITER, random_state=_SOLVER_SEED)
    if not merge_repeats:
        return model.fit(X, y)
    rows, labels, counts = repeated_rows(X, y)
    return model.fit(rows, labels, sample_weight=counts)


def repeated_rows(X, y, *, method: str = "auto"):
    """Each distinct (row, label) pair once, in order of first appearance, with how often it occurs.

    Parameters
    ----------
    X : sparse matrix or array
        Rows.
    y : array
        Their labels.
    method : {"auto", "packed", "loop"}
        How rows are compared, with the same result: ``"packed"`` keys 0/1 rows of at most 512 features by
        their packed bits (vectorised), ``"loop"`` keys any row by its nonzero positions and values, one row
        at a time; ``"auto"`` packs where it can.

    Returns
    -------
    (matrix, array, array of float)
        The distinct rows (CSR when ``X`` is sparse), their labels and their counts.

    Raises
    ------
    ValueError
        An unknown ``method``, or ``"packed"`` for rows that are not 0/1 or wider than 512 features.
    """
    if method not in ("auto", "packed", "loop"):
        raise ValueError(f"method must be 'auto', 'packed' or 'loop', got {method!r}")
    y = np.asarray(y)
    csr = sp.csr_array(X, copy=True)
    csr.sum_duplicates()
    csr.eliminate_zeros()
    packable = csr.shape[1] <= _PACKED_FEATURES and (csr.data == 1).all()
    if method == "packed" and not packable:
        raise ValueError(
            f"method='packed' needs 0/1 rows of at most {_PACKED_FEATURES} features (got {csr.shape[1]} "
            "features); use method='loop' or 'auto'"
        )
    packed = packable if method == "auto" else method == "packed"
    keep, counts = _binary_repeats(csr, y) if packed else _repeats(csr, y)
    rows = csr[keep] if sp.issparse(X) else np.asarray(X)[keep]
    return rows, y[keep], counts.astype(float)


def _binary_repeats(csr: sp.csr_array, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row of each distinct (0/1 row, label) pair, in order, and its count: the packed bits of the row
    and the label's code as one key (vectorised; the same pairs as :func:`_repeats`).
    """
    n = csr.shape[0]
    _, label = np.unique(y, return_inverse=True)
    bits = row_keys(csr).view(np.uint8).reshape(n, -1)
    keys = np.hstack([bits, label.astype("<i8").reshape(n, 1).view(np.uint8)])
    _, first, counts = np.unique(
        np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel(),
        return_index=True,
        return_counts=True,
    )
    order = np.argsort(first)
    return first[order], counts[order]


def _repeats(csr: sp.csr_array, y: np.ndarray) -> tuple[list[int], np.ndarray]:
    """First row of each distinct (row, label) pair, in order, and its count (any values)."""
    position: dict = {}
    keep, counts = [], []
    for i in range(csr.shape[0]):
        lo, hi = csr.indptr[i], csr.indptr[i + 1]
        key = (csr.indices[lo:hi].tobytes(), csr.data[lo:hi].tobytes(), y[i].item())
        if key not in position:
            position[key] = len(keep)
            keep.append(i)
            counts.append(0)
        counts[position[key]] += 1
    return keep, np.asarray(counts)


def auc_or_nan(y_true, scores) -> float:
    """ROC AUC of ``scores`` against ``y_true``, NaN when ``y_true`` holds one class.

    Parameters
    ----------
    y_true : array of int
        Labels 0/1.
    scores : array of float
        Decision values.

    Returns
    -------
    float
    """
    return float(roc_auc_score(y_true, scores)) if np.unique(y_true).size == 2 else math.nan


def untrainable(X_train, y_train) -> str:
    """Why the SVM cannot be trained on these rows (its score is then constant), or "" when it can.

    Parameters
    ----------
    X_train : array or sparse matrix
        Training rows.
    y_train : array
        Their labels.

    Returns
    -------
    str
    """
    if X_train.shape[1] == 0:
        return "no feature selected: constant score"
    if np.unique(y_train).size < 2:
        return "training data hold one class: constant score"
    return ""


@shared_doc
def svm_auc(X_train, y_train, X_test, y_test, *, c_grid=C_GRID, random_state=None) -> tuple[float, str]:
    """Test AUC of the tuned SVM; 0.5 (a constant score) with a note when it cannot be trained.

    Parameters
    ----------
    X_train, y_train : array or sparse matrix, array
        Training rows and labels.
    X_test, y_test : array or sparse matrix, array
        Test rows and labels.
    c_grid : sequence of float
        As in :func:`fit_svm`.
    random_state : int, RandomState or None
        As in :func:`fit_svm`.
        {random_state}

    Returns
    -------
    (float, str)
        The AUC and a note (empty when the SVM was trained).
    """
    note = untrainable(X_train, y_train)
    if note:
        return CONSTANT_AUC, note
    model = fit_svm(X_train, y_train, c_grid=c_grid, random_state=random_state)
    return auc_or_nan(y_test, model.decision_function(X_test)), ""
