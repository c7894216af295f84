"""Parameter sweeps: a YAML grid -> executed notebooks -> one results table and a report.

A sweep spec (``notebooks/sweeps/<notebook>.<quick|paper>.yaml``) reads::

    notebook: 02_knn_l_diversity.ipynb     # relative to notebooks/ (the spec folder's parent)
    parameters: {n_splits: 3}              # fixed for every point
    grid: {dataset: [adult, bank], l: [2, 3]}  # cartesian product, one papermill run per point
    description: optional one line for the report

The sweep is named after the spec file without ``.yaml`` (``00_tour.quick``). Each point runs the
notebook with papermill (kernel ``python3``: the active environment), with ``cwd`` the notebook's own
folder, as when it is opened in JupyterLab, and ``output_dir`` injected as the point's absolute folder.
Results layout under ``out``::

    <sweep>/points.json              the spec and every point's parameters, status and error
    <sweep>/<point>/notebook.ipynb   the executed notebook (kept for failed points too)
    <sweep>/<point>/point.json       the point's status record, written last: "ok" marks it done
    <sweep>/<point>/{results.parquet, metrics.json, figures/*.png}   what the notebook wrote
    <sweep>/results.parquet          every point's tidy rows plus the point's parameters as columns
    <sweep>/report.{md,html}         spec, points (status, time, metrics.json numbers), mean error per
                                     view (Org., L=2, ...), failures with tracebacks, figures (linked)
    results.parquet, report.{md,html}   the index over every sweep folder in ``out``

A point whose ``point.json`` says "ok", whose notebook exists and whose results.parquet (if any) can be
read is skipped unless ``force``; a failed point is run again. A point's last good results wait in
``<sweep>/<point>.previous`` while it runs again and survive every failing run. Points run serially, each
in a process of its own (``workers`` at a time), or on a dask.distributed cluster (``scheduler``: the
workers must see the same file system and have privnb installed). One sweep at a time writes to ``out``
(``out/.privnb-sweep.lock``); SIGINT and SIGTERM stop the running points and write the reports.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import time
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from privnb.workbench.notebooks import kernel_options
from privnb.workbench.report import write_index, write_sweep_outputs
from privnb.workbench.safety import (  # noqa: F401  (LOCK_NAME, SweepError: re-exported)
    LOCK_NAME,
    SweepError,
    _catch_signals,
    _check_out,
    _Stop,
    _stop_kernels,
    lock_results,
)
from privnb.workbench.spec import INJECTED, Point, SweepSpec, _read_json, _write_json, load_spec

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


_SKIPPED_ERRORS = ("DataUnavailableError", "DataUnsupportedError")


class SweepInterrupted(Exception):
    """SIGINT or SIGTERM stopped the sweep; finished points are kept and the reports written."""

    def __init__(self, signum: int, summary: SweepSummary):
        self.signum, self.summary = signum, summary
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


def previous_dir(folder: str | os.PathLike) -> Path:
    """Where a point's last good results wait while it runs again: ``<point>.previous`` beside it."""
    folder = Path(folder)
    return folder.with_name(folder.name + ".previous")


def _is_good(folder: Path) -> bool:
    try:
        record = _read_json(folder / "point.json", {})
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


