"""The exact audit of seed 004 in bounded memory: counts near 10^5 with a rare value (the case that needed
over 100 GiB before the chain was streamed), checked under an address-space limit in a subprocess."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from privnb.nbc import NBCViews, achieved_r, posterior
from privnb.nbc.hypergeometric import AuditOutOfReach


def _views(rare, common):
    table = pd.DataFrame([rare, common], index=["rare", "common"], columns=[0, 1])
    class_counts = pd.Series([rare[0] + common[0], rare[1] + common[1]], index=[0, 1])
    return NBCViews(class_counts, {"A": table, "B": table.copy()})


SCRIPT = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import pandas as pd
    from privnb.nbc import NBCViews, achieved_r
    table = pd.DataFrame([[2000, 1000], [98000, 196000]], index=["rare", "common"], columns=[0, 1])
    views = NBCViews(pd.Series([100000, 197000], index=[0, 1]), {{"A": table, "B": table.copy()}})
    print(repr(achieved_r(views)))
""")


def test_audit_of_counts_near_1e5_runs_under_a_memory_limit():
    """Before: MemoryError under 8 GiB (unlimited it asked for over 100 GiB). Now: under 2 GiB of address
    space, interpreter, NumPy and pandas included."""
    limit = 2 * 2**30
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(limit=limit)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    r = float(done.stdout.strip())
    assert 4.4 < r < 4.5  # the rare value of both attributes: <rare, rare> is mostly class 0


def test_streamed_audit_agrees_with_the_rational_chain_on_a_scaled_case():
    views = _views((20, 10), (980, 1960))
    exact = posterior(views, {"A": "rare", "B": "rare"})
    from privnb.nbc import audit

    table = audit(views).table
    row = table[(table["A"] == "rare") & (table["B"] == "rare") & (table["property"] == (0,))]
    assert row["posterior"].iloc[0] == pytest.approx(float(exact[0]), rel=1e-11)


def test_out_of_reach_request_fails_with_a_clear_error_before_allocating():
    """A thousand values spread over a class of a million rows: the chain's array would hold billions of
    values; the audit says so instead of exhausting the machine."""
    counts = np.arange(1, 1001) * 2000
    table = pd.DataFrame({0: counts, 1: counts[::-1]}, index=[f"v{i}" for i in range(1000)])
    total = int(counts.sum())
    views = NBCViews(pd.Series([total, total], index=[0, 1]), {"A": table, "B": table.copy()})
    with pytest.raises(AuditOutOfReach, match=r"GiB.*max_size.*expected"):
        achieved_r(views)
    with pytest.raises(MemoryError):  # still a MemoryError for callers that catch that
        achieved_r(views)
