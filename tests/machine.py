"""Waits that follow the machine: tests that run real kernels wait for a file or a process with a bound that
grows with how slow this machine is now, so that CI on a busy machine does not fail for time.

A wait's budget is ``max(base_s, STARTS * start_s())`` seconds of an idle machine: :func:`start_s` measures,
once per session, how long a Python that imports what a kernel imports takes to start here; and time passes
more slowly against the budget while the machine is loaded (divided by the load average per core, re-read as
the wait goes on: a load of 30 on 2 cores makes every wait 15 times longer).
"""

import functools
import os
import subprocess
import sys
import time

import pytest

STARTS = 30  # a wait lasts at least this many measured kernel starts


def cores() -> int:
    """The CPU cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def load_factor() -> float:
    """How many times slower than idle the machine runs now: the 1-minute load average per core, at least 1."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return 1.0
    return max(1.0, load / cores())


@functools.cache
def start_s() -> float:
    """Seconds this machine took (once per session) to start a Python importing ipykernel and privnb, per unit of
    load (so that a measurement under load is not counted twice)."""
    begin = time.monotonic()
    subprocess.run([sys.executable, "-c", "import ipykernel.kernelapp, privnb.workbench"], check=True)
    return (time.monotonic() - begin) / load_factor()


def patience(base_s: float) -> float:
    """Seconds a wait of ``base_s`` on an idle machine may take here and now."""
    return max(base_s, STARTS * start_s()) * load_factor()


def wait_for(condition, what: str, base_s: float = 180.0):
    """Poll ``condition`` until it holds, and return its value; fail naming ``what`` when the budget is spent
    (``base_s`` of an idle machine, see the module docstring: a bounded wait, not a time limit on the test)."""
    budget = max(base_s, STARTS * start_s())
    spent, last = 0.0, time.monotonic()
    while True:
        value = condition()
        if value:
            return value
        if spent > budget:
            pytest.fail(f"gave up waiting for {what} after {budget:.0f} s of an idle machine's time")
        time.sleep(0.1)
        now = time.monotonic()
        spent += (now - last) / load_factor()
        last = now
