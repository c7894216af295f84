"""Cards checked whole (white space, markers in every format, pandas' read options, duplicated headers, YAML's
booleans, numeric codes, errors that name card, column and fix) and what `privnb data check` shows of a card:
its hierarchies, its unused columns and every notebook's table of needs."""

import re
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from privnb.__main__ import main
from privnb.data import CardError, TokenCorpus, load
from privnb.mechanisms import anatomize, is_l_diverse

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _write_card(folder, card: dict, name: str = "own.yaml"):
    path = folder / name
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path


def _problems(card) -> list[str]:
    with pytest.raises(CardError) as info:
        load(card)
    return info.value.problems


def _check(card, capsys) -> tuple[int, str, str]:
    status = main(["data", "check", str(card)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- 1. white space ---------------------------------------------------------------------------------------------


def _diagnoses(tmp_path, n=100, read=None):
    rng = np.random.default_rng(3)
    diagnosis = rng.choice(["hiv", "hiv ", "flu", " asthma"], n)
    pd.DataFrame({"age": rng.integers(20, 80, n), "diagnosis": diagnosis, "y": rng.choice(["a", "b"], n)}).to_csv(
        tmp_path / "d.csv", index=False
    )
    card = {"file": "d.csv", "roles": {"quasi_identifiers": ["age"], "sensitive": "diagnosis", "target": "y"}}
    card["roles"]["positive"] = "a"
    if read is not None:
        card["read"] = read
    return _write_card(tmp_path, card)


def test_white_space_variants_are_one_sensitive_value_so_anatomy_stays_l_diverse(tmp_path):
    data = load(_diagnoses(tmp_path))
    assert sorted(data.frame["diagnosis"].unique()) == ["asthma", "flu", "hiv"]
    anatomy = anatomize(data.frame, "diagnosis", 2, random_state=0)
    assert is_l_diverse(anatomy)
    assert not anatomy.st.duplicated(["gid", "diagnosis"]).any()  # no group holds HIV twice


def test_strip_false_keeps_white_space_and_the_check_warns(tmp_path, capsys):
    card = _diagnoses(tmp_path, read={"strip": False})
    assert sorted(load(card).frame["diagnosis"].unique()) == [" asthma", "flu", "hiv", "hiv "]
    status, out, _ = _check(card, capsys)
    assert status == 0
    line = next(line for line in out.splitlines() if "'diagnosis'" in line and "white space" in line)
    assert str(card) in line and "'hiv'" in line and "'hiv '" in line and "sensitive" in line


def test_case_variants_of_a_quasi_identifier_are_warned(tmp_path, capsys):
    pd.DataFrame({"town": ["Paris", "paris", "Lyon", "Lyon"], "s": list("abab"), "y": list("ynyn")}).to_csv(
        tmp_path / "t.csv", index=False
    )
    card = _write_card(tmp_path, {"file": "t.csv", "roles": {"sensitive": "s", "target": "y", "positive": "y"}})
    status, out, _ = _check(card, capsys)
    assert status == 0
    town = r"warning: .*own.yaml: column 'town' \(quasi-identifier\): values \['Paris', 'paris'\] differ only by case"
    assert re.search(town, out)


# -- 2. markers in every format ---------------------------------------------------------------------------------


@pytest.mark.parametrize("marker", [-1, "-1"])
def test_numeric_markers_apply_to_parquet_as_to_csv(tmp_path, marker):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.integers(0, 100, 200), "job": rng.choice(["a", "b", "?"], 200)})
    frame["y"] = np.arange(200) % 2
    frame.loc[::20, "income"] = -1
    frame.to_csv(tmp_path / "j.csv", index=False)
    frame.to_parquet(tmp_path / "j.parquet")
    roles = {"target": "y", "positive": 1}
    missing = {"markers": [marker, "?"], "action": "drop"}
    by_csv = load(_write_card(tmp_path, {"file": "j.csv", "roles": roles, "missing": missing}, "c.yaml"))
    by_parquet = load(_write_card(tmp_path, {"file": "j.parquet", "roles": roles, "missing": missing}, "p.yaml"))
    expected = int(((frame["income"] != -1) & (frame["job"] != "?")).sum())
    assert len(by_csv.frame) == len(by_parquet.frame) == expected
    assert by_parquet.frame.equals(by_csv.frame)


