"""Safety of a sweep: its results folder (checked, then locked) and SIGINT / SIGTERM handling.

One sweep at a time writes to ``out`` (``out/.privnb-sweep.lock``, :func:`lock_results`); SIGINT and
SIGTERM set a :class:`_Stop` that :mod:`privnb.workbench.runner` reads to stop the running points and
write the reports; a worker's kernels are killed with whatever they started (:func:`_stop_kernels`).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path


class SweepError(ValueError):
    """A sweep that cannot start: an unusable ``out`` folder, another sweep holding it, an unreachable scheduler."""


def _stop_kernels() -> None:
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


class _Stop:
    """Set by SIGINT/SIGTERM while a sweep runs."""

    def __init__(self):
        self.signum = None
        self.running = False  # a serial sweep runs a point in this process: break out of it

    def __bool__(self):
        return self.signum is not None


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise SweepError(f"--out {out} is a file, not a folder; choose a folder for the results")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepError(f"cannot create the results folder {out}: {error.strerror or error}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise SweepError(f"cannot write to the results folder {out} (permission denied); choose another --out")


LOCK_NAME = ".privnb-sweep.lock"


@contextmanager
def lock_results(out: Path) -> Iterator[None]:
    """Hold ``out/.privnb-sweep.lock`` for the sweep: a second sweep on the same folder is refused."""
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
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}, started {datetime.now(timezone.utc).isoformat(timespec='seconds')}")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def _catch_signals(stop: _Stop, serial: bool) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop``; in a serial sweep they also stop the kernel and break out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        first = not stop
        stop.signum = stop.signum or signum
        if serial and first and stop.running:
            _stop_kernels()
            raise KeyboardInterrupt

    saved = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
