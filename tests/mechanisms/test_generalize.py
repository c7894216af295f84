"""Tests for privnb.mechanisms (hierarchy, lattice, full_domain, mondrian): hierarchies, full-domain and Mondrian."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from small_hierarchies import HAS_ADULT_HIERARCHIES, LETTERS, small_hierarchies

from privnb.data import Hierarchy
from privnb.mechanisms import FullDomainGeneralizer, MondrianGeneralizer, is_k_anonymous
from privnb.mechanisms._group_kernel import rollup_counts
from privnb.mechanisms._rollup import ClassCounts, GroupSizes
from privnb.mechanisms.lattice import _classify_lattice, minimal_nodes

frames = st.integers(1, 30).flatmap(
    lambda n: st.builds(
        lambda num, let, col: pd.DataFrame({"num": num, "let": let, "col": col, "y": np.arange(n) % 2}),
        st.lists(st.integers(0, 15), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
        st.lists(st.sampled_from("xyz"), min_size=n, max_size=n),
    )
)

QI = ["num", "let", "col"]


# -- hierarchies ---------------------------------------------------------------------------
def test_arx_table_levels_labels_and_midpoints():
    age = pd.DataFrame(
        [[str(v), f"{v // 5 * 5}-{v // 5 * 5 + 4}", f"{v // 10 * 10}-{v // 10 * 10 + 9}", "*"] for v in range(1, 41)]
    )
    h = Hierarchy.from_arx(age, name="age")
    assert h.numeric and h.n_levels == 4 and (h.low, h.high) == (1, 40)
    assert h.generalize([39, 3], 1).tolist() == ["35-39", "0-4"]
    assert h.generalize([39], 0).tolist() == ["39"]
    assert h.generalize([39], 3).tolist() == ["*"]
    # a label covers the listed values under it: 35..39 -> 37; 0-4 lists 1..4 -> 2.5; * -> 20.5
    assert h.midpoints([39, 3, 7], 1).tolist() == [37.0, 2.5, 7.0]
    assert h.midpoints([39], 3).tolist() == [20.5]
    assert h.leaf_share(2)[h.codes([15], 2)][0] == pytest.approx(9 / 39)


def test_arx_nominal_and_errors(tmp_path):
    path = tmp_path / "letters.csv"
    LETTERS.to_csv(path, sep=";", header=False, index=False)
    h = Hierarchy.from_arx(path)
    assert not h.numeric and h.name == "letters" and h.n_levels == 3
    assert h.generalize(["d", "a"], 1).tolist() == ["cd", "ab"]
    with pytest.raises(ValueError, match="does not list"):
        h.generalize(["e"], 1)
    with pytest.raises(ValueError, match="nominal"):
        h.midpoints(["a"], 1)
    with pytest.raises(ValueError, match="more than one parent"):
        Hierarchy.from_arx(pd.DataFrame([["a", "g", "h1", "*"], ["b", "g", "h2", "*"]]))
    with pytest.raises(ValueError, match="last column"):
        Hierarchy.from_arx(pd.DataFrame([["a", "g"]]))
    with pytest.raises(ValueError, match="twice"):
        Hierarchy.from_arx(pd.DataFrame([["a", "*"], ["a", "*"]]))


def test_intervals_width_and_cuts():
    h = Hierarchy.intervals(0, 100, width=10, name="h")
    assert h.n_levels == 6  # raw, 10, 20, 40, 80, *
    assert h.generalize([25, 100], 1).tolist() == ["[20-30)", "[90-100]"]
    assert h.generalize([25], 3).tolist() == ["[0-40)"]
    assert h.midpoints([25, 99], 2).tolist() == [30.0, 90.0]
    assert h.midpoints([25], 5).tolist() == [50.0]
    c = Hierarchy.intervals(0, 10, cuts=[[2, 5, 8], [5]])
    assert c.generalize([4, 6], 2).tolist() == ["[0-5)", "[5-10]"]
    with pytest.raises(ValueError, match="subset"):
        Hierarchy.intervals(0, 10, cuts=[[2, 5], [6]])
    with pytest.raises(ValueError, match="exactly one"):
        Hierarchy.intervals(0, 10)
    with pytest.raises(ValueError, match=r"\[0, 10\]"):
        c.check([11])


def test_is_k_anonymous():
    f = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "x", "y", "y"]})
    assert is_k_anonymous(f, ["a", "b"], 2) and not is_k_anonymous(f, ["a", "b"], 3)
    assert is_k_anonymous(f.iloc[:0], ["a"], 5)
    with pytest.raises(ValueError, match="k must be"):
        is_k_anonymous(f, ["a"], 0)
    with pytest.raises(ValueError, match="not columns"):
        is_k_anonymous(f, ["zz"], 2)


# -- the lattice search ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
        lambda hs: st.tuples(st.just(hs), st.lists(st.tuples(*(st.integers(0, h - 1) for h in hs)), max_size=4))
    )
)
def test_classify_lattice_matches_brute_force(case):
    """A random monotone predicate (an up-set of random generators) is classified exactly."""
    heights, generators = np.array(case[0]), np.array(case[1]).reshape(-1, len(case[0]))

    def truth(node):
        return bool(len(generators)) and bool(np.any(np.all(node >= generators, axis=1)))

    nodes, anon, n_checks = _classify_lattice(heights, truth)
    assert len(nodes) == np.prod(heights) and n_checks <= len(nodes)
    assert anon.tolist() == [truth(v) for v in nodes]
    minimal = {tuple(v) for v in nodes[minimal_nodes(nodes, heights, anon)]}
    expected = {tuple(g) for g in generators if not any((o <= g).all() and (o != g).any() for o in generators)}
    assert minimal == expected


def random_lattice_table(n_rows, heights, seed):
    """Random rows and, per attribute, random nested level maps (each level coarser)."""
    rng = np.random.default_rng(seed)
    maps, raw = [], []
    for h in heights:
        n_values = int(rng.integers(1, 9))
        levels = [np.arange(n_values)]
        for lv in range(1, h):  # merge groups of the level below at random, the top is one group
            below = levels[-1].max() + 1
            parent = rng.integers(0, max(1, below - 1), size=below) if lv < h - 1 else np.zeros(below, int)
            levels.append(np.unique(parent, return_inverse=True)[1].ravel()[levels[-1]])
        maps.append(levels)
        raw.append(rng.integers(0, n_values, size=n_rows))
    return maps, raw


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=6),
    st.integers(1, 300),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1, 10**3, 10**7]),
    st.sampled_from([(1, 1), (3, 2), (64, 16)]),
    st.booleans(),
)
def test_group_sizes_fast_path_matches_reference(heights, n_rows, seed, id_budget, slots, compiled):
    """Roll-ups, part ids, anchors and the cache give every node's group sizes exactly (numpy, and the
    compiled kernel when numba is installed).
    """
    maps, raw = random_lattice_table(n_rows, heights, seed)
    sizes = GroupSizes(maps, raw, id_budget=id_budget, slots=slots[0], anchors=slots[1], compiled=compiled)
    assert sizes.compiled == (compiled and rollup_counts is not None)
    nodes = list(itertools.product(*(range(h) for h in heights)))
    order = np.random.default_rng(seed).permutation(len(nodes))[:60]
    for j in order:  # random order: sources are any kept tables below
        node = nodes[j]
        labels = np.column_stack([maps[i][lv][raw[i]] for i, lv in enumerate(node)])
        expected = np.sort(np.unique(labels, axis=0, return_counts=True)[1])
        got = sizes.sizes(np.array(node, dtype=np.int16))
        assert np.sort(got).tolist() == expected.tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=5),
    st.integers(1, 300),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1, 4, 64]),
    st.booleans(),
)
def test_class_counts_rolled_up_match_counting_from_scratch(heights, n_rows, n_values, seed, slots, compiled):
    """The sensitive counts rolled up the lattice (ClassCounts: kept tables of nodes below, in any order, the
    ring recycled) are the counts of every class counted from scratch over the rows, and each class's
    representative entry lies in it (numpy, and the compiled kernel when numba is installed).
    """
    maps, raw = random_lattice_table(n_rows, heights, seed)
    rng = np.random.default_rng(seed)
    values = rng.integers(0, n_values, size=n_rows)
    sizes = GroupSizes(maps, raw, compiled=compiled)
    entry_counts = np.zeros((len(sizes.weights), n_values), dtype=np.int64)
    np.add.at(entry_counts, (sizes.entry, values), 1)
    rolled = ClassCounts(sizes, entry_counts, slots=slots)
    nodes = list(itertools.product(*(range(h) for h in heights)))
    for j in rng.permutation(len(nodes))[:60]:
        node = nodes[j]
        labels = np.column_stack([maps[i][lv][raw[i]] for i, lv in enumerate(node)])
        classes, row_class = np.unique(labels, axis=0, return_inverse=True)
        expected = np.zeros((len(classes), n_values))
        np.add.at(expected, (row_class.ravel(), values), 1)
        entries, counts = rolled.counts(node)
        assert sorted(map(tuple, counts.tolist())) == sorted(map(tuple, expected.tolist()))
        entry_labels = np.column_stack([maps[i][lv][sizes.codes[i][entries]] for i, lv in enumerate(node)])
        found = {tuple(row): c for row, c in zip(entry_labels.tolist(), counts.tolist())}
        assert found == {tuple(row): c for row, c in zip(classes.tolist(), expected.tolist())}


def test_group_sizes_many_generalization_steps():
    """More than 62 steps in all: the node bit masks take several words."""
    heights = [9] * 9
    maps, raw = random_lattice_table(200, heights, 7)
    sizes = GroupSizes(maps, raw, slots=8, anchors=4)
    assert sizes.src_bits.shape[1] == 2
    rng = np.random.default_rng(1)
    for _ in range(40):
        node = [int(rng.integers(0, h)) for h in heights]
        labels = np.column_stack([maps[i][lv][raw[i]] for i, lv in enumerate(node)])
        expected = np.sort(np.unique(labels, axis=0, return_counts=True)[1])
        assert np.sort(sizes.sizes(np.array(node, dtype=np.int16))).tolist() == expected.tolist()


def brute_force(frame, hierarchies, k, max_suppression):
    """Every node's suppressed-row count and discernibility, by pandas group-by on labels."""
    heights = [hierarchies[a].n_levels for a in QI]
    budget = math.floor(max_suppression * len(frame) + 1e-9)
    result = {}
    labels = {
        (a, lv): pd.factorize(hierarchies[a].generalize(frame[a], lv))[0]
        for a in QI
        for lv in range(hierarchies[a].n_levels)
    }
    for node in itertools.product(*(range(h) for h in heights)):
        rows = np.column_stack([labels[a, lv] for a, lv in zip(QI, node)])
        sizes = np.unique(rows, axis=0, return_counts=True)[1]
        n_sup = int(sizes[sizes < k].sum())
        dm = float((sizes[sizes >= k].astype(float) ** 2).sum() + len(frame) * n_sup)
        result[node] = (n_sup <= budget, n_sup, dm)
    return result


