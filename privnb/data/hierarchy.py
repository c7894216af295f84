"""Generalization hierarchies: one attribute's values lifted level by level to ``*``.

Level 0 is the raw value; the last level is ``*`` (the whole domain). Two shapes:

- :meth:`Hierarchy.from_arx`: a value table in ARX's format (``;``-separated, no header,
  column 1 the raw value, then increasingly general labels, the last ``*``).
- :meth:`Hierarchy.intervals`: nested intervals over a numeric domain, from explicit cut lists or
  from a base width doubled at each level.

Building one validates it and raises :class:`HierarchyError` (a ValueError) saying what is wrong and
what to do: a label with two parents, a raw value listed twice, a ragged table, a width that is not a
positive number, cuts that are not one list per level or not nested. A hierarchy may have at most
:data:`MAX_GROUPS` raw values (tables) or intervals on a level; a larger one is refused before anything
is allocated.

Numeric labels are exact (:mod:`privnb.data.labels`): distinct intervals get distinct labels, and a
label's bounds contain every value it stands for.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import math
import os
from collections.abc import Sequence
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from privnb.data.digest import update_digest
from privnb.data.labels import TOP, format_interval, format_number

__all__ = ["Hierarchy", "HierarchyError", "MAX_GROUPS", "read_arx_table"]

#: The most raw values a table hierarchy, or intervals one level of an interval hierarchy, may have
#: (100,000: Adult's largest hierarchy has 117 values and 10 intervals). A wider hierarchy would
#: allocate its levels in memory (``width: 0.0001`` over [0, 1e6] asks for 1e10 intervals, 74.5 GiB).
MAX_GROUPS = 100_000


class HierarchyError(ValueError):
    """A hierarchy that cannot be built; the message says which, what is wrong and what to do."""


def read_arx_table(path: str | os.PathLike) -> pd.DataFrame:
    """An ARX hierarchy file as a table of strings (no header; ``;``-separated; ``.gz`` read as gzip).

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    DataFrame
        One row per raw value, one column per level.

    Raises
    ------
    HierarchyError
        The file cannot be read as text, is empty, or its rows have different numbers of fields.
    """
    path = Path(path)
    try:
        raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
        text = raw.decode("utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as error:
        raise HierarchyError(
            f"hierarchy file {path} cannot be read ({type(error).__name__}: {error}); it must be UTF-8 text in "
            "ARX's format (';'-separated, the raw value first, '*' last)"
        ) from None
    lines = [(number, line.split(";")) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise HierarchyError(f"hierarchy file {path} is empty; list one row per raw value")
    first, width = lines[0][0], len(lines[0][1])
    for number, row in lines:
        if len(row) != width:
            raise HierarchyError(
                f"hierarchy file {path} is ragged: line {number} has {len(row)} fields, line {first} has "
                f"{width}; give every row the raw value and one label per level, '*' last"
            )
    return pd.DataFrame([row for _, row in lines], dtype=object)


class Hierarchy:
    """Generalization hierarchy of one attribute (level 0 = raw value, last level = ``*``).

    Build it with :meth:`from_arx` or :meth:`intervals`, not directly: they check what the constructor
    takes as given.

    Parameters
    ----------
    name : str or None
        The attribute, for messages.
    numeric : bool
        Whether the raw values are numbers.
    leaves : ndarray, optional
        A table hierarchy's raw values, sorted (None for intervals).
    table_codes : list of int ndarray, optional
        A table hierarchy's group code of each leaf on levels 1 .. n_levels - 2, aligned with ``leaves``.
    table_labels : list of ndarray, optional
        A table hierarchy's group labels on levels 1 .. n_levels - 2, indexed by those codes.
    edges : list of ndarray, optional
        An interval hierarchy's edges ``low .. high`` on levels 1 .. n_levels - 2 (None for a table).
    low, high : float
        The numeric domain (NaN for a nominal hierarchy).

    Attributes
    ----------
    name : str or None
    n_levels : int
        Number of levels, the raw level 0 and the top ``*`` included.
    numeric : bool
        True when the raw values are numbers; then every label has bounds and a midpoint
        (:meth:`midpoints`), used to encode generalized rows for learning.
    low, high : float
        The numeric domain (NaN for a nominal hierarchy). For a table hierarchy, the smallest
        and largest listed value; a table label covers the closed range from the smallest to the
        largest listed value under it.
    """

    def __init__(
        self, *, name, numeric, leaves=None, table_codes=None, table_labels=None, edges=None, low=np.nan, high=np.nan
    ):
        self.name = name
        self.numeric = numeric
        self.low = float(low)
        self.high = float(high)
        self._leaves = leaves  # table: sorted raw values
        self._table_codes = table_codes  # table: [level-1 ...] int arrays aligned with leaves
        self._table_labels = table_labels  # table: [level-1 ...] label arrays
        self._edges = edges  # intervals: [level-1 ...] edge arrays low..high
        self.n_levels = 1 + len(table_codes if edges is None else edges) + 1
        self._fingerprint = self._digest()  # at construction: fitting an estimator must not mutate its hierarchies

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def from_arx(cls, table, *, name: str | None = None) -> Hierarchy:
        """Read an ARX hierarchy (a DataFrame of labels, or the path of its ``;``-separated CSV).

        Raw values that all parse as numbers make a numeric hierarchy (e.g. Adult's age:
        ``39;35-39;30-39;20-39;*``). The table must be a tree: each label has one parent.

        Parameters
        ----------
        table : DataFrame, str or path-like
            One row per raw value: the raw value, then one label per level, ``*`` last; or the path of
            such a file (:func:`read_arx_table`).
        name : str, optional
            The attribute, for messages (default: the file's name).

        Returns
        -------
        Hierarchy

        Raises
        ------
        HierarchyError
            The table is ragged, has empty cells, more than :data:`MAX_GROUPS` rows, a raw value listed
            twice, a last column other than ``*`` or a label with two parents.
        """
        if isinstance(table, (str, os.PathLike)):
            name = name or os.path.basename(os.fspath(table)).removesuffix(".gz").removesuffix(".csv")
            table = read_arx_table(table)
        table = _checked_table(pd.DataFrame(table), name)
        raw = table.iloc[:, 0]
        numbers = pd.to_numeric(raw, errors="coerce")
        numeric = bool(numbers.notna().all())
        leaves = numbers.to_numpy(float) if numeric else raw.to_numpy(object)
        if numeric and numbers.duplicated().any():
            twice = sorted(set(raw[numbers.duplicated(keep=False)]))[:5]
            raise HierarchyError(f"hierarchy {name!r}: raw values {twice} are the same number listed twice")
        order = np.argsort(leaves, kind="stable")
        leaves = leaves[order]
        table = table.iloc[order].reset_index(drop=True)
        codes, labels = [], []
        for level in range(1, table.shape[1] - 1):
            c, lab = pd.factorize(table.iloc[:, level], sort=True)
            if level > 1:
                _check_one_parent(codes[-1], c, labels[-1], level, name)
            codes.append(c.astype(np.intp))
            labels.append(np.asarray(lab, dtype=object))
        low, high = (leaves[0], leaves[-1]) if numeric else (np.nan, np.nan)
        return cls(
            name=name, numeric=numeric, leaves=leaves, table_codes=codes, table_labels=labels, low=low, high=high
        )

    @classmethod
    def intervals(
        cls,
        low: float,
        high: float,
        *,
        width: float | None = None,
        cuts: Sequence[Sequence[float]] | None = None,
        name: str | None = None,
    ) -> Hierarchy:
        """Nested intervals over ``[low, high]`` (numbers only), top level ``*``.

        Intervals are half-open ``[a, b)``, the last one closed at ``high``. Values outside the domain
        are rejected by :meth:`check`; :meth:`codes` puts them in the outermost intervals.

        Parameters
        ----------
        low, high : float
            The domain, finite, ``low <= high``.
        width : float, optional
            Level 1 cuts the domain at ``low + j * width``; each further level doubles the width, until
            one interval would cover the domain. At most :data:`MAX_GROUPS` intervals on level 1.
        cuts : sequence of sequences of float, optional
            Instead of ``width``: one list of interior cut points per level, finest first, each list a
            subset of the one before (a flat list of numbers is refused: write ``[[...]]``).
        name : str, optional
            The attribute, for messages.

        Returns
        -------
        Hierarchy

        Raises
        ------
        HierarchyError
            Bounds that are not finite numbers with ``low <= high``; not exactly one of width and cuts; a
            width that is not a positive number or gives more than :data:`MAX_GROUPS` intervals; cuts that
            are not one list of numbers per level, lie outside ``(low, high)`` or are not nested.
        """
        low, high = _number(low, "low", name), _number(high, "high", name)
        if high < low:
            raise HierarchyError(f"intervals {name!r}: need low <= high, got [{low}, {high}]; swap or fix them")
        if (width is None) == (cuts is None):
            raise HierarchyError(f"intervals {name!r}: give exactly one of width= or cuts=")
        cuts = _width_cuts(low, high, width, name) if width is not None else _checked_cuts(low, high, cuts, name)
        edges = [np.concatenate([[low], c, [high]]) for c in cuts]
        return cls(name=name, numeric=True, edges=edges, low=low, high=high)

    @property
    def values(self) -> np.ndarray:
        """The raw values a table hierarchy lists, sorted (intervals: ValueError)."""
        if self._edges is not None:
            raise ValueError(f"intervals {self.name!r} list no values; they cover [low, high]")
        return self._leaves.copy()

    # -- mapping ------------------------------------------------------------------------
    def _check_level(self, level: int) -> int:
        if not 0 <= int(level) < self.n_levels:
            raise ValueError(f"hierarchy {self.name!r}: level {level} outside 0..{self.n_levels - 1}")
        return int(level)

    def _on_uniques(self, values, fn) -> np.ndarray:
        """``fn`` applied to the distinct values only, spread back to every value."""
        inverse, uniques = pd.factorize(np.asarray(values).ravel(), use_na_sentinel=False)
        return fn(self._as_values(np.asarray(uniques)))[inverse]

    def _as_values(self, values) -> np.ndarray:
        values = np.asarray(values)
        if self.numeric:
            try:
                return values.astype(float)
            except (TypeError, ValueError):
                raise ValueError(
                    f"hierarchy {self.name!r} is numeric; got non-numeric values such as {values[:3].tolist()}"
                ) from None
        return values.astype(str).astype(object)

    def _leaf_index(self, values: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(self._leaves, values)
        found = pos < len(self._leaves)
        found[found] = self._leaves[pos[found]] == values[found]
        if not found.all():
            missing = sorted(set(values[~found].tolist()))
            raise ValueError(
                f"hierarchy {self.name!r} does not list the values {missing[:10]}; "
                "add them to the hierarchy table or drop those rows"
            )
        return pos

    def check(self, values) -> None:
        """Raise ValueError unless every value is covered by the hierarchy.

        Parameters
        ----------
        values : array-like
            Raw values of the attribute.
        """
        values = self._as_values(pd.unique(np.asarray(values).ravel()))
        if self._edges is None:
            self._leaf_index(values)
        elif len(values) and (np.isnan(values).any() or values.min() < self.low or values.max() > self.high):
            raise ValueError(
                f"hierarchy {self.name!r}: values must lie in [{format_number(self.low)}, "
                f"{format_number(self.high)}]; got [{format_number(np.nanmin(values))}, "
                f"{format_number(np.nanmax(values))}] (or NaN); widen the domain"
            )

    def n_groups(self, level: int) -> int:
        """Number of groups at ``level`` (level 0 only for table hierarchies: the listed values)."""
        level = self._check_level(level)
        if level == self.n_levels - 1:
            return 1
        if self._edges is None:
            return len(self._leaves) if level == 0 else len(self._table_labels[level - 1])
        if level == 0:
            raise ValueError(f"intervals {self.name!r}: level 0 holds raw numbers, not groups")
        return len(self._edges[level - 1]) - 1

    def codes(self, values, level: int) -> np.ndarray:
        """Integer group of each value at ``level`` (consistent across calls).

        Level 0 only for table hierarchies: the index of the value among the listed values.

        Parameters
        ----------
        values : array-like
            Raw values of the attribute, covered by the hierarchy (:meth:`check`).
        level : int
            The level, 0 .. ``n_levels - 1``.
        """
        level = self._check_level(level)
        return self._on_uniques(values, lambda v: self._codes(v, level))

    def _codes(self, values: np.ndarray, level: int) -> np.ndarray:
        if level == self.n_levels - 1:
            return np.zeros(len(values), dtype=np.intp)
        if self._edges is None:
            leaf = self._leaf_index(values)
            return leaf if level == 0 else self._table_codes[level - 1][leaf]
        if level == 0:
            raise ValueError(f"intervals {self.name!r}: level 0 holds raw numbers, not groups")
        e = self._edges[level - 1]
        return np.searchsorted(e[1:-1], values, side="right").astype(np.intp)

    def group_labels(self, level: int) -> np.ndarray:
        """Labels of the groups of :meth:`codes` at ``level`` (numbers printed exactly, :func:`format_number`).

        Parameters
        ----------
        level : int
            0 .. ``n_levels - 1`` (level 0 only for table hierarchies).

        Returns
        -------
        numpy.ndarray of str
        """
        level = self._check_level(level)
        if level == self.n_levels - 1:
            return np.array([TOP], dtype=object)
        if self._edges is None:
            if level == 0:
                return np.array(
                    [format_number(v) for v in self._leaves] if self.numeric else self._leaves, dtype=object
                )
            return self._table_labels[level - 1]
        if level == 0:
            raise ValueError(f"intervals {self.name!r}: level 0 holds raw numbers, not groups")
        e = self._edges[level - 1]
        return np.array(
            [format_interval(a, b, closed=(i == len(e) - 2)) for i, (a, b) in enumerate(itertools.pairwise(e))],
            dtype=object,
        )

    def group_bounds(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """Lowest and highest value of each group at ``level`` >= 1 (numeric hierarchies)."""
        if not self.numeric:
            raise ValueError(f"hierarchy {self.name!r} is nominal: its labels have no bounds")
        level = self._check_level(level)
        if level == self.n_levels - 1:
            return np.array([self.low]), np.array([self.high])
        if self._edges is None:
            if level == 0:
                return self._leaves.copy(), self._leaves.copy()
            c = self._table_codes[level - 1]
            frame = pd.Series(self._leaves).groupby(c)
            return frame.min().to_numpy(), frame.max().to_numpy()
        if level == 0:
            raise ValueError(f"intervals {self.name!r}: level 0 holds raw numbers, not groups")
        e = self._edges[level - 1]
        return e[:-1].copy(), e[1:].copy()

    def leaf_share(self, level: int) -> np.ndarray:
        """Share of the domain each group at ``level`` covers, in [0, 1] (loss metric).

        Tables: (leaves under the label - 1) / (leaves - 1); intervals: width / domain width.
        """
        level = self._check_level(level)
        if self._edges is None:
            n = len(self._leaves)
            counts = np.bincount(self.codes(self._leaves, level), minlength=self.n_groups(level))
            return (counts - 1) / max(n - 1, 1)
        lo, hi = self.group_bounds(level)
        return (hi - lo) / max(self.high - self.low, np.finfo(float).tiny)

    def generalize(self, values, level: int) -> np.ndarray:
        """Label of each value at ``level`` (level 0: the raw value as text, numbers printed exactly).

        Parameters
        ----------
        values : array-like
            Raw values of the attribute.
        level : int
            0 .. ``n_levels - 1``.

        Returns
        -------
        numpy.ndarray of str
        """
        level = self._check_level(level)
        if level == 0:
            if self.numeric:
                return self._on_uniques(values, lambda v: np.array([format_number(x) for x in v], dtype=object))
            return self._on_uniques(values, lambda v: v)
        return self.group_labels(level)[self.codes(values, level)]

    def midpoints(self, values, level: int) -> np.ndarray:
        """Midpoint of each value's group at ``level`` (level 0: the value; ``*``: the domain's).

        Parameters
        ----------
        values : array-like
            Raw values of a numeric attribute (a nominal hierarchy: ValueError).
        level : int
            The level, 0 .. ``n_levels - 1``.
        """
        level = self._check_level(level)
        if not self.numeric:
            raise ValueError(f"hierarchy {self.name!r} is nominal: no midpoints")
        if level == 0:
            return self._as_values(values)
        lo, hi = self.group_bounds(level)
        c = self.codes(values, level)
        return (lo[c] + hi[c]) / 2.0

    def fingerprint(self) -> str:
        """A digest (hexadecimal str) of what the hierarchy maps (values, groups, labels, edges, domain), not of its
        name: equal for copies (``clone`` deep-copies them) and hierarchies built alike; computed at construction.
        """
        return self._fingerprint

    def __setstate__(self, state):
        """Unpickle; a hierarchy pickled before fingerprints existed gets its fingerprint computed here."""
        self.__dict__.update(state)
        if "_fingerprint" not in state:
            self._fingerprint = self._digest()

    def _digest(self) -> str:
        h = hashlib.blake2b(digest_size=20)
        h.update(repr((self.numeric, self.low, self.high, self.n_levels, self._edges is None)).encode())
        arrays = [self._leaves] if self._edges is None else []
        arrays += (self._table_codes + self._table_labels) if self._edges is None else self._edges
        for a in arrays:
            update_digest(h, a)
        return h.hexdigest()

    def __repr__(self) -> str:
        shape = "intervals" if self._edges is not None else "table"
        return f"Hierarchy({self.name!r}, {shape}, levels={self.n_levels}, numeric={self.numeric})"


def _checked_table(table: pd.DataFrame, name) -> pd.DataFrame:
    """An ARX table's shape, cells, top level and raw values checked; as strings."""
    if table.shape[1] < 2 or len(table) == 0:
        raise HierarchyError(
            f"hierarchy {name!r}: need one row per value and at least 2 columns (raw value, ..., '*'); got shape "
            f"{table.shape}"
        )
    if len(table) > MAX_GROUPS:
        raise HierarchyError(
            f"hierarchy {name!r} lists {len(table)} raw values, more than privnb's limit of {MAX_GROUPS}; "
            "generalize the column first (e.g. intervals) or use fewer values"
        )
    if table.isna().to_numpy().any():
        raise HierarchyError(f"hierarchy {name!r} has empty cells; give every row a label on every level")
    table = table.astype(str)
    if not (table.iloc[:, -1] == TOP).all():
        raise HierarchyError(f"hierarchy {name!r}: the last column must be '*' on every row")
    raw = table.iloc[:, 0]
    if raw.duplicated().any():
        raise HierarchyError(
            f"hierarchy {name!r}: raw values listed twice: {sorted(set(raw[raw.duplicated()]))[:5]}; list each once"
        )
    return table


