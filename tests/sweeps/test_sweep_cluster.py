"""Sweeps on a real dask cluster (a ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1) and one-point
runs for job arrays: signals stop remote kernels, a lost scheduler keeps what finished, a worker without the
data fails its point by name, one-point processes run side by side on one --out.

The notebooks are tiny (a kernel start is most of a point's cost); every wait polls for a file or a process
and gives up only after minutes (:func:`settle`), so a busy machine slows these tests without failing them.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_sweep import write_notebook, write_spec  # tests/ is on sys.path under pytest

from privnb import sweeps as sweep
from privnb.sweeps._point_lock import PointBusy, hold_point
from privnb.sweeps._safety import SweepError

distributed = pytest.importorskip("distributed")

HOLD_PARAMETERS = 'x = 1\nhold_at = 2\nhold_file = "hold"\noutput_dir = "results/toy"'
HOLD_BODY = """
import json, os, pathlib, time
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
threads = {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
(out / "pids").write_text(f"{os.getpid()} {os.getppid()}")
(out / "threads.json").write_text(json.dumps(threads))
hold = pathlib.Path(hold_file)
while x == hold_at and hold.exists():
    time.sleep(0.1)
(out / "metrics.json").write_text("{}")
"""

DATA_PARAMETERS = 'x = 1\noutput_dir = "results/toy"'
DATA_BODY = """
from privnb.data import FILES, fetch
from privnb.data.sources import read_only
with read_only():
    fetch(FILES["adult/adult.data"])
"""

PATIENCE_S = 600.0  # a give-up for a wait that went wrong, far beyond what a busy machine needs


def settle(condition, what: str):
    """Poll ``condition`` until it holds and return its value; fail naming ``what`` only after minutes."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split()[2] != "Z"


def dask_command(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("dask")), *args]


