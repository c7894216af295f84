"""Inputs that cannot hang, crash or mislead: a card's YAML aliases refused (an alias bomb), a bound on what a
card may read (a compressed bomb, one huge line) with a one-line error and status 2, text cells in Unicode NFKC
without format characters (U+200B), terminal escape codes in names shown as escapes, old pickled hierarchies."""

import gzip
import pickle
import unicodedata

import numpy as np
import pandas as pd
import pytest
from small_hierarchies import small_hierarchies

from privnb.__main__ import main
from privnb.data import CardError, Hierarchy, load
from privnb.mechanisms import anatomize, is_l_diverse

CARD = """file: {file}
roles: {{quasi_identifiers: [age], sensitive: diagnosis, target: y, positive: a}}
"""


def check(card, capsys) -> tuple[int, str, str]:
    status = main(["data", "check", str(card)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def alias_bomb(depth: int) -> str:
    """The billion laughs in YAML: each level a list of nine aliases of the one above (9**depth strings)."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, depth + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + f"\nroles: *a{depth}\nfile: d.csv\n"


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path, capsys):
    card = tmp_path / "bomb.yaml"
    card.write_text(alias_bomb(9))  # 9**9 strings once expanded: minutes of work and gigabytes today
    status, _, err = check(card, capsys)
    assert status == 2 and "alias (*a0) is not allowed in a data card" in err
    assert len(err.strip().splitlines()) == 1


def test_a_card_with_an_alias_anywhere_is_refused(tmp_path):
    (tmp_path / "d.csv").write_text("age,diagnosis,y\n30,flu,a\n")
    card = tmp_path / "own.yaml"
    card.write_text("file: &f d.csv\nname: *f\nroles: {quasi_identifiers: [age], sensitive: diagnosis}\n")
    with pytest.raises(CardError, match=r"alias \(\*f\) is not allowed"):
        load(card)


def write_table(tmp_path, text: bytes, name: str) -> None:
    opener = gzip.open if name.endswith(".gz") else open
    with opener(tmp_path / name, "wb") as f:
        f.write(text)
    (tmp_path / "own.yaml").write_text(CARD.format(file=name))


def test_a_compressed_bomb_is_refused_in_one_line_with_status_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PRIVNB_MAX_READ_MB", "1")
    rows = b"age,diagnosis,y\n" + b"30,flu,a\n31,hiv,b\n" * 100_000  # 1.8 MB once decompressed, 10 KB compressed
    write_table(tmp_path, rows, "d.csv.gz")
    assert (tmp_path / "d.csv.gz").stat().st_size < 100_000
    status, _, err = check(tmp_path / "own.yaml", capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "file d.csv.gz is not read: it holds more than 1 MiB (PRIVNB_MAX_READ_MB" in err
    monkeypatch.setenv("PRIVNB_MAX_READ_MB", "4")  # raised: it reads
    assert len(load(tmp_path / "own.yaml").frame) == 200_000


def test_a_file_of_one_huge_line_is_refused_in_one_line_with_status_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PRIVNB_MAX_LINE_MB", "0.5")
    write_table(tmp_path, b"age,diagnosis,y\n30," + b"x" * 3_000_000 + b",a\n31,flu,a\n", "d.csv")
    status, _, err = check(tmp_path / "own.yaml", capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "a line of it is longer than 0.5 MiB (PRIVNB_MAX_LINE_MB" in err


@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_a_bad_limit_is_named(tmp_path, monkeypatch, value):
    monkeypatch.setenv("PRIVNB_MAX_READ_MB", value)
    write_table(tmp_path, b"age,diagnosis,y\n30,flu,a\n", "d.csv")
    with pytest.raises(ValueError, match=r"PRIVNB_MAX_READ_MB=.* must be a positive number of MiB"):
        load(tmp_path / "own.yaml")


def test_lines_are_measured_across_read_chunks(tmp_path, monkeypatch):
    """Short lines in a file far larger than a chunk read; one long line between chunks does not."""
    from privnb.data._card.read_limits import size_problem

    monkeypatch.setenv("PRIVNB_MAX_LINE_MB", "1")
    path = tmp_path / "long.csv"
    path.write_bytes(b"a,b\n" + b"1,2\n" * 3_000_000)
    assert size_problem(path) is None
    path.write_bytes(b"1,2\n" * 1_000_000 + b"9" * 1_200_000 + b"\n" + b"1,2\n" * 10)
    assert "longer than 1 MiB" in size_problem(path)


def test_a_zero_width_space_does_not_make_a_second_value(tmp_path):
    """12 of 100 cells read 'hi\\u200bv' (and a full-width 'ｆｌｕ'): on load they are 'hiv' and 'flu', so an
    l = 2 anatomy never holds HIV twice in a group."""
    rng = np.random.default_rng(5)
    diagnosis = rng.choice(["hiv", "flu", "asthma"], 100).astype(object)
    diagnosis[:12] = "hi\u200bv"
    diagnosis[12:15] = "\uff46\uff4c\uff55"
    pd.DataFrame({"age": rng.integers(20, 80, 100), "diagnosis": diagnosis, "y": rng.choice(["a", "b"], 100)}).to_csv(
        tmp_path / "d.csv", index=False
    )
    (tmp_path / "own.yaml").write_text(CARD.format(file="d.csv"))
    data = load(tmp_path / "own.yaml")
    assert sorted(data.frame["diagnosis"].unique()) == ["asthma", "flu", "hiv"]
    anatomy = anatomize(data.frame, "diagnosis", 2, random_state=0)
    assert is_l_diverse(anatomy)
    assert not anatomy.st.duplicated(["gid", "diagnosis"]).any()  # no group holds HIV twice


def test_column_names_are_normalised_too(tmp_path):
    pd.DataFrame({"a\u200bge": [30, 40], "diagnosis": ["flu", "hiv"], "y": ["a", "b"]}).to_csv(
        tmp_path / "d.csv", index=False
    )
    (tmp_path / "own.yaml").write_text(CARD.format(file="d.csv"))
    assert list(load(tmp_path / "own.yaml").frame.columns)[:1] == ["age"]


def test_terminal_escape_codes_in_names_are_shown_as_escapes(tmp_path, capsys):
    """A quasi-identifier named with escape codes (YAML's ``\\e``): the check's tables show it as ``\\x1b``."""
    evil = "\x1b[2J\x1b]0;owned\x07age"
    pd.DataFrame({evil: [30, 40], "diagnosis": ["flu", "hiv"], "y": ["a", "b"]}).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "own.yaml").write_text(CARD.format(file="d.csv").replace("[age]", '["\\e[2J\\e]0;owned\\aage"]'))
    status, out, err = check(tmp_path / "own.yaml", capsys)
    shown = out + err
    assert status == 0 and "quasi-identifier" in out
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b[2J\\x1b]0;owned\\x07age" in out
    assert not [c for c in shown if unicodedata.category(c) == "Cc" and c not in "\n\t"]


def test_a_hierarchy_pickled_before_fingerprints_existed_loads():
    h = small_hierarchies(["let"])["let"]
    state = dict(h.__dict__)
    del state["_fingerprint"]
    old = Hierarchy.__new__(Hierarchy)
    old.__dict__.update(state)  # what unpickling an old file builds
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.fingerprint() == h.fingerprint()
