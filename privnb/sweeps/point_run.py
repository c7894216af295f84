"""One point of a sweep, run: papermill in an empty folder, the last good results set aside in
``<point>.previous`` until the run succeeds, and the point's record (``point.json``) written last.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import shutil
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from privnb.sweeps._kernel_log import log_finished
from privnb.sweeps._kernels import kernel_options
from privnb.sweeps._safety import RunOwner
from privnb.sweeps.freshness import point_identity
from privnb.sweeps.spec import INJECTED, Point, read_json, write_json

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


_SKIPPED_ERRORS = ("DataUnavailableError", "DataUnsupportedError")
KERNEL_LOG = "kernel.log"  # the point's kernel process's own output, kept when it wrote any
_MAX_ERROR = 500  # characters of a point's error line
#: How a full disk reads in an error: ENOSPC, EDQUOT, EFBIG (a file over its size limit), as strerror says them.
_DISK_FULL_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def previous_dir(folder: str | os.PathLike) -> Path:
    """Where a point's last good results wait while it runs again: ``<point>.previous`` beside it.

    Parameters
    ----------
    folder : path
        The point's folder.
    """
    folder = Path(folder)
    return folder.with_name(folder.name + ".previous")


def _is_good(folder: Path) -> bool:
    try:
        record = read_json(folder / "point.json", {})
    except ValueError:
        return False
    return record.get("status") == "ok"


def _set_aside(folder: Path) -> Path:
    """Empty ``folder`` for a new run, keeping the last good results in ``<point>.previous``.

    A good run in the folder replaces an older ``.previous``; a failed or interrupted one is deleted when
    ``.previous`` holds good results (so whatever sequence of runs fails, the last good results survive).
    """
    previous = previous_dir(folder)
    if folder.exists():
        if _is_good(folder) or not _is_good(previous):
            if previous.exists():
                shutil.rmtree(previous)
            if _is_good(folder):
                os.replace(folder, previous)
        if folder.exists():
            shutil.rmtree(folder)
    if previous.exists() and not _is_good(previous):
        shutil.rmtree(previous)
    folder.mkdir(parents=True)
    return previous


def run_point(
    point: Point,
    *,
    kernel_name: str = "python3",
    cell_timeout: float | None = None,
    owner: RunOwner | None = None,
    about: dict | None = None,
) -> dict:
    """Execute one point with papermill and record the outcome; never raises for a failing notebook.

    The point runs in an empty folder; the last good results of the point (from this or an earlier run)
    wait in ``<point>.previous`` and are deleted once a run succeeds, so no sequence of failing runs
    loses them. The executed notebook is written to ``notebook.ipynb`` (also when a cell fails, for
    debugging); ``point.json`` is written last with ``status`` "ok", "failed" or "skipped" (the
    notebook raised ``privnb.data.DataUnavailableError``, or ``privnb.experiments.DataUnsupportedError``: the
    data set lacks what the notebook needs), the ``error`` (exception type and
    message), the ``traceback``, the duration, the parameters and the notebook's name and code fingerprint
    (what makes the point done for a later sweep, :mod:`privnb.sweeps.freshness`). A run that fails on a full
    disk has what it wrote deleted (its bounded ``kernel.log`` kept), so that the other points and the reports
    find room; a folder that cannot be prepared, or a record that cannot be written, fails the point alone.

    Parameters
    ----------
    point : Point
        The point.
    kernel_name : str
        The Jupyter kernel.
    cell_timeout : float, optional
        Seconds a single cell may run.
    owner : RunOwner, optional
        The sweep run this point belongs to: when another run holds the results folder by the time the
        notebook ends (this process outlived a killed sweep), nothing more is written.
    about : dict, optional
        Where the point ran, added to its record: the dask worker and host, and the attempts before this one
        when a worker running the point died (:mod:`privnb.sweeps.dask_sweep`).

    Returns
    -------
    dict
        The point's record (what ``point.json`` holds).
    """
    import papermill

    folder = Path(point.output_dir)
    partial, kernel_log = folder / ".notebook.part.ipynb", folder / KERNEL_LOG
    start = time.perf_counter()
    record = {"point": point.point_id, "parameters": point.parameters, **point_identity(point), **(about or {})}
    record.update(status="ok", error="", traceback="")
    try:
        _set_aside(folder)
    except OSError as error:  # a full disk (or a read-only folder): this point fails, the sweep goes on
        record.update(
            _failure(error), duration_s=0.0, finished=datetime.now(timezone.utc).isoformat(timespec="seconds")
        )
        record["error"] = f"its folder {folder} cannot be prepared ({error.strerror or error})"
        return record
    try:
        # A fresh thread starts with empty contextvars, so nbclient makes its own event loop: jupyter_core
        # caches a loop in a context variable, and dask copies contexts into its task threads.
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(
                papermill.execute_notebook,
                point.notebook,
                str(partial),
                parameters={**point.parameters, INJECTED: str(folder)},
                kernel_name=kernel_name,
                cwd=str(Path(point.notebook).parent),
                progress_bar=False,
                execution_timeout=cell_timeout,
                **kernel_options(kernel_log),
            ).result()
    except Exception as error:  # a failing point is recorded and the sweep goes on
        record.update(_failure(error))
    finally:
        owned = owner is None or owner.owns()  # never write over the results of a newer run
        if owned:
            _keep_if_written(kernel_log)
            if partial.exists():
                os.replace(partial, folder / "notebook.ipynb")
            if record["status"] == "failed" and _disk_full(record["error"]):
                record["error"] += _free_disk(folder)
    record.update(
        duration_s=round(time.perf_counter() - start, 3),
        finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    if not owned:
        record.update(status="failed", error=f"not recorded: another sweep run now holds {owner.lock}")
        return record
    _finish(folder, record)
    return record


def _disk_full(message: str) -> bool:
    """Whether a point's error line says that a disk was full (or a file outgrew its size limit)."""
    return any(os.strerror(code) in message for code in _DISK_FULL_ERRORS)


