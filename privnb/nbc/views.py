"""Naive Bayes classifiers as published views (MZ09, "Publishing Naive Bayesian Classifiers").

An NBC is fully described by its *NBC-enabling views* (Section 3): the class counts ``P_c`` and, for
each attribute ``A_i``, the counts ``N^i_{t,c}`` of rows with value ``t`` and label ``c``.
:class:`NBCViews` holds them exactly (Python ints or :class:`fractions.Fraction`), scores a tuple with
eq. (2) and predicts with the paper's precedence (ties go to the larger label, Section 6.1).
:func:`nbc_equivalent` decides Definition 2 exactly over the whole product of the domains.

The privacy side lives next door and is re-exported here: the exact audit of Section 4
(:mod:`privnb.nbc.exact_audit`) and SafetyTransform / EST of Sections 6-7 (:mod:`privnb.nbc.safety`,
:mod:`privnb.nbc.est_release`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from privnb.validation import as_fraction

_INT64_SAFE = 2**62


def _exact(value, where: str):
    """``value`` as an int or a Fraction (:func:`privnb.validation.as_fraction`); negatives are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{where}: a count must be a number, got the boolean {value!r}")
    try:
        out = as_fraction(value)
    except ValueError:
        raise ValueError(f"{where}: a count must be a finite int or Fraction, got {value!r}") from None
    if out < 0:
        raise ValueError(f"{where}: counts cannot be negative, got {value!r}")
    return out.numerator if out.denominator == 1 else out


