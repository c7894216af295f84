"""privnb.learn._screen: one-hot blocks compared by code give the neighbour searches the same results as the
matrix product, checked against brute force on mixed numeric and nominal rows with heavy ties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.learn._screen import DistanceScreen, _screen_rows_numpy, blocks_within, screen_rows
from privnb.learn.neighbors import (
    kneighbors,
    kneighbors_factored,
    nearest_per_part,
    tied_counts_per_part,
    tied_counts_per_part_factored,
)


def mixed_rows(rng, n, cardinalities, n_numeric, levels=3):
    """Rows of ``n_numeric`` coarse numeric columns then one one-hot block (1/sqrt(2)) per cardinality."""
    numeric = rng.integers(0, levels, size=(n, n_numeric)) / levels
    blocks, parts, start = [], [numeric], n_numeric
    for cardinality in cardinalities:
        block = np.zeros((n, cardinality))
        block[np.arange(n), rng.integers(0, cardinality, n)] = 1 / np.sqrt(2)
        parts.append(block)
        blocks.append((start, start + cardinality))
        start += cardinality
    return np.hstack(parts), blocks


def brute(X, Q, k):
    d2 = np.round(((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2), 9)
    order = np.array([np.lexsort((np.arange(len(X)), row))[:k] for row in d2])
    return np.take_along_axis(d2, order, axis=1), order


shapes = st.tuples(
    st.integers(0, 10_000),  # seed
    st.lists(st.integers(1, 6), min_size=1, max_size=4),  # block cardinalities
    st.integers(0, 2),  # numeric columns
)


def rows_and_queries(shape, n, n_query):
    """(generator, training rows, their blocks, queries) of a drawn shape."""
    seed, cardinalities, n_numeric = shape
    rng = np.random.default_rng(seed)
    X, blocks = mixed_rows(rng, n, cardinalities, n_numeric)
    return rng, X, blocks, mixed_rows(rng, n_query, cardinalities, n_numeric)[0]


@given(shapes, st.integers(1, 7))
@settings(max_examples=40, deadline=None)
def test_blocks_give_brute_force_neighbours(shape, k):
    _, X, blocks, Q = rows_and_queries(shape, 70, 20)
    sq, idx = kneighbors(X, Q, k, blocks=blocks, chunk_bytes=8 * 96 * 4)
    ref_sq, ref_idx = brute(X, Q, k)
    assert np.array_equal(idx, ref_idx)
    assert np.allclose(sq, ref_sq)
    tied = kneighbors(X, Q, k, ties=True, blocks=blocks)
    plain = kneighbors(X, Q, k, ties=True)
    assert np.array_equal(tied.offsets, plain.offsets) and np.array_equal(tied.index, plain.index)


@given(shapes, st.integers(1, 7))
@settings(max_examples=30, deadline=None)
def test_blocks_in_the_factored_searches(shape, k):
    """D_A's layout: each A row repeated with several sensitive codes, the A columns holding the blocks."""
    rng, A, blocks, A_query = rows_and_queries(shape, 30, 12)
    S = np.eye(3) / np.sqrt(2)
    a_index, s_index = np.repeat(np.arange(30), 2), rng.integers(0, 3, 60)
    S_query = S[rng.integers(0, 3, 12)]
    got = kneighbors_factored(A, S, a_index, s_index, A_query, S_query, k, ties=True, blocks=blocks)
    want = kneighbors_factored(A, S, a_index, s_index, A_query, S_query, k, ties=True)
    assert np.array_equal(got.offsets, want.offsets) and np.array_equal(got.index, want.index)

    X, Q = np.hstack([A[a_index], S[s_index]]), np.hstack([A_query, S_query])
    mask = np.r_[np.zeros(A.shape[1], dtype=bool), np.ones(3, dtype=bool)]
    parts, labels = rng.integers(0, 3, 60), rng.integers(0, 2, 60)
    parts[:3] = [0, 1, 2]
    every_block = [*blocks, (A.shape[1], A.shape[1] + 3)]
    assert np.array_equal(
        tied_counts_per_part_factored(X, mask, parts, Q, labels, 2, blocks=every_block),
        tied_counts_per_part(X, parts, Q, labels, 2),
    )
    assert np.array_equal(
        tied_counts_per_part(X, parts, Q, labels, 2, blocks=every_block), tied_counts_per_part(X, parts, Q, labels, 2)
    )
    assert np.array_equal(
        nearest_per_part(X, parts, Q, blocks=every_block, chunk_bytes=8 * 96 * 3), nearest_per_part(X, parts, Q)
    )


