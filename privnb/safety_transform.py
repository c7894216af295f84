"""SafetyTransform and EST: NBC-equivalent views that are safe to publish (Sections 6-7 of seed 004).

Every step works in exact rationals. Step 2's k-th roots are irrational; they are replaced by rationals
whose error is steered by class (Statement 7): class ``c`` of precedence rank ``j`` gets its ``N`` rounded
into ``[rho^j, rho^(j+1/2))`` times the true root and its ``P`` into ``(rho^-(j+1/2), rho^-j]``, so a
higher-precedence class only ever gains; ``rho = 1 + 2^-E`` with ``E`` from the integer gap bound of
Statement 8 (two different integer score cross-products differ by at least one), so no inequality flips
and every tie goes to the larger label. Each root is bracketed by a Newton step in Decimal arithmetic
rounded outward (exact bounds), and N and P are rounded from the bracket to multiples of one power of two.
"""
from __future__ import annotations

import itertools
import math
import numbers
import time
from dataclasses import dataclass, field
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from typing import Mapping

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from .bounds.amplification import check_gamma
from .nbc import NBCViews, _integer_tables, min_score_ratio, nbc_equivalent, score_signs
from .nbc_audit import achieved_r, check_prior

__all__ = [
    "SafetyTransform", "safety_transform", "step1_remove_zeros", "step2_roots", "step3_restore_totals",
    "step4_integers", "step2_degree", "corollary4_gamma", "satisfies_corollary4", "k_sind",
    "synthetic_database", "est", "ESTResult", "resolve_ties", "split", "merge", "winning_labels",
    "prior_r_lower_bound",
]


def _frames(views: NBCViews) -> list[list[list]]:
    """The N tables as nested lists [attribute][value][class]."""
    return [frame.to_numpy().tolist() for frame in views.counts.values()]


def _unflatten(views: NBCViews, flat: list) -> tuple[list, list]:
    """(P list, N tables) from values in the order of ``views.all_counts()``."""
    n_classes = len(views.labels)
    tables, at = [], n_classes
    for frame in views.counts.values():
        tables.append([flat[r:r + n_classes] for r in range(at, at + frame.size, n_classes)])
        at += frame.size
    return flat[:n_classes], tables


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
    tables = _frames(views)  # ints and Fractions
    p = [Fraction(v) for v in views.class_counts]
    n_classes = len(p)

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
        maxima = [max(row[c] for row in t) for t in tables]  # per attribute maxima of class c
        for i, r in zeros:
            rest = math.prod(v for j, v in enumerate(maxima) if j != i)
            if lowest is None:  # no other class scores positively anywhere: any s works
                bound = maxima[i] if maxima[i] > 0 else Fraction(1)
            else:
                bound = lowest * p[c] ** (n - 1) / rest
            tables[i][r][c] = _power_of_two_below(bound) * Fraction(int(rng.randint(1, 16)), 16)
            maxima[i] = max(maxima[i], tables[i][r][c])  # the only change to class c's maxima
    return views.with_counts(p, tables)


# ---------------------------------------------------------------------------------------------- Step 2
def _log_ratio_w(views: NBCViews) -> float:
    """log of Figure 4's ``w``: the largest over the smallest of all counts (N and P)."""
    logs = [_ln(v) for v in views.all_counts()]
    return max(logs) - min(logs)


def _ln(value) -> float:
    """The natural log of a positive int or Fraction; near 1 through ``log1p`` of the exact difference,
    where ``log(numerator) - log(denominator)`` would cancel to 0 or below."""
    value = _as_fraction(value)
    if value <= 0:
        raise ValueError("Step 2 needs positive counts; run step1_remove_zeros first")
    if abs(value - 1) < Fraction(1, 2):
        return math.log1p(float(value - 1))
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


def _outward(digits: int) -> tuple[Context, Context]:
    """Decimal contexts rounding down and up to ``digits`` significant digits, exponents unbounded.

    Decimal operations are correctly rounded: a result rounded down is below the exact value by less
    than ``10^(1-digits)`` of it.
    """
    return tuple(Context(prec=digits, rounding=mode, Emin=MIN_EMIN, Emax=MAX_EMAX)
                 for mode in (ROUND_FLOOR, ROUND_CEILING))


