"""The DP feature selection of FSAC's Laplace-DP: report-noisy-max at the correct scale, the budget booked
with diffprivlib's BudgetAccountant, and the paper's literal reading kept apart as not epsilon-DP as booked."""

import numpy as np
import pytest

from privnb.mechanisms import DP_MECHANISMS, dp_release, dp_select_release, dp_table_release
from privnb.mechanisms.dp_release import exponential_pick, geometric_counts, hamdist_sensitivity, selection_noise_scale


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


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_exponential_pick_is_diffprivlibs_draw(seed):
    from diffprivlib.mechanisms import Exponential

    utility = np.random.default_rng(seed).random(500) * 0.3
    for epsilon in (0.01, 1.0, 50.0):
        expected = Exponential(epsilon=epsilon, sensitivity=0.02, utility=utility.tolist(), random_state=seed)
        assert exponential_pick(utility, epsilon, 0.02, seed) == expected.randomise()


def test_exponential_pick_frequencies_follow_exp_of_eps_u_over_two_delta():
    from scipy.stats import chisquare

    utility, epsilon, delta = np.array([0.0, 0.5, 1.0, 2.0]), 1.5, 1.0
    rng = np.random.RandomState(0)
    picks = np.bincount([exponential_pick(utility, epsilon, delta, rng) for _ in range(20000)], minlength=4)
    weights = np.exp(epsilon * utility / (2 * delta))
    assert chisquare(picks, 20000 * weights / weights.sum()).pvalue > 0.001
    with pytest.raises(ValueError, match="positive"):
        exponential_pick(utility, 0.0, delta)


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_table_noise_is_diffprivlibs_histogram(seed):
    from diffprivlib.tools import histogram

    codes = np.random.default_rng(seed).integers(0, 64, 300)
    expected, _ = histogram(codes, epsilon=0.4, bins=64, range=(-0.5, 63.5), random_state=seed)
    assert (geometric_counts(np.bincount(codes, minlength=64), 0.4, seed) == expected).all()


def test_table_noise_is_two_sided_geometric_of_ratio_exp_minus_epsilon():
    from scipy.stats import chisquare

    epsilon, n = 0.7, 40000
    noise = geometric_counts(np.full(n, 1000), epsilon, np.random.RandomState(1)) - 1000
    alpha = np.exp(-epsilon)  # P(noise = z) = (1 - alpha) / (1 + alpha) alpha^|z|
    assert noise.var() == pytest.approx(2 * alpha / (1 - alpha) ** 2, rel=0.05)
    values = np.arange(-6, 7)
    expected = (1 - alpha) / (1 + alpha) * alpha ** np.abs(values)
    observed = np.array([(noise == v).sum() for v in values] + [(np.abs(noise) > 6).sum()])
    expected = np.append(expected, 1 - expected.sum()) * n
    assert chisquare(observed, expected).pvalue > 0.001
    assert (geometric_counts(np.zeros(1000, dtype=int), 0.1, 0) >= 0).all()  # truncated at 0


def test_table_release_books_its_epsilon_with_the_accountant(monkeypatch):
    from diffprivlib import BudgetAccountant

    spent = []
    original = BudgetAccountant.spend
    monkeypatch.setattr(BudgetAccountant, "spend", lambda self, e, d: (spent.append(e), original(self, e, d))[1])
    X, y = _data()
    rows, labels = dp_table_release(X, y, [0, 1, 2], 0.3, random_state=0)
    assert spent == [pytest.approx(0.3)] and rows.shape[1] == 3 and set(labels) <= {0, 1}
