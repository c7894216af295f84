"""The adversary of Section 4 of MZ09: exact posteriors from published NBC views, and the audit.

Possible worlds are all tables consistent with the published counts, equally likely, with rows told apart
by the first attribute's view (the d1..d10 example of Figure 1). Within one class, each further attribute
is an independent uniform permutation of its view, so ``K_c``, the number of class-``c`` rows that match a
quasi-identifier ``I = I'``, follows a chain of hypergeometric laws (draws = the rows still matching,
successes = ``N^i_{t,c}``, population = ``P_c``), independently across classes. The posterior of eq. (4) is
``E[K_c / sum_c' K_c' | sum K >= 1]``: Bob averages, over the worlds that hold at least one row like
Alice's (the family D of Table 1), the share of those rows with label ``c``.

:func:`posterior` computes it for one value in exact rationals; :func:`audit` for every value of every
quasi-identifier in float64 (relative error about 1e-13): each class's chain is a batch of matrix products
with hypergeometric blocks, and the classes are combined by one sum over the product of their supports,
with no enumeration of worlds (Adult's 238,614 audit rows in seconds); :func:`brute_force_posterior`
enumerates the worlds, for tests on tiny tables.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from privnb.nbc._hypergeometric import FLOAT_EXACT, LIMIT_LOG_MEAN, chain_posteriors
from privnb.nbc.audit_memory import check_audit_memory
from privnb.validation import as_fraction


def _quasi_identifier(views, quasi_identifier: Mapping) -> dict:
    if not isinstance(quasi_identifier, Mapping) or not quasi_identifier:
        raise ValueError("the quasi-identifier must be a non-empty dict attribute -> value (Section 4)")
    for attribute, value in quasi_identifier.items():
        if attribute not in views.counts:
            raise ValueError(f"{attribute!r} is not an attribute of the views ({list(views.attributes)})")
        if value not in views.counts[attribute].index:
            raise ValueError(f"value {value!r} is not in the domain of {attribute!r}")
    # chain order: the views' attribute order
    return {a: quasi_identifier[a] for a in views.attributes if a in quasi_identifier}


def _require_integral(views) -> None:
    if not views.is_integral() or not views.is_realistic():
        raise ValueError(
            "possible worlds need integer, realistic counts (P_c = sum_t N^i_{t,c}); "
            "run step3_restore_totals and step4_integers (or safety_transform) first"
        )


def _match_pmf(p: int, successes: list[int]) -> list[Fraction]:
    """pmf of the number of rows (out of ``p``) matching every value, by the chain of hypergeometric laws."""
    pmf = {p: Fraction(1)}
    for n in successes:
        nxt: dict[int, Fraction] = {}
        for draws, weight in pmf.items():
            total = math.comb(p, draws)
            for k in range(max(0, draws - (p - n)), min(n, draws) + 1):
                term = weight * Fraction(math.comb(n, k) * math.comb(p - n, draws - k), total)
                nxt[k] = nxt.get(k, 0) + term
        pmf = nxt
    out = [Fraction(0)] * (max(pmf) + 1)
    for k, w in pmf.items():
        out[k] = w
    return out


def _convolve(a: list, b: list) -> list:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def _posterior_from_pmfs(labels, pmfs) -> pd.Series:
    none = math.prod(pmf[0] for pmf in pmfs)
    if none == 1:
        raise ValueError("no possible world holds a row matching this quasi-identifier")
    out = {}
    for index, label in enumerate(labels):
        rest = [Fraction(1)]
        for other, pmf in enumerate(pmfs):
            if other != index:
                rest = _convolve(rest, pmf)
        mean = sum(
            (
                pk * pr * Fraction(k, k + r)
                for k, pk in enumerate(pmfs[index])
                if k and pk
                for r, pr in enumerate(rest)
                if pr
            ),
            Fraction(0),
        )
        out[label] = mean / (1 - none)
    return pd.Series(out, dtype=object)


def posterior(views, quasi_identifier: Mapping) -> pd.Series:
    """The adversary's exact posterior over the labels for ``I = I'`` (eq. (4) of MZ09).

    Parameters
    ----------
    views : NBCViews
        Integer, realistic views (the published counts).
    quasi_identifier : dict
        attribute -> value known to the adversary (any non-empty subset of the attributes).

    Returns
    -------
    pandas.Series
        label -> :class:`fractions.Fraction`, summing to 1.

    Examples
    --------
    Figure 1(a): Bob knows Alice lives on Westwood and is in her 40s; posterior of 70K = 22/25 (88%).
    """
    qi = _quasi_identifier(views, quasi_identifier)
    _require_integral(views)
    pmfs = []
    for label in views.labels:
        successes = [views.counts[a].at[v, label] for a, v in qi.items()]
        pmfs.append(_match_pmf(views.class_counts[label], successes))
    return _posterior_from_pmfs(views.labels, pmfs)


def _arrangements(values: list) -> list[tuple]:
    return sorted(set(itertools.permutations(values)))


def brute_force_posterior(views, quasi_identifier: Mapping, *, max_worlds: int = 200_000) -> pd.Series:
    """The same posterior by enumerating every possible world (Figure 1's d1..d10): tiny tables only.

    Parameters
    ----------
    views : NBCViews
        Integer, realistic views (the published counts).
    quasi_identifier : dict
        attribute -> value known to the adversary (any non-empty subset of the attributes).
    max_worlds : int
        Largest number of possible worlds enumerated; more raise ValueError.

    Returns
    -------
    pandas.Series
        label -> :class:`fractions.Fraction`, the mean of ``K_c / S`` over the worlds with ``S >= 1``.
    """
    qi = _quasi_identifier(views, quasi_identifier)
    _require_integral(views)
    attributes = list(views.attributes)
    per_class = []  # for each class: list of (list of per-attribute arrangements)
    n_worlds = 1
    for label in views.labels:
        columns = []
        for position, a in enumerate(attributes):
            values = [v for v, n in views.counts[a][label].items() for _ in range(n)]
            columns.append([tuple(values)] if position == 0 else _arrangements(values))
            n_worlds *= len(columns[-1])
            if n_worlds > max_worlds:
                raise ValueError(f"more than {max_worlds} possible worlds; brute force is for tiny tables")
        per_class.append(columns)
    want = [qi.get(a) for a in attributes]
    used = [a in qi for a in attributes]
    class_counts = []  # for each class: list of match counts, one per world of that class
    for columns in per_class:
        counts = []
        for world in itertools.product(*columns):
            rows = zip(*world)
            counts.append(sum(all(v == w for v, w, u in zip(row, want, used) if u) for row in rows))
        class_counts.append(counts)
    totals = {label: Fraction(0) for label in views.labels}
    kept = 0
    for combo in itertools.product(*class_counts):
        s = sum(combo)
        if s == 0:
            continue
        kept += 1
        for label, k in zip(views.labels, combo):
            totals[label] += Fraction(k, s)
    if not kept:
        raise ValueError("no possible world holds a row matching this quasi-identifier")
    return pd.Series({label: t / kept for label, t in totals.items()}, dtype=object)


def check_prior(prior, labels) -> pd.Series:
    """A prior pmf over ``labels`` as exact Fractions (:func:`privnb.validation.as_fraction`).

    Raises ``ValueError`` if a label is missing or unknown, a probability is not positive, or they do
    not sum to 1 (Section 7 of MZ09 needs a strictly positive pmf).

    Parameters
    ----------
    prior : Mapping label -> probability, or None
        The pmf; None gives the uniform prior. Floats that sum to 1 within 1e-9 are renormalized exactly.
    labels : sequence of labels
        The labels the prior must cover, exactly.

    Returns
    -------
    pandas.Series
        label -> :class:`fractions.Fraction`, in the order of ``labels``, summing to 1.
    """
    if prior is None:
        return pd.Series({label: Fraction(1, len(labels)) for label in labels}, dtype=object)
    prior = pd.Series(prior, dtype=object)
    if set(prior.index) != set(labels):
        raise ValueError(
            f"the prior must give a probability for exactly the labels {list(labels)}, got {list(prior.index)}"
        )
    out = {}
    for label in labels:
        value = prior[label]
        try:
            frac = as_fraction(value if isinstance(value, numbers.Real) else float(value))
        except (TypeError, ValueError) as error:
            raise ValueError(f"prior[{label!r}] is not a number: {value!r}") from error
        if frac <= 0:
            raise ValueError(f"prior[{label!r}] = {value!r}: every label needs a positive prior (Section 7)")
        out[label] = frac
    total = sum(out.values())
    if abs(float(total) - 1) > 1e-9:
        raise ValueError(f"the prior sums to {float(total)!r}, not 1")
    if total != 1:  # rounding of floats: renormalize exactly
        out = {k: v / total for k, v in out.items()}
    return pd.Series(out, dtype=object)


@dataclass(frozen=True)
class AuditResult:
    """The audit of every quasi-identifier value (Definition 1 and Definition 5 of MZ09).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (quasi-identifier value, property Q): the attributes' values (None when not in the
        quasi-identifier), ``size``, ``property`` (tuple of labels), ``prior``, ``posterior``, ``ratio``
        (posterior / prior), and when a policy was given ``upward`` / ``downward`` breaches.
    r_closeness : float
        The achieved r: the largest ``max(ratio, 1/ratio)`` (Definition 5).
    method : str
        "exact" (the possible-worlds posterior) or "expected" (the approximation, see :func:`audit`).
    """

    table: pd.DataFrame
    r_closeness: float
    method: str

    @property
    def n_breaches(self) -> int:
        t = self.table
        return int(t["upward"].sum() + t["downward"].sum()) if "upward" in t else 0

    @property
    def properties(self) -> list[tuple]:
        """The properties Q in the order every quasi-identifier value's block of rows lists them (the single
        labels first), read from the table's first block.
        """
        column = self.table["property"]
        labels = [column.iloc[0][0]]
        for q in column.iloc[1:]:
            if len(q) != 1 or q[0] == labels[0]:
                break
            labels.append(q[0])
        return _properties(labels)

    def r_closeness_for(self, prior) -> float:
        """Definition 5's r of the same posteriors against another prior: the posteriors of eq. (4) do not
        depend on the prior, so this is ``audit(views, prior).r_closeness`` without auditing again.

        Parameters
        ----------
        prior : Mapping label -> probability, or None
            The adversary's prior (uniform when None), as in :func:`audit`.

        Returns
        -------
        float
        """
        if self.table.empty:
            return 1.0
        properties = self.properties
        f = check_prior(prior, [q[0] for q in properties if len(q) == 1])
        f_q = np.array([float(sum(f[label] for label in q)) for q in properties])
        posterior = self.table["posterior"].to_numpy(dtype=float)
        return _closeness(posterior / np.tile(f_q, len(posterior) // len(properties)))


def _properties(labels) -> list[tuple]:
    out = []
    for size in range(1, len(labels)):
        out.extend(itertools.combinations(labels, size))
    return out


def _log_counts(values) -> np.ndarray:
    out = []
    for v in values:
        if v == 0:
            out.append(-np.inf)
        elif isinstance(v, Fraction):
            out.append(math.log(v.numerator) - math.log(v.denominator))
        else:
            out.append(math.log(v))
    return np.array(out, dtype=float)


def log_expected_counts(views, subset) -> tuple[pd.MultiIndex, np.ndarray]:
    """``log E[K_c] = log(P_c prod_{i in I} N^i_{t_i,c} / P_c)`` on the grid of I (values x labels, C order).

    ``E[K_c]`` is the NBC score of eq. (2) restricted to I: the chain's mean.

    Parameters
    ----------
    views : NBCViews
        The views.
    subset : sequence of str
        The quasi-identifier I, in the views' order.

    Returns
    -------
    (MultiIndex, ndarray)
        The values of I and the log expected counts, shape (values, labels).
    """
    log_p = _log_counts(views.class_counts.tolist())
    grid = np.zeros((1, len(views.labels)))
    for a in subset:
        frame = views.counts[a]
        logs = _log_counts(frame.to_numpy().ravel().tolist()).reshape(frame.shape) - log_p
        grid = (grid[:, None, :] + logs[None, :, :]).reshape(-1, len(views.labels))
    index = pd.MultiIndex.from_product([views.counts[a].index for a in subset], names=list(subset))
    return index, grid + log_p


def _softmax(log_e: np.ndarray) -> np.ndarray:
    top = log_e.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        weights = np.where(np.isfinite(top), np.exp(log_e - top), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return weights / weights.sum(axis=1, keepdims=True)


def grid_posteriors(views, subset, method: str) -> tuple[pd.MultiIndex, np.ndarray]:
    """The posterior of every label at every value of the quasi-identifier ``subset`` (eq. (4)).

    Parameters
    ----------
    views : NBCViews
        The views.
    subset : sequence of str
        The quasi-identifier I, in the views' order.
    method : {"exact", "expected"}
        As in :func:`audit`.

    Returns
    -------
    (MultiIndex, ndarray)
        The values of I and the posteriors, shape (values, labels); NaN where no world holds a match.
    """
    index, log_e = log_expected_counts(views, subset)
    if method == "expected":
        return index, _softmax(log_e)
    log_s = np.logaddexp.reduce(log_e, axis=1)
    possible = np.isfinite(log_s)
    if (log_s[possible] >= LIMIT_LOG_MEAN).all():
        # every E[S] >= 2^60: E[K_c/S | S>=1] = E[K_c]/E[S] (1 + O(1/E[S])) (K_c has variance <= mean)
        return index, _softmax(log_e)
    big = max(max(views.class_counts), *(max(views.counts[a].to_numpy().ravel()) for a in subset))
    if big > FLOAT_EXACT:
        raise ValueError(
            f"the exact audit needs counts below 2^53 where a quasi-identifier value expects fewer "
            f"than 2^60 matching rows (largest count here: {big}); use method='expected'"
        )
    return index, chain_posteriors(views, subset)


def _audited_values(views, prior, max_size, method, *, table: bool, limit):
    """For each quasi-identifier I of size 1..``max_size``: (I, its values with a possible world, the
    posterior of every property Q at each value, shape (values, properties)); also the properties and
    their priors. Checks the arguments :func:`audit` and :func:`achieved_r` share, and refuses an audit
    whose estimated memory exceeds ``limit`` (:func:`privnb.nbc.audit_memory.check_audit_memory`) before
    computing anything.
    """
    if method not in ("exact", "expected"):
        raise ValueError(f"method must be 'exact' or 'expected', got {method!r}")
    f = check_prior(prior, views.labels)
    n = views.n_attributes
    max_size = n if max_size is None else int(max_size)
    if not 1 <= max_size <= n:
        raise ValueError(f"max_size must be between 1 and {n}, got {max_size}")
    if len(views.labels) < 2:
        raise ValueError("the audit needs at least two labels (a single label has no property to protect)")
    if method == "exact":
        _require_integral(views)
    check_audit_memory(views, max_size=max_size, method=method, table=table, limit=limit)
    labels = list(views.labels)
    properties = _properties(labels)
    member = np.array([[label in q for label in labels] for q in properties], dtype=float)
    f_q = np.array([float(sum(f[label] for label in q)) for q in properties])

    def blocks():
        for size in range(1, max_size + 1):
            for subset in itertools.combinations(views.attributes, size):
                index, post = grid_posteriors(views, subset, method)
                keep = np.isfinite(post).all(axis=1)
                yield subset, index[keep], post[keep] @ member.T

    return properties, f_q, blocks()


def audit(
    views,
    prior=None,
    *,
    L1=None,
    L2=None,
    max_size=None,
    method: str = "exact",
    breach: str = "strict",
    memory_limit: int | None = None,
) -> AuditResult:
    """Audit every quasi-identifier value of every size up to ``max_size`` (Section 4 of MZ09).

    Parameters
    ----------
    views : NBCViews
        The published views (integer and realistic for ``method="exact"``).
    prior : Mapping label -> probability, optional
        The adversary's prior F (Section 7); uniform when omitted (Sections 4-6).
    L1, L2 : float, optional
        A privacy policy ``0 < L1 < L2 < 1``; when given, flags L1-to-L2 breaches (Definition 1).
    breach : {"strict", "non-strict"}
        How Definition 1 compares. ``"strict"`` (default): as the definition is printed, upward
        ``P1 < L1 < L2 < P2`` and downward ``P2 < L1 < L2 < P1``; the default because Statement 1 and
        Lemma 2 are proved for it. ``"non-strict"``: ``P1 <= L1``, ``P2 >= L2`` (and downward alike), the
        reading Section 4's example needs: "if we had a more strict privacy policy, say L1 = 0.5 and
        L2 = 0.6, none of those viewsets would be safe to be published" holds only with ``<=`` (the prior
        is exactly 0.5); the strict reading finds no breach there.
    max_size : int, optional
        Largest quasi-identifier size (default: all attributes).
    method : {"exact", "expected"}
        ``"exact"`` (default): the posterior of eq. (4) over the possible worlds, ``E[K_c/S | S >= 1]``,
        from the hypergeometric chain of each class (as :func:`posterior`, but in float64, relative error
        about 1e-13, vectorized over the values of I), combined over the independent classes by a sum over
        the product of their supports. Where every value of I expects ``E[S] >= 2^60`` matching rows (the
        astronomically large counts SafetyTransform publishes) the posterior equals ``E[K_c]/E[S]`` to
        float64 precision (relative difference ``O(1/E[S])``) and that is what is computed.
        ``"expected"``: the approximation ``E[K_c]/sum_c' E[K_c']`` (the NBC's own normalized score
        restricted to I) everywhere, for any counts; not the paper's posterior on small tables (Figure 1(a):
        32/37 = 86.5% instead of 22/25 = 88%).
    memory_limit : int, optional
        Bytes the audit may take (default :data:`privnb.nbc.audit_memory.AUDIT_MEMORY_BUDGET`, a fixed 2 GiB,
        never the machine's free memory). Its peak is estimated from the views' attributes, domain sizes,
        counts and ``max_size`` before anything is computed (:func:`privnb.nbc.audit_memory.audit_memory`);
        above the limit the audit is refused at once with :class:`privnb.nbc.audit_memory.AuditTooLarge` (a
        ``ValueError``) naming the size, the estimate and what to lower (:func:`privnb.nbc.plan_audit` picks
        the largest audit that fits instead).

    Returns
    -------
    AuditResult

    Raises
    ------
    AuditTooLarge
        When the estimated peak memory exceeds ``memory_limit``.

    References
    ----------
    .. [1] Mozafari and Zaniolo, "Publishing Naive Bayesian Classifiers: Privacy without Accuracy Loss",
       PVLDB, 2009 (MZ09; the extracted text omits title, authors and venue: from the papers' index).
    """
    if (L1 is None) != (L2 is None):
        raise ValueError("give both L1 and L2 (a privacy policy) or neither")
    if breach not in ("strict", "non-strict"):
        raise ValueError(f"breach must be 'strict' or 'non-strict' (Definition 1's comparisons), got {breach!r}")
    if L1 is not None:
        from privnb.bounds.amplification import check_policy

        check_policy(L1, L2)
    properties, f_q, blocks = _audited_values(views, prior, max_size, method, table=True, limit=memory_limit)
    frames = []
    for subset, values, post_q in blocks:
        frame = pd.DataFrame(
            {
                a: np.repeat(np.asarray(values.get_level_values(a), dtype=object), len(properties))
                if a in subset
                else None
                for a in views.attributes
            }
        )
        frame["size"] = len(subset)
        frame["property"] = pd.Series(properties * len(values), dtype=object)
        frame["prior"] = np.tile(f_q, len(values))
        frame["posterior"] = post_q.ravel()
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    table["ratio"] = table["posterior"] / table["prior"]
    if L1 is not None:
        if breach == "strict":
            table["upward"] = (table["prior"] < L1) & (table["posterior"] > L2)
            table["downward"] = (table["posterior"] < L1) & (table["prior"] > L2)
        else:
            table["upward"] = (table["prior"] <= L1) & (table["posterior"] >= L2)
            table["downward"] = (table["posterior"] <= L1) & (table["prior"] >= L2)
    return AuditResult(table=table, r_closeness=r_closeness(table), method=method)


def achieved_r(views, prior=None, *, max_size=None, method: str = "exact", memory_limit: int | None = None) -> float:
    """The achieved r of Definition 5 over every quasi-identifier value, as ``audit(...).r_closeness``,
    without building the audit's table (what EST checks before it publishes).

    Parameters
    ----------
    views : NBCViews
        The published views.
    prior : Mapping label -> probability, optional
        The adversary's prior (uniform when omitted).
    max_size : int, optional
        Largest quasi-identifier size (default: all attributes).
    method : {"exact", "expected"}
        As in :func:`audit`.
    memory_limit : int, optional
        As in :func:`audit` (the estimate leaves out the table, which is not built).

    Returns
    -------
    float
    """
    _, f_q, blocks = _audited_values(views, prior, max_size, method, table=False, limit=memory_limit)
    return max((_closeness(post_q / f_q) for _, _, post_q in blocks), default=1.0)


def r_closeness(table: pd.DataFrame) -> float:
    """The achieved r of Definition 5: the largest ``max(P2/P1, P1/P2)`` over the audit's rows."""
    return _closeness(table["ratio"].to_numpy(dtype=float))


def _closeness(ratio: np.ndarray) -> float:
    """The largest ``max(ratio, 1/ratio)`` (1 when there is none): Definition 5's r of posterior/prior ratios."""
    with np.errstate(divide="ignore"):
        return float(np.max(np.maximum(ratio, 1 / ratio))) if ratio.size else 1.0
