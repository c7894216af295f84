"""IBkClassifier with missing values, as Weka's NormalizableDistance treats them: checked against a
row-by-row re-implementation of Weka's rule on small tables with NaNs."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.learn import IBkClassifier

KINDS = {"x": "numeric", "z": "numeric", "c": "nominal", "o": "ordinal"}
ORDERS = {"o": ("lo", "mid", "hi")}


def missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(column, value):
    return float(ORDERS[column].index(value)) if column in ORDERS else float(value)


def weka_difference(column, a, b, low, high):
    """NormalizableDistance.difference of Weka 3.8, one attribute, normalization on."""
    if KINDS[column] == "nominal":
        return 1.0 if missing(a) or missing(b) or a != b else 0.0

    def norm(v):
        return 0.0 if math.isnan(low) or high == low else (number(column, v) - low) / (high - low)

    if missing(a) and missing(b):
        return 1.0
    if missing(a) or missing(b):
        diff = norm(b if missing(a) else a)
        return 1.0 - diff if diff < 0.5 else diff
    return norm(a) - norm(b)


def ranges(rows, column):
    values = [number(column, v) for v in rows[column] if not missing(v)]
    return (min(values), max(values)) if values else (math.nan, math.nan)


def weka_distances(train, query_row, seen):
    """Squared distances of one query to every training row, ranges over the rows ``seen`` (Weka IBk's)."""
    out = []
    for _, row in train.iterrows():
        total = 0.0
        for column in KINDS:
            low, high = ranges(seen, column) if KINDS[column] != "nominal" else (0, 0)
            total += weka_difference(column, query_row[column], row[column], low, high) ** 2
        out.append(total)
    return np.round(np.array(out), 9)


def weka_predict(train, y, query, k, first):
    """IBk: every row within the k-th distance votes; an even split goes to the class declared first."""
    predictions = []
    for i in range(len(query)):
        seen = pd.concat([train, query.iloc[: i + 1]])  # the ranges widen with each query
        d = weka_distances(train, query.iloc[i], seen)
        kth = np.sort(d)[k - 1]
        votes = {c: int(np.sum((d <= kth) & (y == c))) for c in first}
        predictions.append(max(first, key=lambda c: (votes[c], -first.index(c))))
    return np.array(predictions)


def table(draw_values, n):
    rng = np.random.default_rng(draw_values)
    frame = pd.DataFrame(
        {
            "x": rng.integers(0, 4, n).astype(float),
            "z": rng.choice([0.0, 0.5, 2.0], n),
            "c": rng.choice(["a", "b", "c"], n).astype(object),
            "o": rng.choice(list(ORDERS["o"]), n).astype(object),
        }
    )
    for column in frame:
        frame.loc[rng.random(n) < 0.3, column] = np.nan if KINDS[column] != "nominal" else None
    frame.loc[rng.random(n) < 0.3, "o"] = None
    return frame


@given(st.integers(0, 10_000), st.integers(1, 4))
@settings(max_examples=25, deadline=None)
def test_predictions_equal_wekas_rule_on_tables_with_missing_values(seed, k):
    train, query = table(seed, 14), table(seed + 1, 7)
    y = np.random.default_rng(seed).choice(["no", "yes"], 14)
    first = ["yes", "no"]
    model = IBkClassifier(k, kinds=KINDS, orders=ORDERS, class_order=first).fit(train, y)
    assert np.array_equal(model.predict(query), weka_predict(train, y, query, k, first))


@given(st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_distances_on_the_training_ranges_equal_wekas_rule(seed):
    train, query = table(seed, 12), table(seed + 7, 5)
    model = IBkClassifier(3, kinds=KINDS, orders=ORDERS, ranges="train").fit(train, np.arange(12) % 2)
    dist, index = model.kneighbors(query, n_neighbors=12)
    for i in range(len(query)):
        expected = weka_distances(train, query.iloc[i], train)
        assert np.allclose(dist[i] ** 2, expected[index[i]])
        assert np.array_equal(index[i], np.lexsort((np.arange(12), expected)))


def test_worked_values_of_wekas_rule():
    """Numeric x on the range 0..4: a missing value against 1 (v = 0.25) is 1 - 0.25 = 0.75 away, against
    3 (v = 0.75) 0.75 away, two missing values 1 apart; a missing nominal value is 1 from anything, itself too.
    """
    train = pd.DataFrame({"x": [0.0, 4.0, 1.0, 3.0, np.nan], "c": ["a", "a", "a", "b", None]})
    model = IBkClassifier(1, kinds={"x": "numeric", "c": "nominal"}, ranges="train").fit(train, [0, 1, 0, 1, 0])
    dist, index = model.kneighbors(pd.DataFrame({"x": [np.nan], "c": [None]}), n_neighbors=5)
    got = dict(zip(index[0], dist[0] ** 2))
    assert got == pytest.approx({0: 1 + 1, 1: 1 + 1, 2: 0.75**2 + 1, 3: 0.75**2 + 1, 4: 1 + 1})


@given(st.integers(0, 10_000), st.sampled_from(["weka", "exact-k"]))
@settings(max_examples=25, deadline=None)
def test_without_missing_values_wekas_rule_equals_the_encoded_distance(seed, ties):
    """A missing value in the LAST query sends every query through Weka's rule; the others' predictions (their
    running ranges are the same) must equal those of the encoded search."""
    train = table(seed, 30).ffill().bfill()
    query = table(seed + 1, 9).ffill().bfill()
    y = np.random.default_rng(seed).integers(0, 2, 30)
    model = IBkClassifier(3, kinds=KINDS, orders=ORDERS, ties=ties).fit(train, y)
    with_missing = query.copy()
    with_missing.loc[8, ["x", "c"]] = [np.nan, None]  # before: "impute them first"
    assert np.array_equal(model.predict(with_missing)[:8], model.predict(query.iloc[:8]))