def run_point(point: Point, *, kernel_name: str = "python3", cell_timeout: float | None = None) -> dict:
    """Execute one point with papermill and record the outcome; never raises for a failing notebook.

    The point runs in an empty folder; the last good results of the point (from this or an earlier run)
    wait in ``<point>.previous`` and are deleted once a run succeeds, so no sequence of failing runs
    loses them. The executed notebook is written to ``notebook.ipynb`` (also when a cell fails, for
    debugging); ``point.json`` is written last with ``status`` "ok", "failed" or "skipped" (the
    notebook raised ``privnb.data.DataUnavailableError``, or ``privnb.experiments.DataUnsupportedError``: the
    data set lacks what the notebook needs), the ``error`` (exception type and
    message), the ``traceback`` and the duration.
    """
    import papermill

    folder = Path(point.output_dir)
    _set_aside(folder)
    partial = folder / ".notebook.part.ipynb"
    start = time.perf_counter()
    record = {"point": point.point_id, "parameters": point.parameters, "status": "ok", "error": "", "traceback": ""}
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
                **kernel_options(),
            ).result()
    except Exception as error:  # a failing point is recorded and the sweep goes on
        record.update(_failure(error))
    finally:
        if partial.exists():
            os.replace(partial, folder / "notebook.ipynb")
    record.update(
        duration_s=round(time.perf_counter() - start, 3),
        finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    _finish(folder, record)
    return record


def _finish(folder: Path, record: dict) -> None:
    """Write the point's record; drop ``.previous`` after a success, else say where it is."""
    previous = previous_dir(folder)
    if record["status"] == "ok":
        _write_json(folder / "point.json", record)
        if previous.exists():
            shutil.rmtree(previous)
        return
    if _is_good(previous):
        record["error"] += f" (the last good results of this point are kept in {previous})"
    _write_json(folder / "point.json", record)


def _failure(error: BaseException) -> dict:
    ename, evalue = getattr(error, "ename", None), getattr(error, "evalue", None)
    message = f"{ename}: {evalue}" if ename else f"{type(error).__name__}: {error}"
    if getattr(error, "exec_count", None) is not None:
        message += f" (in cell [{error.exec_count}])"
    # a notebook's error carries the cell's own traceback; anything else, the runner's
    text = str(error) if ename else "".join(traceback.format_exception(error))
    # a data set that is neither in PRIVNB_DATA nor downloadable skips the point (IPUMS, say), it is no failure
    status = "skipped" if ename in _SKIPPED_ERRORS else "failed"
    return {"status": status, "error": message, "traceback": _ANSI.sub("", text).strip()[-4000:]}


def _lost(point: Point, error: BaseException) -> dict:
    """The record of a point whose worker died before it could write one."""
    record = {
        "point": point.point_id,
        "parameters": point.parameters,
        **_failure(error),
        "duration_s": math.nan,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    Path(point.output_dir).mkdir(parents=True, exist_ok=True)
    _finish(Path(point.output_dir), record)
    return record


class WorkerDied(RuntimeError):
    """The process running a point ended without a record (killed from outside, out of memory)."""


def _worker_main(point: Point, options: dict, connection) -> None:
    """A point's own process: run it, send the record; SIGTERM stops its kernel and ends it at once."""

    def stop(signum, frame):
        _stop_kernels()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the sweep decides; a terminal's Ctrl-C reaches us too
    signal.signal(signal.SIGTERM, stop)
    connection.send(run_point(point, **options))
    connection.close()


def _execute(
    points: list[Point], *, workers: int, scheduler, options: dict, stop: _Stop
) -> Iterator[tuple[Point, dict]]:
    """Run points serially, in processes of their own or on a dask cluster; yield them as they finish."""
    if not points:
        return
    if scheduler is not None:
        yield from _execute_dask(points, scheduler, options, stop)
    elif workers > 1:
        yield from _execute_processes(points, workers, options, stop)
    else:
        for point in points:
            if stop:
                return
            try:
                record = run_point(point, **options)
            except KeyboardInterrupt:  # raised by the signal handler: the kernel is stopped already
                return
            yield point, record


_STOP_GRACE_S = 10.0  # how long a terminated worker may take to stop its kernel before SIGKILL


def _execute_processes(points, workers, options, stop) -> Iterator[tuple[Point, dict]]:
    """One spawned process per point, ``workers`` at a time: a process that dies loses only its own point."""
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
    queue, running = list(points), {}
    try:
        while (queue or running) and not stop:
            while queue and len(running) < workers and not stop:
                point = queue.pop(0)
                receive, send = context.Pipe(duplex=False)
                process = context.Process(
                    target=_worker_main, args=(point, options, send), daemon=True, name=f"privnb point {point.point_id}"
                )
                process.start()
                send.close()
                running[process.sentinel] = (process, receive, point)
            for sentinel in wait(list(running), timeout=0.2):
                process, receive, point = running.pop(sentinel)
                record = _receive(receive)
                process.join()
                if record is None:
                    code = process.exitcode
                    how = f"killed by {signal.Signals(-code).name}" if code and code < 0 else f"exit status {code}"
                    record = _lost(
                        point, WorkerDied(f"the process running this point died ({how}) before it recorded a result")
                    )
                yield point, record
    finally:
        for process, _, _ in running.values():
            process.terminate()  # its SIGTERM handler stops its kernel
        deadline = time.monotonic() + _STOP_GRACE_S
        for process, _, _ in running.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
    for _process, receive, point in running.values():  # stopped: keep the points that finished meanwhile
        record = _receive(receive)
        receive.close()
        if record is not None:
            yield point, record


def _receive(connection) -> dict | None:
    try:
        return connection.recv() if connection.poll() else None
    except (EOFError, OSError):
        return None


_SCHEDULER_TIMEOUT = "10s"


def _execute_dask(points, scheduler, options, stop) -> Iterator[tuple[Point, dict]]:
    from distributed import Client, wait

    try:
        client = Client(scheduler, timeout=_SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise SweepError(
            f"cannot reach the dask scheduler at {scheduler!r} ({type(error).__name__}: "
            f"{error}); start it (dask scheduler) or check the address"
        ) from None
    with client:
        futures = {client.submit(run_point, p, pure=False, **options): p for p in points}
        pending = set(futures)
        try:
            while pending and not stop:
                try:
                    done, pending = wait(pending, timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    continue
                for future in done:
                    point = futures[future]
                    try:
                        record = future.result()
                    except Exception as error:  # the worker died: run_point could not record the point itself
                        record = _lost(point, error)
                    yield point, record
        finally:
            # a task that runs already finishes on its worker (dask cannot stop it); queued ones never start
            client.cancel([f for f in futures if not f.done()])


def _unreadable_results(point: Point) -> str | None:
    """Why a finished point's results.parquet cannot be read, or None."""
    path = Path(point.output_dir) / "results.parquet"
    if not path.exists():
        return None
    try:
        import pyarrow.parquet as pq

        pq.read_table(path)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def _is_done(point: Point, notes: list[str]) -> bool:
    try:
        done = point.done
    except ValueError as error:
        notes.append(f"{point.sweep}/{point.point_id}: {error}; running the point again")
        return False
    if done:
        why = _unreadable_results(point)
        if why is not None:
            notes.append(
                f"{point.sweep}/{point.point_id}: results.parquet is unreadable ({why}); running the point again"
            )
            return False
    return done


@dataclass
class SweepSummary:
    """What :func:`run_sweeps` did: per sweep, the point records (``cached`` True for skipped ones)."""

    out: str
    records: dict[str, list[dict]]
    notes: list[str] = field(default_factory=list)

    @property
    def n_skipped(self) -> int:
        return sum(r["status"] == "skipped" for rs in self.records.values() for r in rs)

    @property
    def n_pending(self) -> int:
        return sum(r["status"] == "pending" for rs in self.records.values() for r in rs)

    @property
    def n_failed(self) -> int:
        return sum(r["status"] == "failed" for rs in self.records.values() for r in rs)

    @property
    def n_run(self) -> int:
        return sum(not r.get("cached") and r["status"] != "pending" for rs in self.records.values() for r in rs)

    @property
    def n_points(self) -> int:
        return sum(len(rs) for rs in self.records.values())


def run_sweeps(
    specs: Iterable[str | os.PathLike | SweepSpec],
    *,
    out: str | os.PathLike = "results",
    workers: int = 1,
    scheduler=None,
    force: bool = False,
    progress: bool = True,
    kernel_name: str = "python3",
    cell_timeout: float | None = None,
) -> SweepSummary:
    """Run every point of every spec (one pool for all), then write the tables and reports.

    Parameters
    ----------
    specs : paths or SweepSpec
        The sweeps; their names must differ.
    out : path
        Results folder; each sweep writes ``out/<sweep>/`` and the index ``out/report.md`` covers every
        sweep folder found there.
    workers : int
        Local processes running points at once (1: in this process).
    scheduler : str or None
        Address of a dask.distributed scheduler (``tcp://host:8786``); overrides ``workers``.
    force : bool
        Run points even when a previous run finished them.
    cell_timeout : float, optional
        Seconds a single cell may run (papermill ``execution_timeout``).

    Returns
    -------
    SweepSummary
        Every point's record; ``n_failed`` counts the failed points (a skipped point is a finished,
        "ok" one).

    Raises
    ------
    SweepError
        ``out`` is a file or cannot be written, another sweep holds it (``out/.privnb-sweep.lock``), or
        the scheduler cannot be reached.
    SweepInterrupted
        SIGINT or SIGTERM arrived: running points were stopped (their kernels too), queued ones never
        started, and the tables and reports were written for what finished; running again resumes.
    """
    from tqdm import tqdm

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    specs = [s if isinstance(s, SweepSpec) else load_spec(s) for s in specs]
    names = [s.name for s in specs]
    if not specs:
        raise ValueError("no sweep specs given")
    if len(set(names)) != len(names):
        raise ValueError(f"two specs share a sweep name: {names}; rename one file")
    out = Path(out).resolve()
    _check_out(out)
    plan = {s.name: s.points(out) for s in specs}
    stop = _Stop()
    with lock_results(out), _catch_signals(stop, serial=scheduler is None and workers == 1):
        records, todo, notes = {}, [], []
        for spec in specs:
            sweep_dir = out / spec.name
            sweep_dir.mkdir(parents=True, exist_ok=True)
            records[spec.name] = {}
            for point in plan[spec.name]:
                if not force and _is_done(point, notes):
                    records[spec.name][point.point_id] = {
                        **_read_json(Path(point.output_dir) / "point.json"),
                        "cached": True,
                    }
                    if previous_dir(point.output_dir).exists():  # debris of a run interrupted at its end
                        shutil.rmtree(previous_dir(point.output_dir))
                else:
                    records[spec.name][point.point_id] = {
                        "point": point.point_id,
                        "parameters": point.parameters,
                        "status": "pending",
                        "error": "",
                    }
                    todo.append(point)
            _write_points_json(spec, plan[spec.name], records[spec.name])
        options = {"kernel_name": kernel_name, "cell_timeout": cell_timeout}
        skipped = sum(len(plan[n]) for n in names) - len(todo)
        bar = tqdm(total=len(todo), disable=not progress, desc="sweep points", unit="point")
        for note in notes:
            bar.write(note)
        if skipped and progress:
            bar.write(f"skipping {skipped} finished point(s); --force runs them again")
        with bar:
            stop.running = True
            try:
                for point, record in _execute(todo, workers=workers, scheduler=scheduler, options=options, stop=stop):
                    records[point.sweep][point.point_id] = record
                    bar.set_postfix_str(f"{point.sweep}/{point.point_id}: {record['status']}")
                    bar.update()
            except KeyboardInterrupt:
                if not stop:
                    raise
            finally:
                stop.running = False
        if stop:
            for spec in specs:
                for record in records[spec.name].values():
                    if record["status"] == "pending":
                        record["error"] = "not run: the sweep was interrupted; run it again to resume"
        for spec in specs:
            _write_points_json(spec, plan[spec.name], records[spec.name])
            write_sweep_outputs(out / spec.name)
        write_index(out)
    summary = SweepSummary(str(out), {n: [records[n][p.point_id] for p in plan[n]] for n in names}, notes)
    if stop:
        raise SweepInterrupted(stop.signum, summary)
    return summary


def _write_points_json(spec: SweepSpec, points: list[Point], records: dict) -> None:
    _write_json(
        Path(points[0].output_dir).parent / "points.json",
        {
            "sweep": spec.name,
            "spec": asdict(spec),
            "points": [{k: v for k, v in records[p.point_id].items() if k != "traceback"} for p in points],
        },
    )
