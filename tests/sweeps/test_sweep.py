"""Sweep runner: grid expansion, spec checks, resume, --force, failure recording, pool and dask backends.

Each test writes its own tiny notebook; every kernel start costs seconds, so the integration tests use
two points each.
"""

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import privnb.sweeps._report_pages as report_pages_module
from privnb import sweeps as sweep
from privnb.experiments import COLUMNS
from privnb.sweeps import report as report_module
from privnb.sweeps import runner
from privnb.sweeps import spec as spec_module
from privnb.sweeps.freshness import point_identity

NOTEBOOK_BODY = """
import json, pathlib
import pandas as pd
from matplotlib.figure import Figure
out = pathlib.Path(output_dir)
(out / "figures").mkdir(parents=True, exist_ok=True)
if x == fail_at:
    raise RuntimeError(f"boom at x={x}")
if x == missing_at:
    from privnb.data import DataUnavailableError
    raise DataUnavailableError("ipums/ipums.la.97 is missing and could not be downloaded")
if x == unsupported_at:
    from privnb.experiments import DataUnsupportedError
    raise DataUnsupportedError("this notebook cannot run on baskets.yaml: it is a binary item matrix")
pd.DataFrame({"dataset": ["toy"] * 2, "classifier": "c", "method": ["original", "anatomized"],
              "param": [float("nan"), 2.0], "fold": 0, "metric": "error", "value": [0.1 * x, 0.2 * x],
              "n_train": 10.0, "n_suppressed": 0.0, "note": ""}).to_parquet(out / "results.parquet")
(out / "metrics.json").write_text(json.dumps({"error": 0.1 * x, "label": label, "cwd": str(pathlib.Path.cwd())}))
fig = Figure(); fig.subplots().plot([0, x]); fig.savefig(out / "figures" / "line.png")
"""


TOY_PARAMETERS = 'x = 1\nfail_at = -1\nmissing_at = -1\nunsupported_at = -1\nlabel = "a"\noutput_dir = "results/toy"'


def write_notebook(
    folder: Path, name: str = "toy.ipynb", parameters: str = TOY_PARAMETERS, body: str = NOTEBOOK_BODY
) -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / name)
    return folder / name


def write_spec(root: Path, name: str, text: str) -> Path:
    path = root / "notebooks" / "sweeps" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path):
    write_notebook(tmp_path / "notebooks")
    return tmp_path


# ---------------------------------------------------------------- pure parts (no kernel)


def test_expand_grid_is_the_cartesian_product_in_spec_order():
    points = spec_module.expand_grid({"dataset": ["adult", "bank"], "l": [2, 3, 4]})
    assert points[:3] == [{"dataset": "adult", "l": 2}, {"dataset": "adult", "l": 3}, {"dataset": "adult", "l": 4}]
    assert len(points) == 6 and len({tuple(p.items()) for p in points}) == 6
    assert spec_module.expand_grid({}) == [{}]


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.lists(st.integers() | st.text(max_size=30), min_size=1, max_size=3),
        max_size=4,
    )
)
def test_point_ids_are_file_name_safe(grid):
    for values in spec_module.expand_grid(grid):
        pid = spec_module.point_id(values)
        assert pid and "/" not in pid and len(pid) <= 100 and pid not in (".", "..")


def test_point_id_reads_like_the_parameters():
    assert spec_module.point_id({"dataset": "adult", "l": 2}) == "dataset=adult,l=2"
    assert spec_module.point_id({}) == "default"
    assert spec_module.point_id({"datasets": ["adult", "pu1"], "ks": [5]}) == "datasets=adult+pu1,ks=5"


def test_sweep_name_is_the_file_name_without_yaml():
    assert spec_module.sweep_name("notebooks/sweeps/00_tour.quick.yaml") == "00_tour.quick"
    with pytest.raises(ValueError, match="yaml"):
        spec_module.sweep_name("spec.json")


def test_load_spec_resolves_the_notebook_from_notebooks(project):
    spec = sweep.load_spec(
        write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\nparameters: {label: b}\ngrid: {x: [1, 2]}\n")
    )
    assert spec.name == "toy.quick" and Path(spec.notebook) == (project / "notebooks" / "toy.ipynb").resolve()
    points = spec.points(project / "results")
    assert [p.parameters for p in points] == [{"label": "b", "x": 1}, {"label": "b", "x": 2}]
    assert Path(points[0].output_dir) == (project / "results" / "toy.quick" / "x=1").resolve()


