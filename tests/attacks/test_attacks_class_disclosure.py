"""The de Finetti attack on a generalized release's classes (privnb.attacks.class_disclosure): the same attack as
on anatomy when the classes are anatomy's groups, Sinkhorn's marginals and bound against brute force, a planted
dependence found through large classes, bad input."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from privnb.attacks import class_disclosure, class_release, definetti_attack, definetti_disclosure
from privnb.attacks.definetti import sinkhorn_marginals
from privnb.mechanisms import DistinctLDiversity, MondrianGeneralizer, anatomize


def _table(n, seed):
    rng = np.random.RandomState(seed)
    q1, q2 = rng.randint(0, 5, n), rng.randint(0, 3, n)
    return pd.DataFrame({"q1": q1, "q2": q2, "s": q1.astype(str)})  # s planted on q1


@pytest.mark.parametrize("l", [2, 3])
def test_on_anatomys_groups_it_is_the_attack_on_anatomy(l):
    df = _table(300, l)
    anatomy = anatomize(df, "s", l, random_state=0)
    # the same grouping published as a generalization would: each row its class id and its own value
    release = pd.DataFrame({"gid": anatomy.it["gid"], "s": df["s"].reindex(anatomy.it.index)})
    found = class_disclosure(release, df, ["q1", "q2"], "s", classes=["gid"], n_iter=30)
    expected = definetti_disclosure(anatomy, df["s"], quasi_identifiers=["q1", "q2"], n_iter=30)
    assert found[0].success == pytest.approx(expected.success) and found[0].baseline == pytest.approx(expected.baseline)
    assert found[0].details["success_all_rows"] == pytest.approx(expected.details["success_all_rows"])
    assert found[0].details["strongest"] == expected.details["strongest"]


def _exact(scores, values):
    """Brute force over the permutations: the marginals P(member a holds value v) and log permanent."""
    s = len(values)
    logs = np.array([sum(scores[a, values[p[a]]] for a in range(s)) for p in itertools.permutations(range(s))])
    norm = logsumexp(logs)
    marginal = np.zeros_like(scores)
    for lp, p in zip(logs, itertools.permutations(range(s))):
        for a in range(s):
            marginal[a, values[p[a]]] += math.exp(lp - norm)
    return marginal, norm


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.integers(0, 3), min_size=2, max_size=6),
    seed=st.integers(0, 10_000),
)
def test_sinkhorn_sums_and_its_likelihood_brackets_the_exact_one(values, seed):
    scores = np.random.RandomState(seed).normal(size=(len(values), 4))
    counts = np.bincount(values, minlength=4)[None, :].astype(float)
    marginals, energy, _ = sinkhorn_marginals(scores, np.zeros(len(values), dtype=int), counts)
    np.testing.assert_allclose(marginals.sum(axis=1), 1, atol=1e-9)
    np.testing.assert_allclose(marginals.sum(axis=0), counts[0], atol=1e-3)
    assert (marginals[:, counts[0] == 0] == 0).all()
    _, log_perm = _exact(scores, values)
    s = len(values)  # van der Waerden: the free energy exceeds the log permanent by at most log(s^s / s!)
    assert log_perm - 1e-3 <= energy <= log_perm + s * math.log(s) - math.lgamma(s + 1) + 1e-3


def test_sinkhorn_is_exact_when_the_scores_do_not_tell_members_apart():
    scores = np.tile(np.random.RandomState(0).normal(size=3), (5, 1))
    values = [0, 0, 1, 2, 2]
    counts = np.bincount(values, minlength=3)[None, :].astype(float)
    marginals, _, _ = sinkhorn_marginals(scores, np.zeros(5, dtype=int), counts)
    exact, _ = _exact(scores, values)
    np.testing.assert_allclose(marginals, exact, atol=1e-4)


def test_a_planted_dependence_is_found_through_large_l_diverse_classes():
    df = _table(600, 1)
    mondrian = MondrianGeneralizer(["q1", "q2"], 8, sensitive="s", privacy_models=[DistinctLDiversity(2)]).fit(df)
    sizes = mondrian.generalized_.groupby(["q1", "q2"]).size()
    assert sizes.max() > 6  # the Sinkhorn path runs
    definetti, reference = class_disclosure(mondrian.generalized_, df, ["q1", "q2"], "s", n_iter=50)
    assert definetti.success > definetti.baseline + 0.2
    assert definetti.success > definetti.details["random_worlds"] + 0.2
    assert reference.attack == "original_model" and reference.success > definetti.baseline + 0.2


def test_bad_input():
    df = _table(60, 0)
    release = df.assign(g=np.arange(60) // 10)
    with pytest.raises(ValueError, match="indexed by the original rows"):
        class_release(release.set_index(release.index + 1000), df, ["q1"], "s", classes=["g"])
    with pytest.raises(ValueError, match="sensitive column"):
        class_release(release.drop(columns="s"), df, ["q1"], "s", classes=["g"])
    with pytest.raises(ValueError, match="sinkhorn"):  # classes of 10 rows: refused unless approximated
        definetti_attack(class_release(release, df, ["q1", "q2"], "s", classes=["g"]))
    holed = release.assign(s=release["s"].where(np.arange(60) != 7))
    with pytest.raises(ValueError, match="1 missing values"):  # a NaN would be one more value of its class
        class_disclosure(holed, df, ["q1"], "s", classes=["g"])
    with pytest.raises(ValueError, match="n_iter must be an integer >= 1"):
        class_disclosure(release, df, ["q1"], "s", classes=["g"], n_iter=0)
    for tol in (np.nan, -1.0):
        with pytest.raises(ValueError, match="tol"):
            class_disclosure(release, df, ["q1"], "s", classes=["g"], tol=tol)
