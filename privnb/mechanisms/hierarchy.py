"""Generalization hierarchies: one attribute's values lifted level by level to ``*``.

Level 0 is the raw value; the last level is ``*`` (the whole domain). Two shapes:

- :meth:`Hierarchy.from_arx`: a value table in ARX's format (``;``-separated, no header,
  column 1 the raw value, then increasingly general labels, the last ``*``).
- :meth:`Hierarchy.intervals`: nested intervals over a numeric domain built in code, from
  explicit cut lists or from a base width doubled at each level.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["Hierarchy", "format_interval", "build_hierarchies", "hierarchies_from_card"]

TOP = "*"


def _fmt(x: float) -> str:
    return f"{float(x):g}"


def format_interval(low: float, high: float, *, closed: bool = False) -> str:
    """Label of an interval: ``"[20-30)"`` (half-open) or ``"[20-30]"`` (closed); a point is ``"20"``."""
    if closed and low == high:
        return _fmt(low)
    return f"[{_fmt(low)}-{_fmt(high)}{']' if closed else ')'}"


class Hierarchy:
    """Generalization hierarchy of one attribute (level 0 = raw value, last level = ``*``).

    Build it with :meth:`from_arx` or :meth:`intervals`, not directly.

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

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def from_arx(cls, table, *, name: str | None = None) -> Hierarchy:
        """Read an ARX hierarchy (a DataFrame of labels, or the path of its ``;``-separated CSV).

        Raw values that all parse as numbers make a numeric hierarchy (e.g. Adult's age:
        ``39;35-39;30-39;20-39;*``). The table must be a tree: each label has one parent.
        """
        if isinstance(table, (str, os.PathLike)):
            name = name or os.path.basename(os.fspath(table)).removesuffix(".csv")
            table = pd.read_csv(table, sep=";", header=None, dtype=str, keep_default_na=False)
        table = pd.DataFrame(table).astype(str)
        if table.shape[1] < 2 or len(table) == 0:
            raise ValueError(
                f"hierarchy {name!r}: need one row per value and at least 2 columns "
                f"(raw value, ..., '*'); got shape {table.shape}"
            )
        if not (table.iloc[:, -1] == TOP).all():
            raise ValueError(f"hierarchy {name!r}: the last column must be '*' on every row")
        raw = table.iloc[:, 0]
        if raw.duplicated().any():
            raise ValueError(f"hierarchy {name!r}: raw values listed twice: {sorted(set(raw[raw.duplicated()]))[:5]}")
        numbers = pd.to_numeric(raw, errors="coerce")
        numeric = bool(numbers.notna().all())
        leaves = numbers.to_numpy(float) if numeric else raw.to_numpy(object)
        order = np.argsort(leaves, kind="stable")
        leaves = leaves[order]
        table = table.iloc[order].reset_index(drop=True)
        codes, labels = [], []
        for level in range(1, table.shape[1] - 1):
            c, lab = pd.factorize(table.iloc[:, level], sort=True)
            if level > 1:  # tree: every label of the level below has one parent
                parents = pd.DataFrame({"child": codes[-1], "parent": c}).drop_duplicates()
                bad = parents["child"].duplicated()
                if bad.any():
                    child = labels[-1][parents["child"][bad].iloc[0]]
                    raise ValueError(
                        f"hierarchy {name!r}: label {child!r} at level {level - 1} has "
                        f"more than one parent at level {level}; a hierarchy is a tree"
                    )
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

        Give either ``width``: level 1 cuts the domain at ``low + j * width``, and each further
        level doubles the width, until one interval would cover the domain; or ``cuts``: one list
        of interior cut points per level, finest first, each list a subset of the one before.
        Intervals are half-open ``[a, b)``, the last one closed at ``high``. Values outside the
        domain are rejected by :meth:`check`; :meth:`codes` puts them in the outermost intervals.
        """
        low, high = float(low), float(high)
        if not np.isfinite([low, high]).all() or high < low:
            raise ValueError(f"intervals {name!r}: need finite low <= high, got [{low}, {high}]")
        if (width is None) == (cuts is None):
            raise ValueError(f"intervals {name!r}: give exactly one of width= or cuts=")
        if width is not None:
            if not width > 0:
                raise ValueError(f"intervals {name!r}: width must be > 0, got {width}")
            cuts, w = [], float(width)
            while low + w < high:
                cuts.append(low + w * np.arange(1, int(np.ceil((high - low) / w))))
                w *= 2
        edges, previous = [], None
        for level, c in enumerate(cuts, start=1):
            c = np.unique(np.asarray(c, dtype=float))
            if len(c) and (c[0] <= low or c[-1] >= high):
                raise ValueError(f"intervals {name!r}: cuts of level {level} must lie strictly inside ({low}, {high})")
            if previous is not None and not np.isin(c, previous).all():
                raise ValueError(
                    f"intervals {name!r}: cuts of level {level} must be a subset of "
                    f"those of level {level - 1} (nested intervals)"
                )
            previous = c
            edges.append(np.concatenate([[low], c, [high]]))
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
        """Raise ValueError unless every value is covered by the hierarchy."""
        values = self._as_values(pd.unique(np.asarray(values).ravel()))
        if self._edges is None:
            self._leaf_index(values)
        elif len(values) and (np.isnan(values).any() or values.min() < self.low or values.max() > self.high):
            raise ValueError(
                f"hierarchy {self.name!r}: values must lie in [{self.low:g}, "
                f"{self.high:g}]; got [{np.nanmin(values):g}, {np.nanmax(values):g}] "
                "(or NaN); widen the domain"
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
        """Labels of the groups of :meth:`codes` at ``level``."""
        level = self._check_level(level)
        if level == self.n_levels - 1:
            return np.array([TOP], dtype=object)
        if self._edges is None:
            if level == 0:
                return np.array([_fmt(v) for v in self._leaves] if self.numeric else self._leaves, dtype=object)
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
        """Label of each value at ``level`` (level 0: the raw value as text)."""
        level = self._check_level(level)
        if level == 0:
            if self.numeric:
                return self._on_uniques(values, lambda v: np.array([_fmt(x) for x in v], dtype=object))
            return self._on_uniques(values, lambda v: v)
        return self.group_labels(level)[self.codes(values, level)]

    def midpoints(self, values, level: int) -> np.ndarray:
        """Midpoint of each value's group at ``level`` (level 0: the value; ``*``: the domain's)."""
        level = self._check_level(level)
        if not self.numeric:
            raise ValueError(f"hierarchy {self.name!r} is nominal: no midpoints")
        if level == 0:
            return self._as_values(values)
        lo, hi = self.group_bounds(level)
        c = self.codes(values, level)
        return (lo[c] + hi[c]) / 2.0

    def __repr__(self) -> str:
        shape = "intervals" if self._edges is not None else "table"
        return f"Hierarchy({self.name!r}, {shape}, levels={self.n_levels}, numeric={self.numeric})"


def build_hierarchies(raw) -> dict[str, Hierarchy]:
    """Hierarchy objects from raw specs: column -> ARX table (DataFrame) or ``{"intervals": {low, high,
    width or cuts}}``, as :func:`privnb.data.card_hierarchy_tables` and ``load_adult_hierarchies`` return.
    """
    out = {}
    for column, spec in raw.items():
        if isinstance(spec, dict) and "intervals" in spec:
            out[column] = Hierarchy.intervals(name=column, **spec["intervals"])
        else:
            out[column] = Hierarchy.from_arx(spec, name=column)
    return out


def hierarchies_from_card(card, *, data_home=None) -> dict[str, Hierarchy]:
    """The generalization hierarchies a data card declares (``hierarchies:``), by column."""
    from privnb.data import card_hierarchy_tables

    return build_hierarchies(card_hierarchy_tables(card, data_home=data_home))
