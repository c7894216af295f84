"""The ordered distance of t-closeness by the attribute's declared order (numbers by value, never as strings;
text without an order refused), against a brute-force transport problem; and on Adult's education, a release
certified t-close holds under education's real order."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from small_hierarchies import HAS_ADULT_HIERARCHIES, small_hierarchies

from privnb.mechanisms import (
    FullDomainGeneralizer,
    MondrianGeneralizer,
    TCloseness,
    sensitive_counts,
)
from privnb.mechanisms._ground_distances import emd_in_order, ordered_domain

LETTERS = list("abcdef")


def transport(p, q, ground) -> float:
    """The Earth Mover's Distance as a linear program: the cheapest flow turning p into q."""
    m = len(p)
    cost = np.array([ground(i, j) for i in range(m) for j in range(m)], dtype=float)
    rows = [[1.0 if k // m == i else 0.0 for k in range(m * m)] for i in range(m)]
    cols = [[1.0 if k % m == j else 0.0 for k in range(m * m)] for j in range(m)]
    result = linprog(cost, A_eq=np.array(rows + cols), b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    return result.fun


def brute_ordered(classes, table, domain):
    """Each class's distance to the table, the ground distance |i - j| / (m - 1) over ``domain`` in order."""
    m = len(domain)
    p = np.array([table.count(v) / len(table) for v in domain])
    ground = (lambda i, j: abs(i - j) / (m - 1)) if m > 1 else (lambda i, j: 0.0)
    return [transport(np.array([c.count(v) / len(c) for v in domain]), p, ground) for c in classes]


@st.composite
def numeric_tables(draw):
    """A table of a few classes whose sensitive values are numbers of mixed widths (2 sorts after 10 as text)."""
    pool = draw(st.lists(st.sampled_from([-3, 0, 2, 2.5, 9, 10, 100]), min_size=1, max_size=5, unique=True))
    n_classes = draw(st.integers(1, 4))
    rows = [(c, v) for c in range(n_classes) for v in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))]
    return pd.DataFrame(rows, columns=["qi", "s"])


@st.composite
def ordered_text_tables(draw):
    """A table of letters and a declared order of them (a random permutation, a superset of what appears)."""
    order = draw(st.permutations(LETTERS))
    pool = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=6, unique=True))
    n_classes = draw(st.integers(1, 4))
    rows = [(c, v) for c in range(n_classes) for v in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))]
    return pd.DataFrame(rows, columns=["qi", "s"]), list(order)


def _classes(table):
    return [list(g["s"]) for _, g in table.groupby("qi")]


@settings(max_examples=60, deadline=None)
@given(numeric_tables())
def test_numbers_are_ordered_by_value(table):
    counts = sensitive_counts(table, ["qi"], "s", input_table=table)
    model = TCloseness(0.2, "ordered")
    domain = sorted(set(table["s"]))  # by value
    expected = brute_ordered(_classes(table), list(table["s"]), domain)
    assert model.distances(counts.counts, counts.input_overall, counts.values) == pytest.approx(expected, abs=1e-9)
    assert model.measure(counts) == pytest.approx(max(expected), abs=1e-9)
    assert model.holds(counts) == (max(expected) <= 0.2 + 1e-9)
    # the columns in any order (here reversed) give the same distances: the model orders them by value
    flip = slice(None, None, -1)
    found = model.distances(counts.counts[:, flip], counts.input_overall[flip], counts.values[flip])
    assert found == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(ordered_text_tables())
def test_text_is_ordered_by_its_declared_order(drawn):
    table, order = drawn
    counts = sensitive_counts(table, ["qi"], "s", input_table=table)
    model = TCloseness(0.2, "ordered", order=order)
    expected = brute_ordered(_classes(table), list(table["s"]), order)  # every declared value is in the domain
    assert model.measure(counts) == pytest.approx(max(expected), abs=1e-9)
    assert model.holds(counts) == (max(expected) <= 0.2 + 1e-9)
    with pytest.raises(ValueError, match="needs the order of the sensitive values"):
        TCloseness(0.2, "ordered").holds(counts)


def test_the_declared_order_is_the_domain():
    # Li et al.'s salary example in the declared domain 3k..11k: {3k, 4k, 5k} is 0.375 from a uniform table
    order = [f"{k}k" for k in range(3, 12)]
    table = pd.DataFrame({"qi": [0, 0, 0] + [1] * 6, "s": order})
    counts = sensitive_counts(table, ["qi"], "s", input_table=table)
    assert TCloseness(0.5, "ordered", order=order).distances(
        counts.counts, counts.input_overall, counts.values
    ) == pytest.approx([0.375, 0.1875])
    # a string sort would put 10k and 11k before 3k: the distances then differ
    as_strings = TCloseness(0.5, "ordered", order=sorted(order)).distances(
        counts.counts, counts.input_overall, counts.values
    )
    assert as_strings[0] != pytest.approx(0.375)


