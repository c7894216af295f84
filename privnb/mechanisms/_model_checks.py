"""Privacy models inside the generalizers (as ARX's ``addPrivacyModel``): which classes of a candidate
release satisfy k-anonymity and every model, and the full-domain search with models.

:class:`ModelCheck` holds the training frame's sensitive column once (its value codes and its distribution,
the "overall" distribution every model compares a class with) and judges a class-by-value count matrix.
:func:`search_with_models` finds the acceptable nodes of a :class:`~privnb.mechanisms.FullDomainLattice`
when classes failing k-anonymity or a model are suppressed: a node is acceptable when the suppressed rows
are within the budget.

Monotonicity with suppression. Generalizing one step merges classes. A merged class holding one class that
passed k-anonymity and distinct l-diversity passes both (it has at least as many rows and distinct values),
so the rows a node suppresses for them only shrink upwards: the property is monotone and Flash's search
(:meth:`FullDomainLattice.classify_by`) is exact. Entropy and recursive (c,l)-diversity, t-closeness and
beta-likeness are not: a passing class merged with a failing one (suppressed below) can fail, and then its
rows are suppressed above though not below. For these the search classifies with Flash k-anonymity and the
monotone conditions the models imply (any distinct l-diversity, a t-closeness model's absent mass:
:func:`candidate_nodes`), which bound the acceptable nodes from above (an acceptable node suppresses at least
the rows of the classes failing them), and then evaluates the models exactly on every node of that bound.
Both searches are exact: every lattice node is classified. ARX's optimal search (``candidates="all"``) needs
less: the branch and bound of :func:`~privnb.mechanisms.optimal_node.optimal_node` asks
:meth:`NodeJudge.accepts` only of the nodes of that bound its own bound leaves in play.

Which distribution t-closeness and beta-likeness compare a class with (a model's ``reference``): the input
table's, :attr:`ModelCheck.overall` (ARX's reading, the default), or the rows a node keeps
(:meth:`ModelCheck.class_ok` suppresses until every kept class holds against them). A release is checked
under the first with ``sensitive_counts(release, ..., input_table=frame)``, under the second with the release
alone.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.mechanisms._absent_mass import absent_mass
from privnb.mechanisms.anatomy import NotLDiverseError
from privnb.mechanisms.class_counts import sensitive_column
from privnb.mechanisms.lattice import aggregate_losses
from privnb.mechanisms.privacy_models import (
    DistinctLDiversity,
    EntropyLDiversity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
    sensitive_counts,
)

__all__ = ["ModelCheck", "NodeJudge", "candidate_nodes", "search_with_models"]

L_DIVERSITY = (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)
_BATCH_CELLS = 1 << 20  # class-by-value counts judged together by NodeJudge.summarize (8 MB)


class ModelCheck:
    """k-anonymity and privacy models judged on the classes of a candidate release of one training frame.

    Parameters
    ----------
    frame : DataFrame
        The training rows; it holds the sensitive column.
    quasi_identifiers : sequence of str
        The generalized columns (the sensitive column may not be one of them).
    sensitive : str
        The sensitive column (no missing values).
    privacy_models : sequence of PrivacyModel
        The models every released class must satisfy, beside k-anonymity.
    k : int
        The least class size.
    order : sequence, optional
        The sensitive attribute's declared order (a generalizer's ``orders[sensitive]``), given to the
        ordered t-closeness models that have none.

    Attributes
    ----------
    codes : ndarray of int
        Each row's sensitive value code (the position in ``values``).
    values : ndarray
        The sensitive values, sorted (numbers by value).
    overall : ndarray
        The training frame's sensitive distribution (the input table's, which models with
        ``reference="input"`` compare with).
    models : tuple of PrivacyModel
        The models (ordered and hierarchical t-closeness given ``values``, ordered given ``order``).
    """

    def __init__(self, frame: pd.DataFrame, quasi_identifiers, sensitive, privacy_models, k: int, *, order=None):
        models = check_models(sensitive, privacy_models)
        if sensitive not in frame.columns:
            raise ValueError(
                f"the sensitive column {sensitive!r} is not a column of the frame (columns: {list(frame.columns)})"
            )
        if sensitive in list(quasi_identifiers):
            raise ValueError(
                f"the sensitive column {sensitive!r} is also a quasi-identifier; it must not be generalized"
            )
        sensitive_column(frame, sensitive, "training rows")
        counts = sensitive_counts(frame.assign(_all=0), ["_all"], sensitive)
        self.values, self.codes = counts.values, pd.Categorical(frame[sensitive], categories=counts.values).codes
        self.overall = counts.overall
        self.k = k
        self.models = tuple(_with_values(m, self.values, order) for m in models)
        for m in self.models:
            if isinstance(m, L_DIVERSITY) and m.l > len(self.values):
                raise NotLDiverseError(
                    f"{m.name} with l = {m.l} needs at least {m.l} distinct values of {sensitive!r}; "
                    f"the training rows hold {len(self.values)}"
                )
            m.class_holds(counts.counts, self.overall)  # an ordered distance with no order known raises here

    @property
    def separable(self) -> bool:
        """Whether :meth:`class_ok` judges each class by its own counts alone (no model compares it with the
        kept rows' distribution), so that the classes of several releases may be judged together.
        """
        return all(getattr(m, "reference", "input") == "input" for m in self.models)

    @property
    def monotone(self) -> bool:
        """Whether suppressing failing classes keeps acceptability monotone (only distinct l-diversity)."""
        return all(isinstance(m, DistinctLDiversity) for m in self.models)

    def restricted(self, models) -> ModelCheck:
        """The same check with only ``models``.

        Parameters
        ----------
        models : sequence of PrivacyModel
            Some of this check's models.

        Returns
        -------
        ModelCheck
        """
        out = copy.copy(self)
        out.models = tuple(models)
        return out

    def class_ok(self, counts: np.ndarray) -> np.ndarray:
        """Which classes of a candidate release are kept: at least k rows and every model.

        A model with ``reference="input"`` judges each class against :attr:`overall`. One with
        ``reference="release"`` judges it against the distribution of the rows kept: starting from the
        classes passing k and the other models, the classes failing against the kept rows are suppressed
        and the kept distribution recomputed until every kept class passes (each round only suppresses, so
        this ends within one round per class).

        Parameters
        ----------
        counts : ndarray of shape (n_classes, n_values)
            Sensitive counts of every class of the candidate release, columns in ``values``' order.

        Returns
        -------
        ndarray of bool
        """
        release = [getattr(m, "reference", "input") == "release" for m in self.models]
        later = [m for m, r in zip(self.models, release) if r]
        ok = self._passes(counts, [m for m, r in zip(self.models, release) if not r], self.overall)
        while later and ok.any():
            kept = counts[ok].sum(axis=0).astype(float)
            now = ok.copy()
            now[ok] = self._passes(counts[ok], later, kept / kept.sum())
            if (now == ok).all():
                break
            ok = now
        return ok

    def _passes(self, counts, models, overall) -> np.ndarray:
        ok = counts.sum(axis=1) >= self.k
        for m in models:
            ok &= m.class_holds(counts, overall)
        return ok

    def part_ok(self, rows: np.ndarray) -> bool:
        """Whether the rows ``rows`` (positions in the frame) form an acceptable class (Mondrian's cuts).

        Mondrian releases every row, so the release's distribution is the input table's and both readings
        of ``reference`` judge the part against :attr:`overall`.

        Parameters
        ----------
        rows : ndarray of int
            Positions of the class's rows.

        Returns
        -------
        bool
        """
        counts = np.bincount(self.codes[rows], minlength=len(self.values))[None, :]
        return bool(self._passes(counts, self.models, self.overall)[0])

    def check_table(self) -> None:
        """Raise when the whole table, the coarsest class, fails a model (no release can satisfy it then)."""
        counts = np.bincount(self.codes, minlength=len(self.values))[None, :]
        for m in self.models:
            if not m.class_holds(counts, self.overall)[0]:
                error = NotLDiverseError if isinstance(m, L_DIVERSITY) else ValueError
                raise error(f"the whole training table fails {m}; no partition can satisfy it")


def check_models(sensitive, privacy_models) -> tuple[PrivacyModel, ...]:
    """The privacy models as a tuple, or a ValueError saying what is wrong.

    Parameters
    ----------
    sensitive : str or None
        The sensitive column (needed when there are models).
    privacy_models : sequence of PrivacyModel
        The models.

    Returns
    -------
    tuple of PrivacyModel
    """
    if isinstance(privacy_models, PrivacyModel) or not isinstance(privacy_models, Sequence):
        raise ValueError(
            "privacy_models must be a sequence of privacy models (e.g. [DistinctLDiversity(3)]), "
            f"got {privacy_models!r}"
        )
    bad = [m for m in privacy_models if not isinstance(m, PrivacyModel)]
    if bad:
        raise ValueError(f"privacy_models holds {bad}, which are not privnb.mechanisms privacy models")
    if privacy_models and sensitive is None:
        raise ValueError("privacy models judge a sensitive column: pass sensitive=<column>")
    if sensitive is not None and not privacy_models:
        raise ValueError(
            f"sensitive={sensitive!r} is judged only by privacy models and none is given: pass privacy_models= "
            "(e.g. [DistinctLDiversity(3)]), or leave sensitive out for k-anonymity alone"
        )
    return tuple(privacy_models)


def _with_values(model: PrivacyModel, values, order) -> PrivacyModel:
    """``model`` given the sensitive values of the count matrix's columns (ordered and hierarchical
    t-closeness) and, for the ordered distance without one, the generalizer's declared order.
    """
    if not isinstance(model, TCloseness) or model.distance == "equal":
        return model
    if model.distance == "ordered" and order is not None:
        if model.order is not None and tuple(model.order) != tuple(order):
            raise ValueError(
                f"the t-closeness model's order {list(model.order)[:5]}... differs from the generalizer's orders "
                "for the sensitive attribute; give one of them"
            )
        model = dataclasses.replace(model, order=order)
    return model if model.values is not None else dataclasses.replace(model, values=values)


class NodeJudge:
    """The classes of a full-domain lattice node, with their sensitive counts and which of them are suppressed.

    The rows' raw quasi-identifier combinations (the lattice's entries) are counted once per sensitive value
    (an entry-by-value matrix); a node's class counts are rolled up from those of a node below already
    counted (:class:`~privnb.mechanisms._rollup.ClassCounts`, as the class sizes are), and judged by ``check``.

    Parameters
    ----------
    lattice : FullDomainLattice
        The training frame's lattice.
    check : ModelCheck
        The models and k.
    counts : ClassCounts, optional
        The rolled-up counts of ``check``'s sensitive column, when another judge already has them.
    """

    def __init__(self, lattice, check: ModelCheck, counts=None):
        self.lattice, self.check = lattice, check
        if counts is None:
            counts = lattice.count_rollup(lattice.entry_counts(check.codes, len(check.values)))
        self.counts = counts
        self.summaries = {}  # node -> (suppressed rows, discernibility)
        self.verdicts = {}  # node -> which of its classes are kept (nodes judged by summarize)

    @property
    def k(self) -> int:
        """The least class size."""
        return self.check.k

    def search(self) -> tuple[np.ndarray, np.ndarray, int, str]:
        """Every node's acceptability (:func:`search_with_models`)."""
        return search_with_models(self.lattice, self)

    def accepts(self, nodes) -> list[bool]:
        """Whether each of ``nodes`` suppresses at most the lattice's budget of rows (:meth:`summarize`).

        Parameters
        ----------
        nodes : sequence of sequences of int
            One level per quasi-identifier each, lowest first.
        """
        self.summarize(nodes)
        return [self.summary(node)[0] <= self.lattice.budget for node in nodes]

    @property
    def n_judged(self) -> int:
        """Nodes whose classes this judge has judged."""
        return len(self.summaries)

    def forget(self) -> bool:
        """False: what a search with models learns is not read from the disk cache."""
        return False

    def verified(self, nodes, suppressed) -> bool:
        """True: the classes' counts are rolled up from the rows of this fit, never read from disk.

        Parameters
        ----------
        nodes : array of shape (n_nodes, n_attributes)
            The minimal nodes offered for release (as :meth:`AnonymityJudge.verified` takes them).
        suppressed : array of int
            The rows each of them suppresses.
        """
        return True

    def judge(self, node) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class of each entry, each class's size, which classes are suppressed) at ``node``.

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.

        Returns
        -------
        (ndarray, ndarray, ndarray of bool)
        """
        group, counts = self.lattice.class_counts(node, self.counts.entry_counts)
        return group, counts.sum(axis=1), ~self.check.class_ok(counts)

    def classes(self, node) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(an entry of each class, each class's size, which classes are suppressed) at ``node``, rolled up.

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.

        Returns
        -------
        (ndarray, ndarray, ndarray of bool)
        """
        entry, counts = self.counts.counts(node)
        return entry, counts.sum(axis=1), ~self.check.class_ok(counts)

    def summary(self, node) -> tuple[int, float]:
        """(suppressed rows, discernibility) at ``node``.

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.

        Returns
        -------
        (int, float)
        """
        key = tuple(int(lv) for lv in node)
        got = self.summaries.get(key)
        if got is None:
            _, size, failing = self.classes(key)
            n_sup = int(size[failing].sum())
            kept = size[~failing]
            got = self.summaries[key] = (n_sup, float(kept @ kept) + self.lattice.n * n_sup)
        return got

    def summarize(self, nodes) -> None:
        """Compute :meth:`summary` at each of ``nodes``, listed lowest first so that each rolls up from a node
        below.

        When every model compares a class with the input table's distribution, a class's verdict depends on
        its own counts alone: the classes of the nodes of one height are judged together, and a class that
        a node's roll-up took whole from a node already judged keeps that node's verdict.

        Parameters
        ----------
        nodes : sequence of sequences of int
            One level per quasi-identifier each.
        """
        if not self.check.separable:
            for node in nodes:
                self.summary(node)
            return
        batch, cells, height = [], 0, None
        for node in nodes:
            key = tuple(int(lv) for lv in node)
            if batch and (sum(key) != height or cells >= _BATCH_CELLS):  # the verdicts below are known
                self._judge_together(batch)
                batch, cells = [], 0
            if key not in self.summaries:
                batch.append((key, *self.counts.rolled(key)[1:]))
                cells += batch[-1][1].size
                height = sum(key)
        if batch:
            self._judge_together(batch)

    def _judge_together(self, batch) -> None:
        """The summaries of ``batch``'s nodes ((node, class-by-value counts, origin) triples, see
        :meth:`ClassCounts.rolled`) from one judgement of the classes no verdict is known for (only their
        counts are gathered).
        """
        counts = [c for _, c, _ in batch]
        size = np.concatenate([c.sum(axis=1) for c in counts])
        ok = size >= self.check.k
        fresh = ok.copy()  # classes to judge
        bounds = np.cumsum([0] + [len(c) for _, c, _ in batch]).tolist()
        for (_, _, origin), start, end in zip(batch, bounds, bounds[1:]):
            known = None if origin is None else self.verdicts.get(origin[0])
            if known is not None:  # a class taken whole keeps its verdict
                fresh[start:end] &= origin[2]
                ok[start:end] = np.where(origin[2], ok[start:end], known[origin[1]])
        judged = [c[fresh[start:end]] for c, start, end in zip(counts, bounds, bounds[1:])]
        ok[fresh] = self.check.class_ok(np.concatenate(judged))
        n_sup = np.add.reduceat(size * ~ok, bounds[:-1]).tolist()
        squares = np.add.reduceat(size * size * ok, bounds[:-1]).tolist()
        for (key, _, _), start, end, n, square in zip(batch, bounds, bounds[1:], n_sup, squares):
            self.verdicts[key] = ok[start:end]
            self.summaries[key] = (int(n), square + self.lattice.n * int(n))

    def loss(self, node, utility: str = "loss") -> float:
        """The loss metric at ``node`` with this check's suppression.

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.
        utility : {"loss", "geometric_loss"}
            The mean over attributes (:func:`~privnb.mechanisms.lattice.aggregate_losses`).

        Returns
        -------
        float
        """
        entry, size, failing = self.classes(node)
        return aggregate_losses(self.lattice.attribute_losses(node, entry, size * ~failing), utility)

    def suppressed_rows(self, node) -> np.ndarray:
        """Boolean mask of the training rows suppressed at ``node``.

        Parameters
        ----------
        node : sequence of int
            One level per quasi-identifier.

        Returns
        -------
        ndarray of bool
        """
        group, _, failing = self.judge(node)
        return failing[group][self.lattice.entry_of_row]


