"""One record for every attack: the advantage is success minus the attack's own baseline, and the record's
values are named after the attack."""

import pytest

from privnb.attacks import AttackResult, wilson_interval


def test_advantage_values_and_notes():
    result = AttackResult("toy", "share right", 0.75, 0.25, 8, {"iterations": 3, "converged": True, "variant": "em"})
    assert result.advantage == 0.5
    low, high = wilson_interval(6, 8)  # 0.75 of 8 targets: 6 right guesses
    assert result.successes == 6 and result.interval == (low, high)
    assert result.values() == {
        "toy": 0.75,
        "toy_baseline": 0.25,
        "toy_advantage": 0.5,
        "toy_n_targets": 8.0,
        "toy_low": low,
        "toy_high": high,
        "toy_advantage_low": low - 0.25,
        "toy_advantage_high": high - 0.25,
        "toy_iterations": 3.0,
        "toy_converged": 1.0,
    }
    assert low == pytest.approx(0.4093, abs=1e-4) and high == pytest.approx(0.9285, abs=1e-4)  # Wilson, z = 1.96
    assert result.notes() == "share right; variant=em"


def test_bad_records():
    with pytest.raises(ValueError, match="attack"):
        AttackResult("", "m", 0, 0, 1)
    with pytest.raises(ValueError, match="n_targets"):
        AttackResult("a", "m", 0, 0, -1)
