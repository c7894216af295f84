"""The incremental 1-NN of Section 5.2.6 of MC17 (privnb.learn.neighbors' per-part searches and
privnb.experiments.knn_l_diversity.convergence): checked against brute force and against IBk trained on each prefix."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.data import Dataset
from privnb.experiments.knn_l_diversity import convergence_curves
from privnb.experiments.knn_l_diversity.convergence import _PrefixSearch
from privnb.learn import IBkClassifier
from privnb.learn.encoding import FrameEncoder
from privnb.learn.knn_votes import class_ranks
from privnb.learn.neighbors import nearest_per_part, tied_counts_per_part, tied_counts_per_part_factored


def brute_prefix(X, parts, Q, labels, n_classes):
    """Reference: for each prefix, every row at the smallest rounded squared distance, and the first."""
    d2 = np.round(((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2), 9)
    counts = np.zeros((parts.max() + 1, len(Q), n_classes), dtype=int)
    first = np.zeros((parts.max() + 1, len(Q)), dtype=int)
    for j in range(parts.max() + 1):
        d = np.where(parts <= j, d2, np.inf)
        tied = d == d.min(axis=1, keepdims=True)
        for q in range(len(Q)):
            counts[j, q] = np.bincount(labels[tied[q]], minlength=n_classes)
            first[j, q] = np.flatnonzero(tied[q])[0]
    return counts, first


@given(st.integers(0, 10_000), st.integers(1, 5), st.sampled_from([1.0, 1 / 3, 0.1]))
@settings(max_examples=40, deadline=None)
def test_per_part_searches_equal_brute_force(seed, n_parts, step):
    """Coarse grids (many exact ties, values like 1/3 whose sums round differently) and small chunks."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(60, 3)) * step
    Q = rng.integers(0, 3, size=(17, 3)) * step
    parts = np.concatenate([np.arange(n_parts), rng.integers(0, n_parts, 60 - n_parts)])
    labels = rng.integers(0, 3, 60)
    counts, first = brute_prefix(X, parts, Q, labels, 3)
    chunk = 8 * 60 * 5
    assert np.array_equal(tied_counts_per_part(X, parts, Q, labels, 3, chunk_bytes=chunk), counts)
    assert np.array_equal(nearest_per_part(X, parts, Q, chunk_bytes=chunk), first)


@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(2, 4), st.sampled_from([1.0, 1 / 3, 0.1]))
@settings(max_examples=40, deadline=None)
def test_factored_per_part_search_equals_brute_force(seed, n_parts, l, step):
    """D_A-shaped rows (each individual with l of 4 sensitive values, shuffled): the search over the distinct
    quasi-identifier rows gives the brute-force counts of every prefix."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 3, size=(30, 2)) * step
    S = np.eye(4) / np.sqrt(2)
    a_index = np.repeat(np.arange(30), l)
    X = np.hstack([A[a_index], S[np.concatenate([rng.permutation(4)[:l] for _ in range(30)])]])
    parts = np.r_[np.arange(n_parts), rng.integers(0, n_parts, 30 - n_parts)][a_index]
    labels = np.repeat(rng.integers(0, 3, 30), l)
    order = rng.permutation(len(X))
    X, parts, labels = X[order], parts[order], labels[order]
    Q = np.hstack([rng.integers(0, 3, size=(17, 2)) * step, S[rng.integers(0, 4, 17)]])
    counts, _ = brute_prefix(X, parts, Q, labels, 3)
    mask = np.r_[False, False, True, True, True, True]
    got = tied_counts_per_part_factored(X, mask, parts, Q, labels, 3, chunk_bytes=8 * 64 * 5)
    assert np.array_equal(got, counts)


def test_every_part_needs_a_row():
    with pytest.raises(ValueError, match="every part must hold at least one training row"):
        tied_counts_per_part(np.zeros((3, 1)), np.array([0, 0, 2]), np.zeros((1, 1)), np.zeros(3, dtype=int), 2)


def _table(seed, n=150):
    """Integer-valued numbers (ties) with rare extremes, so that small prefixes have narrower ranges."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": rng.integers(0, 6, n).astype(float),
            "z": rng.integers(0, 4, n).astype(float),
            "c": rng.choice(list("ab"), n),
        }
    )
    frame.loc[rng.choice(n, 3, replace=False), "x"] = [-10.0, 15.0, 30.0]
    y = np.where(frame["x"] + 2 * (frame["c"] == "a") + rng.normal(0, 1.5, n) > 3, "yes", "no")
    return frame, y


