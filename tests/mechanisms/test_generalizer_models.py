"""Privacy models inside the generalizers (FullDomainGeneralizer, MondrianGeneralizer, GeneralizedTraining):
every release satisfies k-anonymity and each model, checked with the models' own code and a brute force;
the full-domain search against every node of the lattice evaluated by brute force."""

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.neighbors import KNeighborsClassifier
from small_hierarchies import LETTERS, small_hierarchies

from privnb.data import Dataset, Hierarchy
from privnb.experiments import PredictionScorer, View, run_folds
from privnb.learn import GeneralizedTraining
from privnb.mechanisms import (
    BasicBetaLikeness,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    FullDomainGeneralizer,
    FullDomainLattice,
    MondrianGeneralizer,
    NotLDiverseError,
    RecursiveCLDiversity,
    TCloseness,
    sensitive_counts,
)
from privnb.mechanisms._model_checks import ModelCheck, NodeJudge

QI = ["num", "let"]
MODELS = [
    DistinctLDiversity(2),
    EntropyLDiversity(1.8),
    RecursiveCLDiversity(2, 2),
    TCloseness(0.3),
    TCloseness(0.25, "ordered"),
    BasicBetaLikeness(1.0),
    EnhancedBetaLikeness(0.8),
    # the same against the release's own distribution (after suppression) instead of the input table's
    TCloseness(0.3, reference="release"),
    TCloseness(0.25, "ordered", reference="release"),
    BasicBetaLikeness(1.0, reference="release"),
    EnhancedBetaLikeness(0.8, reference="release"),
]