def search_with_models(lattice, judge: NodeJudge) -> tuple[np.ndarray, np.ndarray, int, str]:
    """Every node's acceptability with the models: (nodes, acceptable, nodes checked, search used).

    Parameters
    ----------
    lattice : FullDomainLattice
        The training frame's lattice.
    judge : NodeJudge
        The models, k and the entry-by-value counts.

    Returns
    -------
    (ndarray, ndarray of bool, int, str)
        The search is ``"flash"`` (monotone models: Flash's search with the models' predicate) or
        ``"flash+exhaustive"`` (Flash for k-anonymity and the models' monotone conditions,
        :func:`candidate_nodes`, then every node it leaves evaluated). Both classify every node exactly.
    """
    nodes, bound, n_checks = candidate_nodes(lattice, judge, always=True)
    if judge.check.monotone:  # the conditions are the models themselves: the bound is exact
        return nodes, bound, n_checks, "flash"
    acceptable = bound.copy()  # the bound may be the lattice's own k-anonymity array
    candidates = np.flatnonzero(bound)
    candidates = candidates[np.argsort(nodes[candidates].sum(axis=1), kind="stable")]  # lowest first: roll-ups
    acceptable[candidates] = judge.accepts(nodes[candidates].tolist())
    return nodes, acceptable, n_checks + len(candidates), "flash+exhaustive"


