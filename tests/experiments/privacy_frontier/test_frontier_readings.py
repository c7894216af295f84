"""Notebook 05's computed sentences: rankings only where the intervals separate, the strongest attack per release."""

import pytest

from privnb.experiments import tidy_frame
from privnb.experiments.privacy_frontier import adversary_table, ranking_lines, strongest_lines


def rows(gains):
    """Two folds of common-adversary rows: method -> (advantage, half-width of each fold's interval)."""
    out = []
    for method, (gain, half) in gains.items():
        for fold in (0, 1):
            values = {"common": 0.4 + gain, "common_baseline": 0.4, "common_advantage": gain, "common_n_targets": 100}
            values |= {"common_advantage_low": gain - half, "common_advantage_high": gain + half}
            values |= {"definetti_success_all_rows": 0.45}
            out += [("d", "5-NN", method, 2.0, fold, metric, value, 100, 0, "") for metric, value in values.items()]
    return tidy_frame(out)


def test_the_interval_of_the_mean_over_folds_is_as_wide_as_the_folds_own():
    # folds share most training rows, so two folds that agree add no precision: their mean half-width
    table = adversary_table(rows({"a": (0.3, 0.02)}))
    assert table.loc[("a", 2.0), "advantage_high"] - 0.3 == pytest.approx(0.02)
    assert table.loc[("a", 2.0), "n_folds"] == 2


def test_a_ranking_is_stated_only_where_the_intervals_separate():
    table = adversary_table(rows({"a": (0.30, 0.02), "b": (0.29, 0.02), "c": (0.10, 0.02)}))
    (line,) = ranking_lines(table)
    assert line.startswith("l = 2, gain over the background")
    assert " ≈ " in line.split(" > ")[0] and line.count(" > ") == 1 and line.index("a +0.300") < line.index("c +0.100")


def test_strongest_lines_name_the_attack_that_guesses_most_on_the_same_rows():
    common, definetti = strongest_lines(rows({"a": (0.30, 0.02), "b": (0.01, 0.02)}))
    assert common == "common guesses most on 1 of 2 releases (a 2), by 0.250 to 0.250 of the training rows."
    assert definetti.startswith("definetti guesses most on 1 of 2 releases (b 2), by 0.040")


def test_matching_t_is_the_distance_to_l_equal_shares():
    from privnb.experiments.privacy_frontier.views import matching_t

    counts = [50, 30, 15, 5]
    assert matching_t(counts, 1) == pytest.approx(0.5)  # one value at share 1 against 0.5: half the L1 distance
    assert matching_t(counts, 2) == pytest.approx(0.5 * (0.0 + 0.2 + 0.15 + 0.05))
    assert matching_t(counts, 4) == pytest.approx(0.5 * (0.25 + 0.05 + 0.1 + 0.2))  # not monotone in l
    assert matching_t(counts, 9) == matching_t(counts, 4)  # an l above the values: all of them equally often