# -- 3. pandas' read options --------------------------------------------------------------------------------------


def test_header_row_is_honoured_and_unsupported_values_refused(tmp_path):
    (tmp_path / "h.csv").write_text("exported 2024\nby the clinic\nage,sex,y\n30,F,1\n40,M,0\n50,F,1\n")
    card = {"file": "h.csv", "read": {"header": 2}, "roles": {"target": "y", "positive": 1}}
    data = load(_write_card(tmp_path, card))
    assert data.quasi_identifiers == ("age", "sex") and data.frame["age"].tolist() == [30, 40, 50]
    card["read"] = {"header": [0, 1]}
    (problem,) = _problems(_write_card(tmp_path, card))
    assert problem.startswith(f"{tmp_path / 'own.yaml'}: read.header: [0, 1] is not supported; give the row number")


def test_parquet_refuses_text_file_options(tmp_path):
    pd.DataFrame({"a": [1, 2], "y": [0, 1]}).to_parquet(tmp_path / "p.parquet")
    card = _write_card(tmp_path, {"file": "p.parquet", "read": {"sep": ";"}, "roles": {"target": "y", "positive": 1}})
    (problem,) = _problems(card)
    assert "read: options ['sep'] apply to text files" in problem and "drop them" in problem


# -- 4. duplicated header names -----------------------------------------------------------------------------------


def test_duplicated_column_names_are_a_problem(tmp_path, capsys):
    (tmp_path / "dup.csv").write_text("age,age,diagnosis,y\n30,1,flu,1\n40,2,hiv,0\n")
    card = _write_card(tmp_path, {"file": "dup.csv", "roles": {"sensitive": "age.1", "target": "y", "positive": 1}})
    (problem,) = _problems(card)
    assert problem.startswith(f"{card}: file dup.csv: its header names the columns ['age'] more than once")
    assert "give each column its own name" in problem
    assert _check(card, capsys)[0] == 2


# -- 5. YAML 1.1 booleans -----------------------------------------------------------------------------------------


def test_yaml_booleans_where_text_is_meant_say_to_quote_them(tmp_path, capsys):
    (tmp_path / "b.csv").write_text("smoker,answer,y\nno,NO,yes\nyes,x,no\nno,x,yes\n")
    (tmp_path / "b.yaml").write_text(
        "file: b.csv\nroles: {target: y, positive: yes}\n"
        "columns: {smoker: {kind: ordinal, order: [no, yes]}}\nmissing: {markers: [NO]}\n"
    )
    problems = _problems(tmp_path / "b.yaml")
    assert len(problems) == 4
    for where, word in [
        ("roles.positive", "yes"),
        ("columns.smoker.order[0]", "no"),
        ("columns.smoker.order[1]", "yes"),
        ("missing.markers[0]", "NO"),
    ]:
        assert any(p.startswith(f"{tmp_path / 'b.yaml'}: {where}: YAML reads the unquoted {word}") for p in problems)
    assert all(re.search(r'write it in quotes \("\w+"\)', p) for p in problems)
    (tmp_path / "b.yaml").write_text(
        "file: b.csv\nread: {skipinitialspace: true}\nroles: {target: y, positive: 'yes'}\n"
        "columns: {smoker: {kind: ordinal, order: ['no', 'yes']}}\nmissing: {markers: ['NO']}\n"
    )
    data = load(tmp_path / "b.yaml")
    assert data.target_names == ("no", "yes") and len(data.frame) == 2
    assert _check(tmp_path / "b.yaml", capsys)[0] == 0


# -- 6. errors that used to be raw pandas errors ------------------------------------------------------------------