def _free_disk(folder: Path) -> str:
    """Delete what a run that failed on a full disk wrote in its folder (its bounded ``kernel.log`` kept), so that
    the other points and the reports find room: a point that fills the disk fails alone. Returns a note for the
    point's error (its traceback is kept in ``point.json``).
    """
    freed = 0
    for path in list(folder.iterdir()):
        if path.name == KERNEL_LOG:
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                freed += sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
                shutil.rmtree(path)
            else:
                freed += path.lstat().st_size
                path.unlink()
        except OSError:  # what cannot be deleted stays
            pass
    return f"; the disk was full: the {freed / 2**20:.1f} MiB this run wrote were deleted to free it"


def _keep_if_written(log: Path) -> None:
    log_finished(log)
    if log.exists() and log.stat().st_size == 0:
        log.unlink()


def _finish(folder: Path, record: dict) -> None:
    """Write the point's record; drop ``.previous`` after a success, else say where it is (and the kernel's
    own output, when it wrote any).
    """
    previous = previous_dir(folder)
    if record["status"] != "ok":
        if (folder / KERNEL_LOG).exists():
            record["error"] += f" (the kernel's own output is in {folder / KERNEL_LOG})"
        if _is_good(previous):
            record["error"] += f" (the last good results of this point are kept in {previous})"
    try:
        write_json(folder / "point.json", record)
    except OSError as error:  # a full disk fails this point, not the sweep: its record lives on in points.json
        why = f"its point.json cannot be written ({error.strerror or error})"
        record.update(status="failed", error=f"{record['error']}; {why}" if record["status"] == "failed" else why)
        return
    if record["status"] == "ok" and previous.exists():
        shutil.rmtree(previous)


def _failure(error: BaseException) -> dict:
    ename, evalue = getattr(error, "ename", None), getattr(error, "evalue", None)
    message = " ".join((f"{ename}: {evalue}" if ename else f"{type(error).__name__}: {error}").split())
    if len(message) > _MAX_ERROR:  # one short line; the traceback keeps more
        message = message[: _MAX_ERROR - 1] + "\N{HORIZONTAL ELLIPSIS}"
    if getattr(error, "exec_count", None) is not None:
        message += f" (in cell [{error.exec_count}])"
    # a notebook's error carries the cell's own traceback; anything else, the runner's
    text = str(error) if ename else "".join(traceback.format_exception(error))
    # a data set that is neither in PRIVNB_DATA nor downloadable skips the point (IPUMS, say), it is no failure
    status = "skipped" if ename in _SKIPPED_ERRORS else "failed"
    return {"status": status, "error": message, "traceback": _ANSI.sub("", text).strip()[-4000:]}


def lost_record(point: Point, error: BaseException) -> dict:
    """Record a point whose worker died before it could write a record; return the record.

    Parameters
    ----------
    point : Point
        The point.
    error : BaseException
        Why it was lost.
    """
    record = {
        "point": point.point_id,
        "parameters": point.parameters,
        **point_identity(point),
        **_failure(error),
        "duration_s": math.nan,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    with contextlib.suppress(OSError):  # a full disk: _finish says the record cannot be written
        Path(point.output_dir).mkdir(parents=True, exist_ok=True)
    _finish(Path(point.output_dir), record)
    return record
