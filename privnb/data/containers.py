"""The data containers every layer reads: :class:`Dataset` (a table with its column roles) and
:class:`TokenCorpus` (PU1's binary token matrix with its fixed parts).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privnb._docstrings import shared_doc
from privnb.data.hierarchy import Hierarchy
from privnb.validation import KINDS


def _random_state(seed) -> np.random.RandomState:
    """scikit-learn's ``check_random_state`` without importing scikit-learn (``privnb data check`` samples data)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table plus the roles the papers give its columns.

    Parameters
    ----------
    name : str
        Short name ("adult", "bank", ...).
    frame : pandas.DataFrame
        Columns ``*quasi_identifiers, sensitive (if any), target``; the index is reset to a RangeIndex.
    quasi_identifiers : tuple of str
        The quasi-identifier columns.
    sensitive : str or None
        The sensitive column, None when the data set has none.
    target : str
        Column of ints 0/1, 1 the positive class.
    kinds : mapping
        Every non-target column -> "numeric", "ordinal" or "nominal".
    orders : mapping
        Ordinal column -> its values in domain order.
    target_names : (str, str)
        (negative label, positive label).
    hierarchies : mapping, optional
        Column -> :class:`~privnb.data.Hierarchy`, the generalization hierarchies the data set carries (as
        ARX's ``DataDefinition.setHierarchy``): a card's ``hierarchies:``, built by the card loader. Default
        empty; keys must be non-target columns.
    insensitive : tuple of str, optional
        Predictors that are neither quasi-identifiers nor sensitive (ARX's *insensitive* attributes): in the
        frame (after the sensitive attribute) and in ``X`` for the classifiers, kept as they are by every
        mechanism (which generalizes the quasi-identifiers and groups the sensitive attribute only) and never
        known to an adversary. Default none.
    """

    name: str
    frame: pd.DataFrame
    quasi_identifiers: tuple[str, ...]
    sensitive: str | None
    target: str
    kinds: Mapping[str, str]
    orders: Mapping[str, tuple] = field(default_factory=dict)
    target_names: tuple[str, str] = ("0", "1")
    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    insensitive: tuple[str, ...] = ()

    def __post_init__(self):
        qi = tuple(self.quasi_identifiers)
        object.__setattr__(self, "quasi_identifiers", qi)
        object.__setattr__(self, "insensitive", tuple(self.insensitive))
        object.__setattr__(self, "kinds", dict(self.kinds))
        object.__setattr__(self, "orders", {k: tuple(v) for k, v in self.orders.items()})
        object.__setattr__(self, "target_names", tuple(self.target_names))
        columns = [*qi, *([self.sensitive] if self.sensitive is not None else []), *self.insensitive, self.target]
        if len(set(columns)) != len(columns):
            raise ValueError(f"Dataset {self.name!r}: roles overlap: {columns}; give each column one role")
        missing = [c for c in columns if c not in self.frame.columns]
        if missing:
            raise ValueError(f"Dataset {self.name!r}: frame lacks columns {missing}; it has {list(self.frame.columns)}")
        frame = self.frame[columns]
        if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
            frame = frame.reset_index(drop=True)
        object.__setattr__(self, "frame", frame)
        y = frame[self.target]
        if not (pd.api.types.is_integer_dtype(y) and y.isin([0, 1]).all()):
            raise ValueError(
                f"Dataset {self.name!r}: target {self.target!r} must hold ints 0/1 "
                f"(1 = positive); found {pd.unique(y)[:5]!r}"
            )
        features = columns[:-1]
        if set(self.kinds) != set(features):
            raise ValueError(
                f"Dataset {self.name!r}: kinds must name exactly the non-target columns "
                f"{features}; got {sorted(self.kinds)}"
            )
        bad = {c: k for c, k in self.kinds.items() if k not in KINDS}
        if bad:
            raise ValueError(f"Dataset {self.name!r}: unknown kinds {bad}; use one of {KINDS}")
        ordinal = {c for c, k in self.kinds.items() if k == "ordinal"}
        if set(self.orders) != ordinal:
            raise ValueError(
                f"Dataset {self.name!r}: orders must be given for exactly the ordinal "
                f"columns {sorted(ordinal)}; got {sorted(self.orders)}"
            )
        for column, order in self.orders.items():
            unknown = set(frame[column].dropna().unique()) - set(order)
            if unknown:
                raise ValueError(
                    f"Dataset {self.name!r}: column {column!r} has values {sorted(unknown)[:5]} "
                    f"outside its order {order}"
                )
        if len(self.target_names) != 2:
            raise ValueError(f"Dataset {self.name!r}: target_names must be (negative, positive)")
        self._check_hierarchies(features)

    def _check_hierarchies(self, features) -> None:
        object.__setattr__(self, "hierarchies", dict(self.hierarchies))
        unknown = sorted(set(self.hierarchies) - set(features))
        if unknown:
            raise ValueError(
                f"Dataset {self.name!r}: hierarchies for {unknown}, which are not among its non-target columns "
                f"{features}; drop them"
            )
        wrong = sorted(c for c, h in self.hierarchies.items() if not isinstance(h, Hierarchy))
        if wrong:
            raise ValueError(
                f"Dataset {self.name!r}: hierarchies of {wrong} are not Hierarchy objects; build them with "
                "Hierarchy.from_arx or Hierarchy.intervals"
            )

    @property
    def X(self) -> pd.DataFrame:
        """The quasi-identifiers, the sensitive attribute and the insensitive predictors (no target)."""
        return self.frame[[*self.quasi_identifiers, *([self.sensitive] if self.sensitive else []), *self.insensitive]]

    @property
    def y(self) -> np.ndarray:
        """The target as a numpy array of 0/1."""
        return self.frame[self.target].to_numpy()

    @shared_doc
    def sample(self, n: int, *, random_state=None, stratify: bool = True) -> Dataset:
        """A random subset of ``n`` rows, stratified on the target (proportional allocation).

        Each class gets ``n * count / len`` rows rounded by largest remainder, so class shares are kept
        to within one row. Rows keep their original relative order; the index is reset.

        Parameters
        ----------
        n : int
            Number of rows, 1 <= n <= len(frame).
        random_state : int, RandomState or None
            Seeds the draw.
            {random_state}
        stratify : bool
            False draws ``n`` rows uniformly without regard to the target.
        """
        total = len(self.frame)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= total:
            raise ValueError(f"sample size n must be an integer in [1, {total}] for {self.name!r}; got {n!r}")
        rng = _random_state(random_state)
        if stratify:
            y = self.y
            classes, counts = np.unique(y, return_counts=True)
            quota = n * counts / total
            take = np.floor(quota).astype(int)
            short = n - take.sum()
            take[np.argsort(-(quota - take), kind="stable")[:short]] += 1
            rows = np.concatenate(
                [rng.choice(np.flatnonzero(y == c), size=k, replace=False) for c, k in zip(classes, take)]
            )
        else:
            rows = rng.choice(total, size=n, replace=False)
        frame = self.frame.iloc[np.sort(rows)].reset_index(drop=True)
        return Dataset(
            self.name,
            frame,
            self.quasi_identifiers,
            self.sensitive,
            self.target,
            self.kinds,
            self.orders,
            self.target_names,
            self.hierarchies,
            self.insensitive,
        )


@dataclass(frozen=True, eq=False)
class TokenCorpus:
    """A bag-of-tokens corpus: binary message x token matrix, labels and the corpus' own folds.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix
        1 where the message contains the token (subject or body), else 0.
    y : numpy.ndarray
        1 = spam, 0 = legitimate.
    folds : numpy.ndarray
        The part (1..10) each message lies in, for the corpus' 10-fold cross-validation.
    tokens : numpy.ndarray
        The (encoded, integer) token of each column, sorted.
    version : str
    """

    X: sp.csr_matrix
    y: np.ndarray
    folds: np.ndarray
    tokens: np.ndarray
    version: str = "bare"
