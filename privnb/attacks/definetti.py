"""What anatomy discloses to Kifer's de Finetti attack: an EM over each group's assignments of its values.

Anatomy (Definition 11 of MC17, Xiao and Tao's algorithm) publishes IT (quasi-identifiers and a group id)
and ST (each group's sensitive values). Under the random-worlds assumption every assignment of a group's
values to its members is equally likely, so an adversary who knows Alice's quasi-identifiers guesses her
sensitive value right with probability freq(v, G) / |G|: 1/l for Xiao and Tao's groups.

Kifer (SIGMOD 2009, "Attacks on privacy and de Finetti's theorem", Section 5) showed that this
probability is wrong whenever the sensitive value depends on the quasi-identifiers: the tuples are
exchangeable, not independent, so the whole release teaches a model of P(S | Q) that then tells apart
the members of each group. His attack on Anatomy learns a Naive Bayes model from the anatomized tables
by iterating between the model and each group's possible assignments of its values to its members,
then guesses each individual's value among its group's values. :func:`definetti_attack` implements it
as an EM algorithm over those assignments: the E-step weighs each of a group's |G|! assignments by the
model's likelihood (enumerated as arrays: groups hold l <= 6 rows), the M-step refits the Naive Bayes
counts on the expected assignments. The first model is the one the anatomized join itself gives (every
member paired with every value of its group, weight 1/|G|); one E-step with it is the join model's guess
(``n_iter=0``); the EM then runs until its objective (the log-likelihood plus the Laplace smoothing's log
prior, which an EM step with smoothed counts never decreases) gains less than ``tol`` per individual. It
iterates by SQUAREM by default and averages the columns of values no group tells apart
(:mod:`privnb.attacks._naive_bayes_em`), so that the rate does not depend on the rows' order or the values'
labels.
A group of more than :data:`MAX_GROUP` rows (a generalized release's equivalence class, read as a group by
:mod:`privnb.attacks.class_disclosure`) is refused, or with ``large_groups="sinkhorn"`` its marginals are
approximated by Sinkhorn scaling (:func:`sinkhorn_marginals`); smaller groups stay exact.

A guess is scored tie-aware: when k of a group's values share the top posterior (within ``rtol``,
relatively), the guess is right with probability 1/k, so the rate does not depend on the order or the
labels of the values (on Adult at l = 5 half of the rows tie at the top, and floating-point noise would
otherwise pick the winner).

What could not be checked against the paper's text: its Section 5 pseudo-code was not available to us;
the initialization, the Laplace smoothing, the binning of numeric quasi-identifiers and the stopping
rule are our choices (parameters below), the iteration itself follows the paper's description.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from privnb.mechanisms import Anatomy, is_l_diverse
from privnb.validation import check_int

from ._kernels import sinkhorn_sweep
from ._naive_bayes_em import NaiveBayesModel, interchangeable_values, run_em

__all__ = [
    "AnatomyAttack",
    "LARGE_GROUPS",
    "MAX_GROUP",
    "encode_quasi_identifiers",
    "definetti_attack",
    "naive_definetti_attack",
    "check_anatomy",
    "sinkhorn_marginals",
]

MAX_GROUP = 6
"""Largest group the attack enumerates (6! = 720 assignments per group)."""

LARGE_GROUPS = ("refuse", "sinkhorn")
"""What :func:`definetti_attack` does with a group above :data:`MAX_GROUP` rows: refuse the release, or take
the Sinkhorn approximation of the group's marginals (:func:`sinkhorn_marginals`)."""

SINKHORN_TOL = 1e-4
"""The Sinkhorn scaling stops when every group's value total is within this share of its count."""

TIE_RTOL = 1e-8
"""Posteriors within this relative distance of a row's top posterior tie with it."""


