"""Sweeps that own what they write and survive a full disk: --out never replaces files privnb did not write; a
point whose write fails (ENOSPC, a file over RLIMIT_FSIZE) fails alone, the others run, the reports are written
where they can be, the errors are short lines, kernel.log is bounded, a partial MathJax copy is repaired.

A full disk is simulated with a writer that raises ENOSPC (in process, papermill stood in by a fake as in
test_sweep_safety.py) and, with real processes, by RLIMIT_FSIZE on the sweep (every file over the limit fails
to grow with EFBIG, as on a full disk) and by a real disk that fills: the results folder on a small tmpfs mounted
in a user and mount namespace of the sweep's own (``unshare -Urm``; skipped where the system allows none).
"""

import errno
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest
from machine import cores, load_factor, patience, wait_for
from test_sweep import write_notebook, write_spec
from test_sweep_safety import fake_execute

import privnb.sweeps._report_pages as report_pages
from privnb import __main__ as cli
from privnb.sweeps import point_run
from privnb.sweeps._kernel_log import KERNEL_LOG_BYTES


@pytest.fixture
def project(tmp_path, monkeypatch):
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    write_notebook(tmp_path / "notebooks")
    return tmp_path


def run_cli(argv, capsys) -> tuple[int, str]:
    capsys.readouterr()
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err


# ---------------------------------------------------------------- --out owns only what privnb wrote


@pytest.mark.parametrize("name", ["report.md", "report.html", "results.parquet"])
def test_out_holding_the_users_own_report_or_table_is_refused(project, capsys, name):
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "mine"
    out.mkdir()
    (out / name).write_text("my own work")
    (out / "notes.txt").write_text("mine too")
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"holds {name}, which privnb did not write" in err
    assert (out / name).read_text() == "my own work" and sorted(p.name for p in out.iterdir()) == sorted(
        [name, "notes.txt"]
    )


def test_out_with_other_files_is_written_beside_them_and_privnb_rewrites_its_own(project, capsys):
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)[0] == 0
    assert (out / "notes.txt").read_text() == "mine" and (out / "report.md").exists()
    assert run_cli(["sweep", str(spec), "--out", str(out), "--no-progress", "--force"], capsys)[0] == 0


def test_a_sweep_folder_privnb_did_not_write_is_refused(project, capsys):
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "results"
    (out / "toy.quick").mkdir(parents=True)
    (out / "toy.quick" / "report.md").write_text("mine")
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "holds files privnb did not write" in err
    assert (out / "toy.quick" / "report.md").read_text() == "mine"


# ---------------------------------------------------------------- a full disk


def enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_point_whose_record_cannot_be_written_fails_alone(project, monkeypatch, capsys):
    """ENOSPC writing x=2's point.json: x=2 fails in one short line, x=1 and x=3 run, the report is written."""
    real = point_run.write_json

    def full_for_x2(path, data):
        if "x=2" in str(path):
            enospc()
        real(path, data)

    monkeypatch.setattr(point_run, "write_json", full_for_x2)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1, 2, 3]}\n")
    out = project / "results"
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 1, err
    listed = {p["point"]: p for p in json.loads((out / "toy.quick" / "points.json").read_text())["points"]}
    assert [listed[x]["status"] for x in ("x=1", "x=2", "x=3")] == ["ok", "failed", "ok"]
    assert listed["x=2"]["error"] == "its point.json cannot be written (No space left on device)"
    assert "failed toy.quick/x=2: its point.json cannot be written" in err
    assert (out / "toy.quick" / "report.md").exists() and (out / "report.md").exists()


def test_a_point_whose_folder_cannot_be_prepared_fails_alone(project, monkeypatch, capsys):
    """ENOSPC creating x=2's folder: x=2 fails in one line, x=1 and x=3 run (it once ended the whole sweep)."""
    real = point_run._set_aside

    def full_for_x2(folder):
        if folder.name == "x=2":
            enospc()
        return real(folder)

    monkeypatch.setattr(point_run, "_set_aside", full_for_x2)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1, 2, 3]}\n")
    out = project / "results"
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    listed = {p["point"]: p for p in json.loads((out / "toy.quick" / "points.json").read_text())["points"]}
    assert code == 1 and [listed[x]["status"] for x in ("x=1", "x=2", "x=3")] == ["ok", "failed", "ok"]
    assert "failed toy.quick/x=2: its folder" in err and (out / "toy.quick" / "report.md").exists()
    assert (
        listed["x=2"]["error"] == f"its folder {out / 'toy.quick' / 'x=2'} cannot be prepared (No space left on device)"
    )


