"""One fold runner for every paper: folds and seeds, fit on the training fold, score on raw test rows.

Every experiment of the papers is "train on a protected view of the training fold, test on raw rows"
(Section 5 of MC16, Section 5 of MC17, Section 5.2 of FSAC), evaluated by stratified k-fold
cross-validation. :func:`run_folds` is that protocol written once, after scikit-learn's ``cross_validate``
and ``_fit_and_score``: each :class:`View` is cloned, seeded from its fold, fitted on the training fold
and scored by its ``scorer`` (which may give several classifiers and metrics, as ``cross_validate``'s
multi-metric scoring does); a view that cannot be built (l beyond the sensitive domain, the papers' "N/A")
becomes N/A rows, as ``error_score`` turns failures into values. Each measured value is one
:class:`ResultRow`; a new column or a new N/A rule is one change here.

scikit-learn is imported where it is used: ``privnb data check`` imports this package and needs none of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from numbers import Integral

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.experiments.class_metrics import RankingMetric, error_rate, measure, positive_scores
from privnb.validation import seed_unset_random_states


@dataclass(frozen=True)
class ResultRow:
    """One measured value: the tidy row every notebook and sweep writes (``results.parquet``).

    Parameters
    ----------
    dataset : str
        The data set's name.
    classifier : str
        The learner ("SVC", "5-NN", "NBC", ...).
    method : str
        The training view or release ("original", "anatomized", "generalized", ...).
    param : float
        The view's privacy parameter (l, k, gamma, epsilon), NaN for none.
    fold : int
        The cross-validation fold, from 0.
    metric : str
        What ``value`` measures ("error", an attack's success, ...).
    value : float
        The measurement, NaN when the view could not be built.
    n_train : float
        Training rows the learner saw (after suppression).
    n_suppressed : float
        Training rows the mechanism suppressed.
    note : str
        Why a value is missing ("N/A: ...") or what qualifies it.
    """

    dataset: str
    classifier: str
    method: str
    param: float
    fold: int
    metric: str
    value: float
    n_train: float = math.nan
    n_suppressed: float = math.nan
    note: str = ""


COLUMNS = tuple(field.name for field in fields(ResultRow))
"""The tidy result columns, the fields of :class:`ResultRow`."""


@dataclass(frozen=True)
class Score:
    """One value a scorer measured on a fitted view.

    Parameters
    ----------
    classifier : str
        The learner the value belongs to.
    metric : str
        What the value measures.
    value : float
        The measurement.
    note : str
        What qualifies it (empty by default).
    n_train, n_suppressed : float, optional
        The training rows and suppressed individuals behind this value, when they differ from the fitted
        view's (an experiment over training sizes, e.g. the convergence of MC17); default the view's.
    """

    classifier: str
    metric: str
    value: float
    note: str = ""
    n_train: float | None = None
    n_suppressed: float | None = None


@dataclass(frozen=True)
class FoldData:
    """The rows of one fold, as a scorer sees them.

    Parameters
    ----------
    fold : int
        The fold's index.
    seed : int
        The fold's seed (every view of the fold is seeded with it).
    X_train, y_train : DataFrame or array, array
        The raw training fold (before any mechanism).
    X_test, y_test : DataFrame or array, array
        The raw test fold.
    """

    fold: int
    seed: int
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray


@dataclass(frozen=True)
class PredictionScorer:
    """Scores a fitted view by its predictions on the raw test rows, one value per metric.

    Parameters
    ----------
    classifier : str
        The classifier name of the rows.
    metrics : mapping of str to callable, optional
        ``name -> metric(y_true, y_pred)``; default ``{"error": error_rate}``. A
        :class:`~privnb.experiments.class_metrics.RankingMetric` (the AUC) gets the positive class's scores
        instead of the predictions (:data:`~privnb.experiments.class_metrics.CLASSIFICATION_METRICS`).
    """

    classifier: str
    metrics: Mapping[str, Callable] | None = None

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The view's metrics on ``data``'s test rows."""
        prediction = fitted.predict(data.X_test)
        metrics = {"error": error_rate} if self.metrics is None else self.metrics
        ranked = any(isinstance(m, RankingMetric) for m in metrics.values())
        scores = positive_scores(fitted, data.X_test) if ranked else None
        values = measure(data.y_test, prediction, scores, metrics)
        return [Score(self.classifier, name, value) for name, value in values.items()]

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pairs this scorer gives."""
        return tuple((self.classifier, name) for name in (self.metrics or {"error": None}))


@dataclass(frozen=True)
class View:
    """One training view of a fold: a mechanism-wrapping estimator and how it is scored.

    Parameters
    ----------
    method : str
        The view's name in the result rows ("original", "anatomized", ...).
    param : float or None
        Its privacy parameter (l, k, ...), None for none.
    estimator : estimator
        Unfitted; its ``fit`` applies the mechanism to the training fold (``privnb.learn.ProtectedTraining``).
        Every ``random_state`` it leaves at None is seeded with the fold's seed.
    scorer : callable
        ``scorer(fitted, FoldData) -> iterable of Score``; default the test error of ``classifier``.
    outputs : sequence of (str, str), optional
        The ``(classifier, metric)`` pairs given as N/A rows when the view cannot be built; default the
        scorer's ``outputs``.
    batch : hashable, optional
        Views of one fold with equal ``batch`` run in one task, in order (e.g. to share a lattice search);
        default None, one batch per fold for every such view.
    """

    method: str
    param: float | None
    estimator: object
    scorer: Callable[[object, FoldData], Iterable[Score]]
    outputs: Sequence[tuple[str, str]] | None = None
    batch: Hashable = None

    @property
    def na_outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pairs of the N/A rows."""
        outputs = self.outputs if self.outputs is not None else getattr(self.scorer, "outputs", ())
        return tuple(outputs)


def majority_view(metrics: Mapping[str, Callable] | None = None) -> View:
    """The majority-class baseline: predict the training fold's most frequent class for every test row.

    A view whose error is at or above this one's has learned nothing a constant guess would not give.

    Parameters
    ----------
    metrics : mapping of str to callable, optional
        As in :class:`PredictionScorer` (default the error).

    Returns
    -------
    View
        Method and classifier ``"majority"``.
    """
    from sklearn.dummy import DummyClassifier

    return View("majority", None, DummyClassifier(strategy="most_frequent"), PredictionScorer("majority", metrics))


@shared_doc
def folds_and_seeds(y, n_splits: int, random_state) -> tuple[list, np.ndarray]:
    """The stratified folds of ``y`` and one seed per fold, both drawn from ``random_state``.

    Every runner draws them this way, so one seed gives the same folds and the same per-fold mechanism seeds
    in every notebook.

    Parameters
    ----------
    y : array-like
        Class labels.
    n_splits : int
        Number of folds (at least 2).
    random_state : int, RandomState or None
        Seeds the shuffle and the per-fold seeds.
        {random_state}

    Returns
    -------
    (list of (train, test) index arrays, array of int)
    """
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}")
    from sklearn.model_selection import StratifiedKFold
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng.randint(2**31 - 1))
    return list(splitter.split(np.zeros(len(y)), y)), rng.randint(2**31 - 1, size=n_splits)


