"""privnb.nbc SafetyTransform (Figures 2-5) and EST (Figure 7) of MZ09."""

import re
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_nbc import figure1, random_frames

from privnb.nbc import (
    NBCViews,
    SafetyTransform,
    corollary4_gamma,
    est,
    k_sind,
    nbc_equivalent,
    prior_r_lower_bound,
    safety_transform,
    satisfies_corollary4,
    synthetic_database,
)
from privnb.nbc._roots import RootPlan, rounded_roots
from privnb.nbc.est_release import merge, resolve_ties, split, winning_labels
from privnb.nbc.safety import step1_remove_zeros, step2_roots, step3_restore_totals, step4_integers
from privnb.nbc.views import score_signs

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def views_of(frame):
    return NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")


@pytest.fixture(scope="module")
def va():
    return NBCViews.from_frame(figure1()[0], ["Adr", "Age"], "Sal")


@SETTINGS
@given(random_frames(), st.sampled_from([Fraction(11, 10), 2, 30]), st.integers(0, 2**16))
def test_each_step_is_nbc_equivalent_and_the_output_meets_corollary_4(frame, gamma, seed):
    views = views_of(frame)
    fitted = SafetyTransform(gamma, random_state=seed).fit(views)
    steps = fitted.steps_
    assert not any(v == 0 for v in steps["step1"].all_counts())
    for before, after in [("input", "step1"), ("step1", "step2"), ("step2", "step3"), ("step3", "step4")]:
        assert nbc_equivalent(steps[before], steps[after]), after
    assert nbc_equivalent(steps["step2"], steps["step3"], ties="strict")  # Statement 9b: same scores
    assert nbc_equivalent(steps["step3"], steps["step4"], ties="strict")
    out = fitted.views_
    assert out.is_integral() and out.is_realistic()
    assert satisfies_corollary4(out, gamma) and fitted.achieved_gamma_ <= gamma
    assert k_sind(fitted) == k_sind(views) == min(views.class_counts)  # Lemma 10: the input's P_c


def test_k_sind_is_the_smallest_class_count_of_the_input_on_figure_1(va):
    """Lemma 10 on Figure 1(a): the SIND classes are the 5 tuples earning 70K and the 2 earning 50K: k = 2.
    The published counts (Step 4) are far larger; they were what k_sind used to report."""
    fitted = SafetyTransform(2, random_state=0).fit(va)
    assert k_sind(va) == 2 and k_sind(fitted) == 2
    assert min(fitted.views_.class_counts) > 10**6  # not a count of tuples of the original table
    with pytest.raises(ValueError, match="fitted SafetyTransform"):
        k_sind(va.class_counts)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 10**40),
    st.integers(1, 10**40),
    st.integers(1, 40),
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(1, 120),
)
def test_root_bounds_bracket_the_exact_root(numerator, denominator, k, power, divisor, bits):
    # exact reference: low^k <= (v^power / divisor) <= high^k in rationals, and the bracket is tight
    low, high = (Fraction(b) for b in RootPlan.make(k, power, bits).bounds(numerator, denominator, divisor))
    x = Fraction(numerator, denominator) ** power / divisor
    assert low > 0 and low**k <= x <= high**k
    assert high - low <= low / 2 ** (bits + 5)


@SETTINGS
@given(random_frames(), st.integers(1, 6), st.integers(1, 2), st.integers(1, 60), st.integers(0, 2**16))
def test_step2_rounds_each_root_into_its_class_window(frame, k, power, bits, seed):
    # Statement 7, exactly: with x = (count^power / F_c)^(1/k), rho = 1 + 2^-bits and j = rank(c),
    # rho^j x <= N < rho^(j+1/2) x and rho^-(j+1/2) x < P <= rho^-j x, compared as k-th (and 2k-th) powers
    views = step1_remove_zeros(views_of(frame), random_state=seed)
    divisors = [1 + (seed + c) % 3 for c in range(len(views.labels))]
    p, tables, shift = rounded_roots(views, k, bits, power=power, divisors=divisors)
    rho = 1 + Fraction(1, 2**bits)

    def ratio(rounded, count, c):  # (rounded / x)^k
        return Fraction(rounded, 2**shift) ** k * divisors[c] / Fraction(count) ** power

    for c, (count, rounded) in enumerate(zip(views.class_counts, p)):
        r = ratio(rounded, count, c)
        assert rho ** -((2 * c + 1) * k) < r**2 and r <= rho ** (-c * k)
    for attribute, table in zip(views.attributes, tables):
        for counts, row in zip(views.counts[attribute].to_numpy().tolist(), table):
            for c, (count, rounded) in enumerate(zip(counts, row)):
                r = ratio(rounded, count, c)
                assert rho ** (c * k) <= r and r**2 < rho ** ((2 * c + 1) * k)