@dataclass(frozen=True)
class AnatomyAttack:
    """The guesses of :func:`definetti_attack` (or of its reference run on the original data).

    Attributes
    ----------
    guess : Series
        A guessed sensitive value of every IT row (the first of the tied top values), indexed like
        ``anatomy.it`` (``row_id``).
    confidence : Series
        The posterior probability of the guess (the marginal over the group's assignments).
    posterior : ndarray of shape (n_rows, n_values)
        P(row holds value) for every IT row and every ST value (``values``); zero outside the row's group.
    values : Index
        The sensitive values, the columns of ``posterior``.
    n_iter : int
        EM iterations run after the join model's E-step (0: the join model's guess).
    converged : bool
        Whether the last iteration gained less than ``tol`` per individual (False for ``n_iter=0``).
    log_likelihood : ndarray
        The EM's objective after the join model's E-step and after each iteration: the observed-data
        log-likelihood plus the Laplace smoothing's log prior (non-decreasing, up to rounding; see
        :func:`privnb.attacks._naive_bayes_em.run_em`).
    rtol : float
        The relative tolerance of a tie at the top.
    e_steps : int
        E-steps the EM ran (its cost).
    """

    guess: pd.Series
    confidence: pd.Series
    posterior: np.ndarray
    values: pd.Index
    n_iter: int
    converged: bool
    log_likelihood: np.ndarray
    rtol: float = TIE_RTOL
    e_steps: int = 1

    def top(self) -> np.ndarray:
        """Boolean (n_rows, n_values): the values tied at the top of each row's posterior."""
        best = self.posterior.max(axis=1, keepdims=True)
        return (self.posterior >= best * (1 - self.rtol)) & (self.posterior > 0)

    def credit(self, truth: pd.Series) -> np.ndarray:
        """Per row, the probability that the guess is right: 1/k when the true value is among k tied at the top.

        Parameters
        ----------
        truth : Series
            The true sensitive values, indexed by ``row_id`` (every attacked row).

        Returns
        -------
        ndarray of float
        """
        true = truth.reindex(self.guess.index)
        if true.isna().any():
            raise ValueError(
                "truth lacks the sensitive value of some attacked individuals; pass the original "
                "sensitive column indexed by the anatomized rows' labels"
            )
        top = self.top()
        code = self.values.get_indexer(true)
        hit = np.zeros(len(code), dtype=bool)
        known = code >= 0
        hit[known] = top[np.flatnonzero(known), code[known]]
        return hit / top.sum(axis=1)

    def success(self, truth: pd.Series) -> float:
        """Expected share of individuals whose sensitive value the attack guesses right (ties split evenly).

        Parameters
        ----------
        truth : Series
            The true sensitive values, indexed by ``row_id``.

        Returns
        -------
        float
        """
        return float(self.credit(truth).mean())

    def tie_share(self) -> float:
        """Share of rows whose top posterior is shared by two or more values."""
        return float(np.mean(self.top().sum(axis=1) > 1))


def check_anatomy(anatomy: Anatomy, l: int | None = None, *, large_groups: str = "refuse") -> None:
    """Refuse a release the attack cannot read: not an Anatomy, not l-diverse, groups too large.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    l : int, optional
        The diversity it claims (checked when given).
    large_groups : {"refuse", "sinkhorn"}
        Refuse a group above :data:`MAX_GROUP` rows, or accept it (the attack approximates it).
    """
    if large_groups not in LARGE_GROUPS:
        raise ValueError(f"large_groups must be one of {LARGE_GROUPS}, got {large_groups!r}")
    if not isinstance(anatomy, Anatomy):
        raise TypeError(f"expected a privnb.mechanisms.Anatomy (anatomize's output), got {type(anatomy).__name__}")
    if l is not None:
        l = check_int(l, "l")
        if not is_l_diverse(anatomy.st, anatomy.sensitive, l):
            raise ValueError(
                f"the release is not {l}-diverse (some group has a value with frequency above 1/{l}); "
                f"pass the l the release was built with (anatomy.l = {anatomy.l})"
            )
    sizes = anatomy.st["gid"].value_counts()
    if large_groups == "refuse" and len(sizes) and sizes.max() > MAX_GROUP:
        raise ValueError(
            f"a group holds {sizes.max()} rows; the attack enumerates each group's assignments and "
            f"takes groups of at most {MAX_GROUP} rows (l <= {MAX_GROUP}, residue='suppress'); "
            "large_groups='sinkhorn' approximates larger groups"
        )
    if len(anatomy.it) == 0:
        raise ValueError("the release holds no grouped individual: nothing to attack")


