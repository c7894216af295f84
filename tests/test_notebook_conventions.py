"""Every committed notebook follows the conventions of privnb.notebooks; the checker itself is tested too."""
from pathlib import Path

import nbformat
import pytest

from privnb.notebooks import clear_unkept_outputs, convention_problems, parameter_defaults

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


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


def test_parameter_defaults_reads_literals():
    assert parameter_defaults(_notebook()) == {"output_dir": "out", "seed": 0}


@pytest.mark.parametrize("source, message", [
    ("output_dir = make_dir()\n", "not a literal"),
    ("import os\noutput_dir = 'x'\n", "only `name = literal`"),
])
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


def test_clear_unkept_outputs_keeps_only_tagged_cells():
    nb = _notebook()
    for cell in nb.cells[1:]:
        cell.outputs = [nbformat.v4.new_output("stream", text="x\n")]
        cell.execution_count = 1
    clear_unkept_outputs(nb)
    assert [bool(c.outputs) for c in nb.cells[1:]] == [False, True, False]
    assert convention_problems(nb) == []