class NBCViews:
    """The NBC-enabling views ``(P, N)`` of Section 3 of MZ09, held exactly.

    Parameters
    ----------
    class_counts : Mapping or pandas.Series
        label -> ``P_c`` (positive int or Fraction). Labels are ordered ascending; the larger label has
        precedence in ties (Section 6.1).
    counts : Mapping[str, pandas.DataFrame]
        attribute -> ``N^i_{t,c}`` as a frame with the attribute's values as index and the labels as
        columns (non-negative ints or Fractions).

    Attributes
    ----------
    class_counts : pandas.Series
        label -> ``P_c`` (object dtype: ints or Fractions), labels ascending.
    counts : dict[str, pandas.DataFrame]
        attribute -> values x labels frame of ``N^i_{t,c}`` (object dtype).
    attributes, labels : tuple
    """

    def __init__(self, class_counts, counts: Mapping[str, pd.DataFrame]):
        p = pd.Series(class_counts, dtype=object)
        if p.empty:
            raise ValueError("class_counts is empty: an NBC needs at least one class label")
        if not p.index.is_unique:
            raise ValueError("class labels must be unique")
        p = p.sort_index()
        p = pd.Series([_exact(v, f"P[{label!r}]") for label, v in p.items()], index=p.index, dtype=object)
        empty = [label for label, v in p.items() if v == 0]
        if empty:
            raise ValueError(
                f"class(es) {empty} are empty (P_c = 0); drop them before building the views "
                "(eq. (2) of MZ09 needs P_c > 0)"
            )
        if not counts:
            raise ValueError("counts is empty: an NBC needs at least one attribute view")
        labels = list(p.index)
        table = {}
        for attribute, frame in counts.items():
            frame = pd.DataFrame(frame)
            if set(frame.columns) != set(labels):
                raise ValueError(
                    f"the view of {attribute!r} has labels {list(frame.columns)}, but the class counts have {labels}"
                )
            if frame.empty or not frame.index.is_unique:
                raise ValueError(f"the view of {attribute!r} needs a non-empty index of unique values")
            frame = frame[labels].map(lambda v, a=attribute: _exact(v, f"N[{a!r}]")).astype(object)
            table[str(attribute)] = frame
        self.class_counts = p
        self.counts = table

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, attributes: Sequence[str], target: str) -> NBCViews:
        """Count the views of ``frame`` (Section 3): ``P_c = |sigma_{C=c}|``, ``N^i_{t,c}``.

        Each attribute's domain is the set of values that occur in ``frame`` (sorted).

        Parameters
        ----------
        frame : DataFrame
            The table, one row per tuple.
        attributes : sequence of str
            The attribute columns counted, each once; not ``target``.
        target : str
            The label column.

        Returns
        -------
        NBCViews
            Integer views.
        """
        attributes = list(attributes)
        if any(a is None for a in attributes) or target is None:
            raise ValueError(f"attributes and target must be column names, got None in {attributes} / {target!r}")
        repeated = sorted({str(a) for a in attributes if attributes.count(a) > 1})
        if repeated:
            raise ValueError(f"attributes names {', '.join(map(repr, repeated))} more than once: {attributes}")
        missing = [c for c in [*attributes, target] if c not in frame.columns]
        if missing:
            raise ValueError(f"columns {missing} are not in the frame (it has {list(frame.columns)})")
        duplicated = [c for c in [*attributes, target] if (frame.columns == c).sum() > 1]
        if duplicated:
            raise ValueError(f"frame has duplicated column names {duplicated}; rename or drop the copies")
        if target in attributes:
            raise ValueError(f"the target {target!r} cannot also be an attribute")
        if not attributes:
            raise ValueError("give at least one attribute")
        if len(frame) == 0:
            raise ValueError("the frame has no rows")
        if frame[[*attributes, target]].isna().any().any():
            raise ValueError("the frame has missing values in the attributes or target; drop or impute them")
        p = frame[target].value_counts().sort_index()
        counts = {a: pd.crosstab(frame[a], frame[target]).reindex(columns=p.index, fill_value=0) for a in attributes}
        return cls({k: int(v) for k, v in p.items()}, {a: c.map(int) for a, c in counts.items()})

    def with_counts(self, class_counts, counts) -> NBCViews:
        """New views over the same attributes, domains and labels with other numbers (same order).

        Parameters
        ----------
        class_counts : sequence
            One ``P_c`` per label.
        counts : sequence of 2-d arrays
            One values x labels table per attribute, shaped as the current ones.
        """

        def tidy(v):
            return v.numerator if type(v) is Fraction and v.denominator == 1 else v

        p = [tidy(v) for v in class_counts]
        tables = [np.vectorize(tidy, otypes=[object])(np.asarray(c, dtype=object)) for c in counts]
        if (
            len(p) != len(self.labels)
            or len(tables) != self.n_attributes
            or any(t.shape != f.shape for t, f in zip(tables, self.counts.values()))
        ):
            raise ValueError("with_counts needs one P per label and one values x labels table per attribute")
        exact = all(type(v) in (int, Fraction) and v >= 0 for v in p) and all(
            type(v) in (int, Fraction) and v >= 0 for t in tables for v in t.ravel()
        )
        if not exact or any(v == 0 for v in p):  # let __init__ convert or reject
            return NBCViews(
                pd.Series(p, index=self.class_counts.index, dtype=object),
                {
                    a: pd.DataFrame(t, index=self.counts[a].index, columns=self.counts[a].columns)
                    for a, t in zip(self.attributes, tables)
                },
            )
        out = object.__new__(NBCViews)
        out.class_counts = pd.Series(p, index=self.class_counts.index, dtype=object)
        out.counts = {
            a: pd.DataFrame(t, index=self.counts[a].index, columns=self.counts[a].columns, dtype=object)
            for a, t in zip(self.attributes, tables)
        }
        return out

    # ------------------------------------------------------------------ properties
    @property
    def attributes(self) -> tuple:
        return tuple(self.counts)

    @property
    def labels(self) -> tuple:
        return tuple(self.class_counts.index)

    @property
    def n_attributes(self) -> int:
        return len(self.counts)

    def domain(self, attribute: str) -> pd.Index:
        return self.counts[attribute].index

    @property
    def domain_sizes(self) -> tuple:
        return tuple(len(c) for c in self.counts.values())

    def all_counts(self) -> list:
        """Every ``P_c`` and ``N^i_{t,c}``, as a flat list."""
        out = list(self.class_counts)
        for frame in self.counts.values():
            out.extend(frame.to_numpy().ravel().tolist())
        return out

    def is_integral(self) -> bool:
        return all(isinstance(v, int) for v in self.all_counts())

    def is_realistic(self) -> bool:
        """Whether ``P_c = sum_t N^i_{t,c}`` for every class and attribute (Statement 9a)."""
        p = self.class_counts.tolist()
        return all(frame.sum(axis=0).tolist() == p for frame in self.counts.values())

    def __repr__(self) -> str:
        return (
            f"NBCViews(labels={list(self.labels)}, attributes={list(self.attributes)}, "
            f"domain_sizes={list(self.domain_sizes)})"
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, NBCViews) or self.attributes != other.attributes:
            return False
        return self.class_counts.equals(other.class_counts) and all(
            self.counts[a].equals(other.counts[a]) for a in self.attributes
        )

    __hash__ = None

    # ------------------------------------------------------------------ scores
    def score(self, values: Mapping | Sequence) -> pd.Series:
        """The exact score ``X_{tau,c} = P_c prod_i (N^i_{t_i,c} / P_c)`` of eq. (2) for one tuple."""
        values = self._tuple(values)
        out = {}
        for label in self.labels:
            p = Fraction(self.class_counts[label])
            x = p
            for attribute, v in zip(self.attributes, values):
                x *= Fraction(self.counts[attribute].at[v, label]) / p
            out[label] = x
        return pd.Series(out, dtype=object)

    def _tuple(self, values) -> tuple:
        if isinstance(values, Mapping):
            missing = [a for a in self.attributes if a not in values]
            if missing:
                raise ValueError(f"the tuple lacks attribute(s) {missing}")
            values = [values[a] for a in self.attributes]
        values = tuple(values)
        if len(values) != self.n_attributes:
            raise ValueError(f"a tuple needs {self.n_attributes} values ({list(self.attributes)}), got {values!r}")
        for a, v in zip(self.attributes, values):
            if v not in self.counts[a].index:
                raise ValueError(f"value {v!r} is not in the domain of {a!r}")
        return values

    def predict(self, X) -> np.ndarray:
        """The NBC's label for each row of ``X`` (a frame with the attributes, or one tuple).

        Exact comparison of eq. (2); ties go to the larger label (Section 6.1). A value outside an
        attribute's domain counts as ``N = 0`` for every class.
        """
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame([list(self._tuple(X))], columns=list(self.attributes))
        missing = [a for a in self.attributes if a not in X.columns]
        if missing:
            raise ValueError(f"X lacks attribute column(s) {missing}")
        ints, ppow = integer_tables(self)
        rows = len(X)
        prod = None
        for a, table in zip(self.attributes, ints):
            index = self.counts[a].index.get_indexer(X[a])
            zero = np.zeros((1, table.shape[1]), dtype=table.dtype)
            gathered = np.vstack([table, zero])[np.where(index < 0, len(table), index)]
            prod = gathered if prod is None else prod * gathered
        best = np.zeros(rows, dtype=np.intp)
        at = np.arange(rows)
        for c in range(1, len(self.labels)):
            wins = prod[:, c] * ppow[best] >= prod[at, best] * ppow[c]
            best = np.where(np.asarray(wins, dtype=bool), c, best)
        return np.asarray(self.labels, dtype=object)[best] if rows else np.array([], dtype=object)


