"""One process at a time runs a point: a lock per point, ``<sweep>/.privnb-locks/<point>.lock``.

A point's lock is held while the point runs, by a one-point process of a job array
(:mod:`privnb.sweeps.one_point`) or by the task running it on a dask worker
(:mod:`privnb.sweeps.dask_sweep`), so that two processes never write one point's folder at once: a second
one-point process on the same point is refused, and a retried dask task waits for an orphan of an earlier run
(still stopping its kernel) to let go. The lock file holds JSON naming the holder (run id, pid, host, worker,
start time) and every attempt the same run made at the point: a dask task run again after its worker died
finds the attempts before it there (:attr:`PointHold.attempts`).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from privnb.sweeps._safety import SweepError
from privnb.sweeps.spec import Point

LOCKS_DIR = ".privnb-locks"


class PointBusy(SweepError):
    """Another process holds the point's lock (it is running the point)."""


def point_lock_path(point: Point) -> Path:
    """The lock file of ``point``: ``<sweep>/.privnb-locks/<point>.lock``.

    Parameters
    ----------
    point : Point
        The point.
    """
    return Path(point.output_dir).parent / LOCKS_DIR / f"{point.point_id}.lock"


@dataclass(frozen=True)
class PointHold:
    """A held point lock: the run holding it and every attempt this run made at the point, this one last.

    :meth:`owns` makes it a run owner for :func:`privnb.sweeps.point_run.run_point`: a point's record is
    written only while its lock still names this run.
    """

    lock: str
    run_id: str
    attempts: tuple[dict, ...]

    def owns(self) -> bool:
        """Whether the lock file still names this run."""
        return _read_holder(Path(self.lock)).get("run") == self.run_id


def _read_holder(path: Path) -> dict:
    try:
        holder = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def describe_holder(holder: dict) -> str:
    """``pid 123 on host node7 (worker tcp://...), run 3fa2..., since 2026-...``: who holds a point.

    Parameters
    ----------
    holder : dict
        The JSON of a point's lock file.
    """
    if not holder:
        return "another process"
    where = f"pid {holder.get('pid')} on host {holder.get('host')}"
    if holder.get("worker"):
        where += f" (dask worker {holder['worker']})"
    return f"{where}, run {holder.get('run')}, since {holder.get('started')}"


_POLL_S = 0.2


@contextmanager
def hold_point(point: Point, run_id: str, *, wait_s: float = 0.0, worker: str = "") -> Iterator[PointHold]:
    """Hold ``point``'s lock while the block runs; refuse (:class:`PointBusy`) when another process holds it.

    Parameters
    ----------
    point : Point
        The point.
    run_id : str
        The run taking the lock (a sweep's or a one-point process's id).
    wait_s : float
        How long to wait for a holder to let go before refusing (0: refuse at once).
    worker : str
        The dask worker's address, when a dask task takes the lock (recorded with the attempt).

    Yields
    ------
    PointHold
        The run and its attempts at the point.

    Raises
    ------
    PointBusy
        Naming the holder (pid, host, run, start) and what to do.
    """
    import fcntl

    path = point_lock_path(point)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise PointBusy(
                        f"point {point.point_id} of sweep {point.sweep} is being run by "
                        f"{describe_holder(_read_holder(path))}; wait for it to finish, or run another point"
                    ) from None
                time.sleep(_POLL_S)
        try:
            yield _take(handle, path, run_id, worker)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _take(handle, path: Path, run_id: str, worker: str) -> PointHold:
    """Write this process into the held lock file, after the attempts the same run made before."""
    before = _read_holder(path)
    attempt = {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "worker": worker,
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    attempts = [*before.get("attempts", []), attempt] if before.get("run") == run_id else [attempt]
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps({"run": run_id, **attempt, "attempts": attempts}))
    handle.flush()
    return PointHold(str(path), run_id, tuple(attempts))
