"""k-anonymity by generalization: full-domain (lattice search) and Mondrian.

- :func:`is_k_anonymous`: every combination of quasi-identifier values occurs at least k times.
- :class:`FullDomainGeneralizer`: one generalization level per attribute for the whole table
  (Samarati's full-domain generalization), all minimal k-anonymous lattice nodes found exactly,
  with a suppression budget, and one chosen by a stated utility measure.
- :class:`MondrianGeneralizer`: LeFevre, DeWitt and Ramakrishnan's strict multidimensional
  partitioning (median splits), with a recorded split tree so that any row can be recoded.

Both expose ``transform`` (the encoding for learning: numbers -> float midpoints, categories ->
generalized labels) and ``generalize`` (the release labels, e.g. ``"[20-30)"``), and hierarchies
live in :mod:`privnb.hierarchy` (re-exported here).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from privnb.hierarchy import TOP, Hierarchy, format_interval

__all__ = ["Hierarchy", "is_k_anonymous", "FullDomainGeneralizer", "MondrianGeneralizer",
           "adult_hierarchies"]

_NOT, _UNKNOWN, _ANON = -1, 0, 1
_MAX_LATTICE = 5_000_000


# -- shared helpers ----------------------------------------------------------------------
def _combine(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """One int64 key per row from several code columns (mixed radix, compressed on overflow)."""
    key = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    span = 1
    for c, size in zip(codes, sizes):
        size = max(int(size), 1)
        if span * size >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            span = int(key.max()) + 1 if len(key) else 1
        key = key * size + c
        span *= size
    return key


def _group_sizes(key: np.ndarray, weights: np.ndarray | None = None,
                 span: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(group of each entry, weighted size of each group); ``span`` bounds the keys when known.

    Groups are numbered in no particular order: a bincount when the span is small, else a
    hash table (pandas.factorize, several times faster than sorting).
    """
    if span is not None and span <= 2 * len(key) + 1024:
        counts = np.bincount(key, weights=weights, minlength=span)
        present = np.flatnonzero(counts)
        rank = np.zeros(span, dtype=np.intp)
        rank[present] = np.arange(len(present))
        return rank[key], counts[present].astype(np.int64)
    inverse = pd.factorize(key)[0]
    return inverse, np.bincount(inverse, weights=weights).astype(np.int64)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return int(k)


def _check_frame(frame, quasi_identifiers) -> tuple[pd.DataFrame, list[str]]:
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    if isinstance(quasi_identifiers, str) or len(quasi_identifiers) == 0:
        raise ValueError("quasi_identifiers must be a non-empty list of column names")
    qi = list(quasi_identifiers)
    missing = [c for c in qi if c not in frame.columns]
    if missing:
        raise ValueError(f"quasi-identifiers {missing} are not columns of the frame "
                         f"(columns: {list(frame.columns)})")
    return frame, qi


def is_k_anonymous(frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int) -> bool:
    """True when each combination of quasi-identifier values occurs in at least ``k`` rows.

    k-anonymity as in Definition 1 of seed 001 (Samarati 2001); an empty frame is
    k-anonymous. Missing values count as one more value.
    """
    frame, qi = _check_frame(frame, quasi_identifiers)
    k = _check_k(k)
    if len(frame) == 0:
        return True
    codes, sizes = [], []
    for c in qi:
        codes_c, uniques = pd.factorize(frame[c], use_na_sentinel=False)
        codes.append(codes_c)
        sizes.append(len(uniques))
    _, counts = _group_sizes(_combine(codes, sizes))
    return bool(counts.min() >= k)


def _as_hierarchy(attribute: str, h) -> Hierarchy:
    if isinstance(h, Hierarchy):
        return h
    if isinstance(h, pd.DataFrame):
        return Hierarchy.from_arx(h, name=attribute)
    raise ValueError(f"hierarchy for {attribute!r} must be a Hierarchy or an ARX table "
                     f"(DataFrame), got {type(h).__name__}")


def adult_hierarchies(*, data_home=None) -> dict[str, Hierarchy]:
    """Hierarchies for Adult's quasi-identifiers: ARX's tables, plus intervals for the rest.

    ARX (``privnb.datasets.load_adult_hierarchies``): age, education, marital-status,
    native-country, occupation, race, salary-class, sex, workclass. Built here (top ``*``):
    capital-gain over [0, 99999] (cuts {1, 2500, 5000, 7500, 10000, 15000, 20000, 50000}, then
    {1, 5000, 10000, 20000}, then {1}: zero against positive); capital-loss over [0, 4356]
    ({1, 1000, 1500, 2000, 2500, 3000}, {1, 2000}, {1}); hours-per-week over [0, 100] (widths 10,
    20, 40, 80).
    """
    from privnb.datasets import load_adult_hierarchies

    out = {a: Hierarchy.from_arx(t, name=a) for a, t in load_adult_hierarchies(data_home=data_home).items()}
    out["capital-gain"] = Hierarchy.intervals(
        0, 99999, name="capital-gain",
        cuts=[[1, 2500, 5000, 7500, 10000, 15000, 20000, 50000], [1, 5000, 10000, 20000], [1]])
    out["capital-loss"] = Hierarchy.intervals(
        0, 4356, name="capital-loss", cuts=[[1, 1000, 1500, 2000, 2500, 3000], [1, 2000], [1]])
    out["hours-per-week"] = Hierarchy.intervals(0, 100, width=10, name="hours-per-week")
    return out


