"""privnb.learn.knn and privnb.experiments.knn_l_diversity: exact neighbour search, tie rules, IBk distance and the MC17
experiments."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

import privnb.learn.knn as knn_module
from privnb.data import Dataset, anatomy_toy
from privnb.experiments import COLUMNS
from privnb.experiments.knn_l_diversity import convergence_curves, cross_validate_knn
from privnb.learn import AnatomizedTraining, IBkClassifier, kneighbors, vote
from privnb.learn.neighbors import nearest_per_part


def brute(X, Q, k):
    """Reference: order by (rounded squared distance, row position)."""
    d2 = np.round(((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2), 9)
    order = np.array([np.lexsort((np.arange(len(X)), row))[:k] for row in d2])
    return np.take_along_axis(d2, order, axis=1), order


def test_matches_sklearn_without_ties():
    rng = np.random.default_rng(0)
    X, Q = rng.random((400, 4)), rng.random((150, 4))
    sq, idx = kneighbors(X, Q, 9)
    dist, ref = NearestNeighbors(n_neighbors=9).fit(X).kneighbors(Q)
    assert np.array_equal(idx, ref)
    assert np.allclose(np.sqrt(sq), dist)


@pytest.mark.parametrize("k", [1, 3, 5, 7, 9])
def test_votes_match_sklearn_classifier(k):
    rng = np.random.default_rng(k)
    X, Q, y = rng.random((300, 3)), rng.random((100, 3)), rng.integers(0, 2, 300)
    _, idx = kneighbors(X, Q, 9)
    ours = vote(y[idx], [k])[0]
    assert np.array_equal(ours, KNeighborsClassifier(k).fit(X, y).predict(Q))


@given(st.integers(0, 10_000), st.integers(1, 9), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_ties_broken_by_position_brute_force(seed, k, levels):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels + 1, size=(60, 2)) / max(levels, 1)
    Q = rng.integers(0, levels + 1, size=(15, 2)) / max(levels, 1)
    sq, idx = kneighbors(X, Q, k, chunk_bytes=8 * 64 * 3)  # tiny chunks: 3 queries at a time
    ref_sq, ref_idx = brute(X, Q, k)
    assert np.array_equal(idx, ref_idx)
    assert np.allclose(sq, ref_sq)


def test_smaller_k_is_a_prefix_and_chunks_do_not_matter():
    rng = np.random.default_rng(3)
    X = np.repeat(rng.random((50, 3)).round(1), 4, axis=0)  # every row four times: heavy ties
    Q = rng.random((40, 3)).round(1)
    _, big = kneighbors(X, Q, 9)
    for k in (1, 3, 5, 7):
        assert np.array_equal(kneighbors(X, Q, k, chunk_bytes=1)[1], big[:, :k])


def test_even_k_vote_tie_goes_to_nearest_neighbour():
    labels = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
    assert vote(labels, [2])[0].tolist() == [1, 0, 1]
    assert vote(labels, [4])[0].tolist() == [1, 0, 1]
    assert vote(labels, [3])[0].tolist() == [0, 1, 1]


def test_three_class_tie_goes_to_first_tied_class():
    labels = np.array([[2, 0, 1, 0, 2, 1]])
    assert vote(labels, [1, 3, 6], n_classes=3)[:, 0].tolist() == [2, 2, 2]
    assert vote(labels, [4], n_classes=3)[0, 0] == 0


@pytest.mark.parametrize("bad", [0, -3, 2.0, True])
def test_bad_k_rejected(bad):
    with pytest.raises(ValueError, match="positive integer"):
        kneighbors(np.zeros((5, 1)), np.zeros((1, 1)), bad)


def test_k_beyond_training_rows_rejected():
    with pytest.raises(ValueError, match="exceeds"):
        kneighbors(np.zeros((3, 1)), np.zeros((1, 1)), 5)
    with pytest.raises(ValueError, match="exceeds"):
        IBkClassifier(5).fit(pd.DataFrame({"a": [1.0, 2.0]}), [0, 1])


def test_ibk_distance_is_weka_overlap_and_min_max():
    train = pd.DataFrame({"age": [20.0, 40.0, 60.0], "job": ["a", "b", "c"]})
    model = IBkClassifier(3, kinds={"age": "numeric", "job": "nominal"}).fit(train, [0, 1, 1])
    dist, idx = model.kneighbors(pd.DataFrame({"age": [30.0], "job": ["b"]}))
    # to row 1: (0.25)^2 + 0 ; to row 0: 0.25^2 + 1 ; to row 2: 0.75^2 + 1
    assert idx.tolist() == [[1, 0, 2]]
    assert np.allclose(dist**2, [[0.0625, 1.0625, 1.5625]])


def test_predict_many_equals_predict_per_k():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"x": rng.random(200), "c": rng.choice(list("abc"), 200)})
    y = rng.integers(0, 2, 200)
    test = frame.iloc[:50]
    model = IBkClassifier(9).fit(frame, y)
    many = model.predict_many(test, [1, 3, 5, 7, 9])
    for row, k in enumerate([1, 3, 5, 7, 9]):
        assert np.array_equal(many[row], IBkClassifier(k).fit(frame, y).predict(test))
    assert np.allclose(model.predict_proba(test).sum(axis=1), 1)


def test_predicting_the_same_rows_again_reuses_the_search_and_other_rows_do_not(monkeypatch):
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"x": rng.random(200), "c": rng.choice(list("abc"), 200)})
    y = rng.integers(0, 3, 200)
    model = IBkClassifier(5).fit(frame, y)
    searches = []
    search = IBkClassifier._searches
    monkeypatch.setattr(IBkClassifier, "_searches", lambda self, *a: searches.append(self) or search(self, *a))
    test = frame.iloc[:60].copy()
    labels = model.predict(test)
    proba = model.predict_proba(test.reset_index(drop=True))  # the same content under another index
    assert searches.count(model) == 1
    proba[:] = 0  # the caller's copy: the kept shares are untouched
    fresh = IBkClassifier(5).fit(frame, y)
    assert np.array_equal(labels, fresh.predict(test)) and np.array_equal(
        model.predict_proba(test), fresh.predict_proba(test)
    )
    changed = test.assign(x=test["x"].where(test.index != 7, 0.5))  # one value differs: searched again
    assert np.array_equal(model.predict_proba(changed), fresh.predict_proba(changed)) and searches.count(model) == 2
    assert np.array_equal(model.predict_many(test, [1, 5])[0], IBkClassifier(1).fit(frame, y).predict(test))
    assert searches.count(model) == 3  # other ks: searched again
    model.fit(frame.iloc[:100], y[:100])  # a new fit forgets the last prediction
    assert np.array_equal(model.predict(test), IBkClassifier(5).fit(frame.iloc[:100], y[:100]).predict(test))
    assert searches.count(model) == 4


def test_figure_2_toy_anatomized_3nn_is_right():
    """Figure 2 of MC17: the anatomized 3-NN classifies a test point among the red ones as red."""
    toy = anatomy_toy()
    view = AnatomizedTraining(IBkClassifier(3, kinds=toy.kinds), sensitive="A_2", l=2, random_state=0)
    view.fit(toy.X, toy.y)
    assert view.n_train_ == 12
    test = pd.DataFrame({"A_1": [5.5], "A_2": [3.0]})
    assert view.predict(test).tolist() == [1]


def _small_dataset(n=120, seed=0, domain=3):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {"x": rng.random(n), "c": rng.choice(list("ab"), n), "s": rng.choice([f"s{i}" for i in range(domain)], n)}
    )
    frame["y"] = ((frame["x"] + (frame["c"] == "a") * 0.3 + rng.normal(0, 0.2, n)) > 0.6).astype(np.int64)
    return Dataset("small", frame, ("x", "c"), "s", "y", {"x": "numeric", "c": "nominal", "s": "nominal"})


def test_cross_validate_knn_rows_and_one_search_per_view(monkeypatch):
    calls = []
    plain, factored = knn_module.kneighbors, knn_module.kneighbors_factored

    def counting_plain(*args, **kwargs):
        calls.append(args[2])
        return plain(*args, **kwargs)

    def counting_factored(*args, **kwargs):
        calls.append(args[6])
        return factored(*args, **kwargs)

    monkeypatch.setattr(knn_module, "kneighbors", counting_plain)
    monkeypatch.setattr(knn_module, "kneighbors_factored", counting_factored)
    data = _small_dataset()
    out = cross_validate_knn(data, n_neighbors=(1, 3, 5), ls=(2, 3, 4), n_splits=3, random_state=0)
    assert list(out.columns) == list(COLUMNS)
    # original, identifying, anatomized l=2,3 searched for k=5 once per fold and run of test rows that
    # share Weka's running ranges (ranges="weka"); l=4 is N/A (domain 3)
    assert set(calls) == {5} and len(calls) >= 3 * 4
    assert set(out["metric"]) == {"error", "balanced_accuracy", "auc"}  # beside the error, per k and fold
    na = out[out["param"] == 4]
    assert len(na) == 3 * 3 * 3 and na["value"].isna().all() and na["note"].str.startswith("N/A").all()
    ok = out[out["note"] == ""]
    assert ok["value"].between(0, 1).all()
    assert set(ok["classifier"]) == {"1-NN", "3-NN", "5-NN", "majority"}
    assert len(out[out["method"] == "majority"]) == 3 * 3  # the baseline's three metrics, once per fold
    assert (ok.loc[ok["method"] == "anatomized", "n_train"] % ok.loc[ok["method"] == "anatomized", "param"] == 0).all()


def test_cross_validate_knn_reproducible_and_validates():
    data = _small_dataset(seed=1)
    a = cross_validate_knn(data, n_neighbors=(1, 3), ls=(2,), n_splits=2, random_state=4)
    b = cross_validate_knn(data, n_neighbors=(1, 3), ls=(2,), n_splits=2, random_state=4, n_jobs=2)
    pd.testing.assert_frame_equal(a, b)  # folds in parallel processes: the same table
    with pytest.raises(ValueError, match="unknown views"):
        cross_validate_knn(data, views=("original", "pruned"), n_splits=2)
    with pytest.raises(ValueError, match="ls must be integers >= 2"):
        cross_validate_knn(data, ls=(1,), n_splits=2)


def test_nearest_per_part_is_prefix_1nn_brute_force():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(90, 2)).astype(float)
    Q = rng.integers(0, 3, size=(25, 2)).astype(float)
    parts = rng.integers(0, 4, 90)
    best = nearest_per_part(X, parts, Q, chunk_bytes=8 * 90 * 4)
    for j in range(4):
        rows = np.flatnonzero(parts <= j)
        _, ref = brute(X[rows], Q, 1)
        assert np.array_equal(best[j], rows[ref[:, 0]])


def test_convergence_curves_shape():
    data = _small_dataset(n=180, seed=2)
    out = convergence_curves(data, ls=(2, 4), n_splits=2, n_parts=3, random_state=0)
    orig = out[out["method"] == "original"]
    assert set(out["metric"]) == {"incremental_error"}
    majority = out[out["method"] == "majority"]
    assert len(majority) == 2 * 3 and majority["n_train"].tolist() == orig["n_train"].tolist()
    assert len(orig) == 2 * 3 and orig["value"].between(0, 1).all()
    assert (orig.groupby("fold")["n_train"].apply(lambda s: s.is_monotonic_increasing)).all()
    assert out.loc[out["param"] == 4, "note"].str.startswith("N/A").all()
    assert out.loc[out["param"] == 2, "value"].notna().all()


@given(st.integers(0, 10_000), st.integers(1, 9), st.integers(2, 4))
@settings(max_examples=30, deadline=None)
def test_factored_search_equals_plain_search(seed, k, l):
    """D_A-shaped rows: each of 30 individuals with l values of a 4-valued sensitive part."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 3, size=(30, 2)) / 2
    S = np.eye(4)[:, :3] / np.sqrt(2)
    a_index = np.repeat(np.arange(30), l)
    s_index = np.concatenate([rng.permutation(4)[:l] for _ in range(30)])
    X = np.hstack([A[a_index], S[s_index]])
    Q_a, Q_s = rng.integers(0, 3, size=(12, 2)) / 2, S[rng.integers(0, 4, 12)]
    plain = kneighbors(X, np.hstack([Q_a, Q_s]), k)
    factored = knn_module.kneighbors_factored(A, S, a_index, s_index, Q_a, Q_s, k, chunk_bytes=8 * 32 * 5)
    assert np.array_equal(plain[1], factored[1])
    assert np.allclose(plain[0], factored[0])


