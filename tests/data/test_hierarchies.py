"""Generalization hierarchies: carried by the data set (``Dataset.hierarchies``, from its card), validated when
built (a card's bad hierarchy is a CardError naming the card, the column and the file), bounded in size, and
labelled exactly (distinct intervals get distinct labels that contain their values)."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import privnb.data.cards as cards_module
from privnb import mechanisms
from privnb.__main__ import main
from privnb.attacks import equivalence_classes
from privnb.data import (
    CardError,
    Hierarchy,
    HierarchyError,
    builtin_cards,
    hierarchies_from_card,
    load,
    parse_interval,
    read_card,
)
from privnb.data._card.hierarchies import build_card_hierarchies
from privnb.data.hierarchy import MAX_GROUPS
from privnb.experiments import data_support
from privnb.mechanisms import MondrianGeneralizer


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    pd.DataFrame(
        {
            "x": rng.integers(0, 100, n),
            "zip": rng.choice(["a", "b", "c"], n),
            "s": rng.choice(["u", "v", "w"], n),
            "y": np.where(np.arange(n) % 2 == 0, "yes", "no"),
        }
    ).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "zip.csv").write_text("a;ab;*\nb;ab;*\nc;c;*\n")
    return tmp_path


def _card(folder: Path, hierarchies) -> Path:
    card = {
        "name": "t",
        "file": "t.csv",
        "roles": {"quasi_identifiers": ["x", "zip"], "sensitive": "s", "target": "y", "positive": "yes"},
        "columns": {"x": "numeric", "zip": "nominal"},
        "hierarchies": hierarchies,
    }
    path = folder / "t.yaml"
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path


# -- A: the data set carries its hierarchies ----------------------------------------------------------
def test_a_loaded_card_carries_its_hierarchies_and_samples_keep_them(folder):
    data = load(_card(folder, {"zip": {"arx": "zip.csv"}, "x": {"intervals": {"width": 25}}}))
    assert set(data.hierarchies) == {"zip", "x"} and isinstance(data.hierarchies["zip"], Hierarchy)
    assert list(data.hierarchies["zip"].generalize(["a", "c"], 1)) == ["ab", "c"]
    assert data.sample(10, random_state=0).hierarchies.keys() == data.hierarchies.keys()
    with pytest.raises(ValueError, match=r"hierarchies for \['zip'\], which are not among"):
        type(data)("t", data.frame, ("x",), "s", "y", {"x": "numeric", "s": "nominal"}, hierarchies=data.hierarchies)


def test_mechanisms_use_the_data_layers_hierarchy():
    """The generalizers take the data layer's Hierarchy; the mechanisms face does not re-export it."""
    from privnb.mechanisms import grouping

    assert grouping.Hierarchy is Hierarchy and "Hierarchy" not in mechanisms.__all__


def test_data_support_reads_the_card_once(folder, monkeypatch):
    card = _card(folder, {"zip": {"arx": "zip.csv"}, "x": {"intervals": {"width": 25}}})
    data = load(card)
    reads = []
    monkeypatch.setattr(cards_module, "read_card", lambda c: reads.append(c) or read_card(c))
    support = data_support(card, data)
    assert reads == [] and support.generalization_hierarchies == data.hierarchies


@pytest.mark.skipif("PRIVNB_DATA" not in os.environ, reason="needs the shared data (PRIVNB_DATA)")
def test_adults_hierarchies_are_the_ones_its_card_declares():
    card = builtin_cards()["adult"]
    specs, data = read_card(card)["hierarchies"], load("adult")
    assert set(data.hierarchies) == set(specs)
    for column, spec in specs.items():
        hierarchy = data.hierarchies[column]
        if "intervals" in spec:
            declared = spec["intervals"]
            assert (hierarchy.low, hierarchy.high) == (declared["low"], declared["high"])
            expected = Hierarchy.intervals(name=column, **declared)
            for level in range(1, hierarchy.n_levels):
                assert list(hierarchy.group_labels(level)) == list(expected.group_labels(level))
            assert hierarchy.n_levels == expected.n_levels
        else:
            expected = Hierarchy.from_arx(Path(os.environ["PRIVNB_DATA"]) / spec["arx"].removeprefix("data:"))
            for level in range(hierarchy.n_levels):
                assert list(hierarchy.generalize(data.frame[column], level)) == list(
                    expected.generalize(data.frame[column], level)
                )
    assert hierarchies_from_card(card).keys() == data.hierarchies.keys()