def test_the_screen_is_the_shifted_distance():
    rng = np.random.default_rng(1)
    X, blocks = mixed_rows(rng, 50, [4, 2, 7], 2, levels=10)
    Q, _ = mixed_rows(rng, 9, [4, 2, 7], 2, levels=10)
    d2, sq_query, lows = DistanceScreen(X, blocks).shifted(Q)
    true = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    assert np.allclose(d2[:, :50] + sq_query[:, None], true, atol=1e-5)
    assert np.all(np.isinf(d2[:, 50:]))  # the padding
    assert np.array_equal(lows, d2.reshape(9, -1, 32).min(axis=2))


@pytest.mark.parametrize("kernel", [_screen_rows_numpy, screen_rows], ids=["numpy", "compiled"])
def test_one_pass_of_the_screen_is_the_brute_force_sum(kernel):
    """Two cost groups, a few dense columns, 5000 training rows (two tiles of the compiled pass)."""
    rng = np.random.default_rng(2)
    n, m = 5024, 6
    train_codes, query_codes = rng.integers(0, 5, size=(3, n)).astype(np.uint8), rng.integers(0, 5, size=(m, 3))
    train_dense, query_dense = rng.random((2, n), dtype=np.float32), rng.random((m, 2), dtype=np.float32)
    block_group, costs = np.array([0, 1, 0]), np.array([1.0, 3.0], dtype=np.float32)
    shift, out = rng.random(n, dtype=np.float32), np.full((m, n), 0.5, dtype=np.float32)
    args = (query_dense, train_dense, query_codes.astype(np.uint8), train_codes, block_group, costs, shift, out)
    lows = kernel(*args) if kernel is screen_rows else None
    if lows is None:
        lows = np.empty((m, n // 32), dtype=np.float32)
        kernel(*args, lows, None)
    differ = query_codes[:, :, None] != train_codes[None]
    want = 0.5 + shift + query_dense @ train_dense + (costs[block_group][None, :, None] * differ).sum(axis=1)
    assert np.allclose(out, want, rtol=1e-6)
    assert np.array_equal(lows, out.reshape(m, -1, 32).min(axis=2))


def test_blocks_that_are_not_one_hot_are_refused():
    X = np.array([[0.5, 0.5, 1.0], [0.5, 0.0, 2.0]])
    with pytest.raises(ValueError, match=r"columns 0:2 are not a one-hot block \(row 0 holds 2 non-zero"):
        DistanceScreen(X, [(0, 2)])
    with pytest.raises(ValueError, match=r"blocks \[\(0, 2\), \(1, 3\)\] must be disjoint"):
        DistanceScreen(np.eye(3), [(0, 2), (1, 3)])
    with pytest.raises(ValueError, match=r"within 0\.\.3"):
        DistanceScreen(np.eye(3), [(2, 4)])
    with pytest.raises(ValueError, match="values differ"):
        DistanceScreen(np.array([[0.5, 0.0], [0.0, 0.7]]), [(0, 2)])
    screen = DistanceScreen(np.array([[0.5, 0.0], [0.0, 0.5]]), [(0, 2)])
    with pytest.raises(ValueError, match=r"the queries' one-hot block 0:2 holds 0\.7"):
        screen.shifted(np.array([[0.7, 0.0]]))


def test_blocks_within_a_column_selection():
    keep = np.array([True, False, False, True, True, True])
    assert blocks_within([(1, 3), (3, 5)], keep) == [(1, 3)]
    with pytest.raises(ValueError, match="cuts the one-hot block 0:2"):
        blocks_within([(0, 2)], keep)