def fitted_against_brute_force(frame, hierarchies, k, max_suppression):
    """(brute-force table, FullDomainGeneralizer fitted on ``frame``); None for the generalizer when no
    node is within the budget, after checking that fitting says so."""
    truth = brute_force(frame, hierarchies, k, max_suppression)
    gen = FullDomainGeneralizer(QI, k, hierarchies, max_suppression=max_suppression)
    if not any(v[0] for v in truth.values()):
        with pytest.raises(ValueError, match="no generalization"):
            gen.fit(frame)
        return truth, None
    return truth, gen.fit(frame)


def brute_minimal_nodes(truth):
    """The nodes of a brute-force table within the budget none of whose immediate predecessors is."""
    return {
        node
        for node, (ok, _, _) in truth.items()
        if ok and not any(truth[node[:i] + (node[i] - 1,) + node[i + 1 :]][0] for i in range(len(node)) if node[i] > 0)
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 4), st.sampled_from([0.0, 0.1, 0.3]))
def test_full_domain_minimal_nodes_against_brute_force(frame, k, max_suppression):
    hierarchies = small_hierarchies()
    truth, gen = fitted_against_brute_force(frame, hierarchies, k, max_suppression)
    if gen is None:
        return
    expected = brute_minimal_nodes(truth)
    found = {tuple(r) for r in gen.minimal_nodes_[QI].itertuples(index=False)}
    assert found == expected
    # no predecessor of a minimal node is k-anonymous within the budget (checked on the raw table)
    for node in found:
        for i in range(len(node)):
            if node[i]:
                assert not truth[node[:i] + (node[i] - 1,) + node[i + 1 :]][0]
    # the chosen node has the smallest discernibility among the minimal nodes
    chosen = tuple(gen.node_[a] for a in QI)
    assert truth[chosen][2] == min(truth[node][2] for node in expected)
    assert gen.minimal_nodes_.loc[0, "discernibility"] == truth[chosen][2]
    # the release: k-anonymous, within the budget, each cell the raw value's label at the node
    assert len(gen.suppressed_) == truth[chosen][1] <= max_suppression * len(frame) + 1e-9
    release = gen.generalized_
    assert is_k_anonymous(release, QI, k)
    assert release.index.equals(frame.index.difference(gen.suppressed_))
    kept = frame.loc[release.index]
    for a in QI:
        assert (release[a].to_numpy() == hierarchies[a].generalize(kept[a], gen.node_[a])).all()
    assert (release["y"] == kept["y"]).all()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.permutations([1, 2, 3, 4, 30]), st.sampled_from([0.0, 0.2]))
