"""SafetyTransform and EST: NBC-equivalent views that are safe to publish (Sections 6-7 of seed 004).

Every step works in exact rationals. Step 2's k-th roots are irrational; they are replaced by rationals
whose error is steered by class (Statement 7): class ``c`` of precedence rank ``j`` gets its ``N`` rounded
into ``[rho^j, rho^(j+1/2))`` times the true root and its ``P`` into ``(rho^-(j+1/2), rho^-j]``, so a
higher-precedence class only ever gains; ``rho = 1 + 2^-E`` with ``E`` from the integer gap bound of
Statement 8 (two different integer score cross-products differ by at least one), so no inequality flips
and every tie goes to the larger label.
"""
from __future__ import annotations

import itertools
import math
import numbers
import time
from dataclasses import dataclass, field
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from typing import Mapping

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from .bounds.amplification import check_gamma
from .nbc import NBCViews, _integer_tables, min_score_ratio, nbc_equivalent, score_signs
from .nbc_audit import audit, check_prior

__all__ = [
    "SafetyTransform", "safety_transform", "step1_remove_zeros", "step2_roots", "step3_restore_totals",
    "step4_integers", "step2_degree", "corollary4_gamma", "satisfies_corollary4", "k_sind",
    "synthetic_database", "est", "ESTResult", "resolve_ties", "split", "merge", "winning_labels",
    "prior_r_lower_bound",
]


def _frames(views: NBCViews) -> list[list[list]]:
    """The N tables as nested lists [attribute][value][class]."""
    return [frame.to_numpy().tolist() for frame in views.counts.values()]


def _as_fraction(value) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    return Fraction(float(value)).limit_denominator(10**9) if isinstance(value, float) else Fraction(value)


def _gamma(value) -> Fraction:
    check_gamma(value)
    return _as_fraction(value)


# ---------------------------------------------------------------------------------------------- Step 1
def _power_of_two_below(value: Fraction) -> Fraction:
    """The largest power of two <= value (keeps Step 1's denominators small)."""
    e = value.numerator.bit_length() - value.denominator.bit_length()
    power = Fraction(2) ** e
    return power if power <= value else power / 2


def step1_remove_zeros(views: NBCViews, *, random_state=None) -> NBCViews:
    """Step 1 (Figure 3): replace every zero ``N^i_{t,c}`` by a small positive rational.

    Classes are processed from the largest label down. A zero of class ``c`` at ``(i, t)`` becomes
    ``s = u * S`` with ``u`` drawn from {1/16, ..., 15/16} (Section 6.3: s may be random) and ``S`` the
    bound under which any score of ``c`` through that cell stays below every positive score of every
    other class. Figure 3's bound ``min_c' (m_c'/M_c) M^i_c`` ignores ``P_c`` in eq. (2); here
    ``S = min_c' (m_c' / P_c'^(n-1)) * P_c^(n-1) * M^i_c / M_c`` so that Statement 5 holds for any P.
    """
    rng = check_random_state(random_state)
    n = views.n_attributes
    tables = [[[_as_fraction(v) for v in row] for row in t] for t in _frames(views)]
    p = [Fraction(v) for v in views.class_counts]
    n_classes = len(p)

    def big_m(c):  # per attribute maxima of class c
        return [max(row[c] for row in t) for t in tables]

    def small_m(c):  # per attribute minima of the positive counts of class c
        out = []
        for t in tables:
            positive = [row[c] for row in t if row[c] > 0]
            out.append(min(positive) if positive else None)
        return out

    for c in reversed(range(n_classes)):
        zeros = [(i, r) for i, t in enumerate(tables) for r, row in enumerate(t) if row[c] == 0]
        if not zeros:
            continue
        lowest = None  # smallest positive score any other class can have
        for other in range(n_classes):
            if other == c:
                continue
            m = small_m(other)
            if any(v is None for v in m):
                continue
            score = math.prod(m) / p[other] ** (n - 1)
            lowest = score if lowest is None else min(lowest, score)
        for i, r in zeros:
            maxima = big_m(c)
            rest = math.prod(v for j, v in enumerate(maxima) if j != i)
            if lowest is None:  # no other class scores positively anywhere: any s works
                bound = maxima[i] if maxima[i] > 0 else Fraction(1)
            else:
                bound = lowest * p[c] ** (n - 1) / rest
            tables[i][r][c] = _power_of_two_below(bound) * Fraction(int(rng.randint(1, 16)), 16)
    return views.with_counts(p, tables)


