"""Cross-validation of training views, tidy result rows and the papers' paired t-tests.

Every experiment of the papers is "train on a protected view of the training fold, test on raw rows"
(Section 5 of seed 003, Section 5 of seed 002), evaluated by stratified 10-fold cross-validation and
compared with the paired Student t-test at confidence 0.95 (Appendix C.3 of seed 000, Section 5.3 of
seed 002). :func:`cross_validate_views` runs one dict of views on the same folds and returns tidy rows
with the columns :data:`COLUMNS`; :func:`t_test_table` turns them into the papers' P/F/N/A tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from tqdm import tqdm

from privnb.validation import seed_unset_random_states

COLUMNS = ("dataset", "classifier", "method", "param", "fold", "metric", "value", "n_train", "n_suppressed", "note")


"""The tidy result columns every notebook and sweep writes (``results.parquet``)."""


_PRIVACY_LETTER = {"anatomized": "L", "pruned": "L", "generalized": "k", "anonymized": "k", "mondrian": "Mondrian k"}


_FIXED_LABELS = {"original": "Org.", "identifying": "Id."}


_METHOD_ORDER = ("original", "identifying", "anatomized", "pruned", "generalized", "anonymized", "mondrian")


def error_rate(y_true, y_pred) -> float:
    """Fraction of misclassified rows: the papers' evaluation metric."""
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def method_label(method: str, param=None) -> str:
    """The paper's label of a training view in plots and tables.

    "Org." and "Id." stand for the original and identifying classifiers, "L=2" for the anatomized or
    pruned one trained on 2-diverse data and "k=2" for the one trained on 2-anonymous data (Section 5.2
    of seed 003, Figure 4 of seed 002). Other methods read ``method`` or ``method=param``.

    Examples
    --------
    >>> method_label("original"), method_label("pruned", 3.0), method_label("generalized", 2)
    ('Org.', 'L=3', 'k=2')
    """
    if method in _FIXED_LABELS:
        return _FIXED_LABELS[method]
    if param is None or (isinstance(param, float) and math.isnan(param)):
        return str(method)
    value = int(param) if float(param).is_integer() else param
    return f"{_PRIVACY_LETTER.get(method, method)}={value}"


def method_sort_key(method: str, param=None) -> tuple:
    """Order of views in the papers' figures: Org., Id., then each privacy method by parameter."""
    rank = _METHOD_ORDER.index(method) if method in _METHOD_ORDER else len(_METHOD_ORDER)
    number = -math.inf if param is None or pd.isna(param) else float(param)
    return rank, str(method), number


def _view_key(key, default_classifier: str) -> tuple[str, str, float]:
    """Normalize a ``views`` key to ``(classifier, method, param)``."""
    if isinstance(key, str):
        return default_classifier, key, math.nan
    if isinstance(key, tuple) and len(key) == 2:
        method, param = key
        return default_classifier, str(method), math.nan if param is None else float(param)
    if isinstance(key, tuple) and len(key) == 3:
        classifier, method, param = key
        return str(classifier), str(method), math.nan if param is None else float(param)
    raise ValueError(f"a views key must be a method name, (method, param) or (classifier, method, param); got {key!r}")


def _classifier_name(estimator) -> str:
    """Class name of the estimator a view wraps (a pipeline's last step)."""
    inner = getattr(estimator, "estimator", None)
    inner = estimator if inner is None else inner
    return type(inner.steps[-1][1] if hasattr(inner, "steps") else inner).__name__


def folds_and_seeds(y, n_splits: int, random_state) -> tuple[list, np.ndarray]:
    """The stratified folds of ``y`` and one seed per fold, both drawn from ``random_state``.

    Every runner (:func:`cross_validate_views`, ``privnb.experiments.svm``, ``privnb.experiments.knn``)
    draws them this way, so one seed gives the same folds and the same per-fold mechanism seeds everywhere.
    """
    rng = check_random_state(random_state)
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng.randint(2**31 - 1))
    return list(splitter.split(np.zeros(len(y)), y)), rng.randint(2**31 - 1, size=n_splits)


def chosen_folds(folds, n_splits: int) -> list[int]:
    """The fold indices to run: ``folds`` checked against ``n_splits``, or every fold when None."""
    folds = list(range(n_splits)) if folds is None else list(folds)
    if any(not 0 <= f < n_splits for f in folds):
        raise ValueError(f"folds must be indices in 0..{n_splits - 1}, got {folds}")
    return folds


def _evaluate_fold(estimator, X, y, train, test, fold, seed, metrics, na_errors):
    """Fit one view on one training fold and score it on the raw test fold.

    Returns ``(values, n_train, n_suppressed, note)``.
    """
    estimator = seed_unset_random_states(clone(estimator), seed)
    try:
        estimator.fit(X.iloc[train], y[train])
    except na_errors as error:
        return dict.fromkeys(metrics, math.nan), math.nan, math.nan, f"N/A: {error}"
    prediction = estimator.predict(X.iloc[test])
    values = {name: float(metric(y[test], prediction)) for name, metric in metrics.items()}
    return (values, getattr(estimator, "n_train_", len(train)), getattr(estimator, "n_suppressed_", 0), "")


