"""Pruning of anatomized data (Definition 13 of MC16; Figures B.1, B.2 and Appendix B of MC16a)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.mechanisms import prune
from privnb.mechanisms.pruning import appendix_b_preprocess, prerequisites

KINDS = {"A1": "numeric", "A2": "numeric"}


def toy_joined():
    """Figure 1 of MC16 as numbers: 6 individuals, A1 identifying, A2 sensitive, l = 2.

    Groups {0, 3}, {1, 4}, {2, 5}; each individual is joined with both A2 values of its group, so D_A
    has 12 rows (Definition 11), sorted by group as Appendix B asks.
    """
    a1 = np.array([-3.0, -2.0, 1.0, 2.0, 3.0, 4.0])
    a2 = np.array([1.0, -1.0, 2.0, -2.0, 0.5, 1.5])
    groups = [(0, 3), (1, 4), (2, 5)]
    rows = [(a1[i], a2[j], i, "blue" if i < 2 else "red") for g in groups for i in g for j in g]
    return pd.DataFrame(rows, columns=["A1", "A2", "row_id", "C"])


def figure_b2_loops(sq, ids):
    """Figures B.1 and B.2 transcribed literally (loops) for D_A sorted so each individual's rows are adjacent.

    ``sq`` are the squared norms (the same floats as the vectorized code, so that exact ties break alike).
    """
    r_min, r_max = np.inf, -np.inf
    for v in sq:
        r_min = min(r_min, v)
        r_max = max(r_max, v)
    expected = (r_min + r_max) / 2
    kept, i = [], 0
    while i < len(sq):
        dc, gc, j = np.inf, None, i
        while j < len(sq) and ids[j] == ids[i]:
            dist = abs(sq[j] - expected)
            if dist < dc:
                dc, gc = dist, j
            j += 1
        kept.append(gc)
        i = j
    return kept, r_min, r_max


def test_toy_example_12_rows_prune_to_6():
    joined = toy_joined()
    assert len(joined) == 12
    result = prune(joined, KINDS)
    assert len(result.pruned) == 6
    assert sorted(result.pruned["row_id"]) == list(range(6))
    # every kept row carries the individual's own identifying value and a sensitive value of its group
    a1 = dict(zip(joined["row_id"], joined["A1"]))
    assert all(result.pruned["A1"] == result.pruned["row_id"].map(a1))
    sq = result.prerequisites.squared_norms
    np.testing.assert_allclose(sq, [np.dot(r, r) for r in result.encoded])
    kept, r_min, r_max = figure_b2_loops(sq, joined["row_id"].to_numpy())
    assert list(result.kept) == kept
    assert result.prerequisites.r2_min == pytest.approx(r_min)
    assert result.prerequisites.r2_max == pytest.approx(r_max)
    assert result.prerequisites.expected_r2 == pytest.approx((r_min + r_max) / 2)


def test_class_column_is_not_part_of_the_norm():
    joined = toy_joined()
    assert prune(joined, KINDS).encoded.shape == (12, 2)


def test_preprocessing_rules():
    frame = pd.DataFrame({"age": [20, 30, 40, 50], "edu": ["HS", "BSc", "HS", "MSc"], "job": ["a", "b", "a", "c"]})
    kinds = {"age": "numeric", "edu": "ordinal", "job": "nominal"}
    enc = appendix_b_preprocess(frame, kinds, orders={"edu": ("HS", "BSc", "MSc")})
    np.testing.assert_allclose(enc[:, 0], [-15, -5, 5, 15])
    np.testing.assert_allclose(enc[:, 1], np.array([1, 2, 1, 3]) - 7 / 4)  # 1..|dom|, mean-centred
    np.testing.assert_allclose(enc[:, 2], [0, 1, 0, 1])  # mode -> 0, others -> 1


@pytest.mark.parametrize(
    "frame, kinds, orders, message",
    [
        (pd.DataFrame({"x": [1.0, None]}), {"x": "numeric"}, None, "missing values"),
        (pd.DataFrame({"x": ["a", "z"]}), {"x": "ordinal"}, {"x": ("a", "b")}, "outside its domain"),
        (pd.DataFrame({"x": [1, 2]}), {"x": "interval"}, None, "kind 'interval'"),
        (pd.DataFrame({"x": [1, 2]}), {"y": "numeric"}, None, "no attribute"),
    ],
)
def test_preprocessing_bad_input(frame, kinds, orders, message):
    with pytest.raises(ValueError, match=message):
        appendix_b_preprocess(frame, kinds, orders=orders)


def test_prune_needs_row_ids():
    with pytest.raises(ValueError, match="row_id"):
        prune(toy_joined().drop(columns="row_id"), KINDS)


def test_prerequisites_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        prerequisites(np.empty((0, 2)))


@st.composite
def anatomized(draw):
    n_groups = draw(st.integers(1, 6))
    l = draw(st.integers(2, 4))
    values = st.integers(-5, 5)
    rows = []
    for g in range(n_groups):
        members = range(g * l, (g + 1) * l)
        a1 = {i: draw(values) for i in members}
        s = draw(st.lists(values, min_size=l, max_size=l, unique=True))
        rows += [(a1[i], v, i) for i in members for v in s]
    return pd.DataFrame(rows, columns=["A1", "A2", "row_id"]), n_groups * l


@settings(max_examples=60, deadline=None)
@given(anatomized())
def test_matches_the_papers_loops(case):
    joined, n = case
    result = prune(joined, KINDS)
    kept, _, _ = figure_b2_loops(result.prerequisites.squared_norms, joined["row_id"].to_numpy())
    assert list(result.kept) == kept
    assert len(result.pruned) == n
    # privacy (Section 4.2): a kept row is one of the individual's own D_A rows, never a new pairing
    pairs = set(map(tuple, joined[["row_id", "A1", "A2"]].to_numpy()))
    assert set(map(tuple, result.pruned[["row_id", "A1", "A2"]].to_numpy())) <= pairs


def test_pruned_training_on_the_papers_toy():
    from sklearn.svm import SVC

    from privnb.data import anatomy_toy
    from privnb.learn import PrunedTraining

    toy = anatomy_toy()
    model = PrunedTraining(SVC(kernel="linear"), sensitive=toy.sensitive, l=2, kinds=toy.kinds, random_state=0).fit(
        toy.X, toy.y
    )
    assert len(model.anatomy_.join()) == 12 and model.n_train_ == 6 and model.n_suppressed_ == 0
    # Figure 4: the pruned toy stays linearly separable, and the hyperplane separates the raw rows
    assert list(model.predict(toy.X)) == list(toy.y)
    # privacy (Section 4.2): each kept sensitive value is one of its own group's published values
    it, st_ = model.anatomy_.it, model.anatomy_.st
    group_values = st_.groupby("gid")[toy.sensitive].apply(set)
    pruned = model.pruning_.pruned
    gid = it.loc[pruned["row_id"], "gid"].to_numpy()
    assert all(v in group_values[g] for v, g in zip(pruned[toy.sensitive], gid))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), l=st.integers(2, 4))
def test_pruned_training_keeps_one_row_per_grouped_individual(seed, l):
    from sklearn.dummy import DummyClassifier

    from privnb.learn import PrunedTraining

    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"q": rng.randint(0, 5, 40), "s": rng.randint(0, 5, 40)})
    y = rng.randint(0, 2, 40)
    model = PrunedTraining(DummyClassifier(), sensitive="s", l=l, random_state=seed).fit(X, y)
    assert model.n_train_ + model.n_suppressed_ == 40
    assert model.pruning_.pruned["row_id"].is_unique
    assert set(model.pruning_.pruned["row_id"]) == set(model.anatomy_.it.index)


def test_ordinal_center_mode_reading_of_appendix_b():
    """Appendix B: "set mode of the discrete values to be mean": the mode reading centres ordinal codes on
    their most frequent code; it can change which candidate row is kept."""
    import pandas as pd

    from privnb.mechanisms.pruning import appendix_b_preprocess, prune

    frame = pd.DataFrame({"edu": ["lo", "lo", "lo", "mid", "hi"]})
    kinds, orders = {"edu": "ordinal"}, {"edu": ("lo", "mid", "hi")}
    assert appendix_b_preprocess(frame, kinds, orders=orders)[:, 0].tolist() == pytest.approx(
        [-0.6, -0.6, -0.6, 0.4, 1.4]
    )  # codes 1, 2, 3 less their mean 1.6
    assert appendix_b_preprocess(frame, kinds, orders=orders, ordinal_center="mode")[:, 0].tolist() == [0, 0, 0, 1, 2]
    with pytest.raises(ValueError, match="ordinal_center"):
        appendix_b_preprocess(frame, kinds, orders=orders, ordinal_center="median")
    # mean reading (codes less 1.5): every lo and mid has squared norm 0.25, the target 1.25: individual 0
    # keeps its first candidate (lo); mode reading (codes less 1): lo 0, mid 1, target 2: it keeps mid
    joined = pd.DataFrame({"edu": ["lo", "mid", "lo", "hi", "lo", "lo"], "row_id": [0, 0, 1, 1, 2, 2]})
    mean = prune(joined, kinds, orders=orders, columns=["edu"]).kept
    mode = prune(joined, kinds, orders=orders, columns=["edu"], ordinal_center="mode").kept
    assert mean.tolist() != mode.tolist()