SHIPPED_SPECS = sorted((Path(__file__).resolve().parents[2] / "notebooks" / "sweeps").glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED_SPECS, ids=lambda path: path.name)
def test_every_shipped_spec_loads_against_its_notebook(path, tmp_path):
    spec = sweep.load_spec(path)  # every parameter is one its notebook defines, of the type of its default
    assert spec.points(tmp_path) and Path(spec.notebook).is_file()


def test_a_spec_outside_notebooks_sweeps_finds_its_notebook(tmp_path):
    """Issue 31: a spec kept in a folder of one's own finds a notebook beside it or one of privnb's own."""
    mine = tmp_path / "my specs"
    write_notebook(mine, "mine.ipynb")
    (mine / "mine.quick.yaml").write_text("notebook: mine.ipynb\ngrid: {x: [1]}\n")
    assert Path(sweep.load_spec(mine / "mine.quick.yaml").notebook) == (mine / "mine.ipynb").resolve()
    (mine / "tour.quick.yaml").write_text("notebook: 00_tour.ipynb\nparameters: {sample_size: 500}\n")
    found = Path(sweep.load_spec(mine / "tour.quick.yaml").notebook)
    assert found == (Path(sweep.__file__).resolve().parents[2] / "notebooks" / "00_tour.ipynb")
    (mine / "bad.quick.yaml").write_text("notebook: nowhere.ipynb\n")
    with pytest.raises(ValueError, match="the spec folder's parent, the spec's folder or privnb's notebooks/"):
        sweep.load_spec(mine / "bad.quick.yaml")


@pytest.mark.parametrize(
    "text, message",
    [
        ("notebook: toy.ipynb\ngrid: {x: 3}\n", "non-empty list"),
        ("notebook: toy.ipynb\ngrid: {x: []}\n", "non-empty list"),
        ("notebook: toy.ipynb\nparameters: {x: 1}\ngrid: {x: [1]}\n", "both fixed and swept"),
        ("notebook: toy.ipynb\nparameters: {output_dir: here}\n", "injects"),
        ("notebook: toy.ipynb\ngrid: {y: [1]}\n", "not in the parameters cell"),
        ("notebook: missing.ipynb\n", "not found"),
        ("notebook: toy.ipynb\ngird: {x: [1]}\n", "unknown keys"),
        ("grid: {x: [1]}\n", "'notebook' key"),
    ],
)
def test_load_spec_rejects_bad_specs(project, text, message):
    with pytest.raises(ValueError, match=message):
        sweep.load_spec(write_spec(project, "bad.quick.yaml", text))


