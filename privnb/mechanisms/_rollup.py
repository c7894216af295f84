"""Group sizes at any node of a full-domain generalization lattice, rolled up from the tables of nodes
already counted (Incognito's roll-up), for :class:`~privnb.mechanisms.FullDomainLattice`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.mechanisms._group_kernel import count_cells, count_groups, rollup_counts
from privnb.mechanisms.grouping import combine_codes, group_sizes

__all__ = ["GroupSizes"]

_NO_TABLE = np.iinfo(np.intp).max  # the size of an empty slot: never the smallest


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


class GroupSizes:
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
    A sub-node's ids are rolled up from those one step finer when they are known.
    ``id_budget`` bounds the part ids kept (int16 or int32 entries, over all sub-lattices). With
    ``compiled`` and numba installed, :func:`count_groups` does the key and the count in one pass.

    Parameters
    ----------
    maps : list of lists of int arrays
        Per attribute, per level, the dense group code of each level-0 code.
    raw : list of int arrays
        Per attribute, each row's level-0 code.
    id_budget : int
        The most part-id entries kept over all sub-lattices.
    slots : int
        Kept tables recycled in the ring.
    anchors : int
        The most pinned anchor tables.
    cached_entries : int
        The most entries in all kept tables.
    compiled : bool
        Count with the compiled kernel when numba is installed.
    """

    def __init__(
        self,
        maps,
        raw,
        *,
        id_budget: int = 1 << 23,
        slots: int = 4096,
        anchors: int = 512,
        cached_entries: int = 1 << 23,
        compiled: bool = True,
    ):
        self.compiled = compiled and rollup_counts is not None
        self.maps = maps
        self.n_groups = [[int(m.max()) + 1 for m in levels] for levels in maps]
        group, counts = group_sizes(combine_codes(raw, [s[0] for s in self.n_groups]))
        self.entry = group  # the entry of each row
        self.codes = _scatter(group, len(counts), raw)  # level-0 code of each entry
        self.weights = counts.astype(float)
        heights = [len(levels) for levels in maps]
        self.parts = _parts(heights, len(counts), id_budget)
        self.ids = [{} for _ in self.parts]
        self.first = [{} for _ in self.parts]  # a representative entry of each id
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
        self.src_size = np.full(n_slots, _NO_TABLE, dtype=np.intp)
        self.src_size[0] = len(counts)
        self.src = [(None, self.weights)] + [None] * (n_slots - 1)  # (representative entries, weights)
        self.anchors, self.max_anchors = {}, anchors
        self.ring, self.cached, self.cached_entries = 1 + anchors, 0, cached_entries
        self.top = 1  # slots below it have been used

    def _part_ids(self, p: int, sub: tuple) -> tuple[np.ndarray, int]:
        """Dense id of each entry's combination of part ``p``'s attributes at levels ``sub``."""
        got = self.ids[p].get(sub)
        if got is None:
            attrs, known = self.parts[p], self.ids[p]
            span = [self.n_groups[i][lv] for i, lv in zip(attrs, sub)]
            below = [b for j in range(len(sub)) if (b := (*sub[:j], sub[j] - 1, *sub[j + 1 :])) in known]
            if below:  # from the ids one step finer: one representative entry per finer id
                finer = min(below, key=lambda b: known[b][1])
                entry = self.first[p][finer]
                cols = [self.maps[i][lv][self.codes[i][entry]] for i, lv in zip(attrs, sub)]
                coarser, counts = group_sizes(combine_codes(cols, span), span=math.prod(span))
                ids = coarser[known[finer][0]]
                one = np.empty(len(counts), dtype=np.intp)
                one[coarser] = np.arange(len(coarser))
                self.first[p][sub] = entry[one]
            else:
                cols = [self.maps[i][lv][self.codes[i]] for i, lv in zip(attrs, sub)]
                ids, counts = group_sizes(combine_codes(cols, span), span=math.prod(span))
                self.first[p][sub] = np.empty(len(counts), dtype=np.intp)
                self.first[p][sub][ids] = np.arange(len(ids))
            compact = len(counts) <= 2**15 and not self.compiled  # the kernel takes int32 ids
            dtype = np.int16 if compact else np.int32  # compact: gathers hit cache
            got = known[sub] = (ids.astype(dtype), len(counts))
        return got

    def node_ids(self, node: list) -> tuple[list[np.ndarray], list[int]]:
        """(each part's ids at ``node``, each part's number of ids), parts with a single id left out."""
        ids, radices = [], []
        for p, attrs in enumerate(self.parts):
            part, n = self._part_ids(p, tuple(node[i] for i in attrs))
            if n > 1:
                ids.append(part)
                radices.append(n)
        return ids, radices

    def groups(self, node: Sequence[int], rep: np.ndarray | None = None):
        """(mixed-radix key at ``node`` of each entry, or of each ``rep`` entry; its span).

        Parameters
        ----------
        node : sequence of int
            One level per attribute.
        rep : ndarray of int, optional
            The entries wanted (default all).
        """
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
                key *= n  # in place: the key is this call's own array
                key += ids
            span *= n
        if key is None:
            key = np.zeros(len(self.weights) if rep is None else len(rep), dtype=np.intp)
        return key, span

    def _bits(self, node: list) -> list[int]:
        bits = [0] * self.src_bits.shape[1]
        for lv, (word, offset) in zip(node, self.place):
            bits[word] |= ((1 << lv) - 1) << offset
        return bits

    def _store(self, slot: int, bits: list[int], table) -> None:
        self.src_bits[slot] = bits
        self.src_size[slot] = len(table[0])
        self.src[slot] = table
        self.top = max(self.top, slot + 1)

    def _rollup(self, node: list, source: int, force: bool):
        """(group sizes at ``node`` from table ``source``; the node's table, when forced or at
        most half the source's size, else None).
        """
        rep, weights = self.src[source]
        if self.compiled:  # numba: one pass, keys and hash table (None when keys would overflow)
            counted = count_groups(*self.node_ids(node), rep, weights)
            if counted is not None:
                size, first = counted
                if not force and 2 * len(size) > len(weights):
                    return size, None
                return size, (first if rep is None else rep[first], size)
        key, span = self.groups(node, rep)
        m = len(key)
        if span <= 4 * m + 1024:  # else a hash table is cheaper than zeroing the span
            counts = np.bincount(key, weights=weights, minlength=span)
            present = np.flatnonzero(counts)
            size = counts[present]
            if not force and 2 * len(size) > m:
                return size, None
            first = np.empty(span, dtype=np.int32)
            first[key] = np.arange(m, dtype=np.int32)
            entries, counts = first[present], size
        else:
            group, size = group_sizes(key, weights)
            if not force and 2 * len(size) > m:
                return size, None
            entries = np.empty(len(size), dtype=np.int32)
            entries[group] = np.arange(m)
            counts = size.astype(float)
        return size, (entries if rep is None else rep[entries], counts)

    def _source(self, bits: list[int]) -> int:
        """The smallest kept table at or below the node of ``bits`` (slots in use only)."""
        return _smallest_at_or_below(self.src_bits[: self.top], self.src_size[: self.top], bits)

    def classes(self, node) -> tuple[np.ndarray, np.ndarray]:
        """(an entry of each group, each group's size) at ``node``, rolled up like :meth:`sizes`.

        Parameters
        ----------
        node : sequence of int
            One level per attribute.
        """
        node = [int(lv) for lv in node]
        return self._rollup(node, self._source(self._bits(node)), True)[1]

    def sizes(self, node) -> np.ndarray:
        """Size of each group at ``node`` (an int array or a list of int levels)."""
        node = node.tolist() if isinstance(node, np.ndarray) else list(node)
        anchor = [lv - lv % self.step for lv in node]
        if anchor != node and len(self.anchors) < self.max_anchors and tuple(anchor) not in self.anchors:
            slot = self.anchors[tuple(anchor)] = 1 + len(self.anchors)
            bits = self._bits(anchor)
            self._store(slot, bits, self._rollup(anchor, self._source(bits), True)[1])
        bits = self._bits(node)
        size, table = self._rollup(node, self._source(bits), False)
        if table is not None:  # at most half its source: kept in the ring, within the budget
            slot = self.ring
            old = self.src_size[slot] if self.src[slot] is not None else 0
            if self.cached - old + len(table[0]) <= self.cached_entries:
                self.ring = slot + 1 if slot + 1 < len(self.src) else 1 + self.max_anchors
                self.cached += len(table[0]) - old
                self._store(slot, bits, table)
        return size


