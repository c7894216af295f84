"""privnb.bounds.amplification: Statement 1, Lemma 2, Corollary 4, Statement 14 of MZ09 in sympy."""

import math

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb import bounds
from privnb.bounds import (
    amplification_symbols,
    corollary4_ratio,
    lemma2_m1,
    lemma2_m2,
    lemma2_ratio,
    lemma2_ratio_alt,
    lemma2_ratio_value,
    max_gamma,
    max_gamma_expr,
    policy_ratio,
    statement14_condition,
    statement14_limit,
    statement14_min_r,
)

S = amplification_symbols()
g, C = S["gamma"], S["n_C"]


def test_lemma2_ratio_identities():
    assert sp.simplify(lemma2_m2 / lemma2_m1 - lemma2_ratio) == 0
    assert sp.simplify(lemma2_ratio - lemma2_ratio_alt) == 0
    assert sp.limit(lemma2_ratio, g, 1, "+") == 1


def test_lemma2_ratio_increases_with_gamma():
    derivative = sp.factor(sp.diff(lemma2_ratio, g))
    assert sp.simplify(derivative - (C - 1) * (g**2 + 2 * g * (C - 1) + 1) / (g + C - 1) ** 2) == 0
    assert all(derivative.subs({g: x, C: c}) > 0 for x in (1.01, 2, 50) for c in (2, 3, 7))


def test_max_gamma_solves_condition_7():
    for l1, l2, c in [(0.5, 0.6, 2), (0.51, 0.8, 2), (0.2, 0.5, 3), (0.1, 0.9, 5)]:
        gm = max_gamma(l1, l2, c)
        assert gm > 1
        assert lemma2_ratio_value(gm, c) == pytest.approx(float(policy_ratio.subs({S["L_1"]: l1, S["L_2"]: l2})))
    # two classes: gamma equals the policy ratio itself
    assert max_gamma(0.5, 0.6, 2) == pytest.approx(1.5)
    assert bounds.max_gamma is max_gamma
    for l1, l2 in [(sp.Rational(1, 5), sp.Rational(3, 5)), (sp.Rational(1, 2), sp.Rational(2, 3))]:
        point = {S["L_1"]: l1, S["L_2"]: l2}
        assert sp.simplify(max_gamma_expr.subs(C, 2).subs(point) - policy_ratio.subs(point)) == 0
        root = max_gamma_expr.subs(C, 4).subs(point)
        assert sp.simplify(lemma2_ratio.subs({g: root, C: 4}) - policy_ratio.subs(point)) == 0


@settings(max_examples=50, deadline=None)
@given(st.floats(0.01, 0.98), st.floats(0.01, 0.98), st.integers(2, 8))
def test_smaller_gamma_satisfies_condition_7(a, b, c):
    l1, l2 = sorted((a, b))
    if l2 - l1 < 1e-3:
        return
    gm = max_gamma(l1, l2, c)
    target = (l2 / l1) * (1 - l1) / (1 - l2)
    assert lemma2_ratio_value(1 + (gm - 1) * 0.99, c) < target


def test_corollary4_and_statement14():
    assert corollary4_ratio(8, 3) == pytest.approx(2.0)
    alpha = S["alpha"]
    log_rhs = sp.expand_log(sp.log(statement14_condition.rhs), force=True)
    limit = sp.limit(log_rhs, alpha, sp.oo)
    assert sp.simplify(limit - sp.expand_log(sp.log(statement14_limit.rhs), force=True)) == 0
    assert statement14_min_r(1, 2, 10, 1, 3) == 1.0
    # F~ = S_M^(log r / ((2n^2+3n) log(M/m))) at the returned r
    r = statement14_min_r(3, 1.5, 100, 1, 2)
    assert pytest.approx(1.5 ** (math.log(r) / (14 * math.log(100)))) == 3
    assert statement14_min_r(3, 1.5, 100, 1, 2, log=True) == pytest.approx(math.log(r))
    # Adult with the paper's own S_M = M1/M2 = 11970/8826 (Lemma 12), F~ = 3, M/m = 24720: ln r ~ 985
    assert statement14_min_r(3, 11970 / 8826, 24720, 1, 3) == math.inf
    assert statement14_min_r(3, 11970 / 8826, 24720, 1, 3, log=True) == pytest.approx(984.5, abs=1)


@pytest.mark.parametrize(
    "args, message",
    [
        ((0.6, 0.5, 2), "smaller than L2"),
        ((0.0, 0.5, 2), "strictly between"),
        ((0.5, 1.0, 2), "strictly between"),
        ((0.2, 0.5, 1), "n_classes"),
    ],
)
def test_bad_policy(args, message):
    with pytest.raises(ValueError, match=message):
        max_gamma(*args)


def test_bad_gamma():
    with pytest.raises(ValueError, match="gamma"):
        corollary4_ratio(1, 2)