@shared_doc
def stratified_holdout(frame: pd.DataFrame, class_column: str, test_size: float, random_state) -> FoldData:
    """One stratified split of ``frame`` as fold 0 (the papers' single-split experiments, MZ09's Section 8).

    Parameters
    ----------
    frame, class_column : DataFrame, str
        The rows, and the column of the class the split is stratified on.
    test_size : float
        The share of rows in the test part.
    random_state : int, RandomState or None
        An int is the seed; otherwise one seed is drawn from it. The seed splits the rows and seeds every view.
        {random_state}
    """
    from sklearn.model_selection import train_test_split
    from sklearn.utils import check_random_state

    seed = random_state if isinstance(random_state, Integral) else check_random_state(random_state).randint(2**31 - 1)
    train, test = train_test_split(frame, test_size=test_size, stratify=frame[class_column], random_state=seed)
    return FoldData(0, int(seed), train, train[class_column].to_numpy(), test, test[class_column].to_numpy())


def chosen_folds(folds, n_splits: int) -> list[int]:
    """The fold indices to run: ``folds`` checked against ``n_splits``, or every fold when None.

    Parameters
    ----------
    folds : sequence of int or None
        Fold indices.
    n_splits : int
        Number of folds.

    Returns
    -------
    list of int
    """
    folds = list(range(n_splits)) if folds is None else list(folds)
    if any(not 0 <= f < n_splits for f in folds):
        raise ValueError(f"folds must be indices in 0..{n_splits - 1}, got {folds}")
    return folds


