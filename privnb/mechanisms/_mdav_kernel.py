"""MDAV on a k-d tree, compiled with numba (when it is installed): the same groups as the scan in
:func:`privnb.mechanisms.mdav.mdav_groups`, in near O(n log n) instead of O(n^2 / k) (on 4 standardized columns of
Adult replicated with noise, CPU seconds: 3 s at 181k rows, 38 s at 995k; ``benchmarks/bench_mdav.py``).

The tree (scikit-learn's ``KDTree`` layout: nodes in heap order, node i's children 2i+1 and 2i+2) keeps for
each node the number of its records not yet grouped, a bounding box of those records and the lowest of their
rows, all updated as records leave. The k-1 nearest records are found by branch and bound on the least
distance from the seed to a box, the farthest from the record just grouped on the largest. The farthest from
the centroid (which every box near the data's edge could hold) is found on a shell: the remaining rows sorted
by their distance r from a past centroid c, read until r + |centroid - c| cannot reach the best found, and
sorted again around the centroid once more entries were read than rows remain. A node or a row is skipped only
when its bound is strictly worse than the candidate found (or equal, with no lower row), so ties go to the
lowest row as in the scan; the squared distance is summed over the dimensions in order, as the scan sums it,
and rounding is monotone, so a box's bound is never beaten by the distance of a record inside it.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # optional: the scan serves
    numba = None

__all__ = ["mdav_tree_groups"]


def _distance(points, i, q):
    s = 0.0
    for j in range(points.shape[1]):
        t = points[i, j] - q[j]
        s += t * t
    return s


def _bound(lo, hi, node, q, farthest):
    """The largest (``farthest``) or least squared distance from ``q`` to the node's box."""
    s = 0.0
    for j in range(lo.shape[1]):
        a, b = lo[node, j] - q[j], hi[node, j] - q[j]
        if farthest:
            t = a * a if -a > b else b * b
        else:
            t = a * a if a > 0 else (b * b if b < 0 else 0.0)
        s += t
    return s


def _farthest(points, q, tree):
    """The remaining record farthest from ``q`` (ties: the lowest row)."""
    order, start, end, count, lo, hi, alive, stack, first = tree
    n_nodes = len(start)
    best, best_i, top = -1.0, len(points), 1
    stack[0] = 0
    while top:
        top -= 1
        node = stack[top]
        if count[node] == 0:
            continue
        bound = _bound(lo, hi, node, q, True)
        if bound < best or (bound == best and first[node] > best_i):
            continue
        if 2 * node + 1 >= n_nodes:
            for p in range(start[node], end[node]):
                i = order[p]
                if alive[i]:
                    d = _distance(points, i, q)
                    if d > best or (d == best and i < best_i):
                        best, best_i = d, i
            continue
        left, right = 2 * node + 1, 2 * node + 2
        a, b = _bound(lo, hi, left, q, True), _bound(lo, hi, right, q, True)
        if a > b or (a == b and first[left] < first[right]):
            left, right = right, left
        stack[top], stack[top + 1] = left, right  # the farther-reaching child is searched first
        top += 2
    return best_i


def _shell(points, alive, center):
    """The remaining rows by decreasing distance from ``center``, and those distances."""
    ids = np.flatnonzero(alive)
    radius = np.empty(len(ids))
    for p in range(len(ids)):
        radius[p] = np.sqrt(_distance(points, ids[p], center))
    rank = np.argsort(-radius)
    return ids[rank], radius[rank]


def _farthest_in_shell(points, q, alive, shell, radius, center, head):
    """The remaining record farthest from ``q`` (ties: the lowest row), the shell entries read, and the first
    remaining entry (those before ``head`` are taken).

    The rows are scanned by decreasing distance r from ``center``; none past the first whose r plus
    |q - center| (the triangle inequality's bound on its distance from q, with a margin for rounding) falls
    short of the farthest found can beat it. The centroid moves little between groups, so few are read.
    """
    reach = np.sqrt(_distance(center.reshape(1, -1), 0, q))
    while head < len(shell) and not alive[shell[head]]:
        head += 1
    best, best_i, p = -1.0, len(points), head
    while p < len(shell):
        bound = radius[p] + reach
        if bound * bound * (1.0 + 1e-9) < best:
            break
        i = shell[p]
        p += 1
        if alive[i]:
            d = _distance(points, i, q)
            if d > best or (d == best and i < best_i):
                best, best_i = d, i
    return best_i, p - head, head


