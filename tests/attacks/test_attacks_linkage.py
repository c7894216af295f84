"""Linkage on k-anonymity by containment (FSAC): the items adversary and the values adversary (absences
included), brute force, the 2-AC toy and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.attacks import linkage_attack, singled_out
from privnb.mechanisms import is_k_ac

TWO_AC = np.array([[1, 1], [1, 1], [1, 0], [0, 1]])
"""Users {a, b}, {a, b}, {a}, {b}: every row is contained in at least 2 rows (2-AC)."""


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 3))
def test_singled_out_matches_brute_force_with_absences(seed, m):
    rng = np.random.RandomState(seed)
    dense = (rng.rand(25, 7) < 0.5).astype(int)
    features = np.sort(rng.choice(7, 4, replace=False))
    known = np.array([rng.choice(14, m, replace=False) for _ in range(25)])  # literal j: has j; 7 + j: lacks j

    def agrees(row, literal):
        column, present = literal % 7, literal < 7
        return column not in features or dense[row, column] == present

    counts = singled_out(sp.csr_array(dense), known, features)
    for u in range(25):
        assert counts[u] == sum(all(agrees(r, lit) for lit in known[u]) for r in range(25))


def test_two_ac_toy_items_adversary_singles_out_no_one_values_adversary_two_of_four():
    assert is_k_ac(TWO_AC, 2)
    for m in (1, 2):
        items = linkage_attack(TWO_AC, m, on_short="skip", random_state=0)
        assert items.success == 0.0 and items.attack == f"linkage_items_m{m}"
    values = linkage_attack(TWO_AC, 2, adversary="values", random_state=0)
    assert values.success == 0.5 and values.n_targets == 4 and values.baseline == 0.0


def test_linkage_full_set_singles_out_and_k_anonymous_projection_does_not():
    rng = np.random.RandomState(0)
    dense = (rng.rand(300, 15) < 0.5).astype(int)
    full = linkage_attack(dense, 9, on_short="skip", random_state=0)
    assert full.success > 0.3 and full.n_targets + full.details["n_skipped"] == 300
    # a projection on two features: each of its four patterns is shared by far more than one row
    for adversary in ("items", "values"):
        assert linkage_attack(dense, 5, [0, 1], adversary=adversary, on_short="skip", random_state=0).success == 0.0


def test_linkage_bad_input():
    dense = np.array([[1, 0, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match="fewer than m=3 items"):
        linkage_attack(dense, 3)
    with pytest.raises(ValueError, match="m must be"):
        linkage_attack(dense, 0)
    with pytest.raises(ValueError, match="adversary"):
        linkage_attack(dense, 1, adversary="oracle")
    with pytest.raises(ValueError, match="exceeds the 3 attributes"):
        linkage_attack(dense, 4, adversary="values")
    assert linkage_attack(dense, 3, on_short="skip").details["n_skipped"] == 1
