"""The attacks' compiled loops (privnb.attacks._kernels) against the numpy formulations they replace: every number
equal, not close (row sums as numpy's pairwise summation adds them, group sums row by row)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.attacks._kernels import counting_weights, sinkhorn_sweep


@settings(max_examples=40, deadline=None)
@given(
    n_rows=st.integers(1, 60),
    n_values=st.sampled_from([1, 3, 7, 8, 9, 16, 17, 41, 128, 129, 300]),
    n_groups=st.integers(1, 5),
    seed=st.integers(0, 10_000),
)
def test_the_sinkhorn_pass_is_numpys_to_the_last_bit(n_rows, n_values, n_groups, seed):
    """Row sums as numpy's pairwise summation adds them (eight running sums, halves above 128 values), group sums
    row by row: every number equal, not close."""
    rng = np.random.default_rng(seed)
    base = rng.random((n_rows, n_values)) * 10.0 ** rng.integers(-6, 6, (n_rows, n_values))
    scaling = rng.random((n_groups, n_values)) + 0.5
    group = rng.integers(0, n_groups, n_rows)
    scale, columns = np.empty(n_rows), np.empty((n_groups, n_values))
    compiled = base.copy()
    sinkhorn_sweep(compiled, scaling, group, scale, columns)
    marginals = base * scaling[group]
    expected_scale = marginals.sum(axis=1)
    expected_columns = np.zeros_like(columns)
    for i in range(n_rows):  # row by row, as a CSR product of the group-by-row matrix adds
        expected_columns[group[i]] += marginals[i] / expected_scale[i]
    assert np.array_equal(scale, expected_scale)
    assert np.array_equal(compiled, base / expected_scale[:, None])
    assert np.array_equal(columns, expected_columns)


def numpy_counting_weights(prior, counts, strides):
    """The counting programme with numpy's masks and gathers: forward and backward tables over the states, then
    each member's weight of each value as a row sum of gathered products."""
    m, d = prior.shape
    n_states = int(np.prod(counts + 1))
    digits = np.stack([(np.arange(n_states) // strides[v]) % (counts[v] + 1) for v in range(d)])
    can = digits < counts[:, None]
    forward, backward = np.zeros((m + 1, n_states)), np.zeros((m + 1, n_states))
    forward[0, 0], backward[m, n_states - 1] = 1.0, 1.0
    for j in range(m):
        for v in range(d):
            forward[j + 1, np.flatnonzero(can[v]) + strides[v]] += forward[j, can[v]] * prior[j, v]
        forward[j + 1] /= forward[j + 1].max()
    for j in range(m - 1, -1, -1):
        for v in range(d):
            backward[j, can[v]] += prior[j, v] * backward[j + 1, np.flatnonzero(can[v]) + strides[v]]
        backward[j] /= backward[j].max()
    out = np.zeros((m, d))
    for v in range(d):
        states = np.flatnonzero(can[v])
        out[:, v] = prior[:, v] * (forward[:m, states] * backward[1:, states + strides[v]]).sum(axis=1)
    return out


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 5), min_size=2, max_size=4), seed=st.integers(0, 10_000))
def test_the_counting_programme_is_numpys_to_the_last_bit(counts, seed):
    counts = np.array(counts)
    prior = np.random.default_rng(seed).random((int(counts.sum()), len(counts))) + 1e-3
    strides = np.cumprod(np.concatenate(([1], counts[:-1] + 1))).astype(np.intp)
    assert np.array_equal(counting_weights(prior, counts, strides), numpy_counting_weights(prior, counts, strides))
