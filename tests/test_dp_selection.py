"""The DP feature selection of FSAC's Laplace-DP: report-noisy-max at the correct scale, the budget booked
with diffprivlib's BudgetAccountant, and the paper's literal reading kept apart as not epsilon-DP as booked."""

import numpy as np
import pytest

from privnb.mechanisms import DP_MECHANISMS, dp_release, dp_select_release, hamdist_sensitivity, selection_noise_scale


class RecordingState(np.random.RandomState):
    """A RandomState that remembers the scale and size of every Laplace draw."""

    def __init__(self, seed):
        super().__init__(seed)
        self.laplace_calls = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.laplace_calls.append((scale, size))
        return super().laplace(loc, scale, size)


def _data():
    rng = np.random.default_rng(1)
    X = (rng.random((200, 10)) < 0.3).astype(int)
    y = (X[:, 0] | (rng.random(200) < 0.2)).astype(int)
    return X, y


def test_scale_is_twice_the_papers():
    assert selection_noise_scale(0.01, 0.05) == pytest.approx(2 * 0.01 / 0.05)
    assert selection_noise_scale(0.01, 0.05, "laplace-paper") == pytest.approx(0.01 / 0.05)
    with pytest.raises(ValueError, match="mechanism"):
        selection_noise_scale(0.01, 0.05, "exponential")


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_noisy_max_draws_fresh_noise_per_pick_at_two_delta_over_eps(epsilon):
    X, y = _data()
    state = RecordingState(0)
    out = dp_select_release(X, y, 3, epsilon, random_state=state)
    delta, per_pick = hamdist_sensitivity(y), epsilon / (2 * 3)
    assert [size for _, size in state.laplace_calls] == [10, 9, 8]  # one noisy max per pick, over the rest
    assert all(s == pytest.approx(2 * delta / per_pick) for s, _ in state.laplace_calls)
    assert out.sound and out.epsilon_spent == pytest.approx(epsilon)  # the accountant's total


def test_paper_reading_adds_noise_once_and_is_flagged_unsound():
    X, y = _data()
    state = RecordingState(0)
    out = dp_select_release(X, y, 3, 1.0, mechanism="laplace-paper", random_state=state)
    assert state.laplace_calls == [(pytest.approx(hamdist_sensitivity(y) / (1.0 / 6)), 10)]
    assert not out.sound and out.epsilon_spent == pytest.approx(1.0)  # booked, not guaranteed
    assert "NOT epsilon-DP as booked" in dp_select_release.__doc__
    assert "laplace-paper" in DP_MECHANISMS and "NOT epsilon-DP as booked" in dp_release.__doc__


@pytest.mark.parametrize("mechanism", ["laplace", "exponential"])
def test_budget_accountant_spends_exactly_the_booked_epsilon(mechanism, monkeypatch):
    from diffprivlib import BudgetAccountant

    spent = []
    original = BudgetAccountant.spend

    def spy(self, epsilon, delta):
        spent.append(epsilon)
        return original(self, epsilon, delta)

    monkeypatch.setattr(BudgetAccountant, "spend", spy)
    X, y = _data()
    out = dp_select_release(X, y, 4, 0.8, mechanism=mechanism, random_state=0)
    assert spent[:4] == [pytest.approx(0.1)] * 4  # eps / (2 n) per pick
    assert sum(spent) == pytest.approx(0.8) and out.epsilon_spent == pytest.approx(0.8)


def test_noisy_max_finds_the_informative_feature_at_large_epsilon():
    X, y = _data()
    assert 0 in dp_select_release(X, y, 1, 1e5, random_state=3).features