def _smallest_at_or_below(slot_bits: np.ndarray, slot_sizes: np.ndarray, bits: list[int]) -> int:
    """The slot of the smallest table whose node is at or below the node of ``bits`` (its bits a subset)."""
    if len(bits) == 1:  # one word (the usual case): no reduction over words
        finer = (slot_bits[:, 0] & ~bits[0]) == 0
    else:
        finer = ((slot_bits & ~np.array(bits, dtype=np.int64)) == 0).all(axis=1)
    return int(np.argmin(np.where(finer, slot_sizes, _NO_TABLE)))


def _scatter(group: np.ndarray, n_groups: int, cols: list[np.ndarray]) -> list[np.ndarray]:
    """Each column's value per group (all entries of a group share it)."""
    entry = np.empty(n_groups, dtype=np.intp)
    entry[group] = np.arange(len(group))
    return [c[entry] for c in cols]


class ClassCounts:
    """Class-by-value counts (a sensitive attribute's) at any lattice node, rolled up as :class:`GroupSizes`
    rolls up the class sizes: from a kept count table of a node at or below, never from scratch.

    A table is a list of cells, the non-zero counts of a class-by-value table, each with one entry of its
    class (every entry of a class has the same key at any node above). A node's table is its source's cells
    summed by the node's key of their entries (classes only merge going up). Tables with fewer cells than
    their source are kept in a ring of ``slots`` (at most ``cached_cells`` cells in all); a node whose table
    has as many cells as its source's stands for the same source. A count only merges into fewer cells going
    up, so the source is the smallest kept table of the node's immediate predecessors, found by their levels;
    when none is kept, the smallest kept table at or below the node, found by the node bit masks.

    Parameters
    ----------
    sizes : GroupSizes
        The lattice's group sizes (its entries, their part ids and the node bit masks).
    entry_counts : ndarray of shape (n_entries, n_values)
        Each entry's rows per sensitive value.
    slots : int
        Kept tables recycled in the ring.
    cached_cells : int
        The most cells in all kept tables.
    """

    def __init__(self, sizes: GroupSizes, entry_counts: np.ndarray, *, slots: int = 4096, cached_cells: int = 1 << 23):
        self.sizes = sizes
        self.entry_counts = entry_counts
        self.n_values = entry_counts.shape[1]
        self.bits = np.full((1 + slots, sizes.src_bits.shape[1]), -1, dtype=np.int64)  # -1: matches no node
        self.bits[0] = 0
        self.cells = np.full(1 + slots, _NO_TABLE, dtype=np.intp)
        self.tables = [_cells(np.arange(len(entry_counts), dtype=np.int32), entry_counts)] + [None] * slots
        self.cells[0] = len(self.tables[0][0])
        self.owner = [tuple([0] * len(sizes.maps))] + [None] * slots  # the node of each kept table
        self.kept = {}  # node -> (slot, owner) of its table (its source's when no smaller)
        self.ring, self.cached, self.cached_cells = 1, 0, cached_cells
        self.top = 1  # slots below it have been used

    def _source(self, node: list, bits: list[int]) -> int:
        """The slot of the table a node's counts are summed from (see the class docstring)."""
        best, best_cells = -1, _NO_TABLE
        for i, lv in enumerate(node):
            if lv:
                got = self.kept.get((*node[:i], lv - 1, *node[i + 1 :]))
                if got is not None and self.owner[got[0]] == got[1] and self.cells[got[0]] < best_cells:
                    best, best_cells = got[0], self.cells[got[0]]
        if best >= 0:
            return best
        return _smallest_at_or_below(self.bits[: self.top], self.cells[: self.top], bits)

    def counts(self, node) -> tuple[np.ndarray, np.ndarray]:
        """(an entry of each class, the class-by-value counts) at ``node``.

        Parameters
        ----------
        node : sequence of int
            One level per attribute.

        Returns
        -------
        (ndarray of int, ndarray of float of shape (n_classes, n_values))
        """
        return self.rolled(node)[:2]

    def rolled(self, node) -> tuple[np.ndarray, np.ndarray, tuple | None]:
        """(an entry of each class, the class-by-value counts, where the classes come from) at ``node``.

        Where they come from, when the compiled kernel rolled them up from a node's table: (that node, the class
        of that node each class holds first, whether each class merges several of them); else None. A class
        that merges none is that node's class, with the same counts.

        Parameters
        ----------
        node : sequence of int
            One level per attribute.

        Returns
        -------
        (ndarray of int, ndarray of float of shape (n_classes, n_values), tuple or None)
        """
        node = [int(lv) for lv in node]
        bits = self.sizes._bits(node)
        source = self._source(node, bits)
        anchor = _anchor(node) if source == 0 else None
        if anchor is not None:  # no table below but the entries': count a coarser node under it first
            self.counts(anchor)
            source = self._source(node, bits)
        rep, value, weights = self.tables[source]
        counted = count_cells(*self.sizes.node_ids(node), rep, value, weights, self.n_values)
        if counted is None:  # numpy: the keys' groups, then a bincount of (group, value)
            key, span = self.sizes.groups(node, rep)
            group, _ = group_sizes(key, span=span)
            n_classes, v = int(group.max()) + 1, self.n_values
            out = np.bincount(group * v + value, weights=weights, minlength=n_classes * v).reshape(n_classes, v)
            first = np.empty(n_classes, dtype=np.intp)
            first[group[::-1]] = np.arange(len(group) - 1, -1, -1)
            entries = rep[first]
            table, origin = _cells(entries, out), None
        else:
            out, entries, table, first_class, merged = counted
            origin = self.owner[source], first_class, merged
        key = tuple(node)
        if len(table[0]) < len(rep):
            slot = self.ring
            old = self.cells[slot] if self.tables[slot] is not None else 0
            if self.cached - old + len(table[0]) <= self.cached_cells:
                self.ring = slot + 1 if slot + 1 < len(self.tables) else 1
                self.cached += len(table[0]) - old
                self.bits[slot], self.cells[slot], self.tables[slot] = bits, len(table[0]), table
                self.owner[slot], self.kept[key] = key, (slot, key)
                self.top = max(self.top, slot + 1)
        else:  # no fewer cells: its source serves the nodes above it as well
            self.kept[key] = (source, self.owner[source])
        return entries, out, origin


def _anchor(node: list) -> list | None:
    """The node below ``node`` on the coarsest grid of even levels (multiples of 2, else 4, ...) that holds one
    lower, or None at the bottom node.
    """
    step = 2
    while step <= 2 * max(node, default=0):
        anchor = [lv - lv % step for lv in node]
        if anchor != node:
            return anchor
        step *= 2
    return None


def _cells(entries: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(entry, value, rows) of each non-zero cell of a class-by-value table whose classes ``entries`` stand for."""
    row, value = np.nonzero(counts)
    return entries[row], value, counts[row, value].astype(float)