def _lcm_of_denominators(values) -> int:
    out = 1
    for v in values:
        if isinstance(v, Fraction):
            out = math.lcm(out, v.denominator)
    return out


def integer_tables(views: NBCViews):
    """Integer tables that order scores like eq. (2): per attribute ``N`` times a common denominator,
    and ``Q_c = P_c^(n-1)`` (likewise scaled), so that ``X_{tau,c} <= X_{tau,c'}`` iff
    ``prod_i N_i[t_i,c] Q_{c'} <= prod_i N_i[t_i,c'] Q_c``. int64 when no product can overflow, else
    Python ints (object arrays).
    """
    n = views.n_attributes
    tables = []
    for frame in views.counts.values():
        values = frame.to_numpy().ravel().tolist()
        scale = _lcm_of_denominators(values)
        tables.append([[int(v * scale) for v in row] for row in frame.to_numpy().tolist()])
    p = views.class_counts.tolist()
    scale = _lcm_of_denominators(p)
    ppow = [int(v * scale) ** (n - 1) for v in p]
    bound = max(ppow) * math.prod(max(max(r) for r in t) or 1 for t in tables)
    dtype = np.int64 if bound < _INT64_SAFE else object
    return [np.array(t, dtype=dtype) for t in tables], np.array(ppow, dtype=dtype)


