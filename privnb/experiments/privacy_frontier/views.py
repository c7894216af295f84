"""The k-NN views of the frontier, one registry entry each: a view is a mechanism a classifier learns from.

Each :class:`FrontierView` names its method (the result rows' ``method``), the parameter list it runs over (the
runner's ``ls`` or ``k_anonymity``) and how to build its training view for one parameter from a
:class:`ViewSetting` (the data set, its hierarchies, the k-NN). :func:`register_view` adds one; the runner
(:func:`~privnb.experiments.privacy_frontier.anatomy_and_k_anonymity`), the attacks registered for the view's
release type, the frontier table and its plot need no other change. Anatomy's peers (``peer=True``) are
compared with it at the same l (:func:`~privnb.experiments.privacy_frontier.like_for_like_table`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from privnb.learn.encoding import generalized_kinds
from privnb.learn.knn import IBkClassifier
from privnb.learn.training import AnatomizedTraining, GeneralizedTraining, ProtectedTraining, PrunedTraining
from privnb.mechanisms import DistinctLDiversity, MDAVMicroaggregator, TCloseness
from privnb.validation import check_int

__all__ = ["PEERS", "VIEWS", "FrontierView", "ViewSetting", "matching_t", "population_rows", "register_view"]


def matching_t(counts, l: int) -> float:
    """The t of the t-close peer at l: the equal distance from the data's sensitive distribution to the closest
    distribution of l equally frequent values (its l most frequent values, 1/l each).

    A t-close class at this t is at least as close to the population as the closest group anatomy could form at l
    (l distinct values, one each). An l above the number of values takes every value equally often.

    Parameters
    ----------
    counts : array-like
        The sensitive values' counts.
    l : int
        The diversity.

    Returns
    -------
    float
    """
    share = np.sort(np.asarray(counts, dtype=float))[::-1]
    share = share / share.sum()
    if l < 1:
        raise ValueError(f"l must be at least 1, got {l}")
    l = min(l, len(share))  # an l above the values: the closest is every value equally often
    return float(0.5 * (np.abs(share[:l] - 1 / l).sum() + share[l:].sum()))


def population_rows(data, sample, size: int = 0, random_state=0) -> pd.DataFrame:
    """The rows of ``data`` outside ``sample`` (a multiset difference: a row drawn once leaves one copy out).

    Parameters
    ----------
    data : Dataset
        The whole table.
    sample : Dataset
        A sample of it (``data.sample``).
    size : int
        Keep this many of them, drawn at random (0, or at least as many as there are: every one).
    random_state : int
        Seeds that draw.

    Returns
    -------
    DataFrame
        ``data.frame``'s rows not drawn, with every column (the target too), in the table's order.
    """
    size = check_int(size, "population_size", low=0)
    columns = list(data.frame.columns)

    def numbered(frame):
        return frame.assign(_copy=frame.groupby(columns, dropna=False, sort=False).cumcount())

    whole, drawn = numbered(data.frame), numbered(sample.frame[columns])
    merged = whole.merge(drawn, on=[*columns, "_copy"], how="left", indicator=True)
    rest = data.frame[(merged["_merge"] == "left_only").to_numpy()]
    return rest.sample(size, random_state=random_state).sort_index() if 0 < size < len(rest) else rest


@dataclass(frozen=True)
class ViewSetting:
    """What the views of one data set are built from.

    Parameters
    ----------
    dataset : Dataset
        The table (sensitive attribute, quasi-identifiers, kinds, orders).
    hierarchies : mapping or None
        Generalization hierarchies (None: no full-domain view).
    n_neighbors : int
        The k-NN's k.
    t_closeness : float or None
        The t of the t-close peer; None: :func:`matching_t` at each l.
    """

    dataset: object
    hierarchies: Mapping | None
    n_neighbors: int
    t_closeness: float | None = None

    @property
    def quasi_identifiers(self) -> list:
        """The data set's quasi-identifiers."""
        return list(self.dataset.quasi_identifiers)

    @property
    def hierarchical(self) -> list:
        """The quasi-identifiers with a hierarchy."""
        return [q for q in self.quasi_identifiers if q in (self.hierarchies or {})]

    def knn(self, generalized=(), **params) -> IBkClassifier:
        """Weka IBk's k-NN on the data's kinds, the ``generalized`` columns read as generalized labels.

        Parameters
        ----------
        generalized : sequence of str
            Columns a generalization recodes (a generalized ordinal holds labels of ranges).
        **params
            Further IBk parameters (``factor_column``).

        Returns
        -------
        IBkClassifier
        """
        knn = IBkClassifier(self.n_neighbors, kinds=self.dataset.kinds, orders=self.dataset.orders)
        if generalized:
            knn.set_params(kinds=generalized_kinds(self.dataset.kinds, dict.fromkeys(generalized)))
        return clone(knn).set_params(**params)

    def t_at(self, l: int) -> float:
        """The t-close peer's t at ``l`` (``t_closeness``, else :func:`matching_t` of the data set)."""
        if self.t_closeness is not None:
            return float(self.t_closeness)
        return matching_t(self.dataset.frame[self.dataset.sensitive].value_counts().to_numpy(), l)


