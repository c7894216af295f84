"""Tests of privnb.mechanisms.containment and privnb.learn.feature_selection: Table 1 of FSAC,
Lemmas 1-3, the utilities' closed forms."""

from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from privnb.data import feature_selection_table1
from privnb.learn import (
    STOP_RULES,
    ContainmentSelector,
    greedy_cm,
    greedy_distcnt,
    greedy_hamdist,
    maximal,
    maximal_feasible,
    maximal_itemsets,
)
from privnb.mechanisms import CONSTRAINTS, dataset_ac, entity_ac, feature_hamdist, is_k_ac
from privnb.mechanisms.containment import (
    Patterns,
    classification_metric,
    dataset_anonymity,
    distcnt,
    entity_anonymity,
    hamdist,
    is_k_anonymous_binary,
)


@pytest.fixture(scope="module")
def table1():
    t = feature_selection_table1()
    return t[list("abcde")].to_numpy(), t["class"].to_numpy()


# ------------------------------------------------------------------ brute force references


def brute_entity_ac(X, S):
    P = X[:, S]
    return np.array([(P[i] <= P).all(axis=1).sum() for i in range(len(P))])


def brute_anonymity(X, S):
    P = X[:, S]
    return np.array([(P[i] == P).all(axis=1).sum() for i in range(len(P))])


def brute_pairs(X, y, S):
    pos, neg = X[y == 1][:, S], X[y != 1][:, S]
    diff = pos[:, None, :] != neg[None, :, :]
    return diff.sum(axis=2), diff.any(axis=2)


def subsets(d):
    return [list(s) for r in range(d + 1) for s in combinations(range(d), r)]


matrices = arrays(np.int8, st.tuples(st.integers(2, 9), st.integers(1, 5)), elements=st.integers(0, 1))


def labels_for(X, seed):
    y = np.random.default_rng(seed).integers(0, 2, X.shape[0])
    y[0], y[1] = 0, 1
    return y


# ------------------------------------------------------------------ Table 1 (FSAC)


def test_table1_containment_values(table1):
    X, _ = table1
    assert entity_ac(X).tolist() == [4, 4, 2, 4, 1, 1]  # u1 is 4-AC with u2, u4, u5
    assert dataset_ac(X) == 1 and dataset_anonymity(X) == 1  # Table 1 is neither 2-AC nor 2-anonymous
    for S in ([0, 1, 4], [2, 3, 4]):  # Table 2: both feature sets are 2-anonymous
        assert is_k_anonymous_binary(X, 2, S) and is_k_ac(X, 2, S)


def test_table1_utilities(table1):
    X, y = table1
    # {a, b, e}: every positive is at distance (0, 1, 1) from the negatives; six pairs told apart
    assert hamdist(X, y, [0, 1, 4]) == pytest.approx(2 / 3)
    assert distcnt(X, y, [0, 1, 4]) == 6
    assert hamdist(X, y, [2, 3, 4]) == pytest.approx(8 / 9)
    assert distcnt(X, y, [2, 3, 4]) == 4
    # the "one mistake out of six" of the introduction is Iyengar's CM of {a, b, e}
    assert classification_metric(X, y, [0, 1, 4]) == 1


def test_table1_maximal_picks_feature_set_1(table1):
    X, y = table1
    assert maximal_itemsets(X, 2) == [(0, 1, 4), (0, 2, 4), (0, 3, 4)]
    sel = maximal(X, y, 2)
    assert sel.features.tolist() == [0, 1, 4] and sel.ac == 2


# ------------------------------------------------------------------ exactness against brute force


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_entity_ac_matches_brute_force_on_every_subset(X):
    for S in subsets(X.shape[1]):
        assert entity_ac(X, S).tolist() == brute_entity_ac(X, S).tolist()
        assert entity_anonymity(X, S).tolist() == brute_anonymity(X, S).tolist()