def test_bad_encoding_is_a_card_error(tmp_path, capsys):
    pd.DataFrame({"a": [1, 2], "y": [0, 1]}).to_csv(tmp_path / "e.csv", index=False)
    card = _write_card(tmp_path, {"file": "e.csv", "read": {"encoding": "utf-99"}, "roles": {"target": "y"}})
    (problem,) = _problems(card)
    assert problem == (
        f"{card}: read.encoding: 'utf-99' is not an encoding Python knows; use one such as utf-8, latin-1 or cp1252"
    )
    status, _, err = _check(card, capsys)
    assert status == 2 and err.strip() == f"privnb data check: {problem}"
    (tmp_path / "e.csv").write_bytes("a,y\ncaf\xe9,0\nb,1\n".encode("latin-1"))
    card = _write_card(tmp_path, {"file": "e.csv", "roles": {"target": "y", "positive": 1}})
    (problem,) = _problems(card)
    assert "file e.csv cannot be read (UnicodeDecodeError" in problem and "read: {encoding: ...}" in problem


def test_text_interval_bound_is_a_card_error(tmp_path, capsys):
    pd.DataFrame({"age": [20, 30, 40, 50], "y": [0, 1, 0, 1]}).to_csv(tmp_path / "i.csv", index=False)
    card = {"file": "i.csv", "roles": {"target": "y", "positive": 1}}
    card["hierarchies"] = {"age": {"intervals": {"low": "0 years", "width": 10}}}
    (problem,) = _problems(_write_card(tmp_path, card))
    assert problem.startswith(f"{tmp_path / 'own.yaml'}: column 'age': intervals' low, high, width and cuts must be")
    assert _check(tmp_path / "own.yaml", capsys)[0] == 2


@pytest.mark.parametrize(
    "items, files, message",
    [
        ({"file": "m.csv", "positive": "a"}, {"m.csv": "bread,label\n1,a\n0,b\n"}, r"items.label is missing; name"),
        (
            {"file": "m.csv", "label": "label", "positive": "a"},
            {"m.csv": "bread,label\n1,a\n0,b,3\n"},
            r"items.file m.csv cannot be read as matrix \(ParserError",
        ),
        (
            {"file": "t.txt", "format": "transactions", "positive": "a"},
            {"t.txt": b"\xff\xfe a b\n"},
            r"items.file t.txt cannot be read as transactions \(UnicodeDecodeError.*fix the file",
        ),
        (
            {"file": "m.csv", "label": "label", "positive": "a", "n_folds": "ten"},
            {"m.csv": "bread,label\n1,a\n0,b\n"},
            r"items.n_folds 'ten' must be a whole number",
        ),
    ],
)
def test_bad_item_cards_are_card_errors(tmp_path, capsys, items, files, message):
    for name, content in files.items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    card = _write_card(tmp_path, {"name": "baskets", "items": items})
    (problem,) = _problems(card)
    assert problem.startswith(f"{card}: ") and re.search(message, problem)
    assert _check(card, capsys)[0] == 2


# -- 8. numeric-looking codes ---------------------------------------------------------------------------------------


def test_numeric_codes_compare_as_numbers(tmp_path):
    (tmp_path / "n.csv").write_text("income,y\n2500,1\n7500,0\n,1\n12500,1.0\n999,0\n")
    card = {
        "file": "n.csv",
        "roles": {"target": "y", "positive": 1},
        "columns": {"income": {"kind": "ordinal", "order": [2500, 7500, 12500]}},
        "missing": {"markers": ["", 999], "action": "category", "category": "unknown"},
    }
    data = load(_write_card(tmp_path, card))
    assert data.orders["income"] == (2500, 7500, 12500, "unknown")
    assert data.frame["income"].tolist() == [2500, 7500, "unknown", 12500, "unknown"]
    assert data.y.tolist() == [1, 0, 1, 1, 0] and data.target_names == ("0", "1")


# -- 9. errors that name the card, the column and the fix -------------------------------------------------------