# ---------------------------------------------------------------------------------------------- Step 2
def _log_ratio_w(views: NBCViews) -> float:
    """log of Figure 4's ``w``: the largest over the smallest of all counts (N and P)."""
    logs = [_ln(v) for v in views.all_counts()]
    return max(logs) - min(logs)


def _ln(value) -> float:
    value = _as_fraction(value)
    if value <= 0:
        raise ValueError("Step 2 needs positive counts; run step1_remove_zeros first")
    return math.log(value.numerator) - math.log(value.denominator)


def step2_degree(views: NBCViews, gamma) -> int:
    """Figure 4, Line 2 with Figure 2's ``gamma^(1/(2n+3))``: the smallest ``k >= n (2n+3) log w / log gamma``."""
    g = _gamma(gamma)
    n = views.n_attributes
    log_w = _log_ratio_w(views)
    return max(1, math.ceil(n * (2 * n + 3) * log_w / _ln(g) - 1e-12))


def _score_bound(views: NBCViews) -> int:
    """An integer B bounding both cross-products ``prod_i N_i Q_c'`` compared by eq. (2) (Statement 8)."""
    tables, ppow = _integer_tables(views)
    return int(max(int(v) for v in ppow)) * math.prod(max(int(v) for v in t.ravel()) for t in tables)


def _precision_bits(views: NBCViews, k: int) -> int:
    """E with ``(2n-1) |C| 2^-E < 1 / (k (B+1))``: Step 2's rounding cannot flip any order."""
    n, n_classes = views.n_attributes, len(views.labels)
    return (2 * (2 * n - 1) * n_classes * k * (_score_bound(views) + 1)).bit_length() + 1


def _rounded_roots(views: NBCViews, k: int, bits: int, *, ranks=None, power: int = 1, divisors=None):
    """Step 2's rational roots ``(count^power / divisor_c)^(1/k)`` with class-steered errors
    (Statement 7), computed with ``decimal`` to the precision ``bits`` asks; returns (P list, N tables)."""
    n_classes = len(views.labels)
    ranks = list(range(n_classes)) if ranks is None else list(ranks)
    divisors = [1] * n_classes if divisors is None else list(divisors)
    eta = Fraction(1, 2**bits)
    rho = 1 + eta
    digits = math.ceil((bits + 3) * math.log10(2)) + 12 + len(str(power * max(1, k)))
    up = [rho ** ranks[c] * (1 + eta / 4) for c in range(n_classes)]
    down = [(1 - eta / 4) / rho ** ranks[c] for c in range(n_classes)]
    logs: dict = {}
    with localcontext(Context(prec=digits)):
        log_divisors = [Decimal(d).ln() if d != 1 else Decimal(0) for d in divisors]

        def root(value, c):
            value = _as_fraction(value)
            if value not in logs:
                logs[value] = (Decimal(value.numerator) / Decimal(value.denominator)).ln() * power
            return Fraction(((logs[value] - log_divisors[c]) / k).exp())

        p = [root(v, c) * down[c] for c, v in enumerate(views.class_counts)]
        tables = [[[root(v, c) * up[c] for c, v in enumerate(row)] for row in t] for t in _frames(views)]
    return p, tables


def step2_roots(views: NBCViews, gamma=None, *, k: int | None = None) -> NBCViews:
    """Step 2 (Figure 4): k-th roots of every count, as rationals that keep the classifier (Lemma 6).

    Give ``gamma`` (k from :func:`step2_degree`) or ``k`` itself. The rationals follow Statement 7
    (see the module docstring), with the precision of Statement 8.
    """
    if k is None:
        if gamma is None:
            raise ValueError("give gamma (the amplification) or k (the root degree)")
        k = step2_degree(views, gamma)
    if not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if any(v == 0 for v in views.all_counts()):
        raise ValueError("Step 2 needs positive counts; run step1_remove_zeros first")
    p, tables = _rounded_roots(views, int(k), _precision_bits(views, int(k)))
    return views.with_counts(p, tables)


# ---------------------------------------------------------------------------------------------- Step 3
def step3_restore_totals(views: NBCViews) -> NBCViews:
    """Step 3 (Figure 5): rescale so that ``P_c = sum_t N^i_{t,c}`` again; every score is unchanged
    (Statement 9)."""
    n = views.n_attributes
    tables = [[[_as_fraction(v) for v in row] for row in t] for t in _frames(views)]
    p = [Fraction(v) for v in views.class_counts]
    new_p = []
    for c, pc in enumerate(p):
        sums = [sum(row[c] for row in t) for t in tables]
        r0 = math.prod(sums) / pc**n
        for t, s in zip(tables, sums):
            ri = r0 * pc / s
            for row in t:
                row[c] = ri * row[c]
        new_p.append(r0 * pc)
    return views.with_counts(new_p, tables)