@settings(max_examples=60, deadline=None)
@given(matrices, st.integers(0, 1000))
def test_patterns_grown_a_feature_at_a_time_keep_the_containment_relation(X, seed):
    """Patterns split by one more feature (no product for the relation) are those of the longer feature list,
    in the same order, and their relation is the brute-force one: q contains p when q holds all p holds."""
    order = np.random.default_rng(seed).permutation(X.shape[1])
    csr = sp.csr_array(X)
    patterns = Patterns(csr, order[:0])
    patterns.superset_sums(np.ones(patterns.n_patterns))  # the relation kept, as a greedy step keeps it
    for end in range(1, len(order) + 1):
        patterns = patterns.split(X[:, order[end - 1]] != 0)
        fresh = Patterns(csr, order[:end])
        assert (patterns.inverse == fresh.inverse).all() and (patterns.counts == fresh.counts).all()
        assert (patterns.matrix.toarray() == fresh.matrix.toarray()).all() and (patterns.sizes == fresh.sizes).all()
        rows = fresh.matrix.toarray() != 0
        expected = np.array([[bool((~p | q).all()) for q in rows] for p in rows], dtype=float)
        assert (patterns.superset_sums(np.eye(patterns.n_patterns)) == expected).all()


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_lemma1_k_anonymity_implies_k_ac(X):
    for S in subsets(X.shape[1]):
        assert dataset_ac(X, S) >= dataset_anonymity(X, S)


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_lemma2_downward_closure(X):
    ac = {tuple(S): dataset_ac(X, S) for S in subsets(X.shape[1])}
    for S, value in ac.items():
        for r in range(len(S)):
            for T in combinations(S, r):
                assert ac[T] >= value


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(1, 4))
def test_lemma3_frequent_itemsets_are_feasible(X, k):
    k = min(k, X.shape[0])
    for S in subsets(X.shape[1]):
        if X[:, S].all(axis=1).sum() >= k:
            assert dataset_ac(X, S) >= k
    for itemset in maximal_itemsets(X, k):
        assert dataset_ac(X, list(itemset)) >= k


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000))
def test_utilities_closed_form_and_set_function_properties(X, seed):
    y = labels_for(X, seed)
    d = X.shape[1]
    ham, dist = {}, {}
    for S in subsets(d):
        distances, told_apart = brute_pairs(X, y, S)
        ham[tuple(S)] = hamdist(X, y, S)
        dist[tuple(S)] = distcnt(X, y, S)
        assert ham[tuple(S)] == pytest.approx(distances.mean())
        assert dist[tuple(S)] == told_apart.sum()
    for S in ham:
        for T in ham:
            if set(S) <= set(T):
                assert ham[S] <= ham[T] + 1e-12 and dist[S] <= dist[T]  # monotone
                for f in set(range(d)) - set(T):
                    Sf, Tf = tuple(sorted(S + (f,))), tuple(sorted(T + (f,)))
                    assert ham[Sf] - ham[S] == pytest.approx(ham[Tf] - ham[T])  # modular
                    assert dist[Sf] - dist[S] >= dist[Tf] - dist[T]  # submodular


# ------------------------------------------------------------------ selectors


def brute_greedy_distcnt(X, y, k, constraint, stop):
    """Algorithm 3 with DistCnt by brute force: the best gain over every feature ("first-infeasible": stop when
    it is infeasible) or over the feasible ones ("best-feasible")."""
    check = brute_entity_ac if constraint == "k-ac" else brute_anonymity
    S = []
    while True:
        best, gain_best = None, 0
        for f in sorted(set(range(X.shape[1])) - set(S)):
            if stop == "best-feasible" and check(X, S + [f]).min() < k:
                continue
            _distances, apart = brute_pairs(X, y, S + [f])
            _, before = brute_pairs(X, y, S)
            gain = apart.sum() - before.sum()
            if gain > gain_best:
                best, gain_best = f, gain
        if best is None or check(X, S + [best]).min() < k:
            return S
        S.append(best)


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000), st.integers(1, 3), st.sampled_from(CONSTRAINTS), st.sampled_from(STOP_RULES))
def test_greedy_distcnt_is_the_exact_greedy(X, seed, k, constraint, stop):
    y = labels_for(X, seed)
    k = min(k, X.shape[0])
    sel = greedy_distcnt(X, y, k, constraint=constraint, stop=stop)
    assert sel.order.tolist() == brute_greedy_distcnt(X, y, k, constraint, stop)
    check = dataset_ac if constraint == "k-ac" else dataset_anonymity
    assert check(X, sel.features) >= k and sel.ac == dataset_ac(X, sel.features)


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000), st.integers(1, 3), st.sampled_from(CONSTRAINTS), st.sampled_from(STOP_RULES))
def test_greedy_hamdist_follows_algorithm_2(X, seed, k, constraint, stop):
    y = labels_for(X, seed)
    k = min(k, X.shape[0])
    check = brute_entity_ac if constraint == "k-ac" else brute_anonymity
    h = feature_hamdist(X, y)
    order = [f for f in np.lexsort((np.arange(h.size), -h)) if h[f] > 1e-15]
    expected = []
    for f in order:
        if check(X, expected + [f]).min() >= k:
            expected.append(int(f))
        elif stop == "first-infeasible":
            break
    assert greedy_hamdist(X, y, k, constraint=constraint, stop=stop).order.tolist() == expected


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000), st.integers(1, 3), st.sampled_from(CONSTRAINTS))
def test_the_papers_rule_is_a_prefix_of_the_best_feasible_greedy(X, seed, k, constraint):
    """Until the best feature is first infeasible both rules pick the same features (Lemma 2: an infeasible
    feature stays infeasible), so the paper's selection is a prefix of the best-feasible one."""
    y = labels_for(X, seed)
    k = min(k, X.shape[0])
    for select in (greedy_distcnt, greedy_hamdist, greedy_cm):
        first = select(X, y, k, constraint=constraint).order.tolist()
        best = select(X, y, k, constraint=constraint, stop="best-feasible").order.tolist()
        assert best[: len(first)] == first