def test_refusals_say_what_to_do():
    with pytest.raises(ValueError, match="order="):
        ordered_domain(np.array(["x", "y"], dtype=object), np.array([True, True]))
    with pytest.raises(ValueError, match="not in the declared order"):
        emd_in_order(np.array([[1.0, 0.0]]), np.array([0.5, 0.5]), ["a", "z"], order=["a", "b"])
    with pytest.raises(ValueError, match="for distance='ordered'"):
        TCloseness(0.2, "equal", order=["a", "b"])
    with pytest.raises(ValueError, match="distinct values"):
        TCloseness(0.2, "ordered", order=["a", "a"])
    with pytest.raises(ValueError, match="values="):
        TCloseness(0.2, "ordered").class_holds(np.array([[1, 0]]), np.array([0.5, 0.5]))
    # numeric strings are text: no order by value is guessed for them
    table = pd.DataFrame({"qi": [0, 1], "s": ["2", "10"]})
    with pytest.raises(ValueError, match="order"):
        TCloseness(0.2, "ordered").holds(sensitive_counts(table, ["qi"], "s", input_table=table))


@pytest.mark.parametrize("method", ["full-domain", "mondrian"])
def test_generalizers_take_the_order_from_orders_or_refuse(method):
    rng = np.random.default_rng(0)
    order = ["low", "mid", "high", "top"]
    frame = pd.DataFrame({"num": rng.integers(0, 8, 80), "let": rng.choice(list("abcd"), 80)})
    frame["s"] = np.where(frame["num"] < 4, rng.choice(order[:2], 80), rng.choice(order, 80))

    def make(model, orders):
        if method == "full-domain":
            return FullDomainGeneralizer(
                ["num", "let"], 2, small_hierarchies(["num", "let"], num_top=8), max_suppression=0.1,
                sensitive="s", privacy_models=[model], orders=orders,
            )  # fmt: skip
        return MondrianGeneralizer(["num", "let"], 2, sensitive="s", privacy_models=[model], orders=orders)

    with pytest.raises(ValueError, match="needs the order of the sensitive values"):
        make(TCloseness(0.15, "ordered"), None).fit(frame)
    release = make(TCloseness(0.15, "ordered"), {"s": order}).fit(frame).generalized_
    given = make(TCloseness(0.15, "ordered", order=order), None).fit(frame).generalized_
    assert release.equals(given)
    counts = sensitive_counts(release, ["num", "let"], "s", input_table=frame)
    assert TCloseness(0.15, "ordered", order=order).holds(counts)
    with pytest.raises(ValueError, match="differs"):
        make(TCloseness(0.15, "ordered", order=order[::-1]), {"s": order}).fit(frame)


def _education_distance(release, frame, qi, order):
    """The largest distance of a class to the table in education's real order, written out (cumulative sums)."""
    p = frame["education"].value_counts(normalize=True).reindex(order, fill_value=0.0).to_numpy()
    worst = 0.0
    for _, rows in release.groupby(qi):
        q = rows["education"].value_counts(normalize=True).reindex(order, fill_value=0.0).to_numpy()
        worst = max(worst, float(np.abs(np.cumsum(q - p)).sum()) / (len(order) - 1))
    return worst


@pytest.mark.skipif(not HAS_ADULT_HIERARCHIES, reason="needs PRIVNB_DATA with adult and adult_hierarchies")
def test_a_t_close_release_of_adult_holds_in_educations_real_order():
    from privnb.data import adult_hierarchies, load

    data = load("adult")
    order = list(data.orders["education"])
    assert order[0] == "Preschool" and order[-1] == "Doctorate" and len(order) == 16
    frame = data.sample(3000, random_state=0).frame.reset_index(drop=True)
    qi = ["age", "marital-status", "race", "sex"]
    t = 0.05
    with pytest.raises(ValueError, match="needs the order"):
        MondrianGeneralizer(
            qi, 5, kinds=data.kinds, sensitive="education", privacy_models=[TCloseness(t, "ordered")]
        ).fit(frame)
    mondrian = MondrianGeneralizer(
        qi, 5, kinds=data.kinds, orders=data.orders, sensitive="education", privacy_models=[TCloseness(t, "ordered")]
    ).fit(frame)
    full_domain = FullDomainGeneralizer(
        qi, 5, adult_hierarchies(), sensitive="education", privacy_models=[TCloseness(t, "ordered", order=order)]
    ).fit(frame)
    for gen in (mondrian, full_domain):
        release = gen.generalized_
        assert release.groupby(qi).ngroups > 1
        assert _education_distance(release, frame, qi, order) <= t + 1e-9
        counts = sensitive_counts(release, qi, "education", input_table=frame)
        assert TCloseness(t, "ordered", order=order).measure(counts) == pytest.approx(
            _education_distance(release, frame, qi, order), abs=1e-12
        )
    assert math.isfinite(full_domain.score_)