def encode_quasi_identifiers(frame: pd.DataFrame, columns, *, n_bins: int = 10) -> np.ndarray:
    """Integer codes of the quasi-identifiers for a categorical Naive Bayes: (n_rows, n_columns).

    A numeric column with more than ``n_bins`` distinct values is cut into at most ``n_bins`` quantile bins
    of its values (the adversary's discretization; Kifer's Naive Bayes is over categories): equal values
    share a bin, so a quantile edge that falls inside a run of equal values merges two bins. Any other
    column is factorized.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    columns : sequence of str
        The quasi-identifiers.
    n_bins : int
        Largest number of bins of a numeric column.

    Returns
    -------
    ndarray of int
    """
    n_bins = check_int(n_bins, "n_bins", low=2)
    out = np.empty((len(frame), len(columns)), dtype=np.intp)
    for j, column in enumerate(columns):
        values = frame[column]
        if values.isna().any():
            raise ValueError(f"quasi-identifier {column!r} has missing values; drop or impute them first")
        if pd.api.types.is_numeric_dtype(values) and values.nunique() > n_bins:
            out[:, j] = pd.qcut(values, n_bins, labels=False, duplicates="drop")
        else:
            out[:, j] = pd.factorize(values, sort=True)[0]
    return out


class _Groups:
    """The anatomized release as arrays: members and values of every group up to :data:`MAX_GROUP` rows,
    batched by group size; the larger groups' members, group and value counts in ``large``.
    """

    def __init__(self, anatomy: Anatomy, value_codes: pd.Index):
        it_gid = anatomy.it["gid"].to_numpy()
        st_gid = anatomy.st["gid"].to_numpy()
        st_val = value_codes.get_indexer(anatomy.st[anatomy.sensitive])
        member_order = np.argsort(it_gid, kind="stable")
        value_order = np.argsort(st_gid, kind="stable")
        sizes = np.bincount(it_gid)
        self.batches = []  # (members (G, s), values (G, s), permutations (s!, s), one-hot (s!, s * s))
        group_size = sizes[np.sort(it_gid)]
        big = sizes[it_gid] > MAX_GROUP
        self.large = None  # (rows, dense group of each row, counts (groups, values))
        self.scaling = None  # the last E-step's value scaling of the large groups: the next one starts there
        if big.any():
            rows = np.flatnonzero(big)
            dense, group = np.unique(it_gid[rows], return_inverse=True)
            st_big = np.isin(st_gid, dense)
            counts = np.zeros((len(dense), len(value_codes)))
            np.add.at(counts, (np.searchsorted(dense, st_gid[st_big]), st_val[st_big]), 1.0)
            self.large = (rows, group, counts)
        for s in np.unique(sizes[(sizes > 0) & (sizes <= MAX_GROUP)]):
            rows = group_size == s
            members = member_order[rows].reshape(-1, s)
            values = st_val[value_order][rows].reshape(-1, s)  # ST has the same group sizes, sorted alike
            perms = np.array(list(itertools.permutations(range(s))), dtype=np.intp)
            onehot = np.zeros((len(perms), s, s))  # onehot[p, a, b] = 1 when assignment p gives member a value b
            onehot[np.arange(len(perms))[:, None], np.arange(s), perms] = 1.0
            self.batches.append((members, values, perms, onehot.reshape(len(perms), s * s)))


def _accumulate(weights, members, values, marginal):
    """weights[members[g, a], values[g, b]] += marginal[g, a * s + b], repeated cells summed (bincount)."""
    cells = (members[:, :, None] * weights.shape[1] + values[:, None, :]).ravel()
    weights += np.bincount(cells, weights=np.asarray(marginal).ravel(), minlength=weights.size).reshape(weights.shape)


