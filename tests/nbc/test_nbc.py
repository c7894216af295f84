"""privnb.nbc: views, eq. (2), Definition 2, and the exact posterior of Section 4 (MZ09)."""

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from privnb.nbc import NBCViews, achieved_r, audit, brute_force_posterior, min_score_ratio, nbc_equivalent, posterior
from privnb.nbc.views import score_signs


def figure1():
    """Figure 1 of MZ09 (the package copy is privnb.data.nbc_figure1_databases)."""
    try:
        from privnb.data import nbc_figure1_databases

        return nbc_figure1_databases()
    except ImportError:  # pragma: no cover - the datasets helper's module is missing
        a = pd.DataFrame(
            {"Adr": list("WWWWPWP"), "Age": [40, 40, 40, 40, 30, 40, 30], "Sal": ["70K"] * 5 + ["50K"] * 2}
        )
        b = pd.DataFrame({"Adr": list("WWPWP"), "Age": [40, 40, 30, 40, 30], "Sal": ["70K"] * 3 + ["50K"] * 2})
        return a, b


@pytest.fixture(scope="module")
def views_ab():
    a, b = figure1()
    return NBCViews.from_frame(a, ["Adr", "Age"], "Sal"), NBCViews.from_frame(b, ["Adr", "Age"], "Sal")


def test_counts_of_figure_1(views_ab):
    va, _ = views_ab
    assert va.labels == ("50K", "70K")
    assert va.counts["Adr"].at["W", "70K"] == 4 and va.class_counts["50K"] == 2
    assert va.is_integral() and va.is_realistic()


def test_paper_example_88_and_78_percent(views_ab):
    va, vb = views_ab
    alice = {"Adr": "W", "Age": 40}
    pa, pb = posterior(va, alice), posterior(vb, alice)
    assert pa["70K"] == Fraction(22, 25)  # 1/10 (4/5 + 4 * 3/4 + 5 * 1) = 88%
    assert pb["70K"] == Fraction(7, 9)  # 1/6 (2/3 + 1/2 + 1/2 + 1 + 1 + 1) = 78%
    assert brute_force_posterior(va, alice).equals(pa)
    assert brute_force_posterior(vb, alice).equals(pb)


def test_paper_prediction_and_equivalence(views_ab):
    va, vb = views_ab
    # <P, 30>: 5 (1/5)(1/5) < 2 (1/2)(1/2) -> 50K on both (Section 1)
    assert va.score({"Adr": "P", "Age": 30}).tolist() == [Fraction(1, 2), Fraction(1, 5)]
    assert va.predict({"Adr": "P", "Age": 30}).tolist() == ["50K"]
    assert vb.predict(("P", 30)).tolist() == ["50K"]
    assert nbc_equivalent(va, vb) and nbc_equivalent(va, vb, ties="strict")


def test_ties_go_to_the_larger_label():
    frame = pd.DataFrame({"a": [0, 1, 0, 1], "y": [0, 0, 1, 1]})
    views = NBCViews.from_frame(frame, ["a"], "y")
    assert views.predict(frame[["a"]]).tolist() == [1, 1, 1, 1]
    unseen = pd.DataFrame({"a": [7]})
    assert views.predict(unseen).tolist() == [1]  # unseen value: N = 0 for every class, a tie


def random_frames(max_rows=10, max_attributes=3, max_values=3, max_classes=3):
    @st.composite
    def build(draw):
        n_attr = draw(st.integers(1, max_attributes))
        rows = draw(st.integers(2, max_rows))
        n_classes = draw(st.integers(2, max_classes))
        data = {
            f"a{i}": draw(st.lists(st.integers(0, max_values - 1), min_size=rows, max_size=rows)) for i in range(n_attr)
        }
        data["y"] = draw(st.lists(st.integers(0, n_classes - 1), min_size=rows, max_size=rows))
        return pd.DataFrame(data)

    return build()


def _brute_signs(views):
    scores = [views.score(t) for t in itertools.product(*(views.domain(a) for a in views.attributes))]
    pairs = list(itertools.combinations(views.labels, 2))
    return np.array([[(s[a] > s[b]) - (s[a] < s[b]) for a, b in pairs] for s in scores], dtype=np.int8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_frames())
def test_score_signs_match_exact_fractions(frame):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    assert np.array_equal(score_signs(views), _brute_signs(views))