def _power_bounds(low: Decimal, n: int, loss: Decimal, down: Context, up: Context) -> tuple[Decimal, Decimal]:
    """Bounds on ``z^n`` for every ``z`` in ``[low, low / (1 - loss)]`` (``low > 0``).

    Binary powering rounded down gives the lower bound. Each of its products loses less than
    ``delta = 10^(1-digits)`` of its value, and the squarings after it raise that loss to powers that sum
    to less than ``2n``, so ``z^n <= lower / ((1 - loss)^n (1 - delta)^(2n))``
    ``<= lower / (1 - n loss - 2n delta)``.
    """
    power = low
    for bit in bin(n)[3:]:
        power = down.multiply(power, power)
        if bit == "1":
            power = down.multiply(power, low)
    slack = up.add(up.multiply(n, loss), up.scaleb(2 * n, 1 - up.prec))
    return power, up.divide(power, down.subtract(1, slack))


def _root_step(y: Decimal, x_low: Decimal, x_high: Decimal, k: int, down: Context, up: Context):
    """Bounds on ``x^(1/k)`` for every ``x`` in ``[x_low, x_high]``, from a guess ``y > 0``.

    With ``u = x / y^k``, ``x^(1/k) = y u^(1/k)`` and ``1 + (1 - 1/u)/k <= u^(1/k) <= 1 + (u - 1)/k``
    (``ln u >= 1 - 1/u``, and the tangent at 1 of the concave ``u^(1/k)``): the bracket is
    ``O((u - 1)^2 / k)`` wide, and its upper end is Newton's step from y.
    """
    q_low, q_high = _power_bounds(y, k, Decimal(0), down, up)
    low = down.multiply(y, down.add(1, down.divide(down.subtract(1, up.divide(q_high, x_low)), k)))
    high = up.multiply(y, up.add(1, up.divide(up.subtract(up.divide(x_high, q_low), 1), k)))
    return low, high