def test_one_lattice_serves_every_k_in_any_order(frame, ks, max_suppression):
    """Fits of the same rows share a FullDomainLattice; each k still gets its exact minimal nodes."""
    from privnb.mechanisms import FullDomainLattice

    hierarchies = small_hierarchies()
    lattices = set()
    for k in ks:
        truth, gen = fitted_against_brute_force(frame, hierarchies, k, max_suppression)
        if gen is None:
            continue
        lattices.add(id(FullDomainLattice._cache[next(reversed(FullDomainLattice._cache))]))
        expected = brute_minimal_nodes(truth)
        assert {tuple(r) for r in gen.minimal_nodes_[QI].itertuples(index=False)} == expected
        for row in gen.minimal_nodes_.itertuples(index=False):
            node = tuple(getattr(row, a) for a in QI)
            assert (row.suppressed, row.discernibility) == truth[node][1:]
    assert len(lattices) <= 1


@settings(max_examples=25, deadline=None)
@given(frames, st.integers(1, 3))
def test_loss_metric_choice(frame, k):
    hierarchies = small_hierarchies()
    gen = FullDomainGeneralizer(QI, k, hierarchies, max_suppression=0.3, utility="loss")
    try:
        gen.fit(frame)
    except ValueError:
        return
    n, d = len(frame), len(QI)

    def loss(node):
        labels = pd.DataFrame({a: hierarchies[a].generalize(frame[a], lv) for a, lv in zip(QI, node)})
        size = labels.groupby(QI)[QI[0]].transform("size").to_numpy()
        total = d * float((size < k).sum())
        for a, lv in zip(QI, node):
            if lv:
                share = hierarchies[a].leaf_share(lv)[hierarchies[a].codes(frame[a], lv)]
                total += float(share[size >= k].sum())
        return total / (n * d)

    table = gen.minimal_nodes_
    for row in table.itertuples(index=False):
        assert row.loss == pytest.approx(loss(tuple(getattr(row, a) for a in QI)))
    assert table["loss"].iloc[0] == table["loss"].min()


