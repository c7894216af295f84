"""Theorem 4.1 of MC16 (Theorem A.1 of MC16a): the bound (4.6) and the algebra of its proof."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import privnb.bounds as bounds
from privnb.bounds import (
    rp2_range_from_data,
    second_term_share,
    theorem_4_1_bound,
    theorem_4_1_expr,
    theorem_4_1_proof_steps,
    theorem_4_1_terms,
    vc_bound_3_5,
)
from privnb.bounds import theorem_4_1_symbols as S


def test_exported_through_the_package():
    assert bounds.theorem_4_1_bound is theorem_4_1_bound
    assert not hasattr(bounds, "N")  # the bare symbols stay in the module


def test_bound_is_the_papers_formula_4_6():
    expected = 4 * sp.sqrt(((S.d + 2) * sp.log(S.N + 1) + sp.log(2)) / S.N) + (S.rp2_max - S.rp2_min) / S.N
    assert sp.simplify(theorem_4_1_expr - expected) == 0
    assert theorem_4_1_bound(S.N, S.d, S.rp2_min, S.rp2_max) == theorem_4_1_expr


def test_numeric_value_against_hand_computation():
    n, dim, lo, hi = 30000, 13, 2.0, 50.0
    by_hand = 4 * math.sqrt(((dim + 2) * math.log(n + 1) + math.log(2)) / n) + (hi - lo) / n
    assert theorem_4_1_bound(n, dim, lo, hi) == pytest.approx(by_hand, rel=1e-12)
    assert isinstance(theorem_4_1_bound(n, dim, lo, hi), float)


def test_partly_symbolic_arguments_give_an_expression():
    expr = theorem_4_1_bound(S.N, 13, 1, 3)
    assert expr.free_symbols == {S.N}
    assert float(expr.subs(S.N, 100)) == pytest.approx(theorem_4_1_bound(100, 13, 1, 3))


def test_limit_in_n_is_zero():
    assert sp.limit(theorem_4_1_expr, S.N, sp.oo) == 0
    assert sp.limit(vc_bound_3_5, S.N, sp.oo) == 0


def test_proof_algebra_a3_and_a7():
    steps = theorem_4_1_proof_steps()
    assert steps["A.3_identity"] == 0  # E[r^2 + eps] / N = E[r^2] / N + eps / N
    assert sp.simplify(steps["A.7"] - theorem_4_1_expr) == 0  # (A.7) is (4.6)
    # (A.6) grows with epsilon, so epsilon <= [r_p^2]max - [r_p^2]min gives (A.7) >= (A.6)
    assert sp.diff(steps["A.6"], S.epsilon) == 1 / S.N
    slack = steps["A.7_minus_A.6"]
    assert sp.simplify(slack - (S.rp2_max - S.rp2_min - S.epsilon) / S.N) == 0
    # (A.4) -> (A.5): subtracting inf R(f) from both sides
    assert sp.simplify(steps["A.4"] - S.inf_risk - steps["A.5"]) == 0


@given(n=st.integers(2, 10**7), dim=st.integers(1, 200), lo=st.floats(1e-3, 1e3), spread=st.floats(0, 1e4))
def test_terms_match_the_expression_and_share_is_a_fraction(n, dim, lo, spread):
    first, second = theorem_4_1_terms(n, dim, lo, lo + spread)
    assert first + second == pytest.approx(theorem_4_1_bound(n, dim, lo, lo + spread))
    assert 0 <= second_term_share(n, dim, lo, lo + spread) < 1


def test_second_term_share_falls_with_n():
    n = np.array([10, 100, 1000, 10**4, 10**5, 10**6])
    share = second_term_share(n, 13, 1.0, 500.0)
    assert np.all(np.diff(share) < 0)


def test_rp2_range_from_data():
    assert rp2_range_from_data(2.0, 8.0, 3.0) == (18.0, 72.0)


@pytest.mark.parametrize(
    "args, message",
    [
        ((0, 3, 1.0, 2.0), "N >= 1"),
        ((10, 3, 0.0, 2.0), "0 < \\[r_p\\^2\\]min"),
        ((10, 3, 3.0, 2.0), "rp2_max"),
    ],
)
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        theorem_4_1_bound(*args)


def test_bad_rp2_range():
    with pytest.raises(ValueError, match="r2_min"):
        rp2_range_from_data(0.0, 1.0, 1.0)