def test_factor_column_gives_the_same_predictions():
    data = _small_dataset(n=150, seed=4, domain=4)
    plain = AnatomizedTraining(IBkClassifier(5, kinds=data.kinds), sensitive="s", l=3, random_state=1)
    factored = AnatomizedTraining(
        IBkClassifier(5, kinds=data.kinds, factor_column="s"), sensitive="s", l=3, random_state=1
    )
    test = data.X.iloc[:60]
    a = plain.fit(data.X, data.y).estimator_.kneighbors(test)
    b = factored.fit(data.X, data.y).estimator_.kneighbors(test)
    assert np.array_equal(a[1], b[1]) and np.allclose(a[0], b[0])
    with pytest.raises(ValueError, match="factor_column"):
        IBkClassifier(1, factor_column="nope").fit(data.X, data.y)


@given(st.integers(0, 10_000), st.integers(1, 9))
@settings(max_examples=30, deadline=None)
def test_repeated_training_rows_are_searched_by_distinct_row(seed, k):
    """Generalized data (mostly repeated rows) goes through the distinct-row search: same neighbours."""
    rng = np.random.default_rng(seed)
    distinct = rng.integers(0, 3, size=(12, 2)).astype(float)
    train = pd.DataFrame(distinct[rng.integers(0, 12, size=80)], columns=["a", "b"])
    test = pd.DataFrame(rng.integers(0, 3, size=(25, 2)).astype(float), columns=["a", "b"])
    model = IBkClassifier(k).fit(train, rng.integers(0, 2, 80))
    assert model._factored is not None
    sq, index = brute(model.fit_X_, model.encoder_.transform(test), k)
    distances, found = model.kneighbors(test)
    assert np.array_equal(found, index) and np.allclose(distances**2, sq)


