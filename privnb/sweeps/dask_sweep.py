"""Sweeps on a dask.distributed cluster: the client's side (connect, check the workers, submit, stop, lose the
scheduler) and the task each point runs on a worker.

Before the sweep takes its results folder, :func:`connect` reaches the scheduler and :func:`check_workers`
asks every worker whether the kernel is installed. Each point is a task (:func:`run_remote_point`) that, on
its worker, caps its kernel's BLAS / OpenMP threads at the worker's share of the cores (as a local worker
process does), holds the point's lock (:mod:`privnb.sweeps._point_lock`: a point is never run by two
processes at once, nor started while an orphan of an earlier run still writes its folder) and runs the point
in a thread while it watches two things: the sweep's stop event (set by the client on SIGINT, SIGTERM or
SIGHUP) and its own task's state on the worker (released when the client dies or cancels it). Either stops
the point's kernel at once; nothing is recorded for the stopped point, and the client waits for its tasks to
report back before it lets go of the results folder, so points that finish meanwhile are kept.

A task run again because its worker died records the attempts before it (``retries`` in ``point.json``:
worker, host, pid, start); every dask point records its ``worker`` and ``host``. A point "skipped" on a worker
because a data file is missing there, while the client has the file, is failed, naming the worker and host:
which points are lost must not depend on where dask put them. A lost scheduler ends the sweep with
:class:`SchedulerLost`; the runner keeps what finished and writes the reports.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError, ThreadPoolExecutor
from concurrent.futures import wait as wait_thread
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from privnb.sweeps._kernels import kernel_problem, limit_threads, stop_kernel
from privnb.sweeps._point_lock import hold_point
from privnb.sweeps._safety import StopFlag, SweepError
from privnb.sweeps.point_run import KERNEL_LOG, lost_record, run_point
from privnb.sweeps.spec import Point, write_json

SCHEDULER_TIMEOUT = "10s"  # how long connecting to the scheduler may take
_POLL_S = 0.5  # how often a task looks at its stop event and its own state, and the client at its futures
_ORPHAN_WAIT_S = 120.0  # how long a task waits for an earlier run's orphan to stop and let go of its point
_STOP_WAIT_S = 120.0  # how long the client waits, once stopped, for its running tasks to report back


class SchedulerLost(SweepError):
    """The connection to the dask scheduler broke while the sweep ran."""


def _connect(scheduler: str):
    from distributed import Client

    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise SweepError(
            f"cannot reach the dask scheduler at {scheduler!r} ({type(error).__name__}: "
            f"{error}); start it (dask scheduler) or check the address"
        ) from None


@contextmanager
def connect(scheduler: str, kernel_name: str) -> Iterator:
    """A ``distributed.Client`` connected to ``scheduler`` whose workers all have the kernel; closed at the end.

    While it is held, the client's own log stays quiet (a lost scheduler is reported once, by the sweep).

    Parameters
    ----------
    scheduler : str
        The scheduler's address (``tcp://host:8786``).
    kernel_name : str
        The kernel the points run in (:func:`check_workers`).

    Raises
    ------
    SweepError
        The scheduler cannot be reached, or a worker lacks the kernel.
    """
    client = _connect(scheduler)
    log = logging.getLogger("distributed.client")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        check_workers(client, kernel_name)
        yield client
    finally:
        with suppress(OSError, TimeoutError):
            client.close(timeout=None if client.status == "running" else 1)
        log.setLevel(level)


def _worker_facts(kernel_name: str) -> dict:
    return {"host": socket.gethostname(), "problem": kernel_problem(kernel_name)}


def check_workers(client, kernel_name: str) -> None:
    """Refuse a cluster on which a worker lacks the Jupyter kernel (each worker checks its own).

    Parameters
    ----------
    client : distributed.Client
        The connected client.
    kernel_name : str
        The kernel the points run in.

    Raises
    ------
    SweepError
        Naming each worker, its host and what is missing there.
    """
    facts = client.run(_worker_facts, kernel_name)
    problems = [
        f"dask worker {address} (host {f['host']}): {f['problem']}" for address, f in facts.items() if f["problem"]
    ]
    if problems:
        raise SweepError("; ".join(problems) + "; every worker needs privnb's environment and its kernel")


@dataclass(frozen=True)
class _StoppableOwner:
    """The sweep's run owner, refusing to record once the point was stopped on its worker."""

    owner: object
    stopped: threading.Event

    @property
    def lock(self) -> str:
        return self.owner.lock

    def owns(self) -> bool:
        return not self.stopped.is_set() and self.owner.owns()


def _not_run(point: Point) -> dict:
    return {"point": point.point_id, "parameters": point.parameters, "status": "pending", "error": ""}


def _told_to_stop(stop_event, worker, key: str) -> bool:
    """The sweep was stopped, the client let go of this task (it died or cancelled it), or the scheduler is gone."""
    task = worker.state.tasks.get(key)
    if task is None or task.state not in ("executing", "long-running"):
        return True
    try:
        return stop_event.is_set()
    except Exception:  # the scheduler cannot be asked: the sweep cannot record this point any more
        return True


