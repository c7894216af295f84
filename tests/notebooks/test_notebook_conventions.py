"""Every committed notebook follows the conventions of privnb.workbench.notebooks; the checker itself is tested too."""

import re
from pathlib import Path

import nbformat
import pytest

from privnb.workbench import clear_unkept_outputs, convention_problems, parameter_defaults
from privnb.workbench.notebooks import refresh_kept_outputs

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def _notebook(parameters="output_dir = 'out'\nseed = 0\n", kept_source="# NBVAL_CHECK_OUTPUT\n1 + 1"):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(kept_source, metadata={"tags": ["keep_output"]}),
        nbformat.v4.new_code_cell("print('hello')"),
    ]
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_notebook_follows_conventions(path):
    assert convention_problems(nbformat.read(path, as_version=4)) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_prose_quotes_no_adult_result_that_a_card_would_contradict(path):
    """Issue 31: 01's Theorem 4.1 notes and 05's conclusions quoted Adult's numbers in prose; on a card they come from
    cells (the sizes 01 evaluates the bound at, the widest interval of 05's run)."""
    prose = " ".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    prose = " ".join(prose.split())
    for quoted in ("0.21 at N = 45222", "1.16 at N = 1000", "thousands or millions", "One fold of a few thousand rows"):
        assert quoted not in prose


def test_parameter_defaults_reads_literals():
    assert parameter_defaults(_notebook()) == {"output_dir": "out", "seed": 0}


@pytest.mark.parametrize(
    "source, message",
    [
        ("output_dir = make_dir()\n", "not a literal"),
        ("import os\noutput_dir = 'x'\n", "only `name = literal`"),
    ],
)
def test_parameters_cell_must_hold_literals(source, message):
    with pytest.raises(ValueError, match=message):
        parameter_defaults(_notebook(parameters=source))


def test_problems_are_reported():
    nb = _notebook(parameters="seed = 1\n", kept_source="1 + 1")
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    problems = convention_problems(nb)
    assert any("no output_dir" in p for p in problems)
    assert any("does not start with # NBVAL_CHECK_OUTPUT" in p for p in problems)
    assert any("cell 3 has outputs" in p for p in problems)
    unreadable = _notebook(parameters="output_dir = 'out'\nsize = 0  # 0 = every row\n")
    assert any("papermill cannot read the parameters ['size']" in p for p in convention_problems(unreadable))


def test_clear_unkept_outputs_keeps_only_tagged_cells():
    nb = _notebook()
    for cell in nb.cells[1:]:
        cell.outputs = [nbformat.v4.new_output("stream", text="x\n")]
        cell.execution_count = 1
    clear_unkept_outputs(nb)
    assert [bool(c.outputs) for c in nb.cells[1:]] == [False, True, False]
    assert convention_problems(nb) == []


def test_refresh_runs_the_notebook_in_a_sweep_kernel_and_keeps_only_the_checked_output(tmp_path):
    path = tmp_path / "toy.ipynb"
    nbformat.write(_notebook(), path)
    assert refresh_kept_outputs(path) == []
    nb = nbformat.read(path, as_version=4)
    assert [c.outputs for c in nb.cells[1:]][::2] == [[], []]  # the parameters cell and print('hello'): cleared
    assert nb.cells[2].outputs[0]["data"]["text/plain"] == "2"  # the kept cell's own result


def test_write_artifacts_writes_plain_json_and_tidy_parquet(tmp_path):
    import json

    import numpy as np
    import pandas as pd

    from privnb.experiments import COLUMNS
    from privnb.workbench import write_artifacts

    rows = [("toy", "c", "original", np.nan, 0, "error", 0.25, 10, 0, "")]
    metrics = {
        "error": np.float64(0.25),
        "n": np.int64(3),
        "ok": np.bool_(True),
        "gamma": float("inf"),
        "node": {"age": np.int64(1)},
        "missing": float("nan"),
    }
    paths = write_artifacts(
        tmp_path / "out",
        results=rows,
        metrics=metrics,
        tables={"claims": pd.DataFrame({"claim": ["a"], "verdict": ["agree"]})},
    )
    assert [p.name for p in paths] == ["results.parquet", "metrics.json", "claims.csv"]
    assert list(pd.read_parquet(tmp_path / "out" / "results.parquet").columns) == list(COLUMNS)
    assert json.loads((tmp_path / "out" / "metrics.json").read_text()) == {
        "error": 0.25,
        "n": 3,
        "ok": True,
        "gamma": "inf",
        "node": {"age": 1},
        "missing": "nan",
    }
    assert pd.read_csv(tmp_path / "out" / "claims.csv")["verdict"].tolist() == ["agree"]
    assert not list((tmp_path / "out").glob(".*"))  # no temporary files left


def test_matching_keys_names_headlines_pattern_by_pattern_and_skips_what_is_absent():
    from privnb.workbench import matching_keys

    metrics = {"dataset": "x", "error_mondrian": 0.3, "error_original": 0.2, "claims": 4, "error_anatomized": 0.25}
    assert matching_keys(metrics, "error_original", "error_*", "missing_*", "claims") == [
        "error_original",
        "error_mondrian",
        "error_anatomized",
        "claims",
    ]
    assert matching_keys({}, "error_*") == []


STATED = {
    "01_svm_l_diversity.ipynb": {"2016", "0.01"},
    "02_knn_l_diversity.ipynb": {"2017", "0.95", "0.01"},
    "03_feature_selection_k_ac.ipynb": {"32561", "24604", "24720", "7841", "0.01"},
    "04_nbc_publishing.ipynb": {"2.92", "2.920"},
    "05_privacy_utility.ipynb": {"2009", "2018", "2022"},
}
"""The numbers a notebook's prose may state as written: a citation's year, a number the paper reports (named as
the paper's), a fixed setting (a confidence, a margin), a data set's published size. Any other measured-looking
number (two decimals or more, four digits or more) must come from a cell."""
_MEASURED = re.compile(r"(?<![\w.$])\d*\.\d{2,}(?!\w|\.\d)|(?<![\w.])\d{4,}(?!\w|\.\d)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_prose_states_no_number_a_cell_does_not_compute(path):
    """A result typed into the prose goes stale the day the code changes (notebook 05 once said "0.71 against
    0.64" long after its cells gave other numbers): results are printed by cells, the prose points at them."""
    nb = nbformat.read(path, as_version=4)
    stated = {
        match.group() for cell in nb.cells if cell.cell_type == "markdown" for match in _MEASURED.finditer(cell.source)
    }
    assert stated <= STATED.get(path.name, set()), (
        f"{path.name} states {sorted(stated - STATED.get(path.name, set()))} in its prose: print it from a cell, "
        "or, for the paper's own number or a citation, name it as such and add it to STATED"
    )


def test_the_prose_check_finds_a_typed_result():
    nb = _notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("The de Finetti attack wins: 0.71 against 0.64."))
    found = {m.group() for c in nb.cells if c.cell_type == "markdown" for m in _MEASURED.finditer(c.source)}
    assert found == {"0.71", "0.64"}