def stop_process(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(PATIENCE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def dask_cluster(folder: Path, worker_env: dict | None = None):
    """A scheduler and a one-thread worker on 127.0.0.1, as subprocesses; yields
    ``(address, scheduler process, worker process)``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "scheduler.json"
    log = open(folder / "dask.log", "ab")  # noqa: SIM115 (closed below)
    common = ["--no-dashboard"]  # workers without a nanny: no thread caps of its own in their environment
    scheduler = subprocess.Popen(
        dask_command("scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(file), *common),
        stdout=log,
        stderr=log,
    )
    workers = None
    try:
        address = settle(lambda: file.exists() and json.loads(file.read_text() or "{}").get("address"), "the scheduler")
        workers = subprocess.Popen(
            dask_command(
                "worker",
                address,
                "--no-nanny",
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--local-directory",
                str(folder / "workers"),
                *common,
            ),
            stdout=log,
            stderr=log,
            env={**os.environ, **(worker_env or {})},
        )
        with distributed.Client(address, timeout="600s") as client:
            client.wait_for_workers(1)
        yield address, scheduler, workers
    finally:
        for process in (workers, scheduler):
            if process is not None:
                stop_process(process)
        log.close()


def sweep_process(spec: Path, out: Path, *options: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--no-progress", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def hold_spec(root: Path, hold: Path, xs: str = "[1, 2]") -> Path:
    write_notebook(root / "notebooks", "hold.ipynb", HOLD_PARAMETERS, HOLD_BODY)
    return write_spec(
        root, "hold.quick.yaml", f"notebook: hold.ipynb\nparameters: {{hold_file: '{hold}'}}\ngrid: {{x: {xs}}}\n"
    )


def listed(out: Path) -> dict:
    return {p["point"]: p for p in json.loads((out / "hold.quick" / "points.json").read_text())["points"]}


def started(point: Path) -> tuple[int, int]:
    text = settle(lambda: (point / "pids").exists() and (point / "pids").read_text(), f"{point.name} to start")
    kernel, parent = map(int, text.split())
    return kernel, parent


# ---------------------------------------------------------------- dask


def test_ctrl_c_stops_the_remote_kernel_and_keeps_what_a_worker_finished(tmp_path):
    signum = signal.SIGINT  # SIGTERM and SIGHUP take the same path (one handler sets the sweep's stop flag)
    hold = tmp_path / "hold"
    hold.write_text("")
    spec, out = hold_spec(tmp_path, hold), tmp_path / "results"
    uncapped = dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"), "64")
    with dask_cluster(tmp_path / "cluster", worker_env=uncapped) as (address, _, _):
        process = sweep_process(spec, out, "--scheduler", address)
        try:
            settle(lambda: (out / "hold.quick" / "x=1" / "point.json").exists(), "point x=1 to finish")
            kernel, _ = started(out / "hold.quick" / "x=2")
            process.send_signal(signum)
            _, stderr = process.communicate()
        finally:
            hold.unlink(missing_ok=True)
            stop_process(process)
        assert process.returncode == 128 + signum, stderr
        assert "Traceback" not in stderr and "run the same command again to resume" in stderr
        assert not alive(kernel), "the held point's kernel outlived the stopped sweep"  # stopped before the exit
        points = listed(out)
        assert points["x=1"]["status"] == "ok" and points["x=2"]["status"] == "pending"
        assert not (out / "hold.quick" / "x=2" / "point.json").exists()
        first = json.loads((out / "hold.quick" / "x=1" / "point.json").read_text())
        assert first["worker"].startswith("tcp://127.0.0.1:") and first["host"] == socket.gethostname()
        cap = str(max(1, len(os.sched_getaffinity(0))))  # a worker of one thread: its machine's cores
        assert set(json.loads((out / "hold.quick" / "x=1" / "threads.json").read_text()).values()) == {cap}
        rerun = sweep.run_sweeps([spec], out=out, scheduler=address, progress=False)
    assert rerun.n_run == 1 and rerun.n_failed == 0 and not list(out.rglob("*.previous"))
    assert json.loads((out / "hold.quick" / "x=2" / "point.json").read_text())["status"] == "ok"


def test_killing_the_scheduler_keeps_finished_points_and_writes_the_report(tmp_path):
    hold = tmp_path / "hold"
    hold.write_text("")
    spec, out = hold_spec(tmp_path, hold, "[1, 2, 3]"), tmp_path / "results"
    with dask_cluster(tmp_path / "cluster") as (address, scheduler, _):
        process = sweep_process(spec, out, "--scheduler", address)
        try:
            settle(lambda: (out / "hold.quick" / "x=1" / "point.json").exists(), "point x=1 to finish")
            started(out / "hold.quick" / "x=2")
            scheduler.kill()
            stdout, stderr = process.communicate()
        finally:
            hold.unlink(missing_ok=True)
            stop_process(process)
    assert process.returncode == 1, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("privnb sweep:")]
    assert len(errors) == 1 and f"lost the dask scheduler at {address}" in errors[0], stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    points = listed(out)
    assert points["x=1"]["status"] == "ok"
    assert points["x=2"]["status"] == points["x=3"]["status"] == "pending"
    assert "lost the dask scheduler" in points["x=3"]["error"]
    assert "1 ok, 0 failed" in (out / "hold.quick" / "report.md").read_text() and (out / "report.md").exists()
    assert "3 points (1 run, 0 already done)" in stdout


def test_a_worker_without_the_data_fails_its_point_naming_the_worker_and_host(tmp_path, monkeypatch):
    here, empty = tmp_path / "data-here", tmp_path / "data-empty"
    (here / "adult").mkdir(parents=True)
    (here / "adult" / "adult.data").write_text("39, State-gov\n")
    empty.mkdir()
    write_notebook(tmp_path / "notebooks", "data.ipynb", DATA_PARAMETERS, DATA_BODY)
    spec = write_spec(tmp_path, "data.quick.yaml", "notebook: data.ipynb\ngrid: {x: [1]}\n")
    worker_env = {"PRIVNB_DATA": str(empty), "XDG_CACHE_HOME": str(tmp_path / "worker-cache")}
    with dask_cluster(tmp_path / "cluster", worker_env=worker_env) as (address, _, _):
        monkeypatch.setenv("PRIVNB_DATA", str(here))
        summary = sweep.run_sweeps([spec], out=tmp_path / "results", scheduler=address, progress=False)
        (record,) = summary.records["data.quick"]
        assert record["status"] == "failed" and summary.n_failed == 1, record
        assert f"dask worker {record['worker']} (host {socket.gethostname()})" in record["error"]
        assert record["worker"].startswith("tcp://127.0.0.1:") and "adult/adult.data" in record["error"]
        assert str(here / "adult" / "adult.data") in record["error"]
        on_disk = json.loads((tmp_path / "results" / "data.quick" / "x=1" / "point.json").read_text())
        assert on_disk["status"] == "failed" and on_disk["error"] == record["error"]
        monkeypatch.setenv("PRIVNB_DATA", str(empty))  # missing here too: the point is skipped, as locally
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "client-cache"))
        summary = sweep.run_sweeps([spec], out=tmp_path / "results", scheduler=address, progress=False)
    assert summary.records["data.quick"][0]["status"] == "skipped" and summary.n_failed == 0


def test_workers_lacking_the_kernel_are_refused_before_anything_is_written(tmp_path):
    spec = hold_spec(tmp_path, tmp_path / "hold")
    out = tmp_path / "results"
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        pytest.raises(SweepError, match=r"dask worker .* no Jupyter kernel named 'nosuch'"),
    ):
        sweep.run_sweeps([spec], out=out, scheduler=cluster.scheduler_address, kernel_name="nosuch", progress=False)
    assert not out.exists()


# ---------------------------------------------------------------- one point at a time (job arrays)


def test_one_point_runs_alone_and_another_runs_beside_it_on_the_same_out(tmp_path, capsys):
    """A held one-point process on x=2, and this test's own process as the others (the same command, no
    interpreter start each).
    """
    from test_sweep_safety import cli_error

    from privnb import __main__ as cli

    hold = tmp_path / "hold"
    hold.write_text("")
    spec, out = hold_spec(tmp_path, hold, "[1, 2, 3]"), tmp_path / "results"
    command = ["sweep", str(spec), "--out", str(out), "--no-progress"]
    assert cli.main([*command, "--list"]) == 0
    assert [line.split("\t")[:2] for line in capsys.readouterr().out.splitlines()] == [
        ["0", "hold.quick/x=1"],
        ["1", "hold.quick/x=2"],
        ["2", "hold.quick/x=3"],
    ]
    held = sweep_process(spec, out, "--point", "1")  # x=2 holds
    try:
        started(out / "hold.quick" / "x=2")
        assert cli.main([*command, "--only", "x=1"]) == 0  # beside it
        assert "hold.quick/x=1: ok" in capsys.readouterr().out and set(listed(out)) == {"x=1", "x=2", "x=3"}
        assert json.loads((out / "hold.quick" / "x=1" / "point.json").read_text())["status"] == "ok"
        code, err = cli_error([*command, "--point", "1"], capsys)
        assert code == 2 and f"point x=2 of sweep hold.quick is being run by pid {held.pid}" in err, err
        code, err = cli_error(command, capsys)
        assert code == 2 and "another sweep" in err, err
        hold.unlink()
        stdout, stderr = held.communicate()
    finally:
        hold.unlink(missing_ok=True)
        stop_process(held)
    assert held.returncode == 0 and "hold.quick/x=2: ok" in stdout, stderr
    assert not (out / "hold.quick" / "x=3").exists()
    assert cli.main(["report", str(out)]) == 0
    assert "2 ok, 0 failed" in (out / "hold.quick" / "report.md").read_text()
    assert cli.main([*command, "--point", "0"]) == 0 and "already done" in capsys.readouterr().out


def test_a_signal_stops_a_one_point_process_and_its_kernel(tmp_path):
    hold = tmp_path / "hold"
    hold.write_text("")
    spec, out = hold_spec(tmp_path, hold), tmp_path / "results"
    process = sweep_process(spec, out, "--point", "1")
    try:
        kernel, _ = started(out / "hold.quick" / "x=2")
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate()
    finally:
        hold.unlink(missing_ok=True)
        stop_process(process)
    assert process.returncode == 128 + signal.SIGTERM and "not recorded" in stderr, stderr
    settle(lambda: not alive(kernel), "the stopped point's kernel to die")
    assert not (out / "hold.quick" / "x=2" / "point.json").exists()


def test_a_point_lock_refuses_a_second_holder_and_counts_a_run_s_attempts(tmp_path):
    spec = hold_spec(tmp_path, tmp_path / "hold")
    point = sweep.load_spec(spec).points(tmp_path / "results")[0]
    with hold_point(point, "run-a") as first:
        assert first.owns() and len(first.attempts) == 1
        with (
            pytest.raises(PointBusy, match=f"being run by pid {os.getpid()} on host .*run run-a"),
            hold_point(point, "run-b"),
        ):
            pass
    with hold_point(point, "run-a", worker="tcp://w:1") as again:  # the same run again: a retry
        assert [a["worker"] for a in again.attempts] == ["", "tcp://w:1"]
    with hold_point(point, "run-b") as other:
        assert len(other.attempts) == 1 and not first.owns() and other.owns()


def test_the_one_point_options_are_checked(tmp_path, capsys):
    from test_sweep_safety import cli_error

    spec = str(hold_spec(tmp_path, tmp_path / "hold"))
    out = str(tmp_path / "results")
    code, err = cli_error(["sweep", spec, "--out", out, "--point", "5"], capsys)
    assert code == 2 and "--point 5 is out of range" in err and "0 to 1" in err
    code, err = cli_error(["sweep", spec, "--out", out, "--only", "x=9"], capsys)
    assert code == 2 and "['x=1', 'x=2']" in err
    code, err = cli_error(["sweep", spec, spec, "--out", out, "--point", "0"], capsys)
    assert code == 2 and "give one SPEC" in err


def test_a_point_run_again_after_its_worker_died_is_told_in_the_terminal(tmp_path, monkeypatch, capsys):
    from privnb.sweeps import runner

    def retried(point, **options):  # the record of a point dask ran again after its first worker died
        first = {"worker": "tcp://10.0.0.1:4000", "host": "node1", "pid": 7, "started": "2026-11-27T10:00:00+00:00"}
        return {"point": point.point_id, "parameters": point.parameters, "status": "ok", "error": "",
                "worker": "tcp://10.0.0.2:4000", "host": "node2", "retries": [first]}  # fmt: skip

    monkeypatch.setattr(runner, "run_point", retried)
    spec = hold_spec(tmp_path, tmp_path / "hold", "[1]")
    sweep.run_sweeps([spec], out=tmp_path / "results", progress=False)
    out = capsys.readouterr().out
    assert "hold.quick/x=1: ran again on dask worker tcp://10.0.0.2:4000 (host node2)" in out
    assert "tcp://10.0.0.1:4000 (host node1, 2026-11-27T10:00:00+00:00)" in out
