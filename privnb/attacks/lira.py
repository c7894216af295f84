"""The likelihood-ratio membership attack (LiRA) of Carlini, Chien, Nasr, Song, Terzis and Tramer ("Membership
inference attacks from first principles", S&P 2022), online and offline, on any scikit-learn classifier.

The loss-threshold attack (:func:`privnb.attacks.membership_attack`) calls a row a member when the model fits
it well, whatever the row: an easy row fits well in or out of the training set, a hard one only in it. LiRA
asks, per example, how the model's confidence on it is distributed when the example is in the training set
and when it is out (Section IV of the paper). Shadow models of the same kind, trained on rows drawn from a
population disjoint from the target's training fold, give those two distributions; each is fitted by a
Gaussian of the logit-scaled confidence phi = log(p / (1 - p)), p the probability of the true label
(Section IV.B, eq. (4): the logit makes the confidence close to normal). The online attack scores an
example by the likelihood ratio N(phi; mu_in, sigma_in^2) / N(phi; mu_out, sigma_out^2) of the target
model's phi (Algorithm 1); the offline attack, with OUT models only, by the one-sided test
P(Z <= phi), Z ~ N(mu_out, sigma_out^2) (Section VI.C). Both use the same shadow models: every candidate
example is IN exactly half of them (the paper's set-up), the offline score reads only the models it was out of.

A model without probabilities is scored by its margin (``decision_function``: the true class's score minus
the best other's, already on a logit scale), one with neither by +-1 for a right or wrong prediction
(:func:`logit_confidence`). Scores are turned into results as the loss-threshold attack's are (balanced
members and non-members, a threshold calibrated on random halves, repeated): its advantage and the paper's
threshold-free measures, the AUC and the true-positive rate at 1% and 0.1% false positives.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.stats import norm
from sklearn.base import clone
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.validation import check_int

from .membership import (
    PROBABILITY_FLOOR,
    balanced_indices,
    check_labels,
    loss_threshold_attack,
    true_class_scores,
)
from .result import AttackResult

__all__ = ["MIN_STD", "lira_attacks", "lira_scores", "logit_confidence", "shadow_confidences"]

MIN_STD = 0.1
"""The smallest standard deviation of a fitted Gaussian (on the logit scale): a k-NN's discrete vote shares
give many examples the same phi under every shadow model, a variance of 0."""


def logit_confidence(model, X, y) -> np.ndarray:
    """phi of every row: the logit of the model's probability of its true label (eq. (4) of Carlini et al.).

    With ``predict_proba``: log p - log(1 - p), p clipped to [1e-12, 1 - 1e-12] (a k-NN's vote share may be
    0 or 1); with ``decision_function`` only: the margin of the true class; with ``predict`` only: +1 where
    the prediction is right, -1 where it is wrong.

    Parameters
    ----------
    model : fitted classifier
        The model (target or shadow).
    X : DataFrame, array or sparse matrix
        The rows.
    y : array-like
        Their true labels, of the type of the model's classes.

    Returns
    -------
    ndarray of float
    """
    scores, kind = true_class_scores(model, X, y)
    if kind == "probability":
        p = np.clip(scores, PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR)
        return np.log(p) - np.log1p(-p)
    if kind == "margin":
        return scores
    return 2 * scores - 1


def _take(X, index):
    if hasattr(X, "iloc"):
        return X.iloc[index]
    return X[index] if hasattr(X, "shape") else np.asarray(X)[index]


def _stack(parts):
    if all(hasattr(p, "iloc") for p in parts):
        return pd.concat(parts, ignore_index=True)
    if any(sparse.issparse(p) for p in parts):
        return sparse.vstack(parts, format="csr")
    return np.concatenate([np.asarray(p) for p in parts])


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


@shared_doc
def shadow_confidences(
    estimator,
    targets,
    target_labels,
    population,
    population_labels,
    *,
    n_shadows=16,
    shadow_size=None,
    random_state=None,
    progress=False,
):
    """Train shadow models and read phi of every target under each: the experiments of LiRA.

    Each shadow model is a clone of ``estimator`` trained on ``shadow_size`` rows: the targets it holds IN
    (each target is IN exactly ``n_shadows // 2`` of the models, drawn at random) and rows drawn from the
    population without replacement for the rest (all of the population when it is short of the rest).

    Parameters
    ----------
    estimator : classifier
        Cloned (``sklearn.base.clone``) for every shadow model: the target's training procedure.
    targets : DataFrame, array or sparse matrix
        The candidate examples.
    target_labels : array-like
        Their labels.
    population, population_labels : DataFrame, array or sparse matrix; array-like
        Rows disjoint from the target model's training fold (the adversary's data) and their labels.
    n_shadows : int
        Shadow models, even, at least 2.
    shadow_size : int, optional
        Training rows of each shadow model; default the population's size / 2 + the targets' IN half, at most
        the population plus the IN targets.
    random_state : int, RandomState or None
        Seeds the IN sets and the population draws.
        {random_state}
    progress : bool
        Show a progress bar (tqdm) over the shadow models.

    Returns
    -------
    confidences : ndarray of shape (n_shadows, n_targets)
        phi of every target under every shadow model.
    inside : ndarray of bool, same shape
        Whether the target was in the shadow model's training rows.
    """
    n_shadows = check_int(n_shadows, "n_shadows", low=2)
    if n_shadows % 2:
        raise ValueError(f"n_shadows must be even (every target is IN half the shadow models), got {n_shadows}")
    target_labels, population_labels = np.asarray(target_labels), np.asarray(population_labels)
    n_targets, n_pool = _n_rows(targets), _n_rows(population)
    if len(target_labels) != n_targets or len(population_labels) != n_pool:
        raise ValueError(
            f"one label per row: {n_targets} targets with {len(target_labels)} labels, {n_pool} population rows "
            f"with {len(population_labels)} labels"
        )
    half = n_targets // 2 + n_targets % 2
    size = n_pool // 2 + half if shadow_size is None else check_int(shadow_size, "shadow_size", low=2)
    if size - half < 0 or size - half > n_pool:
        raise ValueError(
            f"shadow_size={size} needs {size - half} population rows beside about {half} IN targets; the "
            f"population holds {n_pool}: pass a larger population or a shadow_size in [{half}, {n_pool + half}]"
        )
    rng = check_random_state(random_state)
    inside = np.zeros((n_shadows, n_targets), dtype=bool)
    for column in range(n_targets):
        inside[rng.choice(n_shadows, n_shadows // 2, replace=False), column] = True
    from tqdm.auto import tqdm

    confidences = np.empty((n_shadows, n_targets))
    for m in tqdm(range(n_shadows), disable=not progress, desc="LiRA shadow models", unit="model"):
        held = np.flatnonzero(inside[m])
        pool = rng.choice(n_pool, min(n_pool, max(0, size - len(held))), replace=False)
        X = _stack([_take(targets, held), _take(population, pool)])
        shadow = clone(estimator).fit(X, np.r_[target_labels[held], population_labels[pool]])
        confidences[m] = logit_confidence(shadow, targets, target_labels)
    return confidences, inside


def _gaussian(confidences, mask, fix_variance, min_std):
    """Per target: mean and standard deviation of phi over the models ``mask`` selects."""
    count = mask.sum(axis=0)
    mean = np.where(mask, confidences, 0.0).sum(axis=0) / count
    squares = np.where(mask, (confidences - mean) ** 2, 0.0)
    if fix_variance:  # one variance over every target (the paper's choice with few shadow models)
        std = np.full(len(mean), np.sqrt(squares.sum() / count.sum()))
    else:
        std = np.sqrt(squares.sum(axis=0) / count)
    return mean, np.maximum(std, min_std)


def lira_scores(confidences, inside, target_confidences, *, online=True, fix_variance=False, min_std=MIN_STD):
    """LiRA's membership score of every target: higher is more likely a member.

    Online (Algorithm 1 of Carlini et al.): log N(phi; mu_in, sigma_in^2) - log N(phi; mu_out, sigma_out^2),
    the Gaussians fitted per target on the phi of the shadow models it was IN and OUT of. Offline
    (Section VI.C): log P(Z <= phi), Z ~ N(mu_out, sigma_out^2).

    Parameters
    ----------
    confidences : ndarray of shape (n_shadows, n_targets)
        phi of every target under every shadow model (:func:`shadow_confidences`).
    inside : ndarray of bool, same shape
        Whether the target was IN the shadow model; online needs at least one IN and one OUT per target,
        offline one OUT.
    target_confidences : ndarray of shape (n_targets,)
        phi under the attacked model.
    online : bool
        The online likelihood ratio, else the offline one-sided test.
    fix_variance : bool
        One variance per side over every target instead of one per target (the paper's choice with few
        shadow models, Section VI.A).
    min_std : float
        Floor of every standard deviation.

    Returns
    -------
    ndarray of float
    """
    confidences, inside = np.asarray(confidences, float), np.asarray(inside, bool)
    phi = np.asarray(target_confidences, float)
    if confidences.shape != inside.shape or confidences.ndim != 2 or confidences.shape[1] != len(phi):
        raise ValueError(
            f"confidences {confidences.shape} and inside {inside.shape} must be (n_shadows, n_targets) with "
            f"n_targets = {len(phi)} target confidences"
        )
    if not min_std > 0:
        raise ValueError(f"min_std must be positive, got {min_std!r}")
    if not (~inside).any(axis=0).all() or (online and not inside.any(axis=0).all()):
        raise ValueError("every target needs an OUT shadow model (and, online, an IN one): use more shadow models")
    mu_out, sd_out = _gaussian(confidences, ~inside, fix_variance, min_std)
    if not online:
        return norm.logcdf((phi - mu_out) / sd_out)
    mu_in, sd_in = _gaussian(confidences, inside, fix_variance, min_std)
    return norm.logpdf(phi, mu_in, sd_in) - norm.logpdf(phi, mu_out, sd_out)


def _balanced_targets(model, members, member_labels, non_members, non_member_labels, rng):
    """As many members as non-members (the larger side subsampled), stacked: (rows, labels, members' count)."""
    member_labels, non_member_labels = check_labels(model, member_labels), check_labels(model, non_member_labels)
    n_members, n_others = _n_rows(members), _n_rows(non_members)
    if len(member_labels) != n_members or len(non_member_labels) != n_others or min(n_members, n_others) < 2:
        raise ValueError(
            f"each side needs one label per row and at least 2 rows: {n_members} members with "
            f"{len(member_labels)} labels, {n_others} non-members with {len(non_member_labels)} labels"
        )
    keep_m, keep_o = balanced_indices(n_members, n_others, rng)
    targets = _stack([_take(members, keep_m), _take(non_members, keep_o)])
    return targets, np.r_[member_labels[keep_m], non_member_labels[keep_o]], len(keep_m)


@shared_doc
def lira_attacks(
    model,
    members,
    member_labels,
    non_members,
    non_member_labels,
    population,
    population_labels,
    *,
    n_shadows=16,
    shadow_size=None,
    fix_variance=False,
    min_std=MIN_STD,
    calibration=0.5,
    n_splits=10,
    random_state=None,
    progress=False,
) -> list[AttackResult]:
    """LiRA, online and offline, against a fitted classifier (Carlini et al. 2022).

    The targets are as many members as non-members (the larger side subsampled, seeded), so the baseline is
    1/2 as for :func:`privnb.attacks.membership_attack`. Shadow models (:func:`shadow_confidences`) are
    clones of ``model`` trained on the population and the targets they hold IN; the scores
    (:func:`lira_scores`) are read as :func:`privnb.attacks.loss_threshold_attack` reads negated losses.

    Parameters
    ----------
    model : fitted classifier
        The attacked model; cloned (unfitted, same parameters) for the shadow models.
    members, non_members : DataFrame, array or sparse matrix
        Rows of the model's training fold, and rows it never saw.
    member_labels, non_member_labels : array-like
        Their true labels, of the type of the model's classes.
    population, population_labels : DataFrame, array or sparse matrix; array-like
        The adversary's data: rows disjoint from the model's training fold (and from ``non_members``), with
        their labels; the shadow models' rows besides the targets.
    n_shadows : int
        Shadow models (even; each target IN half of them). 16 by default (about 1.5-2.5 s each for a 5-NN
        view of 2,700 training rows on two busy cores); Carlini et al. use 64-256. With 8, a 1-NN's rows
        get 4 IN and 4 OUT values of phi and the TPR at 1% false positives falls to the loss threshold's;
        with few models ``fix_variance`` is the paper's advice.
    shadow_size : int, optional
        Training rows of a shadow model; default the size of the model's training fold (``members``).
    fix_variance : bool
        One variance over every target (:func:`lira_scores`).
    min_std : float
        Floor of every standard deviation.
    calibration : float in (0, 1)
        The share of each side that chooses the threshold.
    n_splits : int
        Random calibration splits; the spread is ``details["advantage_std"]``.
    random_state : int, RandomState or None
        Seeds the targets, the shadow models' rows and the calibration splits.
        {random_state}
    progress : bool
        Show a progress bar over the shadow models.

    Returns
    -------
    list of AttackResult
        ``lira_online`` and ``lira_offline``: details as :func:`privnb.attacks.loss_threshold_attack` (``auc``,
        ``tpr_at_1pct_fpr``, ``tpr_at_0_1pct_fpr``, ``advantage_std``, ...) and ``n_shadows``.
    """
    rng = check_random_state(random_state)
    targets, labels, n = _balanced_targets(model, members, member_labels, non_members, non_member_labels, rng)
    size = _n_rows(members) if shadow_size is None else shadow_size
    confidences, inside = shadow_confidences(
        model,
        targets,
        labels,
        population,
        population_labels,
        n_shadows=n_shadows,
        shadow_size=size,
        random_state=rng,
        progress=progress,
    )
    phi = logit_confidence(model, targets, labels)
    out = []
    for online in (True, False):
        scores = lira_scores(confidences, inside, phi, online=online, fix_variance=fix_variance, min_std=min_std)
        name = "lira_online" if online else "lira_offline"
        result = loss_threshold_attack(
            -scores[:n],
            -scores[n:],
            calibration=calibration,
            n_splits=n_splits,
            loss="-LiRA score",
            attack=name,
            random_state=rng,
        )
        metric = f"members told from non-members by LiRA's {'online' if online else 'offline'} score (Carlini et al.)"
        out.append(replace(result, metric=metric, details={**result.details, "n_shadows": n_shadows}))
    return out