def test_full_domain_transform_encodes_any_rows():
    hierarchies = small_hierarchies()
    frame = pd.DataFrame({"num": [1, 2, 3, 9, 10, 11], "let": list("ababcd"), "col": list("xxxyyy")})
    gen = FullDomainGeneralizer(QI, 3, hierarchies, max_suppression=0.0).fit(frame)
    test = pd.DataFrame({"num": [0, 15], "let": ["d", "a"], "col": ["z", "x"]})
    out = gen.transform(test)
    for a in QI:
        h, level = hierarchies[a], gen.node_[a]
        if h.numeric:
            assert out[a].dtype == float
            assert out[a].tolist() == h.midpoints(test[a], level).tolist()
        else:
            assert out[a].tolist() == h.generalize(test[a], level).tolist()
    assert gen.generalize(frame).equals(gen.generalized_)


def test_full_domain_input_errors():
    frame = pd.DataFrame({"num": [1, 2], "let": ["a", "b"], "col": ["x", "y"]})
    with pytest.raises(ValueError, match="no hierarchy"):
        FullDomainGeneralizer(QI, 2, {"num": small_hierarchies()["num"]}).fit(frame)
    with pytest.raises(ValueError, match="max_suppression"):
        FullDomainGeneralizer(QI, 2, small_hierarchies(), max_suppression=1.5).fit(frame)
    with pytest.raises(ValueError, match="utility"):
        FullDomainGeneralizer(QI, 2, small_hierarchies(), utility="height").fit(frame)
    with pytest.raises(ValueError, match="not fitted"):
        FullDomainGeneralizer(QI, 2, small_hierarchies()).transform(frame)
    with pytest.raises(ValueError, match=r"\[0, 16\]"):
        FullDomainGeneralizer(QI, 2, small_hierarchies()).fit(frame.assign(num=[1, 99]))
    gen = FullDomainGeneralizer(QI, 2, small_hierarchies(), max_suppression=0.1)
    assert clone(gen).get_params()["max_suppression"] == 0.1