frames = st.integers(2, 24).flatmap(
    lambda n: st.builds(
        lambda num, let, s: pd.DataFrame({"num": num, "let": let, "s": s, "y": np.arange(n) % 2}),
        st.lists(st.integers(0, 7), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )
)

model_lists = st.lists(st.sampled_from(MODELS), min_size=1, max_size=2, unique_by=repr)


def brute_class_ok(values, overall, model, k):
    """One class's sensitive values against k and one model, written out from the definitions."""
    n = len(values)
    if n < k:
        return False
    counts = Counter(values)
    q = {v: counts.get(v, 0) / n for v in overall}
    if isinstance(model, DistinctLDiversity):
        return len(counts) >= model.l
    if isinstance(model, EntropyLDiversity):
        return -sum(c / n * math.log(c / n) for c in counts.values()) >= math.log(model.l) - 1e-9
    if isinstance(model, RecursiveCLDiversity):
        r = sorted(counts.values(), reverse=True)
        return len(r) >= model.l and r[0] < model.c * sum(r[model.l - 1 :])
    if isinstance(model, TCloseness) and model.distance == "equal":
        return 0.5 * sum(abs(q[v] - overall[v]) for v in overall) <= model.t + 1e-9
    if isinstance(model, TCloseness):  # ordered: the numbers by value, |i - j| / (m - 1)
        order = sorted(overall)
        walk = np.cumsum([q[v] - overall[v] for v in order])
        return float(np.abs(walk).sum()) / max(len(order) - 1, 1) <= model.t + 1e-9
    bound = dict.fromkeys(overall, model.beta)
    if isinstance(model, EnhancedBetaLikeness):
        bound = {v: min(model.beta, -math.log(p)) for v, p in overall.items()}
    return all((q[v] - p) / p <= bound[v] + 1e-9 for v, p in overall.items() if q[v] > p)


def overall_of(frame):
    counts = Counter(frame["s"])
    return {v: c / len(frame) for v, c in counts.items()}


def reads_release(model) -> bool:
    return getattr(model, "reference", "input") == "release"


def brute_kept(classes, frame_overall, k, models):
    """Which classes are kept: k and the input-reading models against the table; then, for the release-reading
    ones, classes failing against the kept rows' distribution suppressed until every kept class passes."""
    kept = [
        len(c) >= k and all(brute_class_ok(c, frame_overall, m, k) for m in models if not reads_release(m))
        for c in classes
    ]
    later = [m for m in models if reads_release(m)]
    while later and any(kept):
        rows = [v for c, keep in zip(classes, kept) if keep for v in c]
        overall = {v: n / len(rows) for v, n in Counter(rows).items()}
        now = [keep and all(brute_class_ok(c, overall, m, k) for m in later) for c, keep in zip(classes, kept)]
        if now == kept:
            break
        kept = now
    return kept


def brute_lattice(frame, hier, k, models, max_suppression):
    """Every node: (acceptable, suppressed rows, discernibility), classes failing k or a model suppressed."""
    overall, budget = overall_of(frame), math.floor(max_suppression * len(frame) + 1e-9)
    out = {}
    for node in itertools.product(*(range(hier[a].n_levels) for a in QI)):
        labels = pd.DataFrame({a: hier[a].generalize(frame[a], lv) for a, lv in zip(QI, node)})
        classes = [rows["s"].tolist() for _, rows in frame.groupby([labels[a] for a in QI], sort=False)]
        kept = brute_kept(classes, overall, k, models)
        n_sup = sum(len(c) for c, keep in zip(classes, kept) if not keep)
        dm = sum(len(c) ** 2 for c, keep in zip(classes, kept) if keep)
        out[node] = (n_sup <= budget, n_sup, dm + len(frame) * n_sup)
    return out


def assert_release_satisfies(release, frame, k, models):
    """Every class of the release: k rows and each model under its reading (the input table's distribution or
    the release's own), by the models' code and by brute force."""
    assert release.groupby(QI).size().min() >= k
    for m in models:
        overall = overall_of(release if reads_release(m) else frame)
        for _, rows in release.groupby(QI):
            assert brute_class_ok(rows["s"].tolist(), overall, m, k)
        assert m.holds(sensitive_counts(release, QI, "s", input_table=frame))
        if reads_release(m):  # checkable from the release alone
            assert m.holds(sensitive_counts(release, QI, "s"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 3), model_lists, st.sampled_from([0.0, 0.15, 0.4]))
def test_full_domain_with_models_against_brute_force(frame, k, models, max_suppression):
    hier = small_hierarchies(QI, num_top=8)
    truth = brute_lattice(frame, hier, k, models, max_suppression)
    gen = FullDomainGeneralizer(QI, k, hier, max_suppression=max_suppression, sensitive="s", privacy_models=models)
    if any(
        isinstance(m, (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)) and m.l > frame["s"].nunique()
        for m in models
    ):
        with pytest.raises(NotLDiverseError):
            gen.fit(frame)
        return
    if not any(ok for ok, _, _ in truth.values()):
        with pytest.raises(ValueError, match="no generalization"):
            gen.fit(frame)
        return
    if all(isinstance(m, DistinctLDiversity) for m in models):  # monotone with suppression: an up-set
        for node, (ok, _, _) in truth.items():
            above = [node[:i] + (node[i] + 1,) + node[i + 1 :] for i in range(2)]
            assert not ok or all(truth[up][0] for up in above if up in truth)
    gen.fit(frame)
    minimal = {
        node
        for node, (ok, _, _) in truth.items()
        if ok and not any(truth[node[:i] + (node[i] - 1,) + node[i + 1 :]][0] for i in range(2) if node[i] > 0)
    }
    assert {tuple(r) for r in gen.minimal_nodes_[QI].itertuples(index=False)} == minimal
    chosen = tuple(gen.node_[a] for a in QI)
    assert truth[chosen][2] == min(truth[node][2] for node in minimal) == gen.minimal_nodes_.loc[0, "discernibility"]
    assert len(gen.suppressed_) == truth[chosen][1] <= max_suppression * len(frame) + 1e-9
    assert gen.search_ == ("flash" if all(isinstance(m, DistinctLDiversity) for m in models) else "flash+exhaustive")
    release = gen.generalized_
    assert release.index.equals(frame.index.difference(gen.suppressed_))
    assert_release_satisfies(release, frame, k, models)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(1, 3), model_lists, st.booleans())
def test_mondrian_with_models_releases_only_satisfying_regions(frame, k, models, with_hierarchy):
    gen = MondrianGeneralizer(
        QI,
        k,
        hierarchies=small_hierarchies(QI, num_top=8) if with_hierarchy else None,
        sensitive="s",
        privacy_models=models,
    )
    overall = overall_of(frame)
    table_ok = len(frame) >= k and all(brute_class_ok(frame["s"].tolist(), overall, m, 1) for m in models)
    if not table_ok:
        with pytest.raises(ValueError, match=r"l = |fails|at least k"):
            gen.fit(frame)
        return
    gen.fit(frame)
    assert len(gen.suppressed_) == 0
    assert_release_satisfies(gen.generalized_, frame, k, models)


def test_mondrian_cuts_only_where_every_part_is_diverse():
    frame = pd.DataFrame({"num": np.arange(8), "let": list("aaaaaaaa"), "s": [0, 0, 0, 0, 1, 1, 1, 1]})
    assert MondrianGeneralizer(QI, 2).fit(frame).n_groups_ == 4
    assert MondrianGeneralizer(QI, 2, sensitive="s", privacy_models=[DistinctLDiversity(2)]).fit(frame).n_groups_ == 1
    frame["s"] = [0, 1] * 4
    assert MondrianGeneralizer(QI, 2, sensitive="s", privacy_models=[DistinctLDiversity(2)]).fit(frame).n_groups_ == 4