# ---------------------------------------------------------------------------------------------- Step 4
def step4_integers(views: NBCViews) -> NBCViews:
    """Step 4: the smallest integer counts proportional to the given ones (one common factor for all
    counts, which multiplies every score alike and keeps ``P_c = sum_t N``)."""
    ints = _smallest_integers(_as_fraction(v) for v in views.all_counts())
    n_classes = len(views.labels)
    p = ints[:n_classes]
    tables, at = [], n_classes
    for frame in views.counts.values():
        size = frame.size
        flat = ints[at:at + size]
        tables.append([flat[r * n_classes:(r + 1) * n_classes] for r in range(len(frame))])
        at += size
    return views.with_counts(p, tables)


# ---------------------------------------------------------------------------------------------- checks
def corollary4_gamma(views: NBCViews, *, zeros: str = "raise") -> Fraction | float:
    """The smallest gamma for which ``views`` satisfy Corollary 4: ``max(ratio)^n`` over the ratios
    ``P_c'/P_c`` and ``N^i_{t,c}/N^i_{t,c'}`` (exact).

    Parameters
    ----------
    zeros : {"raise", "skip", "inf"}
        A zero count violates condition (10) for every gamma: raise, ignore the rows ``(i, t)`` that hold
        one (``"skip"``), or return ``inf``.
    """
    if zeros not in ("raise", "skip", "inf"):
        raise ValueError(f"zeros must be 'raise', 'skip' or 'inf', got {zeros!r}")
    n = views.n_attributes
    rows = [list(views.class_counts)] + [row for t in _frames(views) for row in t]
    worst = Fraction(1)
    for row in rows:
        if min(row) == 0:
            if zeros == "raise":
                raise ValueError("a zero count: Corollary 4 fails for every gamma; run step1_remove_zeros, "
                                 "or pass zeros='skip' or 'inf'")
            if zeros == "inf":
                return math.inf
            continue
        worst = max(worst, Fraction(max(row)) / Fraction(min(row)))
    return worst**n


def satisfies_corollary4(views: NBCViews, gamma) -> bool:
    """Whether every ratio of condition (10) is at most ``gamma^(1/n)`` (exact)."""
    return corollary4_gamma(views, zeros="inf") <= _gamma(gamma)


def k_sind(views: NBCViews) -> int:
    """Lemma 10: SafetyTransform provides k-SIND with ``k = min_c P_c`` of the published integer views."""
    if not views.is_integral():
        raise ValueError("k-SIND is defined on integer views; run step4_integers first")
    return int(min(views.class_counts))


