"""SafetyTransform and EST: NBC-equivalent views that are safe to publish (Sections 6-7 of MZ09).

Every step works in exact rationals. Step 2's k-th roots are irrational; they are replaced by rationals
whose error is steered by class (Statement 7): class ``c`` of precedence rank ``j`` gets its ``N`` rounded
into ``[rho^j, rho^(j+1/2))`` times the true root and its ``P`` into ``(rho^-(j+1/2), rho^-j]``, so a
higher-precedence class only ever gains; ``rho = 1 + 2^-E`` with ``E`` from the integer gap bound of
Statement 8 (two different integer score cross-products differ by at least one), so no inequality flips
and every tie goes to the larger label. Each root is bracketed by a Newton step in Decimal arithmetic
rounded outward (exact bounds), and N and P are rounded from the bracket to multiples of one power of two.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from privnb._docstrings import shared_doc
from privnb.bounds.amplification import check_gamma
from privnb.nbc._roots import precision_bits, rounded_roots
from privnb.nbc.views import NBCViews, count_tables, unflatten_counts
from privnb.validation import as_fraction


def _gamma(value) -> Fraction:
    check_gamma(value)
    return as_fraction(value)


# ---------------------------------------------------------------------------------------------- Step 1
def _power_of_two_below(value: Fraction) -> Fraction:
    """The largest power of two <= value (keeps Step 1's denominators small)."""
    e = value.numerator.bit_length() - value.denominator.bit_length()
    power = Fraction(2) ** e
    return power if power <= value else power / 2


@shared_doc
def step1_remove_zeros(views: NBCViews, *, random_state=None) -> NBCViews:
    """Step 1 (Figure 3): replace every zero ``N^i_{t,c}`` by a small positive rational.

    Classes are processed from the largest label down. A zero of class ``c`` at ``(i, t)`` becomes
    ``s = u * S`` with ``u`` drawn from {1/16, ..., 15/16} (Section 6.3: s may be random) and ``S`` the
    bound under which any score of ``c`` through that cell stays below every positive score of every
    other class. Figure 3's bound ``min_c' (m_c'/M_c) M^i_c`` ignores ``P_c`` in eq. (2); here
    ``S = min_c' (m_c' / P_c'^(n-1)) * P_c^(n-1) * M^i_c / M_c`` so that Statement 5 holds for any P.

    Parameters
    ----------
    views : NBCViews
        The input views (int or Fraction counts); their class counts are kept.
    random_state : int, RandomState or None
        Draws each replacement's factor ``u``.
        {random_state}

    Returns
    -------
    NBCViews
        The same views with every zero ``N^i_{t,c}`` replaced by an exact positive rational.
    """
    rng = check_random_state(random_state)
    n = views.n_attributes
    tables = count_tables(views)  # ints and Fractions
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
    logs = [natural_log(v) for v in views.all_counts()]
    return max(logs) - min(logs)


def natural_log(value) -> float:
    """The natural log of a positive int or Fraction; near 1 through ``log1p`` of the exact difference,
    where ``log(numerator) - log(denominator)`` would cancel to 0 or below.

    Parameters
    ----------
    value : int or Fraction
        A positive number.

    Returns
    -------
    float
    """
    value = as_fraction(value)
    if value <= 0:
        raise ValueError("Step 2 needs positive counts; run step1_remove_zeros first")
    if abs(value - 1) < Fraction(1, 2):
        return math.log1p(float(value - 1))
    return math.log(value.numerator) - math.log(value.denominator)


def step2_degree(views: NBCViews, gamma) -> int:
    """Figure 4, Line 2 with Figure 2's ``gamma^(1/(2n+3))``: the smallest ``k >= n (2n+3) log w / log gamma``.

    Parameters
    ----------
    views : NBCViews
        Views with positive counts (after Step 1); ``w`` is their largest count over their smallest.
    gamma : float or Fraction
        The amplification (> 1).

    Returns
    -------
    int
        The root degree k (at least 1).
    """
    g = _gamma(gamma)
    n = views.n_attributes
    log_w = _log_ratio_w(views)
    return max(1, math.ceil(n * (2 * n + 3) * log_w / natural_log(g) - 1e-12))


def step2_roots(views: NBCViews, gamma=None, *, k: int | None = None) -> NBCViews:
    """Step 2 (Figure 4): k-th roots of every count, as rationals that keep the classifier (Lemma 6).

    Give ``gamma`` (k from :func:`step2_degree`) or ``k`` itself. The rationals follow Statement 7
    (see the module docstring), with the precision of Statement 8.

    Parameters
    ----------
    views : NBCViews
        Views with positive counts (after Step 1; a zero raises ValueError).
    gamma : float or Fraction, optional
        The amplification; used only when ``k`` is not given.
    k : int, optional
        The root degree.

    Returns
    -------
    NBCViews
        The rooted counts, exact rationals over one common power of two.
    """
    if k is None:
        if gamma is None:
            raise ValueError("give gamma (the amplification) or k (the root degree)")
        k = step2_degree(views, gamma)
    if not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if any(v == 0 for v in views.all_counts()):
        raise ValueError("Step 2 needs positive counts; run step1_remove_zeros first")
    p, tables, shift = rounded_roots(views, int(k), precision_bits(views, int(k)))
    return views.with_counts(
        [Fraction(v, 1 << shift) for v in p], [[[Fraction(v, 1 << shift) for v in row] for row in t] for t in tables]
    )


# ---------------------------------------------------------------------------------------------- Step 3
def restored_integers(p: list[int], tables: list, denominator: int) -> tuple[list[int], list, int]:
    """Step 3 (Figure 5) in integers: counts given as integers over ``denominator`` in, Step 3's counts
    out as integers over the returned denominator.

    Step 3 scales class c's ``N^i`` by ``r_i = r_0 P_c / s_i`` with ``s_i = sum_t N^i_{t,c}`` and
    ``r_0 = prod_i s_i / P_c^n``, so ``N' = N prod_(j != i) s_j / P_c^(n-1)`` and
    ``P' = prod_i s_i / P_c^(n-1)``; over ``D = denominator`` and ``L = lcm_c p_c^(n-1)`` (``p_c = P_c D``)
    these are integers over ``L D``.

    Parameters
    ----------
    p : list of int
        The numerators of the class counts ``P_c``.
    tables : list
        The numerators of the count tables ``N^i``, one per attribute: rows per value, a count per class.
    denominator : int
        ``D``, the common denominator of ``p`` and ``tables``.

    Returns
    -------
    (list of int, list, int)
        Step 3's class counts and count tables as numerators, and their common denominator ``L D``.
    """
    n = len(tables)
    sums = [[sum(column) for column in zip(*t)] for t in tables]
    lcm = math.lcm(*(pc ** (n - 1) for pc in p))
    factors = [lcm // pc ** (n - 1) for pc in p]
    new_p = [math.prod(s[c] for s in sums) * factors[c] for c in range(len(p))]
    scale = [
        [math.prod(s[c] for j, s in enumerate(sums) if j != i) * factors[c] for c in range(len(p))] for i in range(n)
    ]
    new_tables = [[[v * f for v, f in zip(row, scale[i])] for row in t] for i, t in enumerate(tables)]
    return new_p, new_tables, lcm * denominator


def step3_restore_totals(views: NBCViews) -> NBCViews:
    """Step 3 (Figure 5): rescale so that ``P_c = sum_t N^i_{t,c}`` again; every score is unchanged
    (Statement 9).
    """
    values = views.all_counts()  # ints and Fractions
    denominator = math.lcm(*(v.denominator for v in values))
    ints = [v.numerator * (denominator // v.denominator) for v in values]
    p, tables, denominator = restored_integers(*unflatten_counts(views, ints), denominator)
    return views.with_counts(
        [Fraction(v, denominator) for v in p], [[[Fraction(v, denominator) for v in row] for row in t] for t in tables]
    )


# ---------------------------------------------------------------------------------------------- Step 4
def step4_integers(views: NBCViews) -> NBCViews:
    """Step 4: the smallest integer counts proportional to the given ones (one common factor for all
    counts, which multiplies every score alike and keeps ``P_c = sum_t N``).
    """
    return views.with_counts(*unflatten_counts(views, smallest_integers(views.all_counts())))


# ---------------------------------------------------------------------------------------------- checks
def corollary4_gamma(views: NBCViews, *, zeros: str = "raise") -> Fraction | float:
    """The smallest gamma for which ``views`` satisfy Corollary 4: ``max(ratio)^n`` over the ratios
    ``P_c'/P_c`` and ``N^i_{t,c}/N^i_{t,c'}`` (exact).

    Parameters
    ----------
    views : NBCViews
        The views checked (int or Fraction counts).
    zeros : {"raise", "skip", "inf"}
        A zero count violates condition (10) for every gamma: raise, ignore the rows ``(i, t)`` that hold
        one (``"skip"``), or return ``inf``.
    """
    if zeros not in ("raise", "skip", "inf"):
        raise ValueError(f"zeros must be 'raise', 'skip' or 'inf', got {zeros!r}")
    n = views.n_attributes
    rows = [list(views.class_counts)] + [row for t in count_tables(views) for row in t]
    top, bottom = 1, 1  # the largest ratio so far, unreduced
    for row in rows:
        low, high = min(row), max(row)
        if low == 0:
            if zeros == "raise":
                raise ValueError(
                    "a zero count: Corollary 4 fails for every gamma; run step1_remove_zeros, "
                    "or pass zeros='skip' or 'inf'"
                )
            if zeros == "inf":
                return math.inf
            continue
        if high * bottom > top * low:
            top, bottom = high, low
    return (Fraction(top) / Fraction(bottom)) ** n


def satisfies_corollary4(views: NBCViews, gamma) -> bool:
    """Whether every ratio of condition (10) is at most ``gamma^(1/n)`` (exact).

    Parameters
    ----------
    views : NBCViews
        The views checked; a zero count fails for every gamma.
    gamma : float or Fraction
        The amplification (> 1).
    """
    return corollary4_gamma(views, zeros="inf") <= _gamma(gamma)


def k_sind(views) -> int:
    """Lemma 10 of MZ09: SafetyTransform provides k-SIND with ``k = min_c P_c`` of its input views.

    "Any two tuples that have the same class label can swap their sensitive attribute without changing any
    of the NBC-enabling views. Thus, since the input viewsets are the same, SafetyTransform will also create
    the same output. [...] The smallest cardinality of such classes is the smallest P_c value": the SIND
    classes are the original table's tuples of one label, so ``P_c`` is a count of the input (the original
    data), not of the published counts, which Step 4 scales to numbers hundreds of digits long (Figure 1(a):
    k = 2, the two 50K tuples).

    Parameters
    ----------
    views : NBCViews or fitted SafetyTransform
        The input views (integer counts of the original table), or a fitted SafetyTransform (its input).
    """
    if isinstance(views, SafetyTransform):
        check_is_fitted(views, "steps_")
        views = views.steps_["input"]
    if not isinstance(views, NBCViews):
        raise ValueError(f"k_sind takes the input NBCViews or a fitted SafetyTransform, got {type(views).__name__}")
    if not views.is_integral():
        raise ValueError("k-SIND counts the tuples of the original table: give its integer views (Lemma 10)")
    return int(min(views.class_counts))


@shared_doc
def synthetic_database(
    views: NBCViews, *, target: str = "class", random_state=None, max_rows: int = 10_000_000
) -> pd.DataFrame:
    """A table whose NBC-enabling views are exactly ``views`` (Section 6.2.4): within each class, each
    attribute's values repeated by their counts and permuted independently.

    Parameters
    ----------
    views : NBCViews
        Integer, realistic views (e.g. the output of :func:`safety_transform`).
    target : str
        The name of the label column.
    random_state : int, RandomState or None
        Draws the permutations.
        {random_state}
    max_rows : int
        Largest table built; views that describe more rows raise ValueError.

    Returns
    -------
    DataFrame
        One column per attribute and ``target``, ``sum_c P_c`` rows, grouped by label.
    """
    if not views.is_integral() or not views.is_realistic():
        raise ValueError("a synthetic database needs integer, realistic views (run safety_transform)")
    total = sum(views.class_counts)
    if total > max_rows:
        raise ValueError(
            f"the views describe {total} rows (more than max_rows={max_rows}); publish the "
            "counts instead, or rescale them"
        )
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
@shared_doc
class SafetyTransform(BaseEstimator):
    """SafetyTransform (Figure 2 of MZ09): NBC-equivalent views that satisfy Corollary 4 for gamma.

    A release, not a learned map: ``fit(views)`` computes the published views of those very views, and
    there is nothing to apply to other data. So ``transform`` never refits: it returns ``views_`` for
    the views it was fitted on and raises for any others (fit those instead); ``fit_transform(views)`` is
    ``fit(views).views_``. Its input is :class:`NBCViews`, not an array, so scikit-learn's array checks
    do not apply (``tests/learn/test_estimator_contract.py`` runs those that do).

    Parameters
    ----------
    gamma : float or Fraction
        The amplification (> 1) of Lemma 2 / Corollary 4.
    k : int, optional
        Step 2's root degree; by default the smallest one Figure 2 allows. If rounding leaves Corollary 4
        unmet, k grows until it holds (checked exactly).
    random_state : int, RandomState or None
        Step 1's random choice of the replaced zeros.
        {random_state}

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

    References
    ----------
    .. [1] Mozafari and Zaniolo, "Publishing Naive Bayesian Classifiers: Privacy without Accuracy Loss",
       PVLDB, 2009 (MZ09; the extracted text omits title, authors and venue: from the papers' index).
    """

    def __init__(self, gamma, *, k=None, random_state=None):
        self.gamma = gamma
        self.k = k
        self.random_state = random_state

    def fit(self, views: NBCViews, y=None) -> SafetyTransform:
        """Run Steps 1-4 on ``views``, growing k until Corollary 4 holds for gamma.

        Parameters
        ----------
        views : NBCViews
            The views to publish.
        y : None
            Ignored (scikit-learn's signature).

        Returns
        -------
        SafetyTransform
            self, with ``steps_``, ``views_``, ``k_`` and ``achieved_gamma_`` set.
        """
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
        """The published views of the fitted ``views`` (no refit; other views raise ValueError)."""
        check_is_fitted(self, "views_")
        if views is not self.steps_["input"] and views != self.steps_["input"]:
            raise ValueError(
                "SafetyTransform publishes the views it was fitted on; these are other views: "
                "fit (or fit_transform) them instead"
            )
        return self.views_

    def fit_transform(self, views: NBCViews, y=None) -> NBCViews:
        """Fit on ``views`` and return the published integer views ``views_``.

        Parameters
        ----------
        views : NBCViews
            The views to publish.
        y : None
            Ignored (scikit-learn's signature).
        """
        return self.fit(views).views_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False  # NBCViews, not rows
        tags.non_deterministic = self.random_state is None  # Step 1's random zero replacements
        return tags


@shared_doc
def safety_transform(views: NBCViews, gamma, *, random_state=None) -> NBCViews:
    """Run SafetyTransform (Figure 2) and return the published integer views.

    The output is NBC-equivalent to ``views`` (ranking with precedence, see :func:`nbc_equivalent`) and
    satisfies Corollary 4 for ``gamma``.

    Parameters
    ----------
    views : NBCViews
        The views to publish.
    gamma : float or Fraction
        The amplification (> 1) of Corollary 4.
    random_state : int, RandomState or None
        Step 1's random choice of the replaced zeros.
        {random_state}
    """
    return SafetyTransform(gamma, random_state=random_state).fit(views).views_


def smallest_integers(values) -> list[int]:
    """The smallest integers proportional to the given ints and fractions (all zero stays all zero)."""
    values = list(values)
    scale = math.lcm(1, *(v.denominator for v in values))
    ints = [v.numerator * (scale // v.denominator) for v in values]
    common = math.gcd(*ints) or 1
    return [v // common for v in ints]
