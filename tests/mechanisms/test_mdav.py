"""MDAV microaggregation: against a brute-force MDAV written out in plain Python, k-anonymous releases of
groups of k..2k-1 rows whose values are the group means, test rows mapped to the nearest centroid."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from privnb.learn import ProtectedTraining
from privnb.mechanisms import MDAVMicroaggregator, is_k_anonymous
from privnb.mechanisms.mdav import mdav_groups


def brute_mdav(points, k):
    """MDAV step by step on lists: farthest from the centroid, its k-1 nearest, the farthest from it, ..."""
    points = [tuple(map(float, p)) for p in points]
    left = list(range(len(points)))
    groups = []

    def dist(a, b):
        return sum((x - y) ** 2 for x, y in zip(a, b))

    def centroid(rows):
        return tuple(sum(points[i][j] for i in rows) / len(rows) for j in range(len(points[0])))

    def farthest(rows, center):
        return max(rows, key=lambda i: (dist(points[i], center), -i))

    def take(seed):
        others = sorted((i for i in left if i != seed), key=lambda i: (dist(points[i], points[seed]), i))
        group = [seed, *others[: k - 1]]
        groups.append(sorted(group))
        for i in group:
            left.remove(i)

    while len(left) >= 3 * k:
        r = farthest(left, centroid(left))
        take(r)
        take(farthest(left, points[r]))
    if len(left) >= 2 * k:
        take(farthest(left, centroid(left)))
    groups.append(sorted(left))
    return groups


tables = st.integers(1, 25).flatmap(
    lambda n: st.lists(st.tuples(st.integers(0, 6), st.integers(-3, 3)), min_size=n, max_size=n)
)


@pytest.mark.parametrize("algorithm", ["tree", "scan"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=tables, k=st.integers(1, 5))
def test_mdav_groups_match_the_brute_force(algorithm, rows, k):
    points = np.array(rows, dtype=float)
    if len(points) < k:
        with pytest.raises(ValueError, match="at least k"):
            mdav_groups(points, k, algorithm=algorithm)
        return
    group = mdav_groups(points, k, algorithm=algorithm)
    found = [sorted(np.flatnonzero(group == g).tolist()) for g in range(group.max() + 1)]
    assert found == brute_mdav(points, k)
    sizes = np.bincount(group)
    assert sizes.min() >= k and (len(points) < 2 * k or sizes.max() <= 2 * k - 1)


grids = st.tuples(st.integers(1, 400), st.integers(1, 5), st.integers(1, 8), st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids, st.integers(1, 6))
def test_tree_and_scan_give_the_same_groups(grid, k):
    """Up to 400 records in 1-5 dimensions, on a coarse grid (ties everywhere) or continuous (levels 8): the
    k-d tree's branch and bound reaches the scan's groups, ties included."""
    n, d, levels, seed = grid
    rng = np.random.default_rng(seed)
    points = rng.integers(0, levels, (n, d)) * 0.5 if levels < 8 else rng.standard_cauchy((n, d))
    if n < k:
        return
    np.testing.assert_array_equal(mdav_groups(points, k, algorithm="tree"), mdav_groups(points, k, algorithm="scan"))


def test_tree_and_scan_agree_on_a_few_thousand_rows_with_duplicates():
    rng = np.random.default_rng(7)
    points = np.vstack([rng.normal(size=(2500, 3)), np.repeat(rng.normal(size=(50, 3)), 30, axis=0)])
    rng.shuffle(points)
    tree = mdav_groups(points, 4, algorithm="tree")
    np.testing.assert_array_equal(tree, mdav_groups(points, 4, algorithm="scan"))
    assert np.bincount(tree).min() >= 4 and np.bincount(tree).max() <= 7
    with pytest.raises(ValueError, match="'tree', 'scan' or None"):
        mdav_groups(points, 4, algorithm="kd")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables, st.integers(1, 4), st.booleans())
def test_release_is_k_anonymous_with_group_means(rows, k, standardize):
    frame = pd.DataFrame(rows, columns=["a", "b"]).assign(c=[f"v{i % 3}" for i in range(len(rows))])
    if len(frame) < k:
        return
    mdav = MDAVMicroaggregator(["a", "b"], k, standardize=standardize)
    released, labels = mdav.fit_resample(frame, np.arange(len(frame)))
    assert is_k_anonymous(released, ["a", "b"], k) and mdav.n_suppressed_ == 0
    assert (released["c"] == frame["c"]).all() and (labels == np.arange(len(frame))).all()
    for g in range(mdav.n_groups_):
        members = mdav.groups_ == g
        assert k <= members.sum() and (len(frame) < 2 * k or members.sum() < 2 * k)
        for a in ("a", "b"):
            np.testing.assert_allclose(released.loc[members, a], frame.loc[members, a].mean())
    expected = (frame[["a", "b"]] - frame[["a", "b"]].mean()) / frame[["a", "b"]].std(ddof=0).replace(0, 1)
    points = expected.to_numpy() if standardize else frame[["a", "b"]].to_numpy(float)
    assert (mdav_groups(points, k) == mdav.groups_).all()


def test_standardizing_changes_which_records_group():
    frame = pd.DataFrame({"a": [0, 1, 2, 3, 100, 101], "b": [0, 1000, 0, 1000, 0, 1000]})
    raw = MDAVMicroaggregator(["a", "b"], 3, standardize=False).fit(frame).groups_
    std = MDAVMicroaggregator(["a", "b"], 3).fit(frame).groups_
    assert raw.tolist() == [1, 0, 1, 0, 1, 0]  # b's scale dominates: groups by b
    assert std.tolist() == [1, 1, 1, 0, 0, 0]  # a's gap 3 -> 100 counts too


def test_transform_maps_rows_to_the_nearest_centroid():
    frame = pd.DataFrame({"a": [0.0, 1.0, 10.0, 11.0], "b": [0.0, 0.0, 0.0, 0.0], "y": [0, 0, 1, 1]})
    mdav = MDAVMicroaggregator(["a", "b"], 2).fit(frame)
    out = mdav.transform(pd.DataFrame({"a": [-5.0, 4.0, 7.0, 30.0], "b": [0.0, 1.0, 0.0, 0.0], "y": [9, 9, 9, 9]}))
    assert out["a"].tolist() == [0.5, 0.5, 10.5, 10.5] and (out["y"] == 9).all()
    model = ProtectedTraining(MDAVMicroaggregator(["a"], 2), KNeighborsClassifier(1))
    model.fit(frame[["a", "b"]], frame["y"])
    assert model.predict(pd.DataFrame({"a": [2.0, 9.0], "b": [0.0, 0.0]})).tolist() == [0, 1]


def test_mdav_input_errors():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]})
    with pytest.raises(ValueError, match="numeric quasi-identifiers only"):
        MDAVMicroaggregator(["a", "s"], 2).fit(frame)
    with pytest.raises(ValueError, match="missing or infinite"):
        MDAVMicroaggregator(["a"], 2).fit(frame.assign(a=[1.0, np.nan, 3.0]))
    with pytest.raises(ValueError, match="at least k"):
        MDAVMicroaggregator(["a"], 4).fit(frame)
    with pytest.raises(ValueError, match="not columns"):
        MDAVMicroaggregator(["b"], 2).fit(frame)
    assert ProtectedTraining(MDAVMicroaggregator([0], 2), LogisticRegression()).fit(
        np.arange(8.0).reshape(4, 2), [0, 1, 0, 1]
    )


@pytest.mark.parametrize(
    "points, message",
    [
        ([[0.0, 1.0], [np.nan, 2.0], [3.0, 4.0], [5.0, 6.0]], "NaN or infinite"),
        ([[0.0, 1.0], [np.inf, 2.0], [3.0, 4.0], [5.0, 6.0]], "NaN or infinite"),
        ([[1e308, 0.0], [1e308, 1.0], [-1e308, 2.0], [1e308, 3.0]], "overflow"),
        ([[1e200, 0.0], [-1e200, 1.0], [0.0, 2.0], [1.0, 3.0]], "overflow"),
        ([1.0, 2.0, 3.0], "2-D"),
    ],
)
def test_mdav_refuses_points_it_could_not_group(points, message):
    """A NaN is never the farthest or a nearest point (the loop would never end); an overflowing mean or squared
    distance is inf or NaN: a ValueError saying so, not an endless loop."""
    with pytest.raises(ValueError, match=message):
        mdav_groups(np.array(points), 2)


def test_mdav_refuses_values_too_large_to_standardize():
    frame = pd.DataFrame({"a": [1e308, 1e308, -1e308, 1e308], "b": [0.0, 1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="overflows float64"):
        MDAVMicroaggregator(["a", "b"], 2).fit(frame)