def cross_validate_views(
    dataset,
    views: Mapping[Hashable, object],
    *,
    n_splits: int = 10,
    random_state=None,
    metrics: Mapping[str, Callable] | None = None,
    classifier: str | None = None,
    na_errors: tuple[type[BaseException], ...] | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Stratified k-fold cross-validation of several training views on the same folds.

    Each view is a scikit-learn meta-estimator (``privnb.learn.training``) whose ``fit`` applies its
    mechanism to the training fold only; it is scored on the raw test fold (the papers' setting:
    "train on protected data, test on unprotected data", Section 5 of seed 003). All views see the same
    folds, so their errors are paired for :func:`paired_t_test`.

    Parameters
    ----------
    dataset : Dataset
        Anything with ``name``, ``X`` (DataFrame) and ``y`` (0/1 array), e.g. ``privnb.data.Dataset``.
    views : mapping
        Key -> unfitted estimator. A key is a method name (``"original"``), ``(method, param)``
        (``("anatomized", 3)``) or ``(classifier, method, param)``.
    n_splits : int
        Number of folds (the papers use 10).
    random_state : int, RandomState or None
        Seeds the fold split and every ``random_state`` parameter a view leaves at None (one seed per
        fold, shared by all views), so that a seed reproduces the whole table.
    metrics : mapping of name -> callable(y_true, y_pred), optional
        Default ``{"error": error_rate}``.
    classifier : str, optional
        Classifier name for keys that do not give one; default the class name of the estimator the
        views wrap (their ``estimator`` parameter), which must then be the same for all of them.
    na_errors : tuple of exception types, optional
        Errors meaning "this view cannot be built" (default ``(privnb.mechanisms.NotLDiverseError,)``: l
        beyond the sensitive domain, the papers' "N/A"). They give rows with value NaN and the reason in
        ``note``; any other error propagates.
    n_jobs : int, optional
        Folds x views run in parallel with joblib.
    progress : bool
        Show a tqdm bar over folds x views.

    Returns
    -------
    DataFrame
        One row per view, fold and metric, columns :data:`COLUMNS` (``fold`` counts from 0).
    """
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}")
    if not views:
        raise ValueError("views is empty: pass at least one named training view")
    metrics = {"error": error_rate} if metrics is None else dict(metrics)
    if na_errors is None:
        from privnb.mechanisms.anatomy import NotLDiverseError

        na_errors = (NotLDiverseError,)
    X, y = dataset.X, np.asarray(dataset.y)
    folds, seeds = folds_and_seeds(y, n_splits, random_state)
    if classifier is None:
        names = {_classifier_name(views[key]) for key in views if not (isinstance(key, tuple) and len(key) == 3)}
        if len(names) > 1:
            raise ValueError(
                f"the views wrap different estimators {sorted(names)}: pass classifier='name' or "
                "give (classifier, method, param) keys"
            )
        classifier = names.pop() if names else ""
    keys = {key: _view_key(key, classifier) for key in views}
    tasks = [(key, fold) for fold in range(n_splits) for key in views]
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_evaluate_fold)(views[key], X, y, *folds[fold], fold, int(seeds[fold]), metrics, na_errors)
        for key, fold in tasks
    )
    rows = []
    for (key, fold), (values, n_train, n_suppressed, note) in zip(
        tasks, tqdm(outcomes, total=len(tasks), disable=not progress, desc=f"CV {dataset.name}")
    ):
        classifier_name, method, param = keys[key]
        rows.extend(
            (dataset.name, classifier_name, method, param, fold, name, value, n_train, n_suppressed, note)
            for name, value in values.items()
        )
    return tidy_frame(rows)


def tidy_frame(rows: Sequence[Sequence] | pd.DataFrame = ()) -> pd.DataFrame:
    """Tidy rows as a DataFrame with exactly :data:`COLUMNS` and stable dtypes (param, value float)."""
    frame = pd.DataFrame(rows, columns=list(COLUMNS)) if not isinstance(rows, pd.DataFrame) else rows
    missing = set(COLUMNS) - set(frame.columns)
    if missing:
        raise ValueError(f"tidy rows lack the columns {sorted(missing)}; expected {list(COLUMNS)}")
    frame = frame[list(COLUMNS)].copy()
    for column in ("dataset", "classifier", "method", "metric", "note"):
        frame[column] = frame[column].astype(object).fillna("").astype(str)
    for column in ("param", "value", "n_train", "n_suppressed"):
        frame[column] = pd.to_numeric(frame[column], errors="raise").astype(float)
    frame["fold"] = frame["fold"].astype(int)
    return frame.reset_index(drop=True)
