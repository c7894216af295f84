"""Tests of privnb.mechanisms.anatomy: Xiao and Tao's bucketization, IT/ST, the join D_A and D_id (MC17)."""

from __future__ import annotations

import heapq
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.mechanisms import NotLDiverseError, anatomize, is_l_diverse
from privnb.mechanisms.anatomy import bucketize


def greedy_groups(counts, l):
    """Brute force: one heap step per group, ties to the lower bucket index."""
    heap = [(-c, v) for v, c in enumerate(counts) if c > 0]
    heapq.heapify(heap)
    groups = []
    while len(heap) >= l:
        top = [heapq.heappop(heap) for _ in range(l)]
        groups.append(tuple(sorted(v for _, v in top)))
        for negative, v in top:
            if negative + 1 < 0:
                heapq.heappush(heap, (negative + 1, v))
    return groups


@st.composite
def frames(draw, max_rows=40, max_values=6):
    n = draw(st.integers(1, max_rows))
    values = draw(st.lists(st.integers(0, max_values - 1), min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return pd.DataFrame(
        {"q": rng.integers(0, 5, n), "s": [f"v{v}" for v in values], "y": rng.integers(0, 2, n)}, index=labels
    )


def toy():
    """Stand-in for Figure 1 of MC17: six individuals (2 blue, 4 red), A1 identifying, A2 sensitive."""
    return pd.DataFrame({"A1": [1.0, 2.0, 5.0, 6.0, 7.0, 8.0], "A2": [1, 2, 3, 4, 5, 6], "y": [0, 0, 1, 1, 1, 1]})


def test_toy_example_l2_gives_12_instances():
    anatomy = anatomize(toy(), "A2", 2, random_state=0)
    joined = anatomy.join()
    assert len(anatomy.it) == 6 and len(anatomy.st) == 6 and len(anatomy.suppressed) == 0
    assert len(joined) == 12  # "It has 12 instances in total" (Section 4.1 of MC17)
    assert list(joined.columns) == ["A1", "y", "A2", "row_id"]
    assert list(anatomy.it.columns) == ["A1", "y", "gid"] and anatomy.it.index.name == "row_id"
    assert list(anatomy.st.columns) == ["gid", "A2"]
    assert is_l_diverse(anatomy, l=2)
    pd.testing.assert_frame_equal(anatomy.identifying(), anatomy.it.drop(columns="gid"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=8), st.integers(1, 8))
def test_bucketize_equals_one_step_per_group_greedy(counts, l):
    groups = bucketize(counts, l)
    assert [tuple(g) for g in groups] == greedy_groups(counts, l)


@settings(max_examples=100, deadline=None)
@given(frames(), st.integers(1, 4), st.sampled_from(["suppress", "assign"]), st.integers(0, 1000))
def test_anatomy_guarantees(data, l, residue, seed):
    n_values = data["s"].nunique()
    if l > n_values:
        with pytest.raises(NotLDiverseError, match=f"{n_values} distinct"):
            anatomize(data, "s", l, residue=residue, random_state=seed)
        return
    anatomy = anatomize(data, "s", l, residue=residue, random_state=seed)
    it, st_ = anatomy.it, anatomy.st
    # output l-diverse (Definition 10 of MC17)
    assert is_l_diverse(anatomy, l=l)
    # every kept row once in IT, disjoint from the suppressed ones, together all rows
    assert it.index.is_unique and not it.index.isin(anatomy.suppressed).any()
    assert sorted(it.index.append(anatomy.suppressed)) == sorted(data.index)
    pd.testing.assert_frame_equal(it.drop(columns="gid"), data.loc[it.index, ["q", "y"]], check_names=False)
    # ST: one row per individual, each group's values = its members' true values
    assert len(st_) == len(it)
    truth = data.loc[it.index, "s"].groupby(it["gid"].to_numpy()).apply(sorted)
    published = st_.groupby("gid")["s"].apply(sorted)
    assert truth.sort_index().tolist() == published.sort_index().tolist()
    # multiset of sensitive values kept
    assert Counter(st_["s"]) + Counter(data.loc[anatomy.suppressed, "s"]) == Counter(data["s"])
    # join: sum |G|^2 rows (N*l when suppressing); each individual's true value among its candidates
    sizes = st_["gid"].value_counts()
    joined = anatomy.join()
    assert len(joined) == int((sizes**2).sum())
    if residue == "suppress":
        assert (sizes == l).all() and len(joined) == len(it) * l
    true_pairs = set(zip(data.index, data["s"]))
    assert {(r, s) for r, s in zip(joined["row_id"], joined["s"])} >= {(r, s) for r, s in true_pairs if r in it.index}
    per_row = joined.groupby("row_id").size()
    assert (per_row[it.index].to_numpy() == sizes[it["gid"]].to_numpy()).all()
    candidates = joined.groupby("row_id")["s"].apply(list)
    assert all(len(set(c)) == len(c) >= l for c in candidates)


@settings(max_examples=60, deadline=None)
@given(frames(max_rows=30, max_values=4), st.integers(1, 4), st.integers(0, 1000))
def test_groups_follow_the_bucketization(data, l, seed):
    if l > data["s"].nunique():
        return
    anatomy = anatomize(data, "s", l, random_state=seed)
    values = sorted(data["s"].unique())
    expected = Counter(tuple(values[v] for v in g) for g in greedy_groups(data["s"].value_counts()[values].tolist(), l))
    got = Counter(tuple(sorted(g)) for g in anatomy.st.groupby("gid")["s"].apply(list))
    assert got == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.lists(st.integers(1, 6), min_size=5, max_size=8), st.integers(0, 99))
def test_assign_suppresses_nothing_on_eligible_data(l, counts, seed):
    """Xiao and Tao: when no value holds more than n/l of the rows, residue assignment keeps all rows."""
    n = sum(counts)
    if l * max(counts) > n:
        return
    data = pd.DataFrame({"q": range(n), "s": np.repeat(np.arange(len(counts)), counts)})
    anatomy = anatomize(data, "s", l, residue="assign", random_state=seed)
    assert len(anatomy.suppressed) == 0 and is_l_diverse(anatomy, l=l)


def test_suppression_report_counts():
    data = pd.DataFrame({"q": range(10), "s": list("aaaaaabbcd")})
    report = anatomize(data, "s", 2, random_state=0).suppression_report()
    assert report["groups"] == 4 and report["rows_grouped"] == 8
    assert report["rows_suppressed"] == 2 and report["fraction_suppressed"] == pytest.approx(0.2)
    assigned = anatomize(data, "s", 2, residue="assign", random_state=0)
    assert len(assigned.suppressed) == 2  # every group already holds an "a"


def test_random_state_controls_gids_and_order():
    data = pd.DataFrame({"q": range(60), "s": np.arange(60) % 5})
    a = anatomize(data, "s", 3, random_state=1)
    b = anatomize(data, "s", 3, random_state=1)
    c = anatomize(data, "s", 3, random_state=2)
    pd.testing.assert_frame_equal(a.it, b.it)
    pd.testing.assert_frame_equal(a.st, b.st)
    assert not a.it.index.equals(c.it.index)
    # IT order within groups is not ST order: the published row order must not link them
    same_order = (data.loc[a.it.index, "s"].to_numpy() == a.st["s"].to_numpy()).mean()
    assert same_order < 0.9


def test_join_on_adult_sized_input_keeps_dtypes():
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 5000),
            "job": rng.choice(["a", "b"], 5000),
            "edu": rng.choice(list("pqrstu"), 5000),
            "y": rng.integers(0, 2, 5000),
        }
    )
    joined = anatomize(data, "edu", 5, random_state=0).join()
    assert joined["age"].dtype == data["age"].dtype and joined["row_id"].dtype.kind == "i"