# -- Mondrian ---------------------------------------------------------------------------------
def contains(label: str, value, attribute: str, hierarchy: Hierarchy | None) -> bool:
    """Whether a released Mondrian cell generalizes the raw value."""
    if attribute == "num":
        if label.startswith("["):
            low, high = map(float, label[1:-1].split("-"))
            return low <= value <= high
        return float(label) == value
    if hierarchy is not None:
        return label in {hierarchy.generalize([value], lv)[0] for lv in range(hierarchy.n_levels)}
    return label == "*" or label == value or value in label.strip("{}").split(",")


@settings(max_examples=60, deadline=None)
@given(frames, st.integers(1, 5), st.booleans())
def test_mondrian_is_k_anonymous_and_only_generalizes(frame, k, with_hierarchy):
    hierarchies = {"let": Hierarchy.from_arx(LETTERS, name="let")} if with_hierarchy else None
    gen = MondrianGeneralizer(
        QI, k, kinds={"num": "numeric", "let": "nominal", "col": "nominal"}, hierarchies=hierarchies
    )
    if len(frame) < k:
        with pytest.raises(ValueError, match="at least k"):
            gen.fit(frame)
        return
    gen.fit(frame)
    release = gen.generalized_
    assert release.index.equals(frame.index) and len(gen.suppressed_) == 0
    assert is_k_anonymous(release, QI, k)
    assert release.groupby(QI).ngroups == gen.n_groups_
    for a in QI:
        h = (hierarchies or {}).get(a)
        assert all(contains(lab, raw, a, h) for lab, raw in zip(release[a], frame[a]))
    # training rows routed through the split tree land in their own region
    assert gen.generalize(frame).equals(release)
    encoded = gen.transform(frame)
    bounds = release["num"].str.strip("[]").str.split("-", expand=True).astype(float)
    assert np.allclose(encoded["num"], bounds.mean(axis=1))
    assert (encoded[["let", "col"]] == release[["let", "col"]]).all().all()


