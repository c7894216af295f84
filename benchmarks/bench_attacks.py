"""The de Finetti attack on all of Adult (45222 rows, l = 5) and on Adult replicated with noise (about 300k rows).

Three measures in one run: the vectorized E-step against a plain per-group loop (the loop timed on a slice of
the groups, scaled to the whole release); the EM's time to convergence by SQUAREM against plain EM steps on
Adult; and the same on the replicated table, where plain EM is capped at ``plain_cap`` iterations (its time
there is a lower bound, and so is the ratio). Prints the times (CPU seconds, ``time.process_time``: the
machine may be shared), the E-steps and their ratios. Usage:
``PRIVNB_DATA=... python benchmarks/bench_attacks.py [l] [copies] [plain_cap]``.
"""

import sys
import time

import numpy as np
import pandas as pd

from privnb.attacks import definetti_attack, naive_definetti_attack, random_worlds_rate
from privnb.data import load
from privnb.mechanisms import anatomize
from privnb.validation import with_labels


def replicated(frame: pd.DataFrame, copies: int, sensitive: str, seed: int = 0) -> pd.DataFrame:
    """``copies`` copies of ``frame``, every copy after the first with its numeric columns moved by -1, 0 or +1.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    copies : int
        How many copies.
    sensitive : str
        The sensitive column (left unchanged).
    seed : int
        Seeds the noise.
    """
    rng = np.random.RandomState(seed)
    parts = [frame]
    for _ in range(copies - 1):
        part = frame.copy()
        for column in part.columns:
            if column != sensitive and pd.api.types.is_numeric_dtype(part[column]):
                part[column] = part[column] + rng.randint(-1, 2, len(part))
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def em_to_convergence(anatomy, truth, l: int, plain_cap: int = 2000) -> None:
    """Print the EM's time to convergence by SQUAREM and by plain EM steps on one release, and their ratio.

    Parameters
    ----------
    anatomy : Anatomy
        The release.
    truth : Series
        The true sensitive values.
    l : int
        The release's l.
    plain_cap : int
        Iterations allowed to plain EM.
    """
    times = {}
    for name, accelerate, cap in (("SQUAREM", "squarem", 2000), ("plain EM", None, plain_cap)):
        start = time.process_time()
        run = definetti_attack(anatomy, l=l, accelerate=accelerate, n_iter=cap)
        times[name] = time.process_time() - start
        state = "converged" if run.converged else f"NOT converged (cap {cap})"
        print(
            f"  {name}: {times[name]:.1f} s, {run.n_iter} iterations, {run.e_steps} E-steps "
            f"({times[name] / run.e_steps:.2f} s each), {state}; correct guesses {run.success(truth):.4f}"
        )
    bound = "" if run.converged else " (at least: plain EM stopped at its cap)"
    print(f"  time to convergence, plain / SQUAREM: {times['plain EM'] / times['SQUAREM']:.1f}x{bound}")


def main(l: int = 5, copies: int = 7, plain_cap: int = 200, n_iter: int = 20) -> None:
    """Time the E-step against the loop, then the EM to convergence on Adult and on ``copies`` noisy copies.

    Parameters
    ----------
    l : int
        The anatomy's l.
    copies : int
        Copies of Adult in the large table (7: about 317k rows).
    plain_cap : int
        Iterations allowed to plain EM on the large table.
    n_iter : int
        EM iterations of the vectorized run timed per E-step.
    """
    data = load("adult")
    frame, _ = with_labels(data.X, data.y)
    anatomy = anatomize(frame, data.sensitive, l, random_state=0)
    truth = data.X[data.sensitive]
    start = time.process_time()
    attack = definetti_attack(anatomy, l=l, n_iter=n_iter, tol=0, accelerate=None)
    fast = time.process_time() - start
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
    start = time.process_time()
    naive_definetti_attack(sub, n_iter=0)
    naive = (time.process_time() - start) * len(groups) / len(part)
    print(f"Adult, l={l}: {len(anatomy.it)} individuals in {len(groups)} groups")
    print(
        f"de Finetti E-step (vectorized): {per_iteration:.3f} s; random worlds {random_worlds_rate(anatomy, truth):.4f}"
    )
    print(f"plain per-group loop: {naive:.2f} s per E-step (scaled from {len(part)} groups)")
    print(f"ratio per E-step: {naive / per_iteration:.1f}x")
    print(f"EM to convergence (tol 1e-6 per individual), Adult, {len(anatomy.it)} individuals:")
    em_to_convergence(anatomy, truth, l)
    big = replicated(frame, copies, data.sensitive)
    anatomy = anatomize(big, data.sensitive, l, random_state=0)
    print(f"EM to convergence, Adult x{copies} with noise, {len(anatomy.it)} individuals:")
    em_to_convergence(anatomy, big[data.sensitive], l, plain_cap)


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:4]]
    main(*args)