def _check_one_parent(child_codes, parent_codes, child_labels, level: int, name) -> None:
    """A tree: every label of level ``level - 1`` has one parent at ``level``."""
    parents = pd.DataFrame({"child": child_codes, "parent": parent_codes}).drop_duplicates()
    bad = parents["child"].duplicated()
    if bad.any():
        child = child_labels[parents["child"][bad].iloc[0]]
        raise HierarchyError(
            f"hierarchy {name!r}: label {child!r} at level {level - 1} has more than one parent at level "
            f"{level}; a hierarchy is a tree: rename one of the labels or give it one parent"
        )


def _number(value, what: str, name) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.number)) or not math.isfinite(float(value)):
        raise HierarchyError(f"intervals {name!r}: {what} must be a finite number, got {value!r}")
    return float(value)


def _width_cuts(low: float, high: float, width, name) -> list[np.ndarray]:
    """Cut points per level for ``width`` doubled at each level; the count checked before allocating."""
    w = _number(width, "width", name)
    if w <= 0:
        raise HierarchyError(f"intervals {name!r}: width must be > 0, got {width!r}")
    count = (high - low) / w
    if not math.isfinite(count) or count > MAX_GROUPS:
        raise HierarchyError(
            f"intervals {name!r}: width {width!r} over [{format_number(low)}, {format_number(high)}] makes "
            f"{count:.3g} intervals, more than privnb's limit of {MAX_GROUPS}; choose a width of at least "
            f"{(high - low) / MAX_GROUPS:.3g}"
        )
    cuts = []
    while low + w < high:
        cuts.append(low + w * np.arange(1, math.ceil((high - low) / w)))
        w *= 2
    return cuts


