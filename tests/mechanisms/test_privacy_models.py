"""Privacy models on any release, each against a brute-force computation (and pyCANON where importable)."""

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from privnb.data import Hierarchy
from privnb.mechanisms._absent_mass import absent_mass
from privnb.mechanisms.privacy_models import (
    BasicBetaLikeness,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    RecursiveCLDiversity,
    TCloseness,
    emd_hierarchical,
    emd_ordered,
    sensitive_counts,
)

VALUES = ["a", "b", "c", "d", "e", "f"]
#: a three-level hierarchy over the six values: {a, b} {c, d, e} {f}, then {a..e} {f}, then *
SENSITIVE_TREE = Hierarchy.from_arx(
    pd.DataFrame(
        [
            ["a", "ab", "a-e", "*"],
            ["b", "ab", "a-e", "*"],
            ["c", "cde", "a-e", "*"],
            ["d", "cde", "a-e", "*"],
            ["e", "cde", "a-e", "*"],
            ["f", "f", "f", "*"],
        ]
    ),
    name="s",
)


@st.composite
def releases(draw):
    """A release: 1-5 classes, each a few rows of the six sensitive values."""
    n_classes = draw(st.integers(1, 5))
    rows = []
    for c in range(n_classes):
        members = draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=8))
        rows += [(f"q{c}", v) for v in members]
    return pd.DataFrame(rows, columns=["qi", "s"])


def _classes(release):
    return {key: list(group["s"]) for key, group in release.groupby("qi")}


#: The three ground distances between the positions of two values of VALUES (Li et al. 2007, Section 4.2).
GROUNDS = {
    "equal": lambda i, j: float(i != j),
    "ordered": lambda i, j: abs(i - j) / (len(VALUES) - 1),
    "hierarchical": lambda i, j: _lca_level(VALUES[i], VALUES[j]) / (SENSITIVE_TREE.n_levels - 1),
}


def closeness(distance, **extra):
    """t-closeness at t = 0.3 under ``distance``, with the hierarchy or the order it needs."""
    return TCloseness(
        0.3,
        distance,
        hierarchy=SENSITIVE_TREE if distance == "hierarchical" else None,
        order=VALUES if distance == "ordered" else None,
        **extra,
    )