@pytest.mark.parametrize("ties", ["weka", "exact-k"])
@pytest.mark.parametrize("ranges", ["weka", "train"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prefix_search_equals_ibk_trained_on_each_prefix(ties, ranges, seed):
    frame, y = _table(seed)
    train, test = np.arange(100), np.arange(100, 150)
    parts = np.random.default_rng(seed).permutation(np.arange(100) % 4)
    kinds = {"x": "numeric", "z": "numeric", "c": "nominal"}
    encoder = FrameEncoder(kinds=kinds, orders={}, scheme="ibk").fit(frame.iloc[train])
    order = ("yes", "no")
    classes = np.unique(y)
    search = _PrefixSearch(encoder, frame.iloc[test], classes, class_ranks(classes, order), ties, ranges)
    got = search.predict(frame.iloc[train].reset_index(drop=True), parts, y[train])
    for j in range(4):
        rows = train[parts <= j]
        assert set(frame["c"].iloc[rows]) == {"a", "b"}  # the prefix's encoder has every category
        ibk = IBkClassifier(1, ties=ties, ranges=ranges, kinds=kinds, class_order=order)
        expected = ibk.fit(frame.iloc[rows], y[rows]).predict(frame.iloc[test])
        assert np.array_equal(got[j], expected), j


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factored_prefix_search_equals_ibk_trained_on_each_anatomized_prefix(seed):
    """The anatomized 1-NN of each prefix (parts anatomized on their own), searched factored, against IBk."""
    from privnb.mechanisms import anatomize

    frame, y = _table(seed)
    frame["s"] = np.random.default_rng(seed).choice(["s0", "s1", "s2"], len(frame))
    kinds = {"x": "numeric", "z": "numeric", "c": "nominal", "s": "nominal"}
    train, test = frame.iloc[:100].assign(__y__=y[:100]), frame.iloc[100:]
    parts = np.random.default_rng(seed).permutation(np.arange(100) % 3)
    joined = [anatomize(train[parts == j], "s", 2, random_state=j).join() for j in range(3)]
    part_of = np.concatenate([np.full(len(piece), j) for j, piece in enumerate(joined)])
    rows = pd.concat(joined, ignore_index=True)
    encoder = FrameEncoder(kinds=kinds, orders={}, scheme="ibk").fit(train[list(kinds)])
    classes, order = np.unique(y), ("yes", "no")
    search = _PrefixSearch(encoder, test[list(kinds)], classes, class_ranks(classes, order), "weka", "weka")
    got = search.predict(rows[list(kinds)], part_of, rows["__y__"].to_numpy(), "s")
    for j in range(3):
        prefix = rows[part_of <= j]
        ibk = IBkClassifier(1, kinds=kinds, class_order=order, factor_column="s")
        expected = ibk.fit(prefix[list(kinds)], prefix["__y__"]).predict(test[list(kinds)])
        assert np.array_equal(got[j], expected), j


def test_convergence_folds_in_parallel_give_the_same_table():
    frame, y = _table(5, n=240)
    frame["s"] = np.random.default_rng(5).choice(["s0", "s1", "s2"], len(frame))
    frame["y"] = (y == "yes").astype(np.int64)
    data = Dataset(
        "small", frame, ("x", "z", "c"), "s", "y", {"x": "numeric", "z": "numeric", "c": "nominal", "s": "nominal"}
    )
    a = convergence_curves(data, ls=(2,), n_splits=2, n_parts=3, random_state=1, progress=False)
    b = convergence_curves(data, ls=(2,), n_splits=2, n_parts=3, random_state=1, progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(a, b)
    assert a["value"].notna().all() and len(a) == 2 * 3 * 3  # original, l = 2, majority
