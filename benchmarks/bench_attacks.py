"""The de Finetti attack on all of Adult (45222 rows, l = 5): vectorized EM against a plain per-group loop.

Both run the same EM iteration (the naive one loops over groups and their 120 assignments in Python); the
loop is timed on one iteration and on a slice of the groups, scaled to the whole release, in the same run.
Prints the times and their ratio. Usage: ``PRIVNB_DATA=... python benchmarks/bench_attacks.py [l]``.
"""

import sys
import time

import numpy as np

from privnb.attacks import definetti_attack, naive_definetti_attack, random_worlds_rate
from privnb.data import load
from privnb.mechanisms import anatomize
from privnb.validation import with_labels


def main(l: int = 5, n_iter: int = 20) -> None:
    """Time ``n_iter`` EM iterations (tol=0: exactly that many) of both implementations on Adult at ``l``.

    Parameters
    ----------
    l : int
        The anatomy's l.
    n_iter : int
        EM iterations of the vectorized run.
    """
    data = load("adult")
    frame, _ = with_labels(data.X, data.y)
    anatomy = anatomize(frame, data.sensitive, l, random_state=0)
    truth = data.X[data.sensitive]
    start = time.perf_counter()
    attack = definetti_attack(anatomy, l=l, n_iter=n_iter, tol=0)
    fast = time.perf_counter() - start
    per_iteration = fast / (attack.n_iter + 1)  # E-steps: the join model's, then one per iteration
    groups = np.unique(anatomy.it["gid"])
    part = groups[: max(1, len(groups) // 20)]
    sub = type(anatomy)(
        it=anatomy.it[anatomy.it["gid"].isin(part)],
        st=anatomy.st[anatomy.st["gid"].isin(part)],
        suppressed=anatomy.suppressed,
        sensitive=anatomy.sensitive,
        l=l,
    )
    start = time.perf_counter()
    naive_definetti_attack(sub, n_iter=0)
    naive = (time.perf_counter() - start) * len(groups) / len(part)
    print(f"Adult, l={l}: {len(anatomy.it)} individuals in {len(groups)} groups")
    print(
        f"de Finetti attack (vectorized): {fast:.2f} s for {attack.n_iter + 1} E-steps "
        f"({per_iteration:.3f} s per iteration); correct guesses {attack.success(truth):.4f}, "
        f"random worlds {random_worlds_rate(anatomy, truth):.4f}"
    )
    print(f"plain per-group loop: {naive:.2f} s per E-step (scaled from {len(part)} groups)")
    print(f"ratio per E-step: {naive / per_iteration:.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