class _ScoreGrid:
    """Scores of eq. (2) over the whole product of the domains, exact where it matters.

    Every comparison ``X_{tau,a}`` vs ``X_{tau,b}`` is first made with float64 logarithms of the integer
    tables; only where the difference is within a rounding-error bound of zero is it redone with Python
    integers, so the signs are exact and the big-integer work is confined to near-ties.
    """

    def __init__(self, views: NBCViews):
        n = views.n_attributes
        self.sizes = views.domain_sizes
        self.tables = []
        for frame in views.counts.values():
            values = frame.to_numpy().tolist()
            scale = _lcm_of_denominators(v for row in values for v in row)
            self.tables.append([[int(v * scale) for v in row] for row in values])
        p = views.class_counts.tolist()
        scale = _lcm_of_denominators(p)
        self.ppow = [int(v * scale) ** (n - 1) for v in p]
        logs = [np.array([[math.log(v) if v else -np.inf for v in row] for row in t]) for t in self.tables]
        finite = [np.abs(t[np.isfinite(t)]) for t in logs]
        largest = max([float(f.max()) for f in finite if f.size] + [math.log(max(self.ppow))])
        self.tolerance = 1e-12 * (2 * n + 2) * (1 + largest)
        self.log_ppow = np.array([math.log(v) for v in self.ppow])
        self.grid = []  # per class: sum_i log N_i[t_i, c] on the flattened product (C order)
        for c in range(len(p)):
            total = np.zeros(1)
            for t in logs:
                total = np.add.outer(total, t[:, c]).ravel()
            self.grid.append(total)

    def cross(self, index: np.ndarray, a: int, b: int) -> tuple[list[int], list[int]]:
        """Exact ``prod_i N_i[t_i,a] Q_b`` and ``prod_i N_i[t_i,b] Q_a`` at flat indices ``index``."""
        coords = np.unravel_index(index, self.sizes)
        lhs, rhs = [], []
        for position in range(len(index)):
            pa, pb = self.ppow[b], self.ppow[a]
            for t, coord in zip(self.tables, coords):
                row = t[int(coord[position])]
                pa *= row[a]
                pb *= row[b]
            lhs.append(pa)
            rhs.append(pb)
        return lhs, rhs

    def log_difference(self, a: int, b: int) -> np.ndarray:
        """``log X_a - log X_b`` (nan where both scores are 0)."""
        with np.errstate(invalid="ignore"):
            return (self.grid[a] - self.log_ppow[a]) - (self.grid[b] - self.log_ppow[b])

    def signs(self, a: int, b: int) -> np.ndarray:
        diff = self.log_difference(a, b)
        out = np.sign(np.nan_to_num(diff, nan=0.0, posinf=1.0, neginf=-1.0)).astype(np.int8)
        near = np.flatnonzero(np.abs(diff) <= self.tolerance)
        if near.size:
            lhs, rhs = self.cross(near, a, b)
            out[near] = [(x > y) - (x < y) for x, y in zip(lhs, rhs)]
        return out


def score_signs(views: NBCViews) -> np.ndarray:
    """``sign(X_{tau,c} - X_{tau,c'})`` for every tuple tau of the product of the domains (rows, in
    C order) and every pair of labels c < c' (columns, in ``itertools.combinations`` order); exact.
    """
    grid = _ScoreGrid(views)
    pairs = list(itertools.combinations(range(len(views.labels)), 2))
    if not pairs:
        return np.zeros((math.prod(views.domain_sizes), 0), dtype=np.int8)
    return np.stack([grid.signs(a, b) for a, b in pairs], axis=1)


