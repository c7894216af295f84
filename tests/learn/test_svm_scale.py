"""The input space "appendix_b_svm_scale": MC16's R^(d+1) scaled as LibSVM's svm-scale -l -1 -u 1 does."""

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.learn import DEFAULT_SPACE, SPACES, FrameEncoder, svm_pipeline

KINDS = {"age": "numeric", "edu": "ordinal", "job": "nominal", "hours": "numeric"}
ORDERS = {"edu": ("low", "mid", "high")}


def frames(seed=0, n=40):
    """A training and a test frame of mixed kinds; the test rows reach beyond the training range."""
    rng = np.random.RandomState(seed)

    def rows(m, low, high):
        return pd.DataFrame(
            {
                "age": rng.randint(low, high, m).astype(float),
                "edu": rng.choice(["low", "mid", "high"], m),
                "job": rng.choice(["a", "b", "c"], m),
                "hours": np.full(m, 40.0),  # constant in training
            }
        )

    test = rows(10, 0, 120)
    test.loc[0, "hours"] = 60.0  # a value the constant training column never took
    return rows(n, 18, 90), test


def svm_scale_by_formula(train_coordinates, coordinates):
    """svm-scale's rule, written out: min -> -1, max -> 1, linear between; a constant column -> 0; no clipping."""
    low, high = train_coordinates.min(axis=0), train_coordinates.max(axis=0)
    out = np.zeros_like(coordinates, dtype=float)
    varying = high > low
    out[:, varying] = -1 + 2 * (coordinates[:, varying] - low[varying]) / (high[varying] - low[varying])
    return out


def test_svm_scale_space_is_appendix_b_mapped_min_to_max_onto_minus_one_one():
    train, test = frames()
    plain = FrameEncoder(KINDS, ORDERS, scheme="appendix_b").fit(train)
    scaled = FrameEncoder(KINDS, ORDERS, scheme="appendix_b_svm_scale").fit(train)
    for rows in (train, test):
        np.testing.assert_allclose(
            scaled.transform(rows), svm_scale_by_formula(plain.transform(train), plain.transform(rows)), atol=1e-12
        )
    out = scaled.transform(train)
    assert out.min(axis=0).tolist() == [-1, -1, -1, 0] and out.max(axis=0).tolist() == [1, 1, 1, 0]
    beyond = scaled.transform(test)
    assert beyond[:, 0].min() < -1 and beyond[:, 0].max() > 1  # ages outside the training range: not clipped
    assert beyond[0, 3] == 0  # hours was constant in training: 0 whatever the test value
    assert SPACES["appendix_b_svm_scale"] == "appendix_b_svm_scale" and DEFAULT_SPACE in SPACES


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-50, 50), st.sampled_from(["low", "mid", "high"]), st.sampled_from("ab")),
        min_size=1,
        max_size=12,
    )
)
def test_svm_scale_training_columns_span_minus_one_to_one_or_are_zero(rows):
    train = pd.DataFrame(rows, columns=["age", "edu", "job"])
    kinds = {k: KINDS[k] for k in train.columns}
    out = FrameEncoder(kinds, ORDERS, scheme="appendix_b_svm_scale").fit(train).transform(train)
    for column, values in zip(train.columns, out.T):
        if train[column].nunique() == 1:
            assert (values == 0).all()
        else:
            assert values.min() == pytest.approx(-1) and values.max() == pytest.approx(1)


def libsvm_file(path, matrix):
    """Rows in LibSVM's sparse text format, every coordinate written (label 0)."""
    lines = ["0 " + " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row)) for row in matrix]
    path.write_text("\n".join(lines) + "\n")


def read_libsvm_file(path, width):
    matrix = []
    for line in path.read_text().splitlines():
        row = np.zeros(width)
        for item in line.split()[1:]:
            index, value = item.split(":")
            row[int(index) - 1] = float(value)
        matrix.append(row)
    return np.array(matrix)


@pytest.mark.skipif(shutil.which("svm-scale") is None, reason="LibSVM's svm-scale is not installed (libsvm-tools)")
def test_svm_scale_space_matches_libsvms_svm_scale(tmp_path):
    """The real tool: svm-scale -l -1 -u 1 -s range on the training rows, svm-scale -r range on the test rows."""
    train, test = frames(seed=3)
    plain = FrameEncoder(KINDS, ORDERS, scheme="appendix_b").fit(train)
    scaled = FrameEncoder(KINDS, ORDERS, scheme="appendix_b_svm_scale").fit(train)
    libsvm_file(tmp_path / "train", plain.transform(train))
    libsvm_file(tmp_path / "test", plain.transform(test))
    ranges = tmp_path / "range"
    for source, arguments in (("train", ["-l", "-1", "-u", "1", "-s", str(ranges)]), ("test", ["-r", str(ranges)])):
        done = subprocess.run(["svm-scale", *arguments, str(tmp_path / source)], capture_output=True, check=True)
        (tmp_path / f"{source}.scaled").write_bytes(done.stdout)
    for source, rows in (("train", train), ("test", test)):
        tool = read_libsvm_file(tmp_path / f"{source}.scaled", len(KINDS))
        np.testing.assert_allclose(scaled.transform(rows), tool, rtol=1e-5, atol=1e-6)  # svm-scale prints %g


def test_svm_pipeline_takes_the_default_space():
    """LibSVM's documented scaling is the default input space (MC16 names LibSVM and is silent on scaling)."""
    assert DEFAULT_SPACE == "appendix_b_svm_scale"
    pipeline = svm_pipeline(type("D", (), {"kinds": KINDS, "orders": ORDERS})(), "linear")  # kinds and orders only
    assert pipeline[0].scheme == "appendix_b_svm_scale"


def test_svm_scale_scheme_passes_scikit_learns_transformer_checks():
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(FrameEncoder(scheme="appendix_b_svm_scale"))
