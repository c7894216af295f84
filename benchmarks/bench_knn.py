"""Benchmark of privnb.learn.knn and privnb.experiments.knn_l_diversity on Adult (MC17's k-NN experiment).

Prints, all measured in this process:

1. one neighbour search per view for k = 9 with every smaller k derived from it (for the anatomized view
   over the distinct quasi-identifier rows, IBkClassifier(factor_column=sensitive)), against the naive way
   (a fresh scikit-learn KNeighborsClassifier fit + predict for each k = 1, 3, ..., 9), on one
   cross-validation fold, for the original view and the anatomized view at l = 3: the ratio;
2. the anonymized views (full-domain k-anonymity, k = 2..5) of one fold: one lattice search shared by
   every k (privnb.mechanisms.FullDomainLattice) against a fresh search per k: the ratio;
3. the time of the paper's Adult grid (l 2..5, k 1, 3, .., 9; original, identifying, anatomized and
   the anonymized 1-NN) on ``--folds`` folds of 10 (default all), ``--jobs`` folds at a time (default 2);
4. the peak memory (tracemalloc) of the anatomized neighbour search at l = 5 (about 200k rows), k = 9,
   with the factored search the experiment uses and with plain brute force over all N*l rows;
5. the convergence experiment of Figure 9 (1-NN on 1..9 parts, original and anatomized l = 2..5) on one
   fold of 10: the anatomized search over the distinct quasi-identifier rows (as the cross-validation)
   against the search over all N*l rows of D_A, in this process: the ratio, and whether the rows agree;
6. the candidate screen with nominal attributes compared by category code (one-hot blocks) against the matrix
   product over their one-hot columns, on one fold's training rows and 2,000 test rows of Adult and of
   Fatality (FARS), one thread: the ratio, and whether the neighbours agree.

Usage: PRIVNB_DATA=... python benchmarks/bench_knn.py [--folds N] [--jobs J] [--no-anonymized]
       [--convergence-rows R] [--only-convergence] [--only-screen]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc
from dataclasses import replace

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from privnb import data as datasets
from privnb.data import DataUnavailableError, adult_hierarchies, load_adult
from privnb.experiments import run_folds
from privnb.experiments.knn_l_diversity import cross_validate_knn
from privnb.experiments.knn_l_diversity.convergence import convergence_views
from privnb.learn import IBkClassifier, kneighbors
from privnb.learn.encoding import one_hot_blocks
from privnb.mechanisms import FullDomainGeneralizer, FullDomainLattice, anatomize

KS = (1, 3, 5, 7, 9)


def _fold(dataset, seed=0):
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
    return next(splitter.split(dataset.X, dataset.y))


def _anatomized(dataset, train, l, seed=0):
    data = dataset.X.iloc[train].reset_index(drop=True).assign(__y__=dataset.y[train])
    joined = anatomize(data, dataset.sensitive, l, random_state=seed).join()
    return joined[list(dataset.X.columns)], joined["__y__"].to_numpy()


def compare_with_naive(dataset, train, test):
    print("1. IBkClassifier.predict_many (one search for k=9) vs a fresh KNeighborsClassifier per k (one fold)")
    total_ours = total_naive = 0.0
    views = {
        "original": (dataset.X.iloc[train], dataset.y[train], None),
        "anatomized l=3": (*_anatomized(dataset, train, 3), dataset.sensitive),
    }
    test_frame = dataset.X.iloc[test]
    for name, (frame, y, factor) in views.items():
        start = time.perf_counter()
        model = IBkClassifier(max(KS), kinds=dataset.kinds, orders=dataset.orders, factor_column=factor)
        ours = model.fit(frame, y).predict_many(test_frame, KS)
        t_ours = time.perf_counter() - start
        X, Q = model.fit_X_, model.encoder_.transform(test_frame)  # the naive way gets them for free
        start = time.perf_counter()
        naive = np.array([KNeighborsClassifier(k, algorithm="brute").fit(X, y).predict(Q) for k in KS])
        t_naive = time.perf_counter() - start
        agree = np.mean(ours == naive)
        print(
            f"   {name:15s} rows={len(X):6d}  ours {t_ours:6.2f} s  naive {t_naive:6.2f} s  "
            f"ratio {t_naive / t_ours:4.1f}x  (predictions agree on {agree:.2%}; scikit-learn breaks "
            "distance ties arbitrarily)"
        )
        total_ours += t_ours
        total_naive += t_naive
    print(f"   overall ratio {total_naive / total_ours:.1f}x (target >= 4x)")


def shared_lattice(dataset, train):
    print(
        "2. anonymized 1-NN views k = 2..5 on one training fold: one lattice for every k against a fresh "
        "full-domain search per k"
    )
    hierarchies = adult_hierarchies()
    frame = dataset.X.iloc[train].reset_index(drop=True)
    qis = [q for q in dataset.quasi_identifiers if q in hierarchies]
    timings = {}
    for label, fresh in (("fresh search per k", True), ("one shared lattice", False)):
        FullDomainLattice.clear_cache()
        start = time.perf_counter()
        nodes = []
        for k in (2, 3, 4, 5):
            if fresh:
                FullDomainLattice.clear_cache()
            nodes.append(FullDomainGeneralizer(qis, k, hierarchies).fit(frame).node_)
        timings[label] = (time.perf_counter() - start, nodes)
    (t_fresh, a), (t_shared, b) = timings.values()
    print(
        f"   fresh {t_fresh:.1f} s, shared {t_shared:.1f} s: ratio {t_fresh / t_shared:.2f}x "
        f"(same nodes chosen: {a == b})"
    )


def paper_grid(dataset, folds, jobs, anonymized):
    print(
        f"3. paper grid on Adult: {folds} fold(s) of 10, l 2..5, k {KS}, original, identifying, anatomized"
        f"{', anonymized 1-NN (k = l = 2..5)' if anonymized else ''}; {jobs} parallel fold(s)"
    )
    start = time.perf_counter()
    out = cross_validate_knn(
        dataset,
        n_neighbors=KS,
        ls=(2, 3, 4, 5),
        n_splits=10,
        random_state=0,
        hierarchies=adult_hierarchies() if anonymized else None,
        folds=range(folds),
        n_jobs=jobs,
    )
    elapsed = time.perf_counter() - start
    print(
        f"   {elapsed:.1f} s for {folds} fold(s), {len(out)} rows; for 10 folds: {elapsed * 10 / folds / 60:.1f} min "
        "(target < 5 min)"
    )


def peak_memory(dataset, train, test):
    frame, y = _anatomized(dataset, train, 5)
    test_frame = dataset.X.iloc[test]
    print(f"4. anatomized neighbour search, l=5, k=9: {len(frame)} training rows, {len(test_frame)} queries")
    for label, factor in (("factored (as in the experiment)", dataset.sensitive), ("plain brute force", None)):
        tracemalloc.start()
        start = time.perf_counter()
        IBkClassifier(max(KS), kinds=dataset.kinds, orders=dataset.orders, factor_column=factor).fit(
            frame, y
        ).kneighbors(test_frame)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"   {label}: fit + search {elapsed:.1f} s, peak traced memory {peak / 2**20:.0f} MiB (target < 4 GiB)")
    print(f"   process peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")


def convergence(dataset, rows):
    """Section 5: the convergence experiment with the factored anatomized search against the plain one."""
    if rows:
        dataset = dataset.sample(rows, random_state=0)
    print(f"5. convergence experiment (Figure 9), one fold of 10, {len(dataset.y)} rows, l 2..5, 9 parts")
    views = convergence_views(dataset, (2, 3, 4, 5), 9, majority=False)
    plain = [replace(v, scorer=replace(v.scorer, factor_column=None)) for v in views]
    timings, tables = {}, {}
    for label, chosen in (("plain search over D_A's N*l rows", plain), ("factored, as the cross-validation", views)):
        start = time.perf_counter()
        tables[label] = run_folds(dataset, chosen, n_splits=10, random_state=0, folds=[0], progress=False)
        timings[label] = time.perf_counter() - start
        print(f"   {label}: {timings[label]:.1f} s")
    old, new = tables.values()
    same = old.equals(new)
    print(f"   ratio {timings[next(iter(timings))] / timings[label]:.2f}x (target >= 2x); identical rows: {same}")


def code_screen(names=("adult", "fars"), n_queries=2000):
    """Section 6: the screen's nominal attributes by code against the one-hot matrix product."""
    print(
        "6. neighbour search (k = 9, IBk's ties, one thread as in a sweep's worker), nominal attributes compared "
        "by code vs the one-hot product"
    )
    for name in names:
        try:
            dataset = datasets.load(name)
        except DataUnavailableError as error:  # Fatality is not among the data every user has
            print(f"   {name}: skipped ({str(error).splitlines()[0][:120]})")
            continue
        train, test = _fold(dataset)
        model = IBkClassifier(9, kinds=dataset.kinds, orders=dataset.orders)
        model.fit(dataset.X.iloc[train], dataset.y[train])
        X, Q = model.fit_X_, model.encoder_.transform(dataset.X.iloc[test[:n_queries]])
        found, timings = [], []
        for blocks in ((), one_hot_blocks(model.encoder_)):
            kneighbors(X, Q[:10], 9, ties=True, blocks=blocks)  # the compiled count loads its cache
            with threadpool_limits(1):  # as a sweep's worker runs it
                start = time.perf_counter()
                found.append(kneighbors(X, Q, 9, ties=True, blocks=blocks))
                timings.append(time.perf_counter() - start)
        same = all(np.array_equal(a, b) for a, b in zip(*found, strict=True))
        print(
            f"   {name}: {X.shape[0]} rows x {X.shape[1]} columns ({len(one_hot_blocks(model.encoder_))} nominal); "
            f"product {timings[0]:.2f} s, codes {timings[1]:.2f} s: ratio {timings[0] / timings[1]:.1f}x; "
            f"same neighbours: {same}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10, help="folds of the paper grid to run (1..10)")
    parser.add_argument("--jobs", type=int, default=2, help="folds run in parallel processes")
    parser.add_argument("--no-anonymized", action="store_true", help="leave out the anonymized 1-NN")
    parser.add_argument("--convergence-rows", type=int, default=0, help="sample for section 5 (0: all rows)")
    parser.add_argument("--only-convergence", action="store_true", help="run section 5 only")
    parser.add_argument("--only-screen", action="store_true", help="run section 6 only")
    args = parser.parse_args()
    print(f"cpus available: {len(os.sched_getaffinity(0))}; load average {os.getloadavg()[0]:.1f}")
    dataset = load_adult()
    if args.only_convergence:
        convergence(dataset, args.convergence_rows)
        return
    if args.only_screen:
        code_screen()
        return
    train, test = _fold(dataset)
    compare_with_naive(dataset, train, test)
    shared_lattice(dataset, train)
    paper_grid(dataset, args.folds, args.jobs, not args.no_anonymized)
    peak_memory(dataset, train, test)
    convergence(dataset, args.convergence_rows)
    code_screen()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