def test_steps_one_by_one_on_figure_1(va):
    s1 = step1_remove_zeros(va, random_state=0)
    assert s1 == va  # no zeros: Step 1 is the identity
    s2 = step2_roots(s1, 4)
    s3 = step3_restore_totals(s2)
    assert not s2.is_realistic() and s3.is_realistic()
    s4 = step4_integers(s3)
    assert s4.is_integral() and nbc_equivalent(va, s4)
    assert satisfies_corollary4(s4, 4)


def test_step1_keeps_orders_with_zeros():
    frame = pd.DataFrame({"a": [0, 0, 1, 2, 2], "b": [0, 1, 1, 0, 1], "y": [0, 0, 1, 1, 1]})
    views = views_of(frame)
    s1 = step1_remove_zeros(views, random_state=1)
    assert min(s1.all_counts()) > 0 and nbc_equivalent(views, s1)


def test_corollary4_gamma_and_zeros(va):
    # ratios 5/2, 4/1, 1/1, 4/1, 1/1 -> (4)^2 = 16
    assert corollary4_gamma(va) == 16
    frame = pd.DataFrame({"a": [0, 1, 1], "y": [0, 0, 1]})
    with pytest.raises(ValueError, match="zero count"):
        corollary4_gamma(views_of(frame))
    assert corollary4_gamma(views_of(frame), zeros="skip") == 2


def test_synthetic_database_has_exactly_the_views(va):
    table = synthetic_database(va, target="Sal", random_state=0)
    assert NBCViews.from_frame(table, ["Adr", "Age"], "Sal") == va
    with pytest.raises(ValueError, match="max_rows"):
        synthetic_database(safety_transform(va, 2, random_state=0), max_rows=1000)


def test_split_and_merge_are_inverse_for_identical_sub_labels(va):
    halves = split(va, {"50K": 1, "70K": 2})
    assert len(halves.labels) == 3
    assert merge(halves, va.labels) == va.with_counts(
        [Fraction(v) for v in va.class_counts], [f.to_numpy() for f in va.counts.values()]
    )


def test_resolve_ties_breaks_every_tie_towards_the_larger_label():
    frame = pd.DataFrame({"a": [0, 1, 0, 1], "y": [0, 0, 1, 1]})
    views = views_of(frame)
    assert (score_signs(views) == 0).all()
    resolved = resolve_ties(views)
    assert (score_signs(resolved) < 0).all() and nbc_equivalent(views, resolved)


def test_est_with_a_uniform_prior_is_safety_transform(va):
    result = est(va, {"50K": 0.5, "70K": 0.5}, 1.5, random_state=0)
    assert result.success and nbc_equivalent(va, result.views)
    assert 1 <= result.achieved_r <= 1.5


@SETTINGS
@given(
    random_frames(max_rows=8, max_attributes=2, max_values=2, max_classes=2),
    st.sampled_from([(1, 2), (1, 3), (2, 3)]),
    st.sampled_from([1.3, 10.0, 1e6]),
)
def test_est_never_returns_a_different_classifier(frame, weights, r):
    views = views_of(frame)
    assume(len(views.labels) == 2)
    prior = dict(zip(views.labels, [Fraction(w, sum(weights)) for w in weights]))
    result = est(views, prior, r, random_state=0)
    if result.success:
        assert nbc_equivalent(views, result.views) and result.views.is_integral()
        assert result.achieved_r >= result.r_lower_bound * (1 - 1e-9)  # the bound holds, audited exactly
    else:
        assert result.reason and result.views is None


