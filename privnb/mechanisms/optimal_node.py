"""The optimal node of a full-domain lattice: the best score over *every* acceptable node, as ARX's optimal
search returns it, found by branch and bound over the lattice.

With suppression, the best of the minimal nodes (what :class:`~privnb.mechanisms.FullDomainGeneralizer`
chooses by default, after Samarati's k-minimal generalization) need not be the best acceptable node: a node
above a minimal one may suppress fewer rows, and with ARX's non-monotone discernibility, where each
suppressed row costs ``n``, its score can be far lower. ARX's Flash tracks the best node it checks
(``AbstractAlgorithm.trackOptimum``) and prunes what cannot beat it by the metric's lower bound.

What privnb follows from ARX (read in arx-deidentifier/arx, ``src/main/org/deidentifier/arx``):

- **Discernibility** (``metric/v2/MetricSDNMDiscernability.getInformationLossInternal``, the metric of
  ``Metric.createDiscernabilityMetric(false)``): a class that is kept costs ``size**2``; a suppressed class
  (an outlier: fewer than k rows, or failing a privacy model) costs ``n * size``, so each suppressed row
  costs ``n``. :meth:`FullDomainLattice.summary` and :meth:`NodeJudge.summary` compute exactly this.
- **The row budget** (``ARXConfiguration.initialize``): ``floor(suppression_limit * n)`` rows, and a node
  is anonymous when its outliers are at most that many (``HashGroupify``: ``currentNumOutliers <=
  suppressionLimit``); :attr:`FullDomainLattice.budget` is the same floor, applied with ``<=``.
- **The lower bound** (``MetricSDNMDiscernability.getLowerBoundInternal``): the sum of squared class sizes
  with nothing suppressed. For any node Y at or above X this bounds Y's score from below: each row's class
  only grows going up (classes merge), and a suppressed row costs ``n``, at least any class size.
- **Ties** (``AbstractAlgorithm.trackOptimum``): a lower score wins; at an equal score the lower level
  (height, the sum of the levels) wins; ARX keeps the first found among equal score and height, which
  depends on its traversal; privnb takes the lexicographically smallest levels instead, so the answer does
  not depend on the order of the search.

The loss metric (Iyengar's, suppressed rows counting 1 per attribute) has the same kind of bound: the loss
with nothing suppressed. A row's label only covers more of its domain going up a nested hierarchy (privnb's
hierarchies are checked nested) and a suppressed row's 1 is at least any share.

The search visits the acceptable nodes lowest first (height, then levels), scores each one not yet pruned,
and when its bound (which bounds its whole up-set) is no lower than the best score so far, tags its
up-set as pruned. A pruned node is strictly higher than the node whose bound pruned it, which is at least
as high as the best so far, so it could at best tie and lose the tie: the search is exact.

With privacy models that are not monotone, which nodes are acceptable is costly to know (each node's classes
judged by the models), and ARX's optimal search does not learn it for every node: the search may be given
only a superset of the acceptable nodes (those within k-anonymity's budget: a node's small classes are
suppressed whatever the models say; and within the budget of the models' monotone conditions) and a predicate
``accepts``. The nodes of the superset the bound leaves in play are asked ``accepts`` before they are scored, one
height at a time (a node prunes only nodes above it, so a height's nodes in play are known before any of them
is scored, and judged together); a node it refuses cannot be the optimum, but its bound still prunes its
up-set, since the bound holds for any suppression. The optimum is the same.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from privnb.mechanisms.lattice import LOSSES, AnonymityJudge, aggregate_losses

__all__ = ["OptimalNode", "optimal_node"]

UTILITIES = ("discernibility", *LOSSES)


@dataclasses.dataclass(frozen=True)
class OptimalNode:
    """The best acceptable node of a lattice and what the search spent to find it.

    Parameters
    ----------
    node : tuple of int
        One generalization level per quasi-identifier.
    suppressed : int
        Rows suppressed at ``node``.
    score : float
        The node's utility (smaller is better).
    n_evaluated : int
        Candidate nodes the search evaluated: their bound, and their score unless the bound was already
        no better than the best score (with ``accepts``, nodes of the superset, acceptable or not).
    n_skipped : int
        Candidate nodes it skipped, their up-set's bound being no better than the best score.
    """

    node: tuple[int, ...]
    suppressed: int
    score: float
    n_evaluated: int
    n_skipped: int


def _scorers(lattice, k: int, utility: str, judge):
    """(``bound(node)``: a lower bound of the score at and above ``node``, ``score(node) -> (suppressed
    rows, score)``).
    """
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    judge = AnonymityJudge(lattice, k) if judge is None else judge
    if judge.k != k:
        raise ValueError(f"the judge checks k={judge.k}, not k={k}: build it for the same k")
    if utility in LOSSES:  # nothing suppressed, each attribute's loss depends on its own level only
        weights, bottom = lattice.sizes.weights, [0] * len(lattice.heights)
        terms = [
            [lattice.attribute_losses(bottom[:i] + [lv] + bottom[i + 1 :], None, weights)[i] for lv in range(int(h))]
            for i, h in enumerate(lattice.heights)
        ]

    def bound(node) -> float:
        if utility in LOSSES:  # each attribute's loss only grows upwards and with suppression; so does the mean
            return aggregate_losses([terms[i][lv] for i, lv in enumerate(node)], utility) * (1 - 1e-12)
        return lattice.summary(node, 1)[1]  # at k = 1 nothing is suppressed: the sum of squared sizes

    def score(node) -> tuple[int, float]:
        n_sup, value = judge.summary(node)
        if utility in LOSSES:
            value = judge.loss(node, utility)
        return n_sup, value

    return bound, score


def optimal_node(
    lattice, k: int, nodes, acceptable, *, utility: str = "discernibility", judge=None, accepts=None
) -> OptimalNode | None:
    """The acceptable node of least score, by branch and bound (see the module's docstring).

    Parameters
    ----------
    lattice : FullDomainLattice
        The training frame's lattice.
    k : int
        The anonymity level.
    nodes : ndarray of shape (n_nodes, n_attributes)
        Every node of the lattice, in :meth:`FullDomainLattice.classify`'s order.
    acceptable : ndarray of bool
        Which nodes are within the suppression budget (from :meth:`FullDomainLattice.classify`, or from
        :func:`~privnb.mechanisms._model_checks.search_with_models` with privacy models); it need not be an up-set.
    utility : {"discernibility", "loss", "geometric_loss"}
        The score to minimize (ARX's non-monotone discernibility, or Iyengar's loss metric, averaged over
        attributes arithmetically or by ARX's geometric mean).
    judge : NodeJudge or AnonymityJudge, optional
        The suppression and scores follow its classes (k must be its k); default k-anonymity alone.
    accepts : callable, optional
        ``accepts(nodes) -> list of bool`` for nodes (lists of levels) of ``acceptable``, which is then a
        superset of the acceptable nodes; asked, one height at a time, of the nodes the bound leaves in play.

    Returns
    -------
    OptimalNode, or None when ``accepts`` refuses every node it is asked of
    """
    bound, score = _scorers(lattice, k, utility, judge)
    heights = np.asarray(lattice.heights)
    nodes, acceptable = np.asarray(nodes), np.asarray(acceptable, dtype=bool)
    if nodes.shape != (int(np.prod(heights)), len(heights)) or acceptable.shape != (len(nodes),):
        raise ValueError("nodes and acceptable must cover the whole lattice, in FullDomainLattice.classify's order")
    if not acceptable.any():
        raise ValueError("no node is acceptable: there is no optimum to find")
    pruned = np.zeros(len(nodes), dtype=bool)
    box = pruned.reshape(tuple(heights))  # a view: an up-set is a box, tagged by slicing
    candidates = np.flatnonzero(acceptable)
    order = candidates[np.argsort(nodes[candidates].sum(axis=1), kind="stable")]  # height, then levels
    height = nodes[order].sum(axis=1)
    lows = {}  # each node's bound, computed where it is used: against a best so far, or once the node is scored

    def low(i: int) -> float:
        if i not in lows:
            lows[i] = bound(nodes[i].tolist())
        return lows[i]

    best, n_evaluated = None, 0
    for level in np.split(order, np.flatnonzero(np.diff(height)) + 1):  # one height at a time
        level = [i for i in level.tolist() if not pruned[i]]  # a node prunes only nodes above it
        n_evaluated += len(level)
        ok = [True] * len(level)
        if accepts is not None:  # asked of the nodes no best so far rules out, all at once
            live = [j for j, i in enumerate(level) if best is None or low(i) < best[2]]
            ok = [False] * len(level)
            for j, verdict in zip(live, accepts([nodes[level[j]].tolist() for j in live])):
                ok[j] = verdict
        for i, ok_i in zip(level, ok):
            up_set = tuple(slice(lv, None) for lv in nodes[i].tolist())
            if best is not None and low(i) >= best[2]:  # neither this node nor any above it can win
                box[up_set] = True
                continue
            if not ok_i:
                continue
            n_sup, value = score(nodes[i].tolist())
            if best is None or value < best[2]:
                best = (tuple(nodes[i].tolist()), n_sup, value)
            if low(i) >= best[2]:  # this node is the best, and nothing above it does better
                box[up_set] = True
    if best is None:
        return None
    return OptimalNode(best[0], best[1], float(best[2]), n_evaluated, len(candidates) - n_evaluated)