@settings(max_examples=40, deadline=None)
@given(random_frames(), st.integers(1, 5))
def test_equivalence_is_closed_under_powers_and_class_constant_scaling(frame, power):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    raised = views.with_counts(
        [p**power for p in views.class_counts], [f.to_numpy() ** power for f in views.counts.values()]
    )
    assert nbc_equivalent(views, raised, ties="strict")


def test_a_flipped_prediction_is_not_equivalent(views_ab):
    va, _ = views_ab
    p = va.class_counts.tolist()
    tables = [f.to_numpy().copy() for f in va.counts.values()]
    tables[0][0, 0] = 5  # N^Adr_{P,50K}: 1 -> 5 makes <P, .> 50K-heavier
    other = va.with_counts(p, tables)
    assert not nbc_equivalent(va, other)


def test_min_score_ratio_against_brute_force(views_ab):
    va, _ = views_ab
    ratios = []
    for t in itertools.product(*(va.domain(a) for a in va.attributes)):
        s = va.score(t)
        for x, y in itertools.permutations(s.tolist(), 2):
            if y and x > y:
                ratios.append(x / y)
    assert min_score_ratio(va) == min(ratios)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_frames(max_rows=6, max_attributes=2, max_values=2, max_classes=2), st.data())
def test_chain_posterior_equals_enumeration_of_worlds(frame, data):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    subset = data.draw(st.lists(st.sampled_from(views.attributes), min_size=1, unique=True))
    qi = {a: data.draw(st.sampled_from(list(views.domain(a)))) for a in subset}
    try:
        exact = posterior(views, qi)
    except ValueError:
        with pytest.raises(ValueError, match="no possible world"):
            brute_force_posterior(views, qi)
        return
    assert exact.equals(brute_force_posterior(views, qi))
    assert sum(exact) == 1


def test_audit_exact_and_breaches(views_ab):
    va, vb = views_ab
    result = audit(va, L1=0.51, L2=0.8)
    assert result.method == "exact"
    row = result.table[
        (result.table["Adr"] == "W") & (result.table["Age"] == 40) & (result.table["property"] == ("70K",))
    ]
    assert row["posterior"].item() == pytest.approx(0.88)
    assert bool(row["upward"].item())  # the 0.51-to-0.8 upward breach of Section 4
    safe = audit(vb, L1=0.51, L2=0.8).table
    both = safe[(safe["Adr"] == "W") & (safe["Age"] == 40) & (safe["property"] == ("70K",))]
    assert not bool(both["upward"].item())
    assert result.r_closeness >= 0.88 / 0.5
    prior = {"50K": 0.3, "70K": 0.7}
    assert achieved_r(va) == result.r_closeness  # without building the table: the same r
    assert achieved_r(vb, prior) == audit(vb, prior).r_closeness


def test_audit_expected_method_is_the_nbc_estimate(views_ab):
    va, _ = views_ab
    table = audit(va, method="expected").table
    row = table[(table["Adr"] == "P") & (table["Age"] == 30) & (table["property"] == ("50K",))]
    s = va.score(("P", 30))
    assert row["posterior"].item() == pytest.approx(float(s["50K"] / s.sum()))
    w40 = table[(table["Adr"] == "W") & (table["Age"] == 40) & (table["property"] == ("70K",))]
    assert w40["posterior"].item() == pytest.approx(32 / 37)  # (16/5) / (16/5 + 1/2), not the paper's 22/25


def _audit_posteriors(views, table):
    """The audit's singleton-property rows as {(quasi-identifier items): {label: posterior}}."""
    out = {}
    for row in table[table["property"].map(len) == 1].itertuples(index=False):
        row = row._asdict()
        qi = tuple((a, row[a]) for a in views.attributes if row[a] is not None)
        out.setdefault(qi, {})[row["property"][0]] = row["posterior"]
    return out


