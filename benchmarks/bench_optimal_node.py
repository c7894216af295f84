"""Benchmark ARX's optimum (every acceptable node, branch and bound) against the best minimal node.

ARX's task: adult.data and adult.test without missing values (45,222 rows), ARX's nine attributes and
hierarchies, 2% suppression (904 rows), ARX's non-monotone discernibility (suppressed rows n each). Times are
CPU seconds of this process (``time.process_time``; the machine may be shared), each with a fresh lattice, so
ratios are measured in the same run. Printed for k = 2, 5, 10:

- the minimal-node search (``FullDomainGeneralizer``, ``candidates="minimal"``, the default) and the optimal
  search (``candidates="all"``): time, score, rows suppressed, and for the optimal search the acceptable
  nodes it evaluated and skipped out of the lattice's nodes, beside ARX's published optimum;
- the naive baseline: the same lattice (group sizes rolled up and cached alike), Flash's classification,
  then every node of the lattice scored and the best acceptable one taken; its time over that of the same
  classification followed by the branch and bound (``optimal_node``) as a ratio, and a check that both
  find the same node.

``--loss`` adds the loss metric (optimal against minimal only: the loss of every node takes minutes).

Run: ``PRIVNB_DATA=../shared/data .venv/bin/python benchmarks/bench_optimal_node.py``
"""

import argparse

import numpy as np
from bench_generalize import ARX_QI, timed

from privnb.data import Hierarchy, adult_hierarchies, load_adult, load_adult_hierarchies
from privnb.mechanisms import FullDomainGeneralizer, FullDomainLattice, optimal_node

#: ARX's optimal discernibility and suppressed rows on this task (ARX's optimal search, as issue 23 gives them).
ARX = {2: (7_950_641, 63), 5: (13_898_357, 107), 10: (20_412_407, 111)}


def arx_task():
    """(frame, hierarchies) of ARX's Adult task: the merged Adult rows, salary-class as ARX's attribute."""
    adult = load_adult()
    salary = Hierarchy.from_arx(load_adult_hierarchies()["salary-class"], name="salary-class")
    frame = adult.frame.assign(**{"salary-class": np.where(adult.frame[adult.target] == 1, ">50K", "<=50K")})
    return frame, {**adult_hierarchies(), "salary-class": salary}


def brute_force(frame, hierarchies, k):
    """(node, score): the best acceptable node, every node of the lattice scored (ties: height, levels)."""
    lattice = FullDomainLattice.of(frame, ARX_QI, hierarchies, 0.02)
    nodes, ok, _ = lattice.classify(k)
    scored = [(lattice.summary(node, k)[1], sum(node), node) for node in nodes.tolist()]
    score, _, node = min(s for s, keep in zip(scored, ok) if keep)
    return tuple(node), score


def search(frame, hierarchies, k):
    """(node, score) by the branch and bound, after the same classification."""
    lattice = FullDomainLattice.of(frame, ARX_QI, hierarchies, 0.02)
    nodes, ok, _ = lattice.classify(k)
    best = optimal_node(lattice, k, nodes, ok)
    return best.node, best.score


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loss", action="store_true", help="also the loss metric (optimal against minimal)")
    args = parser.parse_args()
    frame, hierarchies = arx_task()
    print(f"ARX's Adult task: {len(frame)} rows, {len(ARX_QI)} quasi-identifiers, suppression <= 2%")
    for utility in ("discernibility", "loss") if args.loss else ("discernibility",):
        print(f"\nutility = {utility}")
        for k in ARX:
            t_min, minimal = timed(lambda: FullDomainGeneralizer(ARX_QI, k, hierarchies, utility=utility).fit(frame))
            t_opt, best = timed(
                lambda: FullDomainGeneralizer(ARX_QI, k, hierarchies, utility=utility, candidates="all").fit(frame)
            )
            arx = f"; ARX: {ARX[k][0]:,} ({ARX[k][1]} rows)" if utility == "discernibility" else ""
            print(
                f"  k={k:2d}: minimal {t_min:.2f} s, score {minimal.score_:,.6g} ({len(minimal.suppressed_)} rows "
                f"suppressed); optimal {t_opt:.2f} s, score {best.score_:,.10g} ({len(best.suppressed_)} rows){arx}"
            )
            print(
                f"        optimal search: {best.n_evaluated_} nodes evaluated, {best.n_skipped_} skipped of "
                f"{best.n_evaluated_ + best.n_skipped_} acceptable, lattice {best.lattice_size_} nodes; "
                f"optimal/minimal time {t_opt / t_min:.2f}x"
            )
            if utility == "discernibility":
                t_search, found = timed(lambda: search(frame, hierarchies, k))
                t_brute, naive = timed(lambda: brute_force(frame, hierarchies, k))
                assert found == naive == (tuple(best.node_[a] for a in ARX_QI), best.score_)
                print(
                    f"        classification + branch and bound {t_search:.2f} s; naive, classification + every "
                    f"node scored {t_brute:.2f} s -> ratio {t_brute / t_search:.1f}x (same node)"
                )


if __name__ == "__main__":
    main()
