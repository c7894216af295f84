"""The column checks of a data card describing a table: each column's kind (given or inferred), the missing
values (dropped or made a category), the binary target and the values that differ only by case or white space;
every problem is appended to ``problems``. A card's values meet the cells as :mod:`privnb.data._card.values`
says (numbers as numbers, ``2500`` matching ``2500.0``).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from privnb.data._card.values import find_value, label_text, matching, near_duplicates
from privnb.validation import KINDS, infer_kind


def column_kinds(card, raw, frame, features, problems):
    """Each feature's kind (given by ``columns:`` or inferred), the ordinal orders, and how each kind was decided.

    Parameters
    ----------
    card : Path
        The card, named in each problem.
    raw : dict
        The card's YAML.
    frame : pandas.DataFrame
        The table as read.
    features : list of str
        The quasi-identifiers and the sensitive attribute.
    problems : list of str
        Where each problem is appended.

    Returns
    -------
    (dict, dict, dict)
        Kinds, orders and how each kind was decided, by column.
    """
    kinds, orders, how = {}, {}, {}
    specs = raw.get("columns") or {}
    for column in features:
        spec = specs.get(column)
        if spec is None:
            kinds[column] = infer_kind(frame[column])
            how[column] = f"inferred ({'numbers' if kinds[column] == 'numeric' else 'not all numbers'})"
            continue
        kind, order = (spec.get("kind"), spec.get("order")) if isinstance(spec, dict) else (spec, None)
        if kind not in KINDS:
            problems.append(
                f"{card}: column {column!r}: kind {kind!r} is not one of {list(KINDS)}; write "
                "numeric, nominal or {kind: ordinal, order: [...]}"
            )
            continue
        how[column] = "given"
        kinds[column] = kind
        if kind == "numeric" and not pd.api.types.is_numeric_dtype(frame[column]):
            bad = frame[column].dropna()
            bad = bad[pd.to_numeric(bad, errors="coerce").isna()].unique()[:3].tolist()
            problems.append(
                f"{card}: column {column!r} is given kind numeric but holds non-numbers such as {bad}; "
                "give it kind nominal, or add the marker to missing.markers"
            )
        if kind == "ordinal":
            if not isinstance(order, list) or len(order) < 2 or len(set(map(str, order))) != len(order):
                problems.append(
                    f"{card}: column {column!r}: an ordinal column needs its order, a list of at "
                    "least 2 distinct values: {kind: ordinal, order: [low, ..., high]}"
                )
                continue
            orders[column] = order
    return kinds, orders, how


def handle_missing(card, frame, features, target, kinds, orders, missing, action, problems, notes):
    """The table with its missing cells dropped or made a category, and its ordinal cells spelt as their order.

    Parameters
    ----------
    card : Path
        The card, named in each problem.
    frame : pandas.DataFrame
        The role columns as read, markers already missing.
    features : list of str
        The quasi-identifiers and the sensitive attribute.
    target : str
        The target column (rows without a target are dropped).
    kinds, orders : dict
        From :func:`column_kinds`; an ordinal order gains the missing category.
    missing : dict
        The card's ``missing:`` section.
    action : str
        "drop" or "category".
    problems, notes : list of str
        Where each problem and each note for the report are appended.
    """
    counts = frame.isna().sum()
    no_target = int(counts[target])
    if no_target:
        frame = frame[frame[target].notna()]
        notes.append(f"{no_target} rows without a target value dropped")
    holes = {c: int(n) for c, n in frame[features].isna().sum().items() if n}
    if action == "drop" and holes:
        before = len(frame)
        frame = frame.dropna(subset=features)
        notes.append(
            f"{before - len(frame)} rows with a missing value dropped (missing.action: drop; missing cells: {holes})"
        )
    elif action == "category" and holes:
        label = str(missing.get("category", "missing"))
        for column in holes:
            if kinds.get(column) == "numeric":
                problems.append(
                    f"{card}: column {column!r} is numeric and has {holes[column]} missing cells; "
                    "missing.action: category cannot apply to numbers: use action: drop, or give it "
                    "kind nominal"
                )
                continue
            values = frame[column].astype(object)
            values = values.map(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)
            frame = frame.assign(**{column: values.where(values.notna(), label)})
            if column in orders and label not in map(str, orders[column]):
                orders[column] = [*orders[column], label]
        notes.append(
            f"missing cells made the category {label!r} (missing.action: category): {holes}"
            + ("; it ends the order of ordinal columns" if set(holes) & set(orders) else "")
        )
    for column, order in orders.items():
        values = frame[column].dropna().unique()
        spelt = {v: find_value(v, order) for v in values}
        outside = sorted({str(v) for v, known in spelt.items() if known is None})
        if outside:
            problems.append(
                f"{card}: column {column!r} has values {outside[:5]} outside its order {order}; add "
                f"them to columns.{column}.order, or list them in missing.markers"
            )
        elif any(v is not known for v, known in spelt.items()):
            frame = frame.assign(**{column: frame[column].map(lambda v, known=spelt: known.get(v, v))})
    return frame.reset_index(drop=True)


def positive_labels(card, column, values, positive, setting: str, problems: list) -> np.ndarray:
    """Which rows carry the ``positive`` label; a problem when none or all of them do.

    Parameters
    ----------
    card : Path
        The card, named in each problem.
    column : str
        The label column.
    values : array-like
        Its cells.
    positive : object or list
        The positive label as written in the card (a number matches cells of equal value), or a list of them.
    setting : str
        The card key that chooses the label (``roles.positive``, ``items.positive``).
    problems : list of str
        Where each problem is appended.

    Returns
    -------
    numpy.ndarray of bool
    """
    labels = positive if isinstance(positive, list) else [positive]
    hits = matching(values, labels)
    absent = [label for label in labels if not matching(values, [label]).any()]
    if absent:
        problems.append(
            f"{card}: column {column!r}: positive label {absent[0] if len(absent) == 1 else absent!r} not found; its "
            f"values are {sorted({str(v) for v in values})[:10]}: set {setting} to one of them"
        )
    else:
        _two_classes(card, column, hits, positive, problems)
    return hits


def _two_classes(card, column, hits, positive, problems) -> None:
    if hits.all() or not hits.any():
        which = "every" if hits.all() else "no"
        problems.append(
            f"{card}: column {column!r}: {which} row is positive by {positive!r}; a classifier needs "
            "two classes: choose another target, another positive rule, or keep rows of both classes"
        )


RULE = re.compile(r"^\s*(>=|<=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")
"""A target rule on numbers: ``"> 0"``, ``">= 50000"``, ``"< 1.5"``, ``"<= -2"``."""

_OPPOSITE = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}


def _rule_hits(card, target, values, rule, problems):
    """Rows whose number meets ``rule`` (an operator and a number), or None with a problem when a cell is not a
    number.
    """
    operator, bound = rule.group(1), float(rule.group(2))
    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    bad = pd.Series(values, dtype=object)[numbers.isna()].unique()[:3].tolist()
    if bad:
        problems.append(
            f"{card}: column {target!r}: roles.positive {rule.string!r} compares numbers but the column holds "
            f"{bad}; name a label (or a list of labels) instead, or list those cells in missing.markers"
        )
        return None
    hits = {">": numbers > bound, ">=": numbers >= bound, "<": numbers < bound, "<=": numbers <= bound}[operator]
    return hits.to_numpy(dtype=bool)


def binary_target(card, frame, target, roles, problems):
    """The target as 0/1 and its (negative, positive) names.

    ``roles.positive`` is one label, a list of labels (each a positive class: ``[flu, covid]``), or, for a
    column of counts or amounts, a rule: an operator (``>``, ``>=``, ``<``, ``<=``) and a number (``"> 0"``:
    any admission; ``">= 50000"``: Adult's ``>50K`` written on an income). A rule's names are
    ``"<target> > 0"`` and ``"<target> <= 0"``.

    Parameters
    ----------
    card : Path
        The card, named in each problem.
    frame : pandas.DataFrame
        The table, missing values handled.
    target : str
        The target column.
    roles : dict
        The card's ``roles:`` section.
    problems : list of str
        Where each problem is appended.
    """
    values = frame[target]
    distinct = values.unique().tolist()
    if "positive" not in roles:
        problems.append(
            f"{card}: column {target!r}: roles.positive is missing; name the positive label, one of "
            f'{sorted(map(str, distinct))[:10]}, a list of them, or a rule on numbers such as "> 0"'
        )
        return None, ("0", "1")
    positive = roles["positive"]
    rule = RULE.match(positive) if isinstance(positive, str) else None
    if rule is not None and not matching(values, [positive]).any():
        hits = _rule_hits(card, target, values, rule, problems)
        if hits is None:
            return None, ("0", "1")
        operator, bound = rule.group(1), rule.group(2)
        names = (f"{target} {_OPPOSITE[operator]} {bound}", f"{target} {operator} {bound}")
        _two_classes(card, target, hits, positive, problems)
        return hits.astype(np.int64), names
    labels = positive if isinstance(positive, list) else [positive]
    hits = positive_labels(card, target, values, labels, "roles.positive", problems)
    shown = " or ".join(map(str, labels))
    negatives = sorted({label_text(v) for v in values[~hits].unique()})
    negative = negatives[0] if len(negatives) == 1 else f"not {shown}"
    return hits.astype(np.int64), (negative, shown)


def variant_warnings(card, frame, quasi, sensitive, target) -> list[str]:
    """Warnings for the role columns whose values differ only by case or white space.

    Such values count as distinct: sensitive values ``hiv`` and ``HIV`` let an l-diverse group hold the same
    diagnosis twice.

    Parameters
    ----------
    card : Path
        The card, named in each line.
    frame : pandas.DataFrame
        The loaded table.
    quasi : list of str
        The quasi-identifiers.
    sensitive, target : str or None
        The sensitive attribute and the target column.

    Returns
    -------
    list of str
        One line per group of such values.
    """
    roles = {**dict.fromkeys(quasi, "quasi-identifier"), sensitive: "sensitive", target: "target"}
    roles.pop(None, None)
    lines = []
    for column, role in roles.items():
        for group in near_duplicates(frame[column]):
            spaced = len({v.strip() for v in group}) < len(group)
            cased = len({v.casefold() for v in group}) < len(group)
            how = " or ".join(["case"] * cased + ["white space"] * spaced) or "case and white space"
            lines.append(
                f"{card}: column {column!r} ({role}): values {group} differ only by {how} and count as different "
                f"values{' (l-diversity counts them as distinct sensitive values)' if role == 'sensitive' else ''}; "
                "write them one way in the file" + (" (or drop read: {strip: false})" if spaced else "")
            )
    return lines