def test_r_style_na_with_an_intervals_hierarchy_gives_the_column_problems(tmp_path, capsys):
    (tmp_path / "r.csv").write_text("age,bmi,y\n30,22.5,1\nNA,NA,0\n50,NA,1\n")
    card = {
        "file": "r.csv",
        "roles": {"target": "y", "positive": 1},
        "columns": {"age": "numeric", "bmi": "numeric"},
        "hierarchies": {"age": {"intervals": {"width": 10}}},
    }
    problems = _problems(_write_card(tmp_path, card))
    assert len(problems) == 2
    for column in ("age", "bmi"):
        assert any(
            p.startswith(f"{tmp_path / 'own.yaml'}: column {column!r} is given kind numeric but holds non-numbers")
            and "add the marker to missing.markers" in p
            for p in problems
        )
    assert _check(tmp_path / "own.yaml", capsys)[0] == 2
    del card["columns"]
    (problem,) = _problems(_write_card(tmp_path, card))
    assert problem.startswith(f"{tmp_path / 'own.yaml'}: column 'age': interval hierarchies need a numeric column")
    assert "holds non-numbers such as ['NA']; list them in missing.markers" in problem


def test_hierarchy_key_typo_says_no_such_column_and_suggests_one(tmp_path):
    pd.DataFrame({"age": [20, 30], "zip": ["a", "b"], "y": [0, 1]}).to_csv(tmp_path / "k.csv", index=False)
    card = {"file": "k.csv", "roles": {"target": "y", "positive": 1, "quasi_identifiers": ["age"]}}
    card["hierarchies"] = {"agee": {"intervals": {"width": 10}}, "zip": {"intervals": {"width": 1}}}
    problems = _problems(_write_card(tmp_path, card))
    card = tmp_path / "own.yaml"
    assert problems == [
        (
            f"{card}: column 'agee' (hierarchies): no such column in the file; its columns are ['age', 'zip', 'y']; "
            "did you mean 'age'?; fix the key"
        ),
        f"{card}: column 'zip' (hierarchies) has no role in the card; give it one or drop its hierarchy",
    ]


# -- 7. what the check shows (issue 25's "done when") ------------------------------------------------------------


def _own_card(tmp_path) -> str:
    rng = np.random.default_rng(7)
    n = 120
    frame = pd.DataFrame(
        {
            "patient": [f"p{i}" for i in range(n)],
            "age": rng.integers(18, 90, n),
            "zip": rng.choice(["47906", "47907 ", "47901"], n),
            "diagnosis": rng.choice(["HIV", "hiv", "flu ", "flu", "asthma"], n),
            "comment": rng.choice(["", "ok"], n),
            "readmitted": rng.choice(["yes", "no"], n),
        }
    )
    frame.to_csv(tmp_path / "ward.csv", index=False)
    (tmp_path / "zip.csv").write_text("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n")
    card = {
        "name": "ward",
        "file": "ward.csv",
        "roles": {
            "quasi_identifiers": ["age", "zip"],
            "sensitive": "diagnosis",
            "target": "readmitted",
            "positive": "yes",
        },
        "columns": {"zip": "nominal"},
        "hierarchies": {"zip": {"arx": "zip.csv"}, "age": {"intervals": {"low": 0, "high": 100, "width": 10}}},
    }
    return _write_card(tmp_path, card, "ward.yaml")