def run_remote_point(point: Point, options: dict, stop_name: str) -> dict:
    """A dask task: run ``point`` on this worker, and stop its kernel as soon as the sweep stops or lets go.

    Parameters
    ----------
    point : Point
        The point.
    options : dict
        :func:`privnb.sweeps.point_run.run_point`'s keywords (``owner``: the sweep's run).
    stop_name : str
        The name of the sweep's ``distributed.Event`` that the client sets to stop every point.

    Returns
    -------
    dict
        The point's record; status "pending" (nothing recorded) when the point was stopped.
    """
    from distributed import Event, get_worker
    from distributed.worker import thread_state

    worker, key = get_worker(), thread_state.key
    stop_event = Event(stop_name)
    if _told_to_stop(stop_event, worker, key):
        return _not_run(point)
    limit_threads(worker.state.nthreads)
    owner = options["owner"]
    with hold_point(point, owner.run_id, wait_s=_ORPHAN_WAIT_S, worker=worker.address) as hold:
        stopped = threading.Event()
        about = {"worker": worker.address, "host": socket.gethostname()}
        if len(hold.attempts) > 1:
            about["retries"] = list(hold.attempts[:-1])
        log = Path(point.output_dir) / KERNEL_LOG
        with ThreadPoolExecutor(max_workers=1) as thread:
            running = thread.submit(
                run_point, point, **{**options, "owner": _StoppableOwner(owner, stopped), "about": about}
            )
            while not wait_thread([running], timeout=_POLL_S).done:
                if stopped.is_set() or _told_to_stop(stop_event, worker, key):
                    stopped.set()
                    stop_kernel(log)  # again each time: the kernel may start after the stop
            record = running.result()
    return _not_run(point) if stopped.is_set() else record


_MISSING_FILE = re.compile(r"^DataUnavailableError: data file '([^']+)'")


def _present_here(error: str) -> Path | None:
    """Where the client finds the data file a worker missed, or None (not a missing file, or missing here too)."""
    from privnb.data import FILES
    from privnb.data.sources import locate, search_dirs

    found = _MISSING_FILE.match(error)
    spec = FILES.get(found.group(1)) if found else None
    return locate(spec, search_dirs()[0]) if spec else None


def _checked(point: Point, record: dict) -> dict:
    """A point a worker skipped for a data file the client has is failed, naming the worker and host."""
    if record.get("status") != "skipped":
        return record
    here = _present_here(record.get("error", ""))
    if here is None:
        return record
    record = {
        **record,
        "status": "failed",
        "error": f"dask worker {record.get('worker')} (host {record.get('host')}) cannot see a data file that "
        f"this machine has at {here}: {record['error']} (give every worker the data: PRIVNB_DATA naming a "
        "folder on a shared disk)",
    }
    write_json(Path(point.output_dir) / "point.json", record)
    return record


def _scheduler_lost(client) -> bool:
    return client.status != "running"  # "connecting" again, "closing", "closed": the scheduler went away


def execute_dask(client, points: list[Point], options: dict, stop: StopFlag) -> Iterator[tuple[Point, dict]]:
    """Run ``points`` on the cluster; yield each with its record as it finishes.

    On ``stop``, every running task stops its point's kernel and the tasks are waited for (up to
    ``_STOP_WAIT_S``): points that finished meanwhile are yielded, stopped ones are not.

    Parameters
    ----------
    client : distributed.Client
        The connected client.
    points : list of Point
        The points to run.
    options : dict
        :func:`privnb.sweeps.point_run.run_point`'s keywords (``owner``: the sweep's run).
    stop : StopFlag
        Set by SIGINT, SIGTERM or SIGHUP.

    Raises
    ------
    SchedulerLost
        The scheduler went away; what finished before was yielded.
    """
    from distributed import Event

    stop_event = Event(f"privnb-stop-{options['owner'].run_id}", client=client)
    run_id = options["owner"].run_id
    futures = {  # in spec order, as a local sweep runs them (dask alone would not keep it)
        client.submit(
            run_remote_point,
            p,
            options,
            stop_event.name,
            pure=False,
            key=f"privnb {p.sweep}/{p.point_id} {run_id}",
            priority=len(points) - i,
        ): p
        for i, p in enumerate(points)
    }
    pending = set(futures)
    try:
        while pending and not stop:
            done, pending = _wait(client, pending, _POLL_S)
            yield from _records(client, futures, done)
        if pending:
            stop_event.set()
            done, pending = _wait(client, pending, _STOP_WAIT_S, every=True)
            yield from _records(client, futures, done)
    finally:
        if not _scheduler_lost(client):
            with suppress(OSError):  # lost meanwhile
                client.cancel(list(pending))
                stop_event.clear()


def _wait(client, pending: set, timeout: float, every: bool = False) -> tuple[set, set]:
    from distributed import wait

    try:
        done, pending = wait(pending, timeout=timeout, return_when="ALL_COMPLETED" if every else "FIRST_COMPLETED")
    except TimeoutError:
        done = {f for f in pending if f.done()}
        pending = pending - done
    except CancelledError:  # dask cancels every future of a client that lost its scheduler
        pass
    if _scheduler_lost(client) or any(f.cancelled() for f in pending):
        raise SchedulerLost(f"lost the dask scheduler at {client.scheduler.address}")
    return done, pending


def _records(client, futures: dict, done) -> Iterator[tuple[Point, dict]]:
    for future in done:
        point = futures[future]
        try:
            record = future.result()
        except Exception as error:  # the task failed outside run_point (its workers died, the point was busy)
            if _scheduler_lost(client):
                raise SchedulerLost(f"lost the dask scheduler at {client.scheduler.address}") from None
            record = lost_record(point, error)
        if record["status"] != "pending":
            yield point, _checked(point, record)