def test_points_whose_names_collide_are_refused(project):
    spec = sweep.load_spec(write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {label: [a b, a/b]}\n"))
    with pytest.raises(ValueError, match="collide"):
        spec.points(project / "results")


def test_report_renderers_escape_and_link():
    blocks = [
        ("h1", "T"),
        ("table", ["a|b", "c"], [["<x>", report_pages_module.Link("nb", "p/n.ipynb")]]),
        ("img", "f", "p/f.png"),
    ]
    md, page = report_pages_module.render_markdown(blocks), report_pages_module.render_html(blocks)
    assert "a\\|b" in md and "[nb](p/n.ipynb)" in md and "![f](p/f.png)" in md
    assert "&lt;x&gt;" in page and '<a href="p/n.ipynb">nb</a>' in page and '<img src="p/f.png"' in page


# ---------------------------------------------------------------- running notebooks


def test_process_pool_records_a_failure_and_the_other_point_goes_on(project):
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\nparameters: {fail_at: 2}\ngrid: {x: [1, 2]}\n")
    out = project / "results"
    ok, bad = out / "toy.quick" / "x=1", out / "toy.quick" / "x=2"
    (ok / "figures").mkdir(parents=True)
    (ok / "figures" / "stale.png").write_bytes(b"left by an interrupted run")
    summary = sweep.run_sweeps([spec], out=out, workers=2, progress=False)
    assert summary.n_failed == 1 and summary.n_run == 2
    for name in ("notebook.ipynb", "results.parquet", "metrics.json", "figures/line.png", "point.json"):
        assert (ok / name).exists(), name
    assert not (ok / "figures" / "stale.png").exists()
    assert json.loads((ok / "metrics.json").read_text())["cwd"] == str((project / "notebooks").resolve())
    failure = json.loads((bad / "point.json").read_text())
    assert failure["status"] == "failed" and "boom at x=2" in failure["error"]
    assert (bad / "notebook.ipynb").exists()  # kept for debugging
    assert not list(out.rglob(".*.part*"))  # no half-written files
    listed = json.loads((out / "toy.quick" / "points.json").read_text())["points"]
    assert [(p["point"], p["status"]) for p in listed] == [("x=1", "ok"), ("x=2", "failed")]

    results = pd.read_parquet(out / "toy.quick" / "results.parquet")
    assert list(results.columns[: len(COLUMNS)]) == list(COLUMNS)
    assert {"sweep", "point", "x", "fail_at"} <= set(results.columns)
    assert set(results["point"]) == {"x=1"} and (results["x"] == 1).all()

    report = (out / "toy.quick" / "report.md").read_text()
    assert "1 ok, 1 failed" in report and "boom at x=2" in report
    assert "x=1/figures/line.png" in report and "[notebook.ipynb](x=1/notebook.ipynb)" in report
    assert "| 0.1 |" in report  # the metrics.json headline number
    assert "| point | dataset | classifier | metric | Org. | L=2 |" in report  # mean over folds per view
    assert "| x=1 | toy | c | error | 0.1 | 0.2 |" in report
    assert '<img src="x=1/figures/line.png"' in (out / "toy.quick" / "report.html").read_text()
    assert "toy.quick" in (out / "report.md").read_text()
    assert len(pd.read_parquet(out / "results.parquet")) == 2


runs = []  # point ids fake_run_point ran, in order


def fake_run_point(point, **options):
    """Stands in for papermill: x == 2 fails, others write a notebook and an "ok" point.json."""
    folder = Path(point.output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notebook.ipynb").write_text("{}")
    status = "failed" if point.parameters.get("x") == 2 else "ok"
    record = {
        "point": point.point_id,
        "parameters": point.parameters,
        **point_identity(point),
        "status": status,
        "error": "boom" if status == "failed" else "",
        "duration_s": 0.0,
    }
    (folder / "point.json").write_text(json.dumps(record))
    runs.append(point.point_id)
    return record


def test_a_point_whose_data_is_unavailable_or_unsupported_is_skipped_not_failed(project):
    spec = write_spec(
        project,
        "toy.paper.yaml",
        "notebook: toy.ipynb\nparameters: {missing_at: 3, unsupported_at: 5}\ngrid: {x: [1, 3, 5]}\n",
    )
    out = project / "results"
    summary = sweep.run_sweeps([spec], out=out, progress=False)
    assert summary.n_failed == 0 and summary.n_run == 3
    record = json.loads((out / "toy.paper" / "x=3" / "point.json").read_text())
    assert record["status"] == "skipped" and "ipums/ipums.la.97" in record["error"]
    record = json.loads((out / "toy.paper" / "x=5" / "point.json").read_text())
    assert record["status"] == "skipped" and "binary item matrix" in record["error"]
    report = (out / "toy.paper" / "report.md").read_text()
    assert "1 ok, 0 failed, 2 skipped" in report and "x=3 (skipped)" in report
    assert "| toy.ipynb | 3 | 1 | 0 | 2 |" in (out / "report.md").read_text()


def test_card_paths_in_a_spec_are_relative_to_it_and_name_the_point(project):
    """A data card in a grid reaches the notebook as an absolute path; the point id reads its file name."""
    cards = project / "notebooks" / "sweeps" / "cards"
    cards.mkdir(parents=True)
    (cards / "ward.yaml").write_text("name: ward\n")
    spec = write_spec(project, "toy.own.yaml", "notebook: toy.ipynb\ngrid: {label: [a, cards/ward.yaml]}\n")
    points = sweep.load_spec(spec).points(project / "results")
    assert [p.point_id for p in points] == ["label=a", "label=ward"]
    assert points[1].parameters["label"] == str((cards / "ward.yaml").resolve())
    missing = write_spec(project, "toy.bad.yaml", "notebook: toy.ipynb\ngrid: {label: [cards/clinic.yaml]}\n")
    with pytest.raises(ValueError, match=r"data card 'cards/clinic.yaml' not found .*relative to the spec's folder"):
        sweep.load_spec(missing)


def test_resume_skips_finished_points_reruns_failed_ones_and_force_runs_all(project, monkeypatch):
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1, 2, 3]}\n")
    out = project / "results"
    runs.clear()
    first = sweep.run_sweeps([spec], out=out, progress=False)
    assert (first.n_run, first.n_failed, runs) == (3, 1, ["x=1", "x=2", "x=3"])
    runs.clear()
    again = sweep.run_sweeps([spec], out=out, progress=False)
    assert (again.n_run, again.n_failed, runs) == (1, 1, ["x=2"])
    assert [r.get("cached", False) for r in again.records["toy.quick"]] == [True, False, True]
    assert (out / "toy.quick" / "report.md").read_text().count("ok (cached)") == 2
    (out / "toy.quick" / "x=3" / "notebook.ipynb").unlink()  # artifacts gone: the point runs again
    runs.clear()
    sweep.run_sweeps([spec], out=out, progress=False)
    assert runs == ["x=2", "x=3"]
    runs.clear()
    forced = sweep.run_sweeps([spec], out=out, force=True, progress=False)
    assert (forced.n_run, runs) == (3, ["x=1", "x=2", "x=3"])


