"""Data cards: a YAML file beside a CSV or Parquet file, loaded by privnb.data.load and checked by
`privnb data check`."""

import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privnb.__main__ import main
from privnb.data import (
    CardError,
    Dataset,
    Hierarchy,
    TokenCorpus,
    builtin_cards,
    check_card,
    hierarchies_from_card,
    load,
)

CARD = {
    "name": "clinic",
    "file": "clinic.csv",
    "roles": {
        "quasi_identifiers": ["age", "zip", "sex", "severity"],
        "sensitive": "diagnosis",
        "target": "readmitted",
        "positive": "yes",
    },
    "columns": {"severity": {"kind": "ordinal", "order": ["low", "medium", "high"]}, "zip": "nominal"},
    "missing": {"markers": ["?"], "action": "drop"},
}


def _frame(n=60):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "zip": rng.choice([47906, 47907, 47901], n),
            "sex": rng.choice(["F", "M"], n),
            "severity": rng.choice(["low", "medium", "high"], n),
            "diagnosis": rng.choice(["flu", "asthma", "diabetes", "ulcer"], n),
            "note": ["x"] * n,
            "readmitted": np.where(np.arange(n) % 3 == 0, "yes", "no"),
        }
    )
    frame = frame.astype({"zip": object, "age": object})
    frame.loc[[3, 7], "sex"] = "?"
    frame.loc[5, "age"] = "?"
    return frame


@pytest.fixture
def folder(tmp_path):
    _frame().to_csv(tmp_path / "clinic.csv", index=False)
    return tmp_path


def _card(folder: Path, **changes) -> Path:
    card = {**CARD, **changes}
    path = folder / "clinic.yaml"
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path


def test_card_gives_a_dataset_with_its_roles_kinds_and_order(folder):
    data = load(_card(folder))
    assert isinstance(data, Dataset) and data.name == "clinic"
    assert data.quasi_identifiers == ("age", "zip", "sex", "severity")
    assert data.sensitive == "diagnosis" and data.target == "readmitted"
    assert data.target_names == ("no", "yes")
    assert len(data.frame) == 57  # three rows with a "?" dropped
    assert data.y.sum() == sum(1 for i in range(60) if i % 3 == 0 and i not in (3, 5, 7))
    assert data.kinds == {
        "age": "numeric",
        "zip": "nominal",
        "sex": "nominal",
        "severity": "ordinal",
        "diagnosis": "nominal",
    }
    assert data.orders == {"severity": ("low", "medium", "high")}
    assert pd.api.types.is_numeric_dtype(data.frame["age"])


def test_inferred_kinds_are_reported(folder):
    report = check_card(_card(folder))
    table = report.columns.set_index("column")
    assert table.loc["age", "kind"] == "numeric" and table.loc["age", "kind from"].startswith("inferred")
    assert table.loc["sex", "kind"] == "nominal" and table.loc["sex", "kind from"].startswith("inferred")
    assert table.loc["zip", "kind from"] == "given"
    text = report.to_string()
    assert "3 rows with a missing value dropped" in text
    assert "domain of 4 values" in text and "anatomy allows l up to 4" in text


def test_missing_as_a_category(folder):
    data = load(
        _card(
            folder,
            missing={"markers": ["?"], "action": "category", "category": "unknown"},
            columns={**CARD["columns"], "age": "nominal"},
        )
    )
    assert len(data.frame) == 60
    assert (data.frame["sex"] == "unknown").sum() == 2 and (data.frame["age"] == "unknown").sum() == 1


def test_missing_category_cannot_apply_to_a_numeric_column(folder):
    with pytest.raises(CardError, match=r"clinic.yaml: column 'age' is numeric .*use action: drop"):
        load(_card(folder, missing={"markers": ["?"], "action": "category"}))


def test_default_quasi_identifiers_are_the_other_columns_and_parquet_works(folder):
    frame = pd.read_csv(folder / "clinic.csv", keep_default_na=False)
    frame.to_parquet(folder / "clinic.parquet")
    roles = {"sensitive": "diagnosis", "target": "readmitted", "positive": "yes"}
    data = load(_card(folder, file="clinic.parquet", roles=roles))
    assert data.quasi_identifiers == ("age", "zip", "sex", "severity", "note")
    assert len(data.frame) == 57