def candidate_nodes(lattice, judge: NodeJudge, *, always: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """(nodes, a superset of the acceptable nodes, nodes checked), by Flash: the nodes within the budget by
    k-anonymity, and by the monotone conditions the models imply (distinct l-diversity itself, each
    t-closeness model's absent mass, :mod:`privnb.mechanisms._absent_mass`).

    A Flash pass over the models' conditions costs a roll-up of the class counts per node it checks; it pays
    where few k-anonymous nodes are acceptable. With ``always`` false it is made only for a t-closeness model
    (ARX's optimal search with l-diversity finds its optimum among the first k-anonymous nodes it bounds).

    Parameters
    ----------
    lattice : FullDomainLattice
        The training frame's lattice.
    judge : NodeJudge
        The models, k and the entry-by-value counts.
    always : bool
        Make the pass whenever a model implies a condition.

    Returns
    -------
    (ndarray, ndarray of bool, int)
        With distinct l-diversity alone the superset is exact: the acceptable nodes.
    """
    check = judge.check
    nodes, anon, n_checks = lattice.classify(check.k)
    closeness = [
        a for m in check.models if isinstance(m, TCloseness) if (a := absent_mass(m, check.overall, check.values))
    ]
    distinct = [m for m in check.models if isinstance(m, DistinctLDiversity)]
    if closeness or (always and distinct):
        exact = check.monotone  # distinct l-diversity alone: the judge's own verdicts
        bound = judge if exact else NodeJudge(lattice, check.restricted([*distinct, *closeness]), judge.counts)
        anon, more = lattice.classify_by(lambda node: bound.accepts([node.tolist()])[0], ~anon)
        n_checks += more
    return nodes, anon, n_checks