def synthetic_database(views: NBCViews, *, target: str = "class", random_state=None,
                       max_rows: int = 10_000_000) -> pd.DataFrame:
    """A table whose NBC-enabling views are exactly ``views`` (Section 6.2.4): within each class, each
    attribute's values repeated by their counts and permuted independently."""
    if not views.is_integral() or not views.is_realistic():
        raise ValueError("a synthetic database needs integer, realistic views (run safety_transform)")
    total = sum(views.class_counts)
    if total > max_rows:
        raise ValueError(f"the views describe {total} rows (more than max_rows={max_rows}); publish the "
                         "counts instead, or rescale them")
    rng = check_random_state(random_state)
    parts = []
    for label in views.labels:
        columns = {}
        for attribute, frame in views.counts.items():
            counts = np.array(frame[label].tolist(), dtype=np.int64)
            values = np.repeat(np.asarray(frame.index, dtype=object), counts)
            columns[attribute] = values[rng.permutation(len(values))]
        part = pd.DataFrame(columns)
        part[target] = label
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------------------------- estimator
class SafetyTransform:
    """SafetyTransform (Figure 2 of seed 004): NBC-equivalent views that satisfy Corollary 4 for gamma.

    Parameters
    ----------
    gamma : float or Fraction
        The amplification (> 1) of Lemma 2 / Corollary 4.
    k : int, optional
        Step 2's root degree; by default the smallest one Figure 2 allows. If rounding leaves Corollary 4
        unmet, k grows until it holds (checked exactly).
    random_state : int, RandomState or None
        Step 1's random choice of the replaced zeros.

    Attributes
    ----------
    steps_ : dict
        "input", "step1", "step2", "step3", "step4" -> NBCViews.
    views_ : NBCViews
        The published integer views (``steps_["step4"]``).
    k_ : int
        The root degree used.
    achieved_gamma_ : Fraction
        ``corollary4_gamma(views_)``, at most gamma.
    """

    def __init__(self, gamma, *, k=None, random_state=None):
        self.gamma = gamma
        self.k = k
        self.random_state = random_state

    def fit(self, views: NBCViews, y=None) -> "SafetyTransform":
        if not isinstance(views, NBCViews):
            raise ValueError(f"fit takes NBCViews (see NBCViews.from_frame), got {type(views).__name__}")
        gamma = _gamma(self.gamma)
        s1 = step1_remove_zeros(views, random_state=self.random_state)
        k = step2_degree(s1, gamma) if self.k is None else self.k
        for _ in range(64):
            s2 = step2_roots(s1, k=k)
            s3 = step3_restore_totals(s2)
            s4 = step4_integers(s3)
            achieved = corollary4_gamma(s4)
            if achieved <= gamma:
                break
            k = k + max(1, k // 4)
        else:  # pragma: no cover - k grows geometrically; the ratios shrink to 1
            raise RuntimeError("SafetyTransform could not meet Corollary 4; please report this")
        self.steps_ = {"input": views, "step1": s1, "step2": s2, "step3": s3, "step4": s4}
        self.views_ = s4
        self.k_ = int(k)
        self.achieved_gamma_ = achieved
        return self

    def transform(self, views: NBCViews) -> NBCViews:
        return self.fit(views).views_


def safety_transform(views: NBCViews, gamma, *, random_state=None) -> NBCViews:
    """Run SafetyTransform (Figure 2) and return the published integer views.

    The output is NBC-equivalent to ``views`` (ranking with precedence, see :func:`nbc_equivalent`) and
    satisfies Corollary 4 for ``gamma``.
    """
    return SafetyTransform(gamma, random_state=random_state).fit(views).views_


# ---------------------------------------------------------------------------------------------- EST
def resolve_ties(views: NBCViews) -> NBCViews:
    """EST's first step: multiply every ``N`` of the class of rank ``j`` by ``1 + j eps`` so that every
    tie goes strictly to the larger label and no strict order changes (Section 7.2).

    ``eps`` comes from the integer gap bound (Statement 8). Needs positive counts (Step 1 first).
    """
    if any(v == 0 for v in views.all_counts()):
        raise ValueError("ties between zero scores cannot be broken by scaling; run step1_remove_zeros first")
    n, n_classes = views.n_attributes, len(views.labels)
    eps = Fraction(1, 2 ** ((4 * n * n_classes * (_score_bound(views) + 1)).bit_length()))
    tables = [[[_as_fraction(v) * (1 + c * eps) for c, v in enumerate(row)] for row in t] for t in _frames(views)]
    return views.with_counts(list(views.class_counts), tables)


def _prior_multiples(prior: pd.Series) -> list[int]:
    """``F(c) = F * F_c`` with F the greatest common divisor of the prior (Split, Section 7.2)."""
    return _smallest_integers(prior)


def _smallest_integers(values) -> list[int]:
    """The smallest integers proportional to the given fractions (all zero stays all zero)."""
    values = list(values)
    scale = math.lcm(1, *(v.denominator for v in values))
    ints = [int(v * scale) for v in values]
    common = math.gcd(*ints) or 1
    return [v // common for v in ints]


def split(views: NBCViews, multiples: Mapping, *, power: int = 1) -> NBCViews:
    """Definition 6's split of ``views**power``: label c becomes sub-labels (c, 1..F_c) with counts
    divided by F_c (exact; meant for small inputs, EST itself never materializes the power)."""
    labels, p, tables = [], [], []
    f = [int(multiples[label]) for label in views.labels]
    frames = _frames(views)
    for c, label in enumerate(views.labels):
        for j in range(1, f[c] + 1):
            labels.append((label, j))
            p.append(Fraction(views.class_counts[label]) ** power / f[c])
    for t in frames:
        tables.append([[Fraction(row[c]) ** power / f[c] for c in range(len(f)) for _ in range(f[c])] for row in t])
    counts = {a: pd.DataFrame(tab, index=views.counts[a].index, columns=pd.Index(labels, tupleize_cols=False))
              for a, tab in zip(views.attributes, tables)}
    return NBCViews(pd.Series(p, index=pd.Index(labels, tupleize_cols=False), dtype=object), counts)


def merge(views: NBCViews, labels) -> NBCViews:
    """Definition 6's merging of sub-labels ``(c, j)`` back to c: ``|Psi^-1(c)| * min`` of their counts."""
    groups: dict = {}
    for sub in views.labels:
        groups.setdefault(sub[0], []).append(sub)
    if sorted(groups) != sorted(labels):
        raise ValueError(f"the sub-labels map to {sorted(groups)}, expected {sorted(labels)}")
    p = [len(groups[c]) * min(views.class_counts[s] for s in groups[c]) for c in labels]
    counts = {}
    for a, frame in views.counts.items():
        counts[a] = pd.DataFrame({c: [len(groups[c]) * min(row[s] for s in groups[c]) for _, row in frame.iterrows()]
                                  for c in labels}, index=frame.index)
    return NBCViews(pd.Series(p, index=list(labels), dtype=object), counts)


@dataclass
class ESTResult:
    """The outcome of :func:`est`: published views, or a failure with its reason (Figure 7)."""

    success: bool
    reason: str
    views: NBCViews | None = None
    r: float = math.nan
    achieved_r: float = math.nan
    power: int | None = None
    k: int | None = None
    multiples: dict = field(default_factory=dict)
    seconds: float = math.nan
    r_lower_bound: float = math.nan

    def __bool__(self) -> bool:
        return self.success


def winning_labels(views: NBCViews) -> pd.Series:
    """For each label, on how many tuples of the product of domains the NBC predicts it (eq. (2), ties to
    the larger label; exact)."""
    signs = score_signs(views)  # sign(X_a - X_b) for a < b
    n_classes = len(views.labels)
    wins = np.ones((signs.shape[0], n_classes), dtype=bool)
    for column, (a, b) in enumerate(itertools.combinations(range(n_classes), 2)):
        wins[:, a] &= signs[:, column] > 0
        wins[:, b] &= signs[:, column] <= 0
    return pd.Series(wins.sum(axis=0), index=list(views.labels))


def _prior_bound(views: NBCViews, f: pd.Series) -> tuple[float, object, pd.Series]:
    """(bound, the label that sets it, wins per label) for :func:`prior_r_lower_bound`."""
    wins = winning_labels(views)
    label = min((c for c in views.labels if wins[c] > 0), key=lambda c: f[c])
    return 1 / (len(views.labels) * float(f[label])), label, wins


def prior_r_lower_bound(views: NBCViews, prior) -> float:
    """The smallest r any NBC-equivalent publication with large counts can meet (Definition 5).

    For the full tuple tau as quasi-identifier the posterior of eq. (4) is the normalized score
    ``X_{tau,c} / sum_c' X_{tau,c'}`` (``E[K_c] = X_{tau,c}``; exact to float64 precision once the counts
    are large, as EST's and SafetyTransform's are), so the label the classifier predicts has posterior at
    least ``1/|C|``. Keeping the classifier therefore forces ``r >= max_c 1 / (|C| F(c))`` over the labels
    ``c`` predicted for some tuple.
    """
    return _prior_bound(views, check_prior(prior, views.labels))[0]


def est(views: NBCViews, prior, r, *, random_state=None, max_power: int = 10**7, audit_result: bool = True
        ) -> ESTResult:
    """EST (Figure 7 of seed 004): views that keep the classifier and meet r-closeness w.r.t. ``prior``.

    First, the necessary condition of :func:`prior_r_lower_bound`: no classifier-keeping publication can
    meet an r below it, so EST fails at once. Steps: Step 1 (zeros must go before ties can be broken),
    tie resolution, Split of the counts raised to ``alpha`` into ``F_c`` sub-labels per label (``alpha`` the smallest power whose exact smallest score
    ratio exceeds ``F~``: Lemma 12 with the true ratio instead of ``M1/M2``), SafetyTransform on the
    sub-labels with gamma = r (the sub-labels of one label stay identical, so they share Step 2's rounding),
    Merging (Definition 6), then Steps 3-4. The merged views are checked exactly for NBC-equivalence with
    the input; when it fails (Statement 14's condition does not hold) the result is a failure with its
    reason, never a non-equivalent classifier. The achieved r is measured with the exact
    :func:`privnb.nbc.audit`.

    Parameters
    ----------
    views : NBCViews
    prior : Mapping label -> probability
        Strictly positive, summing to 1 (floats are read as the nearest fraction with denominator <= 1e6).
    r : float
        The requested r-closeness, > 1.
    random_state : int, RandomState or None
        For the values that replace zeros (Step 1).
    max_power : int
        Largest Split power ``alpha`` tried before EST gives up.
    audit_result : bool
        Measure the achieved r with the exact audit and fail rather than publish above ``r`` (default).
        False skips the audit: ``achieved_r`` is NaN and r-closeness is then not verified.
    """
    start = time.perf_counter()
    if not isinstance(r, numbers.Real) or not r > 1:
        raise ValueError(f"r must be a real number > 1 (Definition 5), got {r!r}")
    f = check_prior(prior, views.labels)
    multiples = dict(zip(views.labels, _prior_multiples(f)))

    def fail(reason, **extra):
        return ESTResult(False, reason, r=float(r), multiples=multiples, seconds=time.perf_counter() - start, **extra)

    if len(views.labels) < 2:
        return fail("a single label: nothing to protect")
    bound, c, wins = _prior_bound(views, f)
    if r < bound:
        return fail(f"no NBC-equivalent publication meets r={r}: the classifier predicts {c!r} on {wins[c]} of "
                    f"{int(wins.sum())} tuples, where its posterior given the whole tuple is its normalized score "
                    f">= 1/{len(views.labels)} against a prior of {float(f[c]):.4g}, so r >= {bound:.4g} "
                    "(Definition 5; exact for EST's large counts)", r_lower_bound=bound)
    base = resolve_ties(step1_remove_zeros(views, random_state=random_state))
    f_max = max(multiples.values())
    ratio = min_score_ratio(base)
    if f_max == 1:
        power = 1
    else:
        log_ratio = _ln(ratio)
        power = math.floor(math.log(f_max) / log_ratio) + 1
        while power * log_ratio <= math.log(f_max):
            power += 1
        if power > max_power:
            return fail(f"Split needs the counts raised to {power} > max_power={max_power}: the smallest "
                        f"score ratio is {float(ratio):.12g} against F~={f_max} (Lemma 12)", power=power,
                        r_lower_bound=bound)
    n = base.n_attributes
    divisors = [multiples[label] for label in base.labels]
    logs = [_ln(v) for v in base.all_counts()]
    log_w = power * (max(logs) - min(logs)) + math.log(f_max)
    k = max(1, math.ceil(n * (2 * n + 3) * log_w / math.log(r)))
    # Statement 8's bound for the raised counts would need ~alpha times the bits; start from the
    # unraised bound and let the exact check below ask for more.
    bits = _precision_bits(base, k) + 64
    ranks = range(len(base.labels))
    for _ in range(8):
        p, tables = _rounded_roots(base, k, bits, ranks=ranks, power=power, divisors=divisors)
        sub = step3_restore_totals(base.with_counts(p, tables))
        if corollary4_gamma(sub) > _as_fraction(r):  # the sub-labels must meet Corollary 4 for r
            k += max(1, k // 4)
            continue
        # Merging: the F_c identical sub-labels of c become F_c times their counts (Definition 6).
        merged = base.with_counts([v * d for v, d in zip(sub.class_counts, divisors)],
                                  [[[v * d for v, d in zip(row, divisors)] for row in t] for t in _frames(sub)])
        if nbc_equivalent(views, merged):
            break
        if nbc_equivalent(views, sub):  # the sub-labels keep the classifier: merging is at fault
            return fail("merging the sub-labels does not preserve the classifier (Lemma 12 / Statement 14): "
                        f"with alpha={power} and k={k}, the factors F_c^(1-1/k) outweigh the score gaps; "
                        "ask for a larger r", power=power, k=k, r_lower_bound=bound)
        bits *= 2  # rounding was at fault: more precision
    else:
        return fail("Step 2's rounding could not keep the classifier; please report this", power=power, k=k)
    published = step4_integers(merged)
    achieved = audit(published, f).r_closeness if audit_result else math.nan
    if achieved > r:  # never publish above the requested r-closeness (NaN when the audit was skipped)
        return fail(f"the exact audit measures r-closeness {achieved:.6g} > r={r}: not published",
                    power=power, k=k, r_lower_bound=bound)
    return ESTResult(True, "", published, r=float(r), achieved_r=achieved, power=power, k=k,
                     multiples=multiples, seconds=time.perf_counter() - start, r_lower_bound=bound)