def test_hierarchies_arx_and_intervals(folder):
    (folder / "zip.csv").write_text("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n")
    card = _card(folder, hierarchies={"zip": {"arx": "zip.csv"}, "age": {"intervals": {"width": 10}}})
    hierarchies = hierarchies_from_card(card)
    assert isinstance(hierarchies["zip"], Hierarchy) and hierarchies["zip"].n_levels == 3
    data = load(card)
    assert set(hierarchies["zip"].generalize(data.frame["zip"], 1)) == {"4790*"}
    assert hierarchies["age"].low == data.frame["age"].min() and hierarchies["age"].high == data.frame["age"].max()


BAD = [
    (dict(file="absent.csv"), r"clinic.yaml: file 'absent.csv' not found .*fix 'file:'"),
    (
        dict(roles={**CARD["roles"], "quasi_identifiers": ["age", "zipcode"]}),
        r"clinic.yaml: column 'zipcode' \(roles.quasi_identifiers\) is not in clinic.csv.*fix the name",
    ),
    (
        dict(roles={**CARD["roles"], "positive": "maybe"}),
        r"clinic.yaml: column 'readmitted': positive label 'maybe' not found.*set roles.positive",
    ),
    (
        dict(roles={**CARD["roles"], "sensitive": "note", "quasi_identifiers": ["age"]}),
        r"clinic.yaml: column 'note' \(roles.sensitive\) has 1 distinct value.*at least 2",
    ),
    (dict(columns={"zip": "categorical"}), r"clinic.yaml: column 'zip': kind 'categorical' is not one of"),
    (
        dict(columns={"severity": {"kind": "ordinal", "order": ["low", "high"]}}),
        r"clinic.yaml: column 'severity' has values \['medium'\] outside its order.*add them to columns.severity.order",
    ),
    (dict(hierarchies={"zip": {"arx": "nowhere.csv"}}), r"clinic.yaml: column 'zip': hierarchy file 'nowhere.csv'"),
    (dict(hierarchies={"sex": {"intervals": {"width": 1}}}), r"column 'sex': interval hierarchies need a numeric"),
]


@pytest.mark.parametrize("changes, message", BAD)
def test_bad_cards_name_card_column_and_fix(folder, changes, message):
    card = _card(folder, **changes)
    with pytest.raises(CardError, match=message):
        load(card)
    before = sorted(p.name for p in folder.iterdir())
    assert main(["data", "check", str(card)]) == 2
    assert sorted(p.name for p in folder.iterdir()) == before


def test_every_problem_is_reported_at_once(folder):
    card = _card(folder, roles={**CARD["roles"], "positive": "maybe", "quasi_identifiers": ["age", "zipcode"]})
    with pytest.raises(CardError) as info:
        load(card)
    assert len(info.value.problems) == 1  # an unknown column stops before the data is looked at
    card = _card(folder, roles={**CARD["roles"], "positive": "maybe"}, columns={"zip": "categorical"})
    with pytest.raises(CardError) as info:
        load(card)
    assert len(info.value.problems) == 2


def test_check_prints_a_table_writes_nothing_and_exits_0(folder, capsys):
    card = _card(folder)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert main(["data", "check", str(card)]) == 0
    out = capsys.readouterr().out
    assert "quasi-identifier" in out and "sensitive" in out and "57 rows" in out and "inferred" in out
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_check_errors_are_one_line_each_on_stderr(folder, capsys):
    card = _card(folder, roles={**CARD["roles"], "positive": "maybe"}, columns={"zip": "categorical"})
    assert main(["data", "check", str(card)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith(f"privnb data check: {card}: column ") for line in err)


def test_load_tells_a_card_from_a_name(folder):
    with pytest.raises(ValueError, match=r"data card .*missing.yaml not found"):
        load(str(folder / "missing.yaml"))
    with pytest.raises(ValueError, match=r"unknown data set 'nope'.*adult"):
        load("nope")
    with pytest.raises(CardError, match="apply to built-in loaders only"):
        load(_card(folder), version="train")


def _items_card(folder, items):
    path = folder / "items.yaml"
    path.write_text(yaml.safe_dump({"name": "baskets", "items": items}))
    return path


def test_binary_items_as_a_matrix_and_as_transactions(folder):
    pd.DataFrame(
        {
            "bread": [1, 0, 1, 1],
            "milk": [0, 1, 1, 0],
            "eggs": [1, 1, 0, 0],
            "label": ["spam", "ham", "spam", "ham"],
            "part": [1, 1, 2, 2],
        }
    ).to_csv(folder / "m.csv", index=False)
    matrix = load(
        _items_card(
            folder, {"file": "m.csv", "format": "matrix", "label": "label", "positive": "spam", "folds": "part"}
        )
    )
    assert isinstance(matrix, TokenCorpus)
    assert matrix.X.toarray().tolist() == [[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 0, 0]]
    assert matrix.y.tolist() == [1, 0, 1, 0] and matrix.folds.tolist() == [1, 1, 2, 2]
    assert list(matrix.tokens) == ["bread", "milk", "eggs"] and matrix.version == "baskets"
    (folder / "t.txt").write_text("spam bread eggs\nham milk eggs\n\nspam bread milk\nham bread\n")
    lines = load(_items_card(folder, {"file": "t.txt", "format": "transactions", "positive": "spam"}))
    assert list(lines.tokens) == ["bread", "eggs", "milk"]
    assert lines.X.toarray().tolist() == [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]]
    assert lines.y.tolist() == [1, 0, 1, 0] and sorted(lines.folds.tolist()) == [1, 1, 2, 2]


