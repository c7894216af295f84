"""Benchmark privnb.mechanisms' generalizers on Adult: full-domain lattice search and Mondrian.

Times are CPU seconds of this process (``time.process_time``: the machine may be shared;
ratios are measured in the same process). Printed:

- full-domain, all of Adult (45,222 rows, its 10 quasi-identifiers, ``adult_hierarchies()``,
  k = 5, 2% suppression), ours against a naive check: the same lattice search
  (``_classify_lattice``), each node's group sizes by ``np.unique`` over all rows' codes at
  that node. The naive check is timed on a sample of the nodes our search checks and scaled
  to all of them (``--full-naive`` runs the whole naive search, about a minute or two, and
  asserts that it finds the same minimal nodes).
- full-domain on one training fold of Adult (9/10 of it, stratified, seed 0), k = 2..5 as the papers'
  grids fit it: today's path (a fresh lattice per k, as scikit-learn clones got before lattices were
  shared by content; the numpy roll-up) against one lattice shared by every k (numba's compiled roll-up
  when installed), and against a new process that finds the fold in the disk cache.
- full-domain on ARX's task (adult.data without missing values, ARX's 9 hierarchies), the search at 0%
  suppression for k = 2 / 5 / 10 against ARX 3.9.2 warm (measured earlier: 69 / 56 / 47 ms), and the
  whole fit at k = 5 next to ARX's published figures (Flash in Java: 28 ms; Incognito: 1.18 s).

The disk cache (``PRIVNB_CACHE``) is off except where a line says it is used.
- Mondrian on all of Adult, and against the same median partitioning written on pandas
  DataFrame slices, on a sample of rows.

Run: ``PRIVNB_DATA=../shared/data .venv/bin/python benchmarks/bench_generalize.py``
"""

import argparse
import math
import os
import tempfile
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

import privnb.mechanisms._rollup as rollup_module
from privnb.data import ARX_ADULT_ATTRIBUTES, Hierarchy, adult_hierarchies, load_adult, load_adult_hierarchies
from privnb.mechanisms import FullDomainGeneralizer, FullDomainLattice, MondrianGeneralizer
from privnb.mechanisms._group_kernel import rollup_counts
from privnb.mechanisms.lattice import _classify_lattice, minimal_nodes

ARX_QI = list(ARX_ADULT_ATTRIBUTES)
K = 5
ARX_WARM_MS = {2: 69, 5: 56, 10: 47}  # ARX 3.9.2, warm, 0% suppression (measured in an earlier session)


def timed(fn, repeat=1, disk_cache=None):
    """Best CPU time of ``repeat`` runs, each with a fresh full-domain lattice (none remembered from before,
    in memory or, unless ``disk_cache`` names a folder, on disk).
    """
    best, out = np.inf, None
    before = os.environ.get("PRIVNB_CACHE")
    os.environ["PRIVNB_CACHE"] = disk_cache or "off"
    try:
        for _ in range(repeat):
            FullDomainLattice.clear_cache()
            t = time.process_time()
            out = fn()
            best = min(best, time.process_time() - t)
    finally:
        if before is None:
            del os.environ["PRIVNB_CACHE"]
        else:
            os.environ["PRIVNB_CACHE"] = before
    return best, out


def naive_check(frame, hierarchies, qi, k, budget):
    """A node check by np.unique over every row's codes at the node (no roll-up, no cache)."""
    codes = {
        a: [pd.factorize(frame[a])[0]]
        + [hierarchies[a].codes(frame[a], lv) for lv in range(1, hierarchies[a].n_levels)]
        for a in qi
    }
    radix = {a: int(codes[a][0].max()) + 1 for a in qi}

    def suppressed(node) -> int:
        key = np.zeros(len(frame), dtype=np.int64)
        for a, lv in zip(qi, node):
            key = key * radix[a] + codes[a][lv]  # Adult: the product of radices fits in int64
        sizes = np.unique(key, return_counts=True)[1]
        return int(sizes[sizes < k].sum())

    return suppressed