def test_est_succeeds_when_the_score_gaps_allow_merging():
    frame = pd.DataFrame({"a": [0] * 6 + [1] + [0] + [1] * 6, "y": [0] * 7 + [1] * 7})
    views = views_of(frame)
    prior = {0: Fraction(1, 3), 1: Fraction(2, 3)}
    assert not est(views, prior, 2)  # Statement 14: r too small for F~ = 2
    result = est(views, prior, 100, random_state=0)
    assert result.success and result.multiples == {0: 1, 1: 2}
    assert nbc_equivalent(views, result.views) and result.views.is_integral() and result.views.is_realistic()
    assert 1 <= result.achieved_r <= 100


def test_est_fails_with_a_reason_on_figure_1(va):
    prior = {"50K": 0.25, "70K": 0.75}
    assert winning_labels(va).tolist() == [1, 3]  # 50K wins <P, 30> only
    assert prior_r_lower_bound(va, prior) == 2  # its posterior >= 1/2 against a prior of 1/4
    result = est(va, prior, 1.3)
    assert not result and "r >= 2" in result.reason and result.r_lower_bound == 2
    assert not est(va, prior, 2.5)  # above the bound: Split/merging cannot keep the classifier


def test_est_fails_with_a_reason_when_split_needs_too_high_a_power():
    """Scores a factor 1 + 1e-20 apart: float logs of numerator and denominator cancel to 0 there."""
    big = 10**20
    views = NBCViews(
        {0: 2 * big + 1, 1: 2 * big + 1}, {"a": pd.DataFrame({0: [big + 1, big], 1: [big, big + 1]}, index=["x", "z"])}
    )
    result = est(views, {0: Fraction(1, 3), 1: Fraction(2, 3)}, 1e6, random_state=0)
    assert not result and re.search(
        r"above max_power=10000000: the smallest score ratio is 1 \+ [0-9.]+e-21 ", result.reason
    )


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**60), st.integers(1, 10**60))
def test_log_of_counts_is_accurate_near_one(numerator, denominator):
    from decimal import Context

    from privnb.nbc.safety import natural_log

    exact = Context(prec=80).ln(Context(prec=80).divide(numerator, denominator))
    assert natural_log(Fraction(numerator, denominator)) == pytest.approx(float(exact), rel=1e-12, abs=1e-300)
    assert natural_log(Fraction(10**40 + 1, 10**40)) == pytest.approx(1e-40, rel=1e-12, abs=0)


@pytest.mark.parametrize("gamma", [1, 0.5, -2, "2"])
def test_gamma_must_exceed_one(va, gamma):
    with pytest.raises(ValueError, match="gamma"):
        safety_transform(va, gamma)


@pytest.mark.parametrize(
    "prior, r, message",
    [
        ({"50K": 0.0, "70K": 1.0}, 2, "positive prior"),
        ({"50K": 0.2, "70K": 0.2}, 2, "sums to"),
        ({"50K": 0.5, "70K": 0.5}, 1, "r must be"),
    ],
)
def test_est_bad_input(va, prior, r, message):
    with pytest.raises(ValueError, match=message):
        est(va, prior, r)


@pytest.mark.parametrize("breach, unsafe", [("strict", False), ("non-strict", True)])
def test_definition1_readings_on_figure_1(va, breach, unsafe):
    """Section 4: "if we had a more strict privacy policy, say L1 = 0.5 and L2 = 0.6, none of those viewsets
    would be safe". The prior of 70K is exactly 1/2 (uniform), so only the non-strict reading flags the
    upward breach (posteriors 88% and 78%); Definition 1 as printed (strict) finds none."""
    from privnb.nbc import audit

    _, vb_frame = figure1()
    vb = NBCViews.from_frame(vb_frame, ["Adr", "Age"], "Sal")
    for views in (va, vb):
        table = audit(views, L1=0.5, L2=0.6, breach=breach).table
        alice = table[(table["Adr"] == "W") & (table["Age"] == 40) & (table["property"] == ("70K",))]
        assert bool(alice["upward"].item()) is unsafe and bool(table["upward"].any()) is unsafe
        assert not table["downward"].any()
    assert audit(va, L1=0.51, L2=0.8, breach=breach).n_breaches >= 1  # the 0.51-to-0.8 example: both readings
    with pytest.raises(ValueError, match="breach must be"):
        audit(va, L1=0.5, L2=0.6, breach="loose")