def test_entropy_is_not_monotone_with_suppression_and_the_search_is_still_exact():
    # one attribute, a and b merged at level 1; class a = {0, 1} passes entropy 2-diversity, class b = {0}
    # fails and is suppressed (1 row, the budget); merged, {0, 1, 0} fails: 3 rows, over the budget
    frame = pd.DataFrame({"let": ["a", "a", "b"], "num": [0, 0, 0], "s": [0, 1, 0]})
    hier = {
        "let": Hierarchy.from_arx(pd.DataFrame([["a", "*"], ["b", "*"]])),
        "num": small_hierarchies(QI, num_top=8)["num"],
    }
    models = [EntropyLDiversity(2)]
    truth = brute_lattice(frame[["num", "let", "s"]], hier, 1, models, 0.34)
    assert truth[0, 0][0] and not truth[0, 1][0]  # acceptable below, not above
    gen = FullDomainGeneralizer(QI, 1, hier, max_suppression=0.34, sensitive="s", privacy_models=models).fit(frame)
    assert gen.search_ == "flash+exhaustive"
    assert gen.node_ == {"num": 0, "let": 0} and gen.suppressed_.tolist() == [2]
    accepted = {tuple(r) for r in gen.minimal_nodes_[QI].itertuples(index=False)}
    assert accepted == {node for node, (ok, _, _) in truth.items() if ok and node[0] == 0}


def test_model_input_errors():
    frame = pd.DataFrame({"num": [1, 2, 3, 4], "let": list("abcd"), "s": [0, 1, 0, 1]})
    hier = small_hierarchies(QI, num_top=8)
    for gen in (
        FullDomainGeneralizer(QI, 2, hier, privacy_models=[DistinctLDiversity(2)]),
        MondrianGeneralizer(QI, 2, privacy_models=[DistinctLDiversity(2)]),
    ):
        with pytest.raises(ValueError, match="sensitive="):
            gen.fit(frame)
    with pytest.raises(ValueError, match="not a column"):
        FullDomainGeneralizer(QI, 2, hier, sensitive="t", privacy_models=[DistinctLDiversity(2)]).fit(frame)
    with pytest.raises(ValueError, match="also a quasi-identifier"):
        MondrianGeneralizer(QI, 2, sensitive="num", privacy_models=[DistinctLDiversity(2)]).fit(frame)
    with pytest.raises(ValueError, match="sequence of privacy models"):
        MondrianGeneralizer(QI, 2, sensitive="s", privacy_models=DistinctLDiversity(2)).fit(frame)
    gaps = frame.assign(s=[0, None, 0, 1])
    for gen in (
        FullDomainGeneralizer(QI, 2, hier, sensitive="s"),  # a sensitive column and no model to judge it
        MondrianGeneralizer(QI, 2, sensitive="s"),
    ):
        with pytest.raises(ValueError, match="judged only by privacy models"):
            gen.fit(frame)
        with pytest.raises(ValueError, match=r"sensitive column 's' of the training rows has 1 missing value"):
            gen.set_params(privacy_models=[TCloseness(0.5)]).fit(gaps)
    for gen in (
        FullDomainGeneralizer(QI, 2, hier, sensitive="s", privacy_models=[DistinctLDiversity(3)]),
        MondrianGeneralizer(QI, 2, sensitive="s", privacy_models=[RecursiveCLDiversity(3, 3)]),
        MondrianGeneralizer(QI, 1, sensitive="s", privacy_models=[EntropyLDiversity(2.5)]),
    ):
        with pytest.raises(NotLDiverseError):
            gen.fit(frame)


def _toy(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"a": rng.randint(0, 8, n), "b": rng.randint(0, 3, n), "s": rng.randint(0, 3, n)})
    X["y"] = ((X["a"] + rng.randint(0, 3, n)) > 4).astype(int)
    return Dataset(
        name="toy",
        frame=X,
        target="y",
        quasi_identifiers=("a", "b"),
        sensitive="s",
        kinds={"a": "numeric", "b": "numeric", "s": "nominal"},
    )


