"""The utility of a release, whatever made it (anatomy, full-domain, Mondrian, MDAV): ARX's discernibility,
the average equivalence class size, the Global Certainty Penalty and ARX's non-uniform entropy.

A release is the released rows (suppressed rows left out), indexed by the original rows' labels, with its
quasi-identifiers as released (labels, intervals, centroids or raw values); its equivalence classes are the
groups of equal released quasi-identifiers, or of another column (an anatomy's ``gid``). Each metric
compares it with the original rows, suppressed ones included.

- Discernibility (Bayardo and Agrawal 2005, as ARX): the sum of the squared class sizes, plus ``n`` for
  each suppressed row.
- Average equivalence class size (LeFevre et al. 2006): ``C_avg = released rows / (classes * k)``.
- NCP / GCP (Ghinita et al. 2007's certainty penalty): per row and quasi-identifier, 0 for a value released
  as is (in the whole class: an anatomy's); for a label of the attribute's hierarchy, the share of the domain it covers
  (``Hierarchy.leaf_share``: (leaves under it - 1) / (leaves - 1), or an interval's width over the domain's);
  otherwise, for a number, the width of the original values of the row's class over the domain's width
  (Mondrian's ranges, MDAV's centroids), and for a category, (distinct original values of the class - 1) /
  (distinct values - 1). A suppressed row counts 1. GCP is the mean over all rows and quasi-identifiers.
- Non-uniform entropy (Gionis and Tassa 2009, as ARX): the sum over rows and quasi-identifiers of
  ``-log2 Pr(original value | released value)``, the probability read on the released rows (ARX reads it
  on all input rows; they differ by the suppressed rows); a suppressed row pays ``-log2`` of its value's
  share of all rows, as if released as ``*``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privnb.mechanisms.anatomy import Anatomy
from privnb.mechanisms.grouping import check_columns
from privnb.mechanisms.releases import GeneralizedRelease, PrunedRelease
from privnb.validation import check_int

__all__ = ["UTILITY_COLUMNS", "record_utility", "release_utility", "certainty_penalty", "non_uniform_entropy"]

#: The columns of :func:`release_utility`'s row.
UTILITY_COLUMNS = ("n", "released", "suppressed", "classes", "discernibility", "c_avg", "gcp", "nu_entropy")


def _aligned(release: pd.DataFrame, original: pd.DataFrame, quasi_identifiers) -> pd.DataFrame:
    """The original rows of the release, in its order (a ValueError unless every release row is one)."""
    qi = list(quasi_identifiers)
    check_columns(release, qi, "release", missing_values=False)
    check_columns(original, qi, "original", missing_values=True)
    if release.index.has_duplicates or not release.index.isin(original.index).all():
        raise ValueError(
            "the release must be indexed by the original rows' labels, each once (a generalizer's "
            "generalized_, an anatomy's it); reset neither index"
        )
    return original.loc[release.index]


def _class_ids(release: pd.DataFrame, classes) -> np.ndarray:
    cols = [classes] if isinstance(classes, str) or not isinstance(classes, (list, tuple)) else list(classes)
    check_columns(release, cols, "release", missing_values=False)
    return release.groupby(cols, sort=False, dropna=False).ngroup().to_numpy()


def _hierarchy_share(hierarchy, released: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each row's share of the domain when its released value is its value's label at some level, else NaN."""
    share = np.full(len(values), np.nan)
    for level in range(hierarchy.n_levels):
        todo = np.isnan(share)
        if not todo.any():
            break
        match = todo & (hierarchy.generalize(values, level).astype(str) == released.astype(str))
        if level == 0:
            share[match] = 0.0
        elif match.any():
            share[match] = hierarchy.leaf_share(level)[hierarchy.codes(values[match], level)]
    return share


def _class_spread(values: pd.Series, class_id: np.ndarray, domain: pd.Series) -> np.ndarray:
    """Each row's class spread: numbers the class's range over the domain's; categories distinct values."""
    groups = values.groupby(class_id, sort=False)
    if pd.api.types.is_numeric_dtype(domain):
        width = float(domain.max() - domain.min())
        spread = (groups.transform("max") - groups.transform("min")).to_numpy(float)
        return spread / width if width > 0 else np.zeros(len(values))
    distinct = domain.nunique()
    spread = groups.transform("nunique").to_numpy(float) - 1
    return spread / (distinct - 1) if distinct > 1 else np.zeros(len(values))


