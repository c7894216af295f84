"""Every committed notebook follows the conventions of privnb.workbench.notebooks; the checker itself is tested too."""

from pathlib import Path

import nbformat
import pytest

from privnb.workbench import clear_unkept_outputs, convention_problems, parameter_defaults

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
