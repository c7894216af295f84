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

A point whose ``point.json`` says "ok" and whose notebook exists is skipped unless ``force``; a failed
point is run again. Points run serially, in a local process pool (``workers``) or on a dask.distributed
cluster (``scheduler``: the workers must see the same file system and have privnb installed).
"""
from __future__ import annotations

import math
import os
import re
import shutil
import time
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from privnb.workbench.report import write_index, write_sweep_outputs
from privnb.workbench.spec import INJECTED, Point, SweepSpec, _read_json, _write_json, load_spec

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


_DATA_UNAVAILABLE = "DataUnavailableError"


def run_point(point: Point, *, kernel_name: str = "python3", cell_timeout: float | None = None) -> dict:
    """Execute one point with papermill and record the outcome; never raises for a failing notebook.

    The point runs in an empty folder; what a previous run left there is set aside as
    ``<point>.previous`` and deleted once the new run succeeds, so a failing ``--force`` re-run loses
    no results. The executed notebook is written to ``notebook.ipynb`` (also when a cell fails, for
    debugging); ``point.json`` is written last with ``status`` "ok", "failed" or "skipped" (the
    notebook raised ``privnb.datasets.DataUnavailableError``), the ``error`` (exception type and
    message), the ``traceback`` and the duration.
    """
    import papermill

    folder = Path(point.output_dir)
    previous = folder.with_name(folder.name + ".previous")
    if folder.exists():
        if previous.exists():
            shutil.rmtree(previous)
        os.replace(folder, previous)
    folder.mkdir(parents=True)
    partial = folder / ".notebook.part.ipynb"
    start = time.perf_counter()
    record = {"point": point.point_id, "parameters": point.parameters, "status": "ok", "error": "",
              "traceback": ""}
    try:
        # A fresh thread starts with empty contextvars, so nbclient makes its own event loop: jupyter_core
        # caches a loop in a context variable, and dask copies contexts into its task threads.
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(papermill.execute_notebook, point.notebook, str(partial),
                          parameters={**point.parameters, INJECTED: str(folder)}, kernel_name=kernel_name,
                          cwd=str(Path(point.notebook).parent), progress_bar=False,
                          execution_timeout=cell_timeout).result()
    except Exception as error:  # a failing point is recorded and the sweep goes on
        record.update(_failure(error))
    finally:
        if partial.exists():
            os.replace(partial, folder / "notebook.ipynb")
    if previous.exists():
        if record["status"] == "ok":
            shutil.rmtree(previous)
        else:
            record["error"] += f" (the previous run's files are kept in {previous.name})"
    record.update(duration_s=round(time.perf_counter() - start, 3),
                  finished=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _write_json(folder / "point.json", record)
    return record


def _failure(error: BaseException) -> dict:
    ename, evalue = getattr(error, "ename", None), getattr(error, "evalue", None)
    message = f"{ename}: {evalue}" if ename else f"{type(error).__name__}: {error}"
    if getattr(error, "exec_count", None) is not None:
        message += f" (in cell [{error.exec_count}])"
    # a notebook's error carries the cell's own traceback; anything else, the runner's
    text = str(error) if ename else "".join(traceback.format_exception(error))
    # a data set that is neither in PRIVNB_DATA nor downloadable skips the point (IPUMS, say), it is no failure
    status = "skipped" if ename == _DATA_UNAVAILABLE else "failed"
    return {"status": status, "error": message, "traceback": _ANSI.sub("", text).strip()[-4000:]}


def _lost(point: Point, error: BaseException) -> dict:
    """The record of a point whose worker died before it could write one."""
    record = {"point": point.point_id, "parameters": point.parameters, **_failure(error), "duration_s": math.nan,
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    Path(point.output_dir).mkdir(parents=True, exist_ok=True)
    _write_json(Path(point.output_dir) / "point.json", record)
    return record


def _execute(points: list[Point], *, workers: int, scheduler, options: dict) -> Iterator[tuple[Point, dict]]:
    """Run points serially, in a process pool or on a dask cluster; yield them as they finish."""
    if not points:
        return
    if scheduler is not None:
        from distributed import Client, as_completed
        with Client(scheduler) as client:
            yield from _gather({client.submit(run_point, p, pure=False, **options): p for p in points}, as_completed)
    elif workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
        with ProcessPoolExecutor(max_workers=min(workers, len(points)), mp_context=context) as pool:
            yield from _gather({pool.submit(run_point, p, **options): p for p in points}, as_completed)
    else:
        for point in points:
            yield point, run_point(point, **options)


def _gather(futures: dict, as_completed) -> Iterator[tuple[Point, dict]]:
    for future in as_completed(futures):
        point = futures[future]
        try:
            record = future.result()
        except Exception as error:  # the worker died: run_point could not record the point itself
            record = _lost(point, error)
        yield point, record


@dataclass
class SweepSummary:
    """What :func:`run_sweeps` did: per sweep, the point records (``cached`` True for skipped ones)."""
    out: str
    records: dict[str, list[dict]]

    @property
    def n_failed(self) -> int:
        return sum(r["status"] == "failed" for rs in self.records.values() for r in rs)

    @property
    def n_run(self) -> int:
        return sum(not r.get("cached") for rs in self.records.values() for r in rs)

    @property
    def n_points(self) -> int:
        return sum(len(rs) for rs in self.records.values())


def run_sweeps(specs: Iterable[str | os.PathLike | SweepSpec], *, out: str | os.PathLike = "results",
               workers: int = 1, scheduler=None, force: bool = False, progress: bool = True,
               kernel_name: str = "python3", cell_timeout: float | None = None) -> SweepSummary:
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
    plan = {s.name: s.points(out) for s in specs}
    records = {}
    todo = []
    for spec in specs:
        sweep_dir = out / spec.name
        sweep_dir.mkdir(parents=True, exist_ok=True)
        records[spec.name] = {}
        for point in plan[spec.name]:
            if point.done and not force:
                records[spec.name][point.point_id] = {**_read_json(Path(point.output_dir) / "point.json"), "cached": True}
            else:
                records[spec.name][point.point_id] = {"point": point.point_id, "parameters": point.parameters,
                                                      "status": "pending", "error": ""}
                todo.append(point)
        _write_points_json(spec, plan[spec.name], records[spec.name])
    options = {"kernel_name": kernel_name, "cell_timeout": cell_timeout}
    skipped = sum(len(plan[n]) for n in names) - len(todo)
    bar = tqdm(total=len(todo), disable=not progress, desc="sweep points", unit="point")
    if skipped and progress:
        bar.write(f"skipping {skipped} finished point(s); --force runs them again")
    with bar:
        for point, record in _execute(todo, workers=workers, scheduler=scheduler, options=options):
            records[point.sweep][point.point_id] = record
            bar.set_postfix_str(f"{point.sweep}/{point.point_id}: {record['status']}")
            bar.update()
    for spec in specs:
        _write_points_json(spec, plan[spec.name], records[spec.name])
        write_sweep_outputs(out / spec.name)
    write_index(out)
    return SweepSummary(str(out), {n: [records[n][p.point_id] for p in plan[n]] for n in names})


def _write_points_json(spec: SweepSpec, points: list[Point], records: dict) -> None:
    _write_json(Path(points[0].output_dir).parent / "points.json",
                {"sweep": spec.name, "spec": asdict(spec),
                 "points": [{k: v for k, v in records[p.point_id].items() if k != "traceback"} for p in points]})

