"""The column checks of a data card describing a table: each column's kind (given or inferred), the missing
values (dropped or made a category) and the binary target; every problem is appended to ``problems``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.validation import KINDS, infer_kind


def _kinds(card, raw, frame, features, problems):
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


def _missing(card, frame, features, target, kinds, orders, missing, action, problems, notes):
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
        by_text = {str(v): v for v in order}
        values = frame[column].dropna()
        outside = sorted({str(v) for v in values.unique()} - set(by_text))
        if outside:
            problems.append(
                f"{card}: column {column!r} has values {outside[:5]} outside its order {order}; add "
                f"them to columns.{column}.order, or list them in missing.markers"
            )
        elif not set(values.unique()) <= set(order):
            frame = frame.assign(**{column: frame[column].map(lambda v, known=by_text: known.get(str(v), v))})
    return frame.reset_index(drop=True)


def positive_labels(card, column, values, positive, setting: str, problems: list) -> np.ndarray:
    """Which rows carry the ``positive`` label (as text); a problem when none or all of them do.

    ``setting`` names the card key that chooses the label (``roles.positive``, ``items.positive``).
    """
    hits = np.asarray(pd.Series(values).astype(str) == str(positive))
    if not hits.any():
        problems.append(
            f"{card}: column {column!r}: positive label {positive!r} not found; its values are "
            f"{sorted({str(v) for v in values})[:10]}: set {setting} to one of them"
        )
    elif hits.all():
        problems.append(
            f"{card}: column {column!r}: every row has the label {positive!r}; a classifier needs "
            "two classes: choose another target or keep rows of both classes"
        )
    return hits


def _target(card, frame, target, roles, problems):
    values = frame[target]
    distinct = values.unique().tolist()
    if "positive" not in roles:
        problems.append(
            f"{card}: column {target!r}: roles.positive is missing; name the positive label, one of "
            f"{sorted(map(str, distinct))[:10]}"
        )
        return None, ("0", "1")
    positive = roles["positive"]
    hits = positive_labels(card, target, values, positive, "roles.positive", problems)
    negatives = sorted({str(v) for v in distinct} - {str(positive)})
    negative = negatives[0] if len(negatives) == 1 else f"not {positive}"
    return hits.astype(np.int64), (negative, str(positive))
