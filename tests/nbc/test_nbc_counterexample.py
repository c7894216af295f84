"""Corollary 4 of MZ09 does not imply condition (8): the smallest counterexample the seeded search finds,
as literals, checked with the exact audit, the rational chain and the enumeration of possible worlds."""

from fractions import Fraction

import pytest

from privnb.nbc import achieved_r, brute_force_posterior, corollary4_gamma, posterior, satisfies_corollary4
from privnb.nbc.counterexample import condition8_ratio, corollary4_counterexamples, two_attribute_views

# 12 rows, two attributes of two values, labels 0 and 1: P = (7, 5)
P, A, B = [7, 5], [[6, 2], [1, 3]], [[1, 3], [6, 2]]


def test_smallest_counterexample_meets_corollary4_yet_breaks_gamma():
    views = two_attribute_views(P, A, B)
    assert corollary4_gamma(views) == 9 and satisfies_corollary4(views, 9)  # every count ratio <= 9^(1/2) = 3
    # Bob knows <a1, b0>: the worlds hold 1 row of class 0 with a1 and 6 rows with b0, 3 and 3 of class 1
    exact = posterior(views, {"A": "a1", "B": "b0"})
    assert exact.tolist() == [Fraction(3, 56), Fraction(53, 56)]
    assert exact.equals(brute_force_posterior(views, {"A": "a1", "B": "b0"}))
    # posterior-to-prior ratio of label 0: (3/56) / (1/2) = 3/28 < 1/9, so r = 28/3 > gamma = 9
    assert achieved_r(views) == pytest.approx(28 / 3, rel=1e-12)
    # condition (8): P2(1) / P2(0) = 53/3 > 9
    assert condition8_ratio(views) == pytest.approx(53 / 3, rel=1e-12)


def test_a_six_row_view_set_already_breaks_condition8():
    views = two_attribute_views([3, 3], [[2, 1], [1, 2]], [[2, 1], [1, 2]])
    assert corollary4_gamma(views) == 4
    assert posterior(views, {"A": "a1", "B": "b1"}).tolist() == [Fraction(4, 27), Fraction(23, 27)]
    assert condition8_ratio(views) == pytest.approx(23 / 4) and achieved_r(views) == pytest.approx(27 / 8)


def test_search_is_seeded_and_finds_the_literal_case():
    found = corollary4_counterexamples(20_000, max_count=6, random_state=0)
    again = corollary4_counterexamples(20_000, max_count=6, random_state=0)
    assert found.equals(again)
    first = found.iloc[0]
    assert first.rows == 12 and (first.p, first.a, first.b) == (P, A, B)
    assert (found.r_audit > found.gamma).all() and (found.condition8 > found.gamma).all()
    assert found.rows.is_monotonic_increasing
    small = corollary4_counterexamples(20_000, max_count=6, criterion="condition8", max_audits=5, random_state=0)
    assert small.rows.iloc[0] == 6 and (small.condition8 > small.gamma).all()


def test_search_bad_input():
    with pytest.raises(ValueError, match="criterion"):
        corollary4_counterexamples(10, criterion="nope")
    with pytest.raises(ValueError, match="n_values"):
        corollary4_counterexamples(10, n_values=1)