def _e_step(groups: _Groups, scores: np.ndarray):
    """Posterior marginals P(member a of G holds value b of G) and the log-likelihood, every group at once."""
    weights = np.zeros_like(scores)
    total = 0.0
    for members, values, _, onehot in groups.batches:
        # pair[g, a * s + b] = score of member a taking value b; an assignment's log-weight sums its s pairs
        pair = scores[members[:, :, None], values[:, None, :]].reshape(len(members), -1)
        log_p = pair @ onehot.T  # (G, s!)
        top = log_p.max(axis=1, keepdims=True)
        post = np.exp(log_p - top)
        mass = post.sum(axis=1, keepdims=True)
        post /= mass
        total += float((top + np.log(mass)).sum())
        _accumulate(weights, members, values, post @ onehot)  # (G, s * s): P(member a holds value b)
    if groups.large is not None:
        rows, group, counts = groups.large
        weights[rows], log_perm, groups.scaling = sinkhorn_marginals(scores[rows], group, counts, start=groups.scaling)
        total += log_perm
    return weights, total


def sinkhorn_marginals(
    scores: np.ndarray, group: np.ndarray, counts: np.ndarray, *, start=None, max_sweeps: int = 10_000
):
    """Approximate marginals of groups too large to enumerate: the group's assignment matrix scaled by Sinkhorn.

    For a group with members a and value counts c_v, the exact marginal P(a holds v) sums the weights
    exp(sum_a score[a, v_a]) of every assignment of the group's values to its members (a permanent). Its
    maximum-entropy approximation scales exp(score) by a factor per member and per value until every
    member's row sums to 1 and every value's column to c_v (Sinkhorn; the scaling is unique). The
    log-likelihood term of the group is the scaling's free energy, -sum_a log x_a - sum_v c_v log(y_v / c_v),
    an upper bound on the log permanent that exceeds it by at most log(|G|^|G| / |G|!) (van der Waerden's
    bound): the EM's stopping rule reads its changes.

    Parameters
    ----------
    scores : ndarray of shape (n_rows, n_values)
        log P(v) + sum_j log P(q_j | v) of every member of a large group.
    group : ndarray of int, shape (n_rows,)
        Each row's group, 0..n_groups-1.
    counts : ndarray of shape (n_groups, n_values)
        Each group's count of each value.
    start : ndarray of shape (n_groups, n_values), optional
        A value scaling to start from (the previous EM step's: the scores change little between steps).
    max_sweeps : int
        Largest number of row-and-column scalings.

    Returns
    -------
    marginals : ndarray of shape (n_rows, n_values)
        Rows sum to 1; each group's column sums are its counts.
    log_likelihood : float
        The groups' summed free energy.
    scaling : ndarray of shape (n_groups, n_values)
        The value scaling reached (``start`` of the next call).
    """
    group = np.asarray(group, dtype=np.intp)
    log_x = -np.where(counts[group] > 0, scores, -np.inf).max(axis=1)
    base = np.where(counts[group] > 0, np.exp(np.minimum(scores + log_x[:, None], 0.0)), 0.0)
    y = np.ones_like(counts) if start is None else np.asarray(start, dtype=float).copy()
    log_y = np.log(y, out=np.zeros_like(counts), where=y > 0)
    scale_tol = SINKHORN_TOL * np.maximum(counts, 1.0)
    scale, columns = np.empty(len(base)), np.empty(counts.shape)
    for _ in range(max_sweeps):
        sinkhorn_sweep(base, y, group, scale, columns)  # row sums of base * y, base / them, their group sums
        log_x -= np.log(scale)
        if np.all(np.abs(columns - counts) <= scale_tol):
            break
        ratio = np.divide(counts, columns, out=np.ones_like(counts), where=columns > 0)
        y *= ratio
        log_y += np.log(ratio)
    marginals = base * y[group]
    marginals /= marginals.sum(axis=1, keepdims=True)
    held = counts > 0
    energy = -log_x.sum() - float((counts[held] * (log_y[held] - np.log(counts[held]))).sum())
    return marginals, energy, y


