"""What anatomy discloses: the random-worlds guess, Kifer's de Finetti attack, and the pruning heuristic.

Anatomy (Definition 11 of seed 002, Xiao and Tao's algorithm) publishes IT (quasi-identifiers and a group
id) and ST (each group's sensitive values). Under the random-worlds assumption every assignment of a
group's values to its members is equally likely, so an adversary who knows Alice's quasi-identifiers
guesses her sensitive value right with probability freq(v, G) / |G|: 1/l for Xiao and Tao's groups.

Kifer (SIGMOD 2009, "Attacks on privacy and de Finetti's theorem", Section 5) showed that this
probability is wrong whenever the sensitive value depends on the quasi-identifiers: the tuples are
exchangeable, not independent, so the whole release teaches a model of P(S | Q) that then tells apart
the members of each group. His attack on Anatomy learns a Naive Bayes model from the anatomized tables
by iterating between the model and each group's possible assignments of its values to its members,
then guesses each individual's value among its group's values. :func:`definetti_attack` implements it
as an EM algorithm over those assignments: the E-step weighs each of a group's |G|! assignments by the
model's likelihood (enumerated as arrays: groups hold l <= 6 rows), the M-step refits the Naive Bayes
counts on the expected assignments. The first model is the one the anatomized join itself gives (every
member paired with every value of its group, weight 1/|G|), the natural start.

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
from sklearn.utils import check_random_state

from privnb.mechanisms import Anatomy, is_l_diverse
from privnb.validation import check_int

__all__ = [
    "AnatomyAttack",
    "encode_quasi_identifiers",
    "random_worlds_rate",
    "definetti_attack",
    "naive_definetti_attack",
    "pruning_disclosure",
    "check_anatomy",
    "random_guess",
]

MAX_GROUP = 6
"""Largest group the attack enumerates (6! = 720 assignments per group)."""


@dataclass(frozen=True)
class AnatomyAttack:
    """The result of :func:`definetti_attack` (or of its reference run on the original data).

    Attributes
    ----------
    guess : Series
        Guessed sensitive value of every IT row, indexed like ``anatomy.it`` (``row_id``).
    confidence : Series
        The posterior probability of the guess (the marginal over the group's assignments).
    n_iter : int
        EM iterations run.
    log_likelihood : ndarray
        The observed-data log-likelihood after each iteration (non-decreasing, up to rounding).
    """

    guess: pd.Series
    confidence: pd.Series
    n_iter: int
    log_likelihood: np.ndarray

    def success(self, truth: pd.Series) -> float:
        """Share of individuals whose sensitive value the attack guesses right (``truth`` by ``row_id``)."""
        true = truth.reindex(self.guess.index)
        if true.isna().any():
            raise ValueError(
                "truth lacks the sensitive value of some attacked individuals; pass the original "
                "sensitive column indexed by the anatomized rows' labels"
            )
        return float(np.mean(true.to_numpy() == self.guess.to_numpy()))


def check_anatomy(anatomy: Anatomy, l: int | None = None) -> None:
    """Refuse a release the attack cannot read: not an Anatomy, not l-diverse, groups too large."""
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
    if len(sizes) and sizes.max() > MAX_GROUP:
        raise ValueError(
            f"a group holds {sizes.max()} rows; the attack enumerates each group's assignments and "
            f"takes groups of at most {MAX_GROUP} rows (l <= {MAX_GROUP}, residue='suppress')"
        )
    if len(anatomy.it) == 0:
        raise ValueError("the release holds no grouped individual: nothing to attack")


def random_worlds_rate(anatomy: Anatomy, truth: pd.Series) -> float:
    """Expected share of right guesses under the random-worlds assumption: mean of freq(v_true, G) / |G|.

    This is the nominal 1/l of l-diversity (Definition 10 of seed 002) for groups of l distinct values.
    ``truth`` holds the true sensitive values indexed by ``row_id``.
    """
    check_anatomy(anatomy)
    gid = anatomy.it["gid"].to_numpy()
    true = truth.reindex(anatomy.it.index).to_numpy()
    counts = anatomy.st.groupby(["gid", anatomy.sensitive], observed=True).size()
    sizes = anatomy.st["gid"].value_counts()
    freq = counts.reindex(pd.MultiIndex.from_arrays([gid, true])).fillna(0).to_numpy()
    return float(np.mean(freq / sizes.reindex(gid).to_numpy()))


def encode_quasi_identifiers(frame: pd.DataFrame, columns, *, n_bins: int = 10) -> np.ndarray:
    """Integer codes of the quasi-identifiers for a categorical Naive Bayes: (n_rows, n_columns).

    A numeric column with more than ``n_bins`` distinct values is cut into ``n_bins`` quantile bins (the
    adversary's discretization; Kifer's Naive Bayes is over categories); any other column is factorized.
    """
    n_bins = check_int(n_bins, "n_bins", low=2)
    out = np.empty((len(frame), len(columns)), dtype=np.intp)
    for j, column in enumerate(columns):
        values = frame[column]
        if values.isna().any():
            raise ValueError(f"quasi-identifier {column!r} has missing values; drop or impute them first")
        if pd.api.types.is_numeric_dtype(values) and values.nunique() > n_bins:
            out[:, j] = pd.qcut(values.rank(method="first"), n_bins, labels=False)
        else:
            out[:, j] = pd.factorize(values, sort=True)[0]
    return out


def _log_model(codes, sizes, n_values, weights, alpha):
    """log P(v) and log P(q_j | v) of a categorical Naive Bayes fitted on (row, value) weights (n, V)."""
    prior = weights.sum(axis=0) + alpha
    log_prior = np.log(prior / prior.sum())
    tables = []
    for j, k in enumerate(sizes):
        counts = (
            np.stack([np.bincount(codes[:, j], weights=weights[:, v], minlength=k) for v in range(n_values)], axis=1)
            + alpha
        )
        tables.append(np.log(counts / counts.sum(axis=0)))
    return log_prior, tables


def _row_scores(codes, log_prior, tables):
    """log P(v) + sum_j log P(q_ij | v) for every row and value: (n, V)."""
    out = np.broadcast_to(log_prior, (len(codes), len(log_prior))).copy()
    for j, table in enumerate(tables):
        out += table[codes[:, j]]
    return out


class _Groups:
    """The anatomized release as arrays: members and values of every group, batched by group size."""

    def __init__(self, anatomy: Anatomy, value_codes: pd.Index):
        it_gid = anatomy.it["gid"].to_numpy()
        st_gid = anatomy.st["gid"].to_numpy()
        st_val = value_codes.get_indexer(anatomy.st[anatomy.sensitive])
        member_order = np.argsort(it_gid, kind="stable")
        value_order = np.argsort(st_gid, kind="stable")
        sizes = np.bincount(it_gid)
        self.batches = []  # (members (G, s), values (G, s), permutations (s!, s))
        group_size = sizes[np.sort(it_gid)]
        for s in np.unique(sizes[sizes > 0]):
            rows = group_size == s
            members = member_order[rows].reshape(-1, s)
            values = st_val[value_order][rows].reshape(-1, s)  # ST has the same group sizes, sorted alike
            perms = np.array(list(itertools.permutations(range(s))), dtype=np.intp)
            self.batches.append((members, values, perms))


def _e_step(groups: _Groups, scores: np.ndarray):
    """Posterior marginals P(member a of G holds value b of G) and the log-likelihood, every group at once."""
    weights = np.zeros_like(scores)
    total = 0.0
    for members, values, perms in groups.batches:
        s = members.shape[1]
        # pair[g, a, b] = score of member a taking value b; assignment p gives member a the value perms[p, a]
        pair = scores[members[:, :, None], values[:, None, :]]
        log_p = pair[:, np.arange(s), perms].sum(axis=2)  # (G, s!)
        norm = logsumexp(log_p, axis=1, keepdims=True)
        total += float(norm.sum())
        post = np.exp(log_p - norm)
        onehot = np.zeros((len(perms), s, s))
        onehot[np.arange(len(perms))[:, None], np.arange(s), perms] = 1.0
        marginal = np.einsum("gp,pab->gab", post, onehot)  # (G, s, s)
        np.add.at(weights, (np.repeat(members, s, axis=1).ravel(), np.tile(values, (1, s)).ravel()), marginal.ravel())
    return weights, total


def _guesses(groups: _Groups, weights, n):
    guess = np.full(n, -1, dtype=np.intp)
    confidence = np.zeros(n)
    for members, values, _ in groups.batches:
        marg = weights[members[:, :, None], values[:, None, :]]  # (G, s, s)
        best = marg.argmax(axis=2)
        guess[members] = np.take_along_axis(values[:, None, :].repeat(members.shape[1], 1), best[..., None], axis=2)[
            ..., 0
        ]
        confidence[members] = marg.max(axis=2)
    return guess, confidence


def _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, l):
    check_anatomy(anatomy, l)
    n_iter = check_int(n_iter, "n_iter", low=0)
    if not alpha > 0:
        raise ValueError(f"alpha (Laplace smoothing) must be positive, got {alpha!r}")
    qi = [c for c in anatomy.it.columns if c != "gid"] if quasi_identifiers is None else list(quasi_identifiers)
    missing = [c for c in qi if c not in anatomy.it.columns or c == "gid"]
    if missing or not qi:
        raise ValueError(f"quasi-identifiers {missing or qi} are not IT columns ({list(anatomy.it.columns)})")
    codes = encode_quasi_identifiers(anatomy.it, qi, n_bins=n_bins)
    values = pd.Index(pd.unique(anatomy.st[anatomy.sensitive])).sort_values()
    return codes, codes.max(axis=0) + 1, values, n_iter


def _result(anatomy, values, guess, confidence, n_iter, history):
    index = anatomy.it.index
    return AnatomyAttack(
        pd.Series(values.take(guess), index=index, name=anatomy.sensitive),
        pd.Series(confidence, index=index, name="confidence"),
        n_iter,
        np.asarray(history),
    )


def definetti_attack(
    anatomy: Anatomy,
    *,
    quasi_identifiers=None,
    l: int | None = None,
    n_iter: int = 20,
    tol: float = 1e-6,
    alpha: float = 1.0,
    n_bins: int = 10,
    model_from=None,
) -> AnatomyAttack:
    """Kifer's de Finetti attack on Anatomy (SIGMOD 2009, Section 5), vectorized over groups.

    A categorical Naive Bayes model of P(sensitive | quasi-identifiers) is learned from the release alone,
    by EM over each group's |G|! assignments of its sensitive values to its members; each individual is
    then guessed the value of its group with the largest posterior marginal.

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
        Largest number of EM iterations (0: the model of the anatomized join, no iteration).
    tol : float
        Stop when the log-likelihood gains less than ``tol`` per individual.
    alpha : float
        Laplace smoothing of the Naive Bayes counts.
    n_bins : int
        Quantile bins of a numeric quasi-identifier (:func:`encode_quasi_identifiers`).
    model_from : Series, optional
        The true sensitive values (by ``row_id``): fit the model on the original data instead (what full
        disclosure would allow) and run one E-step with it, the reference the attack is measured against.

    Returns
    -------
    AnatomyAttack
    """
    codes, sizes, values, n_iter = _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, l)
    groups = _Groups(anatomy, values)
    n, n_values = len(codes), len(values)
    if model_from is not None:
        true = values.get_indexer(model_from.reindex(anatomy.it.index))
        if (true < 0).any():
            raise ValueError("model_from lacks some individuals' values or holds values ST does not")
        weights = np.zeros((n, n_values))
        weights[np.arange(n), true] = 1.0
        weights, total = _e_step(groups, _row_scores(codes, *_log_model(codes, sizes, n_values, weights, alpha)))
        return _result(anatomy, values, *_guesses(groups, weights, n), 0, [total])
    weights = _join_weights(groups, n, n_values)
    history = []
    for _ in range(max(n_iter, 1)):
        scores = _row_scores(codes, *_log_model(codes, sizes, n_values, weights, alpha))
        new_weights, total = _e_step(groups, scores)
        history.append(total)
        if n_iter == 0:
            break
        weights = new_weights
        if len(history) > 1 and history[-1] - history[-2] < tol * n:
            break
    return _result(anatomy, values, *_guesses(groups, weights, n), len(history) if n_iter else 0, history)


def _join_weights(groups, n, n_values):
    """The anatomized join as weights: every member holds each value of its group with weight 1/|G|."""
    weights = np.zeros((n, n_values))
    for members, values, _ in groups.batches:
        s = members.shape[1]
        np.add.at(weights, (np.repeat(members, s, axis=1).ravel(), np.tile(values, (1, s)).ravel()), 1.0 / s)
    return weights


def naive_definetti_attack(
    anatomy: Anatomy,
    *,
    quasi_identifiers=None,
    n_iter: int = 20,
    tol: float = 1e-6,
    alpha: float = 1.0,
    n_bins: int = 10,
) -> AnatomyAttack:
    """The same EM as :func:`definetti_attack` with a plain Python loop over groups and permutations.

    The baseline of ``benchmarks/bench_attacks.py`` and the tests' reference; same result.
    """
    codes, sizes, values, n_iter = _prepare(anatomy, quasi_identifiers, n_bins, n_iter, alpha, None)
    groups = _Groups(anatomy, values)
    n, n_values = len(codes), len(values)
    members_of = [m for members, _, _ in groups.batches for m in members]
    values_of = [v for _, vals, _ in groups.batches for v in vals]
    weights = _join_weights(groups, n, n_values)
    history = []
    for _ in range(max(n_iter, 1)):
        scores = _row_scores(codes, *_log_model(codes, sizes, n_values, weights, alpha))
        new = np.zeros_like(weights)
        total = 0.0
        for members, vals in zip(members_of, values_of):
            perms = list(itertools.permutations(range(len(members))))
            logs = np.array([sum(scores[m, vals[p[a]]] for a, m in enumerate(members)) for p in perms])
            norm = logsumexp(logs)
            total += norm
            for p, lp in zip(perms, logs):
                for a, m in enumerate(members):
                    new[m, vals[p[a]]] += np.exp(lp - norm)
        history.append(total)
        if n_iter == 0:
            break
        weights = new
        if len(history) > 1 and history[-1] - history[-2] < tol * n:
            break
    return _result(anatomy, values, *_guesses(groups, weights, n), len(history) if n_iter else 0, history)


def pruning_disclosure(pruned: pd.DataFrame, sensitive: str, truth: pd.Series, *, id_column: str = "row_id") -> float:
    """Share of individuals whose kept row (seed 003's pruning, Figure B.2) carries their true sensitive value.

    ``pruned`` is ``Pruning.pruned`` (one row per individual with ``id_column``); ``truth`` the original
    sensitive values indexed by the same ids. Under random worlds this share would be 1/l.
    """
    if id_column not in pruned.columns or sensitive not in pruned.columns:
        raise ValueError(f"pruned rows need the columns {id_column!r} and {sensitive!r} (Pruning.pruned)")
    true = truth.reindex(pruned[id_column].to_numpy())
    if true.isna().any():
        raise ValueError("truth lacks the sensitive value of some pruned individuals")
    return float(np.mean(true.to_numpy() == pruned[sensitive].to_numpy()))


def random_guess(anatomy: Anatomy, random_state=None) -> pd.Series:
    """One draw of the random-worlds adversary: each individual's guess is a uniform member of its group's ST
    values (so a value is drawn with probability freq(v, G)/|G|).
    """
    check_anatomy(anatomy)
    rng = check_random_state(random_state)
    st = anatomy.st.sort_values("gid", kind="stable")
    starts = np.searchsorted(st["gid"].to_numpy(), anatomy.it["gid"].to_numpy())
    sizes = np.bincount(st["gid"].to_numpy())[anatomy.it["gid"].to_numpy()]
    pick = starts + (rng.random_sample(len(starts)) * sizes).astype(np.intp)
    return pd.Series(st[anatomy.sensitive].to_numpy()[pick], index=anatomy.it.index, name=anatomy.sensitive)