def _check_against(views, reference):
    assume(len(views.labels) > 1)
    result = audit(views)
    assert achieved_r(views) == result.r_closeness
    table = result.table
    got = _audit_posteriors(views, table)
    n_values = 0
    for size in range(1, views.n_attributes + 1):
        for subset in itertools.combinations(views.attributes, size):
            for values in itertools.product(*(views.domain(a) for a in subset)):
                qi = dict(zip(subset, values))
                try:
                    want = reference(views, qi)
                except ValueError:
                    assert tuple(qi.items()) not in got  # no possible world: no row
                    continue
                n_values += 1
                for label in views.labels:
                    assert got[tuple(qi.items())][label] == pytest.approx(float(want[label]), rel=1e-11, abs=1e-300)
    assert len(got) == n_values


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_frames(max_rows=6, max_attributes=2, max_values=2, max_classes=2))
def test_exact_audit_equals_enumeration_of_worlds(frame):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    _check_against(views, brute_force_posterior)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_frames(max_rows=45, max_attributes=3, max_values=4, max_classes=3))
def test_exact_audit_equals_the_rational_chain(frame):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    _check_against(views, posterior)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_frames(max_rows=20, max_attributes=2, max_values=3, max_classes=3), st.data())
def test_r_against_another_prior_from_the_same_audit(frame, data):
    views = NBCViews.from_frame(frame, [c for c in frame if c != "y"], "y")
    assume(len(views.labels) >= 2)
    weights = data.draw(st.lists(st.integers(1, 9), min_size=len(views.labels), max_size=len(views.labels)))
    prior = {label: Fraction(w, sum(weights)) for label, w in zip(views.labels, weights)}
    result = audit(views)
    assert result.properties == list(dict.fromkeys(result.table["property"]))  # every block lists them in order
    assert result.r_closeness_for(prior) == audit(views, prior).r_closeness
    assert result.r_closeness_for(None) == result.r_closeness


def test_exact_audit_on_larger_counts_against_the_rational_chain():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 400), "b": rng.integers(0, 2, 400), "y": rng.integers(0, 2, 400)})
    views = NBCViews.from_frame(frame, ["a", "b"], "y")
    got = _audit_posteriors(views, audit(views).table)
    for qi in [(("a", 0), ("b", 1)), (("a", 2),), (("b", 0),)]:
        want = posterior(views, dict(qi))
        assert [got[qi][label] for label in views.labels] == pytest.approx([float(x) for x in want], rel=1e-11)


def test_exact_audit_of_huge_counts_is_the_large_table_limit(views_ab):
    va, _ = views_ab
    scale = 10**40  # E[S] >= 2^60 everywhere: the exact posterior is E[K_c]/E[S] to float64 precision
    big = va.with_counts([v * scale for v in va.class_counts], [f.to_numpy() * scale for f in va.counts.values()])
    exact, expected = audit(big), audit(big, method="expected")
    assert exact.method == "exact"
    assert np.allclose(exact.table["posterior"], expected.table["posterior"], rtol=1e-15, atol=0)
    lopsided = NBCViews({0: 2**54, 1: 1}, {"a": pd.DataFrame({0: [2**54 - 1, 1], 1: [0, 1]}, index=["x", "z"])})
    with pytest.raises(ValueError, match="method='expected'"):
        audit(lopsided)
    with pytest.raises(ValueError, match="'exact' or 'expected'"):
        audit(va, method="auto")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"L1": 0.6, "L2": 0.5}, "smaller than L2"),
        ({"L1": 0.0, "L2": 0.5}, "strictly between 0 and 1"),
        ({"L1": 0.5, "L2": 1.0}, "strictly between 0 and 1"),
        ({"L1": 0.5}, "both L1 and L2"),
        ({"prior": {"50K": 0.0, "70K": 1.0}}, "positive prior"),
        ({"prior": {"50K": 0.3, "70K": 0.3}}, "sums to"),
        ({"prior": {"50K": 1.0}}, "exactly the labels"),
    ],
)
def test_audit_bad_input(views_ab, kwargs, message):
    with pytest.raises(ValueError, match=message):
        audit(views_ab[0], **kwargs)


def test_bad_views():
    with pytest.raises(ValueError, match="empty"):
        NBCViews({0: 0, 1: 2}, {"a": pd.DataFrame({0: [0], 1: [2]}, index=["x"])})
    with pytest.raises(ValueError, match="negative"):
        NBCViews({0: 1, 1: 2}, {"a": pd.DataFrame({0: [-1], 1: [2]}, index=["x"])})
    with pytest.raises(ValueError, match="not in the domain"):
        posterior(NBCViews({0: 1, 1: 2}, {"a": pd.DataFrame({0: [1], 1: [2]}, index=["x"])}), {"a": "z"})
    with pytest.raises(ValueError, match="integer, realistic"):
        posterior(NBCViews({0: 1, 1: 2}, {"a": pd.DataFrame({0: [Fraction(1, 2)], 1: [2]}, index=["x"])}), {"a": "x"})