def _nearest(points, seed, m, tree, found, found_d):
    """Fill ``found`` with the m remaining records nearest the seed, the seed aside (ties: the lowest rows)."""
    order, start, end, count, lo, hi, alive, stack, first = tree
    n_nodes, q, size, top = len(start), points[seed], 0, 1
    stack[0] = 0
    while top:
        top -= 1
        node = stack[top]
        if count[node] == 0:
            continue
        bound = _bound(lo, hi, node, q, False)
        if size == m and (bound > found_d[m - 1] or (bound == found_d[m - 1] and first[node] > found[m - 1])):
            continue
        if 2 * node + 1 >= n_nodes:
            for p in range(start[node], end[node]):
                i = order[p]
                if not alive[i] or i == seed:
                    continue
                d = _distance(points, i, q)
                if size == m and (d > found_d[m - 1] or (d == found_d[m - 1] and i > found[m - 1])):
                    continue
                at = size if size < m else m - 1  # insertion into the sorted list, by (distance, row)
                while at > 0 and (found_d[at - 1] > d or (found_d[at - 1] == d and found[at - 1] > i)):
                    found_d[at], found[at] = found_d[at - 1], found[at - 1]
                    at -= 1
                found_d[at], found[at] = d, i
                size = min(size + 1, m)
            continue
        left, right = 2 * node + 1, 2 * node + 2
        a, b = _bound(lo, hi, left, q, False), _bound(lo, hi, right, q, False)
        if a < b or (a == b and first[left] < first[right]):
            left, right = right, left
        stack[top], stack[top + 1] = left, right  # the nearer child is searched first
        top += 2


def _remove(points, i, tree, leaf_of):
    """Take record i out of the tree: the counts on its path and the boxes, shrunk to the records left."""
    order, start, end, count, lo, hi, alive, _, first = tree
    alive[i] = False
    node = leaf_of[i]
    d = points.shape[1]
    lo[node], hi[node], first[node] = np.inf, -np.inf, len(points)
    for p in range(start[node], end[node]):
        if alive[order[p]]:
            first[node] = min(first[node], order[p])
            for j in range(d):
                lo[node, j] = min(lo[node, j], points[order[p], j])
                hi[node, j] = max(hi[node, j], points[order[p], j])
    count[node] -= 1
    while node > 0:
        node = (node - 1) // 2
        count[node] -= 1
        first[node] = min(first[2 * node + 1], first[2 * node + 2])
        for j in range(d):  # an empty child's box is (inf, -inf)
            lo[node, j] = min(lo[2 * node + 1, j], lo[2 * node + 2, j])
            hi[node, j] = max(hi[2 * node + 1, j], hi[2 * node + 2, j])


def _mdav_tree_groups(points, k, order, start, end, lo, hi):
    """The MDAV loop of :func:`privnb.mechanisms.mdav.mdav_groups` on the tree (see that function)."""
    n, n_nodes = len(points), len(start)
    count = end - start
    alive = np.ones(n, np.bool_)
    leaf_of = np.empty(n, np.int64)
    for node in range(n_nodes // 2, n_nodes):  # the leaves: the tree is complete
        leaf_of[order[start[node] : end[node]]] = node
    first = np.empty(n_nodes, np.int64)  # each node's lowest remaining row (n: none)
    for node in range(n_nodes - 1, -1, -1):
        if 2 * node + 1 >= n_nodes:
            first[node] = order[start[node] : end[node]].min()
        else:
            first[node] = min(first[2 * node + 1], first[2 * node + 2])
    tree = (order, start, end, count, lo, hi, alive, np.empty(256, np.int64), first)
    group = np.full(n, -1, np.int64)
    found, found_d = np.empty(max(k - 1, 1), np.int64), np.empty(max(k - 1, 1), np.float64)
    total = np.zeros(points.shape[1])
    for i in range(n):
        total += points[i]
    left, label = n, 0
    center = total / n
    shell, radius = _shell(points, alive, center)
    read, head = 0, 0  # shell entries read since it was sorted: sorted again (around the centroid) past the rows left
    while left >= 2 * k:
        seeds = 2 if left >= 3 * k else 1
        q = total / left
        for step in range(seeds):
            if step == 0:
                if read > left:
                    center, read, head = q.copy(), 0, 0
                    shell, radius = _shell(points, alive, center)
                seed, scanned, head = _farthest_in_shell(points, q, alive, shell, radius, center, head)
                read += scanned
            else:
                seed = _farthest(points, q, tree)
            q = points[seed].copy()
            if k > 1:
                _nearest(points, seed, k - 1, tree, found, found_d)
            members = np.sort(np.append(found[: k - 1], seed))
            for i in members:
                group[i] = label
                _remove(points, i, tree, leaf_of)
                total -= points[i]
            left -= k
            label += 1
    group[alive] = label
    return group


if numba is not None:
    _jit = numba.njit(cache=True, nogil=True)
    _distance, _bound = _jit(_distance), _jit(_bound)
    _farthest, _nearest, _remove = _jit(_farthest), _jit(_nearest), _jit(_remove)
    _shell, _farthest_in_shell = _jit(_shell), _jit(_farthest_in_shell)
    _mdav_tree_groups = _jit(_mdav_tree_groups)


def mdav_tree_groups(points: np.ndarray, k: int) -> np.ndarray:
    """The MDAV group of each record, by the k-d tree: the same groups as the exact scan.

    Parameters
    ----------
    points : ndarray of shape (n, d)
        The records, checked finite.
    k : int
        The group size, at most ``n``.
    """
    from sklearn.neighbors import KDTree

    points = np.ascontiguousarray(points, dtype=np.float64)
    _, order, nodes, bounds = KDTree(points, leaf_size=16).get_arrays()
    lo, hi = np.array(bounds[0]), np.array(bounds[1])
    start, end = np.array(nodes["idx_start"]), np.array(nodes["idx_end"])
    return _mdav_tree_groups(points, k, np.asarray(order, np.int64), start, end, lo, hi).astype(np.intp)