# --- Weka IBk's rules (MC17 names IBk): tied neighbours, vote ties, running ranges -------------------


def weka_reference(train, y, queries, k, class_order, ranges="weka"):
    """Weka IBk written plainly, one query at a time: numeric columns only, min-max ranges updated with
    each query before it is classified; every row within the k-th distance votes, 1/n prior for every
    class, an even split to the class declared first."""
    train, queries = np.asarray(train, float), np.asarray(queries, float)
    low, high = train.min(axis=0), train.max(axis=0)
    out = []
    for q in queries:
        if ranges == "weka":
            low, high = np.minimum(low, q), np.maximum(high, q)
        width = high - low
        scaled = np.where(width > 0, (train - q) / np.where(width > 0, width, 1), 0.0)
        d = np.round((scaled**2).sum(axis=1), 9)
        kth = np.sort(d)[k - 1]
        dist = {c: 1 / len(train) for c in class_order}
        for label in y[d <= kth]:
            dist[label] += 1
        best = class_order[0]
        for c in class_order[1:]:
            if dist[c] > dist[best]:
                best = c
        out.append(best)
    return np.array(out)


def test_ibk_keeps_every_row_tied_with_the_kth_distance():
    # three rows at distance 0 from the query: all vote at k = 1 (two of class 0 beat one of class 1),
    # where the exact-k rule keeps only the first row (class 1)
    train = pd.DataFrame({"a": [0.0, 0.0, 0.0, 1.0]})
    y = np.array([1, 0, 0, 1])
    query = pd.DataFrame({"a": [0.0]})
    assert IBkClassifier(1).fit(train, y).predict(query).tolist() == [0]
    assert IBkClassifier(1, ties="exact-k").fit(train, y).predict(query).tolist() == [1]
    proba = IBkClassifier(1).fit(train, y).predict_proba(query)[0]
    assert np.allclose(proba, np.array([2.25, 1.25]) / 3.5)  # IBk: 1/n prior, +1 per neighbour


