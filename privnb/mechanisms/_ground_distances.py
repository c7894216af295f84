"""The Earth Mover's Distance of t-closeness under its three ground distances (Li, Li and Venkatasubramanian
2007, Section 4.2), and the ordered domain the ordered distance walks.

The ordered distance puts the m values of an ordered domain ``|i - j| / (m - 1)`` apart. Its order is the
attribute's declared order (``Dataset.orders``, a data card's ordinal ``order``), whose m values make the
domain whatever a table happens to hold. Without a declared order the values must be numbers, ordered by
value among the numbers present (in the classes judged or the distribution compared with), never as
strings. A text attribute without a declared order has no ordered distance: :func:`ordered_domain` refuses
it.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

__all__ = ["emd_equal", "emd_ordered", "emd_hierarchical", "ordered_domain", "emd_in_order"]


def emd_equal(shares: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """Earth Mover's Distance with the equal ground distance (every two values at distance 1).

    It is the total variation distance, half the L1 distance (Li et al. 2007, Section 4.2).

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution.
    overall : ndarray of shape (n_values,)
        The table's.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    return 0.5 * np.abs(shares - overall).sum(axis=1)


def emd_ordered(shares: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """Earth Mover's Distance with the ordered distance ``|i - j| / (m - 1)`` on an ordered domain of m values.

    Closed form (Li et al. 2007, Section 4.2): ``sum_i |r_1 + ... + r_i| / (m - 1)`` with ``r = shares -
    overall``; 0 for a one-value domain.

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution, values in the domain's order.
    overall : ndarray of shape (n_values,)
        The table's.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    m = shares.shape[1]
    if m < 2:
        return np.zeros(shares.shape[0])
    return np.abs(np.cumsum(shares - overall, axis=1)).sum(axis=1) / (m - 1)


@functools.lru_cache(maxsize=32)
def _tree_sums(hierarchy, values: tuple) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per level above the values: (level / H, the values ordered by their node a level down and where each
    node's run starts, those nodes ordered by their parent and where each parent's run starts).
    """
    height, child, out = hierarchy.n_levels - 1, np.arange(len(values)), []
    for level in range(1, height + 1):
        top = level == height
        parent = np.zeros(len(values), dtype=np.int64) if top else hierarchy.codes(np.asarray(values, object), level)
        children, parents = (np.unique(c, return_inverse=True)[1].ravel() for c in (child, parent))
        parent_of = np.empty(children.max() + 1, dtype=np.int64)
        parent_of[children] = parents
        by_child, by_parent = np.argsort(children, kind="stable"), np.argsort(parent_of, kind="stable")
        out.append(
            (level / height, by_child, _run_starts(children[by_child]), by_parent, _run_starts(parent_of[by_parent]))
        )
        child = parent
    return out


def _run_starts(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values of ``ordered`` starts."""
    return np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])


def emd_hierarchical(shares: np.ndarray, overall: np.ndarray, hierarchy, values) -> np.ndarray:
    """Earth Mover's Distance with the hierarchical distance: two values are ``level / H`` apart, where level
    is the height of their lowest common ancestor in ``hierarchy`` and H its height.

    Closed form (Li et al. 2007, Section 4.2): the sum over the hierarchy's inner nodes N of
    ``height(N) / H * min(positive extra, negative extra)`` of N's children, where a node's extra is the
    sum of ``shares - overall`` over the values below it.

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution.
    overall : ndarray of shape (n_values,)
        The table's.
    hierarchy : privnb.data.Hierarchy
        The sensitive attribute's generalization hierarchy (its top level ``*`` joins everything).
    values : sequence
        The sensitive values, in the columns' order.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    cost = np.zeros(shares.shape[0])
    extra = shares - overall  # the level-0 nodes: the values themselves
    if not len(extra):
        return cost
    for weight, by_child, child_starts, by_parent, parent_starts in _tree_sums(hierarchy, tuple(values)):
        child_extra = np.add.reduceat(extra[:, by_child], child_starts, axis=1)[:, by_parent]  # nodes at level - 1
        positive = np.add.reduceat(np.clip(child_extra, 0, None), parent_starts, axis=1)
        negative = np.add.reduceat(np.clip(-child_extra, 0, None), parent_starts, axis=1)
        cost += weight * np.minimum(positive, negative).sum(axis=1)
    return cost


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def ordered_domain(values, present, order=None) -> tuple[np.ndarray, int]:
    """Where each column's value lies in the ordered domain, and the domain's size m.

    Parameters
    ----------
    values : sequence
        The sensitive values of the count matrix's columns.
    present : ndarray of bool, shape (n_values,)
        Which columns hold rows (in a class or in the distribution compared with); the others carry no mass.
    order : sequence, optional
        The attribute's declared order: the domain is its values. Without it every present value must be a
        number, and the domain is the present numbers in increasing value.

    Returns
    -------
    (ndarray of int, int)
        Each column's position in the domain (-1 for a column that is not present) and m.
    """
    values = np.asarray(values, dtype=object)
    present = np.asarray(present, dtype=bool)
    positions = np.full(len(values), -1, dtype=np.int64)
    if order is not None:
        index = {v: i for i, v in enumerate(order)}
        unknown = [v for v, p in zip(values.tolist(), present) if p and v not in index]
        if unknown:
            raise ValueError(
                f"sensitive values {sorted(map(str, unknown))[:5]} are not in the declared order "
                f"{list(order)[:8]}...; give the order of every value"
            )
        positions[present] = [index[v] for v in values[present].tolist()]
        return positions, len(index)
    text = [v for v in values[present].tolist() if not _is_number(v)]
    if text:
        raise ValueError(
            f"the ordered distance needs the order of the sensitive values (they hold text such as {text[0]!r}, "
            "which has no order by value): pass TCloseness(..., order=<the values in their order>), e.g. "
            "Dataset.orders[<sensitive>] or a data card's ordinal `order`, or the generalizer's orders=; "
            "or use the equal or hierarchical distance"
        )
    numbers_present = np.asarray(values[present], dtype=float)
    domain = np.unique(numbers_present)
    positions[present] = np.searchsorted(domain, numbers_present)
    return positions, len(domain)


def emd_in_order(shares: np.ndarray, overall: np.ndarray, values, order=None) -> np.ndarray:
    """:func:`emd_ordered` on columns in any order: each class and the table laid out on the ordered domain
    (:func:`ordered_domain`), values with no mass left out.

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution.
    overall : ndarray of shape (n_values,)
        The distribution compared with.
    values : sequence
        The sensitive values of the columns.
    order : sequence, optional
        The attribute's declared order (text needs one; numbers are ordered by value without it).

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    shares, overall = np.asarray(shares, dtype=float), np.asarray(overall, dtype=float)
    present = (shares > 0).any(axis=0) | (overall > 0)
    positions, m = ordered_domain(values, present, order)
    laid_shares, laid_overall = np.zeros((shares.shape[0], m)), np.zeros(m)
    laid_shares[:, positions[present]] = shares[:, present]
    laid_overall[positions[present]] = overall[present]
    return emd_ordered(laid_shares, laid_overall)
