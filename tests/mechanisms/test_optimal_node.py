"""ARX's optimum: the best node over every acceptable node of the full-domain lattice (branch and bound),
against a brute force over every node, and ARX's own figures on its Adult task."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from small_hierarchies import HAS_ADULT_HIERARCHIES, small_hierarchies

from privnb.data import Hierarchy
from privnb.mechanisms import (
    DistinctLDiversity,
    EntropyLDiversity,
    FullDomainGeneralizer,
    FullDomainLattice,
    RecursiveCLDiversity,
    TCloseness,
    is_k_anonymous,
    optimal_node,
)

QI = ["num", "let", "col"]
MODELS = [DistinctLDiversity(2), EntropyLDiversity(1.5), RecursiveCLDiversity(2, 2), TCloseness(0.3)]


frames = st.integers(2, 40).flatmap(
    lambda n: st.builds(
        lambda num, let, col, s: pd.DataFrame({"num": num, "let": let, "col": col, "s": s}),
        st.lists(st.integers(0, 15), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
        st.lists(st.sampled_from("xyz"), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
    )
)


def brute_force(frame, hier, k, max_suppression, models):
    """Every node: (within the budget, suppressed rows, {utility: score}, {utility: score with nothing
    suppressed}, within the budget by k-anonymity alone), from pandas group-bys on the released labels and
    each model's own class test."""
    n, d = len(frame), len(QI)
    budget = math.floor(max_suppression * n + 1e-9)
    values = sorted(frame["s"].unique())
    overall = frame["s"].value_counts(normalize=True)[values].to_numpy()
    result = {}
    for node in itertools.product(*(range(hier[a].n_levels) for a in QI)):
        labels = pd.DataFrame({a: hier[a].generalize(frame[a], lv) for a, lv in zip(QI, node)})
        cls = labels.groupby(QI).ngroup().to_numpy()
        size = np.bincount(cls)
        ok = size >= k
        if models:
            counts = pd.crosstab(cls, frame["s"].to_numpy()).reindex(columns=values, fill_value=0).to_numpy()
            for m in models:
                ok &= m.class_holds(counts, overall)
        kept = ok[cls]
        n_sup = int((~kept).sum())
        share = sum(
            hier[a].leaf_share(lv)[hier[a].codes(frame[a], lv)] if lv else np.zeros(n) for a, lv in zip(QI, node)
        )
        score = {
            "discernibility": float((size[ok].astype(float) ** 2).sum() + n * n_sup),
            "loss": (float(share[kept].sum()) + d * n_sup) / (n * d),
        }
        bound = {"discernibility": float((size.astype(float) ** 2).sum()), "loss": float(share.sum()) / (n * d)}
        # k-anonymity's budget, and for t-closeness (equal distance) the mass of the absent values: the nodes
        # ARX's optimal search bounds with models
        small = size < k
        for m in models:
            if isinstance(m, TCloseness):
                small |= (counts == 0) @ overall > m.t + 1e-9
        anonymous = int(size[small].sum()) <= budget
        result[node] = (n_sup <= budget, n_sup, score, bound, anonymous)
    return result


