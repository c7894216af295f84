"""How a view of the frontier is scored: its test error, the majority-class error of the same fold, and the
attacks registered for its release's type (:func:`privnb.attacks.release_attacks`) as tidy values, the
membership attack on the classifier it trained (:func:`membership_scores`) and the utility of its release
(:func:`utility_scores`).

The membership attack is one attack applied to every view, not a registry entry per release kind: it reads
the fitted classifier, never the release, so it is the same for every kind, and the original view (no
release kind) needs it as the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from privnb.attacks import AttackResult, Targets, lira_attacks, membership_attack, release_attacks
from privnb.experiments.folds import FoldData, Score, View, error_rate
from privnb.mechanisms import Anatomy, GeneralizedRelease, PrunedRelease, record_utility

__all__ = [
    "UTILITY_METRICS",
    "AttackScorer",
    "attack_scores",
    "fold_targets",
    "lira_scores_of",
    "membership_scores",
    "release_view",
    "utility_scores",
]

UTILITY_METRICS = ("discernibility", "c_avg", "gcp", "nu_entropy", "suppressed", "classes")
"""The columns of :func:`privnb.mechanisms.release_utility` each view reports, as metrics ``utility_<name>``."""


def attack_scores(results, classifier: str) -> list[Score]:
    """The values of attack records as scores (``AttackResult.values``, the metric and text details as notes).

    Parameters
    ----------
    results : iterable of AttackResult
        The records.
    classifier : str
        The classifier of the rows.

    Returns
    -------
    list of Score
    """
    return [
        Score(classifier, name, value, result.notes() if name == result.attack else "")
        for result in results
        for name, value in result.values().items()
    ]


def _fold_majority_error(data: FoldData) -> float:
    """The test error of predicting the training fold's most frequent class.

    Parameters
    ----------
    data : FoldData
        The fold.

    Returns
    -------
    float
    """
    labels, counts = np.unique(np.asarray(data.y_train), return_counts=True)
    return error_rate(data.y_test, np.full(len(data.y_test), labels[np.argmax(counts)]))


def membership_scores(fitted, data: FoldData) -> AttackResult:
    """Who was in the training fold: the loss-threshold attack (:func:`privnb.attacks.membership_attack`).

    Members are the raw training rows of the fold, every one, also those the mechanism suppressed (they
    were in the fold the curator held; the model never saw them, so they look like non-members and lower
    the advantage by about their share, ``suppressed_share``); non-members are the raw test rows. The larger
    side is subsampled to the smaller, seeded with the fold's seed.

    Parameters
    ----------
    fitted : fitted classifier
        The view (it predicts on raw rows).
    data : FoldData
        The fold.

    Returns
    -------
    AttackResult
        ``membership``, its details with ``suppressed_share`` (training rows the mechanism dropped, over
        all training rows).
    """
    result = membership_attack(fitted, data.X_train, data.y_train, data.X_test, data.y_test, random_state=data.seed)
    suppressed = getattr(fitted, "n_suppressed_", 0) / max(1, len(data.y_train))
    return replace(result, details={**result.details, "suppressed_share": float(suppressed)})


def lira_scores_of(fitted, data: FoldData, options: Mapping) -> list[AttackResult]:
    """LiRA, online and offline (:func:`privnb.attacks.lira_attacks`), on a view's classifier.

    The shadow models are clones of the view (its mechanism and its learner, refitted) trained on the
    ``population`` option's rows (outside the data set, so disjoint from the target's fold and its test rows)
    and on the targets each holds IN; members are the fold's training rows, non-members its test rows.

    Parameters
    ----------
    fitted : fitted view
        The view.
    data : FoldData
        The fold.
    options : mapping
        ``population`` (a DataFrame with the training columns and ``target``), ``target``, ``lira_shadows``.

    Returns
    -------
    list of AttackResult
        ``lira_online`` and ``lira_offline``; none without a population.
    """
    population = options.get("population")
    if population is None or not len(population) or not isinstance(data.X_train, pd.DataFrame):
        return []
    columns, target = list(data.X_train.columns), options["target"]
    return lira_attacks(
        fitted,
        data.X_train,
        data.y_train,
        data.X_test,
        data.y_test,
        population[columns],
        population[target].to_numpy(),
        n_shadows=options.get("lira_shadows", 16),
        random_state=data.seed,
    )


def fold_targets(data: FoldData, options: Mapping):
    """The attacked individuals of a fold: its training rows, their labels and the adversary's background.

    Microdata (a ``sensitive`` option): the training rows under the mechanisms' labels 0..n-1, the background
    the fold's test rows plus the ``population`` option's rows (a DataFrame of rows outside the data, with a
    ``target`` option naming its label column). An item matrix: its rows and labels.

    Parameters
    ----------
    data : FoldData
        The fold.
    options : mapping
        The runner's attack options.

    Returns
    -------
    Targets
    """
    if not isinstance(data.X_train, pd.DataFrame) or options.get("sensitive") is None:
        return Targets(data.X_train, np.asarray(data.y_train), seed=data.seed)
    population, labels = data.X_test, np.asarray(data.y_test)
    extra = options.get("population")
    if extra is not None and len(extra):
        target = options["target"]
        population = pd.concat([population, extra[list(data.X_test.columns)]], ignore_index=True)
        labels = np.concatenate([labels, extra[target].to_numpy()])
    rows = data.X_train.reset_index(drop=True)  # the mechanisms label the training rows 0..n-1
    return Targets(rows, np.asarray(data.y_train), options["sensitive"], population, labels, seed=data.seed)


def utility_scores(fitted, data: FoldData, classifier: str) -> list[Score]:
    """The utility of the release a view learned from (:func:`privnb.mechanisms.record_utility`), as scores.

    Measured against the fold's training rows, suppressed ones included. A view whose release has no utility
    (the original rows, FSAC's projections, MZ09's views) gets none.

    Parameters
    ----------
    fitted : fitted view
        The view (its ``release_``).
    data : FoldData
        The fold.
    classifier : str
        The classifier of the rows.

    Returns
    -------
    list of Score
        Metrics ``utility_<name>`` for :data:`UTILITY_METRICS`.
    """
    release = getattr(fitted, "release_", None)
    if not isinstance(release, Anatomy | PrunedRelease | GeneralizedRelease):
        return []
    row = record_utility(release, data.X_train.reset_index(drop=True)).iloc[0]
    return [Score(classifier, f"utility_{name}", float(row[name])) for name in UTILITY_METRICS]


@dataclass(frozen=True)
class AttackScorer:
    """Scores a fitted view: ``error`` and ``majority_error`` on the raw test rows, every attack registered for
    its release (:func:`privnb.attacks.release_attacks` on ``fitted.release_``), and the membership attack on the
    fitted view (:func:`membership_scores`).

    Parameters
    ----------
    classifier : str
        The classifier name of the rows.
    attack : bool
        Attack the view's release (a view without one, the original rows, is not attacked).
    options : mapping
        The attack's options.
    membership : bool
        Also attack the fitted view by membership inference (``membership*`` rows).
    lira : bool
        Also attack it by LiRA (``lira_online*``, ``lira_offline*`` rows, :func:`lira_scores_of`).
    utility : bool
        Also measure the utility of the view's release (``utility_*`` rows, :func:`utility_scores`).
    """

    classifier: str
    attack: bool = True
    options: Mapping = field(default_factory=dict)
    membership: bool = True
    lira: bool = False
    utility: bool = True

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The view's errors and attack values on ``data``."""
        scores = [
            Score(self.classifier, "error", error_rate(data.y_test, fitted.predict(data.X_test))),
            Score(self.classifier, "majority_error", _fold_majority_error(data)),
        ]
        release = getattr(fitted, "release_", None)
        if self.attack and release is not None:
            results = release_attacks(release, fold_targets(data, self.options), self.options)
            scores += attack_scores(results, self.classifier)
        if self.membership:
            scores += attack_scores([membership_scores(fitted, data)], self.classifier)
        if self.lira:
            scores += attack_scores(lira_scores_of(fitted, data, self.options), self.classifier)
        if self.utility:
            scores += utility_scores(fitted, data, self.classifier)
        return scores

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pair of an N/A view: its error."""
        return ((self.classifier, "error"),)


def release_view(method: str, param, estimator, classifier: str, options=None, *, batch=None, lira=False) -> View:
    """A frontier view: the estimator learns from the release, the attacks of its release's type measure it.

    Parameters
    ----------
    method : str
        The view's method.
    param : float or None
        The privacy parameter.
    estimator : estimator
        The unfitted view (a ``privnb.learn`` training view, or a release estimator); its fitted ``release_``
        is attacked.
    classifier : str
        The classifier name of the rows.
    options : mapping, optional
        The attacks' options.
    batch : hashable, optional
        As in :class:`~privnb.experiments.View`.
    lira : bool
        Also attack the view's classifier by LiRA.

    Returns
    -------
    View
    """
    scorer = AttackScorer(classifier, True, dict(options or {}), lira=lira)
    return View(method, param, estimator, scorer, batch=batch)