def _check_comparable(a: NBCViews, b: NBCViews) -> None:
    if a.labels != b.labels:
        raise ValueError(f"the views have different labels: {list(a.labels)} and {list(b.labels)}")
    if a.attributes != b.attributes:
        raise ValueError(f"the views have different attributes: {list(a.attributes)} and {list(b.attributes)}")
    for attribute in a.attributes:
        if not a.domain(attribute).equals(b.domain(attribute)):
            raise ValueError(
                f"the views have different domains for {attribute!r}; NBC-equivalence compares "
                "scores on the same product of domains"
            )


def nbc_equivalent(a: NBCViews, b: NBCViews, *, ties: str = "precedence") -> bool:
    """Whether two NBCs rank the labels alike for every tuple of the product of domains (Definition 2).

    Parameters
    ----------
    a, b : NBCViews
        Views over the same attributes, domains and labels.
    ties : {"precedence", "strict"}
        ``"strict"`` is Definition 2 read literally: for every tuple and labels ``c < c'`` the signs of
        ``X_{tau,c} - X_{tau,c'}`` agree (a tie must stay a tie). ``"precedence"`` compares the rankings
        the classifiers output, where a tie ranks the larger label first (Section 6.1); this is the sense
        in which the paper's Step 1, Step 2's rounding (Statement 7, (14)) and EST's tie resolution
        preserve the classifier, and it is the default.

    Notes
    -----
    Exact (integer arithmetic), vectorized over ``prod_i |A_i|`` tuples; meant for domains small enough
    to enumerate (Adult's three attributes: 73 x 16 x 94 = 109,792 tuples).
    """
    if ties not in ("precedence", "strict"):
        raise ValueError(f"ties must be 'precedence' or 'strict', got {ties!r}")
    _check_comparable(a, b)
    sa, sb = score_signs(a), score_signs(b)
    if ties == "strict":
        return bool(np.array_equal(sa, sb))
    return bool(np.array_equal(sa > 0, sb > 0))


def min_score_ratio(views: NBCViews) -> Fraction | None:
    """The smallest ratio ``X_{tau,c} / X_{tau,c'} > 1`` over all tuples and labels (exact).

    This is the quantity Lemma 12 bounds from below by ``S_M = M1/M2``; EST's Split needs it to choose
    its power. ``None`` when no two positive scores differ.
    """
    grid = _ScoreGrid(views)
    best = None
    for a, b in itertools.permutations(range(len(views.labels)), 2):
        diff = grid.log_difference(a, b)
        valid = np.isfinite(diff) & (diff > -grid.tolerance)
        if not valid.any():
            continue
        cut = diff[valid].min() + 2 * grid.tolerance
        candidate = None
        while True:
            lhs, rhs = grid.cross(np.flatnonzero(valid & (diff <= cut)), a, b)
            ratios = [Fraction(x, y) for x, y in zip(lhs, rhs) if x > y]
            if ratios:
                candidate = min(ratios)
                log = math.log(candidate.numerator) - math.log(candidate.denominator)
                if log <= cut - grid.tolerance:  # nothing beyond the cut can be smaller
                    break
                cut = log + grid.tolerance
                continue
            above = valid & (diff > cut)
            if not above.any():
                break
            cut = diff[above].min() + 2 * grid.tolerance
        if candidate is not None:
            best = candidate if best is None else min(best, candidate)
    return best


def count_tables(views: NBCViews) -> list[list[list]]:
    """The N tables as nested lists [attribute][value][class]."""
    return [frame.to_numpy().tolist() for frame in views.counts.values()]


def unflatten_counts(views: NBCViews, flat: list) -> tuple[list, list]:
    """(P list, N tables) from values in the order of ``views.all_counts()``.

    Parameters
    ----------
    views : NBCViews
        Gives the number of labels and each table's shape.
    flat : list
        The values, class counts first, then each table row by row.
    """
    n_classes = len(views.labels)
    tables, at = [], n_classes
    for frame in views.counts.values():
        tables.append([flat[r : r + n_classes] for r in range(at, at + frame.size, n_classes)])
        at += frame.size
    return flat[:n_classes], tables
