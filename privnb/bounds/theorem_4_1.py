"""Theorem 4.1 of MC16 (Theorem A.1 of its appendix, MC16a) in sympy.

The generalization bound of the pruned linear SVC,

    E[R(f_Np)] - inf R(f) <= 4 sqrt(((d + 2) log(N + 1) + log 2) / N) + ([r_p^2]max - [r_p^2]min) / N  (4.6)

built from the margin bound (3.4) and the VC bound (3.5) of the original SVC. The proof's steps
(A.2)-(A.7) are kept as sympy relations so that tests and the notebook can check the algebra.
"""

from __future__ import annotations

from numbers import Real
from types import SimpleNamespace

import numpy as np
import sympy as sp

__all__ = [
    "theorem_4_1_symbols",
    "margin_bound_3_4",
    "vc_bound_3_5",
    "theorem_4_1_expr",
    "theorem_4_1_bound",
    "theorem_4_1_terms",
    "theorem_4_1_proof_steps",
    "second_term_share",
    "rp2_range_from_data",
]

N = sp.Symbol("N", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
rp2_min = sp.Symbol("[r_p^2]_min", positive=True)
rp2_max = sp.Symbol("[r_p^2]_max", positive=True)
epsilon = sp.Symbol("epsilon", nonnegative=True)
E_r2 = sp.Symbol("E[r^2]", positive=True)
E_rp2 = sp.Symbol("E[r_p^2]", positive=True)
max_risk_original = sp.Symbol("max R(f_N)", nonnegative=True)
inf_risk = sp.Symbol("inf R(f)", nonnegative=True)
#: The named symbols of (3.4), (3.5), (4.6) and (A.2)-(A.7) (kept out of ``privnb.bounds``' namespace).
theorem_4_1_symbols = SimpleNamespace(
    N=N,
    d=d,
    rp2_min=rp2_min,
    rp2_max=rp2_max,
    epsilon=epsilon,
    E_r2=E_r2,
    E_rp2=E_rp2,
    max_risk_original=max_risk_original,
    inf_risk=inf_risk,
)
_ARGS = (N, d, rp2_min, rp2_max)

#: (3.4): E[R(f_N)] <= E[(R ||w||)^2] / N for the maximum-margin SVC on separable data.
margin_bound_3_4 = E_r2 / N
#: (3.5): the VC bound of a linear classifier in R^(d+1).
vc_bound_3_5 = 4 * sp.sqrt(((d + 2) * sp.log(N + 1) + sp.log(2)) / N)
#: (4.6): the bound of Theorem 4.1.
theorem_4_1_expr = vc_bound_3_5 + (rp2_max - rp2_min) / N

_numeric = sp.lambdify(_ARGS, (vc_bound_3_5, (rp2_max - rp2_min) / N), "numpy")


def _check(n, dim, lo, hi):
    values = [np.asarray(v, dtype=float) for v in (n, dim, lo, hi)]
    if np.any(values[0] < 1) or np.any(values[1] < 1):
        raise ValueError(
            f"Theorem 4.1 needs N >= 1 instances and d >= 1 identifying attributes; got N={n!r}, d={dim!r}"
        )
    if np.any(values[2] <= 0) or np.any(values[3] < values[2]):
        raise ValueError(f"Theorem 4.1 assumes 0 < [r_p^2]min <= [r_p^2]max < inf; got rp2_min={lo!r}, rp2_max={hi!r}")
    return values


def theorem_4_1_bound(N, d, rp2_min, rp2_max):
    """The right-hand side of bound (4.6) of Theorem 4.1 (MC16).

    Parameters
    ----------
    N, d, rp2_min, rp2_max : number or sympy expression
        Training-set size, number of identifying attributes (the data live in R^(d+1)), and the
        smallest and largest r_p^2 = (R_p ||w_p||)^2.

    Returns
    -------
    sympy.Expr or float
        The expression; a float when every argument is a real number.

    Raises
    ------
    ValueError
        If numeric arguments break the theorem's assumptions (N, d >= 1; 0 < rp2_min <= rp2_max).

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", arXiv version, October 2016 (MC16; the text gives no venue).
    """
    args = (N, d, rp2_min, rp2_max)
    if all(isinstance(a, Real) or (isinstance(a, sp.Basic) and a.is_number) for a in args):
        first, second = theorem_4_1_terms(*(float(a) for a in args))
        return float(first + second)
    return theorem_4_1_expr.subs(dict(zip(_ARGS, args)))


def theorem_4_1_terms(N, d, rp2_min, rp2_max):
    """The two terms of (4.6), vectorized over numpy arrays: (VC term (3.5), pruning term).

    Parameters
    ----------
    N, d, rp2_min, rp2_max : number or array
        As in :func:`theorem_4_1_bound`.

    Returns
    -------
    (ndarray, ndarray)
        The VC term (3.5) and the pruning term.

    Raises
    ------
    ValueError
        As :func:`theorem_4_1_bound`.
    """
    values = _check(N, d, rp2_min, rp2_max)
    first, second = _numeric(*values)
    return np.asarray(first, dtype=float), np.asarray(second, dtype=float)


def second_term_share(N, d, rp2_min, rp2_max):
    """The pruning term's share of bound (4.6): second / (first + second), vectorized.

    Parameters
    ----------
    N, d, rp2_min, rp2_max : number or array
        As in :func:`theorem_4_1_bound`.

    Returns
    -------
    ndarray
    """
    first, second = theorem_4_1_terms(N, d, rp2_min, rp2_max)
    return second / (first + second)


def rp2_range_from_data(r2_min, r2_max, w_norm):
    """[r_p^2]min and [r_p^2]max from the pruning prerequisites and a fitted linear SVC.

    r_p^2 = (R_p ||w_p||)^2 with R_p^2 between the smallest and largest squared norms of the
    anatomized rows (Figure B.1), so [r_p^2] = R^2 ||w_p||^2 at both ends (Section 4.3 of MC16).

    Parameters
    ----------
    r2_min : float or array
        The smallest squared norm of the anatomized rows.
    r2_max : float or array
        The largest squared norm.
    w_norm : float or array
        ||w_p|| of the fitted linear SVC.

    Returns
    -------
    (float, float) or (ndarray, ndarray)
        [r_p^2]min and [r_p^2]max.
    """
    if r2_min <= 0 or r2_max < r2_min:
        raise ValueError(
            f"need 0 < r2_min <= r2_max, got {r2_min!r}, {r2_max!r}; a zero smallest squared "
            "norm means a row sits at the centre: Theorem 4.1 requires [r_p^2]min > 0"
        )
    w2 = float(w_norm) ** 2
    return float(r2_min) * w2, float(r2_max) * w2


def theorem_4_1_proof_steps() -> dict[str, sp.Expr]:
    """The proof of Theorem A.1 (MC16a, Appendix A), step by step, as sympy objects.

    Keys ``"A.2"`` ... ``"A.7"`` hold the right-hand sides of the bounds on E[R(f_Np)] (A.2-A.4) or on
    E[R(f_Np)] - inf R(f) (A.5-A.7), in the worst case r_p^2 = r^2 + epsilon; ``"A.3_identity"`` is the
    algebra of (A.3), E[r^2 + epsilon] / N - (E[r^2] / N + epsilon / N), which simplifies to 0;
    ``"A.7_minus_A.6"`` is the slack added by epsilon <= [r_p^2]max - [r_p^2]min (nonnegative there).
    Steps (A.4) and (A.6) replace E[r^2]/N by max R(f_N) and max R(f_N) - inf R(f) by (3.5): they are
    appeals to (3.4) and (3.5), not algebra, and hold only when those bounds do.
    """
    a2 = E_rp2 / N
    a3 = E_r2 / N + epsilon / N
    a4 = max_risk_original + epsilon / N
    a5 = max_risk_original - inf_risk + epsilon / N
    a6 = vc_bound_3_5 + epsilon / N
    a7 = a6.subs(epsilon, rp2_max - rp2_min)
    return {
        "A.2": a2,
        "A.3": a3,
        "A.4": a4,
        "A.5": a5,
        "A.6": a6,
        "A.7": a7,
        "A.3_identity": sp.simplify(a2.subs(E_rp2, E_r2 + epsilon) - a3),
        "A.7_minus_A.6": sp.simplify(a7 - a6),
    }
