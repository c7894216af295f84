"""The k-NN paper's theory in sympy (MC17, "Instance-Based Learning with l-diversity").

- :func:`beta` derives the constant of Theorem 18 (eq. 9 = eq. 23) from its parts: the Beta integral
  (18), the volume of a (d+1)-ball (16)-(17) and the Gamma-ratio approximation (20), assembled into
  (21)-(23); :func:`beta_stated` is the printed form.
- :func:`expected_rho_squared` lambdifies E{rho^2} (eq. 19, or its approximation 21) and
  :func:`simulate_rho_squared` measures it by a seeded Monte-Carlo nearest-neighbour simulation.
- :func:`knn_error_series` is eq. (2) with the summation limits read as (k+1)/2 (the printed ``k+1/2``),
  :func:`knn_majority_error` the exact binomial majority-vote error it must equal, and
  :func:`bayes_error_series` / :func:`catalan_sum` eq. (3); :func:`knn_error_chain` the chain (7).
- :class:`AnatomizedGaussians` is a synthetic model with known posteriors for Theorem 17.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd
import sympy as sp
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc

__all__ = [
    "AnatomizedGaussians",
    "bayes_error_series",
    "beta",
    "beta_derivation",
    "beta_stated",
    "catalan_sum",
    "convergence_term",
    "expected_rho_squared",
    "knn_error_chain",
    "knn_error_series",
    "knn_majority_error",
    "simulate_rho_squared",
]

_d = sp.Symbol("d", positive=True, integer=True)
_N = sp.Symbol("N_l", positive=True)  # N*l, the size of the (anatomized) training data
_u = sp.Symbol("u", positive=True)  # probability mass of the nearest-neighbour ball
_rho = sp.Symbol("rho", positive=True)  # distance to the nearest neighbour
_p = sp.Symbol("p", positive=True)  # density p(x) at the test point
_detA = sp.Symbol("detA", positive=True)  # |A| of the quadratic distance
_xi = sp.Symbol("xi", nonnegative=True)  # q1(x) q2(x)


def _as_dimension(d):
    if isinstance(d, sp.Basic):
        return d
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer or a sympy symbol, got {d!r}")
    return sp.Integer(int(d))


def beta_stated(d):
    """Equation (9) = (23) of MC17 as printed: Gamma((d+3)/2)^(2/(d+1)) Gamma(2/(d+1)+1) / (pi (d+1))."""
    d = _as_dimension(d)
    n = d + 1
    return sp.gamma((d + 3) / 2) ** (2 / n) * sp.gamma(2 / n + 1) / (sp.pi * n)


@cache
def beta_derivation():
    """Derive E{rho^2} and beta of Theorem 18 (MC17) step by step, for a symbolic dimension d.

    Returns a dict of sympy expressions (symbols ``d``, ``N_l``, ``u``, ``rho``, ``p``, ``detA``):

    - ``"u_of_rho"`` (16): probability mass of the ball of radius rho in d+1 dimensions,
      u = p pi^((d+1)/2) / Gamma((d+3)/2) rho^(d+1) |A|^(1/2);
    - ``"rho2_of_u"`` (17): rho^2 solved from (16);
    - ``"E_u"`` (18): E{u^(2/(d+1))} = N_l * Beta(2/(d+1)+1, N_l), u being the mass of the nearest
      neighbour's ball (u ~ Beta(1, N_l)), written with Gamma functions;
    - ``"E_rho2"`` (19): exact; ``"gamma_ratio"`` (20): Gamma(N_l+1)/Gamma(N_l+2/(d+1)+1) * N_l^(2/(d+1)),
      whose limit (``"gamma_ratio_limit"``) is 1; ``"E_rho2_approx"`` (21);
    - ``"beta"`` (23): the coefficient of N_l^(-2/(d+1)) |A|^(-1/(d+1)) p^(-2/(d+1)) in E{rho^2}/(d+1),
      the factor 1/(d+1) coming from step (15).
    """
    n = _d + 1
    a = 2 / n
    u_of_rho = _p * sp.pi ** (n / 2) / sp.gamma((_d + 3) / 2) * _rho**n * sp.sqrt(_detA)
    rho_n = _u / (u_of_rho / _rho**n)  # (16) solved for rho^(d+1)
    rho2_of_u = _tidy(sp.powdenest(sp.expand_power_base(rho_n**a, force=True), force=True))
    # (18): the Beta integral N_l * int_0^1 u^a (1-u)^(N_l-1) du = N_l * B(a+1, N_l)
    e_u = sp.gammasimp(_N * sp.expand_func(sp.beta(a + 1, _N)))
    coeff = rho2_of_u / _u**a
    e_rho2 = coeff * e_u
    gamma_ratio = sp.gamma(_N + 1) / sp.gamma(_N + a + 1) * _N**a
    e_rho2_approx = sp.gammasimp(e_rho2 / gamma_ratio)  # (21): the ratio of (20) replaced by its limit 1
    beta_expr = sp.powsimp(
        sp.expand_power_base(e_rho2_approx / n * _N**a * _detA ** (1 / n) * _p**a, force=True), force=True
    )
    return {
        "u_of_rho": u_of_rho,
        "rho2_of_u": rho2_of_u,
        "E_u": e_u,
        "E_rho2": e_rho2,
        "gamma_ratio": gamma_ratio,
        "E_rho2_approx": e_rho2_approx,
        "beta": beta_expr,
    }


def _tidy(expr):
    """Cancel symbolic exponents, e.g. pi**(2*(-d/2 - 1/2)/(d + 1)) -> 1/pi."""
    return expr.replace(lambda e: e.is_Pow and not e.exp.is_Number, lambda e: sp.Pow(e.base, sp.cancel(e.exp)))


def beta(d):
    """The constant beta of Theorem 18 (eq. 9 and 23 of MC17), derived by :func:`beta_derivation`.

    Parameters
    ----------
    d : int or sympy.Symbol
        Number of identifying attributes (the data lives in d+1 dimensions).

    Returns
    -------
    sympy.Expr
        Exact expression; ``float(beta(2))`` gives the number.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Instance-Based Learning with l-diversity", Transactions on
       Data Privacy 10, 2017 (MC17).
    """
    d = _as_dimension(d)
    return beta_derivation()["beta"].subs(_d, d)


def expected_rho_squared(d, n_train, *, density=1.0, det_a=1.0, exact=True):
    """E{rho^2}, the mean squared nearest-neighbour distance of Theorem 18 (MC17), numerically.

    ``exact=True`` lambdifies eq. (19) (with log-Gamma, safe for large ``n_train``), ``False`` the
    approximation (21). ``n_train`` is N*l for the anatomized data, N for the original; arrays broadcast.

    Parameters
    ----------
    d : int or array
        Number of attributes besides the sensitive one (the data live in R^(d+1)).
    n_train : int or array
        Training rows: N*l for the anatomized data, N for the original.
    density : float
        The density of the points at the query (1 for the unit cube).
    det_a : float
        det(A) of the metric (1 for the identity).
    exact : bool
        Eq. (19) when True, the approximation (21) when False.

    Returns
    -------
    float or ndarray
        E{rho^2}, broadcast over the arguments.
    """
    d = int(_as_dimension(d))
    step = beta_derivation()
    expr = step["E_rho2"] if exact else step["E_rho2_approx"]
    expr = sp.expand_log(sp.log(expr.subs(_d, d)), force=True)
    expr = expr.replace(
        lambda e: isinstance(e, sp.log) and isinstance(e.args[0], sp.gamma), lambda e: sp.loggamma(e.args[0].args[0])
    )
    fn = sp.lambdify((_N, _p, _detA), expr, modules=["scipy", "numpy"])
    n_train = np.asarray(n_train, dtype=float)
    if np.any(n_train < 1):
        raise ValueError("n_train must be at least 1 (the number of training rows)")
    return np.exp(fn(n_train, float(density), float(det_a)))


@shared_doc
def simulate_rho_squared(d, n_train, *, n_repeats=2000, random_state=None):
    """Monte-Carlo E{rho^2}: squared distance from the centre of the unit cube [-1/2, 1/2]^(d+1) to the
    nearest of ``n_train`` uniform points (density 1, A = I), averaged over ``n_repeats`` draws.

    Returns ``(mean, standard_error)``. Eq. (19) is exact here as long as the ball stays in the cube.

    Parameters
    ----------
    d : int
        Number of attributes besides the sensitive one.
    n_train : int
        Number of uniform training points.
    n_repeats : int
        Monte-Carlo draws.
    random_state : int, RandomState or None
        Seeds the draws.
        {random_state}
    """
    d = int(_as_dimension(d))
    rng = check_random_state(random_state)
    best = np.full(n_repeats, np.inf)
    block = max(1, 2_000_000 // (n_train * (d + 1)))
    for start in range(0, n_repeats, block):
        stop = min(n_repeats, start + block)
        pts = rng.uniform(-0.5, 0.5, size=(stop - start, n_train, d + 1))
        best[start:stop] = np.einsum("rnj,rnj->rn", pts, pts).min(axis=1)
    return best.mean(), best.std(ddof=1) / np.sqrt(n_repeats)


def convergence_term(d, n_train):
    """beta(d) * n_train^(-2/(d+1)): the finite-sample term of eq. (8) (MC17) without E_X{...}.

    Pass N*l for the anatomized 1-NN and N for the original (Theorem 18: O((N l)^(-2/(d+1)))).

    Parameters
    ----------
    d : int or array
        Number of attributes besides the sensitive one.
    n_train : int or array
        Training rows (N*l anatomized, N original).

    Returns
    -------
    float or ndarray
    """
    n_train = np.asarray(n_train, dtype=float)
    d_int = int(_as_dimension(d))
    return float(beta(d_int)) * n_train ** (-2.0 / (d_int + 1))


def _check_k(k):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1 or k % 2 == 0:
        raise ValueError(f"k must be a positive odd integer (Section 3 of MC17 assumes odd k), got {k!r}")
    return int(k)


def knn_error_series(k, xi=_xi, *, upper=None):
    """Eq. (2) of MC17: the asymptotic k-NN error R^k(x) as a polynomial in xi = q1(x) q2(x).

    R^k = sum_{i=1}^{(k+1)/2} (1/i) C(2i-2, i-1) xi^i + (1/2) C(k+1, (k+1)/2) xi^((k+1)/2).
    The printed limits ``k+1/2`` read as (k+1)/2: with that reading the series equals the exact
    majority-vote error :func:`knn_majority_error` for every odd k (the reading (k-1)/2 misses the term
    (1/m) C(2m-2, m-1) xi^m, m = (k+1)/2). ``upper`` overrides the sum's upper limit, to show that.

    Parameters
    ----------
    k : int
        The (odd) number of neighbours.
    xi : sympy.Symbol
        The symbol for q1(x) q2(x).
    upper : sympy expression, optional
        The sum's upper limit instead of (k+1)/2.

    Returns
    -------
    sympy expression
    """
    k = _check_k(k)
    m = (k + 1) // 2
    top = m if upper is None else int(upper)
    head = sum((sp.Rational(1, i) * sp.binomial(2 * i - 2, i - 1) * xi**i for i in range(1, top + 1)), sp.Integer(0))
    return head + sp.Rational(1, 2) * sp.binomial(k + 1, m) * xi**m


def knn_majority_error(k, q=None):
    """Exact asymptotic error of the k-NN majority vote when all k neighbours sit at x (MC17, eq. 2's
    setting): the test label is class 1 w.p. q and each neighbour's label independently so; the error is
    q P(Bin(k, 1-q) > k/2) + (1-q) P(Bin(k, q) > k/2). A sympy polynomial in ``q`` (odd k: no ties).

    Parameters
    ----------
    k : int
        The (odd) number of neighbours.
    q : sympy.Symbol, optional
        The symbol for the probability of class 1 at x.

    Returns
    -------
    sympy expression
    """
    k = _check_k(k)
    q = sp.Symbol("q", nonnegative=True) if q is None else q

    def majority(p):
        return sum(sp.binomial(k, j) * p**j * (1 - p) ** (k - j) for j in range(k // 2 + 1, k + 1))

    return sp.expand(q * majority(1 - q) + (1 - q) * majority(q))


def bayes_error_series(n_terms, xi=_xi):
    """Partial sum of eq. (3) of MC17: sum_{i=1}^{n_terms} (1/i) C(2i-2, i-1) xi^i -> min(q1, q2).

    Parameters
    ----------
    n_terms : int
        Number of terms of the partial sum.
    xi : sympy.Symbol
        The symbol for q1(x) q2(x).

    Returns
    -------
    sympy expression
    """
    if not isinstance(n_terms, (int, np.integer)) or n_terms < 1:
        raise ValueError(f"n_terms must be a positive integer, got {n_terms!r}")
    return sum(
        (sp.Rational(1, i) * sp.binomial(2 * i - 2, i - 1) * xi**i for i in range(1, n_terms + 1)), sp.Integer(0)
    )


def catalan_sum():
    """The infinite series of eq. (3) summed by sympy: sum_{i>=1} (1/i) C(2i-2, i-1) xi^i.

    (1/i) C(2i-2, i-1) is the Catalan number C_{i-1}, so the sum is xi * C(xi) = (1 - sqrt(1 - 4 xi)) / 2
    for xi <= 1/4, and with xi = q (1-q) that is (1 - |1 - 2q|) / 2 = min(q, 1-q) = R*(x).
    Returns the closed form (sympy picks the branch xi <= 1/4, which always holds for xi = q1 q2).
    """
    i = sp.Symbol("i", integer=True, positive=True)
    total = sp.summation(sp.binomial(2 * i - 2, i - 1) / i * _xi**i, (i, 1, sp.oo))
    if isinstance(total, sp.Piecewise):
        total = total.args[0][0]
    return sp.simplify(total)


def knn_error_chain(q, ks=(1, 3, 5, 7, 9)):
    """The chain (7) of MC17 pointwise: R*(x) <= ... <= R^5(x) <= R^3(x) <= R(x) <= 2 R*(x).

    Parameters
    ----------
    q : array-like
        Posterior q1(x) values in [0, 1].
    ks : sequence of odd int
        The k of the k-NN errors in the chain.

    Returns
    -------
    pandas.DataFrame
        Columns ``q``, ``bayes``, ``R1``, ``R3``, ..., ``2bayes``; (7) says that in every row
        ``bayes <= R_{largest k} <= ... <= R3 <= R1 <= 2bayes``.
    """
    q = np.asarray(q, dtype=float)
    if np.any((q < 0) | (q > 1)):
        raise ValueError("q must lie in [0, 1] (a posterior probability)")
    xi = q * (1 - q)
    out = {"q": q, "bayes": np.minimum(q, 1 - q)}
    for k in sorted(ks):
        out[f"R{k}"] = sp.lambdify(_xi, knn_error_series(k), "numpy")(xi) * np.ones_like(q)
    out["2bayes"] = 2 * out["bayes"]
    return pd.DataFrame(out)


@dataclass(frozen=True)
class AnatomizedGaussians:
    """Synthetic data with known posteriors for Theorem 17 of MC17.

    Class c in {0, 1} with priors ``priors``; identifying attribute a | c ~ N(c * delta, 1); sensitive
    s in {0..m-1} with P(s | c) = ``p_s_given_c[c]``. Anatomization (groups of l with l distinct
    sensitive values, Definition 11-12) is modelled by its law: each individual's row appears with its own
    s and with l-1 further values drawn uniformly without replacement from the other m-1 values (what
    Xiao-Tao's bucketization gives when s is marginally uniform). Hence
    P_A(a, s, c) = P(a, c) [P(s|c)/l + (l-1)(1-P(s|c))/(l(m-1))], and the posteriors q_A are exact.
    The nearest-neighbour features are (a, ``s_scale`` * s), so that neighbours match s as N grows.
    """

    delta: float = 1.0
    priors: tuple = (0.5, 0.5)
    p_s_given_c: tuple = ((0.4, 0.3, 0.2, 0.1), (0.1, 0.2, 0.3, 0.4))
    l: int = 2
    s_scale: float = 10.0

    def __post_init__(self):
        ps = np.asarray(self.p_s_given_c, dtype=float)
        if ps.ndim != 2 or ps.shape[0] != 2 or not np.allclose(ps.sum(axis=1), 1):
            raise ValueError("p_s_given_c must be two rows (one per class) of probabilities summing to 1")
        if not 2 <= self.l <= ps.shape[1]:
            raise ValueError(f"l must lie in 2..{ps.shape[1]} (the sensitive domain size), got {self.l}")

    @property
    def m(self):
        return len(self.p_s_given_c[0])

    def _weights(self, anatomized):
        ps = np.asarray(self.p_s_given_c, dtype=float)
        if not anatomized:
            return ps
        l, m = self.l, self.m
        return ps / l + (l - 1) * (1 - ps) / (l * (m - 1))

    def _joint(self, a, s, anatomized):
        """pi_c phi(a - c delta) w_c(s), shape (n, 2)."""
        a = np.asarray(a, dtype=float)
        s = np.asarray(s, dtype=int)
        w = self._weights(anatomized)
        dens = np.exp(-0.5 * (a[:, None] - self.delta * np.arange(2)) ** 2) / np.sqrt(2 * np.pi)
        return np.asarray(self.priors) * dens * w[:, s].T

    def posterior(self, a, s, *, anatomized=False):
        """q_c(x) (or q_{A_c}(x)), shape (n, 2).

        Parameters
        ----------
        a : ndarray
            The non-sensitive attribute of each row.
        s : ndarray
            The sensitive attribute of each row.
        anatomized : bool
            q_{A_c}(x) of the anatomized data instead of q_c(x).
        """
        joint = self._joint(a, s, anatomized)
        return joint / joint.sum(axis=1, keepdims=True)

    @shared_doc
    def sample(self, n, *, random_state=None):
        """n raw rows: (features (n, 2), y (n,), a, s).

        Parameters
        ----------
        n : int
            Number of rows.
        random_state : int, RandomState or None
            Seeds the draw.
            {random_state}
        """
        rng = check_random_state(random_state)
        y = (rng.random_sample(n) < self.priors[1]).astype(int)
        a = rng.standard_normal(n) + self.delta * y
        cum = np.cumsum(np.asarray(self.p_s_given_c, dtype=float)[y], axis=1)
        s = (rng.random_sample(n)[:, None] > cum).sum(axis=1)
        return self.features(a, s), y, a, s

    def features(self, a, s):
        """The two features of rows: ``a``, and ``s`` scaled by ``s_scale``.

        Parameters
        ----------
        a : ndarray
            The non-sensitive attribute.
        s : ndarray
            The sensitive attribute.
        """
        return np.column_stack([np.asarray(a, dtype=float), self.s_scale * np.asarray(s, dtype=float)])

    @shared_doc
    def sample_anatomized(self, n, *, random_state=None):
        """D_A of n individuals (n*l rows): features (n*l, 2), y (n*l,), individual ids (n*l,).

        Parameters
        ----------
        n : int
            Number of individuals.
        random_state : int, RandomState or None
            Seeds the draw and the grouping.
            {random_state}
        """
        rng = check_random_state(random_state)
        _, y, a, s = self.sample(n, random_state=rng)
        keys = rng.random_sample((n, self.m))
        keys[np.arange(n), s] = -1.0  # own value first, then l-1 random others
        values = np.argsort(keys, axis=1)[:, : self.l]
        rows = np.repeat(np.arange(n), self.l)
        return self.features(a[rows], values.ravel()), y[rows], rows

    def errors(self, n_grid=20001):
        """Bayes and asymptotic 1-NN errors by quadrature over a (exact up to the grid).

        Keys: ``bayes`` R*, ``nn`` R = E{2 q1 q2} (original 1-NN limit), ``bayes_A`` R*_A and ``nn_A``
        R_A = E_A{2 q_A1 q_A2} (test x distributed as D_A, the setting of Theorem 17 and eq. 6), and
        ``nn_A_raw`` E{q1 q_A2 + q2 q_A1}: the anatomized 1-NN limit on raw test rows.
        """
        a = np.linspace(-10.0, 10.0 + self.delta, n_grid)
        out = dict.fromkeys(["bayes", "nn", "bayes_A", "nn_A", "nn_A_raw"], 0.0)
        for s in range(self.m):
            ss = np.full(n_grid, s)
            joint = self._joint(a, ss, False)
            joint_a = self._joint(a, ss, True)
            q = joint / joint.sum(axis=1, keepdims=True)
            q_a = joint_a / joint_a.sum(axis=1, keepdims=True)
            terms = {
                "bayes": joint.min(axis=1),
                "nn": 2 * joint.sum(axis=1) * q[:, 0] * q[:, 1],
                "bayes_A": joint_a.min(axis=1),
                "nn_A": 2 * joint_a.sum(axis=1) * q_a[:, 0] * q_a[:, 1],
                "nn_A_raw": joint[:, 0] * q_a[:, 1] + joint[:, 1] * q_a[:, 0],
            }
            for key, val in terms.items():
                out[key] += float(np.trapezoid(val, a))
        return out