def test_a_failing_forced_rerun_keeps_the_previous_results(project):
    out = project / "results"
    good = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    sweep.run_sweeps([good], out=out, progress=False)
    bad = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\nparameters: {fail_at: 1}\ngrid: {x: [1]}\n")
    assert sweep.run_sweeps([bad], out=out, force=True, progress=False).n_failed == 1
    point, previous = out / "toy.quick" / "x=1", out / "toy.quick" / "x=1.previous"
    record = json.loads((point / "point.json").read_text())
    assert record["status"] == "failed" and "x=1.previous" in record["error"]
    assert json.loads((previous / "point.json").read_text())["status"] == "ok"
    assert (previous / "results.parquet").exists()
    good = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    assert sweep.run_sweeps([good], out=out, progress=False).n_failed == 0
    assert not previous.exists() and json.loads((point / "point.json").read_text())["status"] == "ok"


def test_dask_backend_runs_several_sweeps_and_writes_the_index(project):
    distributed = pytest.importorskip("distributed")
    first = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [3]}\n")
    second = write_spec(project, "toy.paper.yaml", "notebook: toy.ipynb\ngrid: {label: [z]}\n")
    out = project / "results"
    with distributed.LocalCluster(  # worker processes: a point caps the threads of the process it runs in
        n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None
    ) as cluster:
        summary = sweep.run_sweeps([first, second], out=out, scheduler=cluster.scheduler_address, progress=False)
    assert summary.n_failed == 0 and summary.n_points == 2, summary.records
    combined = pd.read_parquet(out / "results.parquet")
    assert set(combined["sweep"]) == {"toy.quick", "toy.paper"}
    index = (out / "report.md").read_text()
    assert "[toy.paper](toy.paper/report.md)" in index and "[toy.quick](toy.quick/report.md)" in index

    (out / "report.md").unlink()
    (out / "toy.quick" / "report.html").unlink()
    written = sweep.rebuild_reports(out)
    assert out / "report.md" in written and (out / "toy.quick" / "report.html").exists()


def test_rebuild_reports_needs_a_sweep_folder(tmp_path):
    with pytest.raises(ValueError, match="holds no sweep"):
        sweep.rebuild_reports(tmp_path)