def test_ibk_even_split_goes_to_the_class_declared_first():
    train = pd.DataFrame({"a": [0.0, 0.0, 1.0]})
    y = np.array(["yes", "no", "yes"])
    query = pd.DataFrame({"a": [0.0]})
    assert IBkClassifier(1).fit(train, y).predict(query).tolist() == ["no"]  # sorted: "no" first
    assert IBkClassifier(1, class_order=("yes", "no")).fit(train, y).predict(query).tolist() == ["yes"]
    assert IBkClassifier(1, ties="exact-k").fit(train, y).predict(query).tolist() == ["yes"]  # nearest row
    with pytest.raises(ValueError, match="class_order"):
        IBkClassifier(1, class_order=("yes",)).fit(train, y)
    with pytest.raises(ValueError, match="ties"):
        IBkClassifier(1, ties="nearest").fit(train, y)


def test_ibk_ranges_grow_with_each_query_as_weka_does():
    # a query beyond the training range widens it before it is classified (IBk.addInstanceInfo)
    train = pd.DataFrame({"a": [0.0, 1.0], "b": ["x", "y"]})
    y = np.array([0, 1])
    queries = pd.DataFrame({"a": [3.0, 2.0], "b": ["x", "x"]})
    kinds = {"a": "numeric", "b": "nominal"}
    # query 0: range [0, 3]: (3/3)^2 + 0 = 1 to row 0 against (2/3)^2 + 1 to row 1; on [0, 1]: 9 against 5
    assert IBkClassifier(1, kinds=kinds).fit(train, y).predict(queries).tolist() == [0, 0]
    assert IBkClassifier(1, kinds=kinds, ranges="train").fit(train, y).predict(queries).tolist() == [1, 1]


