"""Tests of privnb.learn.encoding: Weka IBk's distance and the standard scheme."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from privnb.learn import FrameEncoder

KINDS = {"age": "numeric", "edu": "ordinal", "job": "nominal", "sex": "nominal"}
ORDERS = {"edu": ("low", "mid", "high")}


@st.composite
def tables(draw):
    n = draw(st.integers(2, 12))
    return pd.DataFrame(
        {
            "age": draw(st.lists(st.integers(0, 90), min_size=n, max_size=n)),
            "edu": draw(st.lists(st.sampled_from(ORDERS["edu"]), min_size=n, max_size=n)),
            "job": draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)),
            "sex": draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n)),
        }
    )


def ibk_distance(u, v, frame):
    """Weka IBk's squared distance, written out: range-normalized differences, 0/1 nominal overlap."""
    total = 0.0
    for column in ("age", "edu"):
        numbers = frame[column].map({"low": 0, "mid": 1, "high": 2}) if column == "edu" else frame[column]
        span = numbers.max() - numbers.min() or 1
        a = {"low": 0, "mid": 1, "high": 2}.get(u[column], u[column])
        b = {"low": 0, "mid": 1, "high": 2}.get(v[column], v[column])
        total += ((a - b) / span) ** 2
    return total + sum(u[c] != v[c] for c in ("job", "sex"))


@settings(max_examples=60, deadline=None)
@given(tables())
def test_ibk_squared_distance_is_wekas(frame):
    encoded = FrameEncoder(KINDS, ORDERS).fit_transform(frame)
    for i in range(len(frame)):
        for j in range(len(frame)):
            got = ((encoded[i] - encoded[j]) ** 2).sum()
            assert got == pytest.approx(ibk_distance(frame.iloc[i], frame.iloc[j], frame))


def test_ibk_values_and_names():
    frame = pd.DataFrame(
        {"age": [20, 40, 60], "edu": ["low", "high", "mid"], "job": ["a", "b", "a"], "sex": ["F", "F", "M"]}
    )
    encoder = FrameEncoder(KINDS, ORDERS).fit(frame)
    w = 1 / np.sqrt(2)
    np.testing.assert_allclose(
        encoder.transform(frame),
        [[0.0, 0.0, w, 0, 0, w, 0, 0], [0.5, 1.0, 0, w, 0, w, 0, 0], [1.0, 0.5, w, 0, 0, 0, w, 0]],
    )
    assert encoder.get_feature_names_out().tolist() == [
        "age",
        "edu",
        "job=a",
        "job=b",
        "job=<unseen>",
        "sex=F",
        "sex=M",
        "sex=<unseen>",
    ]
    # test rows outside the training range are not clipped; an unseen category sets its own column, so that
    # it differs by 1 from every training value (Weka's overlap metric)
    out = encoder.transform(pd.DataFrame({"age": [80], "edu": ["mid"], "job": ["z"], "sex": ["M"]}))
    np.testing.assert_allclose(out, [[1.5, 0.5, 0, 0, w, 0, w, 0]])
    assert ((out[0, 2:5] - encoder.transform(frame)[0, 2:5]) ** 2).sum() == pytest.approx(1.0)