def test_a_run_that_fills_the_disk_has_what_it_wrote_deleted_and_its_error_kept(project, monkeypatch, capsys):
    """The notebook of x=1 writes 3 MiB, then its disk is full: the point fails naming the full disk, its folder
    is emptied but for point.json (the traceback), and the cell's error survives a record that cannot be written."""
    import papermill

    def fill(notebook, output_path, parameters, **options):
        Path(output_path).write_text("{}")
        (Path(parameters["output_dir"]) / "figures").mkdir()
        (Path(parameters["output_dir"]) / "figures" / "big.bin").write_bytes(b"f" * (3 << 20))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(papermill, "execute_notebook", fill)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "results"
    assert run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)[0] == 1
    point = out / "toy.quick" / "x=1"
    record = json.loads((point / "point.json").read_text())
    assert record["error"] == (
        "OSError: [Errno 28] No space left on device; the disk was full: the 3.0 MiB this run wrote were deleted to "
        "free it"
    )
    assert [p.name for p in point.iterdir()] == ["point.json"] and "Traceback" in record["traceback"]

    monkeypatch.setattr(point_run, "write_json", enospc)
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress", "--force"], capsys)
    assert code == 1 and "failed toy.quick/x=1: OSError: [Errno 28] No space left on device; the disk was full" in err
    assert err.count("its point.json cannot be written (No space left on device)") == 1


def test_reports_that_cannot_be_written_end_the_sweep_with_status_1_and_one_line_each(project, monkeypatch, capsys):
    from privnb.sweeps import report

    monkeypatch.setattr(report, "write_text", enospc)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1, 2]}\n")
    out = project / "results"
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 1 and "internal error" not in err
    lines = [line for line in err.splitlines() if "not written" in line]
    assert lines and all("No space left on device" in line and len(line) < 400 for line in lines)
    assert json.loads((out / "toy.quick" / "x=2" / "point.json").read_text())["status"] == "ok"


def test_a_points_json_that_cannot_be_written_at_the_end_is_named(project, monkeypatch, capsys):
    """ENOSPC rewriting points.json after the points ran (the error names no file): its line names it."""
    from privnb.sweeps import runner

    real, written = runner.write_json, []

    def full_at_the_end(path, data):
        written.append(path)
        if len(written) > 1:
            enospc()
        real(path, data)

    monkeypatch.setattr(runner, "write_json", full_at_the_end)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "results"
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 1 and written[-1] == out / "toy.quick" / "points.json"
    assert f"not written: cannot write {out / 'toy.quick' / 'points.json'}: No space left on device" in err


def test_a_long_error_is_one_short_line(project, monkeypatch, capsys):
    import papermill

    def huge(notebook, output_path, parameters, **options):
        Path(output_path).write_text("{}")
        raise OSError(errno.ENOSPC, "No space left on device: " + "/very/long/path" * 20_000)

    monkeypatch.setattr(papermill, "execute_notebook", huge)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "results"
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    record = json.loads((out / "toy.quick" / "x=1" / "point.json").read_text())
    assert code == 1 and len(record["error"]) <= 600 and "\n" not in record["error"]
    assert max(map(len, err.splitlines())) < 800


def test_a_lock_file_on_a_full_disk_is_a_clear_error_with_status_2(project, capsys):
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    out = project / "results"
    out.mkdir()
    (out / ".privnb-sweep.lock").symlink_to("/dev/full")  # every write: ENOSPC
    code, err = run_cli(["sweep", str(spec), "--out", str(out), "--no-progress"], capsys)
    assert code == 2 and "cannot write the lock file" in err and len(err.strip().splitlines()) == 1


def test_a_partial_mathjax_copy_is_replaced_and_a_failed_copy_leaves_none(tmp_path, monkeypatch):
    if report_pages.mathjax_source() is None:
        pytest.skip("jupyter-server-mathjax is not installed")
    out = tmp_path / "results"
    partial = out / report_pages.MATHJAX_FOLDER
    partial.mkdir(parents=True)
    (partial / "MathJax.js").write_text("// cut short by a full disk")
    assert report_pages.mathjax_url(out, out) is not None
    assert (partial / "MathJax.js").read_bytes() == (report_pages.mathjax_source() / "MathJax.js").read_bytes()
    assert sorted(p.name for p in partial.iterdir()) == sorted(
        [*(p.name for p in report_pages.mathjax_source().iterdir()), ".privnb-copied"]
    )

    import shutil

    other = tmp_path / "other"
    monkeypatch.setattr(shutil, "copytree", enospc)
    assert report_pages.mathjax_url(other, other) is None
    assert not (other / report_pages.MATHJAX_FOLDER).exists() and not list((other / "_static").iterdir())


