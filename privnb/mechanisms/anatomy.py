"""Xiao and Tao's anatomy: l-diverse groups, the identifying and sensitive tables, and their join.

Anatomization (Definition 11 of MC17, Definition 10 of MC16) publishes an identifying table
IT (class and quasi-identifiers with a group id) and a sensitive table ST (group id and sensitive value),
so that every individual can be linked to the l sensitive values of its group but not told which one is
its own. :func:`anatomize` forms the groups with Xiao and Tao's bucketization (Anatomy, VLDB 2006), the
algorithm both papers used; :meth:`Anatomy.join` builds the anatomized training data D_A
(Definition 12 of MC17) and :meth:`Anatomy.identifying` the identifying training data D_id
(Definition 13 of MC17).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.mechanisms.base import Mechanism, as_rows
from privnb.validation import check_int, resolve_column, with_labels

__all__ = [
    "Anatomy",
    "NotLDiverseError",
    "anatomize",
    "bucketize",
    "is_l_diverse",
    "with_labels",
    "resolve_column",
    "SensitiveDropper",
    "Anatomizer",
]

RESIDUES = ("suppress", "assign")


class NotLDiverseError(ValueError):
    """The data has fewer distinct sensitive values than l, so no l-diverse group can be formed."""


@dataclass(frozen=True)
class Anatomy:
    """The published pair (IT, ST) of an anatomization (Definition 11 of MC17).

    Attributes
    ----------
    it : DataFrame
        Identifying table: every column of the input except the sensitive one, plus ``gid``. Its index
        holds the individual's row label in the input (named ``"row_id"``). Rows are sorted by ``gid``,
        in random order within a group; group ids are a random permutation of ``0..groups-1``.
    st : DataFrame
        Sensitive table, columns ``["gid", sensitive]``: one row per grouped individual (not counts),
        in random order within a group and independent of IT's order, with no row ids.
    suppressed : Index
        Labels of the input rows that could not be grouped (the bucketization's residue).
    sensitive : str
        Name of the sensitive column.
    l : int
        The diversity parameter.
    residue : str
        ``"suppress"`` or ``"assign"`` (see :func:`anatomize`).
    """

    it: pd.DataFrame
    st: pd.DataFrame
    suppressed: pd.Index
    sensitive: str
    l: int
    residue: str = "suppress"

    def join(self) -> pd.DataFrame:
        """Anatomized training data D_A (Definitions 11-12 of MC17): IT joined with ST on ``gid``.

        Every IT row appears once with each sensitive value of its group: ``sum |G|^2`` rows, that is
        N * l rows when every group holds l rows (``residue="suppress"``).

        Returns
        -------
        DataFrame
            The IT columns without ``gid``, then the sensitive column, then ``"row_id"`` (the individual's
            label, so later steps can choose among its candidates); a fresh RangeIndex.
        """
        it_gid = self.it["gid"].to_numpy()
        st_gid = self.st["gid"].to_numpy()
        sizes = np.bincount(st_gid)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        st_order = np.argsort(st_gid, kind="stable")
        reps = sizes[it_gid]
        it_pos = np.repeat(np.arange(len(it_gid)), reps)
        # offset of each output row within its IT row's block: 0..|G|-1
        offsets = np.arange(len(it_pos)) - np.repeat(np.cumsum(reps) - reps, reps)
        st_pos = st_order[starts[it_gid[it_pos]] + offsets]
        out = self.it.drop(columns="gid").iloc[it_pos]
        row_id = out.index.to_numpy()
        out = out.reset_index(drop=True)
        out[self.sensitive] = self.st[self.sensitive].array.take(st_pos)
        out["row_id"] = row_id
        return out

    def identifying(self) -> pd.DataFrame:
        """Identifying training data D_id (Definition 13 of MC17): IT without ``gid``."""
        return self.it.drop(columns="gid")

    def suppression_report(self) -> dict:
        """How many rows the bucketization kept and suppressed (the papers' theorems assume none).

        Returns
        -------
        dict
            ``rows`` (input rows), ``rows_grouped``, ``rows_suppressed``, ``fraction_suppressed``,
            ``groups``, ``min_group_size``, ``max_group_size``, ``l``, ``residue``.
        """
        sizes = self.st["gid"].value_counts()
        grouped = len(self.it)
        total = grouped + len(self.suppressed)
        return {
            "rows": total,
            "rows_grouped": grouped,
            "rows_suppressed": len(self.suppressed),
            "fraction_suppressed": len(self.suppressed) / total if total else 0.0,
            "groups": len(sizes),
            "min_group_size": int(sizes.min()) if len(sizes) else 0,
            "max_group_size": int(sizes.max()) if len(sizes) else 0,
            "l": self.l,
            "residue": self.residue,
        }


def bucketize(counts, l: int) -> np.ndarray:
    """Xiao and Tao's group creation on bucket sizes: which buckets feed each group.

    While at least ``l`` buckets are non-empty, one row is taken from each of the ``l`` largest buckets
    (ties go to the lower bucket index) to form a group. The loop runs over *runs* of identical groups
    (a run lasts while the same ``l`` buckets stay the largest) with a heap of bucket sizes:
    O(runs * l * log(buckets)); rows are never touched here.

    Parameters
    ----------
    counts : array-like of int
        Size of each bucket (one bucket per sensitive value).
    l : int
        Number of buckets feeding each group.

    Returns
    -------
    ndarray of shape (groups, l)
        Bucket indices of each group, in the order the algorithm forms the groups; each row sorted.
    """
    l = check_int(l, "l")
    raw = np.asarray(counts)
    if raw.ndim != 1 or (
        raw.size
        and not (
            np.issubdtype(raw.dtype, np.integer)
            or (np.issubdtype(raw.dtype, np.floating) and np.all(np.isfinite(raw)) and np.all(raw == np.round(raw)))
        )
    ):
        raise ValueError(f"counts must be a 1-D sequence of non-negative integers (bucket sizes), got {counts!r}")
    if (raw < 0).any():
        raise ValueError(f"counts must be non-negative bucket sizes, got {counts!r}")
    # heap entries (-count, bucket): the smallest entry is the largest bucket, ties to the lower index
    heap = [(-int(c), v) for v, c in enumerate(raw.tolist()) if c > 0]
    heapq.heapify(heap)
    sets, reps = [], []
    while len(heap) >= l:
        chosen = [heapq.heappop(heap) for _ in range(l)]
        a, i = -chosen[-1][0], chosen[-1][1]
        if heap:  # the run ends when the next bucket overtakes the smallest chosen one
            b, j = -heap[0][0], heap[0][1]
            run = a - b + (1 if i < j else 0)
        else:
            run = a
        sets.append([v for _, v in chosen])
        reps.append(run)
        for negative, v in chosen:
            if negative + run < 0:
                heapq.heappush(heap, (negative + run, v))
    if not sets:
        return np.empty((0, l), dtype=np.intp)
    return np.repeat(np.sort(np.asarray(sets, dtype=np.intp), axis=1), reps, axis=0)


def _check_inputs(data: pd.DataFrame, sensitive, l) -> None:
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"anatomize expects a pandas DataFrame, got {type(data).__name__}.")
    if sensitive not in data.columns:
        raise ValueError(f"Sensitive column {sensitive!r} is not among the columns {list(data.columns)}.")
    check_int(l, "l")
    if "gid" in data.columns:
        raise ValueError("The data already has a 'gid' column; rename it: anatomize adds the group id.")
    if not data.index.is_unique:
        raise ValueError(
            "The data's index must identify rows uniquely (it becomes IT's row_id); call reset_index() first."
        )
    if data[sensitive].isna().any():
        raise ValueError(f"Sensitive column {sensitive!r} has missing values; drop or impute them first.")


@shared_doc
def anatomize(data: pd.DataFrame, sensitive, l: int, *, residue: str = "suppress", random_state=None) -> Anatomy:
    """Anatomize ``data`` into l-diverse groups (Definition 11 of MC17, Xiao and Tao's algorithm).

    Rows are bucketed by sensitive value; while at least ``l`` buckets are non-empty, one random row
    of each of the ``l`` largest buckets forms a group (:func:`bucketize`). Every group thus holds ``l``
    rows with ``l`` distinct sensitive values. The rows left over (the residue) are suppressed, as in
    the papers' experiments (Section 5 of MC16), or, with ``residue="assign"``, each is added to a
    random group that lacks its sensitive value (Xiao and Tao's residue assignment; a residue row no
    group can take is suppressed, so the output stays l-diverse).

    Parameters
    ----------
    data : DataFrame
        One row per individual; its index labels become IT's ``row_id``.
    sensitive : str
        The sensitive column.
    l : int
        Diversity: every group has at least ``l`` distinct sensitive values, each with frequency
        at most 1/l (Definition 10 of MC17).
    residue : {"suppress", "assign"}
        What happens to the rows left over: suppressed (the papers' experiments) or assigned to a group.
    random_state : int, RandomState or None
        Drives which rows of a bucket are taken, the group ids and the order within groups.
        {random_state}

    Returns
    -------
    Anatomy

    Raises
    ------
    NotLDiverseError
        When ``data`` has fewer than ``l`` distinct sensitive values.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Instance-Based Learning with l-diversity", Transactions on
       Data Privacy 10, 2017 (MC17).
    .. [2] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", arXiv version, October 2016 (MC16; the text gives no venue).
    .. [3] X. Xiao and Y. Tao, "Anatomy: Simple and Effective Privacy Preservation", Proceedings of the
       32nd International Conference on Very Large Data Bases (VLDB), 2006 (as MC17 and MC16 cite it).
    """
    _check_inputs(data, sensitive, l)
    if residue not in RESIDUES:
        raise ValueError(f"residue must be one of {RESIDUES}, got {residue!r}.")
    rng = check_random_state(random_state)
    codes, values = pd.factorize(data[sensitive], sort=True)
    if len(values) < l:
        raise NotLDiverseError(
            f"Sensitive column {sensitive!r} has {len(values)} distinct value(s), fewer than l={l}: "
            f"no {l}-diverse group exists. Choose l <= {len(values)}."
        )
    counts = np.bincount(codes, minlength=len(values))
    groups = bucketize(counts, l)
    n_groups = len(groups)

    # Rows of each bucket in random order; a bucket's first t_v rows feed its t_v groups.
    rows_by_bucket = np.lexsort((rng.permutation(len(codes)), codes))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    slot_bucket = groups.ravel()
    slot_group = np.repeat(np.arange(n_groups), l)
    by_bucket = np.argsort(slot_bucket, kind="stable")
    taken = np.bincount(slot_bucket, minlength=len(values))
    rank = np.arange(len(slot_bucket)) - np.repeat(np.cumsum(taken) - taken, taken)
    member = np.empty(len(slot_bucket), dtype=np.intp)
    member[by_bucket] = rows_by_bucket[starts[slot_bucket[by_bucket]] + rank]

    left_mask = np.ones(len(codes), dtype=bool)
    left_mask[member] = False
    left = np.flatnonzero(left_mask)
    if residue == "assign" and len(left):
        member, slot_group, left = _assign_residue(codes, member, slot_group, left, n_groups, rng)

    gid = rng.permutation(n_groups)[slot_group]
    it_order = np.lexsort((rng.permutation(len(member)), gid))
    st_order = np.lexsort((rng.permutation(len(member)), gid))
    it = data.drop(columns=sensitive).iloc[member[it_order]]
    it["gid"] = gid[it_order]
    it.index.name = "row_id"
    st = pd.DataFrame({"gid": gid[st_order], sensitive: data[sensitive].array.take(member[st_order])})
    return Anatomy(it=it, st=st, suppressed=data.index[left], sensitive=sensitive, l=l, residue=residue)


def _assign_residue(codes, member, slot_group, left, n_groups, rng):
    """Xiao and Tao's residue assignment: each residue row joins a random group lacking its value."""
    grouped_codes = codes[member]
    new_rows, new_groups, still_left = [member], [slot_group], []
    for v in np.unique(codes[left]):  # one pass per sensitive value, not per row
        rows = rng.permutation(left[codes[left] == v])
        free = np.setdiff1d(np.arange(n_groups), slot_group[grouped_codes == v])
        n = min(len(rows), len(free))
        new_rows.append(rows[:n])
        new_groups.append(rng.choice(free, size=n, replace=False))
        still_left.append(rows[n:])
    still = np.sort(np.concatenate(still_left)) if still_left else left[:0]
    return np.concatenate(new_rows), np.concatenate(new_groups), still


def is_l_diverse(frame_or_anatomy, sensitive=None, l: int | None = None, *, group: str = "gid") -> bool:
    """Whether every group is l-diverse (Definition 10 of MC17): freq(v, G) / |G| <= 1/l.

    Parameters
    ----------
    frame_or_anatomy : Anatomy or DataFrame
        An :class:`Anatomy` (its ST is checked) or a frame with a group column and the sensitive column.
    sensitive : str, optional
        The sensitive column; defaults to the Anatomy's.
    l : int, optional
        Defaults to the Anatomy's; required for a frame.
    group : str
        The group column of a frame.
    """
    if isinstance(frame_or_anatomy, Anatomy):
        frame = frame_or_anatomy.st
        sensitive = frame_or_anatomy.sensitive if sensitive is None else sensitive
        l = frame_or_anatomy.l if l is None else l
    else:
        frame = frame_or_anatomy
    if l is None or sensitive is None:
        raise ValueError(
            "is_l_diverse on a frame needs the sensitive column and l, e.g. is_l_diverse(frame, 'education', 3)."
        )
    check_int(l, "l")
    if len(frame.columns) == 0:
        raise ValueError(
            "frame has no columns (an empty frame); is_l_diverse needs the group column "
            f"{group!r} and the sensitive column {sensitive!r}."
        )
    missing = [c for c in (group, sensitive) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"Columns {missing} not found; is_l_diverse needs the group column {group!r} and the sensitive column."
        )
    from privnb.mechanisms.grouping import check_columns

    check_columns(frame, [group, sensitive], "frame")  # duplicated names; a missing value is no pass
    if len(frame) == 0:
        return True
    counts = frame.groupby([group, sensitive], observed=True).size()
    max_freq = counts.groupby(level=0).max()
    sizes = counts.groupby(level=0).sum()
    return bool((l * max_freq <= sizes).all())


class SensitiveDropper(Mechanism):
    """Mechanism of the identifying view D_id (Definition 13 of MC17): drop the sensitive column.

    Parameters
    ----------
    sensitive : str or int
        The sensitive column (name, or position for array input).

    Attributes
    ----------
    sensitive_ : the dropped column's label; n_suppressed_ : int, always 0.
    """

    def __init__(self, sensitive):
        self.sensitive = sensitive

    def _fit_resample(self, X, y):
        """Every training row without the sensitive column, and the labels unchanged."""
        self.sensitive_ = resolve_column(X, self.sensitive)
        view = X.drop(columns=self.sensitive_)
        if view.shape[1] == 0:
            raise ValueError(
                f"X has {X.shape[1]} feature(s), only the sensitive one: the identifying "
                "view would have no columns to learn from."
            )
        self.suppressed_ = X.index[:0]
        return view, y


@shared_doc
class Anatomizer(Mechanism):
    """Mechanism of the anatomized view D_A (Definitions 11-12 and 14 of MC17).

    The training rows, with their labels, are anatomized with :func:`anatomize`; IT is joined with
    ST, so each kept individual appears ``l`` times, once with each sensitive value of its group:
    ``fit_resample`` returns those N*l rows and their labels.

    Parameters
    ----------
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
        Diversity of the anatomization (:func:`anatomize`).
    residue : {"suppress", "assign"}
        What happens to rows the bucketization cannot group (see :func:`anatomize`).
    random_state : int, RandomState or None
        Drives the anatomization's random choices.
        {random_state}

    Attributes
    ----------
    anatomy_ : Anatomy of the training rows (relabelled 0..n-1).
    n_suppressed_ : int, individuals the bucketization dropped.
    """

    def __init__(self, sensitive, l, *, residue="suppress", random_state=None):
        self.sensitive = sensitive
        self.l = l
        self.residue = residue
        self.random_state = random_state

    def joined(self, X, y) -> tuple[pd.DataFrame, str]:
        """Anatomize ``X`` with its labels (sets ``anatomy_``): D_A and the name of its label column.

        The labels travel with the rows through the anatomization (they belong to IT); mechanisms that
        select among each individual's candidate rows (:class:`privnb.mechanisms.AnatomyPruner`) start here.

        Parameters
        ----------
        X : DataFrame or array-like
            The training rows.
        y : array-like
            Their labels.
        """
        X = as_rows(X)
        sensitive = resolve_column(X, self.sensitive)
        if isinstance(self.l, (int, np.integer)) and len(X) < self.l:
            raise ValueError(
                f"Got {len(X)} sample(s): anatomizing with l={self.l} needs at least {self.l} training rows."
            )
        data, target = with_labels(X.reset_index(drop=True), y)
        self.anatomy_ = anatomize(data, sensitive, self.l, residue=self.residue, random_state=self.random_state)
        self.release_ = self.anatomy_
        self.suppressed_ = self.anatomy_.suppressed
        return self.anatomy_.join(), target

    def _fit_resample(self, X, y):
        """D_A of the training rows: IT joined with ST (N*l rows), and the labels of those rows."""
        joined, target = self.joined(X, y)
        return joined[list(X.columns)], joined[target].to_numpy()
