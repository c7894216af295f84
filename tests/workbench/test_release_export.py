"""Issue 31: `privnb release` writes a release a data owner can publish (ARX's export, sdcMicro's writeSafeFile
and report()): the released table(s) without original row ids, the target in the card's labels, the suppressed
rows apart for the owner, and a risk summary; read back here."""

import json

import pandas as pd
import pytest
from own_data import write_survey

from privnb.__main__ import main
from privnb.data import load
from privnb.mechanisms import is_k_anonymous, is_l_diverse


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    return write_survey(tmp_path_factory.mktemp("survey"), n=400, seed=3)


def test_an_anatomy_release_read_back(card, tmp_path, capsys):
    out = tmp_path / "release"
    assert main(["release", str(card), "--mechanism", "anatomy", "--l", "3", "--out", str(out)]) == 0
    data = load(card)
    it, st = pd.read_csv(out / "it.csv"), pd.read_csv(out / "st.csv")
    owner = pd.read_csv(out / "owner" / "suppressed.csv")
    risk = json.loads((out / "risk.json").read_text())
    assert set(it.columns) == {"sex", "age", "income", "occupation", "admissions", "gid"}
    assert set(st.columns) == {"gid", "insurance"}
    assert set(it["admissions"]) <= set(data.target_names) and risk["target_labels"] == list(data.target_names)
    # IT's rows are not in the input's order: the input's row numbers cannot be read off the release
    assert (
        it[["sex", "age", "income"]].values.tolist()
        != data.frame.loc[: len(it) - 1, ["sex", "age", "income"]].values.tolist()
    )
    assert is_l_diverse(st, "insurance", 3)
    assert risk["rows_released"] == len(it) == len(st) and risk["rows_suppressed"] == len(owner)
    assert risk["rows_released"] + risk["rows_suppressed"] == len(data.frame)
    assert risk["l_reached"] == 3 and risk["k_reached"] == 3
    # the owner's file names each suppressed row by its input row number, with the row as it was
    assert data.frame.loc[owner["row"], "insurance"].tolist() == owner["insurance"].tolist()
    (attack,) = risk["attacks"]
    assert attack["attack"] == "definetti" and 0 <= attack["baseline"] <= attack["success"] + 1
    assert {"gcp", "discernibility"} <= set(risk["utility"])
    assert "k reached 3, l reached 3" in capsys.readouterr().out


def test_a_mondrian_release_in_parquet_is_k_anonymous_and_names_its_attacks(card, tmp_path):
    out = tmp_path / "m"
    assert (
        main(["release", str(card), "--mechanism", "mondrian", "--k", "6", "--out", str(out), "--format", "parquet"])
        == 0
    )
    release = pd.read_parquet(out / "release.parquet")
    risk = json.loads((out / "risk.json").read_text())
    assert is_k_anonymous(release, ["sex", "age", "income"], 6) and risk["k_reached"] >= 6
    assert {a["attack"] for a in risk["attacks"]} == {"prosecutor", "homogeneity"}
    assert risk["files"] == {"tables": ["release.parquet"], "owner": "owner/suppressed.parquet"}


def test_a_folder_holding_someone_elses_files_is_refused_and_left_alone(card, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as refused:
        main(["release", str(card), "--mechanism", "anatomy", "--l", "2", "--out", str(out)])
    assert refused.value.code == 2
    assert "holds files privnb did not write" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    # a release privnb wrote may be written again
    again = tmp_path / "again"
    for _ in range(2):
        assert main(["release", str(card), "--mechanism", "anatomy", "--l", "2", "--out", str(again)]) == 0


def test_a_missing_parameter_is_a_usage_error_naming_it(card, tmp_path, capsys):
    with pytest.raises(SystemExit) as refused:
        main(["release", str(card), "--mechanism", "mondrian", "--out", str(tmp_path / "x")])
    assert refused.value.code == 2
    assert "needs k (--k)" in capsys.readouterr().err


def test_full_domain_without_hierarchies_says_where_they_go_and_what_needs_none(card, tmp_path, capsys):
    """Issue 31: the message ended on "add them to the card", as if cut off."""
    with pytest.raises(SystemExit) as refused:
        main(["release", str(card), "--mechanism", "full-domain", "--k", "3", "--out", str(tmp_path / "x")])
    assert refused.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "needs a hierarchy for every quasi-identifier and" in err
    assert "under the card's `hierarchies:` key (an ARX table, or intervals for a numeric column)" in err
    assert "or use --mechanism mondrian, which needs none" in err and not (tmp_path / "x").exists()