# -- B: a bad hierarchy is refused when built ---------------------------------------------------------
BAD = [
    ({"zip": {"arx": "two.csv"}}, "a;g;h1;*\nb;g;h2;*\nc;c;c;*\n", r"two.csv.*'g' at level 1 has more than one parent"),
    ({"zip": {"arx": "twice.csv"}}, "a;ab;*\na;ab;*\nb;ab;*\nc;c;*\n", r"twice.csv.*listed twice"),
    ({"x": {"arx": "num.csv"}}, "".join(f"{v};*\n" for v in range(100)) + "1.0;*\n", r"num.csv.*same number"),
    ({"zip": {"arx": "ragged.csv"}}, "a;ab;*\nb;*\nc;c;*\n", r"ragged.csv is ragged: line 2 has 2 fields"),
    ({"zip": {"arx": "binary.csv"}}, b"\xff\xfe\x00\x81;*\n", r"binary.csv cannot be read"),
    ({"x": {"intervals": {"width": 0}}}, None, r"width must be > 0"),
    ({"x": {"intervals": {"width": -5}}}, None, r"width must be > 0"),
    ({"x": {"intervals": {"width": "ten"}}}, None, r"intervals' low, high, width and cuts must be numbers"),
    ({"x": {"intervals": {"cuts": [[10, 20], [15]]}}}, None, r"cuts of level 2 must be a subset"),
    ({"x": {"intervals": {"cuts": [10, 20, 30]}}}, None, r"one list of cut points per level.*flat list"),
    ({"x": {"intervals": {"low": 0, "high": 1e6, "width": 0.0001}}}, None, rf"limit of {MAX_GROUPS}"),
]


@pytest.mark.parametrize("specs, content, message", BAD)
def test_a_bad_hierarchy_is_a_card_error_naming_card_column_and_file(folder, specs, content, message):
    ((column, spec),) = specs.items()
    if content is not None:
        target = folder / spec["arx"]
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    card = _card(folder, specs)
    with pytest.raises(CardError, match=rf"t\.yaml: column '{column}': .*{message}"):
        load(card)
    assert main(["data", "check", str(card)]) == 2


def test_build_card_hierarchies_lists_every_problem(folder):
    (folder / "ragged.csv").write_text("a;ab;*\nb;*\n")
    frame = pd.read_csv(folder / "t.csv")
    specs = {"zip": {"arx": "ragged.csv"}, "x": {"intervals": {"width": 0}}, "s": {"arx": "zip.csv"}}
    built, problems = build_card_hierarchies(folder / "t.yaml", specs, frame, {"x": "numeric", "zip": "nominal"})
    assert set(built) == set() and len(problems) == 3
    assert "does not list the values ['u', 'v', 'w']" in problems[2]


def test_intervals_are_refused_before_allocating_and_validated():
    with pytest.raises(HierarchyError, match=r"1e\+18 intervals"):
        Hierarchy.intervals(0, 1e6, width=1e-12)
    assert Hierarchy.intervals(0, MAX_GROUPS, width=1).n_groups(1) == MAX_GROUPS
    with pytest.raises(HierarchyError, match="finite number"):
        Hierarchy.intervals(0, float("inf"), width=1)
    with pytest.raises(HierarchyError, match=rf"more than privnb's limit of {MAX_GROUPS}"):
        Hierarchy.from_arx(pd.DataFrame({0: np.arange(MAX_GROUPS + 1).astype(str), 1: "*"}))


# -- C: exact numeric labels ----------------------------------------------------------------------------
def test_mondrian_near_a_million_gives_as_many_labels_as_groups():
    frame = pd.DataFrame({"v": 1234561 + np.arange(12), "s": np.arange(12) % 3})
    gen = MondrianGeneralizer(["v"], 2, kinds={"v": "numeric"}).fit(frame)
    assert gen.n_groups_ >= 4 and gen.generalized_["v"].nunique() == gen.n_groups_
    assert len(np.unique(equivalence_classes(gen.generalized_, ["v"]))) == gen.n_groups_  # attacks count them all
    labels = Hierarchy.intervals(1234560, 1234570, width=1).group_labels(1)
    assert len(set(labels)) == 10 and labels[0] == "[1234560-1234561)"


numbers = st.one_of(
    st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False),
    st.floats(1234560, 1234562),
    st.integers(-(10**15), 10**15).map(float),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(numbers, min_size=1, max_size=30), st.integers(1, 4))
def test_mondrian_labels_are_distinct_per_group_and_contain_their_values(values, k):
    frame = pd.DataFrame({"v": values})
    if len(frame) < k:
        return
    gen = MondrianGeneralizer(["v"], k, kinds={"v": "numeric"}).fit(frame)
    labels = gen.generalized_["v"]
    assert labels.nunique() == gen.n_groups_
    for label, value in zip(labels, frame["v"]):
        low, high, closed = parse_interval(label)
        assert closed and low <= value <= high


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=1, max_size=6, unique=True), st.data())
def test_interval_hierarchy_labels_are_distinct_and_contain_their_values(cuts, data):
    cuts = sorted(cuts)
    low, high = cuts[0] - 1.5, cuts[-1] + 1.5
    hierarchy = Hierarchy.intervals(low, high, cuts=[cuts])
    labels = hierarchy.group_labels(1)
    assert len(set(labels)) == len(labels) == len(cuts) + 1
    value = data.draw(st.floats(low, high))
    low_, high_, closed = parse_interval(hierarchy.generalize([value], 1)[0])
    assert low_ <= value and (value <= high_ if closed else value < high_)