def full_domain_adult(full_naive: bool):
    full = load_adult()
    hierarchies = adult_hierarchies()
    qi, frame = list(full.quasi_identifiers), full.frame
    budget = math.floor(0.02 * len(frame) + 1e-9)
    print(
        f"Full-domain k-anonymity, Adult ({len(frame)} rows, {len(qi)} quasi-identifiers), "
        f"k={K}, suppression <= 2% ({budget} rows)"
    )
    seconds, gen = timed(lambda: FullDomainGeneralizer(qi, K, hierarchies).fit(frame))
    print(
        f"  ours: {seconds:.2f} s; {gen.n_checks_} of {gen.lattice_size_} nodes checked; "
        f"{len(gen.minimal_nodes_)} minimal nodes; chosen {gen.node_} "
        f"({len(gen.suppressed_)} rows suppressed)"
    )
    suppressed = naive_check(frame, hierarchies, qi, K, budget)
    heights = np.array([hierarchies[a].n_levels for a in qi])
    if full_naive:

        def check(node):
            return suppressed(node.tolist()) <= budget

        naive, (nodes, anon, _n_checks) = timed(lambda: _classify_lattice(heights, check))
        minimal = {tuple(v) for v in nodes[minimal_nodes(nodes, heights, anon)].tolist()}
        assert minimal == {tuple(r) for r in gen.minimal_nodes_[qi].itertuples(index=False)}
        print(
            f"  naive (np.unique over the rows at each checked node, same search): {naive:.1f} s "
            f"-> ratio {naive / seconds:.1f}x (same {len(minimal)} minimal nodes)"
        )
        return
    rng = np.random.default_rng(0)
    sample = [tuple(int(v) for v in rng.integers(0, heights)) for _ in range(300)]
    sample += [tuple(r) for r in gen.minimal_nodes_[qi].sample(200, random_state=0).itertuples(index=False)]
    per_node, n_sup = timed(lambda: [suppressed(node) for node in sample])
    table = gen.minimal_nodes_.set_index(qi)["suppressed"]
    assert all(n_sup[300 + j] == table.loc[node] for j, node in enumerate(sample[300:]))
    naive = per_node / len(sample) * gen.n_checks_
    print(
        f"  naive (np.unique over the rows at each node, same search; timed on {len(sample)} "
        f"nodes, scaled to {gen.n_checks_} checks): {naive:.1f} s -> ratio {naive / seconds:.1f}x"
    )


def fold_searches(fresh: bool, compiled: bool):
    """A function fitting k = 2..5 on one Adult training fold: a fresh lattice per k or one shared."""
    full = load_adult()
    hierarchies, qi = adult_hierarchies(), list(full.quasi_identifiers)
    train, _ = next(StratifiedKFold(10, shuffle=True, random_state=0).split(full.frame, full.frame[full.target]))
    fold = full.frame.iloc[train]

    def run():
        kernel = rollup_module.rollup_counts
        rollup_module.rollup_counts = rollup_counts if compiled else None  # the numpy roll-up of before
        try:
            out = []
            for k in (2, 3, 4, 5):
                if fresh:
                    FullDomainLattice.clear_cache()
                gen = FullDomainGeneralizer(qi, k, hierarchies).fit(fold)
                out.append((gen.n_checks_, gen.node_, gen.minimal_nodes_.to_dict("list")))
            return out
        finally:
            rollup_module.rollup_counts = kernel

    return run, len(fold), len(qi)


def full_domain_fold():
    old, n_rows, n_qi = fold_searches(fresh=True, compiled=False)
    print(f"\nFull-domain k-anonymity, one Adult training fold ({n_rows} rows, {n_qi} quasi-identifiers), k = 2..5, 2%")
    t_old, a = timed(old)
    print(f"  today's path (a fresh lattice per k, numpy roll-up): {t_old:.2f} s; checks {[r[0] for r in a]}")
    new, _, _ = fold_searches(fresh=False, compiled=True)
    kernel = "numba roll-up" if rollup_counts is not None else "numpy roll-up: numba is not installed"
    t_new, b = timed(new)
    assert [r[1:] for r in a] == [r[1:] for r in b]
    print(f"  one shared lattice ({kernel}): {t_new:.2f} s -> ratio {t_old / t_new:.2f}x; checks {[r[0] for r in b]}")
    if rollup_counts is not None:
        t_numpy, c = timed(fold_searches(fresh=False, compiled=False)[0])
        assert [r[1:] for r in a] == [r[1:] for r in c]
        print(f"  one shared lattice, numpy roll-up: {t_numpy:.2f} s -> ratio {t_old / t_numpy:.2f}x")
    with tempfile.TemporaryDirectory() as folder:
        t_write, _ = timed(new, disk_cache=folder)
        t_read, d = timed(new, disk_cache=folder)  # the memory cache cleared: as a new process of a sweep
        size = sum(f.stat().st_size for f in os.scandir(folder))
    assert [r[1:] for r in a] == [r[1:] for r in d]
    print(
        f"  disk cache ({size / 1e6:.1f} MB): searching and writing {t_write:.2f} s; a new process reading it "
        f"{t_read:.2f} s -> ratio {t_old / t_read:.0f}x; checks {[r[0] for r in d]}"
    )


