"""The exact full-domain lattice search: every minimal k-anonymous node of the generalization lattice
within a suppression budget (Samarati's full-domain generalization, Incognito's lattice), one search per
training table serving every k.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import ClassVar

import numpy as np
import pandas as pd

from privnb.mechanisms._lattice_cache import forget_learned, lattice_key, load_learned, matches_data, save_learned
from privnb.mechanisms._rollup import ClassCounts, GroupSizes
from privnb.mechanisms.grouping import group_sizes

_NOT, _UNKNOWN, _ANON = -1, 0, 1


_MAX_LATTICE = 5_000_000

#: The loss metrics: ARX's arithmetic and geometric means of the per-attribute losses.
LOSSES = ("loss", "geometric_loss")


def aggregate_losses(losses, utility: str) -> float:
    """The loss metric from each attribute's loss, as ARX aggregates them (``metric/v2``).

    ``"loss"``: the arithmetic mean (``ILMultiDimensionalArithmeticMean``), the loss over all rows and
    attributes. ``"geometric_loss"``: ARX's default (``Metric.createLossMetric()``,
    ``ILMultiDimensionalGeometricMean``), the geometric mean of ``1 + loss`` minus 1: ``prod (1 + l_i)^(1/d) -
    1``, taken in attribute order as ARX does; like the arithmetic mean it only grows with each attribute's loss.

    Parameters
    ----------
    losses : sequence of float
        Each attribute's loss (:meth:`FullDomainLattice.attribute_losses`), in [0, 1].
    utility : {"loss", "geometric_loss"}
        The mean.

    Returns
    -------
    float
    """
    if utility == "loss":
        return math.fsum(losses) / len(losses)
    if utility != "geometric_loss":
        raise ValueError(f"utility must be one of {LOSSES}, got {utility!r}")
    result = 1.0
    for loss in losses:
        result *= (loss + 1.0) ** (1.0 / len(losses))
    return result - 1.0


def _classify_lattice(
    heights: np.ndarray, check, status: np.ndarray | None = None
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
    strides = [int(np.prod(heights[i + 1 :])) for i in range(d)]
    top = (heights - 1).tolist()
    status = np.zeros(len(nodes), dtype=np.int8) if status is None else status
    box = status.reshape(tuple(heights))  # a view: up- and down-sets are boxes, tagged by slicing
    n_checks = 0
    for start in np.argsort(nodes.sum(axis=1), kind="stable"):
        if status[start] != _UNKNOWN:
            continue
        path, current, levels = [start], start, nodes[start].tolist()
        while True:  # step up the attribute most generalized relative to its height
            steps = [i for i in range(d) if levels[i] < top[i] and status[current + strides[i]] == _UNKNOWN]
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


def factorized(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, the distinct values in order of appearance), as ``pd.factorize`` (missing: -1).

    A column of pandas' Arrow-backed strings (pandas 3's default) is encoded by Arrow's ``dictionary_encode``,
    about twice as fast as ``pd.factorize`` on it, with the same codes.

    Parameters
    ----------
    column : Series
        The values.

    Returns
    -------
    (ndarray of intp, ndarray)
    """
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow" and hasattr(column.array, "__arrow_array__"):
        import pyarrow as pa  # pandas' Arrow strings imply pyarrow
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(pa.array(column.array))
        if isinstance(encoded, pa.ChunkedArray):
            encoded = encoded.combine_chunks() if encoded.num_chunks else None
        if encoded is not None:
            codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.intp)
            return codes, np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    codes, values = pd.factorize(column)
    return codes, np.asarray(values)