def _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, tol, l, large_groups="refuse"):
    check_anatomy(anatomy, l, large_groups=large_groups)
    n_iter = check_int(n_iter, "n_iter", low=0)
    if not alpha > 0:
        raise ValueError(f"alpha (Laplace smoothing) must be positive, got {alpha!r}")
    if not tol >= 0:
        raise ValueError(f"tol (log-likelihood gain per individual) must be a number >= 0, got {tol!r}")
    qi = [c for c in anatomy.it.columns if c != "gid"] if quasi_identifiers is None else list(quasi_identifiers)
    missing = [c for c in qi if c not in anatomy.it.columns or c == "gid"]
    if missing or not qi:
        raise ValueError(f"quasi-identifiers {missing or qi} are not IT columns ({list(anatomy.it.columns)})")
    codes = encode_quasi_identifiers(anatomy.it, qi, n_bins=n_bins)
    values = pd.Index(pd.unique(anatomy.st[anatomy.sensitive])).sort_values()
    return codes, values, n_iter


def _model(anatomy, codes, values, alpha):
    """The Naive Bayes of the release: values every group holds equally often share one column."""
    st_gid = anatomy.st["gid"].to_numpy()
    cells = st_gid * len(values) + values.get_indexer(anatomy.st[anatomy.sensitive])
    counts = np.bincount(cells, minlength=(st_gid.max() + 1) * len(values)).reshape(-1, len(values))
    present = np.bincount(st_gid) > 0
    return NaiveBayesModel(codes, len(values), alpha, interchangeable_values(counts[present]))


def _result(anatomy, values, posterior, n_iter, converged, history, e_steps):
    index = anatomy.it.index
    best = posterior.argmax(axis=1)
    return AnatomyAttack(
        pd.Series(values.take(best), index=index, name=anatomy.sensitive),
        pd.Series(posterior[np.arange(len(best)), best], index=index, name="confidence"),
        posterior,
        values,
        n_iter,
        converged,
        np.asarray(history),
        e_steps=e_steps,
    )


def definetti_attack(
    anatomy: Anatomy,
    *,
    quasi_identifiers=None,
    l: int | None = None,
    n_iter: int = 2000,
    tol: float = 1e-6,
    alpha: float = 1.0,
    n_bins: int = 10,
    model_from=None,
    large_groups: str = "refuse",
    accelerate: str | None = "squarem",
    progress: bool = False,
) -> AnatomyAttack:
    """Kifer's de Finetti attack on Anatomy (SIGMOD 2009, Section 5), vectorized over groups.

    A categorical Naive Bayes model of P(sensitive | quasi-identifiers) is learned from the release alone,
    by EM over each group's |G|! assignments of its sensitive values to its members; each individual is
    then guessed the values of its group with the largest posterior marginal (ties split, see
    :meth:`AnatomyAttack.success`).

    Parameters
    ----------
    anatomy : Anatomy
        The release (:func:`privnb.mechanisms.anatomize`), groups of at most 6 rows.
    quasi_identifiers : sequence of str, optional
        IT columns the adversary models; default every IT column but ``gid`` (the class included: it is
        published in IT).
    l : int, optional
        The diversity the release claims; checked (``ValueError`` when the release does not satisfy it).
    n_iter : int
        Largest number of EM iterations after the join model's E-step (0: the join model's guess, one
        E-step with the Naive Bayes fitted on the anatomized join).
    tol : float
        The EM has converged when an iteration gains less than ``tol`` per individual in its objective
        (log-likelihood plus the smoothing's log prior); a number >= 0.
    alpha : float
        Laplace smoothing of the Naive Bayes counts.
    n_bins : int
        Quantile bins of a numeric quasi-identifier (:func:`encode_quasi_identifiers`).
    model_from : Series, optional
        The true sensitive values (by ``row_id``): fit the model on the original data instead (what full
        disclosure would allow) and run one E-step with it, the reference the attack is measured against.
    large_groups : {"refuse", "sinkhorn"}
        A group above :data:`MAX_GROUP` rows (a generalized release's equivalence class, see
        :func:`privnb.attacks.class_release`): refuse the release, or approximate the group's marginals and
        likelihood by :func:`sinkhorn_marginals` (groups up to :data:`MAX_GROUP` rows stay exact).
    accelerate : {"squarem", None}
        Iterate by SQUAREM (:mod:`privnb.attacks._naive_bayes_em`; an iteration is two EM steps and an
        extrapolation, at most 3 E-steps, and reaches the EM's fixed point in far fewer E-steps) or by plain EM
        steps (one E-step each).
    progress : bool
        Show a progress bar over the iterations (tqdm), with the last gain per individual against ``tol``.

    Returns
    -------
    AnatomyAttack
    """
    codes, values, n_iter = _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, tol, l, large_groups)
    groups = _Groups(anatomy, values)
    n, n_values = len(codes), len(values)
    e_step = lambda s: _e_step(groups, s)  # noqa: E731
    if model_from is not None:
        true = values.get_indexer(model_from.reindex(anatomy.it.index))
        if (true < 0).any():
            raise ValueError("model_from lacks some individuals' values or holds values ST does not")
        weights = np.zeros((n, n_values))
        weights[np.arange(n), true] = 1.0
        posterior, _, _, history, _ = run_em(
            e_step, NaiveBayesModel(codes, n_values, alpha), weights, n_iter=0, tol=tol, n=n
        )
        return _result(anatomy, values, posterior, 0, False, history, 1)
    model = _model(anatomy, codes, values, alpha)
    weights = _join_weights(groups, n, n_values)
    em = run_em(e_step, model, weights, n_iter=n_iter, tol=tol, n=n, accelerate=accelerate, progress=progress)
    return _result(anatomy, values, *em)


