"""Mondrian: LeFevre, DeWitt and Ramakrishnan's strict multidimensional partitioning (median splits), with
a recorded split tree so that any row, test rows included, can be recoded.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import TransformerMixin
from sklearn.exceptions import NotFittedError

from privnb.data.labels import TOP, format_interval
from privnb.mechanisms._model_checks import ModelCheck, check_models
from privnb.mechanisms.base import Mechanism
from privnb.mechanisms.grouping import as_hierarchy, check_frame
from privnb.mechanisms.releases import GeneralizedRelease
from privnb.validation import check_int, infer_kind, validated_rows


# -- Mondrian -------------------------------------------------------------------------------
class _Tree:
    """The recorded Mondrian split tree, grown node by node, then frozen into arrays."""

    LEAF, THRESHOLD, HIER = 0, 1, 2

    def __init__(self, d: int):
        self.d = d
        self.kind, self.attr, self.threshold, self.level = [], [], [], []
        self.left, self.right, self.offset, self.children = [], [], [], []
        self.labels, self.midpoints = {}, {}

    def add(self, parent: int, branch) -> int:
        node = len(self.kind)
        for lst, value in (
            (self.kind, self.LEAF),
            (self.attr, -1),
            (self.threshold, -1),
            (self.level, -1),
            (self.left, -1),
            (self.right, -1),
            (self.offset, -1),
        ):
            lst.append(value)
        if parent >= 0:
            if self.kind[parent] == self.THRESHOLD:
                (self.right if branch else self.left)[parent] = node
            else:
                self.children[self.offset[parent] + branch] = node
        return node

    def split_threshold(self, node: int, attr: int, threshold: int) -> None:
        self.kind[node], self.attr[node], self.threshold[node] = self.THRESHOLD, attr, threshold

    def split_hier(self, node: int, attr: int, level: int, n_children: int) -> None:
        self.kind[node], self.attr[node], self.level[node] = self.HIER, attr, level
        self.offset[node] = len(self.children)
        self.children.extend([-1] * n_children)

    def frozen(self) -> dict:
        n = len(self.kind)
        label = np.full((n, self.d), None, dtype=object)
        midpoint = np.full((n, self.d), np.nan)
        for node, lab in self.labels.items():
            label[node] = lab
            midpoint[node] = self.midpoints[node]
        t = {
            name: np.asarray(getattr(self, name), dtype=np.intp)
            for name in ("kind", "attr", "threshold", "level", "left", "right", "offset", "children")
        }
        t.update(label=label, midpoint=midpoint)
        return t


def _median_split(col: np.ndarray, idx: np.ndarray, allowed):
    """Median cut of one region on integer ranks: (threshold, rows going left) or None when neither
    side of it is ``allowed`` (``allowed(rows)``: k rows and every privacy model).
    """
    n = len(col)
    m = np.partition(col, (n - 1) // 2)[(n - 1) // 2]
    for left in (col <= m, col < m):
        if 0 < int(left.sum()) < n and allowed(idx[left]) and allowed(idx[~left]):
            return int(col[left].max()), left
    return None


def _lowest_cover(levels: list[np.ndarray], idx: np.ndarray, state: tuple[int, int]):
    """Lower a hierarchy node to the lowest one still covering the rows ``idx``."""
    level, group = state
    while level > 0:
        child = levels[level - 1][idx]
        if child.min() != child.max():
            break
        level, group = level - 1, int(child[0])
    return level, group


def _hier_split(levels: list[np.ndarray], idx: np.ndarray, state: tuple[int, int], allowed):
    """Multi-way cut into child nodes: (child level, [(child, mask)]) or None unless every part is
    ``allowed``.
    """
    level, _ = state
    if level == 0:
        return None
    child = levels[level - 1][idx]
    parts = [(int(c), child == c) for c in np.flatnonzero(np.bincount(child))]
    if not all(allowed(idx[mask]) for _, mask in parts):
        return None
    return level - 1, parts


class MondrianGeneralizer(TransformerMixin, Mechanism):
    """Strict multidimensional k-anonymity by Mondrian partitioning (LeFevre et al. 2006).

    Starting from the whole table, a region is cut on the quasi-identifier of largest
    normalized width for which an allowable cut exists (every part >= ``k`` rows and satisfying
    every one of ``privacy_models``, as in LeFevre et al.'s Mondrian with l-diversity), and the
    parts are cut again; regions that cannot be cut are the released groups. Nothing is
    suppressed (needs ``n >= k``, and the whole table must satisfy the models: else
    :class:`NotLDiverseError` for an l-diversity model, ValueError for another).

    - numeric: width = the region's value range / the table's; cut at the median value ``m``:
      rows ``<= m`` go left; if a side then has fewer than ``k`` rows, the cut ``< m`` is tried.
    - nominal or ordinal with a hierarchy: the region holds one hierarchy node (first ``*``);
      width = (listed values under it - 1) / (listed values - 1); when the attribute is tried,
      the node is first lowered to the lowest one covering the region's rows, then the cut
      sends each row to the child node holding its value (a multi-way cut, allowable when
      every non-empty child has >= ``k`` rows). Released regions hold the lowest covering node.
    - nominal or ordinal without a hierarchy: a sorted-category split: categories ordered by
      ``orders[attribute]`` (ordinal), else by an ordered Categorical's categories, else
      lexicographically; then cut like a number on the category ranks; width = rank range /
      (categories - 1).

    Released labels: numbers the closed range of the region's values (``"[20-37]"``, or
    ``"25"``); hierarchical attributes the node's label; sorted categories the set of the
    region's values (``"{Divorced,Widowed}"``; ``"*"`` when every category occurs).

    Parameters
    ----------
    quasi_identifiers : sequence of str
        The columns generalized.
    k : int
        Every released region holds at least k rows.
    kinds : mapping attribute -> "numeric" | "ordinal" | "nominal", optional
        Default: numeric dtypes numeric, the others nominal.
    hierarchies : mapping attribute -> Hierarchy (or ARX table), optional
        Used for nominal and ordinal attributes (numeric ones are always cut at medians).
    orders : mapping ordinal attribute -> its values in domain order, optional
        The category order of an ordinal attribute without a hierarchy (as described above); the
        sensitive attribute's order is the order of an ordered t-closeness model that gives none
        (``Dataset.orders`` holds both).
    sensitive : str, optional
        The sensitive column, which ``privacy_models`` judge (a column of the fitted frame, not a
        quasi-identifier); given only with models.
    privacy_models : sequence of PrivacyModel
        Models every released region must satisfy beside k-anonymity (ARX's ``addPrivacyModel``),
        judged against the training frame's sensitive distribution (Mondrian suppresses nothing, so it
        is also the release's: both ``reference`` readings agree).

    Attributes
    ----------
    generalized_ : DataFrame, the release (every row; quasi-identifiers as labels).
    suppressed_ : empty Index (Mondrian suppresses nothing).
    n_groups_ : int, the released regions.
    tree_ : dict of arrays, the split tree (used to route rows in ``transform``).
    n_suppressed_ : int, 0 after :meth:`fit_resample`.
    n_features_in_, feature_names_in_ : as in scikit-learn.

    A mechanism (``privnb.learn.ProtectedTraining``): :meth:`fit_resample` releases the training rows
    encoded by :meth:`transform`, which recodes test rows in the same partition. A frame may hold other
    columns (unchanged); an array's columns are named by position, so quasi-identifiers are then positions.
    """

    def __init__(
        self, quasi_identifiers, k, *, kinds=None, hierarchies=None, orders=None, sensitive=None, privacy_models=()
    ):
        self.quasi_identifiers = quasi_identifiers
        self.k = k
        self.kinds = kinds
        self.hierarchies = hierarchies
        self.orders = orders
        self.sensitive = sensitive
        self.privacy_models = privacy_models

    def _allowed(self, frame: pd.DataFrame, qi: list, k: int):
        """The test of a cut's part: ``allowed(rows)`` (positions), k rows and every privacy model."""
        models = check_models(self.sensitive, self.privacy_models)
        if not models:
            return lambda rows: len(rows) >= k
        check = ModelCheck(frame, qi, self.sensitive, models, k, order=dict(self.orders or {}).get(self.sensitive))
        check.check_table()
        return check.part_ok

    def _attributes(self, frame: pd.DataFrame, qi: list[str]) -> list[dict]:
        kinds, hierarchies, orders = (dict(m or {}) for m in (self.kinds, self.hierarchies, self.orders))
        attrs = []
        for a in qi:
            col = frame[a]
            kind = kinds.get(a) or infer_kind(col)
            if kind not in ("numeric", "ordinal", "nominal"):
                raise ValueError(f"kind of {a!r} must be numeric, ordinal or nominal, got {kind!r}")
            if col.isna().any():
                raise ValueError(f"column {a!r} has missing values; drop or impute them first")
            if kind == "numeric":
                if not pd.api.types.is_numeric_dtype(col):
                    raise ValueError(f"column {a!r} is declared numeric but has dtype {col.dtype}")
                attrs.append({"name": a, "type": "numeric", "values": np.unique(col.to_numpy(float))})
            elif a in hierarchies:
                h = as_hierarchy(a, hierarchies[a])
                h.check(col.to_numpy())
                leaves = h.values
                attrs.append(
                    {
                        "name": a,
                        "type": "hier",
                        "h": h,
                        "under": [
                            np.bincount(h.codes(leaves, lv), minlength=h.n_groups(lv)) for lv in range(h.n_levels)
                        ],
                    }
                )
            else:
                if kind == "ordinal" and a in orders:
                    cats, lex = np.asarray(list(orders[a]), dtype=object), False
                elif isinstance(col.dtype, pd.CategoricalDtype) and col.cat.ordered:
                    cats, lex = np.asarray(col.cat.categories, dtype=object), False
                else:
                    cats, lex = np.unique(col.astype(str).to_numpy(object)), True
                attrs.append({"name": a, "type": "sorted", "cats": cats, "lex": lex})
        return attrs

    @staticmethod
    def _ranks(attr: dict, col: pd.Series) -> np.ndarray:
        """Each value's position in the attribute's order (numbers: among the training values;
        a value between two known ones gets the upper one's rank).
        """
        if attr["type"] == "numeric":
            return np.searchsorted(attr["values"], col.to_numpy(float), side="left")
        if attr["type"] == "hier":
            return attr["h"].codes(col.to_numpy(), 0)
        if attr["lex"]:
            return np.searchsorted(attr["cats"], col.astype(str).to_numpy(object), side="left")
        pos = pd.Index(attr["cats"]).get_indexer(col.to_numpy(object))
        if (pos < 0).any():
            bad = sorted(set(col.to_numpy(object)[pos < 0].tolist()))[:5]
            raise ValueError(f"values {bad} of {attr['name']!r} are not in its order; add them to orders")
        return pos

    @staticmethod
    def _labels(attrs, sub, lo, hi, hstate):
        labels, mids = [], []
        for j, at in enumerate(attrs):
            mid = np.nan
            if at["type"] == "numeric":
                a, b = at["values"][lo[j]], at["values"][hi[j]]
                label, mid = format_interval(a, b, closed=True), (a + b) / 2.0
            elif at["type"] == "hier":
                level, group = hstate[j]
                label = at["h"].group_labels(level)[group]
            else:
                present = np.unique(sub[:, j])
                cats = at["cats"][present]
                label = (
                    TOP
                    if len(present) == len(at["cats"])
                    else str(cats[0])
                    if len(present) == 1
                    else "{" + ",".join(map(str, cats)) + "}"
                )
            labels.append(label)
            mids.append(mid)
        return labels, mids

    def fit(self, frame: pd.DataFrame, y=None) -> MondrianGeneralizer:
        """Partition ``frame`` and record the split tree.

        Parameters
        ----------
        frame : DataFrame
            The training rows (with the sensitive column when there are privacy models).
        y : None
            Ignored.

        Returns
        -------
        MondrianGeneralizer
        """
        frame, qi = check_frame(validated_rows(self, frame, reset=True), self.quasi_identifiers)
        k = check_int(self.k, "k")
        n, d = len(frame), len(qi)
        if n < k:
            raise ValueError(f"{n} rows ({n} sample(s)) cannot be made {k}-anonymous; need at least k rows")
        attrs = self._attributes(frame, qi)
        allowed = self._allowed(frame, qi, k)
        ranks = np.column_stack([self._ranks(at, frame[at["name"]]) for at in attrs])
        hier = {
            j: [at["h"].codes(frame[at["name"]].to_numpy(), lv) for lv in range(at["h"].n_levels)]
            for j, at in enumerate(attrs)
            if at["type"] == "hier"
        }
        scale = np.array(
            [
                at["values"][-1] - at["values"][0]
                if at["type"] == "numeric"
                else len(at["cats"]) - 1
                if at["type"] == "sorted"
                else len(at["h"].values) - 1
                for at in attrs
            ],
            dtype=float,
        )
        scale[scale <= 0] = 1.0

        tree = _Tree(d)
        leaf_of_row = np.empty(n, dtype=np.intp)
        stack = [(np.arange(n), {j: (attrs[j]["h"].n_levels - 1, 0) for j in hier}, -1, None)]
        while stack:
            idx, hstate, parent, branch = stack.pop()
            sub = ranks[idx]
            lo, hi = sub.min(axis=0), sub.max(axis=0)
            width = (
                np.array(
                    [
                        at["values"][hi[j]] - at["values"][lo[j]]
                        if at["type"] == "numeric"
                        else hi[j] - lo[j]
                        if at["type"] == "sorted"
                        else at["under"][hstate[j][0]][hstate[j][1]] - 1
                        for j, at in enumerate(attrs)
                    ],
                    dtype=float,
                )
                / scale
            )
            node = tree.add(parent, branch)
            cut = None
            for j in np.argsort(-width, kind="stable"):
                if width[j] <= 0:
                    break
                if j in hier:
                    hstate = {**hstate, j: _lowest_cover(hier[j], idx, hstate[j])}
                    cut = _hier_split(hier[j], idx, hstate[j], allowed)
                else:
                    cut = _median_split(sub[:, j], idx, allowed)
                if cut is not None:
                    break
            if cut is None or j in hier:  # a leaf, or a node where rows of empty branches stop
                hstate = {j2: _lowest_cover(hier[j2], idx, s) for j2, s in hstate.items()}
                tree.labels[node], tree.midpoints[node] = self._labels(attrs, sub, lo, hi, hstate)
            if cut is None:
                leaf_of_row[idx] = node
            elif j in hier:
                level, parts = cut
                tree.split_hier(node, j, level, attrs[j]["h"].n_groups(level))
                for child, mask in parts:
                    stack.append((idx[mask], {**hstate, j: (level, child)}, node, child))
            else:
                threshold, left = cut
                tree.split_threshold(node, j, threshold)
                stack.append((idx[~left], hstate, node, 1))
                stack.append((idx[left], hstate, node, 0))

        self.attributes_ = attrs
        self.quasi_identifiers_ = qi
        self.tree_ = tree.frozen()
        self.n_groups_ = int((self.tree_["kind"] == _Tree.LEAF).sum())
        self._publish(frame, leaf_of_row, k)
        return self

    def _publish(self, frame: pd.DataFrame, leaf_of_row: np.ndarray, k: int) -> None:
        """Set the released rows (``generalized_``, nothing suppressed) and their record (``release_``)."""
        self.suppressed_ = frame.index[:0]
        self.generalized_ = self._recode(frame, encode=False, nodes=leaf_of_row)
        models = tuple(map(repr, self.privacy_models))
        classes = np.unique(leaf_of_row, return_inverse=True)[1]
        sensitive = self.sensitive if models else None
        self.release_ = GeneralizedRelease(
            self.generalized_,
            tuple(self.quasi_identifiers_),
            classes,
            self.suppressed_,
            k,
            "mondrian",
            sensitive,
            models,
        )

    def _route(self, frame: pd.DataFrame) -> np.ndarray:
        """Node of each row: its leaf, or the node whose hierarchy branch for it is empty."""
        t, attrs = self.tree_, self.attributes_
        ranks = np.column_stack([self._ranks(at, frame[at["name"]]) for at in attrs])
        node = np.zeros(len(frame), dtype=np.intp)
        done = np.zeros(len(frame), dtype=bool)
        codes = {}
        while True:
            active = np.flatnonzero(~done & (t["kind"][node] != _Tree.LEAF))
            if len(active) == 0:
                return node
            cur = node[active]
            attr, kind = t["attr"][cur], t["kind"][cur]
            nxt = np.full(len(active), -1, dtype=np.intp)
            thr = kind == _Tree.THRESHOLD
            right = ranks[active[thr], attr[thr]] > t["threshold"][cur[thr]]
            nxt[thr] = np.where(right, t["right"][cur[thr]], t["left"][cur[thr]])
            is_hier = kind == _Tree.HIER
            level = t["level"][cur]
            for j, lv in set(zip(attr[is_hier].tolist(), level[is_hier].tolist())):
                sel = is_hier & (attr == j) & (level == lv)
                if (j, lv) not in codes:
                    codes[j, lv] = attrs[j]["h"].codes(frame[attrs[j]["name"]].to_numpy(), lv)
                nxt[sel] = t["children"][t["offset"][cur[sel]] + codes[j, lv][active[sel]]]
            stop = nxt < 0
            done[active[stop]] = True
            node[active[~stop]] = nxt[~stop]

    def _recode(self, frame: pd.DataFrame, *, encode: bool, nodes=None) -> pd.DataFrame:
        if not hasattr(self, "tree_"):
            raise NotFittedError("this MondrianGeneralizer is not fitted yet; call fit(frame) first")
        frame = check_frame(validated_rows(self, frame, reset=False), self.quasi_identifiers_)[0]
        nodes = self._route(frame) if nodes is None else nodes
        out = frame.copy()
        for j, at in enumerate(self.attributes_):
            column = self.tree_["midpoint" if encode and at["type"] == "numeric" else "label"]
            out[at["name"]] = column[nodes, j]
        return out

    def _validate_rows(self, X) -> pd.DataFrame:
        return validated_rows(self, X, reset=True).reset_index(drop=True)

    def _fit_resample(self, X, y):
        """Fit on the training rows (relabelled 0..n-1) and release them for learning, encoded by
        :meth:`transform` (Mondrian suppresses nothing); with their labels.
        """
        self.fit(X)
        return self.transform(X), y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # a frame of labels and midpoints
        tags.input_tags.sparse = False
        return tags

    def generalize(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The release labels of any rows, each routed through the split tree to its region."""
        return self._recode(frame, encode=False)

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Encode any rows (training or test) like the training rows of their region, for learning.

        Each row is routed through the recorded split tree to its region, so a test row is
        recoded exactly as the training rows of that region: a numeric quasi-identifier becomes
        the float midpoint of the region's closed range, a nominal or ordinal one the region's
        label (class docstring). A row whose hierarchy branch holds no training rows stops at
        the region being cut and takes that region's labels. Other columns are unchanged.
        """
        return self._recode(frame, encode=True)