def test_bad_item_matrices(folder):
    pd.DataFrame({"bread": [1, 2], "label": ["a", "b"]}).to_csv(folder / "m.csv", index=False)
    with pytest.raises(CardError, match=r"items.yaml: column 'bread' holds \['2'\] besides 0/1"):
        load(_items_card(folder, {"file": "m.csv", "label": "label", "positive": "a"}))
    with pytest.raises(CardError, match=r"column 'class' \(items.label\) is not in m.csv"):
        load(_items_card(folder, {"file": "m.csv", "label": "class", "positive": "a"}))
    (folder / "t.txt").write_text("a x\nb y\n")
    with pytest.raises(CardError, match=r"positive label 'spam' not found"):
        load(_items_card(folder, {"file": "t.txt", "format": "transactions", "positive": "spam"}))


def test_builtin_cards_ship_with_the_package():
    cards = builtin_cards()
    assert set(cards) == {"adult", "bank", "fars", "ipums", "pu1"}
    for path in cards.values():
        card = yaml.safe_load(path.read_text())
        assert card["loader"] and card["loader_does"] and card["files"]
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"privnb.data" = ["cards/*.yaml"]' in pyproject


def test_readme_card_is_a_complete_card_that_loads(folder):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Your own data", 1)[1]
    text = section.split("```yaml", 1)[1].split("```", 1)[0]
    card = yaml.safe_load(textwrap.dedent(text))
    assert {"file", "roles", "columns", "missing", "hierarchies"} <= set(card)
    (folder / "hierarchies").mkdir()
    (folder / "hierarchies" / "zip.csv").write_text("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n")
    (folder / "readme.yaml").write_text(text)
    data = load(folder / "readme.yaml")
    assert data.name == "clinic" and len(data.frame) == 57 and data.orders["severity"][-1] == "high"
    assert set(hierarchies_from_card(folder / "readme.yaml")) == {"zip", "age"}


needs_data = pytest.mark.skipif(
    "PRIVNB_DATA" not in os.environ, reason="needs the shared data: set PRIVNB_DATA to the shared data folder"
)


@needs_data
@pytest.mark.parametrize(
    "name, options", [("adult", {}), ("adult", {"version": "train", "drop_missing": False}), ("bank", {}), ("fars", {})]
)
def test_builtin_cards_equal_the_loaders(name, options):
    from privnb.data import LOADERS

    by_card, by_loader = load(builtin_cards()[name], **options), LOADERS[name](**options)
    assert load(name, **options).frame.equals(by_loader.frame)
    assert by_card.frame.equals(by_loader.frame)
    for attribute in ("name", "quasi_identifiers", "sensitive", "target", "kinds", "orders", "target_names"):
        assert getattr(by_card, attribute) == getattr(by_loader, attribute)


@needs_data
def test_builtin_pu1_card():
    corpus = load(builtin_cards()["pu1"])
    assert isinstance(corpus, TokenCorpus) and corpus.X.shape[0] == 1099


@needs_data
def test_check_of_a_builtin_card_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["data", "check", "bank"]) == 0
    assert "anatomy allows l up to 10" in capsys.readouterr().out
    assert not (tmp_path / "cache").exists()