def _take_rows(X, index):
    """Rows ``index`` (positions) of a DataFrame, an array or a sparse matrix."""
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def _param(param) -> float:
    return math.nan if param is None else float(param)


def evaluate_view(dataset_name: str, view: View, data: FoldData, na_errors: tuple) -> list[ResultRow]:
    """Fit one view on one training fold and score it on the raw test fold.

    Parameters
    ----------
    dataset_name : str
        The ``dataset`` field of the rows.
    view : View
        The view; its estimator is cloned and seeded with ``data.seed``.
    data : FoldData
        The fold's rows.
    na_errors : tuple of exception types
        Errors meaning "this view cannot be built": they give N/A rows (value NaN, the reason in ``note``).

    Returns
    -------
    list of ResultRow
    """
    head = (dataset_name,)
    from sklearn.base import clone

    estimator = seed_unset_random_states(clone(view.estimator), data.seed)
    try:
        estimator.fit(data.X_train, data.y_train)
    except na_errors as error:
        return [
            ResultRow(*head, name, view.method, _param(view.param), data.fold, metric, math.nan, note=f"N/A: {error}")
            for name, metric in view.na_outputs
        ]
    n_train = getattr(estimator, "n_train_", len(data.y_train))
    n_suppressed = getattr(estimator, "n_suppressed_", 0)
    return [
        ResultRow(
            *head,
            s.classifier,
            view.method,
            _param(view.param),
            data.fold,
            s.metric,
            s.value,
            n_train if s.n_train is None else s.n_train,
            n_suppressed if s.n_suppressed is None else s.n_suppressed,
            s.note,
        )
        for s in view.scorer(estimator, data)
    ]


def _run_batch(dataset_name, views, X, y, train, test, fold, seed, na_errors):
    data = FoldData(fold, seed, _take_rows(X, train), y[train], _take_rows(X, test), y[test])
    return [row for view in views for row in evaluate_view(dataset_name, view, data, na_errors)]


def _batches(views: Sequence[View]) -> list[list[View]]:
    """Views grouped by ``batch``, groups in order of first appearance."""
    groups: dict = {}
    for view in views:
        groups.setdefault(view.batch, []).append(view)
    return list(groups.values())


def default_na_errors() -> tuple[type[BaseException], ...]:
    """The errors that make a view N/A: l beyond the sensitive domain (``NotLDiverseError``)."""
    from privnb.mechanisms.anatomy import NotLDiverseError

    return (NotLDiverseError,)


