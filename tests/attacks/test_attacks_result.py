"""One record for every attack: the advantage is success minus the attack's own baseline, and the record's
values are named after the attack."""

import pytest

from privnb.attacks import AttackResult


def test_advantage_values_and_notes():
    result = AttackResult("toy", "share right", 0.75, 0.25, 8, {"iterations": 3, "converged": True, "variant": "em"})
    assert result.advantage == 0.5
    assert result.values() == {
        "toy": 0.75,
        "toy_baseline": 0.25,
        "toy_advantage": 0.5,
        "toy_n_targets": 8.0,
        "toy_iterations": 3.0,
        "toy_converged": 1.0,
    }
    assert result.notes() == "share right; variant=em"


def test_bad_records():
    with pytest.raises(ValueError, match="attack"):
        AttackResult("", "m", 0, 0, 1)
    with pytest.raises(ValueError, match="n_targets"):
        AttackResult("a", "m", 0, 0, -1)