def test_standard_scheme():
    frame = pd.DataFrame({"age": [20.0, 40.0, 60.0, 80.0], "job": ["a", "b", "a", "c"]})
    out = FrameEncoder({"age": "numeric", "job": "nominal"}, scheme="standard").fit_transform(frame)
    np.testing.assert_allclose(out[:, 0].mean(), 0, atol=1e-12)
    np.testing.assert_allclose(out[:, 0].std(), 1)
    np.testing.assert_array_equal(out[:, 1:], [[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])


def test_column_subsets_and_missing_columns():
    frame = pd.DataFrame({"age": [20, 40], "edu": ["low", "high"], "job": ["a", "b"], "sex": ["F", "M"]})
    encoder = FrameEncoder(KINDS, ORDERS).fit(frame.drop(columns="edu"))
    assert encoder.transform(frame).shape == (2, 7)  # extra columns are ignored
    with pytest.raises(ValueError, match=r"\['job'\].*missing"):
        encoder.transform(frame.drop(columns="job"))


def test_kinds_inferred_and_arrays_by_position():
    out = FrameEncoder().fit_transform(np.array([[0.0, 1.0], [2.0, 3.0]]))
    np.testing.assert_allclose(out, [[0, 0], [1, 1]])
    encoder = FrameEncoder().fit(pd.DataFrame({"x": [1, 2], "c": ["u", "v"]}))
    assert encoder.kinds_ == {"x": "numeric", "c": "nominal"}


def test_bad_input_messages():
    frame = pd.DataFrame({"edu": ["low", "PhD"]})
    with pytest.raises(ValueError, match="outside its order"):
        FrameEncoder({"edu": "ordinal"}, ORDERS).fit(frame)
    with pytest.raises(ValueError, match="has no order"):
        FrameEncoder({"edu": "ordinal"}).fit(frame)
    with pytest.raises(ValueError, match="scheme must be"):
        FrameEncoder(scheme="minmax").fit(frame)
    with pytest.raises(ValueError, match="non-numbers"):
        FrameEncoder({"edu": "numeric"}).fit(frame)
    with pytest.raises(ValueError, match="missing or infinite"):
        FrameEncoder().fit(pd.DataFrame({"x": [1.0, np.nan]}))


def test_from_dataset_and_pipeline():
    frame = pd.DataFrame(
        {
            "age": [20, 30, 60, 70],
            "edu": ["low", "low", "high", "high"],
            "job": ["a", "a", "b", "b"],
            "sex": ["F", "M", "F", "M"],
        }
    )
    dataset = SimpleNamespace(kinds=KINDS, orders=ORDERS)
    model = make_pipeline(FrameEncoder.from_dataset(dataset), KNeighborsClassifier(1))
    model.fit(frame, [0, 0, 1, 1])
    assert model.predict(frame).tolist() == [0, 0, 1, 1]


def test_from_a_real_dataset():
    datasets = pytest.importorskip("privnb.data")
    toy = datasets.anatomy_toy()
    encoder = FrameEncoder.from_dataset(toy).fit(toy.X)
    assert encoder.kinds_ == {"A_1": "numeric", "A_2": "numeric"}
    out = encoder.transform(toy.X)
    assert out.min() == 0 and out.max() == 1


# --- scheme "appendix_b": Appendix B of MC16a as a fitted transformer ---------------------------------


def test_appendix_b_scheme_is_the_pruning_preprocessing_on_its_own_training_rows():
    """Fitted and applied on the same rows it equals appendix_b_preprocess (one column per attribute)."""
    from privnb.mechanisms.pruning import appendix_b_preprocess

    frame = pd.DataFrame(
        {
            "age": [20, 30, 40, 50],
            "edu": ["low", "mid", "mid", "high"],
            "job": ["a", "b", "b", "c"],
            "sex": ["F", "M", "M", "M"],
        }
    )
    for center in ("mean", "mode"):
        encoder = FrameEncoder(KINDS, ORDERS, scheme="appendix_b", ordinal_center=center)
        out = encoder.fit_transform(frame)
        assert out.shape == (4, 4)
        np.testing.assert_allclose(out, appendix_b_preprocess(frame, KINDS, orders=ORDERS, ordinal_center=center))
    np.testing.assert_allclose(out[:, 0], [-15, -5, 5, 15])  # age minus its mean 35
    np.testing.assert_allclose(out[:, 1], [-1, 0, 0, 1])  # codes 1, 2, 2, 3 minus the mode 2
    np.testing.assert_allclose(out[:, 2:], [[1, 1], [0, 0], [0, 0], [1, 0]])  # nominal: mode 0, others 1
    assert encoder.get_feature_names_out().tolist() == ["age", "edu", "job", "sex"]


def test_appendix_b_scheme_learns_on_training_rows_only_and_applies_to_raw_test_rows():
    train = pd.DataFrame(
        {"age": [10, 20, 30], "edu": ["low", "low", "high"], "job": ["a", "a", "b"], "sex": ["F", "F", "M"]}
    )
    test = pd.DataFrame({"age": [100], "edu": ["mid"], "job": ["zzz"], "sex": ["F"]})
    mean = FrameEncoder(KINDS, ORDERS, scheme="appendix_b").fit(train)
    mode = FrameEncoder(KINDS, ORDERS, scheme="appendix_b", ordinal_center="mode").fit(train)
    np.testing.assert_allclose(mean.transform(test), [[80, 2 - 5 / 3, 1, 0]])  # unseen job: "another value"
    np.testing.assert_allclose(mode.transform(test), [[80, 1, 1, 0]])  # mode code 1 ("low")
    with pytest.raises(ValueError, match="outside its order"):
        mean.transform(test.assign(edu="phd"))
    with pytest.raises(ValueError, match="ordinal_center"):
        FrameEncoder(KINDS, ORDERS, scheme="appendix_b", ordinal_center="median").fit(train)


def test_appendix_b_scaled_divides_each_coordinate_by_its_largest_training_magnitude():
    """Training columns land in [-1, 1] with Appendix B's centre kept at 0; test rows use training divisors."""
    train = pd.DataFrame(
        {"age": [10, 20, 60], "edu": ["low", "low", "high"], "job": ["a", "a", "a"], "sex": ["F", "F", "M"]}
    )
    plain = FrameEncoder(KINDS, ORDERS, scheme="appendix_b").fit(train)
    scaled = FrameEncoder(KINDS, ORDERS, scheme="appendix_b_scaled").fit(train)
    out = scaled.transform(train)
    assert np.abs(out).max(axis=0).tolist() == [1.0, 1.0, 0.0, 1.0]  # job is constant: divisor 1, column 0
    np.testing.assert_allclose(out[:, 0], [-20 / 30, -10 / 30, 1])  # age - 30, divided by 30
    test = pd.DataFrame({"age": [90], "edu": ["mid"], "job": ["b"], "sex": ["F"]})
    np.testing.assert_allclose(scaled.transform(test), plain.transform(test) / [30, 4 / 3, 1, 1])
    assert scaled.get_feature_names_out().tolist() == ["age", "edu", "job", "sex"]


@pytest.mark.parametrize("scheme", ["appendix_b", "appendix_b_scaled"])
def test_appendix_b_schemes_pass_scikit_learns_transformer_checks(scheme):
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(FrameEncoder(scheme=scheme))


def test_generalized_kinds_turn_generalized_ordinals_nominal():
    """Above level 0 an ordinal hierarchy's labels are ranges ("low-medium", "*"), not values of the order."""
    from privnb.learn import generalized_kinds

    kinds = {"age": "numeric", "edu": "ordinal", "rank": "ordinal", "job": "nominal"}
    assert generalized_kinds(kinds, {"age": object(), "edu": object()}) == {**kinds, "edu": "nominal"}
    assert generalized_kinds(kinds, None) == kinds
