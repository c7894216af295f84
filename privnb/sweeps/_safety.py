"""Safety of a sweep: its results folder (checked, then locked by one run) and signal handling.

One sweep at a time writes to ``out``: :func:`lock_results` holds ``out/.privnb-sweep.lock`` and writes the
run's id into it; a point's process writes its record only while the lock still names its run
(:class:`RunOwner`), so a process left over from a killed sweep can never write over a newer run's results.
SIGINT, SIGTERM and SIGHUP set a :class:`StopFlag` that :mod:`privnb.sweeps.runner` reads to stop the
running points and write the reports; a worker's kernels are killed with whatever they started
(:func:`stop_kernels`).
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class SweepError(ValueError):
    """A sweep that cannot start: an unusable ``out`` folder, another sweep holding it, an unreachable scheduler."""


def stop_kernels() -> None:
    """Kill this process's kernels (jupyter starts each in its own session) with whatever they started."""
    import psutil

    for child in psutil.Process().children():
        try:
            if os.getpgid(child.pid) == child.pid:
                os.killpg(child.pid, signal.SIGKILL)
            else:
                child.kill()
        except (OSError, psutil.Error):
            pass


class StopFlag:
    """Set by SIGINT, SIGTERM or SIGHUP while a sweep runs."""

    def __init__(self):
        self.signum = None
        self.running = False  # a serial sweep runs a point in this process: break out of it

    def __bool__(self):
        return self.signum is not None


def check_out(out: Path, sweeps: Mapping[str, Sequence[str]] | None = None) -> None:
    """Refuse an ``out`` that is a file, cannot be created or written, or holds files privnb did not write.

    privnb writes ``report.md``, ``report.html``, ``results.parquet`` and ``_static`` (:data:`OUTPUT_NAMES`)
    in a results folder it owns: a new or empty one, or one holding its lock file (:data:`LOCK_NAME`, left by
    every earlier sweep). A folder without it that holds any of these names is refused, as is a sweep's folder
    (``out/<sweep>``) without ``points.json`` that holds anything but the folders of its points (which a run
    cut short leaves); other files are left alone beside the results.

    Parameters
    ----------
    out : Path
        The results folder (created if missing).
    sweeps : mapping, optional
        The sweeps about to write ``out/<sweep>/``: sweep name -> its point ids.

    Raises
    ------
    SweepError
        Naming the folder and what is wrong with it.
    """
    if out.exists() and not out.is_dir():
        raise SweepError(f"--out {out} is a file, not a folder; choose a folder for the results")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepError(f"cannot create the results folder {out}: {error.strerror or error}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise SweepError(f"cannot write to the results folder {out} (permission denied); choose another --out")
    if not (out / LOCK_NAME).exists():
        foreign = [name for name in OUTPUT_NAMES if (out / name).exists()]
        if foreign:
            raise SweepError(
                f"--out {out} holds {', '.join(foreign)}, which privnb did not write (it has no {LOCK_NAME}); "
                "privnb would replace them: choose another --out or move them"
            )
    for name, points in (sweeps or {}).items():
        folder = out / name
        if not folder.is_dir() or (folder / "points.json").exists():
            continue
        ours = {*points, *(f"{point}.previous" for point in points)}
        if any(p.name not in ours or not p.is_dir() for p in folder.iterdir()):
            raise SweepError(
                f"--out {out}: the sweep folder {folder} holds files privnb did not write (it has no points.json); "
                "choose another --out or move them"
            )


LOCK_NAME = ".privnb-sweep.lock"
#: What a sweep writes at the top of its results folder (besides the lock and the sweeps' folders).
OUTPUT_NAMES = ("report.md", "report.html", "results.parquet", "_static")


@dataclass(frozen=True)
class RunOwner:
    """The run that holds a results folder's lock: a point is written only while :meth:`owns` holds."""

    lock: str
    run_id: str

    def owns(self) -> bool:
        """Whether the lock file still names this run (a killed sweep's lock is released, and emptied or
        taken by the next run).
        """
        try:
            return f"run {self.run_id}," in Path(self.lock).read_text(encoding="utf-8")
        except OSError:
            return False


@contextmanager
def lock_results(out: Path) -> Iterator[RunOwner]:
    """Hold ``out/.privnb-sweep.lock`` for the sweep: a second sweep on the same folder is refused.

    Parameters
    ----------
    out : Path
        The results folder.

    Yields
    ------
    RunOwner
        This run: the lock file and a fresh run id written into it.
    """
    import fcntl

    path = out / LOCK_NAME
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (closed by the with block below)
    except OSError as error:
        raise SweepError(f"cannot write to the results folder {out}: {error.strerror or error}") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise SweepError(
                f"another sweep ({holder}) is writing to {out}; wait for it to finish, or use another --out"
            ) from None
        owner = RunOwner(str(path), uuid.uuid4().hex[:12])
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            handle.seek(0)
            handle.truncate()
            os.write(handle.fileno(), f"pid {os.getpid()}, run {owner.run_id}, started {started}".encode())
        except OSError as error:  # a full disk
            fcntl.flock(handle, fcntl.LOCK_UN)
            raise SweepError(f"cannot write the lock file {path}: {error.strerror or error}") from None
        try:
            yield owner
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def catch_signals(stop: StopFlag, serial: bool) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP set ``stop``; in a serial sweep they also stop the kernel and break out.

    Parameters
    ----------
    stop : StopFlag
        Set to the first signal that arrives.
    serial : bool
        Whether points run in this process (then the handler stops the kernel and raises KeyboardInterrupt).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        first = not stop
        stop.signum = stop.signum or signum
        if serial and first and stop.running:
            stop_kernels()
            raise KeyboardInterrupt

    saved = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