@pytest.mark.parametrize("method", ["mondrian", "full-domain"])
def test_generalized_training_passes_models_through_and_runs_in_folds(method):
    data = _toy()
    models = [DistinctLDiversity(2), TCloseness(0.4)]
    hier = {"a": Hierarchy.intervals(0, 8, width=2, name="a"), "b": Hierarchy.intervals(0, 3, width=1, name="b")}
    view = GeneralizedTraining(
        KNeighborsClassifier(3),
        quasi_identifiers=["a", "b"],
        k=3,
        method=method,
        hierarchies=hier,
        sensitive="s",
        privacy_models=models,
        max_suppression=0.1,
    )
    mechanism = view.new_mechanism()
    assert mechanism.sensitive == "s" and mechanism.privacy_models is models
    view.fit(data.X, data.y)
    release = view.generalizer_.generalized_
    assert_release_satisfies(release.rename(columns={"a": "num", "b": "let"}), data.X, 3, models[:1])
    rows = run_folds(
        data, [View(method, 3, view, PredictionScorer("3-NN"))], n_splits=3, random_state=0, progress=False
    )
    assert len(rows) == 3 and rows["value"].notna().all()
    beyond = view.set_params(privacy_models=[DistinctLDiversity(4)])
    rows = run_folds(
        data, [View(method, 4, beyond, PredictionScorer("3-NN"))], n_splits=3, random_state=0, progress=False
    )
    assert rows["value"].isna().all() and rows["note"].str.startswith("N/A: ").all()


@pytest.mark.parametrize("method", ["full-domain", "mondrian"])
def test_hierarchical_t_closeness_takes_the_sensitive_values_of_the_table(method):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"num": rng.integers(0, 8, 60), "let": rng.choice(list("abcd"), 60)})
    frame["s"] = np.where(frame["num"] < 4, rng.choice(list("ab"), 60), rng.choice(list("abcd"), 60))
    model = TCloseness(0.2, "hierarchical", hierarchy=Hierarchy.from_arx(LETTERS, name="s"))
    if method == "full-domain":
        gen = FullDomainGeneralizer(
            QI, 2, small_hierarchies(QI, num_top=8), max_suppression=0.0, sensitive="s", privacy_models=[model]
        )
    else:
        gen = MondrianGeneralizer(QI, 2, sensitive="s", privacy_models=[model])
    release = gen.fit(frame).generalized_
    unconstrained = sensitive_counts(frame, ["num", "let"], "s", input_table=frame)
    assert not model.holds(unconstrained)  # the raw classes are far from the table: the model binds
    assert len(release) == len(frame) and model.holds(sensitive_counts(release, QI, "s", input_table=frame))
    assert release.groupby(QI).ngroups > 1


def test_full_domain_suppression_separates_the_two_readings():
    """Issue 32: ARX's reading (the input table's distribution) certifies a release that fails against its own
    distribution once a row is suppressed; reference="release" searches for one that holds against it."""
    frame = pd.DataFrame(
        {
            "num": [2, 0, 2, 3, 6, 3, 0, 2, 4, 6, 5, 7, 1, 7],
            "let": list("acbacbcbacbccd"),
            "s": [0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1],
        }
    )
    hier = small_hierarchies(QI, num_top=8)
    releases = {}
    for reading in ("input", "release"):
        model = TCloseness(0.1, reference=reading)
        gen = FullDomainGeneralizer(QI, 2, hier, max_suppression=0.3, sensitive="s", privacy_models=[model]).fit(frame)
        releases[reading] = gen.generalized_
        assert_release_satisfies(gen.generalized_, frame, 2, [model])
    assert len(releases["input"]) < len(frame)
    arx = sensitive_counts(releases["input"], QI, "s", input_table=frame)
    assert TCloseness(0.1).holds(arx) and not TCloseness(0.1, reference="release").holds(arx)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(20, 200),
    st.integers(0, 2**32 - 1),
    st.integers(1, 4),
    st.lists(st.sampled_from(MODELS[:7]), min_size=1, max_size=2, unique_by=repr),
)
def test_nodes_judged_together_match_each_node_judged_alone(n, seed, k, models):
    """NodeJudge.summarize (the classes of each height judged together, a class taken whole from a judged node
    keeping its verdict) gives every node the summary a judge of that node alone gives."""
    rng = np.random.default_rng(seed)
    qi = ["num", "let", "col"]
    frame = pd.DataFrame(
        {"num": rng.integers(0, 16, n), "let": rng.choice(list("abcd"), n), "col": rng.choice(list("xyz"), n)}
    ).assign(s=rng.permutation(np.arange(n) % 4))
    lattice = FullDomainLattice(
        [pd.factorize(frame[a])[0] for a in qi],
        [pd.factorize(frame[a])[1].to_numpy() for a in qi],
        list(small_hierarchies(qi).values()),
        0.1,
    )
    check = ModelCheck(frame, qi, "s", models, k)
    nodes = list(itertools.product(*(range(h) for h in lattice.heights)))
    together = NodeJudge(lattice, check)
    together.summarize(sorted(nodes, key=sum))
    for node in nodes:
        assert together.summaries[node] == NodeJudge(lattice, check).summary(node)
