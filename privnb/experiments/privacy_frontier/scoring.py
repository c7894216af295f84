"""How a view of the frontier is scored: its test error, the majority-class error of the same fold, and the
attacks of its release kind (:data:`~privnb.experiments.privacy_frontier.RELEASES`) as tidy values, the
membership attack on the classifier it trained (:func:`membership_scores`) and the utility of its release
(:func:`utility_scores`).

The membership attack is one attack applied to every view, not a registry entry per release kind: it reads
the fitted classifier, never the release, so it is the same for every kind, and the original view (no
release kind) needs it as the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from privnb.attacks import AttackResult, membership_attack
from privnb.attacks.registry import RELEASES
from privnb.experiments.folds import FoldData, Score, View, error_rate
from privnb.mechanisms import release_utility

__all__ = ["UTILITY_METRICS", "AttackScorer", "attack_scores", "membership_scores", "release_view", "utility_scores"]

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


def majority_error(data: FoldData) -> float:
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


def _release_of(fitted, data: FoldData):
    """(release, original rows, quasi-identifiers, k, hierarchies, classes) of a view's mechanism, or None."""
    mechanism = getattr(fitted, "mechanism_", None)
    anatomy = getattr(mechanism, "anatomy_", None)
    if anatomy is not None:  # anatomized and pruned views: the anatomy
        original = data.X_train.reset_index(drop=True)  # the mechanisms label the training rows 0..n-1
        qi = [c for c in anatomy.it.columns if c in original.columns]  # not gid, not the published class
        return anatomy.it, original, qi, anatomy.l, None, "gid"
    if getattr(mechanism, "generalized_", None) is not None:
        original = data.X_train.reset_index(drop=True)
        hierarchies = getattr(mechanism, "hierarchies_", None) or getattr(mechanism, "hierarchies", None)
        return mechanism.generalized_, original, mechanism.quasi_identifiers_, mechanism.k, hierarchies, None
    return None


def utility_scores(fitted, data: FoldData, classifier: str) -> list[Score]:
    """The utility of the release a view learned from (:func:`privnb.mechanisms.release_utility`), as scores.

    The release is the anatomy (IT, classes its groups, k its l) of an anatomized or pruned view, the
    generalization (classes its generalized quasi-identifiers) of a generalized view; measured against the
    fold's training rows, suppressed ones included. A view without a release (the original rows, a
    release estimator of FSAC or MZ09) gets none.

    Parameters
    ----------
    fitted : fitted view
        The view (``mechanism_``).
    data : FoldData
        The fold.
    classifier : str
        The classifier of the rows.

    Returns
    -------
    list of Score
        Metrics ``utility_<name>`` for :data:`UTILITY_METRICS`.
    """
    found = _release_of(fitted, data)
    if found is None:
        return []
    release, original, qi, k, hierarchies, classes = found
    row = release_utility(release, original, qi, k=k, hierarchies=hierarchies, classes=classes).iloc[0]
    return [Score(classifier, f"utility_{name}", float(row[name])) for name in UTILITY_METRICS]


@dataclass(frozen=True)
class AttackScorer:
    """Scores a fitted view: ``error`` and ``majority_error`` on the raw test rows, its release's attacks,
    and the membership attack on the fitted view (:func:`membership_scores`).

    Parameters
    ----------
    classifier : str
        The classifier name of the rows.
    param : float or None
        The release's parameter, handed to the attack.
    attack : callable, optional
        ``attack(fitted, data, param, options) -> AttackResults`` (a :class:`ReleaseKind`'s); None for a
        view nobody attacks (the original data).
    options : mapping
        The attack's options.
    membership : bool
        Also attack the fitted view by membership inference (``membership*`` rows).
    utility : bool
        Also measure the utility of the view's release (``utility_*`` rows, :func:`utility_scores`).
    """

    classifier: str
    param: float | None = None
    attack: Callable | None = None
    options: Mapping = field(default_factory=dict)
    membership: bool = True
    utility: bool = True

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The view's errors and attack values on ``data``."""
        scores = [
            Score(self.classifier, "error", error_rate(data.y_test, fitted.predict(data.X_test))),
            Score(self.classifier, "majority_error", majority_error(data)),
        ]
        if self.attack is not None:
            scores += attack_scores(self.attack(fitted, data, self.param, self.options), self.classifier)
        if self.membership:
            scores += attack_scores([membership_scores(fitted, data)], self.classifier)
        if self.utility:
            scores += utility_scores(fitted, data, self.classifier)
        return scores

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pair of an N/A view: its error."""
        return ((self.classifier, "error"),)


def release_view(method: str, param, estimator, classifier: str, options=None, *, attack=None, batch=None) -> View:
    """A frontier view: the estimator learns from the release, its release kind's attacks measure it.

    Parameters
    ----------
    method : str
        The view's method; its :data:`RELEASES` entry (when there is one) gives the attack.
    param : float or None
        The privacy parameter.
    estimator : estimator
        The unfitted view (a ``privnb.learn`` training view, or a release estimator).
    classifier : str
        The classifier name of the rows.
    options : mapping, optional
        The attack's options.
    attack : callable, optional
        An attack for a view with no registry entry (default the entry's, or none).
    batch : hashable, optional
        As in :class:`~privnb.experiments.View`.

    Returns
    -------
    View
    """
    if attack is None and method in RELEASES:
        attack = RELEASES[method].attack
    scorer = AttackScorer(classifier, param, attack, dict(options or {}))
    return View(method, param, estimator, scorer, batch=batch)
