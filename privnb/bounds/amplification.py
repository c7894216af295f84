"""The amplification criterion of the NBC paper (MZ09), stated in sympy.

Statement 1's condition (6), Lemma 2's choice of ``m1, m2`` and its ratio, the largest admissible
amplification ``gamma`` for a privacy policy ``L1 < L2`` (condition (7)), Corollary 4's per-count bound
``gamma**(1/n)`` and Statement 14's condition (21) with its limit form. Each symbolic statement has a
numeric twin (plain floats) for notebooks and for :mod:`privnb.nbc.safety`.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np
import sympy as sp

__all__ = [
    "m1",
    "m2",
    "amplification_symbols",
    "amplification_condition",
    "lemma2_m1",
    "lemma2_m2",
    "lemma2_ratio",
    "lemma2_ratio_alt",
    "lemma2_ratio_value",
    "policy_ratio",
    "max_gamma_expr",
    "max_gamma",
    "corollary4_bound",
    "corollary4_ratio",
    "statement14_condition",
    "statement14_limit",
    "statement14_min_r",
    "check_policy",
    "check_gamma",
]

gamma, n_classes, n_attributes = sp.symbols("gamma n_C n", positive=True)
L1, L2, m1, m2 = sp.symbols("L_1 L_2 m_1 m_2", positive=True)
_alpha, _F, _S, _M, _m, _r = sp.symbols("alpha F_tilde S_M M m r", positive=True)

#: Statement 1, condition (6): ``m2/m1 <= (L2/L1) (1-L1)/(1-L2)``.
policy_ratio = (L2 / L1) * (1 - L1) / (1 - L2)
amplification_condition = sp.Le(m2 / m1, policy_ratio)

#: Lemma 2: the bounds m1, m2 of condition (5) implied by condition (8) with amplification gamma.
lemma2_m1 = n_classes / (1 + gamma * (n_classes - 1))
lemma2_m2 = gamma * n_classes / (gamma + n_classes - 1)
#: Lemma 2, condition (7): ``m2/m1`` in its two printed forms.
lemma2_ratio = (gamma + gamma**2 * (n_classes - 1)) / (gamma + n_classes - 1)
lemma2_ratio_alt = (1 + gamma * (n_classes - 1)) / (1 + (n_classes - 1) / gamma)

#: Corollary 4: every ratio of class counts P_c'/P_c and N^i_{t,c}/N^i_{t,c'} is at most gamma^(1/n).
corollary4_bound = gamma ** (1 / n_attributes)


def _max_gamma_solution():
    """The root > 1 of ``lemma2_ratio = policy_ratio`` (a quadratic in gamma), as a sympy expression."""
    g = sp.Symbol("g", positive=True)
    c = n_classes - 1
    # (gamma + gamma^2 c) = g (gamma + c)  <=>  c gamma^2 + (1 - g) gamma - g c = 0
    root = ((g - 1) + sp.sqrt((1 - g) ** 2 + 4 * g * c**2)) / (2 * c)
    return root.subs(g, policy_ratio)


#: The supremum of the gammas that satisfy condition (7) for L1, L2 and |C| = n_C classes.
max_gamma_expr = _max_gamma_solution()
_max_gamma_numeric = sp.lambdify((L1, L2, n_classes), max_gamma_expr, "math")

#: Statement 14, condition (21), with alpha the power of the Split step.
statement14_condition = sp.StrictLessThan(
    _F,
    (_S**_alpha / _F)
    ** (sp.log(_r) / ((2 * n_attributes**2 + 3 * n_attributes) * (_alpha * sp.log(_M / _m) + sp.log(_F)))),
)
#: Its limit form as alpha -> infinity: ``F~ <= S_M ** (log r / ((2n^2+3n) log(M/m)))``.
statement14_limit = sp.LessThan(_F, _S ** (sp.log(_r) / ((2 * n_attributes**2 + 3 * n_attributes) * sp.log(_M / _m))))


def check_policy(l1, l2) -> None:
    """Raise ``ValueError`` unless ``0 < l1 < l2 < 1`` (Definition 1 of MZ09).

    Parameters
    ----------
    l1 : float
        The prior bound L1 of the privacy policy.
    l2 : float
        The posterior bound L2.
    """
    for name, value in (("L1", l1), ("L2", l2)):
        if not isinstance(value, numbers.Real) or not 0 < value < 1:
            raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    if not l1 < l2:
        raise ValueError(f"L1 must be smaller than L2 (Definition 1), got L1={l1!r}, L2={l2!r}")


def _check_classes(count) -> int:
    if not isinstance(count, numbers.Integral) or count < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {count!r}")
    return int(count)


def max_gamma(L1, L2, n_classes) -> float:
    """The largest amplification gamma that blocks every L1-to-L2 breach (Lemma 2, condition (7)).

    Condition (7) is strict, so the value returned is the supremum of the admissible gammas; for two
    classes it equals the policy ratio ``(L2/L1)(1-L1)/(1-L2)`` itself.

    Parameters
    ----------
    L1 : float
        The prior bound of the policy (Definition 1).
    L2 : float
        The posterior bound of the policy.
    n_classes : int
        The number of classes |C|.

    References
    ----------
    .. [1] Mozafari and Zaniolo, "Publishing Naive Bayesian Classifiers: Privacy without Accuracy Loss",
       PVLDB, 2009 (MZ09; the extracted text omits title, authors and venue: from the papers' index).

    Examples
    --------
    >>> round(max_gamma(0.5, 0.6, 2), 6)
    1.5
    """
    check_policy(L1, L2)
    return float(_max_gamma_numeric(float(L1), float(L2), _check_classes(n_classes)))


def lemma2_ratio_value(gamma_value, n_classes_value) -> float:
    """Numeric value of ``m2/m1`` of Lemma 2.

    Parameters
    ----------
    gamma_value : float
        The amplification gamma.
    n_classes_value : int
        The number of classes |C|.
    """
    check_gamma(gamma_value)
    c = _check_classes(n_classes_value) - 1
    g = float(gamma_value)
    return (g + g * g * c) / (g + c)


_GAMMA_ULPS = 8  # a float gamma within this many machine epsilons of 1 is 1 up to rounding


def check_gamma(value) -> None:
    """Raise ``ValueError`` unless ``value`` is a finite real number > 1 (the amplification of Lemma 2).

    A float within a few machine epsilons of 1 (``(0.1 + 0.2) / 0.3``) is 1 up to rounding and is refused
    too; an exact Fraction just above 1 is accepted.
    """
    rule = "gamma must be a finite real number > 1 (the amplification of Lemma 2)"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not value > 1:
        raise ValueError(f"{rule}, got {value!r}")
    if not isinstance(value, numbers.Rational):
        if not math.isfinite(value):
            raise ValueError(f"{rule}, got {value!r}")
        if float(value) - 1 <= _GAMMA_ULPS * sys.float_info.epsilon:
            raise ValueError(f"{rule}, got {value!r}: it equals 1 within float precision (no amplification)")


def corollary4_ratio(gamma_value, n_attributes_value: int) -> float:
    """Corollary 4's bound ``gamma**(1/n)`` on every ratio of published counts.

    Meeting it does not imply condition (8) with gamma once a quasi-identifier has two or more attributes
    (``privnb.nbc.corollary4_counterexamples``: 12 rows meet it for gamma = 9, the exact audit gives 28/3).

    Parameters
    ----------
    gamma_value : float
        The amplification gamma.
    n_attributes_value : int
        The number n of attributes in a quasi-identifier.
    """
    check_gamma(gamma_value)
    if not isinstance(n_attributes_value, numbers.Integral) or n_attributes_value < 1:
        raise ValueError(f"n_attributes must be a positive integer, got {n_attributes_value!r}")
    return float(gamma_value) ** (1.0 / n_attributes_value)


def statement14_min_r(f_tilde, s_m, big_m, small_m, n, *, log: bool = False) -> float:
    """The smallest r that the limit form of Statement 14 guarantees (alpha -> infinity).

    Solves ``F~ = S_M ** (log r / ((2n^2+3n) log(M/m)))`` for r; ``inf`` when ``S_M <= 1``. With
    ``log=True`` returns ``ln r`` instead (r itself overflows a float on real data: Adult needs ln r ~ 985).

    Parameters
    ----------
    f_tilde : float
        F~ of Statement 14.
    s_m : float
        S_M of Statement 14.
    big_m : float
        M, the largest published count.
    small_m : float
        m, the smallest published count.
    n : int
        The number of attributes.
    log : bool
        Return ln r instead of r.
    """
    if not f_tilde >= 1:
        raise ValueError(f"F~ (the largest prior multiple) must be >= 1, got {f_tilde!r}")
    if not 0 < small_m <= big_m:
        raise ValueError(f"need 0 < m <= M, got m={small_m!r}, M={big_m!r}")
    if s_m <= 1:
        return math.inf
    if f_tilde == 1 or big_m == small_m:
        return 0.0 if log else 1.0
    log_r = (2 * n * n + 3 * n) * math.log(big_m / small_m) * math.log(f_tilde) / math.log(s_m)
    if log:
        return log_r
    return math.exp(log_r) if log_r < 700 else math.inf


def amplification_symbols() -> dict[str, sp.Symbol]:
    """The sympy symbols of this module by name (gamma, n_C, n, L_1, L_2, m_1, m_2, and those of (21))."""
    return {str(s): s for s in (gamma, n_classes, n_attributes, L1, L2, m1, m2, _alpha, _F, _S, _M, _m, _r)}
