"""privnb.bounds.knn: the k-NN paper's algebra (MC17) against sympy, brute force and simulation."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.bounds import (
    AnatomizedGaussians,
    bayes_error_series,
    beta,
    beta_derivation,
    beta_stated,
    catalan_sum,
    convergence_term,
    expected_rho_squared,
    knn_error_chain,
    knn_error_series,
    knn_majority_error,
    simulate_rho_squared,
)
from privnb.bounds import knn as kb

q = sp.Symbol("q", nonnegative=True)
d = sp.Symbol("d", positive=True, integer=True)


def test_beta_derived_equals_stated_symbolically():
    assert sp.gammasimp(beta(d) / beta_stated(d)) == 1


@pytest.mark.parametrize("dim", [1, 2, 3, 5, 10])
def test_beta_integer_dimensions(dim):
    assert float(beta(dim)) == pytest.approx(float(beta_stated(dim)), rel=1e-14)


def test_beta_one_dimension_is_one_over_two_pi():
    # d = 1: Gamma(2)^1 Gamma(2) / (2 pi)
    assert sp.simplify(beta(1) - 1 / (2 * sp.pi)) == 0


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_beta_rejects_bad_dimension(bad):
    with pytest.raises(ValueError, match="positive integer"):
        beta(bad)


def test_derivation_parts():
    steps = beta_derivation()
    u, rho, _p, _det_a, n_l = (sp.Symbol(s, positive=True) for s in ("u", "rho", "p", "detA", "N_l"))
    # (17) inverts (16): substituting u(rho) gives back rho^2
    back = steps["rho2_of_u"].subs(u, steps["u_of_rho"]).subs(d, 3)
    assert sp.simplify(back - rho**2) == 0
    # (18) at concrete values against sympy's integral
    n_val, m_val = 3, 6
    integral = m_val * sp.integrate(u ** sp.Rational(2, n_val) * (1 - u) ** (m_val - 1), (u, 0, 1))
    assert sp.nsimplify(steps["E_u"].subs({d: n_val - 1, n_l: m_val}) - integral).equals(0)
    # (20): the Gamma ratio tends to 1 (d = 1: it is N_l / (N_l + 1))
    assert sp.limit(sp.gammasimp(steps["gamma_ratio"].subs(d, 1)), n_l, sp.oo) == 1


@pytest.mark.parametrize("n_train", [10, 1000, 10**6])
def test_gamma_ratio_numerically_tends_to_one(n_train):
    exact = expected_rho_squared(3, n_train)
    approx = expected_rho_squared(3, n_train, exact=False)
    assert abs(exact / approx - 1) < 2.0 / n_train


@pytest.mark.parametrize("dim,n_train", [(1, 200), (2, 500), (4, 2000)])
def test_expected_rho_squared_matches_monte_carlo(dim, n_train):
    mean, se = simulate_rho_squared(dim, n_train, n_repeats=1500, random_state=dim)
    assert abs(mean - expected_rho_squared(dim, n_train)) < 4 * se


def test_convergence_term_anatomized_faster():
    n = np.array([100, 1000, 10000])
    assert np.all(convergence_term(2, 3 * n) < convergence_term(2, n))
    assert convergence_term(2, n)[0] == pytest.approx(float(beta(2)) * 100 ** (-2 / 3))


@pytest.mark.parametrize("k", [1, 3, 5, 7, 9])
def test_eq2_with_limits_k_plus_1_over_2_is_the_majority_error(k):
    series = knn_error_series(k, q * (1 - q))
    assert sp.expand(series - knn_majority_error(k, q)) == 0
    wrong = knn_error_series(k, q * (1 - q), upper=(k - 1) // 2)
    assert sp.expand(wrong - knn_majority_error(k, q)) != 0


def test_small_cases_by_hand():
    xi = sp.Symbol("xi")
    assert sp.expand(knn_error_series(1, xi)) == 2 * xi  # Cover-Hart: R(x) = 2 q1 q2
    assert sp.expand(knn_error_series(3, xi)) == xi + 4 * xi**2


@pytest.mark.parametrize("k", [0, 2, 4, -1])
def test_even_or_nonpositive_k_rejected(k):
    with pytest.raises(ValueError, match="odd"):
        knn_error_series(k)


def test_catalan_generating_function_is_min():
    closed = catalan_sum()
    xi = sp.Symbol("xi", nonnegative=True)
    assert sp.simplify(closed - (1 - sp.sqrt(1 - 4 * xi)) / 2) == 0
    for value in [sp.Rational(1, 10), sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(4, 5)]:
        assert sp.simplify(closed.subs(xi, value * (1 - value)) - sp.Min(value, 1 - value)) == 0
    # partial sums of (3) increase towards min(q1, q2)
    partial = [float(bayes_error_series(n).subs(sp.Symbol("xi", nonnegative=True), 0.21)) for n in (1, 5, 40)]
    assert partial[0] < partial[1] < partial[2] <= 0.3 + 1e-12


@given(st.lists(st.floats(0, 1), min_size=1, max_size=20))
@settings(max_examples=30, deadline=None)
def test_chain_7_holds_pointwise(values):
    chain = knn_error_chain(values)
    cols = ["bayes", "R9", "R7", "R5", "R3", "R1", "2bayes"]
    arr = chain[cols].to_numpy()
    assert np.all(np.diff(arr, axis=1) >= -1e-12)


def test_chain_rejects_non_probabilities():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        knn_error_chain([1.5])


def test_anatomized_gaussians_model():
    model = AnatomizedGaussians(l=2)
    errors = model.errors()
    # Cover-Hart on the original and on the anatomized distribution
    assert errors["bayes"] <= errors["nn"] <= 2 * errors["bayes"]
    assert errors["bayes_A"] <= errors["nn_A"] <= 2 * errors["bayes_A"]
    # anatomization blurs the sensitive attribute: the Bayes error can only grow
    assert errors["bayes_A"] >= errors["bayes"]
    full = AnatomizedGaussians(l=4)  # l = m: s carries no information in D_A
    a = np.linspace(-2, 3, 7)
    qa = [full.posterior(a, np.full(7, s), anatomized=True) for s in range(4)]
    assert all(np.allclose(qa[0], other) for other in qa[1:])


def test_anatomized_sample_law():
    model = AnatomizedGaussians(l=3)
    X, y, owner = model.sample_anatomized(4000, random_state=0)
    assert len(X) == 3 * 4000 and np.all(np.bincount(owner) == 3)
    s = (X[:, 1] / model.s_scale).round().astype(int).reshape(-1, 3)
    assert np.all(np.sort(s, axis=1)[:, 1:] != np.sort(s, axis=1)[:, :-1])  # l distinct values
    # empirical P_A(s | c) against the model's weights
    weights = model._weights(True)
    for c in (0, 1):
        freq = np.bincount(s.ravel()[y == c], minlength=4) / (y == c).sum()
        assert np.allclose(freq, weights[c], atol=0.02)


def test_theorem_17_on_synthetic_data():
    """Anatomized 1-NN error (test rows drawn like D_A) lies in [R*_A, 2 R*_A] for large N."""
    from sklearn.neighbors import KNeighborsClassifier

    model = AnatomizedGaussians(l=2)
    errors = model.errors()
    X, y, _ = model.sample_anatomized(3000, random_state=1)
    Xt, yt, _ = model.sample_anatomized(3000, random_state=2)
    pick = np.arange(0, len(Xt), 2)
    err = np.mean(KNeighborsClassifier(1).fit(X, y).predict(Xt[pick]) != yt[pick])
    assert errors["bayes_A"] - 0.03 <= err <= 2 * errors["bayes_A"] + 0.03
    assert err == pytest.approx(errors["nn_A"], abs=0.04)


def test_model_rejects_bad_parameters():
    with pytest.raises(ValueError, match="l must lie"):
        AnatomizedGaussians(l=5)
    with pytest.raises(ValueError, match="sum"):
        AnatomizedGaussians(p_s_given_c=((0.5, 0.6), (0.5, 0.5)))


def test_all_names_exported():
    assert set(kb.__all__) <= set(dir(__import__("privnb.bounds", fromlist=["*"])))