def test_miners_agree_on_a_random_matrix():
    X = (np.random.default_rng(0).random((60, 12)) < 0.4).astype(int)
    assert maximal_itemsets(X, 4) == maximal_itemsets(X, 4, miner="mlxtend")


def test_sparse_high_dimensional_input_matches_dense():
    rng = np.random.default_rng(1)
    X = sp.random(80, 3000, density=0.01, random_state=2, format="csr")
    X.data[:] = 1
    y = rng.integers(0, 2, 80)
    dense = X.toarray().astype(int)
    assert entity_ac(X).tolist() == brute_entity_ac(dense, list(range(3000))).tolist()
    assert greedy_distcnt(X, y, 2).order.tolist() == greedy_distcnt(dense, y, 2).order.tolist()


def test_no_feasible_feature_gives_empty_set_with_ac_n():
    X = np.eye(4, dtype=int)
    y = np.array([0, 1, 0, 1])
    for select in (greedy_distcnt, greedy_hamdist, maximal):
        sel = select(X, y, 2)
        assert sel.features.size == 0 and sel.ac == 4


def test_selector_in_a_pipeline(table1):
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    X, y = table1
    model = make_pipeline(ContainmentSelector(k=2, method="maximal"), LinearSVC()).fit(X, y)
    assert model[0].features_.tolist() == [0, 1, 4] and model[0].ac_ == 2
    assert model.predict(X).shape == (6,)


# ------------------------------------------------------------------ bad input


def test_non_binary_matrix_names_the_column():
    import pandas as pd

    with pytest.raises(ValueError, match="'age' \\(column 1\\)"):
        entity_ac(pd.DataFrame({"male": [0, 1], "age": [0, 37]}))
    with pytest.raises(ValueError, match="'race' \\(column 0\\) has dtype"):
        entity_ac(pd.DataFrame({"race": ["White", "Black"]}))
    with pytest.raises(ValueError, match="column 2"):
        dataset_ac(sp.csr_matrix(np.array([[1, 0, 2]])))


@pytest.mark.parametrize("k", [0, 7, 2.5])
def test_k_out_of_range(table1, k):
    X, y = table1
    with pytest.raises(ValueError, match="k must be an integer between 1"):
        greedy_distcnt(X, y, k)


def test_bad_arguments(table1):
    X, y = table1
    with pytest.raises(ValueError, match="constraint"):
        greedy_hamdist(X, y, 2, constraint="l-diversity")
    for select in (greedy_hamdist, greedy_distcnt, greedy_cm):
        with pytest.raises(ValueError, match="stop must be one of"):
            select(X, y, 2, stop="first-feasible")
    with pytest.raises(ValueError, match="two classes"):
        hamdist(X, np.ones(6))
    with pytest.raises(ValueError, match="miner"):
        maximal_itemsets(X, 2, miner="lcm")


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000), st.integers(1, 3))
def test_maximal_feasible_is_feasible_and_maximal_in_any_order(X, seed, k):
    """Definition 6: the set keeps k-AC and no feature can be added; in HamDist order it is the skipping greedy."""
    k = min(k, X.shape[0])
    order = np.random.default_rng(seed).permutation(X.shape[1])
    chosen = maximal_feasible(X, k, order)
    assert brute_entity_ac(X, chosen.features.tolist()).min() >= k if chosen.features.size else True
    for f in set(range(X.shape[1])) - set(chosen.features.tolist()):
        assert brute_entity_ac(X, chosen.features.tolist() + [f]).min() < k  # nothing can be added
    y = labels_for(X, seed)
    h = feature_hamdist(X, y)
    by_hamdist = [f for f in np.lexsort((np.arange(h.size), -h)) if h[f] > 1e-15]
    assert (
        maximal_feasible(X, k, by_hamdist).order.tolist()
        == greedy_hamdist(X, y, k, stop="best-feasible").order.tolist()
    )


def test_maximal_feasible_refuses_a_bad_order(table1):
    X, _ = table1
    with pytest.raises(ValueError, match="order must list distinct column indices"):
        maximal_feasible(X, 2, [0, 0, 1])
