"""The attacks of notebook 05's like-for-like comparison on all of Adult: compiled inference against numpy.

One fold of the like-for-like sweep (all of Adult, 90% training rows stratified by the label, the other 10% the
adversary's background), l = 3: anatomy and its l-diverse Mondrian and full-domain peers. Every attack registered
for each release (:func:`privnb.attacks.release_attacks`: the common adversary, whose large classes go through the
counting programme, and the de Finetti EM, whose large groups go through Sinkhorn sweeps) runs twice: with the compiled
loops of ``privnb.attacks._kernels`` and with the numpy formulation they replaced (the naive baseline, swapped in:
the Sinkhorn pass defined here, the counting programme the oracle of ``tests/attacks/test_attack_kernels.py``).
Prints each release's CPU seconds (``time.process_time``: the machine may be shared), the ratio, and whether
every number of the two runs is the same. Usage: ``PRIVNB_DATA=... python benchmarks/bench_adversary.py [l]``.
"""

import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np
from scipy import sparse
from sklearn.model_selection import train_test_split

from privnb.attacks import Targets, release_attacks
from privnb.data import load
from privnb.experiments.privacy_frontier.views import VIEWS, ViewSetting

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "attacks"))
from test_attack_kernels import numpy_counting_weights  # the test's oracle is the baseline

_MEMBERS = {}  # the group matrix of the last Sinkhorn call, built once per call as numpy's version did


def numpy_sinkhorn_sweep(base, scaling, group, scale, columns):
    """A Sinkhorn row pass as numpy formulated it: the scaled rows, their sums, a CSR product by group."""
    key = (id(group), len(group), len(columns))
    if key not in _MEMBERS:
        _MEMBERS.clear()
        _MEMBERS[key] = sparse.csr_matrix(
            (np.ones(len(group)), (group, np.arange(len(group)))), shape=(len(columns), len(group))
        )
    marginals = base * scaling[group]
    scale[:] = marginals.sum(axis=1)
    base /= scale[:, None]
    columns[:] = _MEMBERS[key] @ (marginals / scale[:, None])
    return columns


def numbers(results):
    """Every value of every result record, in order."""
    return [(name, value) for result in results for name, value in sorted(result.values().items())]


def main(l: int = 3) -> None:
    data = load("adult")
    train, background = train_test_split(data.frame, test_size=0.1, stratify=data.y, random_state=0)
    columns = [*data.quasi_identifiers, data.sensitive]
    rows = train[columns].reset_index(drop=True)
    targets = Targets(
        rows, train[data.target].to_numpy(), data.sensitive, background[columns], background[data.target].to_numpy()
    )
    setting = ViewSetting(data, data.hierarchies, 5)
    options = {"n_iter": 2000, "tol": 1e-6}
    print(f"attacks on one like-for-like fold of Adult: {len(rows)} training rows, {len(background)} background, l={l}")
    for method in ("anatomized", "l-diverse Mondrian", "l-diverse full-domain"):
        release = VIEWS[method].build(setting, l).fit(rows, targets.labels).release_
        release_attacks(release, targets, options)  # compiles the kernels, fits the background once
        t = time.process_time()
        compiled = release_attacks(release, targets, options)
        t_compiled = time.process_time() - t
        with (
            mock.patch("privnb.attacks.adversary.counting_weights", numpy_counting_weights),
            mock.patch("privnb.attacks.definetti.sinkhorn_sweep", numpy_sinkhorn_sweep),
        ):
            t = time.process_time()
            baseline = release_attacks(release, targets, options)
            t_numpy = time.process_time() - t
        same = "every number the same" if numbers(compiled) == numbers(baseline) else "NUMBERS DIFFER"
        print(
            f"  {method}: numpy {t_numpy:.1f} s, compiled {t_compiled:.1f} s -> ratio {t_numpy / t_compiled:.2f}x "
            f"({same}; {', '.join(r.attack for r in compiled)})"
        )


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