def minimal_nodes(nodes: np.ndarray, heights: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Indices of the true nodes none of whose immediate predecessors is true.

    Parameters
    ----------
    nodes : ndarray of shape (n_nodes, n_attributes)
        The lattice's nodes (generalization levels).
    heights : ndarray
        Each attribute's hierarchy height.
    truth : ndarray of bool
        Which nodes satisfy the property.

    Returns
    -------
    ndarray of int
    """
    strides = np.array([int(np.prod(heights[i + 1 :])) for i in range(len(heights))])
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

    :meth:`of` keeps the last :attr:`cache_size` lattices by the content of their inputs (the rows'
    quasi-identifier codes and values, each hierarchy's fingerprint, the suppression share), so
    scikit-learn clones, which deep-copy hierarchies, share one; and it stores what a search learned
    (each k's classification, the checked nodes' summaries) on disk for other processes
    (:mod:`privnb.mechanisms._lattice_cache`). :class:`FullDomainGeneralizer` gets its lattice there.

    Parameters
    ----------
    raw : list of int arrays
        One per quasi-identifier: each row's code (``pd.factorize``).
    uniques : list of arrays
        One per quasi-identifier: the value of each code.
    hierarchies : list of Hierarchy
        In quasi-identifier order.
    max_suppression : float
        Largest share of rows that may be suppressed (the budget is ``floor(max_suppression * n)`` rows).
    """

    cache_size = 2  # lattices kept in memory by ``of`` (least recently used first out): ~100 MB each on Adult
    _cache: ClassVar[OrderedDict] = OrderedDict()  # key -> lattice

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
            raise ValueError(
                f"the lattice has {int(np.prod(self.heights.astype(float)))} nodes "
                f"(> {_MAX_LATTICE}); use fewer quasi-identifiers or coarser hierarchies"
            )
        self.sizes = GroupSizes(self.maps, raw)
        self.summaries = {}  # node -> (cap, number of groups of each size below cap, sum of squared sizes)
        self.anonymous = {}  # k -> bool per node, for every k classified so far
        self.key = None  # set by ``of``: then what searches learn is also stored on disk

    @classmethod
    def of(cls, frame: pd.DataFrame, quasi_identifiers, hierarchies, max_suppression) -> FullDomainLattice:
        """The lattice of ``frame``'s quasi-identifiers, shared by every call with the same inputs' content.

        A lattice kept in memory is returned as is; a new one starts from what the disk cache holds
        for its key (:mod:`privnb.mechanisms._lattice_cache`).

        Parameters
        ----------
        frame : DataFrame
            The training rows.
        quasi_identifiers : sequence of str
            The columns generalized.
        hierarchies : mapping
            Column -> Hierarchy.
        max_suppression : float
            The share of rows that may be suppressed.

        Returns
        -------
        FullDomainLattice
        """
        raw, uniques = [], []
        for a in quasi_identifiers:
            codes, values = factorized(frame[a])
            if len(codes) and codes.min() < 0:
                raise ValueError(f"the quasi-identifier {a!r} has missing values; drop or impute them first")
            raw.append(codes)
            uniques.append(values)
            hierarchies[a].check(uniques[-1])  # the distinct values: as the column, and cheaper
        hier = [hierarchies[a] for a in quasi_identifiers]
        key = lattice_key(raw, uniques, hier, max_suppression)
        lattice = cls._cache.get(key)
        if lattice is None:
            lattice = cls(raw, uniques, hier, max_suppression)
            lattice.key = key
            lattice.anonymous, lattice.summaries = load_learned(key, lattice.heights)
            cls._cache[key] = lattice
            while len(cls._cache) > cls.cache_size:
                cls._cache.popitem(last=False)
        cls._cache.move_to_end(key)
        return lattice

    @classmethod
    def clear_cache(cls) -> None:
        """Forget the lattices kept in memory (the disk cache stays)."""
        cls._cache.clear()

    def summary(self, node, k: int) -> tuple[int, float]:
        """(rows in groups of fewer than ``k`` rows, discernibility) at ``node``.

        Parameters
        ----------
        node : sequence of int
            One generalization level per quasi-identifier.
        k : int
            The anonymity level.
        """
        _, groups, squares = self._summary(tuple(int(lv) for lv in node), k)
        sizes = np.arange(k, dtype=float)
        n_sup = int(groups[:k] @ sizes)
        return n_sup, squares - float(groups[:k] @ sizes**2) + self.n * n_sup

    def _summary(self, key: tuple, k: int) -> tuple[int, np.ndarray, float]:
        """The summary of node ``key`` (a tuple of int levels), computed when it does not cover ``k``."""
        got = self.summaries.get(key)
        if got is None or k > got[0]:
            size = self.sizes.sizes(list(key))  # float counts
            cap = max(k, 16)
            got = (cap, np.bincount(size[size < cap].astype(np.intp), minlength=cap).astype(float), float(size @ size))
            self.summaries[key] = got
        return got

    def _anonymous_at(self, node: np.ndarray, k: int, sizes: np.ndarray) -> bool:
        """Whether ``node`` is k-anonymous within the budget (``sizes``: ``arange(k)``)."""
        return float(self._summary(tuple(node.tolist()), k)[1][:k] @ sizes) <= self.budget

    def classify(self, k: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(nodes, k-anonymous within the budget per node, checks made) for ``k``.

        Parameters
        ----------
        k : int
            The anonymity level.
        """
        learned = k not in self.anonymous
        status = np.full(int(np.prod(self.heights)), _UNKNOWN, dtype=np.int8)
        for other, anon in self.anonymous.items():
            if other >= k:
                status[anon] = _ANON
        for other, anon in self.anonymous.items():
            if other <= k:
                status[~anon] = _NOT
        sizes = np.arange(k, dtype=float)
        nodes, anon, n_checks = _classify_lattice(self.heights, lambda node: self._anonymous_at(node, k, sizes), status)
        self.anonymous[k] = anon
        if self.key is not None and (learned or n_checks):
            save_learned(self.key, self.heights, self.anonymous, self.summaries)
        return nodes, anon, n_checks

    def loss(self, node, k: int, kept: np.ndarray | None = None, utility: str = "loss") -> float:
        """Iyengar's loss metric at ``node``: ARX's mean over attributes of each one's loss (suppressed rows count 1).

        Parameters
        ----------
        node : sequence of int
            One generalization level per quasi-identifier.
        k : int
            The anonymity level.
        kept : ndarray of bool, optional
            Which entries (raw combinations) are released; default those in classes of at least k rows.
        utility : {"loss", "geometric_loss"}
            The mean over attributes (:func:`aggregate_losses`).
        """
        if kept is None:  # the classes rolled up from a table below: an entry and the size of each
            entries, size = self.sizes.classes(node)
            return aggregate_losses(self.attribute_losses(node, entries, size * (size >= k)), utility)
        return aggregate_losses(self.attribute_losses(node, None, self.sizes.weights * kept), utility)

    def attribute_losses(self, node, entries: np.ndarray | None, rows_kept: np.ndarray) -> list[float]:
        """Each quasi-identifier's loss at ``node``: the mean over rows of the share of its domain the released
        label covers (:meth:`Hierarchy.leaf_share`), a suppressed row counting 1 (ARX's ``MetricMDNMLoss`` with
        ``gsFactor`` 0.5, its normalization ``(share - 1/|domain|) / (1 - 1/|domain|)`` being the leaf share).

        Parameters
        ----------
        node : sequence of int
            One generalization level per quasi-identifier.
        entries : ndarray of int or None
            Entries (raw combinations) standing for the released classes (None: every entry).
        rows_kept : ndarray
            The rows released of each of ``entries``' classes.

        Returns
        -------
        list of float
        """
        codes = self.sizes.codes if entries is None else [c[entries] for c in self.sizes.codes]
        suppressed = self.n - float(rows_kept.sum())
        return [
            (float(self.shares[i][lv][self.maps[i][lv][codes[i]]] @ rows_kept) + suppressed) / self.n
            for i, lv in enumerate(node)
        ]

    @property
    def entry_of_row(self) -> np.ndarray:
        """The entry (distinct raw quasi-identifier combination) of each row."""
        return self.sizes.entry

    def entry_counts(self, codes: np.ndarray, n_values: int) -> np.ndarray:
        """The entry-by-value count matrix of a column coded ``0..n_values-1`` (a sensitive attribute).

        Parameters
        ----------
        codes : ndarray of int
            Each row's value code.
        n_values : int
            The number of codes.

        Returns
        -------
        ndarray of shape (n_entries, n_values)
        """
        counts = np.zeros((len(self.sizes.weights), n_values), dtype=np.int64)
        np.add.at(counts, (self.sizes.entry, codes), 1)
        return counts

    def count_rollup(self, entry_counts: np.ndarray) -> ClassCounts:
        """The class-by-value counts of ``entry_counts`` at any node, rolled up the lattice (:class:`ClassCounts`).

        Parameters
        ----------
        entry_counts : ndarray of shape (n_entries, n_values)
            From :meth:`entry_counts`.

        Returns
        -------
        ClassCounts
        """
        return ClassCounts(self.sizes, entry_counts)

    def class_counts(self, node, entry_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class of each entry, the class-by-value counts) at ``node``: ``entry_counts`` summed per class.

        Parameters
        ----------
        node : sequence of int
            One generalization level per quasi-identifier.
        entry_counts : ndarray of shape (n_entries, n_values)
            From :meth:`entry_counts`.

        Returns
        -------
        (ndarray, ndarray of shape (n_classes, n_values))
        """
        key, span = self.sizes.groups(list(node))
        group, size = group_sizes(key, span=span)
        counts = np.empty((len(size), entry_counts.shape[1]), dtype=np.int64)
        for j in range(entry_counts.shape[1]):
            counts[:, j] = np.bincount(group, weights=entry_counts[:, j], minlength=len(size))
        return group, counts

    def classify_by(self, accept, excluded: np.ndarray) -> tuple[np.ndarray, int]:
        """(truth per node, checks made) of a monotone predicate by Flash's search.

        Parameters
        ----------
        accept : callable
            ``accept(levels) -> bool``, monotone (true at a node implies true above it).
        excluded : ndarray of bool
            Nodes known false (e.g. not k-anonymous), in :meth:`classify`'s node order.

        Returns
        -------
        (ndarray of bool, int)
        """
        status = np.where(excluded, _NOT, _UNKNOWN).astype(np.int8)
        _, truth, n_checks = _classify_lattice(self.heights, accept, status)
        return truth, n_checks

    def suppressed_rows(self, node, k: int) -> np.ndarray:
        """Boolean mask of the rows in groups of fewer than ``k`` rows at ``node``.

        Parameters
        ----------
        node : sequence of int
            One generalization level per quasi-identifier.
        k : int
            The anonymity level.
        """
        key, span = self.sizes.groups([int(lv) for lv in node])  # per entry, then spread to the rows
        group, size = group_sizes(key, self.sizes.weights, span=span)
        return (size < k)[group][self.sizes.entry]


class AnonymityJudge:
    """The nodes of a lattice judged by k-anonymity alone (classes of fewer than ``k`` rows suppressed): the
    interface :class:`~privnb.mechanisms._model_checks.NodeJudge` offers with privacy models, so that a generalizer
    searches, scores and releases through one path.

    Parameters
    ----------
    lattice : FullDomainLattice
        The training frame's lattice.
    k : int
        The anonymity level.
    """

    def __init__(self, lattice: FullDomainLattice, k: int):
        self.lattice, self.k = lattice, k

    def search(self) -> tuple[np.ndarray, np.ndarray, int, str]:
        """(nodes, k-anonymous within the budget, nodes checked, ``"flash"``)."""
        return (*self.lattice.classify(self.k), "flash")

    def summary(self, node) -> tuple[int, float]:
        """(suppressed rows, discernibility) at ``node`` (:meth:`FullDomainLattice.summary`)."""
        return self.lattice.summary(node, self.k)

    def loss(self, node, utility: str = "loss") -> float:
        """The loss metric at ``node`` (:meth:`FullDomainLattice.loss`).

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.
        utility : str
            The loss :meth:`FullDomainLattice.loss` computes.
        """
        return self.lattice.loss(node, self.k, utility=utility)

    def suppressed_rows(self, node) -> np.ndarray:
        """Boolean mask of the rows suppressed at ``node``."""
        return self.lattice.suppressed_rows(node, self.k)

    def forget(self) -> bool:
        """Forget what the lattice learned from the disk cache; False when nothing came from there
        (:func:`~privnb.mechanisms._lattice_cache.forget_learned`).
        """
        return forget_learned(self.lattice)

    def verified(self, nodes, suppressed) -> bool:
        """Whether the rows confirm each node's suppression (:func:`~privnb.mechanisms._lattice_cache.matches_data`:
        a disk cache entry is trusted by the search, not by the release).

        Parameters
        ----------
        nodes : array of shape (n_nodes, n_attributes)
            The minimal nodes offered for release.
        suppressed : array of int
            The rows each of them suppresses, as the search counted them.
        """
        return matches_data(self.lattice, self.k, nodes, suppressed)
