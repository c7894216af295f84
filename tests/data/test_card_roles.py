"""Issue 31: what users' data needs from a card: a target rule for counts and amounts (``"> 0"``, ``">= 50000"``,
a list of labels) and the ``insensitive`` role (ARX's term): predictors loaded for the classifiers, never
generalized and never known to an adversary."""

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privnb.data import CardError, load
from privnb.mechanisms import MondrianGeneralizer, anatomize


def _write(folder, frame, roles, **extra):
    frame.to_csv(folder / "t.csv", index=False)
    card = {"name": "t", "file": "t.csv", "roles": roles, **extra}
    (folder / "t.yaml").write_text(yaml.safe_dump(card, sort_keys=False))
    return folder / "t.yaml"


def _table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "ward": rng.choice(["north", "south", "east"], n),
            "diagnosis": rng.choice(["flu", "covid", "asthma", "ulcer"], n),
            "visits": rng.poisson(0.5, n),
            "income": rng.integers(10_000, 90_000, n),
        }
    )


ROLES = {"quasi_identifiers": ["age", "sex"], "sensitive": "diagnosis", "target": "visits"}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.integers(-5, 5), min_size=4, max_size=40),
    st.sampled_from([">", ">=", "<", "<="]),
    st.integers(-4, 4),
)
def test_a_rule_on_numbers_makes_the_target_what_the_comparison_says(tmp_path, counts, operator, bound):
    frame = pd.DataFrame({"age": range(len(counts)), "visits": counts})
    expected = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}[operator](counts, bound)
    card = _write(
        tmp_path, frame, {"quasi_identifiers": ["age"], "target": "visits", "positive": f"{operator} {bound}"}
    )
    if expected.all() or not expected.any():
        with pytest.raises(CardError, match="a classifier needs two classes"):
            load(card)
        return
    data = load(card)
    assert data.y.tolist() == expected.astype(int).tolist()
    assert data.target_names[1] == f"visits {operator} {bound}"


def test_a_count_a_threshold_on_an_amount_and_a_list_of_labels(tmp_path):
    frame = _table()
    count = load(_write(tmp_path, frame, {**ROLES, "positive": "> 0"}))
    assert count.y.tolist() == (frame["visits"] > 0).astype(int).tolist()
    assert count.target_names == ("visits <= 0", "visits > 0")
    rich = load(_write(tmp_path, frame, {**ROLES, "target": "income", "positive": ">= 50000"}))
    assert rich.y.tolist() == (frame["income"] >= 50_000).astype(int).tolist()
    labels = load(
        _write(tmp_path, frame, {**ROLES, "sensitive": "ward", "target": "diagnosis", "positive": ["flu", "covid"]})
    )
    assert labels.y.tolist() == frame["diagnosis"].isin(["flu", "covid"]).astype(int).tolist()
    assert labels.target_names == ("not flu or covid", "flu or covid")


def test_a_rule_on_text_and_an_absent_label_are_card_errors_that_say_what_to_write(tmp_path):
    frame = _table()
    with pytest.raises(CardError, match=r"compares numbers but the column holds .*name a label"):
        load(_write(tmp_path, frame, {**ROLES, "target": "ward", "sensitive": "diagnosis", "positive": "> 0"}))
    with pytest.raises(CardError, match=r"positive label 'measles' not found"):
        load(
            _write(
                tmp_path, frame, {**ROLES, "target": "diagnosis", "sensitive": "ward", "positive": ["flu", "measles"]}
            )
        )
    with pytest.raises(CardError, match=r"a list of them, or a rule on numbers"):
        load(_write(tmp_path, frame, ROLES))


def test_insensitive_predictors_reach_the_classifiers_and_no_mechanism_changes_them(tmp_path):
    frame = _table()
    data = load(_write(tmp_path, frame, {**ROLES, "insensitive": ["ward"], "positive": "> 0"}))
    assert data.insensitive == ("ward",) and "ward" not in data.quasi_identifiers
    assert list(data.X.columns) == ["age", "sex", "diagnosis", "ward"] and data.kinds["ward"] == "nominal"
    release = MondrianGeneralizer(list(data.quasi_identifiers), 5, kinds=data.kinds).fit(data.frame)
    kept = release.generalized_.index
    assert release.generalized_["ward"].tolist() == data.frame.loc[kept, "ward"].tolist()
    anatomy = anatomize(data.frame, data.sensitive, 2, random_state=0)
    assert "ward" in anatomy.it.columns and "ward" not in anatomy.st.columns
    # the default quasi-identifiers leave the insensitive columns out
    default = load(
        _write(
            tmp_path, frame, {"sensitive": "diagnosis", "insensitive": ["ward"], "target": "visits", "positive": "> 0"}
        )
    )
    assert default.quasi_identifiers == ("age", "sex", "income")


def test_a_column_with_two_roles_is_a_card_error(tmp_path):
    with pytest.raises(CardError, match="roles overlap"):
        load(_write(tmp_path, _table(), {**ROLES, "insensitive": ["age"], "positive": "> 0"}))