def certainty_penalty(release, original, quasi_identifiers, *, hierarchies=None, classes=None) -> pd.DataFrame:
    """NCP of every released row and quasi-identifier (the module's docstring says how each is read).

    Parameters
    ----------
    release : DataFrame
        The released rows, indexed by the original rows' labels.
    original : DataFrame
        The original rows (suppressed rows included).
    quasi_identifiers : sequence of str
        The released quasi-identifiers.
    hierarchies : mapping attribute -> Hierarchy, optional
        The hierarchies whose labels the release may hold.
    classes : str or sequence of str, optional
        The release's columns that make its equivalence classes; default the quasi-identifiers.

    Returns
    -------
    DataFrame
        One column per quasi-identifier, one row per released row, values in [0, 1].
    """
    rows = _aligned(release, original, quasi_identifiers)
    class_id = _class_ids(release, list(quasi_identifiers) if classes is None else classes)
    hierarchies = dict(hierarchies or {})
    if not isinstance(hierarchies, Mapping):
        raise ValueError("hierarchies must be a mapping attribute -> Hierarchy")
    out = {}
    for a in quasi_identifiers:
        released, values = release[a].to_numpy(), rows[a].to_numpy()
        same = pd.Series(released).eq(pd.Series(values)).groupby(class_id).transform("all").to_numpy()
        share = np.where(same, 0.0, np.nan)  # the class's values released as they are
        if a in hierarchies and np.isnan(share).any():
            todo = np.isnan(share)
            share[todo] = _hierarchy_share(hierarchies[a], released[todo], values[todo])
        todo = np.isnan(share)
        if todo.any():
            spread = _class_spread(rows[a].reset_index(drop=True), class_id, original[a])
            share[todo] = spread[todo]
        out[a] = share
    return pd.DataFrame(out, index=release.index)


def non_uniform_entropy(release, original, quasi_identifiers) -> float:
    """ARX's non-uniform entropy of a release, in bits (the module's docstring says how it is read).

    Parameters
    ----------
    release : DataFrame
        The released rows, indexed by the original rows' labels.
    original : DataFrame
        The original rows (suppressed rows included).
    quasi_identifiers : sequence of str
        The released quasi-identifiers.

    Returns
    -------
    float
    """
    rows = _aligned(release, original, quasi_identifiers)
    suppressed = original.loc[~original.index.isin(release.index)]
    total = 0.0
    for a in quasi_identifiers:
        released = pd.Series(release[a].astype(str).to_numpy())
        values = pd.Series(rows[a].to_numpy())
        pair = pd.DataFrame({"g": released, "v": values})
        p = pair.groupby(["g", "v"], sort=False)["g"].transform("size") / pair.groupby("g")["g"].transform("size")
        total -= float(np.log2(p.to_numpy(float)).sum())
        share = original[a].map(original[a].value_counts(normalize=True))
        total -= float(np.log2(share.loc[suppressed.index].to_numpy(float)).sum())
    return total


def release_utility(release, original, quasi_identifiers, *, k, hierarchies=None, classes=None) -> pd.DataFrame:
    """One row of utility metrics of a release (module docstring): :data:`UTILITY_COLUMNS`.

    Parameters
    ----------
    release : DataFrame
        The released rows (suppressed rows left out), indexed by the original rows' labels: a generalizer's
        ``generalized_``, an MDAV release, an anatomy's identifying table ``it``.
    original : DataFrame
        The original rows, suppressed ones included.
    quasi_identifiers : sequence of str
        The quasi-identifiers.
    k : int
        The anonymity level, for ``c_avg`` (an anatomy's l).
    hierarchies : mapping attribute -> Hierarchy, optional
        Hierarchies whose labels the release holds (full-domain; Mondrian's hierarchical attributes).
    classes : str or sequence of str, optional
        The columns that make the equivalence classes (``"gid"`` for an anatomy); default the
        quasi-identifiers.

    Returns
    -------
    DataFrame
        One row, the columns :data:`UTILITY_COLUMNS`.
    """
    k = check_int(k, "k")
    qi = list(quasi_identifiers)
    ncp = certainty_penalty(release, original, qi, hierarchies=hierarchies, classes=classes)
    n, released = len(original), len(release)
    sizes = np.bincount(_class_ids(release, qi if classes is None else classes)).astype(float)
    suppressed = n - released
    row = {
        "n": n,
        "released": released,
        "suppressed": suppressed,
        "classes": len(sizes),
        "discernibility": float(sizes @ sizes) + float(n) * suppressed,
        "c_avg": released / (len(sizes) * k) if len(sizes) else np.nan,
        "gcp": (float(ncp.to_numpy().sum()) + suppressed * len(qi)) / (n * len(qi)),
        "nu_entropy": non_uniform_entropy(release, original, qi),
    }
    return pd.DataFrame([row], columns=list(UTILITY_COLUMNS))


def record_utility(release, original: pd.DataFrame) -> pd.DataFrame:
    """:func:`release_utility` of a release record against the rows it was made from.

    An anatomy (or the anatomy a pruned view learned from) is measured on IT with its groups as classes and
    k its l; a generalized or microaggregated release on its released rows with its hierarchies.

    Parameters
    ----------
    release : Anatomy, PrunedRelease, GeneralizedRelease or MicroaggregatedRelease
        The record (a mechanism's ``release_``).
    original : DataFrame
        The rows the mechanism was fitted on, under the labels the release uses (suppressed ones included).

    Returns
    -------
    DataFrame
        One row, columns :data:`UTILITY_COLUMNS`.
    """
    if isinstance(release, PrunedRelease):
        release = release.anatomy
    if isinstance(release, Anatomy):
        qi = [c for c in release.it.columns if c in original.columns]  # not gid, not the published label
        return release_utility(release.it, original, qi, k=release.l, classes="gid")
    if isinstance(release, GeneralizedRelease):
        qi = list(release.quasi_identifiers)
        return release_utility(release.table, original, qi, k=release.k, hierarchies=release.hierarchies)
    raise TypeError(f"no utility is defined for a {type(release).__name__}; pass an anatomy or a generalized release")