# ---------------------------------------------------------------- real processes


DISK_BODY = """
import json, os, pathlib
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
if x == 2:
    raise RuntimeError("the disk is full " * 40000)
if x == 3:
    for _ in range(48):
        os.write(2, b"k" * 65536)
(out / "metrics.json").write_text(json.dumps({"x": x}))
"""


def limit_file_size():
    """In the sweep's process (and its kernels): no file grows past 2 MiB; a write beyond fails (EFBIG)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 20, 2 << 20))


def test_a_sweep_on_a_full_disk_fails_the_points_it_must_and_ends_cleanly(tmp_path):
    """x=2's error (640 KB) is cut to a line; x=3's kernel writes 3 MiB of its own output: kernel.log keeps
    1 MiB; with every file capped at 2 MiB the sweep ends with status 1, its report written."""
    write_notebook(tmp_path / "notebooks", "disk.ipynb", 'x = 1\noutput_dir = "results/x"', DISK_BODY)
    spec = write_spec(tmp_path, "disk.quick.yaml", "notebook: disk.ipynb\ngrid: {x: [1, 2, 3]}\n")
    out = tmp_path / "results"
    done = subprocess.run(
        [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        preexec_fn=limit_file_size,
        timeout=patience(600),
    )
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and all(len(line) < 1200 for line in done.stderr.splitlines())
    listed = {p["point"]: p for p in json.loads((out / "disk.quick" / "points.json").read_text())["points"]}
    assert listed["x=1"]["status"] == "ok" and listed["x=3"]["status"] == "ok"
    assert listed["x=2"]["status"] == "failed" and len(listed["x=2"]["error"]) <= 700
    log = out / "disk.quick" / "x=3" / "kernel.log"
    assert KERNEL_LOG_BYTES <= log.stat().st_size <= KERNEL_LOG_BYTES + 200
    assert "not kept" in log.read_text()[-200:]
    assert (out / "disk.quick" / "report.md").exists() and (out / "report.md").exists()


def test_waits_follow_the_machines_load(monkeypatch):
    """Under a load of 30 on 2 cores a 180 s wait lasts at least 15 times longer."""
    import machine

    monkeypatch.setattr(os, "getloadavg", lambda: (30.0, 30.0, 30.0))
    monkeypatch.setattr(machine, "cores", lambda: 2)
    assert load_factor() == 15.0 and patience(180) >= 180 * 15
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    assert patience(180) >= 180 and cores() >= 1


def test_a_full_disk_outside_a_point_stops_the_sweep_with_status_1_in_one_line(project, monkeypatch, capsys):
    """ENOSPC where no point is to blame (writing points.json before anything runs): status 1, not an
    internal error (3)."""
    from privnb.sweeps import runner

    monkeypatch.setattr(runner, "write_points_json", enospc)
    spec = write_spec(project, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {x: [1]}\n")
    code, err = run_cli(["sweep", str(spec), "--out", str(project / "results"), "--no-progress"], capsys)
    assert code == 1 and err.strip() == "privnb sweep: error: [Errno 28] No space left on device"


# ---------------------------------------------------------------- real processes on a real disk that fills

SMALL_DISK = (  # sh -c SMALL_DISK sh SIZE DISK COPY COMMAND...: COMMAND with DISK a tmpfs of SIZE; DISK copied to COPY
    'mount -t tmpfs -o size="$1" privnb-test "$2" || exit 97; disk=$2 copy=$3; shift 3; "$@"; status=$?; '
    'cp -R "$disk/." "$copy"; exit $status'
)

DISK_SIZE = "32m"  # a finished point, the reports and their MathJax copy (12 MB) fit


def small_disk_allowed() -> bool:
    """Whether this system lets an unprivileged user mount a tmpfs in a namespace of its own."""
    if shutil.which("unshare") is None:
        return False
    mount = ["unshare", "-Urm", "mount", "-t", "tmpfs", "-o", "size=1m", "privnb-test", tempfile.gettempdir()]
    return subprocess.run(mount, capture_output=True).returncode == 0


needs_small_disk = pytest.mark.skipif(
    not small_disk_allowed(), reason="mounting a small tmpfs needs a user namespace (unshare -Urm), not allowed here"
)


def sweep_on_a_small_disk(tmp_path: Path, spec: Path, workers: int = 1) -> tuple[subprocess.Popen, Path]:
    """A sweep writing to ``tmp_path/disk``, a tmpfs of :data:`DISK_SIZE`; its results are copied to the returned
    folder when it ends (the tmpfs ends with its namespace)."""
    disk, copy = tmp_path / "disk", tmp_path / "copy"
    disk.mkdir()
    copy.mkdir()
    sweep = [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(disk), "--no-progress"]
    command = ["unshare", "-Urm", "sh", "-c", SMALL_DISK, "sh", DISK_SIZE, str(disk), str(copy), *sweep]
    process = subprocess.Popen(
        [*command, "--workers", str(workers)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return process, copy


FILL_BODY = """
import json, os, pathlib, time
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
if x == 2:
    with open(out / "filler.bin", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"f" * 65536)
        except OSError:
            pathlib.Path(full_file).write_text("the disk is full")
    for _ in range(48):  # the kernel's own output, 3 MiB, while its log cannot grow
        os.write(2, b"k" * 65536)
    while pathlib.Path(hold_file).exists():
        time.sleep(0.1)
    (out / "after.bin").write_bytes(b"a" * 65536)
