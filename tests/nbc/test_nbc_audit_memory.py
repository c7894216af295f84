"""The exact audit of MZ09 in bounded memory: counts near 10^5 with a rare value (the case that needed
over 100 GiB before the chain was streamed), checked under an address-space limit in a subprocess."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from privnb.nbc import NBCViews, achieved_r, posterior
from privnb.nbc._hypergeometric import AuditOutOfReach


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


# --------------------------------------------------------------------- the estimate, checked before allocating
def _random_views(n_attributes, n_values, n_rows, seed=0):
    """Views of ``n_rows`` random rows: ``n_attributes`` attributes of ``n_values`` values, labels 0/1 (30% 1)."""
    rng = np.random.default_rng(seed)
    names = [f"a{i}" for i in range(n_attributes)]
    frame = pd.DataFrame({a: rng.integers(0, n_values, n_rows) for a in names})
    frame["c"] = (rng.random(n_rows) < 0.3).astype(int)
    return NBCViews.from_frame(frame, names, "c")


SIX_GIB = 6 * 2**30


@pytest.mark.parametrize("method", ["exact", "expected"])
@pytest.mark.parametrize("table", [True, False])
def test_eight_attributes_of_ten_values_are_refused_before_allocating(monkeypatch, method, table):
    """Issue 21: 8 attributes x 10 values at the default size (all 8) ran 29 s (expected) or 220 s (exact)
    into a raw MemoryError at 6 GB. Now: refused at once, naming the size, the estimate and what to lower."""
    import tracemalloc

    from privnb.nbc import audit_memory, exact_audit

    views = _random_views(8, 10, 20_000)

    def never(*args, **kwargs):
        raise AssertionError("the audit started computing posteriors")

    monkeypatch.setattr(exact_audit, "grid_posteriors", never)
    run = exact_audit.audit if table else exact_audit.achieved_r
    tracemalloc.start()
    with pytest.raises(audit_memory.AuditTooLarge) as refused:
        run(views, method=method, memory_limit=SIX_GIB)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**20  # nothing sizeable was allocated
    message = str(refused.value)
    assert "214,358,880 quasi-identifier values" in message  # 11^8 - 1
    assert "max_size=8" in message and "8 attributes of 10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 values" in message
    assert "over its limit of 6.0 GiB" in message and "Lower max_size" in message
    assert isinstance(refused.value, ValueError)
    estimate = audit_memory.audit_memory(views, max_size=8, method=method, table=table)
    assert estimate["values"] == 11**8 - 1 and estimate["rows"] == 2 * (11**8 - 1)  # properties {0}, {1}
    assert estimate["bytes"] > SIX_GIB
    assert f"about {estimate['bytes'] / 2**30:.1f} GiB" in message


def test_a_smaller_max_size_or_a_larger_limit_lets_the_audit_run(monkeypatch):
    from privnb.nbc import achieved_r, audit
    from privnb.nbc.audit_memory import AuditTooLarge, audit_memory

    views = _random_views(8, 10, 20_000)
    small = audit_memory(views, max_size=1, method="exact", table=True)
    assert small["values"] == 80 and small["bytes"] < SIX_GIB
    assert len(audit(views, max_size=1, memory_limit=SIX_GIB).table) == 160
    with pytest.raises(AuditTooLarge):
        achieved_r(views, max_size=1, memory_limit=small["bytes"] // 10)


def test_the_default_limit_is_a_fixed_budget_whatever_memory_the_machine_has_free(monkeypatch):
    """Issue 31: the limit was half the free memory (8.2 GiB, then 8.0 GiB on the same machine), so the same
    audit ran or was refused with the machine's load. Now two machines, one with 64 GiB free and one with 1 GiB,
    plan, refuse and compute the same audit alike."""
    import collections

    import psutil

    from privnb.nbc import AUDIT_MEMORY_BUDGET, plan_audit
    from privnb.nbc.audit_memory import AuditTooLarge, audit_memory

    views, small = _random_views(8, 10, 20_000), _random_views(3, 4, 300)
    memory = collections.namedtuple("memory", "available total")
    outcomes = []
    for free in (64 * 2**30, 2**30):
        monkeypatch.setattr(psutil, "virtual_memory", lambda free=free: memory(free, 2 * free))
        plan = plan_audit(views, max_size=8, table=False)
        with pytest.raises(AuditTooLarge, match=r"over its limit of 2\.0 GiB") as refused:
            achieved_r(views, max_size=8)
        outcomes.append((plan, str(refused.value), achieved_r(small)))
    assert outcomes[0] == outcomes[1]
    plan = outcomes[0][0]
    assert plan.budget == AUDIT_MEMORY_BUDGET == 2 * 2**30
    assert audit_memory(views, max_size=plan.max_size, method="exact", table=False)["bytes"] <= AUDIT_MEMORY_BUDGET
    assert audit_memory(views, max_size=plan.max_size + 1, method="exact", table=False)["bytes"] > AUDIT_MEMORY_BUDGET


@pytest.mark.parametrize("budget", [2**24, 2**27, 2**30, 2**33])
def test_a_plan_takes_the_largest_audit_its_budget_holds_and_says_what_it_chose(budget):
    """Brute force over every size and both methods: the plan is the largest size whose exact audit fits, else
    the largest whose expected audit fits, else nothing; the line names the budget parameter."""
    from privnb.nbc import plan_audit
    from privnb.nbc.audit_memory import audit_memory

    views = _random_views(6, 12, 50_000)
    plan = plan_audit(views, max_size=6, table=True, budget=budget, budget_parameter="audit_memory")
    fits = [
        (how, size)
        for how in ("exact", "expected")
        for size in range(6, 0, -1)
        if audit_memory(views, max_size=size, method=how, table=True)["bytes"] <= budget
    ]
    assert (plan.method, plan.max_size) == (fits[0] if fits else ("exact", 0))
    assert plan.runs == bool(fits)
    assert (plan.why == "") == (fits[:1] == [("exact", 6)])
    if plan.why:
        assert "audit_memory" in plan.why and f"{budget / 2**30:.1f} GiB budget" in plan.why


def test_published_counts_whose_exact_chain_exceeds_the_budget_are_audited_by_the_expected_posterior():
    """Issue 31: SafetyTransform's output of one attribute of two values (counts near 10^8) needed 8.6 GiB for
    its exact chain. The plan takes the expected posterior, whose relative difference is O(1 / E[S])."""
    from privnb.nbc import SafetyTransform, plan_audit

    table = pd.DataFrame([[1400, 160], [1270, 170]], index=["female", "male"], columns=[0, 1])
    views = NBCViews(pd.Series([2670, 330], index=[0, 1]), {"sex": table})
    published = SafetyTransform(2.0, random_state=0).fit(views).views_
    plan = plan_audit(published, max_size=1, table=False)
    assert (plan.max_size, plan.method) == (1, "expected") and "over the 2.0 GiB budget" in plan.why
    assert plan_audit(views, max_size=1, table=False).why == ""  # the counted views' chain is small


@pytest.mark.parametrize(
    "n_attributes, n_values, n_rows, method, table",
    [
        (3, 10, 2000, "exact", True),  # the hypergeometric chain on small counts
        (2, 30, 20000, "exact", False),  # wider chains, no table
        (4, 10, 5000, "expected", True),  # the table dominates
        (6, 6, 3000, "expected", True),
        (5, 10, 20000, "expected", False),  # the largest block dominates
    ],
)
def test_the_estimate_bounds_the_measured_peak(n_attributes, n_values, n_rows, method, table):
    """tracemalloc's peak (NumPy and pandas allocations included) of small audits stays under the estimate."""
    import tracemalloc

    from privnb.nbc import achieved_r, audit
    from privnb.nbc.audit_memory import audit_memory

    views = _random_views(n_attributes, n_values, n_rows)
    estimate = audit_memory(views, max_size=n_attributes, method=method, table=table)["bytes"]
    tracemalloc.start()
    (audit if table else achieved_r)(views, method=method)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= estimate
    if table and method == "expected":  # where the table dominates, the estimate is no blunt ceiling
        assert estimate <= 3 * peak


def test_the_estimate_bounds_the_figure1_and_the_rare_value_audits():
    """Figure 1's views and a rare value beside a common one (counts near 10^3), exact chain."""
    import tracemalloc

    from privnb.data import nbc_figure1_databases
    from privnb.nbc import audit
    from privnb.nbc.audit_memory import audit_memory

    db_a, _ = nbc_figure1_databases()
    for views in (NBCViews.from_frame(db_a, ["Adr", "Age"], "Sal"), _views((20, 10), (980, 1960))):
        tracemalloc.start()
        audit(views)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= audit_memory(views, max_size=2)["bytes"]
