"""Membership inference on a trained classifier: was this row in its training fold.

The loss-threshold attack after Yeom, Giacomelli, Fredrikson and Jha ("Privacy risk in machine learning:
analyzing the connection to overfitting", CSF 2018): a row is called a member when the model's loss on it
(with its true label) is at most a threshold. It needs no shadow models (unlike Shokri et al., S&P 2017): with
the threshold at the mean training loss, as later work runs Yeom et al.'s attack (Jayaraman and Evans, USENIX
Security 2019), the adversary needs only that mean. Its membership advantage (Yeom et al.'s definition) is
TPR - FPR, the share of members called members minus the share of non-members called members. Following
Carlini et al. ("Membership inference attacks from first principles", S&P 2022) the threshold-free AUC is
reported beside it.

The targets are balanced (the larger side subsampled, seeded), so an adversary who ignores the model is right
half the time: the baseline is 1/2, and the attack's success is its accuracy, advantage = accuracy - 1/2 =
(TPR - FPR) / 2. The headline threshold is the one of best accuracy on a calibration half of the members and
non-members, and the success is measured on the other half; the best accuracy over thresholds on all rows
(``in_sample_advantage``, a little optimistic) and Yeom's mean-training-loss threshold (``yeom_advantage``)
are reported beside it.

The loss a classifier gives: the log loss -log p(true class) of ``predict_proba`` (the k-NN's vote share, with
IBk's 1 / n_train floor); the hinge loss max(0, 1 - margin of the true class) of ``decision_function`` for a
model without probabilities (a linear SVM; the same order as its squared hinge); the 0-1 loss of ``predict``
for a model with neither.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.validation import check_int

from .result import AttackResult

__all__ = [
    "best_threshold",
    "check_labels",
    "example_losses",
    "LOW_FPR",
    "loss_threshold_attack",
    "low_fpr_details",
    "membership_attack",
    "threshold_rates",
    "tpr_at_fpr",
    "true_class_scores",
]

_NUMBERS = ("integer", "floating", "boolean", "mixed-integer-float", "decimal")

PROBABILITY_FLOOR = 1e-12
"""The smallest probability of the true class the log loss reads (a zero would give an infinite loss)."""


def threshold_rates(member_losses, non_member_losses, thresholds):
    """TPR and FPR of calling a row a member when its loss is at most each threshold.

    Parameters
    ----------
    member_losses, non_member_losses : array-like of float
        The losses of the members and of the non-members.
    thresholds : array-like of float
        The thresholds.

    Returns
    -------
    tpr, fpr : ndarray
        Per threshold, the share of members and of non-members whose loss is at most it.
    """
    members, others = np.sort(np.asarray(member_losses, float)), np.sort(np.asarray(non_member_losses, float))
    t = np.asarray(thresholds, float)
    return np.searchsorted(members, t, side="right") / len(members), np.searchsorted(others, t, side="right") / len(
        others
    )


def best_threshold(member_losses, non_member_losses) -> tuple[float, float]:
    """The threshold whose TPR - FPR is largest (the smallest such), and that difference.

    Every attack "member iff loss <= t" is one of: t below every loss (nobody, TPR = FPR = 0) or t at one of
    the losses, so those are the candidates.

    Parameters
    ----------
    member_losses, non_member_losses : array-like of float
        The losses of the members and of the non-members.

    Returns
    -------
    threshold : float
        ``-inf`` when no threshold beats calling nobody a member.
    tpr_minus_fpr : float
        In [0, 1].
    """
    candidates = np.concatenate([[-np.inf], np.unique(np.concatenate([member_losses, non_member_losses]))])
    tpr, fpr = threshold_rates(member_losses, non_member_losses, candidates)
    best = int(np.argmax(tpr - fpr))
    return float(candidates[best]), float(tpr[best] - fpr[best])


LOW_FPR = {"tpr_at_1pct_fpr": 0.01, "tpr_at_0_1pct_fpr": 0.001}
"""The false-positive rates at which the membership attacks report their true-positive rate (Carlini et al.
2022, Section IV: an attack is judged by the members it finds at a low false-positive rate), by detail name."""


def tpr_at_fpr(member_losses, non_member_losses, fpr: float) -> float:
    """The largest TPR of "member iff loss <= t" over thresholds whose FPR is at most ``fpr``.

    Rows with equal losses fall on the same side of every threshold, so ties are never split (as
    ``sklearn.metrics.roc_curve`` reads them).

    Parameters
    ----------
    member_losses, non_member_losses : array-like of float
        The losses (or negated scores) of the members and of the non-members.
    fpr : float in [0, 1]
        The false-positive rate allowed.

    Returns
    -------
    float
    """
    candidates = np.concatenate([[-np.inf], np.unique(np.concatenate([member_losses, non_member_losses]))])
    tpr, rates = threshold_rates(member_losses, non_member_losses, candidates)
    return float(tpr[rates <= fpr].max())


def low_fpr_details(member_losses, non_member_losses) -> dict[str, float]:
    """:func:`tpr_at_fpr` at each rate of :data:`LOW_FPR`, under its detail name.

    Parameters
    ----------
    member_losses, non_member_losses : array-like of float
        The losses (or negated scores) of the members and of the non-members.

    Returns
    -------
    dict of str to float
    """
    return {name: tpr_at_fpr(member_losses, non_member_losses, level) for name, level in LOW_FPR.items()}


def _check_losses(member_losses, non_member_losses):
    members, others = np.asarray(member_losses, float).ravel(), np.asarray(non_member_losses, float).ravel()
    if min(len(members), len(others)) < 2:
        raise ValueError(
            f"the attack needs at least 2 members and 2 non-members (one of each per half), got "
            f"{len(members)} and {len(others)}; use a larger training or test fold"
        )
    if np.isnan(members).any() or np.isnan(others).any():
        raise ValueError("losses must not be NaN; check the model's scores")
    return members, others


def balanced_indices(n_members: int, n_non_members: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """As many members as non-members: the larger side subsampled without replacement.

    Parameters
    ----------
    n_members, n_non_members : int
        The sizes of the two sides.
    rng : RandomState
        The draw.

    Returns
    -------
    member_index, non_member_index : ndarray of int
        Sorted positions kept on each side.
    """
    n = min(n_members, n_non_members)
    return tuple(
        np.sort(rng.choice(size, n, replace=False)) if size > n else np.arange(size)
        for size in (n_members, n_non_members)
    )


@shared_doc
def loss_threshold_attack(
    member_losses,
    non_member_losses,
    *,
    calibration: float = 0.5,
    n_splits: int = 10,
    loss: str = "loss",
    attack: str = "membership",
    random_state=None,
) -> AttackResult:
    """The loss-threshold membership attack (Yeom et al. 2018) on given losses, with its baseline 1/2.

    Parameters
    ----------
    member_losses, non_member_losses : array-like of float
        The model's loss on rows of its training set and on rows it never saw; the larger side is subsampled
        to the size of the smaller (seeded).
    calibration : float in (0, 1)
        The share of each side on which the threshold is chosen; the success is measured on the rest.
    n_splits : int
        Random calibration splits; the success is their mean, ``details["advantage_std"]`` their spread
        (one split's accuracy moves by about 0.01-0.02 on a few thousand rows).
    loss : str
        What the losses are (kept as a text detail).
    attack : str
        The record's name (:func:`privnb.attacks.lira_attacks` scores with its own).
    random_state : int, RandomState or None
        Seeds the subsample and the calibration splits.
        {random_state}

    Returns
    -------
    AttackResult
        ``membership``: success the accuracy on the evaluation half at the calibrated threshold (mean over the
        splits), baseline 1/2, advantage success - 1/2 (in [-1/2, 1/2]); details ``tpr`` and ``fpr`` there
        (means), ``advantage_std`` (standard deviation over the splits), ``n_splits``, ``auc``, ``tpr_at_1pct_fpr``
        and ``tpr_at_0_1pct_fpr`` (:func:`tpr_at_fpr`; these three on all balanced rows), ``in_sample_advantage``
        (best accuracy over thresholds on all balanced rows - 1/2), ``yeom_advantage`` (accuracy at the mean
        member loss - 1/2), ``n_calibration`` and ``loss``.
    """
    if not 0 < calibration < 1:
        raise ValueError(f"calibration must lie strictly between 0 and 1, got {calibration!r}")
    n_splits = check_int(n_splits, "n_splits", low=1)
    members, others = _check_losses(member_losses, non_member_losses)
    rng = check_random_state(random_state)
    keep_m, keep_o = balanced_indices(len(members), len(others), rng)
    members, others = members[keep_m], others[keep_o]
    n = len(members)
    n_cal = min(max(1, round(calibration * n)), n - 1)
    rates = np.empty((n_splits, 2))
    for split in range(n_splits):
        cal_m, cal_o = rng.permutation(n), rng.permutation(n)
        threshold, _ = best_threshold(members[cal_m[:n_cal]], others[cal_o[:n_cal]])
        rates[split] = [r[0] for r in threshold_rates(members[cal_m[n_cal:]], others[cal_o[n_cal:]], [threshold])]
    advantages = (rates[:, 0] - rates[:, 1]) / 2
    _, in_sample = best_threshold(members, others)
    yeom_tpr, yeom_fpr = (float(r[0]) for r in threshold_rates(members, others, [members.mean()]))
    auc = roc_auc_score(np.r_[np.ones(n), np.zeros(n)], -np.r_[members, others])
    return AttackResult(
        attack,
        "members told from non-members by a loss threshold (accuracy on balanced held-out rows)",
        0.5 + float(advantages.mean()),
        0.5,
        2 * (n - n_cal),
        {
            "tpr": float(rates[:, 0].mean()),
            "fpr": float(rates[:, 1].mean()),
            "advantage_std": float(advantages.std(ddof=1)) if n_splits > 1 else 0.0,
            "n_splits": n_splits,
            "auc": float(auc),
            **low_fpr_details(members, others),
            "in_sample_advantage": in_sample / 2,
            "yeom_advantage": (yeom_tpr - yeom_fpr) / 2,
            "n_calibration": 2 * n_cal,
            "loss": loss,
        },
    )


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)  # a sparse matrix has no len


def _rows(X, index):
    if hasattr(X, "iloc"):
        return X.iloc[index]
    return X[index] if hasattr(X, "shape") else np.asarray(X)[index]


def check_labels(model, y) -> np.ndarray:
    """Refuse labels that cannot be the model's classes: numbers against text (0/1 against 'no'/'yes') or none
    of them a class of the model.

    A label the model never saw is a legitimate row (its loss is that of probability 0), but labels of another
    type than ``model.classes_`` match no class at all, and every attack would read "no risk" from them.

    Parameters
    ----------
    model : fitted classifier
        Its ``classes_`` (when it has them) are what the labels are compared with.
    y : array-like
        The labels.

    Returns
    -------
    ndarray
        The labels as an array.
    """
    y = np.asarray(y)
    classes = getattr(model, "classes_", None)
    if classes is None or len(y) == 0:
        return y
    classes = np.asarray(classes)
    numeric = [pd.api.types.infer_dtype(a, skipna=True) in _NUMBERS for a in (y, classes)]
    if numeric[0] != numeric[1] or not np.isin(y, classes).any():
        raise ValueError(
            f"the labels ({y.dtype}, e.g. {y[:3].tolist()}) are not the model's classes ({classes.dtype}, "
            f"{classes[:5].tolist()}): pass the labels the model was trained with (the same type and values)"
        )
    return y


def true_class_scores(model, X, y) -> tuple[np.ndarray, str]:
    """What a fitted classifier says about each row's true label: its probability, margin or correctness.

    Parameters
    ----------
    model : fitted classifier
        With ``classes_`` and ``predict_proba``, ``decision_function`` or at least ``predict``.
    X : DataFrame or array
        The rows.
    y : array-like
        Their true labels (checked by :func:`check_labels`).

    Returns
    -------
    scores : ndarray of float
        ``"probability"``: p(true class) of ``predict_proba`` (0 for a class the model never saw);
        ``"margin"``: the true class's ``decision_function`` score minus the best other class's (binary: the
        signed score); ``"correct"``: 1 where ``predict`` gives the true label, else 0.
    kind : {"probability", "margin", "correct"}
    """
    y = check_labels(model, y)
    classes = getattr(model, "classes_", None)
    if classes is not None and hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(X), float)
        position = {label: i for i, label in enumerate(classes)}
        column = np.array([position.get(label, -1) for label in y], dtype=np.intp)
        return np.where(column >= 0, proba[np.arange(len(y)), column], 0.0), "probability"
    if classes is not None and hasattr(model, "decision_function"):
        scores = np.asarray(model.decision_function(X), float)
        if scores.ndim == 1:  # binary: the score of classes_[1]
            return np.where(y == classes[1], scores, -scores), "margin"
        truth = (classes[None, :] == y[:, None]).astype(bool)
        return np.where(truth, scores, -np.inf).max(axis=1) - np.where(truth, -np.inf, scores).max(axis=1), "margin"
    return (np.asarray(model.predict(X)) == y).astype(float), "correct"


def example_losses(model, X, y) -> tuple[np.ndarray, str]:
    """The per-row loss of a fitted classifier with the rows' true labels, and which loss it is.

    Parameters
    ----------
    model : fitted classifier
        With ``classes_`` and ``predict_proba``, ``decision_function`` or at least ``predict``.
    X : DataFrame or array
        The rows.
    y : array-like
        Their true labels, of the type of the model's classes (``ValueError`` otherwise, :func:`check_labels`).

    Returns
    -------
    losses : ndarray of float
    kind : {"log loss", "hinge loss", "0-1 loss"}
    """
    scores, kind = true_class_scores(model, X, y)
    if kind == "probability":
        return -np.log(np.maximum(scores, PROBABILITY_FLOOR)), "log loss"
    if kind == "margin":
        return np.maximum(0.0, 1.0 - scores), "hinge loss"
    return 1.0 - scores, "0-1 loss"


@shared_doc
def membership_attack(
    model,
    members,
    member_labels,
    non_members,
    non_member_labels,
    *,
    calibration: float = 0.5,
    n_splits: int = 10,
    random_state=None,
) -> AttackResult:
    """The loss-threshold membership attack on a fitted classifier (:func:`loss_threshold_attack`).

    The larger side is subsampled to the size of the smaller (seeded) before the losses are computed, so
    the baseline is 1/2.

    Parameters
    ----------
    model : fitted classifier
        Scored by :func:`example_losses`.
    members, non_members : DataFrame, array or sparse matrix
        Rows of the model's training set, and rows it never saw (the same columns).
    member_labels, non_member_labels : array-like
        Their true labels, of the type of the model's classes (``ValueError`` otherwise: :func:`check_labels`).
    calibration : float in (0, 1)
        The share of each side that chooses the threshold.
    n_splits : int
        Random calibration splits (:func:`loss_threshold_attack`).
    random_state : int, RandomState or None
        Seeds the subsample and the calibration splits.
        {random_state}

    Returns
    -------
    AttackResult
        As :func:`loss_threshold_attack`; ``loss`` names the loss the model gave.
    """
    member_labels, non_member_labels = check_labels(model, member_labels), check_labels(model, non_member_labels)
    n_members, n_others = _n_rows(members), _n_rows(non_members)
    if len(member_labels) != n_members or len(non_member_labels) != n_others:
        raise ValueError(
            f"each side needs one label per row: {n_members} members with {len(member_labels)} labels, "
            f"{n_others} non-members with {len(non_member_labels)} labels"
        )
    _check_losses(np.zeros(len(member_labels)), np.zeros(len(non_member_labels)))
    rng = check_random_state(random_state)
    keep_m, keep_o = balanced_indices(len(member_labels), len(non_member_labels), rng)
    member_losses, kind = example_losses(model, _rows(members, keep_m), member_labels[keep_m])
    other_losses, _ = example_losses(model, _rows(non_members, keep_o), non_member_labels[keep_o])
    return loss_threshold_attack(
        member_losses, other_losses, calibration=calibration, n_splits=n_splits, loss=kind, random_state=rng
    )
