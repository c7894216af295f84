"""What anatomy discloses, as :class:`~privnb.attacks.AttackResult` records: the de Finetti attack's variants
and their strongest, the model of the original data (the reference), pruning, and the random-worlds guess.

Every rate is measured over the grouped individuals (IT's rows) and, in ``details["success_all_rows"]``,
over every row of the input, the suppressed ones included: a suppressed row is not published, so the
adversary can only guess it the most frequent value of ST (the majority-prior guess; when k values tie for
the most frequent, as the values in every group do, each counts 1/k), which discloses nothing beyond the
prior.

The baseline of every anatomy attack is the prior of a random guess within the group, computed from the
release alone: the mean over the targets of 1 / (distinct sensitive values in the target's group), which is
1/l for Xiao and Tao's groups of l distinct values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.mechanisms import Anatomy
from privnb.validation import check_int

from .definetti import AnatomyAttack, check_anatomy, definetti_attack
from .result import AttackResult

__all__ = [
    "group_prior",
    "random_worlds_rate",
    "definetti_disclosure",
    "original_model_disclosure",
    "pruning_disclosure",
    "random_guess",
]

_GUESS_METRIC = "share of grouped individuals whose sensitive value is guessed right (ties split)"


def group_prior(anatomy: Anatomy) -> pd.Series:
    """1 / (distinct sensitive values in the group) of every IT row: a random guess within the group's values.

    Parameters
    ----------
    anatomy : Anatomy
        The release.

    Returns
    -------
    Series
        Indexed like ``anatomy.it``.
    """
    check_anatomy(anatomy, large_groups="sinkhorn")  # no enumeration: any group size
    distinct = anatomy.st.groupby("gid")[anatomy.sensitive].nunique()
    return pd.Series(1.0 / distinct.reindex(anatomy.it["gid"]).to_numpy(), index=anatomy.it.index, name="prior")


def random_worlds_rate(anatomy: Anatomy, truth: pd.Series) -> float:
    """Expected share of right guesses under the random-worlds assumption: mean of freq(v_true, G) / |G|.

    This is the nominal 1/l of l-diversity (Definition 10 of MC17) for groups of l distinct values.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    truth : Series
        The true sensitive values indexed by ``row_id``.

    Returns
    -------
    float
    """
    check_anatomy(anatomy, large_groups="sinkhorn")
    gid = anatomy.it["gid"].to_numpy()
    true = truth.reindex(anatomy.it.index).to_numpy()
    counts = anatomy.st.groupby(["gid", anatomy.sensitive], observed=True).size()
    sizes = anatomy.st["gid"].value_counts()
    freq = counts.reindex(pd.MultiIndex.from_arrays([gid, true])).fillna(0).to_numpy()
    return float(np.mean(freq / sizes.reindex(gid).to_numpy()))


def _all_rows(anatomy: Anatomy, truth: pd.Series, grouped_hits: float) -> dict:
    """The rate over every input row: suppressed rows get the majority-prior guess (ST's mode; k tied modes
    count 1/k each).
    """
    suppressed = truth.reindex(anatomy.suppressed)
    if suppressed.isna().any():
        raise ValueError("truth lacks the sensitive value of some suppressed rows; pass the whole input column")
    counts = anatomy.st[anatomy.sensitive].value_counts()
    modes = counts.index[counts == counts.max()]  # values tied for the mode share the guess
    n_all = len(anatomy.it) + len(suppressed)
    return {
        "success_all_rows": (grouped_hits + float(suppressed.isin(modes).sum()) / len(modes)) / n_all,
        "n_all_rows": n_all,
        "n_suppressed": len(suppressed),
    }


def _result(attack: str, anatomy: Anatomy, truth: pd.Series, guessed: AnatomyAttack, details: dict) -> AttackResult:
    credit = guessed.credit(truth)
    return AttackResult(
        attack,
        _GUESS_METRIC,
        float(credit.mean()),
        float(group_prior(anatomy).mean()),
        len(credit),
        {**details, "tie_share": guessed.tie_share(), **_all_rows(anatomy, truth, float(credit.sum()))},
    )


def definetti_disclosure(
    anatomy: Anatomy,
    truth: pd.Series,
    *,
    quasi_identifiers=None,
    l: int | None = None,
    n_iter: int = 2000,
    tol: float = 1e-6,
    early_iter: int = 19,
    alpha: float = 1.0,
    n_bins: int = 10,
    large_groups: str = "refuse",
    accelerate: str | None = "squarem",
    progress: bool = False,
) -> AttackResult:
    """The de Finetti attack at full strength: the strongest of its variants, each reported.

    Variants, each a fixed strategy the adversary can run on the release alone: ``join`` (the join model's
    one-step guess, ``n_iter=0``), ``em_early`` (the EM stopped after ``early_iter`` iterations, 20 E-steps
    by default: this module's former default; plain EM steps) and ``em`` (the EM run until it gains less than
    ``tol`` per individual, at most ``n_iter`` iterations, SQUAREM-accelerated by default; a
    ``ConvergenceWarning`` says when the cap stopped it). The EM maximizes the likelihood, not the guessing rate, so
    a later iterate may guess worse. The measured disclosure (``success``) is the strongest variant
    (``details["strongest"]`` names it); ``details`` also holds each variant's rate, the EM's iterations and
    whether it converged, the random-worlds rate, the share of rows tied at the top and the rate over all
    rows.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    truth : Series
        The true sensitive values of every input row (grouped and suppressed), indexed by ``row_id``.
    quasi_identifiers : sequence of str, optional
        As in :func:`~privnb.attacks.definetti_attack`.
    l : int, optional
        The diversity the release claims (checked).
    n_iter : int
        Largest number of EM iterations, at least 1 (``n_iter=0`` is the ``join`` variant alone: call
        :func:`~privnb.attacks.definetti_attack`). A SQUAREM iteration costs at most 3 E-steps.
    tol : float
        The EM's stopping tolerance (log-likelihood gain per individual and iteration), a number >= 0.
    early_iter : int
        Iterations of the early-stopped variant.
    alpha : float
        Laplace smoothing.
    n_bins : int
        Quantile bins of a numeric quasi-identifier.
    large_groups : {"refuse", "sinkhorn"}
        As in :func:`~privnb.attacks.definetti_attack` (a generalized release's classes: ``"sinkhorn"``).
    accelerate : {"squarem", None}
        How the ``em`` variant iterates (:func:`~privnb.attacks.definetti_attack`).
    progress : bool
        Show a progress bar over the ``em`` variant's iterations.

    Returns
    -------
    AttackResult
        Attack ``"definetti"``; details also ``e_steps`` (the ``em`` variant's E-steps, its cost).
    """
    n_iter = check_int(n_iter, "n_iter", low=1)
    options = dict(
        quasi_identifiers=quasi_identifiers, l=l, tol=tol, alpha=alpha, n_bins=n_bins, large_groups=large_groups
    )
    variants = {
        "join": definetti_attack(anatomy, n_iter=0, **options),
        "em_early": definetti_attack(anatomy, n_iter=min(early_iter, n_iter), accelerate=None, **options),
        "em": definetti_attack(anatomy, n_iter=n_iter, accelerate=accelerate, progress=progress, **options),
    }
    if not variants["em"].converged:
        warnings.warn(
            f"the de Finetti EM stopped at its cap of n_iter={n_iter} iterations ({variants['em'].e_steps} "
            f"E-steps) before gaining less than tol={tol} per individual; its rate is reported with "
            "converged=False: raise n_iter or tol to let it finish",
            ConvergenceWarning,
            stacklevel=2,
        )
    rates = {name: guessed.success(truth) for name, guessed in variants.items()}
    strongest = max(rates, key=lambda name: (rates[name], name == "em"))
    details = {
        "strongest": strongest,
        **{f"{name}_rate": rate for name, rate in rates.items()},
        "iterations": variants["em"].n_iter,
        "e_steps": variants["em"].e_steps,
        "converged": variants["em"].converged,
        "tol": tol,
        "random_worlds": random_worlds_rate(anatomy, truth),
    }
    return _result("definetti", anatomy, truth, variants[strongest], details)


def original_model_disclosure(
    anatomy: Anatomy,
    truth: pd.Series,
    *,
    quasi_identifiers=None,
    alpha: float = 1.0,
    n_bins: int = 10,
    large_groups: str = "refuse",
) -> AttackResult:
    """The reference: the same guess with the Naive Bayes fitted on the original data (full disclosure).

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    truth : Series
        The true sensitive values of every input row, indexed by ``row_id``.
    quasi_identifiers : sequence of str, optional
        As in :func:`~privnb.attacks.definetti_attack`.
    alpha : float
        Laplace smoothing.
    n_bins : int
        Quantile bins of a numeric quasi-identifier.
    large_groups : {"refuse", "sinkhorn"}
        As in :func:`~privnb.attacks.definetti_attack`.

    Returns
    -------
    AttackResult
        Attack ``"original_model"``.
    """
    guessed = definetti_attack(
        anatomy,
        quasi_identifiers=quasi_identifiers,
        alpha=alpha,
        n_bins=n_bins,
        model_from=truth,
        large_groups=large_groups,
    )
    return _result("original_model", anatomy, truth, guessed, {})


def pruning_disclosure(anatomy: Anatomy, pruned: pd.DataFrame, truth: pd.Series, *, id_column: str = "row_id"):
    """Share of individuals whose kept row (MC16's pruning, Figure B.2) carries their true sensitive value.

    Parameters
    ----------
    anatomy : Anatomy
        The release the pruning kept one row per individual of (its groups give the baseline).
    pruned : DataFrame
        ``Pruning.pruned``: one row per individual, with ``id_column`` and the sensitive column.
    truth : Series
        The true sensitive values of every input row, indexed by the same ids.
    id_column : str
        The column of ``pruned`` holding the individual's id.

    Returns
    -------
    AttackResult
        Attack ``"pruning_disclosure"``; under random worlds its success would be the baseline.
    """
    sensitive = anatomy.sensitive
    if id_column not in pruned.columns or sensitive not in pruned.columns:
        raise ValueError(f"pruned rows need the columns {id_column!r} and {sensitive!r} (Pruning.pruned)")
    ids = pruned[id_column].to_numpy()
    true = truth.reindex(ids)
    if true.isna().any():
        raise ValueError("truth lacks the sensitive value of some pruned individuals")
    hits = true.to_numpy() == pruned[sensitive].to_numpy()
    prior = group_prior(anatomy).reindex(ids)
    return AttackResult(
        "pruning_disclosure",
        "share of individuals whose kept row holds their true sensitive value",
        float(hits.mean()),
        float(prior.mean()),
        len(ids),
        _all_rows(anatomy, truth, float(hits.sum())) if len(ids) == len(anatomy.it) else {},
    )


@shared_doc
def random_guess(anatomy: Anatomy, random_state=None) -> pd.Series:
    """One draw of the random-worlds adversary: a uniform member of its group's ST values for each individual.

    A value is drawn with probability freq(v, G)/|G|.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    random_state : int, RandomState or None
        Seeds the draw.
        {random_state}

    Returns
    -------
    Series
        Indexed like ``anatomy.it``.
    """
    check_anatomy(anatomy)
    rng = check_random_state(random_state)
    st = anatomy.st.sort_values("gid", kind="stable")
    starts = np.searchsorted(st["gid"].to_numpy(), anatomy.it["gid"].to_numpy())
    sizes = np.bincount(st["gid"].to_numpy())[anatomy.it["gid"].to_numpy()]
    pick = starts + (rng.random_sample(len(starts)) * sizes).astype(np.intp)
    return pd.Series(st[anatomy.sensitive].to_numpy()[pick], index=anatomy.it.index, name=anatomy.sensitive)