def arx_search(frame, hierarchies, k):
    """The full-domain search alone (lattice, classification, the minimal nodes' summaries) at 0%."""
    lattice = FullDomainLattice.of(frame, ARX_QI, hierarchies, 0.0)
    nodes, anon, _ = lattice.classify(k)
    return [lattice.summary(m, k) for m in nodes[minimal_nodes(nodes, lattice.heights, anon)].tolist()]


def full_domain_arx():
    salary = Hierarchy.from_arx(load_adult_hierarchies()["salary-class"], name="salary-class")
    hierarchies = {**adult_hierarchies(), "salary-class": salary}  # Adult's card declares no target hierarchy
    train = load_adult(version="train")  # ARX's adult.csv: adult.data without '?' rows
    frame = train.frame.assign(salary_class=np.where(train.frame[train.target] == 1, ">50K", "<=50K"))
    frame = frame.rename(columns={"salary_class": "salary-class"})
    print(f"\nFull-domain k-anonymity, ARX's task: Adult ({len(frame)} rows), ARX's 9 hierarchies")
    for k, arx in ARX_WARM_MS.items():
        seconds, _ = timed(lambda k=k: arx_search(frame, hierarchies, k), repeat=5)
        print(
            f"  search at 0%, k={k}: {seconds * 1000:.0f} ms; ARX 3.9.2 warm {arx} ms -> "
            f"{seconds * 1000 / arx:.2f}x ARX's time"
        )
    print(f"  whole fit (search and release), k={K}; ARX published: Flash 28 ms (Java), Incognito 1.18 s")
    for share in (0.0, 0.02):
        seconds, gen = timed(
            lambda: FullDomainGeneralizer(ARX_QI, K, hierarchies, max_suppression=share).fit(frame), repeat=2
        )
        print(
            f"  ours, suppression <= {share:.0%}: {seconds * 1000:.0f} ms; {gen.n_checks_} of "
            f"{gen.lattice_size_} nodes checked; {len(gen.minimal_nodes_)} minimal nodes; "
            f"chosen {gen.node_} ({len(gen.suppressed_)} rows suppressed)"
        )


def naive_mondrian(frame, qi, k):
    """Mondrian's median partitioning on DataFrame slices (nominal columns as sorted codes)."""
    data = frame[qi].copy()
    for a in qi:
        if not pd.api.types.is_numeric_dtype(data[a]):
            data[a] = pd.Categorical(data[a].astype(str)).codes
    scale = (data.max() - data.min()).replace(0, 1)
    regions, stack = [], [data]
    while stack:
        part = stack.pop()
        width = ((part.max() - part.min()) / scale).sort_values(ascending=False)
        for a in width.index[width > 0]:
            m = part[a].median()
            left, right = part[part[a] <= m], part[part[a] > m]
            if len(left) >= k and len(right) >= k:
                stack += [left, right]
                break
        else:
            regions.append(part.index)
    return regions


def mondrian():
    full = load_adult()
    hierarchies = adult_hierarchies()
    qi = list(full.quasi_identifiers)
    print(f"\nMondrian, Adult ({len(full.frame)} rows, {len(qi)} quasi-identifiers), k={K}")
    for label, hier in (("sorted-category splits", None), ("ARX hierarchies", hierarchies)):
        seconds, gen = timed(
            lambda: MondrianGeneralizer(qi, K, kinds=full.kinds, hierarchies=hier).fit(full.frame), repeat=2
        )
        t_transform, _ = timed(lambda: gen.transform(full.frame), repeat=2)
        print(
            f"  ours, {label}: fit {seconds:.2f} s ({gen.n_groups_} regions), transform of all rows {t_transform:.2f} s"
        )
    sample = full.sample(5000, random_state=0).frame
    ours, _ = timed(lambda: MondrianGeneralizer(qi, K, kinds=full.kinds).fit(sample), repeat=3)
    naive, _ = timed(lambda: naive_mondrian(sample, qi, K))
    print(f"  5000-row sample: ours {ours:.2f} s, naive pandas {naive:.2f} s -> ratio {naive / ours:.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full-naive",
        action="store_true",
        help="run the whole naive lattice search (slow) instead of a sample of nodes",
    )
    args = parser.parse_args()
    full_domain_adult(args.full_naive)
    full_domain_fold()
    full_domain_arx()
    mondrian()


if __name__ == "__main__":
    main()