@dataclass(frozen=True)
class _RootPlan:
    """How Step 2 (Figure 4 of seed 004) computes its k-th roots for a power and ``bits`` of precision.

    ``down`` and ``up`` round to ``digits``, which keep a bracket's rounding error (about
    ``(8 + (3 power + 5) / k) 10^(1-digits)`` of the root: ``2k`` products' worth through ``y^k``,
    ``3 power`` through ``x``, divided by k by the root) far below ``2^-(bits+5)``. ``guesses`` are the
    contexts of Newton's steps, each about doubling the correct digits (less ``log10 k``) from a float's
    16 up to about half of ``digits``, where one certified step (:func:`_root_step`) completes them.
    """

    k: int
    power: int
    bits: int
    down: Context
    up: Context
    guesses: tuple

    @classmethod
    def make(cls, k: int, power: int, bits: int) -> "_RootPlan":
        digits = math.ceil((bits + 8) * math.log10(2) + math.log10(10 + 4 * (power + 1) / k)) + 2
        slack = len(str(k))
        precisions = [(digits + slack) // 2 + 2]
        while precisions[-1] > 2 * slack + 16:
            precisions.append((precisions[-1] + slack) // 2 + 1)
        guesses = tuple(Context(prec=p, Emin=MIN_EMIN, Emax=MAX_EMAX) for p in reversed(precisions))
        return cls(k, power, bits, *_outward(digits), guesses)

    def bounds(self, numerator: int, denominator: int, divisor: int) -> tuple[Decimal, Decimal]:
        """``low <= (v^power / divisor)^(1/k) <= high`` with ``v = numerator / denominator`` and
        ``high - low <= 2^-(bits+5) low``.

        A float estimate, Newton's steps at the ``guesses`` precisions, then certified steps
        (:func:`_root_step`) until the bracket is that tight.
        """
        k, power, down, up = self.k, self.power, self.down, self.up
        v_low = down.divide(numerator, denominator)
        x_low, x_high = _power_bounds(v_low, power, up.scaleb(1, 1 - up.prec), down, up)
        x_low, x_high = down.divide(x_low, divisor), up.divide(x_high, divisor)
        log2 = (power * (math.log2(numerator) - math.log2(denominator)) - math.log2(divisor)) / k
        whole = math.floor(log2)
        y = down.multiply(Decimal(2.0 ** (log2 - whole)), down.power(2, whole))
        for ctx in self.guesses:
            y = ctx.multiply(y, ctx.add(1, ctx.divide(ctx.subtract(ctx.divide(x_low, ctx.power(y, k)), 1), k)))
        scale = 2 ** (self.bits + 5)
        while True:
            low, high = _root_step(y, x_low, x_high, k, down, up)
            if low > 0 and up.multiply(up.subtract(high, low), scale) <= low:
                return low, high
            y = high


def _rounded_roots(views: NBCViews, k: int, bits: int, *, ranks=None, power: int = 1, divisors=None):
    """Step 2's roots ``x = (count^power / divisor_c)^(1/k)`` as integers over ``2^shift``, with
    class-steered errors (Statement 7). Returns (P list, N tables, shift).

    With ``eta = 2^-bits``, ``rho = 1 + eta`` and ``j`` the class's rank, ``N`` is ``rho^j`` times an
    upper bound of x rounded up, ``P`` is ``rho^-j`` times a lower bound rounded down, to a multiple of
    ``2^-shift``. The bounds are within ``eta/32`` of each other (:meth:`_RootPlan.bounds`) and
    ``2^-shift <= rho^-j x eta/32``, so ``rho^j x <= N <= rho^j x (1 + eta/16) < rho^(j+1/2) x`` and
    ``rho^-(j+1/2) x < rho^-j x (1 - eta/16) <= P <= rho^-j x``.
    """
    n_classes = len(views.labels)
    ranks = list(range(n_classes)) if ranks is None else list(ranks)
    divisors = [1] * n_classes if divisors is None else list(divisors)
    plan = _RootPlan.make(k, power, bits)
    bounds: dict = {}

    def bound(value, c):  # (low, high as an integer ratio)
        key = (value.numerator, value.denominator, divisors[c])  # counts are ints or Fractions
        if key not in bounds:
            low, high = plan.bounds(*key)
            bounds[key] = low, high.as_integer_ratio()
        return bounds[key]

    p_low = [bound(v, c)[0].as_integer_ratio() for c, v in enumerate(views.class_counts)]
    n_high = [[[bound(v, c)[1] for c, v in enumerate(row)] for row in t] for t in _frames(views)]
    # x >= high / 2 > 2^(bit lengths' difference - 2), and rho^-j >= 2^-j
    smallest = min(num.bit_length() - den.bit_length() for _, (num, den) in bounds.values())
    shift = max(0, bits + 7 + max(ranks) - smallest)
    grow, shrink = [(2**bits + 1) ** j for j in ranks], [2 ** (bits * j) for j in ranks]
    p = [(num * shrink[c] << shift) // (den * grow[c]) for c, (num, den) in enumerate(p_low)]
    tables = [[[-((-num * grow[c] << shift) // (den * shrink[c])) for c, (num, den) in enumerate(row)]
               for row in t] for t in n_high]
    return p, tables, shift


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
    p, tables, shift = _rounded_roots(views, int(k), _precision_bits(views, int(k)))
    return views.with_counts([Fraction(v, 1 << shift) for v in p],
                             [[[Fraction(v, 1 << shift) for v in row] for row in t] for t in tables])


# ---------------------------------------------------------------------------------------------- Step 3
def _restored_integers(p: list[int], tables: list, denominator: int) -> tuple[list[int], list, int]:
    """Step 3 (Figure 5) in integers: counts given as integers over ``denominator`` in, Step 3's counts
    out as integers over the returned denominator.

    Step 3 scales class c's ``N^i`` by ``r_i = r_0 P_c / s_i`` with ``s_i = sum_t N^i_{t,c}`` and
    ``r_0 = prod_i s_i / P_c^n``, so ``N' = N prod_(j != i) s_j / P_c^(n-1)`` and
    ``P' = prod_i s_i / P_c^(n-1)``; over ``D = denominator`` and ``L = lcm_c p_c^(n-1)`` (``p_c = P_c D``)
    these are integers over ``L D``.
    """
    n = len(tables)
    sums = [[sum(column) for column in zip(*t)] for t in tables]
    lcm = math.lcm(*(pc ** (n - 1) for pc in p))
    factors = [lcm // pc ** (n - 1) for pc in p]
    new_p = [math.prod(s[c] for s in sums) * factors[c] for c in range(len(p))]
    scale = [[math.prod(s[c] for j, s in enumerate(sums) if j != i) * factors[c] for c in range(len(p))]
             for i in range(n)]
    new_tables = [[[v * f for v, f in zip(row, scale[i])] for row in t] for i, t in enumerate(tables)]
    return new_p, new_tables, lcm * denominator


def step3_restore_totals(views: NBCViews) -> NBCViews:
    """Step 3 (Figure 5): rescale so that ``P_c = sum_t N^i_{t,c}`` again; every score is unchanged
    (Statement 9)."""
    values = views.all_counts()  # ints and Fractions
    denominator = math.lcm(*(v.denominator for v in values))
    ints = [v.numerator * (denominator // v.denominator) for v in values]
    p, tables, denominator = _restored_integers(*_unflatten(views, ints), denominator)
    return views.with_counts([Fraction(v, denominator) for v in p],
                             [[[Fraction(v, denominator) for v in row] for row in t] for t in tables])


# ---------------------------------------------------------------------------------------------- Step 4
def step4_integers(views: NBCViews) -> NBCViews:
    """Step 4: the smallest integer counts proportional to the given ones (one common factor for all
    counts, which multiplies every score alike and keeps ``P_c = sum_t N``)."""
    return views.with_counts(*_unflatten(views, _smallest_integers(views.all_counts())))


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
    top, bottom = 1, 1  # the largest ratio so far, unreduced
    for row in rows:
        low, high = min(row), max(row)
        if low == 0:
            if zeros == "raise":
                raise ValueError("a zero count: Corollary 4 fails for every gamma; run step1_remove_zeros, "
                                 "or pass zeros='skip' or 'inf'")
            if zeros == "inf":
                return math.inf
            continue
        if high * bottom > top * low:
            top, bottom = high, low
    return (Fraction(top) / Fraction(bottom)) ** n


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
    factors = [1 + c * eps for c in range(n_classes)]
    tables = [[[v * f for v, f in zip(row, factors)] for row in t] for t in _frames(views)]
    return views.with_counts(list(views.class_counts), tables)


def _prior_multiples(prior: pd.Series) -> list[int]:
    """``F(c) = F * F_c`` with F the greatest common divisor of the prior (Split, Section 7.2)."""
    return _smallest_integers(prior)


def _smallest_integers(values) -> list[int]:
    """The smallest integers proportional to the given ints and fractions (all zero stays all zero)."""
    values = list(values)
    scale = math.lcm(1, *(v.denominator for v in values))
    ints = [v.numerator * (scale // v.denominator) for v in values]
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
    if f_max == 1:
        power = 1
    else:
        ratio = min_score_ratio(base)
        log_ratio = _ln(ratio)
        if log_ratio * max_power <= math.log(f_max):
            return fail(f"Split needs the counts raised to a power above max_power={max_power}: the smallest "
                        f"score ratio is 1 + {float(ratio - 1):.6g} against F~={f_max} (Lemma 12)",
                        r_lower_bound=bound)
        power = math.floor(math.log(f_max) / log_ratio) + 1
        while power * log_ratio <= math.log(f_max):
            power += 1
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
        p, tables, shift = _rounded_roots(base, k, bits, ranks=ranks, power=power, divisors=divisors)
        # Step 3's counts times their common denominator, which no ratio or score comparison sees
        p, tables, _ = _restored_integers(p, tables, 1 << shift)
        sub = base.with_counts(p, tables)
        if corollary4_gamma(sub) > _as_fraction(r):  # the sub-labels must meet Corollary 4 for r
            k += max(1, k // 4)
            continue
        # Merging: the F_c identical sub-labels of c become F_c times their counts (Definition 6).
        merged = base.with_counts([v * d for v, d in zip(p, divisors)],
                                  [[[v * d for v, d in zip(row, divisors)] for row in t] for t in tables])
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
    achieved = achieved_r(published, f) if audit_result else math.nan
    if achieved > r:  # never publish above the requested r-closeness (NaN when the audit was skipped)
        return fail(f"the exact audit measures r-closeness {achieved:.6g} > r={r}: not published",
                    power=power, k=k, r_lower_bound=bound)
    return ESTResult(True, "", published, r=float(r), achieved_r=achieved, power=power, k=k,
                     multiples=multiples, seconds=time.perf_counter() - start, r_lower_bound=bound)