def brute_optimum(truth, utility):
    """The acceptable nodes of least score (within rounding), the first by height then levels."""
    best = min(v[2][utility] for v in truth.values() if v[0])
    ties = [node for node, v in truth.items() if v[0] and v[2][utility] <= best + 1e-12 * max(1.0, abs(best))]
    return min(ties, key=lambda node: (sum(node), node)), best


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frames,
    st.integers(1, 4),
    st.sampled_from([0.0, 0.1, 0.3]),
    st.sampled_from(["discernibility", "loss"]),
    st.lists(st.sampled_from(MODELS), max_size=1),
)
def test_optimal_node_against_brute_force(frame, k, max_suppression, utility, models):
    hier = small_hierarchies()
    truth = brute_force(frame, hier, k, max_suppression, models)
    # the bound: no acceptable node at or above a node scores below that node's unsuppressed score
    for x, (_, _, _, low, _) in truth.items():
        above = [v[2][utility] for y, v in truth.items() if v[0] and all(b >= a for a, b in zip(x, y))]
        assert all(score >= low[utility] - 1e-12 for score in above)
    if any(getattr(m, "l", 1) > frame["s"].nunique() for m in models) or not any(v[0] for v in truth.values()):
        return  # no release (the generalizer's own tests cover the errors)
    gen = FullDomainGeneralizer(
        QI,
        k,
        hier,
        max_suppression=max_suppression,
        utility=utility,
        candidates="all",
        sensitive="s" if models else None,
        privacy_models=models,
    ).fit(frame)
    node, best = brute_optimum(truth, utility)
    assert tuple(gen.node_[a] for a in QI) == node
    assert gen.score_ == pytest.approx(best, rel=1e-12)
    assert len(gen.suppressed_) == truth[node][1]
    # the candidates: the acceptable nodes, or with models the nodes within k-anonymity's budget (t-closeness:
    # and its absent mass's), the models judged only where the bound leaves a node in play
    candidates = sum(v[4] if models else v[0] for v in truth.values())
    assert gen.n_evaluated_ >= 1 and gen.n_evaluated_ + gen.n_skipped_ == candidates
    assert gen.search_ == ("flash+bound" if models else "flash")
    # never worse than the best minimal node, which the default still chooses
    minimal = FullDomainGeneralizer(
        QI,
        k,
        hier,
        max_suppression=max_suppression,
        utility=utility,
        sensitive="s" if models else None,
        privacy_models=models,
    ).fit(frame)
    assert gen.score_ <= minimal.score_ + 1e-12
    assert minimal.score_ == pytest.approx(minimal.minimal_nodes_[utility].iloc[0]) and minimal.n_skipped_ == 0
    assert gen.minimal_nodes_.equals(minimal.minimal_nodes_)
    release = gen.generalized_
    assert is_k_anonymous(release, QI, k)
    assert release.index.equals(frame.index.difference(gen.suppressed_))
    for a in QI:
        assert (release[a].to_numpy() == hier[a].generalize(frame.loc[release.index, a], gen.node_[a])).all()


def test_optimal_node_input_errors():
    frame = pd.DataFrame({"num": [1, 2, 3, 4], "let": list("abcd"), "col": list("xyzx")})
    with pytest.raises(ValueError, match="candidates must be"):
        FullDomainGeneralizer(QI, 2, small_hierarchies(), candidates="best").fit(frame)
    lattice = FullDomainLattice.of(frame, QI, small_hierarchies(), 0.0)
    nodes, ok, _ = lattice.classify(2)
    with pytest.raises(ValueError, match="utility must be"):
        optimal_node(lattice, 2, nodes, ok, utility="ncp")
    with pytest.raises(ValueError, match="cover the whole lattice"):
        optimal_node(lattice, 2, nodes[1:], ok[1:])
    with pytest.raises(ValueError, match="no node is acceptable"):
        optimal_node(lattice, 2, nodes, np.zeros_like(ok))


# -- ARX's Adult task (real data) --------------------------------------------------------------


@pytest.mark.skipif(not HAS_ADULT_HIERARCHIES, reason="needs PRIVNB_DATA with adult and adult_hierarchies")
def test_arx_optimum_on_adult():
    """ARX's optimal discernibility (non-monotone DM, suppressed rows n each, 2% suppression) on adult.data
    and adult.test without missing values (45,222 rows), ARX's nine attributes and hierarchies."""
    from privnb.data import ARX_ADULT_ATTRIBUTES, adult_hierarchies, load_adult, load_adult_hierarchies

    adult = load_adult()
    salary = Hierarchy.from_arx(load_adult_hierarchies()["salary-class"], name="salary-class")
    hier = {**adult_hierarchies(), "salary-class": salary}
    frame = adult.frame.assign(**{"salary-class": np.where(adult.frame[adult.target] == 1, ">50K", "<=50K")})
    assert len(frame) == 45_222
    arx = {2: (7_950_641, 63), 5: (13_898_357, 107), 10: (20_412_407, 111)}
    for k, (dm, n_sup) in arx.items():
        gen = FullDomainGeneralizer(list(ARX_ADULT_ATTRIBUTES), k, hier, candidates="all").fit(frame)
        assert (gen.score_, len(gen.suppressed_)) == (dm, n_sup)
        sizes = (
            gen.generalized_.groupby(list(ARX_ADULT_ATTRIBUTES)).size().to_numpy().astype(float)
        )  # the release, recounted
        assert sizes.min() >= k and float(sizes @ sizes) + len(frame) * n_sup == dm
        assert gen.n_skipped_ > gen.n_evaluated_  # the bound skips most acceptable nodes
        assert gen.minimal_nodes_["discernibility"].iloc[0] > 1.5 * dm  # the best minimal node is far worse