def _parts(heights: Sequence[int], n_entries: int, budget: int) -> list[list[int]]:
    """Attributes split into the fewest parts whose sub-lattices' ids fit ``budget`` entries.

    Greedy balancing of the sub-lattice sizes (largest height first, into the smallest part).
    """
    order = np.argsort(-np.asarray(heights), kind="stable").tolist()
    for n_parts in range(1, len(heights) + 1):
        parts, sizes = [[] for _ in range(n_parts)], [1] * n_parts
        for i in order:
            j = min(range(n_parts), key=lambda j: (sizes[j], len(parts[j])))
            parts[j].append(i)
            sizes[j] *= int(heights[i])
        if sum(sizes) * n_entries <= budget:
            break
    return [sorted(p) for p in parts if p]


class _GroupSizes:
    """Group sizes at any lattice node, from the distinct raw combinations and their counts.

    The table is the distinct raw quasi-identifier combinations ("entries") with their row
    counts as weights. Attributes are split into a few parts (:func:`_parts`); for each part
    and each of its sub-lattice nodes, the dense id of every entry's part-combination is
    computed once, lazily. A node's key per entry is the mixed-radix combination of its parts'
    ids, counted by a weighted ``np.bincount`` when the key span is small, else by a hash
    table. Tables of checked nodes at most half the size of their source are kept (one
    representative entry and the weight of each group, recycled in a ring of ``slots``, at
    most ``cached_entries`` entries in all), and a check rolls up from the smallest kept table
    below its node (Incognito's roll-up, LeFevre et al. 2005). Each check first makes sure the
    table of its *anchor* (every level rounded down to an even level) is built and pinned (at
    most ``anchors`` of them), so that no check far above the raw table rolls up from it.
    ``id_budget`` bounds the part ids kept (int16 or int32 entries, over all sub-lattices).
    """

    def __init__(self, maps, raw, *, id_budget: int = 1 << 23, slots: int = 1024,
                 anchors: int = 512, cached_entries: int = 1 << 22):
        self.maps = maps
        self.n_groups = [[int(m.max()) + 1 for m in levels] for levels in maps]
        group, counts = _group_sizes(_combine(raw, [s[0] for s in self.n_groups]))
        self.codes = _scatter(group, len(counts), raw)  # level-0 code of each entry
        self.weights = counts.astype(float)
        heights = [len(levels) for levels in maps]
        self.parts = _parts(heights, len(counts), id_budget)
        self.ids = [{} for _ in self.parts]
        self.step = 2  # anchor grid
        # a node's levels as unary bit masks (l ones for level l), packed in 62-bit words, so
        # that "table <= node" is one AND per word over all kept tables
        self.place, word, used = [], 0, 0
        for h in heights:
            if h - 1 > 62:
                raise ValueError(f"a hierarchy has {h} levels; at most 63 are supported")
            if used + h - 1 > 62:
                word, used = word + 1, 0
            self.place.append((word, used))
            used += h - 1
        n_slots = 1 + anchors + slots
        self.src_bits = np.full((n_slots, word + 1), -1, dtype=np.int64)  # -1: matches no node
        self.src_bits[0] = 0
        self.src_size = np.full(n_slots, np.iinfo(np.intp).max, dtype=np.intp)
        self.src_size[0] = len(counts)
        self.src = [(None, self.weights)] + [None] * (n_slots - 1)  # (representative entries, weights)
        self.anchors, self.max_anchors = {}, anchors
        self.ring, self.cached, self.cached_entries = 1 + anchors, 0, cached_entries

    def _part_ids(self, p: int, sub: tuple) -> tuple[np.ndarray, int]:
        """Dense id of each entry's combination of part ``p``'s attributes at levels ``sub``."""
        got = self.ids[p].get(sub)
        if got is None:
            attrs = self.parts[p]
            cols = [self.maps[i][lv][self.codes[i]] for i, lv in zip(attrs, sub)]
            span = [self.n_groups[i][lv] for i, lv in zip(attrs, sub)]
            ids, counts = _group_sizes(_combine(cols, span), span=math.prod(span))
            dtype = np.int16 if len(counts) <= 2**15 else np.int32  # compact: gathers hit cache
            got = self.ids[p][sub] = (ids.astype(dtype), len(counts))
        return got

    def groups(self, node: Sequence[int], rep: np.ndarray | None = None):
        """(mixed-radix key at ``node`` of each entry, or of each ``rep`` entry; its span)."""
        key, span = None, 1
        for p, attrs in enumerate(self.parts):
            ids, n = self._part_ids(p, tuple(node[i] for i in attrs))
            if n == 1:
                continue
            if rep is not None:
                ids = ids[rep]
            if key is None:
                key = ids.astype(np.intp)
            else:
                if span * n >= 2**62:
                    key = pd.factorize(key)[0].astype(np.intp)
                    span = int(key.max()) + 1
                key = key * n + ids
            span *= n
        if key is None:
            key = np.zeros(len(self.weights) if rep is None else len(rep), dtype=np.intp)
        return key, span

    def _bits(self, node: list) -> np.ndarray:
        bits = [0] * self.src_bits.shape[1]
        for lv, (word, offset) in zip(node, self.place):
            bits[word] |= ((1 << lv) - 1) << offset
        return np.array(bits, dtype=np.int64)

    def _store(self, slot: int, node: list, table) -> None:
        self.src_bits[slot] = self._bits(node)
        self.src_size[slot] = len(table[0])
        self.src[slot] = table

    def _rollup(self, node: list, source: int, force: bool):
        """(group sizes at ``node`` from table ``source``; the node's table, when forced or at
        most half the source's size, else None)."""
        rep, weights = self.src[source]
        key, span = self.groups(node, rep)
        m = len(key)
        if span <= 4 * m + 1024:  # else a hash table is cheaper than zeroing the span
            counts = np.bincount(key, weights=weights, minlength=span)
            present = np.flatnonzero(counts)
            size = counts[present]
            if not force and 2 * len(size) > m:
                return size, None
            first = np.empty(span, dtype=np.intp)
            first[key] = np.arange(m)
            entries, counts = first[present], size
        else:
            group, size = _group_sizes(key, weights)
            if not force and 2 * len(size) > m:
                return size, None
            entries = np.empty(len(size), dtype=np.intp)
            entries[group] = np.arange(m)
            counts = size.astype(float)
        return size, (entries if rep is None else rep[entries], counts)

    def _source(self, node: list) -> int:
        """The smallest kept table at or below ``node``."""
        bits = self._bits(node)
        if len(bits) == 1:  # one word (the usual case): no reduction over words
            finer = (self.src_bits[:, 0] & ~bits[0]) == 0
        else:
            finer = ((self.src_bits & ~bits) == 0).all(axis=1)
        return int(np.argmin(np.where(finer, self.src_size, np.iinfo(np.intp).max)))

    def sizes(self, node: np.ndarray) -> np.ndarray:
        """Size of each group at ``node``."""
        node = node.tolist()
        anchor = [lv - lv % self.step for lv in node]
        if anchor != node and len(self.anchors) < self.max_anchors and tuple(anchor) not in self.anchors:
            slot = self.anchors[tuple(anchor)] = 1 + len(self.anchors)
            self._store(slot, anchor, self._rollup(anchor, self._source(anchor), True)[1])
        source = self._source(node)
        size, table = self._rollup(node, source, False)
        if table is not None:  # at most half its source: kept in the ring, within the budget
            slot = self.ring
            old = self.src_size[slot] if self.src[slot] is not None else 0
            if self.cached - old + len(table[0]) <= self.cached_entries:
                self.ring = slot + 1 if slot + 1 < len(self.src) else 1 + self.max_anchors
                self.cached += len(table[0]) - old
                self._store(slot, node, table)
        return size


