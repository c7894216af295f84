"""Re-identification and homogeneity of k-anonymous releases, each risk under its own name: brute force and
bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.attacks import homogeneity_attack, prosecutor_attack


def _classes(df):
    return [[j for j in range(len(df)) if (df.a[j], df.b[j]) == (df.a[i], df.b[i])] for i in range(len(df))]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30))
def test_prosecutor_risks_match_brute_force_each_under_its_own_name(seed, n):
    rng = np.random.RandomState(seed)
    df = pd.DataFrame({"a": rng.randint(0, 3, n), "b": rng.randint(0, 2, n), "s": rng.randint(0, 3, n)})
    same = _classes(df)
    classes = {tuple(c) for c in same}
    risk = prosecutor_attack(df, ["a", "b"])
    assert risk.details["k"] == min(len(c) for c in same)
    assert risk.details["highest"] == pytest.approx(max(1 / len(c) for c in same))
    assert risk.success == risk.details["arx_average"] == pytest.approx(np.mean([1 / len(c) for c in same]))
    assert risk.details["pycanon_average"] == pytest.approx(np.mean([1 / len(c) for c in classes]))
    assert risk.baseline == pytest.approx(1 / n) and risk.n_targets == n


def test_arx_and_pycanon_averages_differ_when_classes_differ_in_size():
    df = pd.DataFrame({"a": [0, 0, 1, 1, 1, 1, 1, 1], "b": 0, "s": 0})
    risk = prosecutor_attack(df, ["a", "b"])
    assert risk.details["arx_average"] == pytest.approx(2 / 8)  # (2 * 1/2 + 6 * 1/6) / 8 records
    assert risk.details["pycanon_average"] == pytest.approx((1 / 2 + 1 / 6) / 2)  # mean over 2 classes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30))
def test_homogeneity_matches_brute_force(seed, n):
    rng = np.random.RandomState(seed)
    df = pd.DataFrame({"a": rng.randint(0, 3, n), "b": rng.randint(0, 2, n), "s": rng.randint(0, 3, n)})
    same = _classes(df)
    result = homogeneity_attack(df, ["a", "b"], "s")
    assert result.success == pytest.approx(np.mean([len({df.s[j] for j in c}) == 1 for c in same]))
    assert result.details["l_diversity"] == min(len({df.s[j] for j in c}) for c in same)
    assert result.baseline == float(df["s"].nunique() == 1)


def test_risks_agree_with_pycanon():
    anonymity = pytest.importorskip("pycanon.anonymity")
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"a": rng.randint(0, 3, 200), "b": rng.randint(0, 2, 200), "s": rng.randint(0, 4, 200)})
    assert prosecutor_attack(df, ["a", "b"]).details["k"] == anonymity.k_anonymity(df, ["a", "b"])
    assert homogeneity_attack(df, ["a", "b"], "s").details["l_diversity"] == anonymity.l_diversity(
        df, ["a", "b"], ["s"]
    )


def test_kanonymity_bad_input():
    df = pd.DataFrame({"a": [1, 1, 2], "s": [0, 1, 0]})
    with pytest.raises(ValueError, match="not 2-anonymous"):
        prosecutor_attack(df, ["a"], k=2)
    with pytest.raises(ValueError, match="sensitive column"):
        homogeneity_attack(df, ["a"], "x")