@dataclass(frozen=True)
class FrontierView:
    """A view of the frontier: the mechanism a k-NN learns from, at each of its parameters.

    Parameters
    ----------
    method : str
        The result rows' method.
    parameter : {"l", "k"}
        Which of the runner's lists it runs over (``ls`` or ``k_anonymity``).
    build : callable
        ``build(setting, param) -> estimator or None`` (None: the data set cannot carry the view, such as
        full-domain without hierarchies).
    peer : bool
        Anatomy's peer at the same l (run when the runner's ``peers`` names it).
    """

    method: str
    parameter: str
    build: Callable
    peer: bool = False


VIEWS: dict[str, FrontierView] = {}
"""Method -> :class:`FrontierView`, in the frontier's order."""


def register_view(view: FrontierView, *, replace: bool = False) -> FrontierView:
    """Add a view to :data:`VIEWS` (the runner, the frontier and its plot then show it).

    Parameters
    ----------
    view : FrontierView
        The entry.
    replace : bool
        Allow replacing an entry of the same method.

    Returns
    -------
    FrontierView
    """
    if not isinstance(view, FrontierView):
        raise TypeError(f"expected a FrontierView, got {type(view).__name__}")
    if view.parameter not in ("l", "k"):
        raise ValueError(f"a view's parameter is 'l' or 'k', got {view.parameter!r}")
    if view.method in VIEWS and not replace:
        raise ValueError(f"view {view.method!r} is registered already; pass replace=True to replace it")
    VIEWS[view.method] = view
    return view


def _anatomized(s: ViewSetting, l):
    knn = s.knn(factor_column=s.dataset.sensitive)
    return AnatomizedTraining(knn, sensitive=s.dataset.sensitive, l=l)


def _pruned(s: ViewSetting, l):
    data = s.dataset
    return PrunedTraining(s.knn(), sensitive=data.sensitive, l=l, kinds=data.kinds, orders=data.orders)


def _full_domain(s: ViewSetting, k, models=()):
    if not s.hierarchical:
        return None
    knn = s.knn(s.hierarchical)
    extra = {"sensitive": s.dataset.sensitive, "privacy_models": list(models)} if models else {}
    return GeneralizedTraining(knn, quasi_identifiers=s.hierarchical, k=k, hierarchies=s.hierarchies, **extra)


def _mondrian(s: ViewSetting, k, models=()):
    extra = {"sensitive": s.dataset.sensitive, "privacy_models": list(models)} if models else {}
    knn = s.knn(s.quasi_identifiers)
    return GeneralizedTraining(knn, quasi_identifiers=s.quasi_identifiers, k=k, method="mondrian", **extra)


def _mdav(s: ViewSetting, k):
    frame = s.dataset.frame
    numeric = [q for q in s.quasi_identifiers if s.dataset.kinds.get(q) == "numeric" and frame[q].notna().all()]
    if not numeric:
        return None
    return ProtectedTraining(MDAVMicroaggregator(numeric, k), s.knn())


for _view in (
    FrontierView("anatomized", "l", _anatomized),
    FrontierView("pruned", "l", _pruned),
    FrontierView("generalized", "k", _full_domain),
    FrontierView("mondrian", "k", _mondrian),
    FrontierView("mdav", "k", _mdav),
    FrontierView("l-diverse full-domain", "l", lambda s, l: _full_domain(s, l, [DistinctLDiversity(l)]), peer=True),
    FrontierView("l-diverse Mondrian", "l", lambda s, l: _mondrian(s, l, [DistinctLDiversity(l)]), peer=True),
    FrontierView("t-close Mondrian", "l", lambda s, l: _mondrian(s, l, [TCloseness(s.t_at(l), "equal")]), peer=True),
):
    register_view(_view)
del _view

PEERS = tuple(method for method, view in VIEWS.items() if view.peer)
"""Anatomy's peers at the same l: full-domain and Mondrian generalization with k = l and distinct l-diversity of
anatomy's sensitive attribute, and Mondrian with k = l and t-closeness (the equal distance) at :func:`matching_t`."""