@given(st.integers(0, 10_000), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_ibk_matches_a_plain_weka_reference_for_every_k_from_one_search(seed, levels):
    rng = np.random.default_rng(seed)
    train = rng.integers(0, levels + 1, size=(50, 2)).astype(float)  # few levels: heavy distance ties
    queries = rng.integers(-1, levels + 3, size=(20, 2)).astype(float)  # some beyond the training ranges
    y = rng.integers(0, 3, 50)
    order = tuple(rng.permutation(3).tolist())
    frame, qframe = pd.DataFrame(train, columns=["a", "b"]), pd.DataFrame(queries, columns=["a", "b"])
    model = IBkClassifier(9, class_order=order, chunk_bytes=8 * 64 * 3).fit(frame, y)
    many = model.predict_many(qframe, [1, 2, 3, 5, 9])
    for row, k in enumerate([1, 2, 3, 5, 9]):
        assert np.array_equal(many[row], weka_reference(train, y, queries, k, order)), k
    fixed = IBkClassifier(3, class_order=order, ranges="train").fit(frame, y).predict(qframe)
    assert np.array_equal(fixed, weka_reference(train, y, queries, 3, order, ranges="train"))


@given(st.integers(0, 10_000), st.integers(1, 9), st.integers(2, 4))
@settings(max_examples=20, deadline=None)
def test_factored_tied_search_equals_plain_tied_search(seed, k, l):
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 3, size=(30, 2)) / 2
    S = np.eye(4)[:, :3] / np.sqrt(2)
    a_index = np.repeat(np.arange(30), l)
    s_index = np.concatenate([rng.permutation(4)[:l] for _ in range(30)])
    X = np.hstack([A[a_index], S[s_index]])
    Q_a, Q_s = rng.integers(0, 3, size=(12, 2)) / 2, S[rng.integers(0, 4, 12)]
    plain = kneighbors(X, np.hstack([Q_a, Q_s]), k, ties=True)
    factored = knn_module.kneighbors_factored(A, S, a_index, s_index, Q_a, Q_s, k, chunk_bytes=8 * 32 * 5, ties=True)
    assert np.array_equal(plain.offsets, factored.offsets) and np.array_equal(plain.index, factored.index)
    sizes = np.diff(plain.offsets)
    assert (sizes >= k).all()


