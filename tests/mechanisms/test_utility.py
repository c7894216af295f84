"""Utility of a release (privnb.mechanisms.utility): hand-computed tiny examples, a brute force over the
releases of every mechanism, and the full-domain search's own discernibility and loss."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from small_hierarchies import LETTERS, small_hierarchies

from privnb.data import Hierarchy
from privnb.mechanisms import (
    FullDomainGeneralizer,
    MDAVMicroaggregator,
    MondrianGeneralizer,
    anatomize,
    release_utility,
)


def test_hand_computed_ranges_and_sets():
    original = pd.DataFrame({"age": [20, 22, 30, 40], "sex": ["M", "F", "M", "F"]})
    release = pd.DataFrame({"age": ["[20-22]", "[20-22]", "[30-40]", "[30-40]"], "sex": ["*"] * 4})
    row = release_utility(release, original, ["age", "sex"], k=2).iloc[0]
    assert (row["n"], row["released"], row["suppressed"], row["classes"]) == (4, 4, 0, 2)
    assert row["discernibility"] == 8 and row["c_avg"] == 1.0
    # age: 2/20 for the first class, 10/20 for the second; sex: 2 of 2 values, penalty 1
    assert row["gcp"] == pytest.approx((0.1 * 2 + 0.5 * 2 + 4) / 8)
    # age: each value is one of the 2 rows of its label (1 bit); sex: M is 2 of 4 rows of * (1 bit)
    assert row["nu_entropy"] == pytest.approx(8.0)


def test_hand_computed_hierarchy_labels_and_suppression():
    original = pd.DataFrame({"let": ["a", "b", "c", "d", "a"]})
    release = pd.DataFrame({"let": ["ab", "ab", "cd", "cd"]}, index=[0, 1, 2, 3])
    hier = {"let": Hierarchy.from_arx(LETTERS, name="let")}
    row = release_utility(release, original, ["let"], k=2, hierarchies=hier).iloc[0]
    assert (row["released"], row["suppressed"], row["classes"]) == (4, 1, 2)
    assert row["discernibility"] == 4 + 4 + 5 * 1
    assert row["gcp"] == pytest.approx((4 * (2 - 1) / (4 - 1) + 1) / 5)
    assert row["nu_entropy"] == pytest.approx(4 * 1.0 - math.log2(2 / 5))


def test_anatomy_is_not_generalized():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 24), "b": rng.integers(0, 3, 24), "s": np.arange(24) % 4})
    anatomy = anatomize(frame, "s", 2, random_state=0)
    row = release_utility(anatomy.it, frame, ["a", "b"], k=2, classes="gid").iloc[0]
    groups = anatomy.it["gid"].value_counts().to_numpy()
    assert row["gcp"] == 0 and row["nu_entropy"] == 0
    assert row["classes"] == len(groups) and row["discernibility"] == float((groups**2).sum())
    assert row["suppressed"] == len(frame) - len(anatomy.it)


def brute_utility(release, original, qi, k, hierarchies):
    """Every metric by loops over rows: classes by the released values."""
    n = len(original)
    keys = [tuple(release.loc[i, a] for a in qi) for i in release.index]
    sizes = {key: keys.count(key) for key in set(keys)}
    sup = n - len(release)
    penalty = 0.0
    for i, key in zip(release.index, keys):
        members = [j for j, other in zip(release.index, keys) if other == key]
        for a in qi:
            v, g = original.loc[i, a], release.loc[i, a]
            if all(release.loc[j, a] == original.loc[j, a] for j in members):
                continue  # the class's values released as they are
            h = hierarchies.get(a)
            level = next((lv for lv in range(h.n_levels) if h.generalize([v], lv)[0] == g), None) if h else None
            if level == 0:
                continue  # the raw value's label
            if level is not None and h.numeric:
                lo, hi = h.group_bounds(level)
                code = h.codes([v], level)[0]
                penalty += (hi[code] - lo[code]) / (h.high - h.low)
            elif level is not None:
                leaves = [x for x in h.values if h.generalize([x], level)[0] == g]
                penalty += (len(leaves) - 1) / (len(h.values) - 1)
            elif pd.api.types.is_numeric_dtype(original[a]):
                vals = [original.loc[j, a] for j in members]
                width = original[a].max() - original[a].min()
                penalty += (max(vals) - min(vals)) / width if width else 0.0
            else:
                distinct = original[a].nunique()
                penalty += (len({original.loc[j, a] for j in members}) - 1) / (distinct - 1) if distinct > 1 else 0
    entropy = 0.0
    for a in qi:
        for i in original.index:
            v = original.loc[i, a]
            if i in release.index:
                g = str(release.loc[i, a])
                same_g = [j for j in release.index if str(release.loc[j, a]) == g]
                entropy -= math.log2(sum(original.loc[j, a] == v for j in same_g) / len(same_g))
            else:
                entropy -= math.log2((original[a] == v).sum() / n)
    return {
        "classes": len(sizes),
        "discernibility": sum(s * s for s in sizes.values()) + n * sup,
        "c_avg": len(release) / (len(sizes) * k),
        "gcp": (penalty + sup * len(qi)) / (n * len(qi)),
        "nu_entropy": entropy,
    }


QI = ["num", "let"]
frames = st.integers(2, 16).flatmap(
    lambda n: st.builds(
        lambda num, let: pd.DataFrame({"num": num, "let": let, "y": np.arange(n) % 2}),
        st.lists(st.integers(0, 7), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
    )
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 3), st.sampled_from(["full-domain", "mondrian", "mdav"]))
def test_every_mechanism_against_brute_force(frame, k, method):
    hier = small_hierarchies(("num", "let"), num_top=8)
    if len(frame) < k:
        return
    if method == "full-domain":
        release = FullDomainGeneralizer(QI, k, hier, max_suppression=0.3).fit(frame).generalized_
    elif method == "mondrian":
        release = MondrianGeneralizer(QI, k, hierarchies={"let": hier["let"]}).fit(frame).generalized_
        hier = {"let": hier["let"]}
    else:
        frame = frame.assign(let=frame["let"].map("abcd".index))
        release = MDAVMicroaggregator(QI, k).fit(frame).generalized_
        hier = {}
    found = release_utility(release, frame, QI, k=k, hierarchies=hier).iloc[0]
    for name, value in brute_utility(release, frame, QI, k, hier).items():
        assert found[name] == pytest.approx(value), name


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 4))
def test_full_domain_scores_are_the_release_utility(frame, k):
    hier = small_hierarchies(("num", "let"), num_top=8)
    if len(frame) < k:
        return
    for utility, column in (("discernibility", "discernibility"), ("loss", "gcp")):
        gen = FullDomainGeneralizer(QI, k, hier, max_suppression=0.5, utility=utility)
        try:
            gen.fit(frame)
        except ValueError:
            return
        row = release_utility(gen.generalized_, frame, QI, k=k, hierarchies=hier).iloc[0]
        assert row[column] == pytest.approx(gen.minimal_nodes_.loc[0, utility])


def test_release_must_keep_the_original_labels():
    original = pd.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(ValueError, match="indexed by the original rows"):
        release_utility(pd.DataFrame({"a": [1, 2]}, index=[5, 6]), original, ["a"], k=1)
    with pytest.raises(ValueError, match="k"):
        release_utility(original, original, ["a"], k=0)