def _scatter(group: np.ndarray, n_groups: int, cols: list[np.ndarray]) -> list[np.ndarray]:
    """Each column's value per group (all entries of a group share it)."""
    entry = np.empty(n_groups, dtype=np.intp)
    entry[group] = np.arange(len(group))
    return [c[entry] for c in cols]


def _classify_lattice(heights: np.ndarray, check, status: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, int]:
    """Classify every node of the lattice of ``heights`` with as few ``check`` calls as we can.

    ``check(levels) -> bool`` must be monotone (true at a node implies true above it). Each
    unclassified node, lowest first, starts a greedy upward path through unclassified nodes;
    a binary search along it checks nodes and tags the up-set of a true node and the
    down-set of a false one (Flash, Kohlmayer et al. 2012). The path steps up the attribute
    that is most generalized relative to its height (on Adult's lattice, about 10% fewer checks
    than stepping the least generalized one). ``status`` (per node, in ``np.indices`` order:
    ``_ANON``, ``_NOT`` or ``_UNKNOWN``) seeds nodes already known; it is updated in place.
    Returns (nodes, truth, checks).
    """
    d = len(heights)
    nodes = np.indices(tuple(heights), dtype=np.int16).reshape(d, -1).T
    strides = [int(np.prod(heights[i + 1:])) for i in range(d)]
    top = (heights - 1).tolist()
    status = np.zeros(len(nodes), dtype=np.int8) if status is None else status
    box = status.reshape(tuple(heights))  # a view: up- and down-sets are boxes, tagged by slicing
    n_checks = 0
    for start in np.argsort(nodes.sum(axis=1), kind="stable"):
        if status[start] != _UNKNOWN:
            continue
        path, current, levels = [start], start, nodes[start].tolist()
        while True:  # step up the attribute most generalized relative to its height
            steps = [i for i in range(d) if levels[i] < top[i]
                     and status[current + strides[i]] == _UNKNOWN]
            if not steps:
                break
            i = max(steps, key=lambda i: levels[i] / top[i])
            current += strides[i]
            levels[i] += 1
            path.append(current)
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            node = nodes[path[mid]]
            n_checks += 1
            if check(node):
                box[tuple(slice(lv, None) for lv in node.tolist())] = _ANON
                hi = mid - 1
            else:
                box[tuple(slice(0, lv + 1) for lv in node.tolist())] = _NOT
                lo = mid + 1
    return nodes, status == _ANON, n_checks


