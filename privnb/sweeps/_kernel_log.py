"""A kernel's own output (its stdout and stderr, not the notebook's) copied into the point's ``kernel.log``,
bounded: at most :data:`KERNEL_LOG_BYTES`, then one line saying the rest was dropped. The kernel writes into a
pipe that a thread of the point's process drains, so that a kernel writing without end neither fills the disk
nor blocks, and a full disk stops the copy, never the kernel.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["KERNEL_LOG_BYTES", "bounded_log", "log_finished"]

#: The most bytes of a kernel's own output kept in its point's ``kernel.log``.
KERNEL_LOG_BYTES = 1 << 20
_CHUNK = 1 << 16
_COPIERS: dict[str, threading.Thread] = {}  # log path -> the thread copying into it
_LAST_WORDS_S = 10.0  # how long a finished kernel's last output may take to reach its log


@contextmanager
def bounded_log(path: str | os.PathLike, limit: int = KERNEL_LOG_BYTES) -> Iterator[int]:
    """Yield a file descriptor to give a child process as its stdout and stderr; what it writes there is
    appended to ``path`` up to ``limit`` bytes, the rest read and dropped (so the child never blocks).

    The descriptor is closed when the block ends (the child keeps its own copy); the copying thread ends when
    the child closes its end. A file that cannot be written (a full disk) stops the copying, not the child.

    Parameters
    ----------
    path : str or PathLike
        The log file (created when missing, appended to).
    limit : int
        The most bytes written to it.
    """
    log = open(path, "ab", buffering=0)  # noqa: SIM115 (the copying thread closes it)
    read_fd, write_fd = os.pipe()
    copier = threading.Thread(target=_copy, args=(read_fd, log, limit), name="privnb kernel log", daemon=True)
    copier.start()
    _COPIERS[os.fspath(path)] = copier
    try:
        yield write_fd
    finally:
        os.close(write_fd)


def _copy(read_fd: int, log, limit: int) -> None:
    """Copy the pipe into ``log`` until the writers close it, at most ``limit`` bytes."""
    written, writing = 0, True
    with log, os.fdopen(read_fd, "rb", buffering=0) as pipe:
        for chunk in iter(lambda: pipe.read(_CHUNK), b""):
            if not writing:
                continue
            try:
                part = chunk[: limit - written]
                log.write(part)
                written += len(part)
                if written >= limit:
                    log.write(f"\n[privnb: the kernel's output beyond {limit} bytes is not kept]\n".encode())
                    writing = False
            except OSError:  # a full disk: stop copying, keep draining
                writing = False


def log_finished(path: str | os.PathLike) -> None:
    """Wait (a few seconds at most) until the output of the kernels that wrote to ``path`` is all in it.

    Parameters
    ----------
    path : str or PathLike
        A log given to :func:`bounded_log`.
    """
    copier = _COPIERS.pop(os.fspath(path), None)
    if copier is not None:
        copier.join(_LAST_WORDS_S)