def test_check_shows_hierarchies_unused_columns_and_each_notebooks_needs(tmp_path, capsys):
    card = _own_card(tmp_path)
    status, out, err = _check(card, capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert "unused columns (no role, not loaded): patient, comment" in lines
    hierarchies = lines[lines.index("hierarchies:") + 1 : lines.index("hierarchies:") + 4]
    assert re.match(r"\s*column\s+source\s+levels\s+groups per level\s+leaves", hierarchies[0])
    assert re.match(r"\s*zip\s+arx zip.csv\s+3\s+1 / 1\s+3 values", hierarchies[1])
    age = r"\s*age\s+intervals, width 10\s+6\s+10 / 5 / 3 / 2 / 1\s+10 intervals over \[0, 100\]"
    assert re.match(age, hierarchies[2])
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert "column 'diagnosis' (sensitive): values ['HIV', 'hiv'] differ only by case" in warning
    table = out.split("and whether this card has it:\n", 1)[1]
    for notebook in ("00_tour", "01_svm_l_diversity", "02_knn_l_diversity", "03_feature_selection_k_ac"):
        assert notebook in table
    assert re.search(r"05_privacy_utility\s+3. full-domain k-anonymity\s+sensitive, hierarchies, rows\s+True", table)
    assert re.search(r"01_svm_l_diversity\s+6. the paper's claims .*False\s+the paper's numbers exist only", table)
    assert re.search(r"04_nbc_publishing\s+5. Figure 9: an NBC trained on k-anonymized rows .*True", table)


def test_check_of_an_item_card_shows_its_needs(tmp_path, capsys):
    (tmp_path / "m.csv").write_text("bread,milk,label\n1,0,a\n0,1,b\n1,1,a\n0,0,b\n")
    card = _write_card(tmp_path, {"name": "baskets", "items": {"file": "m.csv", "label": "label", "positive": "a"}})
    assert isinstance(load(card), TokenCorpus)
    status, out, _ = _check(card, capsys)
    assert status == 0 and "hierarchies:\nnone" in out
    assert re.search(r"03_feature_selection_k_ac\s+2-4. k-AC selection on the item matrix as given\s+items\s+True", out)


@pytest.mark.parametrize("notebook", ["00_tour", "01_svm_l_diversity", "02_knn_l_diversity", "05_privacy_utility"])
def test_notebooks_take_their_needs_from_the_table_the_check_shows(notebook):
    source = "".join(cell.source for cell in nbformat.read(NOTEBOOKS / f"{notebook}.ipynb", as_version=4).cells)
    assert f'needs = section_needs("{notebook}"' in source and "needs = {" not in source


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(["hiv", "flu", "Asthma", "a b"]), st.sampled_from(["", " ", "  ", "\t"])),
        min_size=4,
        max_size=30,
    ),
    st.sampled_from(["", " ", "  "]),
)
def test_loaded_values_are_the_stripped_cells(tmp_path, cells, before):
    assume(len({value for value, _ in cells}) >= 2)  # a sensitive attribute needs two values
    values = [before + value + after for value, after in cells]
    frame = pd.DataFrame({"diagnosis": values, "y": [i % 2 for i in range(len(values))]})
    frame.to_csv(tmp_path / "s.csv", index=False)
    frame.to_parquet(tmp_path / "s.parquet")
    for file in ("s.csv", "s.parquet"):
        card = {"file": file, "roles": {"quasi_identifiers": [], "sensitive": "diagnosis", "target": "y"}}
        card["roles"]["positive"] = 1
        data = load(_write_card(tmp_path, card))
        assert data.frame["diagnosis"].tolist() == [value for value, _ in cells]


def test_an_interval_hierarchy_that_collapses_every_value_into_one_interval_is_warned(tmp_path, capsys):
    """Issue 31: a width as wide as the column's range makes its first level one interval: generalizing the
    column at all erases it. The check says so; a hierarchy with several intervals gets no warning."""
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(
        {"age": rng.integers(20, 80, n), "income": rng.integers(0, 9, n), "y": rng.choice(["a", "b"], n)}
    )
    frame.to_csv(tmp_path / "d.csv", index=False)
    roles = {"quasi_identifiers": ["age", "income"], "target": "y", "positive": "a"}
    hierarchies = {"age": {"intervals": {"width": 100}}, "income": {"intervals": {"width": 3}}}
    card = _write_card(tmp_path, {"file": "d.csv", "roles": roles, "hierarchies": hierarchies})
    status, out, _ = _check(card, capsys)
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert status == 0 and len(warnings) == 1
    assert "intervals hierarchy of 'age' puts all" in warnings[0] and "in one interval" in warnings[0]
    assert "give a smaller width" in warnings[0]
