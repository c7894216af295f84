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

try:
    import numba
except ImportError:  # optional: the same loop runs in Python
    numba = None

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
def tree(hierarchy, values: tuple) -> tuple[np.ndarray, ...]:
    """The hierarchy above the values, per level ``1..H`` (rows): (level / H, the node a level down of each
    value, the parent of each of those nodes (padded), how many nodes a level down, how many parents).

    Parameters
    ----------
    hierarchy : privnb.data.Hierarchy
        The sensitive attribute's hierarchy.
    values : tuple
        The sensitive values, in the columns' order.
    """
    height, child = hierarchy.n_levels - 1, np.arange(len(values))
    weights, child_of_value = np.arange(1, height + 1) / height, np.zeros((height, len(values)), dtype=np.int64)
    parent_of_child = np.zeros((height, len(values)), dtype=np.int64)
    n_children, n_parents = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    for row, level in enumerate(range(1, height + 1)):
        top = level == height
        parent = np.zeros(len(values), dtype=np.int64) if top else hierarchy.codes(np.asarray(values, object), level)
        children, parents = (np.unique(c, return_inverse=True)[1].ravel() for c in (child, parent))
        child_of_value[row] = children
        parent_of_child[row, children] = parents
        n_children[row], n_parents[row] = children.max() + 1, parents.max() + 1
        child = parent
    return weights, child_of_value, parent_of_child, n_children, n_parents


def _tree_costs(extra, weights, child_of_value, parent_of_child, n_children, n_parents):
    """Each row's sum over levels of ``weight * sum over parents of min(positive, negative extra of its
    children)`` (:func:`emd_hierarchical`), a row at a time.
    """
    n_rows, n_values = extra.shape
    cost = np.zeros(n_rows)
    child, positive, negative = np.empty(n_values), np.empty(n_values), np.empty(n_values)
    for r in range(n_rows):
        for lv in range(len(weights)):
            child[: n_children[lv]] = 0.0
            for v in range(n_values):
                child[child_of_value[lv, v]] += extra[r, v]
            positive[: n_parents[lv]] = 0.0
            negative[: n_parents[lv]] = 0.0
            for j in range(n_children[lv]):
                if child[j] > 0:
                    positive[parent_of_child[lv, j]] += child[j]
                else:
                    negative[parent_of_child[lv, j]] -= child[j]
            moved = 0.0
            for p in range(n_parents[lv]):
                moved += min(positive[p], negative[p])
            cost[r] += weights[lv] * moved
    return cost


#: :func:`_tree_costs`, compiled when numba is installed.
tree_costs = _tree_costs if numba is None else numba.njit(cache=True, nogil=True)(_tree_costs)


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
    extra = np.ascontiguousarray(shares - overall, dtype=float)  # the level-0 nodes: the values themselves
    if not len(extra):
        return np.zeros(0)
    return tree_costs(extra, *tree(hierarchy, tuple(values)))


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