def test_knn_views_read_the_sensitive_attribute_as_weka_does():
    from privnb.experiments.knn_l_diversity.cross_validation import ibk_kinds, weka_class_order

    adult_like = Dataset(
        "adult",
        _small_dataset().frame,
        ("x", "c"),
        "s",
        "y",
        {"x": "numeric", "c": "nominal", "s": "ordinal"},
        {"s": ("s0", "s1", "s2")},
    )
    assert ibk_kinds(adult_like)["s"] == "nominal"  # Weka: education is nominal
    assert ibk_kinds(adult_like, sensitive_kind="as-dataset")["s"] == "ordinal"
    assert weka_class_order(adult_like) == tuple(pd.unique(adult_like.y))
    # a mismatch of the nominal sensitive attribute adds exactly 1 to the squared distance
    train = pd.DataFrame({"s": ["s0", "s2"]})
    model = IBkClassifier(2, kinds=ibk_kinds(adult_like)).fit(train, [0, 1])
    assert np.allclose(model.kneighbors(pd.DataFrame({"s": ["s1"]}))[0] ** 2, [[1.0, 1.0]])


def _constant_dataset(name, first_label, n=60):
    """Every column constant, classes balanced: all training rows tie, so every row votes and IBk's 1-NN gives
    the even split to the class declared first."""
    y = (np.arange(n) + first_label) % 2
    frame = pd.DataFrame({"x": 1.0, "c": "a", "s": "s0", "y": y})
    kinds = {"x": "numeric", "c": "nominal", "s": "nominal"}
    return Dataset(name, frame, ("x", "c"), "s", "y", kinds, {}, ("<=50K", ">50K"))


def test_class_order_appearance_or_declared():
    from privnb.experiments.knn_l_diversity.cross_validation import DECLARED_CLASS_ORDERS, weka_class_order

    adult = _constant_dataset("adult", first_label=0)
    assert weka_class_order(adult) == (0, 1)  # "<=50K" appears first
    assert weka_class_order(adult, "declared") == (1, 0)  # adult.names: ">50K, <=50K."
    assert DECLARED_CLASS_ORDERS["bank"] == ("yes", "no")
    with pytest.raises(ValueError, match="no declared class order"):
        weka_class_order(_constant_dataset("ward", 0), "declared")
    with pytest.raises(ValueError, match="class_order must be one of"):
        weka_class_order(adult, "sorted")


@pytest.mark.parametrize("order, first", [("appearance", 0), ("declared", 1)])
def test_an_even_vote_goes_to_the_class_declared_first(order, first):
    """Constant rows, a balanced training fold: every row votes, the split is even and the 1-NN predicts the
    class declared first, in the cross-validation and the convergence views alike."""
    from privnb.experiments.folds import FoldData
    from privnb.experiments.knn_l_diversity.convergence import convergence_views
    from privnb.experiments.knn_l_diversity.cross_validation import ibk_options, knn_views

    data = _constant_dataset("adult", first_label=0)
    train = np.flatnonzero(np.arange(60) < 40)
    test = np.r_[np.flatnonzero(data.y[40:] == 1)[:6], np.flatnonzero(data.y[40:] == 0)[:2]] + 40
    assert np.bincount(data.y[train]).tolist() == [20, 20]
    fold = FoldData(0, 0, data.X.iloc[train], data.y[train], data.X.iloc[test], data.y[test])
    expected = np.mean(data.y[test] != first)  # 6 of class 1, 2 of class 0
    view = knn_views(data, [1], [2], ibk_options=ibk_options(data, class_order=order))[0]  # the original 1-NN
    scores = {s.metric: s.value for s in view.scorer(clone(view.estimator).fit(fold.X_train, fold.y_train), fold)}
    assert scores["error"] == pytest.approx(expected)
    assert scores["balanced_accuracy"] == 0.5 and scores["auc"] == 0.5  # a constant guess, whichever class
    view = convergence_views(data, [2], n_parts=2, class_order=order)[0]
    scores = view.scorer(clone(view.estimator).set_params(random_state=0).fit(fold.X_train, fold.y_train), fold)
    assert [s.value for s in scores][-1] == pytest.approx(expected)  # the prefix of both parts: 20 and 20
