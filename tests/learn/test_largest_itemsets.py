"""The exact largest-itemsets search behind Maximal (Algorithm 1 of FSAC) against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from privnb.learn import SearchBudgetExceeded, largest_itemsets, maximal, maximal_itemsets
from privnb.mechanisms import dataset_ac


def brute_largest(X, k, n):
    """Every itemset, its support by full scan; the maximal frequent ones by (-size, lexicographic)."""
    d = X.shape[1]
    frequent = [
        frozenset(s)
        for r in range(1, d + 1)
        for s in itertools.combinations(range(d), r)
        if X[:, list(s)].all(axis=1).sum() >= k
    ]
    top = [tuple(sorted(s)) for s in frequent if not any(s < t for t in frequent)]
    return sorted(top, key=lambda s: (-len(s), s))[:n]


@st.composite
def problems(draw):
    rows, cols = draw(st.integers(1, 9)), draw(st.integers(1, 7))
    X = draw(arrays(np.int8, (rows, cols), elements=st.integers(0, 1)))
    return X, draw(st.integers(1, rows)), draw(st.integers(1, 6))


@settings(max_examples=300, deadline=None)
@given(problems())
def test_largest_itemsets_match_brute_force(problem):
    X, k, n = problem
    assert largest_itemsets(X, k, n) == brute_largest(X, k, n)


@settings(max_examples=60, deadline=None)
@given(problems())
def test_every_found_itemset_is_k_ac(problem):
    X, k, n = problem
    for itemset in largest_itemsets(X, k, n):
        assert dataset_ac(X, list(itemset)) >= k  # Lemma 3


def test_near_duplicate_rows_keep_the_long_itemset():
    # five copies of a 30-item row with one different item each, plus noise: the 30 items held by 5 rows win
    rng = np.random.default_rng(0)
    X = (rng.random((40, 60)) < 0.1).astype(int)
    X[:5, :30] = 1
    found = largest_itemsets(X, 5, 3)
    assert found[0] == tuple(range(30))
    assert found == brute_largest_by_miner(X, 5, 3)


def brute_largest_by_miner(X, k, n):
    return sorted(maximal_itemsets(X, k), key=lambda s: (-len(s), s))[:n]


def test_search_budget_raises_rather_than_guessing():
    X = np.ones((12, 4), dtype=int) - np.eye(12, 4, dtype=int)
    with pytest.raises(SearchBudgetExceeded, match="max_nodes"):
        largest_itemsets(X, 2, 50, max_nodes=1)


def test_maximal_search_options_agree_on_small_data():
    rng = np.random.default_rng(3)
    X = (rng.random((30, 10)) < 0.4).astype(int)
    y = (X[:, 0] | X[:, 3]).astype(int)
    for k in (2, 4):
        fast = maximal(X, y, k, n_candidates=5)
        mined = maximal(X, y, k, n_candidates=5, search="mine-all")
        assert fast.features.tolist() == mined.features.tolist() and fast.ac >= k
    with pytest.raises(ValueError, match="search"):
        maximal(X, y, 2, search="lcm")
