"""The prior floor of MZ09's EST (r >= 1/(|C| F(c)) for classifier-keeping publications): its premise is
checked with the exact audit; Adult-like large counts meet it, a small case does not."""

import pytest
from test_nbc import figure1

from privnb.nbc import NBCViews, achieved_r, est, prior_r_lower_bound
from privnb.nbc.counterexample import two_attribute_views
from privnb.nbc.prior_floor import prior_floor

PRIOR = {0: 0.75, 1: 0.25}


def test_premise_holds_on_figure_1_and_est_fails_early_with_the_check_in_its_message():
    va = NBCViews.from_frame(figure1()[0], ["Adr", "Age"], "Sal")
    prior = {"50K": 0.25, "70K": 0.75}
    floor = prior_floor(va, prior)
    assert floor.holds and floor.bound == 2 and floor.label == "50K" and floor.tuple == ("P", 30)
    assert floor.posterior == pytest.approx(0.75)  # exact: 3/4 >= 1/2 (normalized score 5/7)
    result = est(va, prior, 1.3)
    assert not result and "r >= 2" in result.reason and "Premise checked" in result.reason
    assert "0.75 >= 1/2" in result.reason


def test_a_small_case_where_the_floor_does_not_hold():
    """Label 1 is predicted only on tuples no possible world can match (a1 and b1 never occur: both scores
    are 0 and the tie goes to the larger label). prior_r_lower_bound reports 2, yet these very views, NBC-
    equivalent to themselves, meet r = 1 under the prior (every posterior of label 1 is 1/4)."""
    views = two_attribute_views([3, 1], [[3, 1], [0, 0]], [[3, 1], [0, 0]])
    assert prior_r_lower_bound(views, PRIOR) == 2
    assert achieved_r(views, PRIOR) == pytest.approx(1.0)
    floor = prior_floor(views, PRIOR)
    assert not floor.holds and floor.tuple is None  # no tuple predicting 1 expects a matching row
    result = est(views, PRIOR, 1.3, random_state=0)
    assert "r >= 2" not in result.reason  # no early failure on an unchecked premise


def test_large_counts_meet_the_premise():
    views = two_attribute_views([2000, 1000], [[1500, 700], [500, 300]], [[1200, 650], [800, 350]])
    floor = prior_floor(views, PRIOR)
    assert floor.holds and floor.log10_expected_rows > 2
    assert abs(floor.posterior - floor.score_share) < 0.01


def test_est_takes_the_floor_computed_once_and_refuses_another():
    va = NBCViews.from_frame(figure1()[0], ["Adr", "Age"], "Sal")
    prior = {"50K": 0.25, "70K": 0.75}
    floor = prior_floor(va, prior)
    for r in (1.3, 1.9, 3):  # below the floor of 2 (it decides), and above it (unused)
        given, alone = est(va, prior, r, random_state=0, floor=floor), est(va, prior, r, random_state=0)
        assert (given.success, given.reason) == (alone.success, alone.reason)
        assert given.achieved_r == pytest.approx(alone.achieved_r, rel=0, abs=0, nan_ok=True)
    other = prior_floor(va, {"50K": 0.75, "70K": 0.25})  # the floor of another prior
    with pytest.raises(ValueError, match="prior_floor"):
        est(va, prior, 1.3, floor=other)
