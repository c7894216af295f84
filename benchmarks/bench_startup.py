"""Benchmark: start-up time of the ``privnb`` command for commands that need no notebook machinery.

Prints the best-of-N wall time of ``privnb --help`` and ``privnb data check privnb/data/cards/adult.yaml``
(each a fresh interpreter, ``python -m privnb``) next to ``python -c pass``, and their ratio
to it. Importing the workbench eagerly (nbformat, jsonschema, papermill) made both take 7-10 s.
Run: ``python benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPEATS = 5
CARD = Path(__file__).resolve().parents[1] / "privnb" / "data" / "cards" / "adult.yaml"
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "privnb --help": ["-m", "privnb", "--help"],
    "privnb data check adult.yaml": ["-m", "privnb", "data", "check", str(CARD)],
}


def best_time(arguments: list[str], repeats: int) -> float:
    """The shortest wall time of ``repeats`` runs of ``python <arguments>``, output discarded.

    Parameters
    ----------
    arguments : list of str
        The interpreter's arguments.
    repeats : int
        How many runs to time.
    """
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    timings = {name: best_time(arguments, REPEATS) for name, arguments in COMMANDS.items()}
    baseline = timings["python -c pass"]
    for name, seconds in timings.items():
        print(f"{name:30s} (best of {REPEATS}): {seconds:7.3f} s  ratio to python -c pass: {seconds / baseline:6.1f}x")


if __name__ == "__main__":
    main()
