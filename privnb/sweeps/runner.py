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

A point is done, and skipped unless ``force``, when its ``point.json`` says "ok", its notebook exists, its
results.parquet (if any) can be read and the record was made with the parameters and notebook code the spec
asks for now (:mod:`privnb.sweeps.freshness`); any other point is run again. A point's last good results wait in
``<sweep>/<point>.previous`` while it runs again and survive every failing run. Points run serially, each
in a process of its own (``workers`` at a time), or on a dask.distributed cluster (``scheduler``: the
workers must see the same file system and have privnb installed; :mod:`privnb.sweeps.dask_sweep`), or one
point alone for a job array (:mod:`privnb.sweeps.one_point`). One sweep at a time writes to ``out``
(``out/.privnb-sweep.lock``, which names the run: a process left over from a killed sweep never records a
point over a newer run's); a point's process dies with the sweep, and its kernel with it. SIGINT, SIGTERM
and SIGHUP stop the running points and write the reports.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from privnb.sweeps._kernels import die_with_parent, kernel_problem, limit_threads, skip_iri_parser
from privnb.sweeps._safety import (  # noqa: F401  (LOCK_NAME, SweepError: re-exported)
    LOCK_NAME,
    STOP_SIGNALS,
    StopFlag,
    SweepError,
    catch_signals,
    check_out,
    lock_results,
    stop_kernels,
)
from privnb.sweeps.dask_sweep import SchedulerLost, connect, execute_dask
from privnb.sweeps.freshness import point_state
from privnb.sweeps.point_run import lost_record, previous_dir, run_point
from privnb.sweeps.report import unwritten, write_index, write_sweep_outputs
from privnb.sweeps.spec import Point, SweepSpec, load_spec, read_json, write_json


class SweepInterrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP stopped the sweep; finished points are kept and the reports written.

    Parameters
    ----------
    signum : int
        The signal.
    summary : SweepSummary
        What the sweep did before it stopped.
    """

    def __init__(self, signum: int, summary: SweepSummary):
        self.signum, self.summary = signum, summary
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class WorkerDied(RuntimeError):
    """The process running a point ended without a record (killed from outside, out of memory)."""


def _worker_main(point: Point, options: dict, connection, parent_pid: int, workers: int) -> None:
    """A point's own process: run it, send the record; SIGTERM stops its kernel and ends it at once.

    It gets SIGTERM when the sweep dies, however it dies (its kernel polls this process and follows it), and
    caps the BLAS / OpenMP threads of its kernel at its share of the cores.
    """

    def stop(signum, frame):
        stop_kernels()
        os._exit(128 + signum)

    for signum in STOP_SIGNALS:  # the sweep decides; a terminal's Ctrl-C and hang-up reach us too
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)
    die_with_parent(parent_pid, signal.SIGTERM)
    limit_threads(workers)
    skip_iri_parser()
    connection.send(run_point(point, **options))
    connection.close()


def _execute(
    points: list[Point], *, workers: int, client, options: dict, stop: StopFlag
) -> Iterator[tuple[Point, dict]]:
    """Run points serially, in processes of their own or on a dask cluster (``client``); yield them as they
    finish.
    """
    if not points:
        return
    if client is not None:
        yield from execute_dask(client, points, options, stop)
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
                    target=_worker_main,
                    args=(point, options, send, os.getpid(), workers),
                    daemon=True,
                    name=f"privnb point {point.point_id}",
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
                    record = lost_record(
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


def _is_done(point: Point, notes: list[str]) -> bool:
    state = point_state(point)
    if state.damaged:
        notes.append(f"{point.sweep}/{point.point_id}: {state.reason}; running the point again")
    return state.done


@dataclass
class SweepSummary:
    """What :func:`run_sweeps` did: per sweep, the point records (``cached`` True for skipped ones)."""

    out: str
    records: dict[str, list[dict]]
    notes: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # tables and reports that could not be written, one line each

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

    A point that is done (:mod:`privnb.sweeps.freshness`: an "ok" record of the same parameters and
    notebook code) is skipped unless ``force``.

    Parameters
    ----------
    specs : paths or SweepSpec
        The sweeps; their names must differ.
    out : path
        Results folder; each sweep writes ``out/<sweep>/`` and the index ``out/report.md`` covers every
        sweep folder found there.
    workers : int
        Local processes running points at once (1: in this process); each caps its kernel's BLAS / OpenMP
        threads at ``max(1, cores // workers)``.
    scheduler : str or None
        Address of a dask.distributed scheduler (``tcp://host:8786``); overrides ``workers``.
    force : bool
        Run points even when a previous run finished them.
    progress : bool
        Show a progress bar.
    kernel_name : str
        The Jupyter kernel the notebooks run in (checked before anything runs: here, or on every worker of
        the ``scheduler``).
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
        ``out`` is a file or cannot be written, another sweep holds it (``out/.privnb-sweep.lock``), the
        kernel is not installed (here or on a dask worker), or the scheduler cannot be reached; nothing is
        written then.
    SchedulerLost
        The dask scheduler went away while the sweep ran: the points finished by then are kept (also those
        whose results never reached this client), the others are "pending", the tables and reports are
        written; ``summary`` holds the :class:`SweepSummary`.
    SweepInterrupted
        SIGINT, SIGTERM or SIGHUP arrived: running points were stopped (their kernels too), queued ones never
        started, and the tables and reports were written for what finished; running again resumes.
    """
    specs = _load_specs(specs, workers)
    out = Path(out).resolve()
    lost = None
    with _backend(scheduler, kernel_name) as client:
        plan = {s.name: s.points(out) for s in specs}
        check_out(out, {name: [p.point_id for p in points] for name, points in plan.items()})
        stop = StopFlag()
        with lock_results(out) as owner, catch_signals(stop, serial=client is None and workers == 1):
            records, todo, notes = _plan(specs, plan, force)
            options = {"kernel_name": kernel_name, "cell_timeout": cell_timeout, "owner": owner}
            run = {"workers": workers, "client": client, "options": options, "stop": stop}
            started = datetime.now(timezone.utc).isoformat(timespec="seconds")
            try:
                _run_points(
                    todo, records, run, progress=progress, notes=notes, skipped=sum(map(len, plan.values())) - len(todo)
                )
            except SchedulerLost as error:
                lost = error
            if client is not None:
                _recover_finished(todo, records, started)
            if stop or lost:
                _mark_not_run(
                    records, f"lost the dask scheduler at {scheduler}" if lost else "the sweep was interrupted"
                )
            missing = _write_outputs(specs, plan, records, out)
    summary = SweepSummary(
        str(out), {s.name: [records[s.name][p.point_id] for p in plan[s.name]] for s in specs}, notes, missing
    )
    if lost:
        lost.summary = summary
        raise lost
    if stop:
        raise SweepInterrupted(stop.signum, summary)
    return summary


def _write_outputs(specs, plan, records, out: Path) -> list[str]:
    """Each sweep's points.json, tables and report, then the index: what a full disk (or a read-only folder)
    kept from being written is returned, the rest is written.
    """
    missing = []
    for spec in specs:
        what = str(out / spec.name / "points.json")
        missing += unwritten(write_points_json, spec, plan[spec.name], records[spec.name], what=what)
        missing += unwritten(write_sweep_outputs, out / spec.name)
    return missing + unwritten(write_index, out)


def _load_specs(specs, workers: int) -> list[SweepSpec]:
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    specs = [s if isinstance(s, SweepSpec) else load_spec(s) for s in specs]
    names = [s.name for s in specs]
    if not specs:
        raise ValueError("no sweep specs given")
    if len(set(names)) != len(names):
        raise ValueError(f"two specs share a sweep name: {names}; rename one file")
    return specs


def check_kernel(kernel_name: str) -> None:
    """Refuse a Jupyter kernel that is not installed here.

    Parameters
    ----------
    kernel_name : str
        The kernel's name.

    Raises
    ------
    SweepError
        Naming the kernel and those installed.
    """
    problem = kernel_problem(kernel_name)
    if problem:
        raise SweepError(problem)


@contextmanager
def _backend(scheduler, kernel_name: str) -> Iterator:
    """The dask client (None for local points), connected and checked before the results folder is touched."""
    if scheduler is None:
        check_kernel(kernel_name)
        yield None
        return
    with connect(scheduler, kernel_name) as client:
        yield client


def _plan(specs: list[SweepSpec], plan: dict, force: bool) -> tuple[dict, list[Point], list[str]]:
    """Every point's record so far (a done point's own, "pending" for the others) and the points to run."""
    records, todo, notes = {}, [], []
    for spec in specs:
        Path(plan[spec.name][0].output_dir).parent.mkdir(parents=True, exist_ok=True)
        records[spec.name] = {}
        for point in plan[spec.name]:
            if not force and _is_done(point, notes):
                records[spec.name][point.point_id] = {
                    **read_json(Path(point.output_dir) / "point.json"),
                    "cached": True,
                }
                if previous_dir(point.output_dir).exists():  # debris of a run interrupted at its end
                    shutil.rmtree(previous_dir(point.output_dir))
            else:
                pending = {"point": point.point_id, "parameters": point.parameters, "status": "pending", "error": ""}
                records[spec.name][point.point_id] = pending
                todo.append(point)
        write_points_json(spec, plan[spec.name], records[spec.name])
    return records, todo, notes


def _run_points(todo: list[Point], records: dict, run: dict, *, progress: bool, notes: list[str], skipped: int) -> None:
    """Run the points (``run``: the keywords of :func:`_execute`) with a progress bar; record each one."""
    from tqdm import tqdm

    stop = run["stop"]
    bar = tqdm(total=len(todo), disable=not progress, desc="sweep points", unit="point")
    for note in notes:
        bar.write(note)
    if skipped and progress:
        bar.write(f"skipping {skipped} finished point(s); --force runs them again")
    if todo:  # a point is a whole notebook run: the first line comes after minutes without this one
        sweeps = ", ".join(dict.fromkeys(point.sweep for point in todo))
        workers = "a dask cluster" if run["client"] is not None else f"{run['workers']} worker(s)"
        bar.write(
            f"running {len(todo)} point(s) of {sweeps} on {workers}: each point executes a notebook (a minute or "
            "more), each is reported as it finishes"
        )
    with bar:
        stop.running = True
        try:
            for point, record in _execute(todo, **run):
                records[point.sweep][point.point_id] = record
                if record.get("retries"):
                    bar.write(_retried(point, record))
                bar.set_postfix_str(f"{point.sweep}/{point.point_id}: {record['status']}")
                bar.update()
        except KeyboardInterrupt:
            if not stop:
                raise
        finally:
            stop.running = False


def _retried(point: Point, record: dict) -> str:
    before = ", ".join(f"dask worker {a['worker']} (host {a['host']}, {a['started']})" for a in record["retries"])
    return (
        f"{point.sweep}/{point.point_id}: ran again on dask worker {record['worker']} (host {record['host']}): "
        f"the worker(s) running it before died: {before}"
    )


def _mark_not_run(records: dict, why: str) -> None:
    for sweep in records.values():
        for record in sweep.values():
            if record["status"] == "pending":
                record["error"] = f"not run: {why}; run it again to resume"


def _recover_finished(todo: list[Point], records: dict, started: str) -> None:
    """Record the points a dask worker finished in this run (its point.json says so) whose result never
    reached this client (the sweep stopped, or lost its scheduler, first).
    """
    for point in todo:
        if records[point.sweep][point.point_id]["status"] != "pending" or not point_state(point).done:
            continue
        record = read_json(Path(point.output_dir) / "point.json")
        if record.get("finished", "") >= started:
            records[point.sweep][point.point_id] = record


def write_points_json(spec: SweepSpec, points: list[Point], records: dict) -> None:
    """Write the sweep's index, ``<sweep>/points.json``: the spec and every point's record (no tracebacks).

    Parameters
    ----------
    spec : SweepSpec
        The sweep.
    points : list of Point
        Its points, in order.
    records : dict
        Point id -> the point's record.
    """
    write_json(
        Path(points[0].output_dir).parent / "points.json",
        {
            "sweep": spec.name,
            "spec": asdict(spec),
            "points": [{k: v for k, v in records[p.point_id].items() if k != "traceback"} for p in points],
        },
    )