def test_collect_results_adds_point_parameters_and_renames_clashes(tmp_path):
    from privnb.experiments import tidy_frame

    points = []
    for pid, params in (
        ("dataset=adult", {"dataset": "adult", "l": 2}),
        ("dataset=bank", {"dataset": "bank", "l": "x"}),
    ):
        (tmp_path / pid).mkdir()
        tidy_frame(
            [(params["dataset"] + "-sample", "c", "original", float("nan"), 0, "error", 0.1, 9, 0, "")]
        ).to_parquet(tmp_path / pid / "results.parquet")
        points.append({"point": pid, "parameters": params, "status": "ok", "error": ""})
    (tmp_path / "points.json").write_text(json.dumps({"sweep": "s", "spec": {"name": "s"}, "points": points}))
    results = report_module.collect_results(tmp_path)
    assert list(results["dataset"]) == ["adult-sample", "bank-sample"]  # the notebook's column is kept
    assert list(results["point_dataset"]) == ["adult", "bank"]
    assert list(results["l"]) == ["2", "x"]  # mixed types across points become strings (parquet-safe)


# ---------------------------------------------------------------- what makes a point done


def dry_run(spec: Path, out: Path, capsys) -> dict:
    """``privnb sweep --dry-run``: point -> (verdict, reason)."""
    from privnb import __main__ as cli

    capsys.readouterr()
    assert cli.main(["sweep", str(spec), "--out", str(out), "--dry-run"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    return {row[0]: (row[1], row[2]) for row in rows}


def test_a_point_is_done_only_for_the_same_parameters_and_notebook_code(project, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\nparameters: {label: a}\ngrid: {x: [1, 3]}\n")
    out = project / "results"
    assert dry_run(spec, out, capsys)["toy.quick/x=1"] == ("to run", "new")
    sweep.run_sweeps([spec], out=out, progress=False)
    assert dry_run(spec, out, capsys)["toy.quick/x=1"] == ("done", "done")

    write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\nparameters: {label: b}\ngrid: {x: [1, 3]}\n")
    assert dry_run(spec, out, capsys)["toy.quick/x=3"] == ("to run", 'parameters differ: label "a"->"b"')
    runs.clear()
    summary = sweep.run_sweeps([spec], out=out, progress=False)
    assert (summary.n_run, runs) == (2, ["x=1", "x=3"])
    assert json.loads((out / "toy.quick" / "x=1" / "point.json").read_text())["parameters"]["label"] == "b"

    notebook = project / "notebooks" / "toy.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("A note that changes no number."))
    nbformat.write(nb, notebook)
    assert dry_run(spec, out, capsys)["toy.quick/x=1"] == ("done", "done")  # prose edits run nothing
    nb.cells.append(nbformat.v4.new_code_cell("y = 2 * x"))
    nbformat.write(nb, notebook)
    assert dry_run(spec, out, capsys)["toy.quick/x=1"][1].startswith("notebook changed")
    runs.clear()
    assert sweep.run_sweeps([spec], out=out, progress=False).n_run == 2 and runs == ["x=1", "x=3"]


def test_a_spec_of_the_same_name_from_another_folder_is_not_served_the_first_ones_results(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    out = tmp_path / "results"
    first = write_spec(tmp_path / "a", "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    write_notebook(tmp_path / "a" / "notebooks")
    sweep.run_sweeps([first], out=out, progress=False)
    other = write_spec(tmp_path / "b", "toy.quick.yaml", "notebook: other.ipynb\ngrid: {x: [1]}\n")
    write_notebook(tmp_path / "b" / "notebooks", "other.ipynb")
    assert dry_run(other, out, capsys)["toy.quick/x=1"] == ("to run", "notebook changed: toy.ipynb -> other.ipynb")
    runs.clear()
    assert sweep.run_sweeps([other], out=out, progress=False).n_run == 1 and runs == ["x=1"]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "notebook: toy.ipynb\nparameters: {x: two}\n",
            "parameter 'x' = 'two' is a str.*default .* 1, so it expects int",
        ),
        ("notebook: toy.ipynb\ngrid: {x: [1, 2.5]}\n", "parameter 'x' = 2.5 is a float.*expects int"),
        ("notebook: toy.ipynb\ngrid: {x: [true]}\n", "parameter 'x' = True is a bool.*expects int"),
        ("notebook: toy.ipynb\ngrid: {label: [a, 3]}\n", "parameter 'label' = 3 is a int.*expects str"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_before_anything_runs(project, text, message, capsys):
    from privnb import __main__ as cli

    spec = write_spec(project, "typed.quick.yaml", text)
    with pytest.raises(ValueError, match=message):
        sweep.load_spec(spec)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["sweep", str(spec), "--out", str(project / "results"), "--no-progress"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "typed.quick.yaml" in err and "(notebook toy.ipynb)" in err
    assert not (project / "results").exists()


def test_values_that_fit_the_defaults_pass_the_type_check(tmp_path):
    from privnb.sweeps.spec import check_parameter_types

    defaults = {"n": 1, "scale": 1.0, "name": "a", "flag": False, "ls": [2], "opts": {}, "any": None}
    fine = {"n": 3, "scale": 2, "name": "b", "flag": True, "ls": [3, 4], "opts": {"k": 1}, "any": "x"}
    check_parameter_types("s.yaml", tmp_path / "nb.ipynb", defaults, fine, {"scale": [0.5, 1]})
    with pytest.raises(ValueError, match="'scale' = '1' is a str"):
        check_parameter_types("s.yaml", tmp_path / "nb.ipynb", defaults, {}, {"scale": ["1"]})


# ---------------------------------------------------------------- real kernels: threads and a clean log

THREADS_BODY = """
import json, os, pathlib
import numpy
from threadpoolctl import threadpool_info
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
threads = max([pool["num_threads"] for pool in threadpool_info()] or [0])
(out / "metrics.json").write_text(json.dumps({**{n: os.environ.get(n) for n in names}, "threads": threads}))
"""


def test_parallel_points_cap_their_kernels_threads_and_log_no_error(tmp_path):
    """workers=2: each kernel sees the thread variables at cores // 2 and its BLAS pools obey them; a clean
    sweep's log has no ERROR line (a kernel was interrupted on its way to a shutdown)."""
    import os
    import subprocess
    import sys

    write_notebook(tmp_path / "notebooks", "threads.ipynb", 'x = 1\noutput_dir = "results/toy"', THREADS_BODY)
    spec = write_spec(tmp_path, "threads.quick.yaml", "notebook: threads.ipynb\ngrid: {x: [1, 2]}\n")
    out = tmp_path / "results"
    command = [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--workers", "2"]
    done = subprocess.run([*command, "--no-progress"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    cap = max(1, len(os.sched_getaffinity(0)) // 2)
    for point in ("x=1", "x=2"):
        log = out / "threads.quick" / point / "kernel.log"
        assert not log.exists() or "KeyboardInterrupt" not in log.read_text(), log.read_text()
        metrics = json.loads((out / "threads.quick" / point / "metrics.json").read_text())
        assert metrics["OMP_NUM_THREADS"] == metrics["OPENBLAS_NUM_THREADS"] == metrics["MKL_NUM_THREADS"] == str(cap)
        assert metrics["threads"] <= cap


KERNEL_WRITES = """
import os, signal
if x in (1, 3):
    os.write(2, f"the kernel of x={x} writes to its own stderr\\n".encode())
if x == 3:
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_kernels_own_output_goes_to_its_points_kernel_log_not_the_terminal(tmp_path):
    """What a kernel process writes itself (ipykernel's shutdown noise, a dying kernel's last words) lands in
    its point's kernel.log, kept only when written and named in a failed point's error."""
    import subprocess
    import sys

    write_notebook(tmp_path / "notebooks", "writes.ipynb", "x = 1", KERNEL_WRITES)
    spec = write_spec(tmp_path, "writes.quick.yaml", "notebook: writes.ipynb\ngrid: {x: [1, 2, 3]}\n")
    out = tmp_path / "results"
    command = [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--no-progress"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr  # x=3's kernel dies
    assert "writes to its own stderr" not in done.stdout + done.stderr
    points = out / "writes.quick"
    assert "the kernel of x=1 writes" in (points / "x=1" / "kernel.log").read_text()
    assert not (points / "x=2" / "kernel.log").exists()  # nothing written, no file
    assert "the kernel of x=3 writes" in (points / "x=3" / "kernel.log").read_text()
    record = json.loads((points / "x=3" / "point.json").read_text())
    assert record["status"] == "failed" and str(points / "x=3" / "kernel.log") in record["error"]
    assert json.loads((points / "x=1" / "point.json").read_text())["status"] == "ok"
