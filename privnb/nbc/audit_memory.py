"""How much memory an audit of MZ09's views will take, estimated from its parameters before anything is
allocated, and the limit it must stay under.

The audit (:func:`privnb.nbc.audit`, :func:`privnb.nbc.achieved_r`) takes every value of every
quasi-identifier of 1..``max_size`` attributes: ``prod_{i in I} |A_i|`` values for a set I, and for 8
attributes of 10 values each, ``11^8 - 1`` (214 million) values in all. Its peak memory is the sum of

- the table (:func:`privnb.nbc.audit` only): one row per value and property Q, with one column per attribute,
  built block by block and copied once when the blocks are joined;
- the largest block's working arrays: the expected counts of every value of I per label, their posterior,
  the index of the values;
- on the exact method, where some value may expect fewer than 2^60 matching rows, the hypergeometric chain
  of each class (:mod:`privnb.nbc._hypergeometric`): one row per value of I but its last attribute, as wide as
  the largest number of class-c rows that can match (the smallest over I of the largest count), and the
  chain's working blocks.

:func:`audit_memory` adds these up with the constants measured by tracemalloc (``tests/nbc/test_nbc_audit_memory.py``
checks that it bounds the measured peak). The ceiling is a fixed budget, :data:`AUDIT_MEMORY_BUDGET` unless a
caller passes another: never the machine's free memory, so that the same notebook audits the same
quasi-identifiers (and prints the same numbers) on every machine. :func:`check_audit_memory` refuses an audit
above it with :class:`AuditTooLarge`, before allocating; :func:`plan_audit` instead picks the largest
quasi-identifier size that fits (what a notebook and ``privnb data check`` do, through the same call).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from privnb.nbc._hypergeometric import BLOCK, FLOAT_EXACT, LIMIT_LOG_MEAN, TAIL_PAD, TAIL_SD, AuditOutOfReach

AUDIT_MEMORY_BUDGET = 2 << 30
"""Bytes an audit may take unless its caller says otherwise: 2 GiB, a fixed number (never read from the machine)
so that an audit runs, adapts or is refused alike everywhere. Notebooks take it as their ``audit_memory``
parameter; a machine with more memory may raise it there (a sweep passes it like any other parameter)."""

_FLOAT = 8  # bytes of a float64, an int64 or a pointer
_BASE = 4 << 20  # bytes: pandas frames, indexes and NumPy temporaries of any audit, however small
_TABLE_ROW = 3 * _FLOAT  # size, prior, posterior; then per attribute one object pointer
_TABLE_EXTRA = 8 * _FLOAT  # property (and its list), ratio, the breach flags, their temporaries, the index
_BLOCK_PER_LABEL = 10 * _FLOAT  # log expected counts, the softmax's temporaries, the posterior, per value
_BLOCK_PER_ATTRIBUTE = 3 * _FLOAT  # the MultiIndex's codes, its filtered copy and the level values
_CHAIN_COPIES = 6  # arrays of a class's chain alive at once (prefix, parts, joined, trimmed, convolved)
_CHAIN_TEMPORARIES = 6  # hypergeometric block and share matrices alive at once
_MAX_SUBSETS = 100_000  # beyond this many quasi-identifiers, the chain is bounded over all of them at once


class AuditTooLarge(AuditOutOfReach):
    """An audit whose estimated peak memory exceeds its limit: raised before anything is allocated.

    A ``ValueError`` (and, as :class:`privnb.nbc._hypergeometric.AuditOutOfReach`, a ``MemoryError``) whose
    message names the audit's size, the estimate, the limit and what to lower.
    """


def _log(value) -> float:
    return -math.inf if value <= 0 else math.log(value)


class _Counts:
    """The views' numbers the estimate needs, read once: per class its count, per attribute its domain size
    and per class the largest and smallest count of its values (plain ints).
    """

    def __init__(self, views):
        self.labels = list(views.labels)
        self.p = [int(v) for v in views.class_counts]
        self.domain = {a: len(views.domain(a)) for a in views.attributes}
        tables = {a: views.counts[a].to_numpy() for a in views.attributes}
        self.largest = {a: [int(v) for v in t.max(axis=0)] for a, t in tables.items()}
        self.smallest = {a: [int(v) for v in t.min(axis=0)] for a, t in tables.items()}


def _may_need_chain(counts: _Counts, subset) -> bool:
    """Whether the exact method may run the chain on ``subset``: counts the float chain holds exactly and
    some value that may expect fewer than 2^60 matching rows (bounded below by each class's smallest counts).
    """
    if max([*counts.p, *(max(counts.largest[a]) for a in subset)]) > FLOAT_EXACT:
        return False  # the audit refuses such counts (ValueError) before running the chain
    lowest = []
    for c, p in enumerate(counts.p):
        log_p = _log(p)
        lowest.append(log_p + sum(_log(counts.smallest[a][c]) - log_p for a in subset))
    return max(lowest) < LIMIT_LOG_MEAN


def _chain_widths(p: int, largest: list[int]) -> list[int]:
    """Upper bounds of the matching count after each link of one class's chain (population ``p``, the
    largest count of each attribute in chain order): the first link matches exactly ``N_1`` rows; a link of
    ``j`` draws keeps at most ``min(N, j, j N / p + 17 sqrt(j N / p) + 51)`` (the window of
    :func:`privnb.nbc._hypergeometric.chain_posteriors`' hypergeometric blocks, rounded up), whatever the value.
    """
    bounds = [largest[0]]
    for n in largest[1:]:
        mean = bounds[-1] * n / p
        bounds.append(min(n, bounds[-1], math.ceil(mean + TAIL_SD * math.sqrt(mean) + TAIL_PAD + 1)))
    return [b + 1 for b in bounds]


def _chain_bytes(counts: _Counts, domains: list[int], largest: list[list[int]]) -> int:
    """Peak bytes of the chains of one quasi-identifier (:func:`privnb.nbc._hypergeometric.chain_posteriors`),
    from its domain sizes and, per class, its attributes' largest counts (chain order): each class's rows after
    each link, as wide as its bound, and the working blocks (draws times matches of a link; a class's matches
    times the others' at the end).
    """
    # the prefix (all but the last attribute) holds one row per value of its attributes; the last link is
    # taken one value at a time, on the prefix's rows
    rows = [math.prod(domains[:m]) for m in range(1, len(domains))]
    rows.append(rows[-1] if rows else 1)
    kept, block, last = 0, 1, []
    for p, counts_c in zip(counts.p, largest):
        widths = _chain_widths(p, counts_c)
        kept += max(r * w for r, w in zip(rows, widths))
        block = max([block, *(a * b for a, b in itertools.pairwise(widths))])
        last.append(widths[-1])
    block = max(block, max(last) * sum(last))
    return _FLOAT * (_CHAIN_COPIES * kept + _CHAIN_TEMPORARIES * min(2 * BLOCK, block))


def _subset_chain_bytes(counts: _Counts, subset) -> int:
    """:func:`_chain_bytes` of the quasi-identifier ``subset`` (0 when it cannot need the chain)."""
    if not _may_need_chain(counts, subset):
        return 0
    largest = [[counts.largest[a][c] for a in subset] for c in range(len(counts.p))]
    return _chain_bytes(counts, [counts.domain[a] for a in subset], largest)


def _block_bytes(views, size: int, n_values: int) -> int:
    """Peak bytes of one block of ``n_values`` values of ``size`` attributes, outside the chain."""
    return n_values * (_BLOCK_PER_LABEL * len(views.labels) + _BLOCK_PER_ATTRIBUTE * size)


def _subsets(views, max_size: int):
    return itertools.chain.from_iterable(
        itertools.combinations(views.attributes, size) for size in range(1, max_size + 1)
    )


def audit_memory(views, *, max_size: int, method: str = "exact", table: bool = True) -> dict:
    """The estimated peak memory of an audit, from its parameters, without allocating.

    Parameters
    ----------
    views : NBCViews
        The views audited.
    max_size : int
        The largest quasi-identifier size.
    method : {"exact", "expected"}
        The audit's method (only "exact" may run the hypergeometric chain).
    table : bool
        Whether the audit builds its table (:func:`privnb.nbc.audit`) or only its r
        (:func:`privnb.nbc.achieved_r`).

    Returns
    -------
    dict
        ``values`` (quasi-identifier values audited), ``rows`` (table rows: values times properties),
        ``bytes`` (the estimate) and ``largest`` (the attributes of the largest block).
    """
    sizes = {a: len(views.domain(a)) for a in views.attributes}
    n_labels = len(views.labels)
    n_properties = 2**n_labels - 2
    by_size = [0] * (max_size + 1)  # values of all quasi-identifiers of each size (elementary symmetric sums)
    by_size[0] = 1
    for d in sizes.values():
        for s in range(max_size, 0, -1):
            by_size[s] += by_size[s - 1] * d
    values = sum(by_size[1:])
    largest = sorted(views.attributes, key=sizes.get, reverse=True)[:max_size]
    block = max(_block_bytes(views, s, n) for s, n in enumerate(by_size) if s)
    rows = values * n_properties
    need = _BASE + block
    if table:
        per_row = _TABLE_ROW + _FLOAT * len(sizes)
        need += rows * (2 * per_row + _TABLE_EXTRA)
    if method == "exact":
        need += _chain_peak(views, max_size)
    return dict(values=values, rows=rows, bytes=int(need), largest=tuple(largest))


def _chain_peak(views, max_size: int) -> int:
    """The largest chain of any quasi-identifier of at most ``max_size`` attributes (0 when none needs one)."""
    counts = _Counts(views)
    n_subsets = sum(math.comb(views.n_attributes, s) for s in range(1, max_size + 1))
    if n_subsets <= _MAX_SUBSETS:
        return max((_subset_chain_bytes(counts, s) for s in _subsets(views, max_size)), default=0)
    if not _may_need_chain(counts, views.attributes):
        return 0
    # too many to look at one by one: the largest domains, every link as wide as the largest count
    domains = sorted(counts.domain.values(), reverse=True)[:max_size]
    largest = [[max(counts.largest[a][c] for a in views.attributes)] * max_size for c in range(len(counts.p))]
    return _chain_bytes(counts, domains, largest)


def check_audit_memory(views, *, max_size: int, method: str, table: bool, limit: int | None = None) -> dict:
    """Refuse an audit whose estimated peak memory (:func:`audit_memory`) exceeds ``limit``.

    Parameters
    ----------
    views : NBCViews
        The views audited.
    max_size : int
        The largest quasi-identifier size.
    method : {"exact", "expected"}
        The audit's method.
    table : bool
        Whether the audit builds its table.
    limit : int, optional
        Bytes the audit may take; default :data:`AUDIT_MEMORY_BUDGET`.

    Returns
    -------
    dict
        :func:`audit_memory`'s estimate, with ``limit``.

    Raises
    ------
    AuditTooLarge
        When the estimate exceeds the limit; nothing has been allocated.
    """
    estimate = audit_memory(views, max_size=max_size, method=method, table=table)
    limit = AUDIT_MEMORY_BUDGET if limit is None else int(limit)
    if estimate["bytes"] > limit:
        domains = " x ".join(str(len(views.domain(a))) for a in views.attributes)
        raise AuditTooLarge(
            f"this audit would take about {estimate['bytes'] / 2**30:.1f} GiB, over its limit of "
            f"{limit / 2**30:.1f} GiB (memory_limit, default AUDIT_MEMORY_BUDGET): {views.n_attributes} attributes "
            f"of {domains} values, "
            f"max_size={max_size}, so {estimate['values']:,} quasi-identifier values and "
            f"{estimate['rows']:,} rows. Lower max_size (the largest quasi-identifier audited), audit fewer "
            "attributes, or coarsen the largest domains (generalize their values); method='expected' drops "
            "only the exact chain's share. A larger memory_limit lets it try."
        )
    return {**estimate, "limit": limit}


@dataclass(frozen=True)
class AuditPlan:
    """What :func:`plan_audit` chose: the largest audit of some views that fits its memory budget.

    Attributes
    ----------
    max_size : int
        The largest quasi-identifier size audited (0: nothing fits, the audit is skipped).
    method : str
        The method chosen: the one asked for, or ``"expected"`` when only it fits.
    requested : int
        The size asked for.
    bytes : int
        The estimate (:func:`audit_memory`) of the audit chosen (of the smallest refused when none fits).
    budget : int
        The memory budget, in bytes.
    why : str
        ``""`` when the audit runs as asked; else one line: what was chosen, why, and which parameter changes it.
    """

    max_size: int
    method: str
    requested: int
    bytes: int
    budget: int
    why: str

    @property
    def runs(self) -> bool:
        """Whether an audit runs at all (``max_size >= 1``)."""
        return self.max_size >= 1


def plan_audit(
    views,
    *,
    max_size: int | None,
    method: str = "exact",
    table: bool = True,
    budget: int | None = None,
    size_parameter: str = "max_size",
    budget_parameter: str = "memory_limit",
) -> AuditPlan:
    """The largest audit of ``views`` that fits ``budget`` (by :func:`audit_memory`'s estimate), and one line
    saying what was chosen when it is not the audit asked for.

    The estimate grows with the quasi-identifiers' values (the size, the domains) and, on the exact method,
    with the rows a value can match (the counts: a table's rows, or the counts SafetyTransform publishes). The
    largest size that fits is taken, at most ``max_size``; when not even single attributes fit the exact
    method, the ``"expected"`` posterior ``E[K_c]/E[S]`` (its relative difference from the exact one is
    ``O(1/E[S])``, negligible for such counts) is taken at the largest size that fits; when nothing fits, the
    audit is skipped. The line names the parameters that change the choice.

    Parameters
    ----------
    views : NBCViews
        The views to audit.
    max_size : int or None
        The largest quasi-identifier size wished for (at least 1; None: every attribute).
    method : {"exact", "expected"}
        The method wished for.
    table : bool
        Whether the audit builds its table (:func:`privnb.nbc.audit`) or only its r.
    budget : int, optional
        Bytes the audit may take; default :data:`AUDIT_MEMORY_BUDGET`.
    size_parameter, budget_parameter : str
        The names the caller gives the size and the budget (a notebook's parameters), for the line.

    Returns
    -------
    AuditPlan
    """
    max_size = views.n_attributes if max_size is None else int(max_size)
    if max_size < 1:
        raise ValueError(f"{size_parameter} must be at least 1, got {max_size!r}")
    budget = AUDIT_MEMORY_BUDGET if budget is None else int(budget)
    requested = min(max_size, views.n_attributes)
    methods = [method] + (["expected"] if method == "exact" else [])
    refused = {}
    for how in methods:
        for size in range(requested, 0, -1):
            need = audit_memory(views, max_size=size, method=how, table=table)["bytes"]
            if need > budget:
                refused.setdefault(how, (size, need))
                continue
            if how == method and size == requested:
                return AuditPlan(size, how, max_size, need, budget, "")
            asked, over = refused[method]
            chosen = f"up to {size} attribute(s)" + (f", method {how!r}" if how != method else "")
            return AuditPlan(
                size,
                how,
                max_size,
                need,
                budget,
                f"audited quasi-identifiers of {chosen}: {asked} attribute(s) by method {method!r} would take "
                f"about {_gib(over)} GiB, over the {_gib(budget)} GiB budget (raise {budget_parameter} for it)",
            )
    over = refused[methods[-1]][1]
    return AuditPlan(
        0,
        method,
        max_size,
        over,
        budget,
        f"skipped: even single attributes would take about {_gib(over)} GiB, over the {_gib(budget)} GiB budget "
        f"(domains {' x '.join(str(len(views.domain(a))) for a in views.attributes)}); raise {budget_parameter}",
    )


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f}"