def _checked_cuts(low: float, high: float, cuts, name) -> list[np.ndarray]:
    """One sorted array of cut points per level, each inside (low, high) and within the level before."""
    if isinstance(cuts, (str, bytes)) or not isinstance(cuts, Sequence | np.ndarray):
        raise HierarchyError(f"intervals {name!r}: cuts must be a list of lists (one per level), got {cuts!r}")
    out, previous = [], None
    for level, c in enumerate(cuts, start=1):
        if isinstance(c, (str, bytes)) or not isinstance(c, Sequence | np.ndarray):
            raise HierarchyError(
                f"intervals {name!r}: cuts must be one list of cut points per level, finest first, e.g. "
                f"[[10, 20, 30], [20]]; level {level} is {c!r} (a flat list? wrap it in brackets)"
            )
        if len(c) > MAX_GROUPS:
            raise HierarchyError(f"intervals {name!r}: level {level} has {len(c)} cuts, more than {MAX_GROUPS}")
        c = np.unique([_number(v, f"a cut of level {level}", name) for v in c])
        if len(c) and (c[0] <= low or c[-1] >= high):
            raise HierarchyError(
                f"intervals {name!r}: cuts of level {level} must lie strictly inside ({format_number(low)}, "
                f"{format_number(high)})"
            )
        if previous is not None and not np.isin(c, previous).all():
            raise HierarchyError(
                f"intervals {name!r}: cuts of level {level} must be a subset of those of level {level - 1} "
                "(nested intervals)"
            )
        out.append(c)
        previous = c
    return out
