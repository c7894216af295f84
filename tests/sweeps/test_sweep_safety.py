"""Sweeps lose nothing: last good results survive failing runs, one sweep per folder, signals stop a sweep
and write its report, a dead worker loses only its own point, damaged results are redone, clear errors.

Most tests stand papermill in with a fake (no kernel); the signal and dead-worker tests run real kernels on a
tiny notebook and wait for files with bounded waits that follow the machine's load (tests/machine.py) and fail
with a message, never a time limit on the test.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from machine import patience, wait_for  # tests/ is on sys.path under pytest
from test_sweep import write_notebook, write_spec

from privnb import __main__ as cli
from privnb import sweeps as sweep
from privnb.sweeps import dask_sweep, runner


def fake_execute(notebook, output_path, parameters, **options):
    """papermill.execute_notebook without a kernel: fail_at == x fails, else write a results table."""
    out = Path(parameters["output_dir"])
    Path(output_path).write_text("{}")
    if parameters.get("x") == parameters.get("fail_at"):
        raise RuntimeError(f"boom at x={parameters['x']}")
    pd.DataFrame(
        {
            "dataset": ["toy"],
            "classifier": "c",
            "method": "original",
            "param": float("nan"),
            "fold": 0,
            "metric": "error",
            "value": [0.1 * parameters["x"]],
            "n_train": 1.0,
            "n_suppressed": 0.0,
            "note": parameters.get("label", ""),
        }
    ).to_parquet(out / "results.parquet")


@pytest.fixture
def project(tmp_path, monkeypatch):
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    write_notebook(tmp_path / "notebooks")
    return tmp_path


def spec_text(fail: bool, label: str = "a") -> str:
    return f"notebook: toy.ipynb\nparameters: {{fail_at: {1 if fail else -1}, label: {label}}}\ngrid: {{x: [1]}}\n"


def status(point: Path) -> str:
    return json.loads((point / "point.json").read_text())["status"]


def test_no_sequence_of_failing_runs_loses_the_last_good_results(project):
    out, spec = project / "results", project / "notebooks" / "sweeps" / "toy.quick.yaml"
    point, previous = out / "toy.quick" / "x=1", out / "toy.quick" / "x=1.previous"
    write_spec(project, "toy.quick.yaml", spec_text(fail=False, label="good"))
    assert sweep.run_sweeps([spec], out=out, progress=False).n_failed == 0
    write_spec(project, "toy.quick.yaml", spec_text(fail=True))
    for force in (True, True, False, True, False):
        summary = sweep.run_sweeps([spec], out=out, force=force, progress=False)
        assert summary.n_failed == 1 and status(point) == "failed"
        assert status(previous) == "ok", f"the good results are gone after a failing run (force={force})"
        assert pd.read_parquet(previous / "results.parquet")["note"].tolist() == ["good"]
        error = summary.records["toy.quick"][0]["error"]
        assert str(previous) in error and "kept" in error
    write_spec(project, "toy.quick.yaml", spec_text(fail=False, label="new"))
    assert sweep.run_sweeps([spec], out=out, progress=False).n_failed == 0
    assert not previous.exists() and status(point) == "ok"
    assert pd.read_parquet(point / "results.parquet")["note"].tolist() == ["new"]


def test_a_failed_first_run_leaves_no_previous_folder(project):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=True))
    for force in (False, True):
        sweep.run_sweeps([spec], out=out, force=force, progress=False)
    assert sorted(p.name for p in (out / "toy.quick").iterdir() if p.is_dir()) == ["x=1"]
    assert "kept" not in json.loads((out / "toy.quick" / "x=1" / "point.json").read_text())["error"]


def test_no_previous_debris_after_an_interrupted_run_is_completed(project):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    sweep.run_sweeps([spec], out=out, progress=False)
    point = out / "toy.quick" / "x=1"
    # a run stopped between writing point.json and deleting the set-aside results
    (out / "toy.quick" / "x=1.previous").mkdir()
    (out / "toy.quick" / "x=1.previous" / "point.json").write_text(json.dumps({"status": "ok"}))
    assert sweep.run_sweeps([spec], out=out, progress=False).n_run == 0
    assert not (out / "toy.quick" / "x=1.previous").exists()
    # a run stopped halfway: the point's folder holds no record, the good results wait in .previous
    os.replace(point, out / "toy.quick" / "x=1.previous")
    (point / "figures").mkdir(parents=True)
    assert sweep.run_sweeps([spec], out=out, progress=False).n_run == 1
    assert status(point) == "ok" and not (out / "toy.quick" / "x=1.previous").exists()


def test_a_finished_point_with_unreadable_results_is_redone(project):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    sweep.run_sweeps([spec], out=out, progress=False)
    results = out / "toy.quick" / "x=1" / "results.parquet"
    results.write_bytes(results.read_bytes()[:40])  # truncated
    summary = sweep.run_sweeps([spec], out=out, progress=False)
    assert summary.n_run == 1 and len(pd.read_parquet(results)) == 1
    assert any(
        "x=1: results.parquet is unreadable" in note and "running the point again" in note for note in summary.notes
    ), summary.notes
    (out / "toy.quick" / "x=1" / "point.json").write_text("{not json")
    summary = sweep.run_sweeps([spec], out=out, progress=False)
    assert summary.n_run == 1 and any("point.json is damaged" in n for n in summary.notes), summary.notes


def test_report_names_an_unreadable_results_file(project, capsys):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    sweep.run_sweeps([spec], out=out, progress=False)
    (out / "toy.quick" / "x=1" / "results.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["report", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "x=1/results.parquet is unreadable" in err and len(err.strip().splitlines()) == 1


def test_a_second_sweep_on_the_same_folder_is_refused(project, capsys):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    out.mkdir()
    with runner.lock_results(out):  # what a running sweep holds
        with pytest.raises(runner.SweepError, match=f"another sweep .*pid {os.getpid()}.* is writing to"):
            sweep.run_sweeps([spec], out=out, progress=False)
        assert not (out / "toy.quick").exists()  # nothing written, nothing run
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["sweep", str(spec), "--out", str(out), "--no-progress"])
        assert exit_info.value.code == 2 and "another sweep" in capsys.readouterr().err
    assert sweep.run_sweeps([spec], out=out, progress=False).n_failed == 0  # released


def cli_error(argv, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return exit_info.value.code, err


def test_unusable_out_scheduler_or_notebook_are_one_line_errors(project, capsys, monkeypatch):
    spec = str(write_spec(project, "toy.quick.yaml", spec_text(fail=False)))
    (project / "afile").write_text("x")
    code, err = cli_error(["sweep", spec, "--out", str(project / "afile"), "--no-progress"], capsys)
    assert code == 2 and "is a file" in err
    code, err = cli_error(["sweep", spec, "--out", str(project / "afile" / "sub"), "--no-progress"], capsys)
    assert code == 2 and "afile" in err
    if os.geteuid() != 0:
        locked = project / "locked"
        locked.mkdir(mode=0o500)
        code, err = cli_error(["sweep", spec, "--out", str(locked), "--no-progress"], capsys)
        assert code == 2 and "cannot write" in err
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(dask_sweep, "SCHEDULER_TIMEOUT", "1s")
    code, err = cli_error(
        ["sweep", spec, "--out", str(project / "r"), "--scheduler", f"tcp://127.0.0.1:{port}", "--no-progress"], capsys
    )
    assert code == 2 and "cannot reach the dask scheduler" in err
    assert not (project / "r").exists()  # refused before the folder is made, locked or written
    code, err = cli_error(["notebooks", str(project / "missing.ipynb")], capsys)
    assert code == 2 and "missing.ipynb not found" in err


def test_an_unknown_kernel_is_bad_usage_before_anything_runs(project, capsys):
    spec = str(write_spec(project, "toy.quick.yaml", spec_text(fail=False)))
    out = project / "results"
    code, err = cli_error(["sweep", spec, "--out", str(out), "--kernel", "nosuch", "--no-progress"], capsys)
    assert code == 2 and "no Jupyter kernel named 'nosuch'" in err and "python3" in err
    assert not out.exists()


def test_a_report_that_cannot_be_written_is_bad_input_naming_the_path(project, capsys):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    sweep.run_sweeps([spec], out=out, progress=False)
    in_the_way = out / "toy.quick" / "report.md"
    in_the_way.unlink()
    (in_the_way / "sub").mkdir(parents=True)  # a folder where the report goes: writing it fails, even for root
    code, err = cli_error(["report", str(out)], capsys)
    assert code == 2 and f"cannot write {in_the_way}:" in err
    if os.geteuid() != 0:
        (in_the_way / "sub").rmdir()
        in_the_way.rmdir()
        (out / "toy.quick").chmod(0o500)
        try:
            code, err = cli_error(["report", str(out)], capsys)
        finally:
            (out / "toy.quick").chmod(0o700)
        assert code == 2 and "cannot write" in err and "Permission denied" in err


def test_a_point_of_a_run_that_no_longer_holds_the_folder_writes_no_record(project):
    out = project / "results"
    spec = write_spec(project, "toy.quick.yaml", spec_text(fail=False))
    (point,) = sweep.load_spec(spec).points(out)
    out.mkdir()
    with runner.lock_results(out) as owner:
        assert owner.owns()
        record = sweep.run_point(point, owner=owner)
        assert record["status"] == "ok" and status(Path(point.output_dir)) == "ok"
    assert not owner.owns()  # the run ended: its lock is released and emptied
    with runner.lock_results(out) as newer:
        assert newer.run_id != owner.run_id and not owner.owns()
        (Path(point.output_dir) / "point.json").unlink()
        record = sweep.run_point(point, owner=owner)  # a process left over from the older run
    assert record["status"] == "failed" and "another sweep run" in record["error"]
    assert not (Path(point.output_dir) / "point.json").exists()
    assert not (Path(point.output_dir) / "notebook.ipynb").exists()


def test_an_internal_error_is_one_line_with_status_3(monkeypatch, capsys):
    def broken(specs, **options):
        raise KeyError("points")

    monkeypatch.setattr(runner, "run_sweeps", broken)
    code, err = cli_error(["sweep", "s.quick.yaml"], capsys)
    assert code == 3 and "internal error: KeyError" in err


# ---------------------------------------------------------------- real kernels: signals and dead workers

HOLD_BODY = """
import os, pathlib, time
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
(out / "pids").write_text(f"{os.getpid()} {os.getppid()}")
hold = pathlib.Path(hold_file)
waited = 0.0
while x in (hold_at, hold_also) and hold.exists() and waited < 300:
    time.sleep(0.1); waited += 0.1