(out / "metrics.json").write_text(json.dumps({"x": x}))
"""


def write_fill_spec(tmp_path: Path, hold: bool) -> Path:
    write_notebook(
        tmp_path / "notebooks",
        "fill.ipynb",
        'x = 1\nfull_file = "full"\nhold_file = "hold"\noutput_dir = "results/x"',
        FILL_BODY,
    )
    if hold:
        (tmp_path / "hold").write_text("")
    parameters = f"{{full_file: '{tmp_path / 'full'}', hold_file: '{tmp_path / 'hold'}'}}"
    return write_spec(
        tmp_path, "fill.quick.yaml", f"notebook: fill.ipynb\nparameters: {parameters}\ngrid: {{x: [1, 2, 3]}}\n"
    )


@needs_small_disk
def test_a_kernel_filling_the_disk_fails_its_point_alone_and_the_sweep_ends_cleanly(tmp_path):
    """x=2's kernel fills the disk, then writes 3 MiB of its own output: the sweep never hangs (a kernel whose
    log cannot grow once blocked on its full stderr pipe), x=2 fails in one line naming the full disk, what it
    wrote is deleted so that x=3 runs and the reports are written, kernel.log stays bounded; status 1."""
    process, results = sweep_on_a_small_disk(tmp_path, write_fill_spec(tmp_path, hold=False))
    try:
        _, stderr = process.communicate(timeout=patience(600))  # a bounded wait: the hang this test is about
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 1, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    assert all(len(line) < 1200 for line in stderr.splitlines()) and "not written" not in stderr
    listed = {p["point"]: p for p in json.loads((results / "fill.quick" / "points.json").read_text())["points"]}
    assert [listed[x]["status"] for x in ("x=1", "x=2", "x=3")] == ["ok", "failed", "ok"]
    error = listed["x=2"]["error"]
    assert "No space left on device" in error and "the disk was full" in error and len(error) <= 900
    assert "\n" not in error and f"failed fill.quick/x=2: {error[:60]}" in stderr
    point = results / "fill.quick" / "x=2"
    assert (point / "point.json").exists() and {p.name for p in point.iterdir()} <= {"kernel.log", "point.json"}
    assert not (point / "kernel.log").exists() or (point / "kernel.log").stat().st_size <= KERNEL_LOG_BYTES + 200
    assert (results / "fill.quick" / "report.md").exists() and (results / "report.md").exists()


@needs_small_disk
@pytest.mark.parametrize("workers", [1, 2])
def test_sigint_on_a_full_disk_exits_130(tmp_path, workers):
    """Ctrl-C while the disk is full (x=2's kernel filled it and waits): status 130, never 3 (or 2), one line each;
    serially (the signal breaks out of the running point) and with worker processes (they are terminated)."""
    process, results = sweep_on_a_small_disk(tmp_path, write_fill_spec(tmp_path, hold=True), workers)
    try:
        wait_for(lambda: (tmp_path / "full").exists(), "point x=2 to fill the disk")
        (sweep,) = psutil.Process(process.pid).children()
        sweep.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=patience(120))  # a bounded wait: the sweep must stop promptly
    finally:
        (tmp_path / "hold").unlink(missing_ok=True)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert "interrupted by SIGINT" in stderr and "internal error" not in stderr and "Traceback" not in stderr
    assert all(len(line) < 1200 for line in stderr.splitlines())
    assert all(str(tmp_path / "disk") in line for line in stderr.splitlines() if "not written" in line)
    if workers == 1:  # x=1 finished before x=2 started (beside x=2, it may meet the full disk)
        assert json.loads((results / "fill.quick" / "x=1" / "point.json").read_text())["status"] == "ok"
