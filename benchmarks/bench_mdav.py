"""MDAV on the k-d tree against the scan, on Adult's numeric quasi-identifiers replicated with noise.

The four numeric quasi-identifiers (age, capital-gain, capital-loss, hours-per-week), standardized, k = 5;
copies of Adult after the first moved by -1, 0 or +1 (``bench_attacks.replicated``). Prints the CPU seconds
(``time.process_time``: the machine may be shared) of both algorithms at 20k rows and their ratio (the groups
must be the same), then the tree's time at about 200k and 1M rows and its growth exponent. Usage:
``PRIVNB_DATA=... python benchmarks/bench_mdav.py [rows_compared] [largest_copies]``.
"""

import math
import sys
import time

import numpy as np
from bench_attacks import replicated

from privnb.data import load
from privnb.mechanisms.mdav import mdav_groups

K = 5


def timed(points, algorithm):
    """(CPU seconds, groups) of one MDAV run."""
    start = time.process_time()
    groups = mdav_groups(points, K, algorithm=algorithm)
    return time.process_time() - start, groups


def main(rows_compared: int = 20_000, largest_copies: int = 22) -> None:
    data = load("adult")
    numeric = [q for q in data.X.columns if data.kinds.get(q) == "numeric"]
    mdav_groups(np.random.default_rng(0).normal(size=(50, 2)), 2)  # compile (or load) the kernel first
    big = replicated(data.X[numeric], largest_copies, sensitive="").to_numpy(float)
    big = (big - big.mean(axis=0)) / big.std(axis=0)
    small = big[:rows_compared]
    t_tree, tree = timed(small, "tree")
    t_scan, scan = timed(small, "scan")
    same = "same groups" if (tree == scan).all() else "DIFFERENT GROUPS"
    print(f"MDAV, k={K}, Adult's {len(numeric)} numeric quasi-identifiers ({', '.join(numeric)}), standardized")
    print(f"  {len(small):,d} rows: scan {t_scan:.2f} s, tree {t_tree:.2f} s -> {t_scan / t_tree:.0f}x ({same})")
    times = {}
    for copies in (4, largest_copies):
        points = big[: len(data.X) * copies]
        times[len(points)], _ = timed(points, "tree")
        print(f"  {len(points):,d} rows: tree {times[len(points)]:.1f} s")
    (n0, t0), (n1, t1) = times.items()
    print(f"  growth: n^{math.log(t1 / t0) / math.log(n1 / n0):.2f} (the scan grows as n^1.95)")


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:3]])