def test_is_l_diverse_on_frames():
    frame = pd.DataFrame({"gid": [0, 0, 1, 1, 1], "s": ["a", "b", "a", "a", "b"]})
    assert is_l_diverse(frame, "s", 1)
    assert not is_l_diverse(frame, "s", 2)  # group 1: "a" has frequency 2/3 > 1/2
    assert is_l_diverse(frame.iloc[:2], "s", 2)
    with pytest.raises(ValueError, match="group column"):
        is_l_diverse(frame.drop(columns="gid"), "s", 2)
    with pytest.raises(ValueError, match="needs the sensitive column and l"):
        is_l_diverse(frame, "s")


def test_toy_dataset_from_datasets():
    datasets = pytest.importorskip("privnb.data")
    toy_set = datasets.anatomy_toy()
    anatomy = anatomize(toy_set.frame, toy_set.sensitive, 2, random_state=0)
    assert is_l_diverse(anatomy) and len(anatomy.join()) == 12


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(sensitive="nope", l=2), "not among the columns"),
        (dict(sensitive="s", l=0), "integer >= 1"),
        (dict(sensitive="s", l=2, residue="drop"), "residue must be"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        anatomize(pd.DataFrame({"q": [1, 2], "s": ["a", "b"]}), **kwargs)


def test_not_l_diverse_error_says_how_many_values():
    with pytest.raises(NotLDiverseError, match=r"2 distinct value\(s\), fewer than l=3"):
        anatomize(pd.DataFrame({"q": [1, 2, 3], "s": ["a", "b", "a"]}), "s", 3)
    assert issubclass(NotLDiverseError, ValueError)


def test_bad_frames():
    with pytest.raises(ValueError, match="uniquely"):
        anatomize(pd.DataFrame({"s": ["a", "b"]}, index=[0, 0]), "s", 2)
    with pytest.raises(ValueError, match="missing values"):
        anatomize(pd.DataFrame({"s": ["a", None, "b"]}), "s", 2)
    with pytest.raises(ValueError, match="'gid'"):
        anatomize(pd.DataFrame({"s": ["a", "b"], "gid": [1, 2]}), "s", 2)


@pytest.mark.parametrize("l", [0, -1, 2.5, True])
def test_is_l_diverse_rejects_a_bad_l(l):
    frame = pd.DataFrame({"gid": [0, 0], "s": ["a", "b"]})
    with pytest.raises(ValueError, match="l must be an integer >= 1"):
        is_l_diverse(frame, "s", l)
