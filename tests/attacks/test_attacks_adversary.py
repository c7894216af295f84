"""The common adversary: exact posteriors against a brute force over every assignment, Sinkhorn close to it, a
planted dependence found on every microdata release kind with one baseline on the same rows, and rates that do
not move when rows are reordered or values relabelled."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from small_hierarchies import small_hierarchies

from privnb.attacks import AttackResult, Targets, common_adversary
from privnb.attacks.adversary import EXACT_CLASS_SIZE, cell_posteriors
from privnb.data import load
from privnb.mechanisms import (
    Anatomy,
    FullDomainGeneralizer,
    MDAVMicroaggregator,
    MondrianGeneralizer,
    anatomize,
)


def brute_posteriors(prior: np.ndarray, codes) -> np.ndarray:
    """Every assignment of the cell's multiset to its members, weighted by the product of the members' priors."""
    m = len(codes)
    out = np.zeros((m, prior.shape[1]))
    for assignment in set(itertools.permutations(codes)):
        weight = np.prod([prior[j, v] for j, v in enumerate(assignment)])
        for j, v in enumerate(assignment):
            out[j, v] += weight
    return out / out.sum(axis=1, keepdims=True)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, EXACT_CLASS_SIZE), st.integers(2, 4), st.integers(0, 10_000))
def test_exact_cells_equal_a_brute_force_over_assignments(m, n_values, seed):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(n_values), size=m)
    codes = rng.integers(0, n_values, m)
    got = cell_posteriors(prior, np.zeros(m, dtype=int), pd.Series(codes, index=np.zeros(m, dtype=int)))
    np.testing.assert_allclose(got, brute_posteriors(prior, codes), atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.integers(EXACT_CLASS_SIZE + 1, 9), st.integers(2, 3), st.integers(0, 10_000))
def test_larger_cells_are_counted_exactly(m, n_values, seed):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(n_values), size=m)
    codes = rng.integers(0, n_values, m)
    got = cell_posteriors(prior, np.zeros(m, dtype=int), pd.Series(codes, index=np.zeros(m, dtype=int)))
    np.testing.assert_allclose(got, brute_posteriors(prior, codes), atol=1e-10)


def test_cells_beyond_counting_use_sinkhorn_which_keeps_the_published_counts(monkeypatch):
    import privnb.attacks.adversary as adversary

    monkeypatch.setattr(adversary, "EXACT_STATES", 1)
    rng = np.random.default_rng(1)
    m = EXACT_CLASS_SIZE + 2
    prior = rng.dirichlet(np.ones(3), size=m)
    codes = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    got = cell_posteriors(prior, np.zeros(m, dtype=int), pd.Series(codes, index=np.zeros(m, dtype=int)))
    np.testing.assert_allclose(got.sum(axis=0), np.bincount(codes), atol=1e-8)
    assert np.abs(got - brute_posteriors(prior, codes)).max() < 0.1


def test_a_suppressed_row_keeps_its_prior_and_a_one_valued_cell_is_certain():
    prior = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    got = cell_posteriors(prior, np.array([0, 0, -1]), pd.Series([1, 1], index=[0, 0]))
    np.testing.assert_allclose(got, [[0, 1], [0, 1], [0.5, 0.5]])


def planted(n: int, seed: int):
    """Training rows whose sensitive value is the quarter of ``num`` (0..15); a population where it is random."""
    rng = np.random.default_rng(seed)

    def table(size, planted_values):
        num = rng.integers(0, 16, size)
        values = num // 4 if planted_values else rng.integers(0, 4, size)
        return pd.DataFrame({"num": num, "let": rng.choice(list("abcd"), size), "s": [f"v{v}" for v in values]})

    rows, population = table(n, True), table(n, False)
    labels, population_labels = rng.integers(0, 2, n), rng.integers(0, 2, n)
    return Targets(rows, labels, "s", population, population_labels, seed=seed)


def releases(targets: Targets) -> dict:
    rows, hier = targets.rows, small_hierarchies(["num", "let"])
    kinds = {"num": "numeric", "let": "nominal"}
    return {
        "anatomy": anatomize(rows, "s", 2, random_state=0),
        "full-domain": FullDomainGeneralizer(["num", "let"], 4, hier, max_suppression=0.0).fit(rows).release_,
        "mondrian": MondrianGeneralizer(["num", "let"], 4, kinds=kinds).fit(rows).release_,
        "mdav": MDAVMicroaggregator(["num"], 4).fit(rows).release_,
    }


def test_one_adversary_finds_a_planted_dependence_on_every_release_kind_with_one_baseline():
    targets = planted(400, 0)
    results = {name: common_adversary(release, targets) for name, release in releases(targets).items()}
    baselines = {result.baseline for result in results.values()}
    assert len(baselines) == 1 and {result.n_targets for result in results.values()} == {400}
    (baseline,) = baselines
    assert baseline < 0.4  # the population teaches nothing of the planted link
    for name, result in results.items():
        assert result.attack == "common" and result.advantage_interval[0] > 0.1, name
        assert result.interval[0] <= result.success <= result.interval[1]
    assert results["mdav"].success > 0.8 and results["mondrian"].success > 0.8  # classes within one quarter


def shuffled(anatomy: Anatomy, targets: Targets, seed: int):
    """The same release and rows, rows reordered, labels and groups renumbered and values renamed."""
    rng = np.random.default_rng(seed)
    n, s = len(targets.rows), targets.sensitive
    new_label = rng.permutation(n)
    values = sorted(set(targets.rows[s]) | set(targets.population[s]))
    rename = dict(zip(values, [f"w{i}" for i in rng.permutation(len(values))]))
    gid = rng.permutation(anatomy.it["gid"].max() + 1)
    rows = targets.rows.assign(**{s: targets.rows[s].map(rename)})
    rows.index = new_label
    rows = rows.sort_index()
    it = anatomy.it.assign(gid=gid[anatomy.it["gid"]])
    it.index = pd.Index(new_label[anatomy.it.index], name=anatomy.it.index.name)
    it = it.sample(frac=1, random_state=seed)
    st = anatomy.st.assign(gid=gid[anatomy.st["gid"]], **{s: anatomy.st[s].map(rename)}).sample(
        frac=1, random_state=seed
    )
    order = np.argsort(new_label)
    population_order = rng.permutation(len(targets.population))
    population = targets.population.assign(**{s: targets.population[s].map(rename)}).iloc[population_order]
    moved = Targets(
        rows, np.asarray(targets.labels)[order], s, population, np.asarray(targets.population_labels)[population_order]
    )
    return Anatomy(it, st, anatomy.suppressed, s, anatomy.l), moved


@pytest.mark.parametrize("l", [2, 4])
def test_the_rate_does_not_move_when_rows_are_reordered_or_values_relabelled(l):
    targets = planted(300, 3)
    anatomy = anatomize(targets.rows, "s", l, random_state=1)
    before = common_adversary(anatomy, targets)
    for seed in range(3):
        after = common_adversary(*shuffled(anatomy, targets, seed))
        assert after.success == pytest.approx(before.success, abs=1e-12)
        assert after.baseline == pytest.approx(before.baseline, abs=1e-12)


def test_on_adult_at_l5_the_rate_does_not_move_when_rows_are_reordered_or_values_relabelled():
    data = load("adult")
    frame = data.sample(5500, random_state=5).frame  # 1,500 individuals, a population of 4,000 others
    known, population = frame.iloc[:1500], frame.iloc[1500:].reset_index(drop=True)
    columns = [*data.quasi_identifiers, data.sensitive]
    targets = Targets(known[columns], known[data.target], data.sensitive, population[columns], population[data.target])
    anatomy = anatomize(targets.rows, data.sensitive, 5, random_state=0)
    before = common_adversary(anatomy, targets)
    after = common_adversary(*shuffled(anatomy, targets, 0))
    assert after.success == pytest.approx(before.success, abs=1e-12) and before.advantage > 0


def test_every_record_interval_covers_its_success():
    targets = planted(200, 5)
    for release in releases(targets).values():
        result = common_adversary(release, targets)
        low, high = result.interval
        assert low <= result.success <= high and low >= 0 and high <= 1
        assert result.advantage_interval[0] <= result.advantage <= result.advantage_interval[1]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 500), st.floats(0, 1))
def test_a_share_interval_covers_the_share(n, share):
    result = AttackResult("toy", "share", share, 0.0, n)
    assert result.interval[0] <= share + 1e-12 and share - 1e-12 <= result.interval[1]
    assert result.successes == pytest.approx(share * n)


def test_a_success_that_is_no_share_has_no_count_interval():
    result = AttackResult("r_closeness", "r", 3.5, 1.0, 10)
    assert result.successes is None and np.isnan(result.interval).all()
    assert "r_closeness_low" not in result.values()


def test_targets_refuse_missing_sensitive_values():
    rows = pd.DataFrame({"q": [1, 2], "s": ["a", None]})
    with pytest.raises(ValueError, match="missing values"):
        Targets(rows, np.array([0, 1]), "s", rows, np.array([0, 1]))
