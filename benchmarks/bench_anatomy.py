"""Benchmark: anatomize + join on Adult (45,222 rows, sensitive education) at l = 5.

Prints the time of privnb.mechanisms.anatomize (vectorized) and of a row-by-row Python implementation of the same
bucketization (bucket lists, one heap step per group, one Python row per IT, ST and D_A row) run in
this process, and their ratio. Run: ``PRIVNB_DATA=../shared/data python benchmarks/bench_anatomy.py``.
"""

from __future__ import annotations

import heapq
import random
import time

import pandas as pd

from privnb.data import load_adult
from privnb.mechanisms import anatomize

L = 5
REPEATS = 5


def rowwise_anatomize_join(data: pd.DataFrame, sensitive: str, l: int, seed: int = 0) -> pd.DataFrame:
    """Xiao and Tao's bucketization and the join of Definition 12 of MC17, one row at a time."""
    rnd = random.Random(seed)
    buckets: dict = {}
    for label, value in zip(data.index, data[sensitive]):
        buckets.setdefault(value, []).append(label)
    values = sorted(buckets)
    for value in values:
        rnd.shuffle(buckets[value])
    heap = [(-len(buckets[v]), i) for i, v in enumerate(values)]
    heapq.heapify(heap)
    it_rows, st_rows = [], []
    gid = 0
    while len(heap) >= l:
        top = [heapq.heappop(heap) for _ in range(l)]
        for negative, i in top:
            label = buckets[values[i]].pop()
            it_rows.append((label, gid))
            st_rows.append((gid, values[i]))
            if negative + 1 < 0:
                heapq.heappush(heap, (negative + 1, i))
        gid += 1
    by_gid: dict = {}
    for g, value in st_rows:
        by_gid.setdefault(g, []).append(value)
    others = [c for c in data.columns if c != sensitive]
    records = data[others].to_dict("index")
    joined = []
    for label, g in it_rows:
        for value in by_gid[g]:
            row = dict(records[label])
            row[sensitive] = value
            row["row_id"] = label
            joined.append(row)
    return pd.DataFrame(joined)


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    adult = load_adult()
    data = adult.frame
    sensitive = adult.sensitive
    ours = best_time(lambda: anatomize(data, sensitive, L, random_state=0).join(), REPEATS)
    naive = best_time(lambda: rowwise_anatomize_join(data, sensitive, L), 1)
    anatomy = anatomize(data, sensitive, L, random_state=0)
    joined, baseline = anatomy.join(), rowwise_anatomize_join(data, sensitive, L)
    report = anatomy.suppression_report()
    same = (
        len(joined) == len(baseline)
        and joined[sensitive].value_counts().to_dict() == baseline[sensitive].value_counts().to_dict()
    )
    print(
        f"Adult: {len(data)} rows, sensitive {sensitive!r}, l={L}: {report['groups']} groups, "
        f"{report['rows_suppressed']} rows suppressed, D_A {len(joined)} rows "
        f"(row-by-row gives the same size and sensitive counts: {same})"
    )
    print(f"privnb anatomize+join  (best of {REPEATS}): {ours:8.3f} s")
    print(f"row-by-row Python      (1 run):     {naive:8.3f} s")
    print(f"ratio row-by-row / privnb: {naive / ours:.1f}x")


if __name__ == "__main__":
    main()