(out / "metrics.json").write_text("{}")
"""


def write_hold_notebook(folder: Path) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(
        'x = 1\nhold_at = 2\nhold_also = 0\nhold_file = "hold"\noutput_dir = "results/toy"'
    )
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(HOLD_BODY)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "hold.ipynb")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def sweep_process(spec: Path, out: Path, workers: int) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "privnb",
            "sweep",
            str(spec),
            "--out",
            str(out),
            "--workers",
            str(workers),
            "--no-progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("signum, workers", [(signal.SIGINT, 2), (signal.SIGTERM, 1), (signal.SIGHUP, 2)])
def test_a_signal_stops_the_sweep_keeps_finished_points_and_writes_the_report(tmp_path, signum, workers):
    write_hold_notebook(tmp_path / "notebooks")
    hold = tmp_path / "hold"
    hold.write_text("")
    spec = write_spec(
        tmp_path,
        "hold.quick.yaml",
        # x = 3 holds too: with two workers it may start beside x = 2, and must still be running at the signal
        f"notebook: hold.ipynb\nparameters: {{hold_file: '{hold}', hold_also: 3}}\ngrid: {{x: [1, 2, 3]}}\n",
    )
    out = tmp_path / "results"
    process = sweep_process(spec, out, workers)
    try:
        held = out / "hold.quick" / "x=2"
        wait_for(lambda: (out / "hold.quick" / "x=1" / "point.json").exists(), "point x=1 to finish")
        kernel = int(
            wait_for(lambda: (held / "pids").exists() and (held / "pids").read_text(), "point x=2 to start").split()[0]
        )
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=patience(120))  # a bounded wait: the sweep must stop promptly
    finally:
        hold.unlink(missing_ok=True)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr and "run the same command again to resume" in stderr
    wait_for(lambda: not alive(kernel), "the held point's kernel to stop", 30)
    listed = {p["point"]: p["status"] for p in json.loads((out / "hold.quick" / "points.json").read_text())["points"]}
    assert listed["x=1"] == "ok" and listed["x=2"] == "pending" and listed["x=3"] == "pending"
    assert not (out / "hold.quick" / "x=3").exists() or workers > 1  # queued points never started
    assert "1 ok, 0 failed" in (out / "hold.quick" / "report.md").read_text() and (out / "report.md").exists()
    rerun = sweep_process(spec, out, workers)
    stdout, stderr = rerun.communicate(timeout=patience(300))
    assert rerun.returncode == 0, stderr
    assert "3 points (2 run, 1 already done), 0 failed" in stdout
    assert not list(out.rglob("*.previous"))


def test_a_worker_killed_from_outside_fails_only_its_own_point(tmp_path):
    write_hold_notebook(tmp_path / "notebooks")
    hold = tmp_path / "hold"
    hold.write_text("")
    spec = write_spec(
        tmp_path,
        "hold.quick.yaml",
        f"notebook: hold.ipynb\nparameters: {{hold_file: '{hold}', hold_at: 1}}\ngrid: {{x: [1, 2, 3]}}\n",
    )
    out = tmp_path / "results"
    process = sweep_process(spec, out, 2)
    try:
        held = out / "hold.quick" / "x=1"
        worker = int(
            wait_for(lambda: (held / "pids").exists() and (held / "pids").read_text(), "point x=1 to start").split()[1]
        )
        wait_for(lambda: (out / "hold.quick" / "x=2" / "point.json").exists(), "point x=2 to finish")
        os.kill(worker, signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=patience(300))
    finally:
        hold.unlink(missing_ok=True)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1, stderr
    listed = {p["point"]: p for p in json.loads((out / "hold.quick" / "points.json").read_text())["points"]}
    assert listed["x=1"]["status"] == "failed" and "SIGKILL" in listed["x=1"]["error"]
    assert listed["x=2"]["status"] == "ok" and listed["x=3"]["status"] == "ok"
    assert "3 points (3 run, 0 already done), 1 failed" in stdout


def test_killing_the_sweep_kills_its_workers_and_kernels_and_a_new_run_owns_the_folder(tmp_path):
    """kill -9 of a sweep with workers: no worker or kernel outlives it to write over the next run."""
    write_hold_notebook(tmp_path / "notebooks")
    hold = tmp_path / "hold"
    hold.write_text("")
    spec = write_spec(
        tmp_path,
        "hold.quick.yaml",
        f"notebook: hold.ipynb\nparameters: {{hold_file: '{hold}', hold_at: 1}}\ngrid: {{x: [1]}}\n",
    )
    out = tmp_path / "results"
    command = [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--workers", "2"]
    process = subprocess.Popen([*command, "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    held = out / "hold.quick" / "x=1"
    try:
        kernel, worker = map(
            int, wait_for(lambda: (held / "pids").exists() and (held / "pids").read_text(), "x=1 to start").split()
        )
        process.kill()
        process.wait(timeout=patience(60))
        wait_for(lambda: not alive(worker), "the killed sweep's worker to die", 30)
        wait_for(lambda: not alive(kernel), "the killed sweep's kernel to die", 30)
    finally:
        for pid in (locals().get("worker"), locals().get("kernel")):
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
    hold.unlink()
    rerun = subprocess.run(
        [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert status(held) == "ok" and int((held / "pids").read_text().split()[0]) != kernel
