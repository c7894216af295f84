"""Risk measures of k-anonymous releases, linkage on containment, DP NBC views: brute force and bad input."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.attacks import dp_views, kanonymity_risk, linkage_attack, singled_out
from privnb.nbc import NBCViews, achieved_r


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30))
def test_kanonymity_risk_matches_brute_force(seed, n):
    rng = np.random.RandomState(seed)
    df = pd.DataFrame({"a": rng.randint(0, 3, n), "b": rng.randint(0, 2, n), "s": rng.randint(0, 3, n)})
    risk = kanonymity_risk(df, ["a", "b"], "s")
    same = [[j for j in range(n) if (df.a[j], df.b[j]) == (df.a[i], df.b[i])] for i in range(n)]
    assert risk["k"] == min(len(c) for c in same)
    assert risk["prosecutor_highest"] == pytest.approx(max(1 / len(c) for c in same))
    assert risk["prosecutor_mean"] == pytest.approx(np.mean([1 / len(c) for c in same]))
    assert risk["homogeneity"] == pytest.approx(np.mean([len({df.s[j] for j in c}) == 1 for c in same]))
    assert risk["l_diversity"] == min(len({df.s[j] for j in c}) for c in same)


def test_kanonymity_risk_agrees_with_pycanon():
    anonymity = pytest.importorskip("pycanon.anonymity")
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"a": rng.randint(0, 3, 200), "b": rng.randint(0, 2, 200), "s": rng.randint(0, 4, 200)})
    risk = kanonymity_risk(df, ["a", "b"], "s")
    assert risk["k"] == anonymity.k_anonymity(df, ["a", "b"])
    assert risk["l_diversity"] == anonymity.l_diversity(df, ["a", "b"], ["s"])


def test_kanonymity_bad_input():
    df = pd.DataFrame({"a": [1, 1, 2], "s": [0, 1, 0]})
    with pytest.raises(ValueError, match="not 2-anonymous"):
        kanonymity_risk(df, ["a"], "s", k=2)
    with pytest.raises(ValueError, match="sensitive column"):
        kanonymity_risk(df, ["a"], "x")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 3))
def test_singled_out_matches_brute_force(seed, m):
    rng = np.random.RandomState(seed)
    dense = (rng.rand(25, 7) < 0.5).astype(int)
    features = np.sort(rng.choice(7, 4, replace=False))
    known = np.array([rng.choice(7, m, replace=False) for _ in range(25)])
    counts = singled_out(sp.csr_array(dense), known, features)
    for u in range(25):
        items = [i for i in known[u] if i in features]
        assert counts[u] == sum(all(dense[r, i] for i in items) for r in range(25))


def test_linkage_full_set_singles_out_and_k_anonymous_projection_does_not():
    rng = np.random.RandomState(0)
    dense = (rng.rand(300, 15) < 0.5).astype(int)
    full = linkage_attack(dense, 9, on_short="skip", random_state=0)
    assert full["singled_out"] > 0.3 and full["n_users"] + full["n_skipped"] == 300
    # a projection on two features: each of its four patterns is shared by far more than one row
    assert linkage_attack(dense, 5, [0, 1], on_short="skip", random_state=0)["singled_out"] == 0.0


def test_linkage_bad_input():
    dense = np.array([[1, 0, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match="fewer than m=3 items"):
        linkage_attack(dense, 3)
    with pytest.raises(ValueError, match="m must be"):
        linkage_attack(dense, 0)
    assert linkage_attack(dense, 3, on_short="skip")["n_skipped"] == 1


def test_dp_views_are_realistic_and_audited():
    rng = np.random.RandomState(0)
    frame = pd.DataFrame({"a": rng.randint(0, 3, 300), "b": rng.randint(0, 2, 300), "y": rng.randint(0, 2, 300)})
    views = NBCViews.from_frame(frame, ["a", "b"], "y")
    for mechanism in ("laplace", "geometric"):
        released = dp_views(views, 1.0, mechanism=mechanism, random_state=0)
        assert released.is_integral() and released.is_realistic()
        assert all((np.asarray(c, dtype=float) >= 1).all() for c in released.counts.values())
        assert 1 <= achieved_r(released) < np.inf
    with pytest.raises(ValueError, match="epsilon"):
        dp_views(views, 0)
    with pytest.raises(ValueError, match="mechanism"):
        dp_views(views, 1.0, mechanism="gauss")