def _transport(p, q, ground):
    """The Earth Mover's Distance as a linear program: the cheapest flow turning p into q."""
    m = len(p)
    cost = np.array([ground(i, j) for i in range(m) for j in range(m)], dtype=float)
    rows = [[1.0 if k // m == i else 0.0 for k in range(m * m)] for i in range(m)]
    cols = [[1.0 if k % m == j else 0.0 for k in range(m * m)] for j in range(m)]
    result = linprog(cost, A_eq=np.array(rows + cols), b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    return result.fun


def _lca_level(a, b):
    for level in range(SENSITIVE_TREE.n_levels):
        if level == SENSITIVE_TREE.n_levels - 1 or (
            SENSITIVE_TREE.generalize(np.array([a]), level)[0] == SENSITIVE_TREE.generalize(np.array([b]), level)[0]
        ):
            return level
    raise AssertionError


@settings(max_examples=60, deadline=None)
@given(releases())
def test_l_diversity_models_against_brute_force(release):
    counts = sensitive_counts(release, ["qi"], "s")
    classes = _classes(release)
    distinct = min(len(set(v)) for v in classes.values())
    assert DistinctLDiversity(2).measure(counts) == distinct
    assert DistinctLDiversity(3).holds(counts) == (distinct >= 3)
    entropies = [-sum(v.count(x) / len(v) * math.log(v.count(x) / len(v)) for x in set(v)) for v in classes.values()]
    assert EntropyLDiversity(2).measure(counts) == pytest.approx(math.exp(min(entropies)))
    assert EntropyLDiversity(2.5).holds(counts) == all(h >= math.log(2.5) - 1e-12 for h in entropies)
    for c, l in [(1.0, 2), (2.0, 2), (3.0, 3)]:
        ok = True
        for v in classes.values():
            r = sorted((v.count(x) for x in set(v)), reverse=True)
            ok &= len(r) >= l and r[0] < c * sum(r[l - 1 :])
        assert RecursiveCLDiversity(c, l).holds(counts) == ok


@settings(max_examples=40, deadline=None)
@given(releases())
def test_t_closeness_distances_are_the_transport_problem(release):
    counts = sensitive_counts(release, ["qi"], "s", order=VALUES, input_table=release)
    overall = counts.overall
    shares = counts.counts / counts.counts.sum(axis=1, keepdims=True)
    for distance, ground in GROUNDS.items():
        model = closeness(distance)
        found = model.distances(counts.counts, overall, counts.values)
        expected = [_transport(row, overall, ground) for row in shares]
        assert found == pytest.approx(expected, abs=1e-9), distance
        assert model.holds(counts) == (max(expected) <= 0.3 + 1e-9)
        assert model.measure(counts) == pytest.approx(max(expected), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(releases())
def test_absent_mass_bounds_the_distance_from_below_and_only_shrinks_when_classes_merge(release):
    """The full-domain search's monotone condition of t-closeness (privnb.mechanisms._absent_mass): each value
    a class lacks weighs its input mass times its least ground distance (brute force over the other values),
    the sum is at most the transport problem's distance, and a merged class's is at most each part's."""
    counts = sensitive_counts(release, ["qi"], "s", order=VALUES, input_table=release)
    overall, m = counts.overall, len(VALUES)
    shares = counts.counts / counts.counts.sum(axis=1, keepdims=True)
    for distance, ground in GROUNDS.items():
        model = closeness(distance, values=tuple(VALUES))
        condition = absent_mass(model, overall, VALUES)
        least = [min(ground(v, u) for u in range(m) if u != v) for v in range(m)]
        assert condition.weights == pytest.approx([p * d for p, d in zip(overall, least)]), distance
        mass = (counts.counts == 0) @ np.array(condition.weights)
        emd = [_transport(row, overall, ground) for row in shares]
        assert (mass <= np.array(emd) + 1e-9).all(), distance
        assert (condition.class_holds(counts.counts, overall) >= model.class_holds(counts.counts, overall)).all()
        for a, b in itertools.combinations(range(len(counts.counts)), 2):
            merged = (counts.counts[a] + counts.counts[b] == 0) @ np.array(condition.weights)
            assert merged <= min(mass[a], mass[b]) + 1e-12
    released = dataclasses.replace(TCloseness(0.3), reference="release")
    assert absent_mass(released, overall, VALUES) is None  # its distribution moves with the suppression


@settings(max_examples=80, deadline=None)
@given(releases(), st.lists(st.sampled_from(VALUES), min_size=1, max_size=12), st.sampled_from([0.2, 0.5, 1.0, 3.0]))
def test_beta_likeness_against_brute_force(release, reference, beta):
    """Against another table (which may lack values the release holds, p = 0) and against the release itself,
    over the whole domain in order (values neither holds: p = q = 0, no gain)."""
    for table, reading in ((reference, "input"), (list(release["s"]), "release")):
        counts = sensitive_counts(release, ["qi"], "s", order=VALUES, input_table=pd.Series(table, name="s"))
        p = {x: table.count(x) / len(table) for x in VALUES}
        basic, enhanced, gains = True, True, []
        for v in _classes(release).values():
            for x in set(v):
                q = v.count(x) / len(v)
                if q > p[x]:  # Cao and Karras: the relative gain (q - p) / p, unbounded where p = 0
                    gain = (q - p[x]) / p[x] if p[x] > 0 else math.inf
                    limit = -math.log(p[x]) if p[x] > 0 else math.inf
                    gains.append((gain, limit))
                    basic &= gain <= beta + 1e-12
                    enhanced &= gain <= min(beta, limit) + 1e-12
        models = [BasicBetaLikeness(beta, reference=reading), EnhancedBetaLikeness(beta, reference=reading)]
        assert models[0].holds(counts) == basic
        assert models[1].holds(counts) == enhanced
        assert models[0].measure(counts) == pytest.approx(max([g for g, _ in gains], default=0.0))
        least = math.inf if any(g > lim + 1e-12 for g, lim in gains) else max([g for g, _ in gains], default=0.0)
        assert models[1].measure(counts) == pytest.approx(least)


def test_a_value_no_row_holds_is_no_gain_and_a_value_the_table_lacks_no_beta():
    # the domain {a, b, c}; the table holds a and b only, as does the class
    counts = np.array([[1, 1, 0]])
    table = np.array([0.5, 0.5, 0.0])
    assert EnhancedBetaLikeness(1.0).class_holds(counts, table).all()  # c: p = q = 0, no gain (was -inf)
    assert BasicBetaLikeness(1.0).class_holds(np.array([[2, 0, 0]]), table).all()  # a gains 1.0 <= beta
    lacking = np.array([[1, 0, 1]])  # the class holds c, which the table lacks: an unbounded gain
    assert not BasicBetaLikeness(1000.0).class_holds(lacking, table).any()
    assert not EnhancedBetaLikeness(1000.0).class_holds(lacking, table).any()
    frame = pd.DataFrame({"qi": [0, 0], "s": ["a", "c"]})
    found = sensitive_counts(frame, ["qi"], "s", input_table=pd.Series(["a", "b"], name="s"))
    assert BasicBetaLikeness(1.0).measure(found) == math.inf == EnhancedBetaLikeness(1.0).measure(found)


def test_textbook_examples():
    # Li et al.'s salary example: {3k, 4k, 5k} against the table's 3k..11k is 0.375 apart (ordered distance)
    table = np.full(9, 1 / 9)
    low = np.array([[1 / 3, 1 / 3, 1 / 3, 0, 0, 0, 0, 0, 0]])
    assert emd_ordered(low, table)[0] == pytest.approx(0.375)
    spread = np.array([[0, 0, 0, 1 / 3, 0, 1 / 3, 0, 0, 1 / 3]])  # {6k, 8k, 11k}
    assert emd_ordered(spread, table)[0] == pytest.approx(0.167, abs=1e-3)
    # a class holding only "a" against a table of two equal halves {a} {f}: the flow crosses the root
    both = np.array([[1.0, 0, 0, 0, 0, 0]])
    half = np.array([0.5, 0, 0, 0, 0, 0.5])
    assert emd_hierarchical(both, half, SENSITIVE_TREE, VALUES)[0] == pytest.approx(0.5)


def test_bad_parameters_say_what_to_do():
    with pytest.raises(ValueError, match="l must be an integer"):
        DistinctLDiversity(0)
    for t in (1.5, True, float("nan"), "0.2"):
        with pytest.raises(ValueError, match=r"t must be a number in \[0, 1\]"):
            TCloseness(t)
    for make in (BasicBetaLikeness, EnhancedBetaLikeness, lambda b: RecursiveCLDiversity(b, 2)):
        for bad in (True, math.inf, float("nan")):
            with pytest.raises(ValueError, match="must be a positive number"):
                make(bad)
    with pytest.raises(ValueError, match="reference must be 'input'"):
        TCloseness(0.2, reference="table")
    with pytest.raises(ValueError, match="hierarchy="):
        TCloseness(0.2, "hierarchical")
    with pytest.raises(ValueError, match="beta must be a positive"):
        BasicBetaLikeness(0)
    with pytest.raises(ValueError, match="quasi-identifiers"):
        sensitive_counts(pd.DataFrame({"x": [1]}), ["qi"], "s")
    release = pd.DataFrame({"qi": [0, 0, 1], "s": ["a", None, "b"]})
    with pytest.raises(ValueError, match=r"sensitive column 's' of the release has 1 missing value.*drop those rows"):
        sensitive_counts(release, ["qi"], "s")
    with pytest.raises(ValueError, match="input table has 1 missing"):
        sensitive_counts(release.dropna(), ["qi"], "s", input_table=release)
    counts = sensitive_counts(release.dropna(), ["qi"], "s")
    for model in (TCloseness(0.2), BasicBetaLikeness(1.0), EnhancedBetaLikeness(1.0)):
        with pytest.raises(ValueError, match="input_table="):  # ARX's reading needs the input's distribution
            model.holds(counts)


def test_the_two_readings_differ_only_when_rows_are_suppressed():
    table = pd.DataFrame({"qi": [0, 0, 1, 1, 2, 2], "s": ["a", "b", "a", "b", "a", "a"]})
    release = table[table["qi"] < 2]  # class 2 suppressed: the release holds a and b equally
    counts = sensitive_counts(release, ["qi"], "s", input_table=table)
    assert TCloseness(0.0, reference="release").holds(counts)
    assert TCloseness(0.16, reference="input").measure(counts) == pytest.approx(1 / 6)
    whole = sensitive_counts(table, ["qi"], "s", input_table=table)
    for model in (TCloseness(0.3), BasicBetaLikeness(0.5), EnhancedBetaLikeness(0.5)):
        assert model.measure(whole) == dataclasses.replace(model, reference="release").measure(whole)


def test_every_model_reads_anatomy_groups_as_classes():
    from privnb.mechanisms import anatomize

    rng = np.random.RandomState(0)
    data = pd.DataFrame({"age": rng.randint(20, 60, 200), "s": rng.choice(VALUES, 200)})
    anatomy = anatomize(data, "s", 3, random_state=0)
    counts = sensitive_counts(anatomy.st, ["gid"], "s")  # each group releases its l sensitive values
    assert DistinctLDiversity(3).holds(counts) and not DistinctLDiversity(4).holds(counts)
    assert EntropyLDiversity(3).holds(counts)


def test_agrees_with_pycanon_where_importable():
    """pyCANON defines distinct and entropy l (floored), basic beta and t (equal distance for text, ordered for
    numbers) as privnb does; its recursive (c,l) and enhanced beta read differently (see the models' docstrings).
    """
    anonymity = pytest.importorskip("pycanon.anonymity")
    for seed in range(10):
        rng = np.random.RandomState(seed)
        n = rng.randint(20, 200)
        release = pd.DataFrame(
            {
                "qi": rng.randint(0, rng.randint(1, 8), n),
                "s": rng.choice(VALUES[: rng.randint(2, 6)], n),
                "num": rng.randint(0, rng.randint(2, 9), n),
            }
        )
        counts, numbers = sensitive_counts(release, ["qi"], "s"), sensitive_counts(release, ["qi"], "num")
        # pyCANON holds only the release: its reading is the release's own distribution
        assert anonymity.l_diversity(release, ["qi"], ["s"]) == DistinctLDiversity(1).measure(counts)
        assert anonymity.entropy_l_diversity(release, ["qi"], ["s"]) == math.floor(
            EntropyLDiversity(1).measure(counts) + 1e-9
        )
        assert anonymity.basic_beta_likeness(release, ["qi"], ["s"]) == pytest.approx(
            BasicBetaLikeness(1, reference="release").measure(counts)
        )
        assert anonymity.t_closeness(release, ["qi"], ["s"]) == pytest.approx(
            TCloseness(0.5, reference="release").measure(counts)
        )
        assert anonymity.t_closeness(release, ["qi"], ["num"]) == pytest.approx(
            TCloseness(0.5, "ordered", reference="release").measure(numbers)
        )


def test_pairs_of_values_in_the_tree():
    # the brute-force ground distance itself: siblings 1/3, cousins 2/3, across the root 1
    assert [_lca_level(a, b) for a, b in itertools.combinations(["a", "b", "c", "f"], 2)] == [1, 2, 3, 2, 3, 3]