def _minimal(nodes: np.ndarray, heights: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Indices of the true nodes none of whose immediate predecessors is true."""
    strides = np.array([int(np.prod(heights[i + 1:])) for i in range(len(heights))])
    has_true_pred = np.zeros(len(nodes), dtype=bool)
    for i, stride in enumerate(strides):
        above = np.flatnonzero(nodes[:, i] > 0)
        has_true_pred[above] |= truth[above - stride]
    return np.flatnonzero(truth & ~has_true_pred)


# -- full-domain generalization ------------------------------------------------------------
class FullDomainLattice:
    """The full-domain generalization lattice of one table's quasi-identifiers, searched for any k.

    A node's group sizes depend on the rows alone, not on k. Each checked node keeps a summary
    (how many groups it has of each size below a cap, and the sum of squared group sizes), from which
    the suppression and the discernibility at any k up to the cap follow; and the nodes classified
    for one k seed the search for the next (k-anonymous within the budget for k implies it for every
    smaller k; not k-anonymous for k implies it for every larger k). So the papers' grids, which
    anonymize the same training rows for k = 2..5, pay for about one search.

    :meth:`of` returns the lattice of the most recent table when the same rows, quasi-identifiers,
    hierarchies (the same objects) and suppression budget come again; :class:`FullDomainGeneralizer`
    gets its lattice there.

    Parameters
    ----------
    raw : list of int arrays, one per quasi-identifier: each row's code (``pd.factorize``)
    uniques : list of arrays: the value of each code
    hierarchies : list of Hierarchy, in quasi-identifier order
    max_suppression : float
    """

    _last = None  # the most recently built lattice (see ``of``)

    def __init__(self, raw, uniques, hierarchies, max_suppression):
        self.raw, self.uniques, self.hierarchies = raw, uniques, hierarchies
        self.max_suppression = max_suppression
        self.n = len(raw[0])
        self.budget = math.floor(max_suppression * self.n + 1e-9)
        self.maps, self.shares = [], []
        for h, values in zip(hierarchies, uniques):
            levels, share = [np.arange(len(values))], [np.zeros(len(values))]
            for lv in range(1, h.n_levels):  # dense codes of the groups present at each level
                group = h.codes(values, lv)
                levels.append(np.unique(group, return_inverse=True)[1].ravel())
                share.append(np.zeros(levels[-1].max() + 1))
                share[-1][levels[-1]] = h.leaf_share(lv)[group]
            self.maps.append(levels)
            self.shares.append(share)
        self.heights = np.array([h.n_levels for h in hierarchies])
        if np.prod(self.heights.astype(float)) > _MAX_LATTICE:
            raise ValueError(f"the lattice has {int(np.prod(self.heights.astype(float)))} nodes "
                             f"(> {_MAX_LATTICE}); use fewer quasi-identifiers or coarser hierarchies")
        self.sizes = _GroupSizes(self.maps, raw)
        self.summaries = {}   # node -> (cap, number of groups of each size below cap, sum of squared sizes)
        self.anonymous = {}   # k -> bool per node, for every k classified so far

    @classmethod
    def of(cls, frame: pd.DataFrame, quasi_identifiers, hierarchies, max_suppression) -> "FullDomainLattice":
        """The lattice of ``frame``'s quasi-identifiers: the last one built when its inputs are the same."""
        raw, uniques = [], []
        for a in quasi_identifiers:
            hierarchies[a].check(frame[a].to_numpy())
            codes, values = pd.factorize(frame[a])
            raw.append(codes)
            uniques.append(np.asarray(values))
        hier = [hierarchies[a] for a in quasi_identifiers]
        last = cls._last
        if (last is not None and last.max_suppression == max_suppression and len(last.raw) == len(raw)
                and all(h is g for h, g in zip(last.hierarchies, hier))
                and all(np.array_equal(a, b) for a, b in zip(last.raw, raw))
                and all(np.array_equal(a, b) for a, b in zip(last.uniques, uniques))):
            return last
        cls._last = cls(raw, uniques, hier, max_suppression)
        return cls._last

    def summary(self, node, k: int) -> tuple[int, float]:
        """(rows in groups of fewer than ``k`` rows, discernibility) at ``node``."""
        key = tuple(node)
        cap, groups, squares = self.summaries.get(key, (0, None, None))
        if k > cap:
            size = self.sizes.sizes(np.asarray(node, dtype=np.int16))  # float counts
            cap = max(k, 16)
            groups = np.bincount(size[size < cap].astype(np.intp), minlength=cap).astype(float)
            squares = float(size @ size)
            self.summaries[key] = (cap, groups, squares)
        sizes = np.arange(k, dtype=float)
        n_sup = int(groups[:k] @ sizes)
        return n_sup, squares - float(groups[:k] @ sizes ** 2) + self.n * n_sup

    def classify(self, k: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(nodes, k-anonymous within the budget per node, checks made) for ``k``."""
        status = np.full(int(np.prod(self.heights)), _UNKNOWN, dtype=np.int8)
        for other, anon in self.anonymous.items():
            if other >= k:
                status[anon] = _ANON
        for other, anon in self.anonymous.items():
            if other <= k:
                status[~anon] = _NOT
        nodes, anon, n_checks = _classify_lattice(
            self.heights, lambda node: self.summary(node.tolist(), k)[0] <= self.budget, status)
        self.anonymous[k] = anon
        return nodes, anon, n_checks

    def loss(self, node, k: int) -> float:
        """Iyengar's loss metric at ``node``: mean over rows and attributes, suppressed rows count 1."""
        key, span = self.sizes.groups(node)
        group, size = _group_sizes(key, self.sizes.weights, span=span)
        rows_kept = self.sizes.weights * (size >= k)[group]
        d = len(self.maps)
        loss = math.fsum(float(self.shares[i][node[i]][self.maps[i][node[i]][self.sizes.codes[i]]] @ rows_kept)
                         for i in range(d))
        return (loss + self.summary(node, k)[0] * d) / (self.n * d)

    def suppressed_rows(self, node, k: int) -> np.ndarray:
        """Boolean mask of the rows in groups of fewer than ``k`` rows at ``node``."""
        key = _combine([self.maps[i][lv][self.raw[i]] for i, lv in enumerate(node)],
                       [len(self.maps[i][lv]) for i, lv in enumerate(node)])
        group, size = _group_sizes(key)
        return (size < k)[group]


class FullDomainGeneralizer(BaseEstimator):
    """Full-domain k-anonymity: all minimal k-anonymous lattice nodes, one chosen by utility.

    A lattice node gives each quasi-identifier one level of its hierarchy (Samarati 2001); a
    node is *k-anonymous within the budget* when the rows lying in groups of fewer than ``k``
    rows are at most ``floor(max_suppression * n)``; those rows are then suppressed. This
    property is monotone (a group only grows when any attribute is generalized further), so
    the search tags whole up-sets (anonymous) and down-sets (not anonymous) after each check,
    checking nodes by binary search along upward paths (as in Flash, Kohlmayer et al. 2012).
    Every node ends up classified, so the minimal nodes (k-anonymous, no immediate
    predecessor k-anonymous) are exact, not heuristic. Group sizes are computed with integer
    codes over the distinct quasi-identifier combinations, rolled up from the smallest
    already-computed table of a more specific node (:class:`_GroupSizes`), and kept per node in a
    :class:`FullDomainLattice`, which fits of the same rows for other k re-use.

    Utility, to choose among the minimal nodes (smaller is better; ties: lower height, then
    lexicographic levels):

    - ``"discernibility"`` (Bayardo and Agrawal 2005): sum of the squared sizes of the kept
      groups, plus ``n`` for each suppressed row.
    - ``"loss"`` (Iyengar 2002's loss metric): the mean over rows and quasi-identifiers of the
      share of the domain the released label covers (:meth:`Hierarchy.leaf_share`); a
      suppressed row counts 1 for each attribute.

    Parameters
    ----------
    quasi_identifiers : sequence of str
    k : int
    hierarchies : mapping of attribute -> Hierarchy (or an ARX table as a DataFrame)
        One for each quasi-identifier.
    max_suppression : float in [0, 1)
        Largest share of rows that may be suppressed.
    utility : {"discernibility", "loss"}

    Attributes
    ----------
    node_ : dict attribute -> level of the chosen node.
    minimal_nodes_ : DataFrame, one row per minimal node: the levels, ``height``,
        ``suppressed`` (rows) and the utility; sorted best first.
    suppressed_ : Index of the suppressed rows' labels.
    generalized_ : DataFrame, the k-anonymous release: suppressed rows dropped, quasi-identifiers
        replaced by their labels at ``node_``, other columns unchanged.
    n_checks_ : int, nodes the search for this k checked; lattice_size_ : int.
    hierarchies_ : dict attribute -> Hierarchy.
    """

    def __init__(self, quasi_identifiers, k, hierarchies, *, max_suppression=0.02,
                 utility="discernibility"):
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.hierarchies = hierarchies
        self.max_suppression = max_suppression
        self.utility = utility

    def _validate(self, frame):
        frame, qi = _check_frame(frame, self.quasi_identifiers)
        k = _check_k(self.k)
        if not 0 <= self.max_suppression < 1:
            raise ValueError(f"max_suppression must be a share in [0, 1), got {self.max_suppression!r}")
        if self.utility not in ("discernibility", "loss"):
            raise ValueError(f"utility must be 'discernibility' or 'loss', got {self.utility!r}")
        if not isinstance(self.hierarchies, Mapping):
            raise ValueError("hierarchies must be a mapping attribute -> Hierarchy")
        missing = [a for a in qi if a not in self.hierarchies]
        if missing:
            raise ValueError(f"no hierarchy for quasi-identifiers {missing}: give one for each "
                             "(Hierarchy.from_arx for tables, Hierarchy.intervals for numbers)")
        hierarchies = {a: _as_hierarchy(a, self.hierarchies[a]) for a in qi}
        if len(frame) == 0:
            raise ValueError("cannot anonymize an empty frame")
        return frame, qi, k, hierarchies

    def fit(self, frame: pd.DataFrame, y=None) -> "FullDomainGeneralizer":
        """Search the lattice of ``frame``'s quasi-identifiers and pick the release."""
        frame, qi, k, hier = self._validate(frame)
        lattice = FullDomainLattice.of(frame, qi, hier, self.max_suppression)
        nodes, anon, n_checks = lattice.classify(k)
        if not anon.any():
            raise ValueError(f"no generalization makes these {lattice.n} rows {k}-anonymous within the "
                             f"suppression budget of {lattice.budget} rows; raise max_suppression or lower k")
        rows = []
        for m in nodes[_minimal(nodes, lattice.heights, anon)].tolist():
            n_sup, score = lattice.summary(m, k)
            if self.utility == "loss":
                score = lattice.loss(m, k)
            rows.append([*m, sum(m), n_sup, score])
        table = pd.DataFrame(rows, columns=[*qi, "height", "suppressed", self.utility])
        table = table.sort_values([self.utility, "height", *qi], kind="stable").reset_index(drop=True)

        self.hierarchies_ = hier
        self.quasi_identifiers_ = qi
        self.lattice_size_ = len(nodes)
        self.n_checks_ = n_checks
        self.minimal_nodes_ = table
        self.node_ = {a: int(table.loc[0, a]) for a in qi}
        small = lattice.suppressed_rows([self.node_[a] for a in qi], k)
        self.suppressed_ = frame.index[small]
        self.generalized_ = self.generalize(frame.loc[~small])
        return self

    def _check_fitted(self, frame):
        if not hasattr(self, "node_"):
            raise ValueError("this FullDomainGeneralizer is not fitted yet; call fit(frame) first")
        return _check_frame(frame, self.quasi_identifiers_)[0]

    def generalize(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The release labels of any rows at the fitted node (no suppression applied).

        Quasi-identifiers become their hierarchy label at ``node_`` (text, e.g. ``"35-39"``,
        ``"[20-30)"`` or ``"*"``); other columns are returned unchanged.
        """
        out = self._check_fitted(frame).copy()
        for a, level in self.node_.items():
            out[a] = self.hierarchies_[a].generalize(out[a].to_numpy(), level)
        return out

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Encode any rows (training or test) in the fitted generalization, for learning.

        A numeric quasi-identifier (numeric hierarchy) becomes the float midpoint of its
        generalized interval (level 0: the value; ``*``: the domain's midpoint; an ARX label
        such as ``35-39`` covers 35..39, midpoint 37); a nominal or ordinal one becomes its
        label at the fitted level. Other columns are unchanged. Values a hierarchy does not
        list raise ValueError. Suppressed rows are not dropped here (see ``suppressed_``).
        """
        out = self._check_fitted(frame).copy()
        for a, level in self.node_.items():
            h = self.hierarchies_[a]
            values = out[a].to_numpy()
            out[a] = h.midpoints(values, level) if h.numeric else h.generalize(values, level)
        return out


# -- Mondrian -------------------------------------------------------------------------------
class _Tree:
    """The recorded Mondrian split tree, grown node by node, then frozen into arrays."""

    LEAF, THRESHOLD, HIER = 0, 1, 2

    def __init__(self, d: int):
        self.d = d
        self.kind, self.attr, self.threshold, self.level = [], [], [], []
        self.left, self.right, self.offset, self.children = [], [], [], []
        self.labels, self.midpoints = {}, {}

    def add(self, parent: int, branch) -> int:
        node = len(self.kind)
        for lst, value in ((self.kind, self.LEAF), (self.attr, -1), (self.threshold, -1),
                           (self.level, -1), (self.left, -1), (self.right, -1), (self.offset, -1)):
            lst.append(value)
        if parent >= 0:
            if self.kind[parent] == self.THRESHOLD:
                (self.right if branch else self.left)[parent] = node
            else:
                self.children[self.offset[parent] + branch] = node
        return node

    def split_threshold(self, node: int, attr: int, threshold: int) -> None:
        self.kind[node], self.attr[node], self.threshold[node] = self.THRESHOLD, attr, threshold

    def split_hier(self, node: int, attr: int, level: int, n_children: int) -> None:
        self.kind[node], self.attr[node], self.level[node] = self.HIER, attr, level
        self.offset[node] = len(self.children)
        self.children.extend([-1] * n_children)

    def frozen(self) -> dict:
        n = len(self.kind)
        label = np.full((n, self.d), None, dtype=object)
        midpoint = np.full((n, self.d), np.nan)
        for node, lab in self.labels.items():
            label[node] = lab
            midpoint[node] = self.midpoints[node]
        t = {name: np.asarray(getattr(self, name), dtype=np.intp)
             for name in ("kind", "attr", "threshold", "level", "left", "right", "offset", "children")}
        t.update(label=label, midpoint=midpoint)
        return t


def _median_split(col: np.ndarray, k: int):
    """Median cut of one region on integer ranks: (threshold, rows going left) or None."""
    n = len(col)
    m = np.partition(col, (n - 1) // 2)[(n - 1) // 2]
    for left in (col <= m, col < m):
        n_left = int(left.sum())
        if n_left >= k and n - n_left >= k:
            return int(col[left].max()), left
    return None


def _lowest_cover(levels: list[np.ndarray], idx: np.ndarray, state: tuple[int, int]):
    """Lower a hierarchy node to the lowest one still covering the rows ``idx``."""
    level, group = state
    while level > 0:
        child = levels[level - 1][idx]
        if child.min() != child.max():
            break
        level, group = level - 1, int(child[0])
    return level, group


def _hier_split(levels: list[np.ndarray], idx: np.ndarray, state: tuple[int, int], k: int):
    """Multi-way cut into child nodes: (child level, [(child, mask)]) or None."""
    level, _ = state
    if level == 0:
        return None
    child = levels[level - 1][idx]
    counts = np.bincount(child)
    present = np.flatnonzero(counts)
    if (counts[present] < k).any():
        return None
    return level - 1, [(int(c), child == c) for c in present]


class MondrianGeneralizer(BaseEstimator):
    """Strict multidimensional k-anonymity by Mondrian partitioning (LeFevre et al. 2006).

    Starting from the whole table, a region is cut on the quasi-identifier of largest
    normalized width for which an allowable cut exists (every part >= ``k`` rows), and the
    parts are cut again; regions that cannot be cut are the released groups. Nothing is
    suppressed (needs ``n >= k``).

    - numeric: width = the region's value range / the table's; cut at the median value ``m``:
      rows ``<= m`` go left; if a side then has fewer than ``k`` rows, the cut ``< m`` is tried.
    - nominal or ordinal with a hierarchy: the region holds one hierarchy node (first ``*``);
      width = (listed values under it - 1) / (listed values - 1); when the attribute is tried,
      the node is first lowered to the lowest one covering the region's rows, then the cut
      sends each row to the child node holding its value (a multi-way cut, allowable when
      every non-empty child has >= ``k`` rows). Released regions hold the lowest covering node.
    - nominal or ordinal without a hierarchy: a sorted-category split: categories ordered by
      ``orders[attribute]`` (ordinal), else by an ordered Categorical's categories, else
      lexicographically; then cut like a number on the category ranks; width = rank range /
      (categories - 1).

    Released labels: numbers the closed range of the region's values (``"[20-37]"``, or
    ``"25"``); hierarchical attributes the node's label; sorted categories the set of the
    region's values (``"{Divorced,Widowed}"``; ``"*"`` when every category occurs).

    Parameters
    ----------
    quasi_identifiers : sequence of str
    k : int
    kinds : mapping attribute -> "numeric" | "ordinal" | "nominal", optional
        Default: numeric dtypes numeric, the others nominal.
    hierarchies : mapping attribute -> Hierarchy (or ARX table), optional
        Used for nominal and ordinal attributes (numeric ones are always cut at medians).
    orders : mapping ordinal attribute -> its values in domain order, optional

    Attributes
    ----------
    generalized_ : DataFrame, the release (every row; quasi-identifiers as labels).
    suppressed_ : empty Index (Mondrian suppresses nothing).
    n_groups_ : int, the released regions.
    tree_ : dict of arrays, the split tree (used to route rows in ``transform``).
    """

    def __init__(self, quasi_identifiers, k, *, kinds=None, hierarchies=None, orders=None):
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.kinds = kinds
        self.hierarchies = hierarchies
        self.orders = orders

    def _attributes(self, frame: pd.DataFrame, qi: list[str]) -> list[dict]:
        kinds, hierarchies, orders = (dict(m or {}) for m in (self.kinds, self.hierarchies, self.orders))
        attrs = []
        for a in qi:
            col = frame[a]
            kind = kinds.get(a) or ("numeric" if pd.api.types.is_numeric_dtype(col) else "nominal")
            if kind not in ("numeric", "ordinal", "nominal"):
                raise ValueError(f"kind of {a!r} must be numeric, ordinal or nominal, got {kind!r}")
            if col.isna().any():
                raise ValueError(f"column {a!r} has missing values; drop or impute them first")
            if kind == "numeric":
                if not pd.api.types.is_numeric_dtype(col):
                    raise ValueError(f"column {a!r} is declared numeric but has dtype {col.dtype}")
                attrs.append({"name": a, "type": "numeric", "values": np.unique(col.to_numpy(float))})
            elif a in hierarchies:
                h = _as_hierarchy(a, hierarchies[a])
                h.check(col.to_numpy())
                leaves = h.values
                attrs.append({"name": a, "type": "hier", "h": h,
                              "under": [np.bincount(h.codes(leaves, lv), minlength=h.n_groups(lv))
                                        for lv in range(h.n_levels)]})
            else:
                if kind == "ordinal" and a in orders:
                    cats, lex = np.asarray(list(orders[a]), dtype=object), False
                elif isinstance(col.dtype, pd.CategoricalDtype) and col.cat.ordered:
                    cats, lex = np.asarray(col.cat.categories, dtype=object), False
                else:
                    cats, lex = np.unique(col.astype(str).to_numpy(object)), True
                attrs.append({"name": a, "type": "sorted", "cats": cats, "lex": lex})
        return attrs

    @staticmethod
    def _ranks(attr: dict, col: pd.Series) -> np.ndarray:
        """Each value's position in the attribute's order (numbers: among the training values;
        a value between two known ones gets the upper one's rank)."""
        if attr["type"] == "numeric":
            return np.searchsorted(attr["values"], col.to_numpy(float), side="left")
        if attr["type"] == "hier":
            return attr["h"].codes(col.to_numpy(), 0)
        if attr["lex"]:
            return np.searchsorted(attr["cats"], col.astype(str).to_numpy(object), side="left")
        pos = pd.Index(attr["cats"]).get_indexer(col.to_numpy(object))
        if (pos < 0).any():
            bad = sorted(set(col.to_numpy(object)[pos < 0].tolist()))[:5]
            raise ValueError(f"values {bad} of {attr['name']!r} are not in its order; add them to orders")
        return pos

    @staticmethod
    def _labels(attrs, sub, lo, hi, hstate):
        labels, mids = [], []
        for j, at in enumerate(attrs):
            mid = np.nan
            if at["type"] == "numeric":
                a, b = at["values"][lo[j]], at["values"][hi[j]]
                label, mid = format_interval(a, b, closed=True), (a + b) / 2.0
            elif at["type"] == "hier":
                level, group = hstate[j]
                label = at["h"].group_labels(level)[group]
            else:
                present = np.unique(sub[:, j])
                cats = at["cats"][present]
                label = (TOP if len(present) == len(at["cats"]) else
                         str(cats[0]) if len(present) == 1 else "{" + ",".join(map(str, cats)) + "}")
            labels.append(label)
            mids.append(mid)
        return labels, mids

    def fit(self, frame: pd.DataFrame, y=None) -> "MondrianGeneralizer":
        """Partition ``frame`` and record the split tree."""
        frame, qi = _check_frame(frame, self.quasi_identifiers)
        k = _check_k(self.k)
        n, d = len(frame), len(qi)
        if n < k:
            raise ValueError(f"{n} rows cannot be made {k}-anonymous; need at least k rows")
        attrs = self._attributes(frame, qi)
        ranks = np.column_stack([self._ranks(at, frame[at["name"]]) for at in attrs])
        hier = {j: [at["h"].codes(frame[at["name"]].to_numpy(), lv) for lv in range(at["h"].n_levels)]
                for j, at in enumerate(attrs) if at["type"] == "hier"}
        scale = np.array([at["values"][-1] - at["values"][0] if at["type"] == "numeric" else
                          len(at["cats"]) - 1 if at["type"] == "sorted" else len(at["h"].values) - 1
                          for at in attrs], dtype=float)
        scale[scale <= 0] = 1.0

        tree = _Tree(d)
        leaf_of_row = np.empty(n, dtype=np.intp)
        stack = [(np.arange(n), {j: (attrs[j]["h"].n_levels - 1, 0) for j in hier}, -1, None)]
        while stack:
            idx, hstate, parent, branch = stack.pop()
            sub = ranks[idx]
            lo, hi = sub.min(axis=0), sub.max(axis=0)
            width = np.array([at["values"][hi[j]] - at["values"][lo[j]] if at["type"] == "numeric" else
                              hi[j] - lo[j] if at["type"] == "sorted" else
                              at["under"][hstate[j][0]][hstate[j][1]] - 1
                              for j, at in enumerate(attrs)], dtype=float) / scale
            node = tree.add(parent, branch)
            cut = None
            for j in np.argsort(-width, kind="stable"):
                if width[j] <= 0:
                    break
                if j in hier:
                    hstate = {**hstate, j: _lowest_cover(hier[j], idx, hstate[j])}
                    cut = _hier_split(hier[j], idx, hstate[j], k)
                else:
                    cut = _median_split(sub[:, j], k)
                if cut is not None:
                    break
            if cut is None or j in hier:  # a leaf, or a node where rows of empty branches stop
                hstate = {j2: _lowest_cover(hier[j2], idx, s) for j2, s in hstate.items()}
                tree.labels[node], tree.midpoints[node] = self._labels(attrs, sub, lo, hi, hstate)
            if cut is None:
                leaf_of_row[idx] = node
            elif j in hier:
                level, parts = cut
                tree.split_hier(node, j, level, attrs[j]["h"].n_groups(level))
                for child, mask in parts:
                    stack.append((idx[mask], {**hstate, j: (level, child)}, node, child))
            else:
                threshold, left = cut
                tree.split_threshold(node, j, threshold)
                stack.append((idx[~left], hstate, node, 1))
                stack.append((idx[left], hstate, node, 0))

        self.attributes_ = attrs
        self.quasi_identifiers_ = qi
        self.tree_ = tree.frozen()
        self.n_groups_ = int((self.tree_["kind"] == _Tree.LEAF).sum())
        self.suppressed_ = frame.index[:0]
        self.generalized_ = self._recode(frame, encode=False, nodes=leaf_of_row)
        return self

    def _route(self, frame: pd.DataFrame) -> np.ndarray:
        """Node of each row: its leaf, or the node whose hierarchy branch for it is empty."""
        t, attrs = self.tree_, self.attributes_
        ranks = np.column_stack([self._ranks(at, frame[at["name"]]) for at in attrs])
        node = np.zeros(len(frame), dtype=np.intp)
        done = np.zeros(len(frame), dtype=bool)
        codes = {}
        while True:
            active = np.flatnonzero(~done & (t["kind"][node] != _Tree.LEAF))
            if len(active) == 0:
                return node
            cur = node[active]
            attr, kind = t["attr"][cur], t["kind"][cur]
            nxt = np.full(len(active), -1, dtype=np.intp)
            thr = kind == _Tree.THRESHOLD
            right = ranks[active[thr], attr[thr]] > t["threshold"][cur[thr]]
            nxt[thr] = np.where(right, t["right"][cur[thr]], t["left"][cur[thr]])
            is_hier = kind == _Tree.HIER
            level = t["level"][cur]
            for j, lv in set(zip(attr[is_hier].tolist(), level[is_hier].tolist())):
                sel = is_hier & (attr == j) & (level == lv)
                if (j, lv) not in codes:
                    codes[j, lv] = attrs[j]["h"].codes(frame[attrs[j]["name"]].to_numpy(), lv)
                nxt[sel] = t["children"][t["offset"][cur[sel]] + codes[j, lv][active[sel]]]
            stop = nxt < 0
            done[active[stop]] = True
            node[active[~stop]] = nxt[~stop]

    def _recode(self, frame: pd.DataFrame, *, encode: bool, nodes=None) -> pd.DataFrame:
        if not hasattr(self, "tree_"):
            raise ValueError("this MondrianGeneralizer is not fitted yet; call fit(frame) first")
        frame = _check_frame(frame, self.quasi_identifiers_)[0]
        nodes = self._route(frame) if nodes is None else nodes
        out = frame.copy()
        for j, at in enumerate(self.attributes_):
            column = self.tree_["midpoint" if encode and at["type"] == "numeric" else "label"]
            out[at["name"]] = column[nodes, j]
        return out

    def generalize(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The release labels of any rows, each routed through the split tree to its region."""
        return self._recode(frame, encode=False)

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Encode any rows (training or test) like the training rows of their region, for learning.

        Each row is routed through the recorded split tree to its region, so a test row is
        recoded exactly as the training rows of that region: a numeric quasi-identifier becomes
        the float midpoint of the region's closed range, a nominal or ordinal one the region's
        label (class docstring). A row whose hierarchy branch holds no training rows stops at
        the region being cut and takes that region's labels. Other columns are unchanged.
        """
        return self._recode(frame, encode=True)