@settings(max_examples=40, deadline=None)
@given(
    frames,
    st.integers(1, 3),
    st.lists(st.tuples(st.floats(-5, 20), st.sampled_from("abcd"), st.sampled_from("wxyz")), min_size=1, max_size=8),
)
def test_mondrian_test_rows_are_recoded_like_their_region(frame, k, rows):
    if len(frame) < k:
        return
    gen = MondrianGeneralizer(QI, k, hierarchies={"let": Hierarchy.from_arx(LETTERS)}).fit(frame)
    test = pd.DataFrame(rows, columns=QI)
    out = gen.transform(test)
    regions = gen.transform(frame).drop(columns="y").drop_duplicates()
    labels = gen.generalize(test)
    for i in range(len(test)):
        # a test row gets the encoding of some training region (or of the region being cut,
        # when its hierarchy branch holds no training rows: then the label is an ancestor)
        row = out.iloc[i]
        same = regions[(regions["num"] == row["num"]) & (regions["col"] == row["col"])]
        assert len(same) or row["let"] in {"*", "ab", "cd"}
        assert isinstance(labels.iloc[i]["num"], str)
    # a test row equal to a training row is encoded as that training row
    twin = frame.iloc[[0]][QI].reset_index(drop=True)
    assert gen.transform(twin).iloc[0].tolist() == gen.transform(frame).iloc[0][QI].tolist()


def test_mondrian_ordinal_order_and_errors():
    frame = pd.DataFrame({"edu": ["lo", "mid", "hi", "lo", "mid", "hi"], "n": [1, 2, 3, 4, 5, 6]})
    gen = MondrianGeneralizer(["edu"], 2, kinds={"edu": "ordinal"}, orders={"edu": ["lo", "mid", "hi"]}).fit(frame)
    assert sorted(set(gen.generalized_["edu"])) == ["hi", "lo", "mid"]
    gen1 = MondrianGeneralizer(["edu"], 3, kinds={"edu": "ordinal"}, orders={"edu": ["lo", "mid", "hi"]}).fit(frame)
    assert set(gen1.generalized_["edu"]) <= {"{lo,mid}", "{mid,hi}", "lo", "hi", "*"}
    with pytest.raises(ValueError, match="not in its order"):
        gen.transform(pd.DataFrame({"edu": ["top"], "n": [1]}))
    with pytest.raises(ValueError, match="kind"):
        MondrianGeneralizer(["edu"], 2, kinds={"edu": "text"}).fit(frame)
    with pytest.raises(ValueError, match="not fitted"):
        MondrianGeneralizer(["edu"], 2).transform(frame)


# -- Adult with ARX's hierarchies (real data) -----------------------------------------------
@pytest.mark.skipif(not HAS_ADULT_HIERARCHIES, reason="needs PRIVNB_DATA with adult_hierarchies")
def test_adult_full_domain_and_mondrian():
    from privnb.data import adult_hierarchies, load_adult

    ds = load_adult(version="train")
    hierarchies = adult_hierarchies()
    assert hierarchies["age"].generalize([39], 1).tolist() == ["35-39"]
    sample = ds.sample(3000, random_state=0).frame
    qi = ["age", "marital-status", "race", "sex", "native-country"]
    gen = FullDomainGeneralizer(qi, 5, hierarchies).fit(sample)
    assert is_k_anonymous(gen.generalized_, qi, 5)
    assert len(gen.suppressed_) <= 0.02 * len(sample)
    assert gen.n_checks_ < gen.lattice_size_
    mondrian = MondrianGeneralizer(list(ds.quasi_identifiers), 5, kinds=ds.kinds, hierarchies=hierarchies).fit(sample)
    assert is_k_anonymous(mondrian.generalized_, list(ds.quasi_identifiers), 5)
    encoded = mondrian.transform(ds.frame.iloc[:200])
    assert encoded["age"].dtype == float and encoded["hours-per-week"].notna().all()
