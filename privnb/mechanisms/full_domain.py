"""Full-domain generalization (one level per attribute for the whole table) as an estimator (Adult's
hierarchies are declared by its data card: ``privnb.data.adult_hierarchies``, ``load("adult").hierarchies``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.base import TransformerMixin
from sklearn.exceptions import NotFittedError

from privnb.mechanisms._model_checks import ModelCheck, NodeJudge, candidate_nodes, check_models
from privnb.mechanisms.base import Mechanism
from privnb.mechanisms.grouping import as_hierarchy, check_frame, combine_codes
from privnb.mechanisms.lattice import LOSSES, AnonymityJudge, FullDomainLattice, minimal_nodes
from privnb.mechanisms.optimal_node import UTILITIES, optimal_node
from privnb.mechanisms.releases import GeneralizedRelease
from privnb.validation import check_int, validated_rows


class FullDomainGeneralizer(TransformerMixin, Mechanism):
    """Full-domain k-anonymity: all minimal k-anonymous lattice nodes, one chosen by utility (or ARX's optimum).

    A lattice node gives each quasi-identifier one level of its hierarchy (Samarati 2001); a
    node is *k-anonymous within the budget* when the rows lying in groups of fewer than ``k``
    rows are at most ``floor(max_suppression * n)``; those rows are then suppressed. This
    property is monotone (a group only grows when any attribute is generalized further), so
    the search tags whole up-sets (anonymous) and down-sets (not anonymous) after each check,
    checking nodes by binary search along upward paths (as in Flash, Kohlmayer et al. 2012).
    Every node ends up classified, so the minimal nodes (k-anonymous, no immediate
    predecessor k-anonymous) are exact, not heuristic. Group sizes are computed with integer
    codes over the distinct quasi-identifier combinations, rolled up from the smallest
    already-computed table of a more specific node (:class:`~privnb.mechanisms._rollup.GroupSizes`), and
    kept per node in a :class:`FullDomainLattice`, which fits of the same rows for other k re-use.

    Utility, to choose among the candidate nodes (smaller is better; ties: lower height, then
    lexicographic levels):

    - ``"discernibility"`` (Bayardo and Agrawal 2005): sum of the squared sizes of the kept
      groups, plus ``n`` for each suppressed row.
    - ``"loss"`` (Iyengar 2002's loss metric): the mean over rows and quasi-identifiers of the
      share of the domain the released label covers (:meth:`Hierarchy.leaf_share`); a
      suppressed row counts 1 for each attribute. The mean over attributes of each attribute's loss (ARX's
      ``createLossMetric(0.5, ARITHMETIC_MEAN)``).
    - ``"geometric_loss"``: ARX's default loss metric (``Metric.createLossMetric()``): the same
      per-attribute losses, aggregated by ARX's geometric mean, ``prod (1 + l_i)^(1/d) - 1``
      (:func:`~privnb.mechanisms.lattice.aggregate_losses`).

    Parameters
    ----------
    quasi_identifiers : sequence of str
        The columns generalized.
    k : int
        Every released group holds at least k rows.
    hierarchies : mapping of attribute -> Hierarchy (or an ARX table as a DataFrame)
        One for each quasi-identifier.
    max_suppression : float in [0, 1)
        Largest share of rows that may be suppressed.
    utility : {"discernibility", "loss", "geometric_loss"}
        How to choose among the candidate nodes.
    candidates : {"minimal", "all"}
        Which nodes ``utility`` chooses among. ``"minimal"`` (the default, which the papers' views use):
        the minimal nodes, Samarati's k-minimal generalizations. MC16 and MC17 do not name their
        anonymization algorithm: they define the anonymized training data by k-anonymity (Definition 5 of
        MC16, after Sweeney 2002), cite Samarati 2001's minimal generalization beside it and take Inan et
        al.'s hierarchies, so their baseline is a minimal full-domain generalization, not a global optimum
        over the lattice.
        ``"all"``: every node within the budget, the optimum ARX's optimal search returns (with
        suppression a node above a minimal one may suppress fewer rows and score far better); found by
        branch and bound (:func:`~privnb.mechanisms.optimal_node.optimal_node`), exact, with ARX's tie
        rule (lower height first), then the smallest levels.
    sensitive : str, optional
        The sensitive column, which ``privacy_models`` judge (a column of the fitted frame, not a
        quasi-identifier); given only with models.
    privacy_models : sequence of PrivacyModel
        Models every released class must satisfy beside k-anonymity (ARX's ``addPrivacyModel``): any of
        :mod:`privnb.mechanisms.privacy_models`' l-diversity, t-closeness and beta-likeness models, judged
        against the training frame's sensitive distribution (each t-closeness and beta-likeness model's
        ``reference``: the input's, ARX's reading, or the kept rows'; see
        :meth:`~privnb.mechanisms._model_checks.ModelCheck.class_ok`). At a node, classes with fewer than k rows or
        failing a model are suppressed, and the node is acceptable when they are within the budget.
        Distinct l-diversity keeps this monotone and Flash's search exact; with the other models the search
        classifies k-anonymity (and distinct l-diversity) by Flash, then evaluates the models exactly on
        every node left (:mod:`privnb.mechanisms._model_checks`); both are exact. The minimal nodes are then
        the acceptable nodes with no acceptable immediate predecessor. With ``candidates="all"`` the models
        are judged only where the optimal search's bound leaves a k-anonymous node in play (as ARX's
        optimal search does), and the minimal nodes are found on first use of ``minimal_nodes_``. An
        l-diversity model with l above the training rows' distinct sensitive values raises
        :class:`NotLDiverseError`.
    orders : mapping attribute -> its values in order, optional
        The sensitive attribute's order (``Dataset.orders``), for an ordered t-closeness model that
        gives none.

    Attributes
    ----------
    node_ : dict attribute -> level of the chosen node.
    score_ : float, the chosen node's utility.
    n_evaluated_ : int, candidate nodes the choice evaluated (every minimal node, or the nodes the
        optimal search bounded); n_skipped_ : int, candidate nodes the optimal search skipped by its
        bound (0 for ``candidates="minimal"``; with models the candidates are the k-anonymous nodes).
    minimal_nodes_ : DataFrame, one row per minimal node: the levels, ``height``,
        ``suppressed`` (rows) and the utility; sorted best first.
    suppressed_ : Index of the suppressed rows' labels.
    generalized_ : DataFrame, the k-anonymous release: suppressed rows dropped, quasi-identifiers
        replaced by their labels at ``node_``, other columns unchanged; built on first use, as ``release_``
        (its :class:`~privnb.mechanisms.releases.GeneralizedRelease`), from the fitted rows.
    n_checks_ : int, nodes the search for this k checked; lattice_size_ : int.
    search_ : str, ``"flash"``, ``"flash+exhaustive"`` (with models that are not monotone) or
        ``"flash+bound"`` (with models and ``candidates="all"``: k-anonymity by Flash, the models by the
        optimal search's bound).
    hierarchies_ : dict attribute -> Hierarchy.
    n_suppressed_ : int, rows :meth:`fit_resample` dropped.
    n_features_in_, feature_names_in_ : as in scikit-learn.

    A mechanism (``privnb.learn.ProtectedTraining``): :meth:`fit_resample` releases the training rows
    (suppressed ones dropped, the others encoded by :meth:`transform`), :meth:`transform` recodes test
    rows in the same generalization. A frame may hold other columns (unchanged); an array's columns are
    named by position, so quasi-identifiers are then positions.
    """

    def __init__(
        self,
        quasi_identifiers,
        k,
        hierarchies,
        *,
        max_suppression=0.02,
        utility="discernibility",
        sensitive=None,
        privacy_models=(),
        candidates="minimal",
        orders=None,
    ):
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.hierarchies = hierarchies
        self.max_suppression = max_suppression
        self.utility = utility
        self.sensitive = sensitive
        self.privacy_models = privacy_models
        self.candidates = candidates
        self.orders = orders

    def _validate(self, frame):
        frame, qi = check_frame(frame, self.quasi_identifiers)
        k = check_int(self.k, "k")
        if not 0 <= self.max_suppression < 1:
            raise ValueError(f"max_suppression must be a share in [0, 1), got {self.max_suppression!r}")
        if self.utility not in UTILITIES:
            raise ValueError(f"utility must be one of {UTILITIES}, got {self.utility!r}")
        if self.candidates not in ("minimal", "all"):
            raise ValueError(f"candidates must be 'minimal' or 'all', got {self.candidates!r}")
        if not isinstance(self.hierarchies, Mapping):
            raise ValueError("hierarchies must be a mapping attribute -> Hierarchy")
        missing = [a for a in qi if a not in self.hierarchies]
        if missing:
            raise ValueError(
                f"no hierarchy for quasi-identifiers {missing}: give one for each "
                "(Hierarchy.from_arx for tables, Hierarchy.intervals for numbers)"
            )
        hierarchies = {a: as_hierarchy(a, self.hierarchies[a]) for a in qi}
        if len(frame) == 0:
            raise ValueError("cannot anonymize an empty frame")
        return frame, qi, k, hierarchies

    def fit(self, frame: pd.DataFrame, y=None) -> FullDomainGeneralizer:
        """Search the lattice of ``frame``'s quasi-identifiers and pick the release.

        Parameters
        ----------
        frame : DataFrame
            The training rows (with the sensitive column when there are privacy models).
        y : None
            Ignored.

        Returns
        -------
        FullDomainGeneralizer
        """
        frame, qi, k, hier = self._validate(validated_rows(self, frame, reset=True))
        models = check_models(self.sensitive, self.privacy_models)
        order = dict(self.orders or {}).get(self.sensitive)
        check = ModelCheck(frame, qi, self.sensitive, models, k, order=order) if models else None
        if len(frame) < k:
            raise ValueError(
                f"no generalization makes {len(frame)} sample(s) {k}-anonymous: k-anonymity needs at least k rows"
            )
        lattice = FullDomainLattice.of(frame, qi, hier, self.max_suppression)
        judge = AnonymityJudge(lattice, k) if check is None else NodeJudge(lattice, check)
        self.hierarchies_ = hier
        self.quasi_identifiers_ = qi
        if self.candidates == "all" and check is not None:
            offered = self._optimum_with_models(lattice, judge, models)
        else:
            offered = self._search(lattice, judge, models)
            if offered is None:
                return self.fit(frame)  # the search read a wrong disk-cache entry, now forgotten: search the rows
        node = [self.node_[a] for a in qi]
        small = judge.suppressed_rows(node)
        if not judge.verified([*offered[qi].to_numpy().tolist(), node], [*offered["suppressed"], small.sum()]):
            return self.fit(frame)  # the search trusted a wrong disk-cache entry, now forgotten: search the rows
        self.suppressed_ = frame.index[small]
        models = (self.sensitive if self.privacy_models else None, tuple(map(repr, self.privacy_models)))
        self._release = None  # built on first use of ``generalized_`` or ``release_``, from:
        self._release_inputs = (frame.copy(deep=False), lattice.raw, lattice.uniques, small, k, models)
        return self

    def _search(self, lattice, judge, models) -> pd.DataFrame | None:
        """Classify every node (``judge.search``), score the minimal nodes and choose among the candidates; the
        minimal nodes' table, or None when a disk-cache entry proved wrong (now forgotten).
        """
        nodes, ok, n_checks, search = judge.search()
        if not ok.any():
            if judge.forget():  # without models the top node always qualifies: a wrong disk cache entry
                return None
            raise _nothing_acceptable(lattice, judge.k, models)
        table = _minimal_table(lattice, judge, nodes, ok, self.quasi_identifiers_, self.utility)
        self.lattice_size_, self.n_checks_, self.search_, self._minimal_nodes = len(nodes), n_checks, search, table
        self.__dict__.pop("_minimal_inputs", None)  # a former fit's
        if self.candidates == "all":
            self._choose(optimal_node(lattice, judge.k, nodes, ok, utility=self.utility, judge=judge))
        else:
            self.node_ = {a: int(table.loc[0, a]) for a in self.quasi_identifiers_}
            self.score_, self.n_evaluated_, self.n_skipped_ = float(table.loc[0, self.utility]), len(table), 0
        return table

    def _optimum_with_models(self, lattice, judge, models) -> pd.DataFrame:
        """ARX's optimal search with privacy models: k-anonymity (and a t-closeness model's absent mass) classified by
        Flash (:func:`~privnb.mechanisms._model_checks.candidate_nodes`), then the branch and bound over the nodes
        left, the models judged only at the nodes its bound leaves in play
        (:func:`~privnb.mechanisms.optimal_node.optimal_node` with ``accepts``). The minimal nodes are found on
        first use of :attr:`minimal_nodes_`. Returns no nodes to verify (the models' counts come from the rows).
        """
        nodes, anon, n_checks = candidate_nodes(lattice, judge, always=False)
        best = None
        if anon.any():
            best = optimal_node(lattice, judge.k, nodes, anon, utility=self.utility, judge=judge, accepts=judge.accepts)
        if best is None:
            raise _nothing_acceptable(lattice, judge.k, models)
        self.lattice_size_, self.n_checks_, self.search_ = len(nodes), n_checks + judge.n_judged, "flash+bound"
        self._minimal_nodes, self._minimal_inputs = None, (lattice, judge.check)
        self._choose(best)
        return pd.DataFrame(columns=[*self.quasi_identifiers_, "suppressed"])

    def _choose(self, best) -> None:
        self.node_ = dict(zip(self.quasi_identifiers_, best.node))
        self.score_, self.n_evaluated_, self.n_skipped_ = best.score, best.n_evaluated, best.n_skipped

    @property
    def minimal_nodes_(self) -> pd.DataFrame:
        """One row per minimal node (see the class docstring); after ARX's optimal search with privacy models,
        found on first use (every node classified, as ``candidates="minimal"`` classifies them).
        """
        if getattr(self, "_minimal_nodes", None) is None:
            if not hasattr(self, "_minimal_inputs"):
                raise AttributeError("this FullDomainGeneralizer is not fitted yet; call fit(frame) first")
            lattice, check = self._minimal_inputs
            judge = NodeJudge(lattice, check)
            nodes, ok, _, _ = judge.search()
            self._minimal_nodes = _minimal_table(lattice, judge, nodes, ok, self.quasi_identifiers_, self.utility)
            del self._minimal_inputs
        return self._minimal_nodes

    def _released(self) -> GeneralizedRelease:
        """The release record, built from the fitted rows when first asked for (a fit does not need it)."""
        if getattr(self, "_release", None) is None:
            if not hasattr(self, "_release_inputs"):
                raise AttributeError("this FullDomainGeneralizer is not fitted yet; call fit(frame) first")
            frame, raw, uniques, small, k, (sensitive, models) = self._release_inputs
            table, classes = _released(frame, raw, uniques, self.hierarchies_, self.node_, small)
            qi = tuple(self.quasi_identifiers_)
            self._release = GeneralizedRelease(
                table, qi, classes, self.suppressed_, k, "full-domain", sensitive, models, self.hierarchies_
            )
            del self._release_inputs
        return self._release

    @property
    def release_(self) -> GeneralizedRelease:
        """The release record (:class:`~privnb.mechanisms.releases.GeneralizedRelease`), built on first use."""
        return self._released()

    @property
    def generalized_(self) -> pd.DataFrame:
        """The k-anonymous release (``release_.table``), built on first use."""
        return self._released().table

    def _validate_rows(self, X) -> pd.DataFrame:
        return validated_rows(self, X, reset=True).reset_index(drop=True)

    def _fit_resample(self, X, y):
        """Fit on the training rows (relabelled 0..n-1) and release them for learning: the suppressed
        rows dropped, the others encoded by :meth:`transform`; with their labels.
        """
        self.fit(X)
        kept = ~X.index.isin(self.suppressed_)
        return self.transform(X[kept]), y[kept]

    def _check_fitted(self, frame):
        if not hasattr(self, "node_"):
            raise NotFittedError("this FullDomainGeneralizer is not fitted yet; call fit(frame) first")
        return check_frame(validated_rows(self, frame, reset=False), self.quasi_identifiers_)[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # a frame of labels and midpoints
        tags.input_tags.sparse = False
        return tags

    def generalize(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The release labels of any rows at the fitted node (no suppression applied).

        Quasi-identifiers become their hierarchy label at ``node_`` (text, e.g. ``"35-39"``,
        ``"[20-30)"`` or ``"*"``); other columns are returned unchanged.
        """
        out = self._check_fitted(frame).copy(deep=False)
        for a, level in self.node_.items():
            out[a] = _by_value(out[a], lambda values, a=a, level=level: self.hierarchies_[a].generalize(values, level))
        return out

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Encode any rows (training or test) in the fitted generalization, for learning.

        A numeric quasi-identifier (numeric hierarchy) becomes the float midpoint of its
        generalized interval (level 0: the value; ``*``: the domain's midpoint; an ARX label
        such as ``35-39`` covers 35..39, midpoint 37); a nominal or ordinal one becomes its
        label at the fitted level. Other columns are unchanged. Values a hierarchy does not
        list raise ValueError. Suppressed rows are not dropped here (see ``suppressed_``).
        """
        out = self._check_fitted(frame).copy(deep=False)
        for a, level in self.node_.items():
            h = self.hierarchies_[a]
            encode = h.midpoints if h.numeric else h.generalize
            out[a] = _by_value(out[a], lambda values, encode=encode, level=level: encode(values, level))
        return out


def _nothing_acceptable(lattice, k: int, models) -> ValueError:
    with_models = f" satisfying {', '.join(map(str, models))}" if models else ""
    return ValueError(
        f"no generalization makes these {lattice.n} rows {k}-anonymous{with_models} within the "
        f"suppression budget of {lattice.budget} rows; raise max_suppression or lower k"
    )


def _minimal_table(lattice, judge, nodes, ok, qi, utility: str) -> pd.DataFrame:
    """The minimal acceptable nodes (levels, height, suppressed rows, utility), best first."""
    rows = []
    for m in nodes[minimal_nodes(nodes, lattice.heights, ok)].tolist():
        n_sup, score = judge.summary(m)
        if utility in LOSSES:
            score = judge.loss(m, utility)
        rows.append([*m, sum(m), n_sup, score])
    table = pd.DataFrame(rows, columns=[*qi, "height", "suppressed", utility])
    return table.sort_values([utility, "height", *qi], kind="stable").reset_index(drop=True)


def _released(frame: pd.DataFrame, raw, uniques, hierarchies, node: dict, small: np.ndarray):
    """(the release: ``frame``'s rows but the ``small`` ones, each quasi-identifier replaced by its label at
    ``node``; the class of each released row, numbered as :func:`~privnb.mechanisms.releases.row_classes` numbers
    them).

    Built from the lattice's codes of the rows (``raw``; the values ``uniques``): each attribute's distinct
    values are labelled once and the labels spread by a take; the classes are the rows' combined label codes,
    numbered in order of first appearance. The other columns are taken once (not at all when nothing is
    suppressed), the replaced ones never copied.
    """
    kept = np.flatnonzero(~small) if small.any() else None
    release = frame.drop(columns=list(node))
    release = release if kept is None else release.take(kept)
    codes, spans = [], []
    for i, (a, level) in enumerate(node.items()):
        label_codes, labels = pd.factorize(hierarchies[a].generalize(uniques[i], level))
        codes.append(label_codes[raw[i] if kept is None else raw[i][kept]])
        spans.append(len(labels))
        release[a] = _spread(np.asarray(labels), codes[-1], release.index)
    return release[frame.columns], pd.factorize(combine_codes(codes, spans))[0].astype(np.intp, copy=False)


def _spread(labels: np.ndarray, codes: np.ndarray, index: pd.Index) -> pd.Series:
    """``labels[codes]`` as a column on ``index``, the labels' dtype inferred once (pandas' string dtype for
    text): a take, not one conversion per row.
    """
    return pd.Series(pd.Series(labels).array.take(codes), index=index)


def _by_value(column: pd.Series, encode) -> pd.Series:
    """``encode`` applied to the distinct values of ``column`` (missing ones included, so that an encoder
    refuses them) and spread back to its rows.
    """
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    return _spread(encode(np.asarray(uniques)), codes, column.index)
