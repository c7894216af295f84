"""The privnb command: argument handling, exit status, report rebuilding, data listing."""

import sys
import types

import pandas as pd
import pytest
from test_sweep import fake_run_point, write_notebook, write_spec  # tests/ is on sys.path under pytest

from privnb import __main__ as cli
from privnb import sweeps as sweep
from privnb.sweeps import runner


def test_exit_status_is_1_when_points_failed_and_the_count_is_printed(monkeypatch, capsys):
    calls = {}

    def fake_run_sweeps(specs, **options):
        calls.update(options, specs=specs)
        records = {
            "a.quick": [
                {"point": "x=1", "status": "ok"},
                {"point": "x=2", "status": "failed", "error": "boom"},
                {"point": "x=3", "status": "failed", "error": "bang"},
            ]
        }
        return sweep.SweepSummary("results", records)

    monkeypatch.setattr(runner, "run_sweeps", fake_run_sweeps)
    status = cli.main(
        ["sweep", "a.quick.yaml", "b.quick.yaml", "--out", "res", "--workers", "3", "--force", "--no-progress"]
    )
    assert status == 1
    assert calls["specs"] == ["a.quick.yaml", "b.quick.yaml"]
    assert (calls["out"], calls["workers"], calls["force"], calls["progress"], calls["scheduler"]) == (
        "res",
        3,
        True,
        False,
        None,
    )
    out, err = capsys.readouterr()
    assert "3 points" in out and "2 failed" in out and "a.quick/x=2: boom" in err


def test_exit_status_is_1_for_any_number_of_failed_points(monkeypatch):
    records = {"s": [{"point": str(i), "status": "failed", "error": ""} for i in range(300)]}
    monkeypatch.setattr(runner, "run_sweeps", lambda specs, **o: sweep.SweepSummary("results", records))
    assert cli.main(["sweep", "s.yaml"]) == 1
    records = {"s": [{"point": "a", "status": "skipped", "error": "no data"}, {"point": "b", "status": "ok"}]}
    assert cli.main(["sweep", "s.yaml"]) == 0


def test_bad_spec_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["sweep", str(tmp_path / "missing.quick.yaml")])
    assert exit_info.value.code == 2
    assert "does not exist" in capsys.readouterr().err


def test_dry_run_lists_points(tmp_path, capsys):
    write_notebook(tmp_path / "notebooks")
    spec = write_spec(tmp_path, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1, 2]}\n")
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "results"), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [["toy.quick/x=1", "to run"], ["toy.quick/x=2", "to run"]]


def test_report_rebuilds_a_results_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    write_notebook(tmp_path / "notebooks")
    spec = write_spec(tmp_path, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    sweep.run_sweeps([spec], out=tmp_path / "results", progress=False)
    (tmp_path / "results" / "report.md").unlink()
    assert cli.main(["report", str(tmp_path / "results")]) == 0
    assert (tmp_path / "results" / "report.md").exists()
    assert str(tmp_path / "results" / "report.md") in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["report", str(tmp_path / "notebooks")])
    assert exit_info.value.code == 2


def test_data_prints_the_table_and_fails_on_a_mismatch(monkeypatch, capsys):
    seen = {}

    def describe_data(data_home=None, *, verify=True):
        seen.update(data_home=data_home, verify=verify)
        return pd.DataFrame(
            {
                "dataset": ["adult", "fars"],
                "file": ["adult.data", "fars.tsv"],
                "location": ["/data/adult.data", "missing"],
                "sha256": [status, "unverified"],
            }
        )

    monkeypatch.setitem(sys.modules, "privnb.data.manifest", types.SimpleNamespace(describe_data=describe_data))
    status = "ok"
    assert cli.main(["data"]) == 0
    assert seen == {"data_home": None, "verify": True} and "/data/adult.data" in capsys.readouterr().out
    assert cli.main(["data", "--no-verify", "--data-home", "/d"]) == 0
    assert seen == {"data_home": "/d", "verify": False}
    status = "mismatch"
    assert cli.main(["data"]) == 1


def test_a_command_is_required(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])
    assert exit_info.value.code == 2


def test_notebooks_command_reports_conventions(tmp_path, capsys):
    import nbformat

    good = tmp_path / "good.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("output_dir = 'out'", metadata={"tags": ["parameters"]})]
    nbformat.write(nb, good)
    bad = tmp_path / "bad.ipynb"
    nb.cells[0].metadata = {}
    nbformat.write(nb, bad)
    assert cli.main(["notebooks", str(good)]) == 0
    assert cli.main(["notebooks", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{good}: ok" in out and "exactly one cell tagged 'parameters'" in out


def test_the_command_imports_no_notebook_machinery_until_a_subcommand_needs_it():
    """The command (``python -m privnb``, the console script) and ``privnb --help`` load no papermill,
    nbformat, jsonschema or matplotlib."""
    import subprocess

    heavy = ("papermill", "nbformat", "jsonschema", "nbclient", "matplotlib")
    code = (
        "import sys\nfrom privnb.__main__ import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout

    help_text = subprocess.run([sys.executable, "-m", "privnb", "--help"], capture_output=True, text=True, check=True)
    assert "sweep" in help_text.stdout and "report" in help_text.stdout


def test_data_check_runs_without_the_notebook_machinery(tmp_path):
    """``privnb data check`` on a card (hierarchies and the per-notebook table included) loads no matplotlib,
    nbformat or papermill. Since it plans each notebook's sections with the notebooks' own code (issue 31: the
    NBC audits it sizes are SafetyTransform's, through privnb.nbc), it does load what that code needs."""
    import subprocess

    (tmp_path / "clinic.csv").write_text(
        "age,town,diagnosis,y\n"
        + "".join(f"{20 + i % 50},{'AB'[i % 2]},{['flu', 'hiv', 'cold'][i % 3]},{i % 2}\n" for i in range(60))
    )
    (tmp_path / "clinic.yaml").write_text(
        "file: clinic.csv\nroles: {target: y, positive: 1, sensitive: diagnosis, quasi_identifiers: [age, town]}\n"
        "hierarchies: {age: {intervals: {low: 0, high: 100, width: 10}}}\n"
    )
    heavy = ("matplotlib", "nbformat", "papermill")
    code = (
        "import sys\nfrom privnb.__main__ import main\n"
        f"status = main(['data', 'check', {str(tmp_path / 'clinic.yaml')!r}])\n"
        f"print(status, sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout[-3000:] + done.stderr[-3000:]
    assert "04_nbc_publishing" in done.stdout and "03_feature_selection_k_ac" in done.stdout


def test_notebooks_params_prints_each_parameter_and_its_default(capsys):
    """Issue 31: users find a notebook's parameters without opening it."""
    from pathlib import Path

    path = str(Path(__file__).resolve().parents[2] / "notebooks" / "00_tour.ipynb")
    assert cli.main(["notebooks", "--params", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:\n") and "  sample_size = 3000\n" in out and "  audit_memory = 2147483648\n" in out