@shared_doc
def run_folds(
    dataset,
    views: Sequence[View],
    *,
    n_splits: int = 10,
    random_state=None,
    folds=None,
    n_jobs: int | None = None,
    progress: bool = True,
    na_errors: tuple[type[BaseException], ...] | None = None,
    desc: str | None = None,
    splits: tuple[Sequence, Sequence[int]] | None = None,
) -> pd.DataFrame:
    """Cross-validate ``views`` on the same stratified folds: the protocol every paper runner uses.

    Parameters
    ----------
    dataset : object with ``name``, ``X`` and ``y``
        A ``privnb.data.Dataset``, or any object with a name, rows ``X`` (DataFrame, array or sparse
        matrix) and labels ``y``.
    views : sequence of View
        The training views; all see the same folds, so their errors are paired.
    n_splits : int
        Number of folds (the papers use 10).
    random_state : int, RandomState or None
        Seeds the fold split and one seed per fold, which seeds every ``random_state`` a view leaves at
        None, so a seed reproduces the whole table.
        {random_state}
    folds : sequence of int, optional
        Fold indices to run (default all), with the same splits and seeds.
    n_jobs : int, optional
        Tasks (fold x batch, :class:`View`) run in parallel processes (joblib), with the same rows.
    progress : bool
        Show a progress bar over the tasks.
    na_errors : tuple of exception types, optional
        Errors meaning "this view cannot be built" (default :func:`default_na_errors`); any other error
        propagates.
    desc : str, optional
        The progress bar's label (default the data set's name).
    splits : (sequence of (train, test) index arrays, sequence of int), optional
        The folds and one seed per fold, given instead of drawing them with :func:`folds_and_seeds` (for a
        paper whose runner draws them otherwise); ``n_splits`` and ``random_state`` are then unused.

    Returns
    -------
    DataFrame
        One row per view, fold, classifier and metric, columns :data:`COLUMNS`.
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    if not views:
        raise ValueError("views is empty: pass at least one training view")
    na_errors = default_na_errors() if na_errors is None else tuple(na_errors)
    y = np.asarray(dataset.y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state) if splits is None else splits
    tasks = [(fold, batch) for fold in chosen_folds(folds, len(splits)) for batch in _batches(views)]
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_run_batch)(dataset.name, batch, dataset.X, y, *splits[fold], fold, int(seeds[fold]), na_errors)
        for fold, batch in tasks
    )
    bar = tqdm(outcomes, total=len(tasks), disable=not progress, desc=desc or str(dataset.name))
    return tidy_frame([astuple(row) for rows in bar for row in rows])


def tidy_frame(rows: Sequence[Sequence] | pd.DataFrame = ()) -> pd.DataFrame:
    """Tidy rows as a DataFrame with exactly :data:`COLUMNS` and stable dtypes (param, value float).

    Parameters
    ----------
    rows : sequence of tuples or ResultRow, or DataFrame
        Rows in the order of :data:`COLUMNS`.

    Returns
    -------
    DataFrame
    """
    if isinstance(rows, pd.DataFrame):
        frame = rows
    else:
        frame = pd.DataFrame([astuple(r) if isinstance(r, ResultRow) else r for r in rows], columns=list(COLUMNS))
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


def _view_key(key, default_classifier: str) -> tuple[str, str, float | None]:
    """Normalize a ``views`` key of :func:`cross_validate_views` to ``(classifier, method, param)``."""
    if isinstance(key, str):
        return default_classifier, key, None
    if isinstance(key, tuple) and len(key) == 2:
        return default_classifier, str(key[0]), key[1]
    if isinstance(key, tuple) and len(key) == 3:
        return str(key[0]), str(key[1]), key[2]
    raise ValueError(f"a views key must be a method name, (method, param) or (classifier, method, param); got {key!r}")


def _classifier_name(estimator) -> str:
    """Class name of the estimator a view wraps (a pipeline's last step)."""
    inner = getattr(estimator, "estimator", None)
    inner = estimator if inner is None else inner
    return type(inner.steps[-1][1] if hasattr(inner, "steps") else inner).__name__


@shared_doc
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
    """Stratified k-fold cross-validation of a dict of estimators, each scored by its predictions.

    The dict form of :func:`run_folds`, for a notebook or a user: each view is a scikit-learn
    meta-estimator (``privnb.learn.ProtectedTraining``) whose ``fit`` applies its mechanism to the training
    fold only, scored on the raw test fold; each (view, fold) is one task.

    Parameters
    ----------
    dataset : Dataset
        Anything with ``name``, ``X`` and ``y``.
    views : mapping
        Key -> unfitted estimator. A key is a method name (``"original"``), ``(method, param)``
        (``("anatomized", 3)``) or ``(classifier, method, param)``.
    n_splits : int
        Number of folds.
    random_state : int, RandomState or None
        As in :func:`run_folds`.
        {random_state}
    metrics : mapping of name -> callable(y_true, y_pred), optional
        Default ``{"error": error_rate}``.
    classifier : str, optional
        Classifier name for keys that do not give one; default the class name of the estimator the views
        wrap, which must then be the same for all of them.
    na_errors : tuple of exception types, optional
        As in :func:`run_folds`.
    n_jobs : int, optional
        (view, fold) tasks run in parallel.
    progress : bool
        Show a progress bar.

    Returns
    -------
    DataFrame
        Tidy rows, columns :data:`COLUMNS`.
    """
    if not views:
        raise ValueError("views is empty: pass at least one named training view")
    if classifier is None:
        names = {_classifier_name(views[key]) for key in views if not (isinstance(key, tuple) and len(key) == 3)}
        if len(names) > 1:
            raise ValueError(
                f"the views wrap different estimators {sorted(names)}: pass classifier='name' or "
                "give (classifier, method, param) keys"
            )
        classifier = names.pop() if names else ""
    chosen = []
    for index, (key, estimator) in enumerate(views.items()):
        name, method, param = _view_key(key, classifier)
        chosen.append(View(method, param, estimator, PredictionScorer(name, metrics), batch=index))
    return run_folds(
        dataset,
        chosen,
        n_splits=n_splits,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        na_errors=na_errors,
        desc=f"CV {dataset.name}",
    )