def _join_weights(groups, n, n_values):
    """The anatomized join as weights: every member holds each value of its group with weight 1/|G|."""
    weights = np.zeros((n, n_values))
    for members, values, _, _ in groups.batches:
        s = members.shape[1]
        _accumulate(weights, members, values, np.full((len(members), s * s), 1.0 / s))
    if groups.large is not None:
        rows, group, counts = groups.large
        weights[rows] = (counts / counts.sum(axis=1, keepdims=True))[group]
    return weights


def _naive_e_step(groups, scores):
    """The E-step as a plain loop over groups and their assignments."""
    new = np.zeros_like(scores)
    total = 0.0
    for members_batch, values_batch, _, _ in groups.batches:
        for members, vals in zip(members_batch, values_batch):
            perms = list(itertools.permutations(range(len(members))))
            logs = np.array([sum(scores[m, vals[p[a]]] for a, m in enumerate(members)) for p in perms])
            norm = logsumexp(logs)
            total += norm
            for p, lp in zip(perms, logs):
                for a, m in enumerate(members):
                    new[m, vals[p[a]]] += np.exp(lp - norm)
    return new, total


def naive_definetti_attack(
    anatomy: Anatomy,
    *,
    quasi_identifiers=None,
    n_iter: int = 20,
    tol: float = 1e-6,
    alpha: float = 1.0,
    n_bins: int = 10,
) -> AnatomyAttack:
    """The plain EM of :func:`definetti_attack` (``accelerate=None``) with a Python loop over groups and permutations.

    The baseline of ``benchmarks/bench_attacks.py`` and the tests' reference; same result.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    quasi_identifiers : sequence of str, optional
        As in :func:`definetti_attack`.
    n_iter : int
        As in :func:`definetti_attack`.
    tol : float
        As in :func:`definetti_attack`.
    alpha : float
        As in :func:`definetti_attack`.
    n_bins : int
        As in :func:`definetti_attack`.

    Returns
    -------
    AnatomyAttack
    """
    codes, values, n_iter = _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, tol, None)
    groups = _Groups(anatomy, values)
    weights = _join_weights(groups, len(codes), len(values))
    model = _model(anatomy, codes, values, alpha)
    em = run_em(lambda s: _naive_e_step(groups, s), model, weights, n_iter=n_iter, tol=tol, n=len(codes))
    return _result(anatomy, values, *em)
