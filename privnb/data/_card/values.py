"""How a data card's values meet the cells of its file: a value written in the card (an ordinal order, the
positive label, a missing-value marker) matches a cell when both are numbers of equal value (``2500`` matches
a cell read as ``2500.0``) or, otherwise, when their texts are equal. Also: cells that differ only by case or
surrounding white space, which would count as distinct values (and defeat l-diversity) if left alone.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd


def _number(value) -> float | None:
    """``value`` as a float when it is a number or a text that reads as one, else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def same_value(cell, value) -> bool:
    """Whether a cell of the file and a value of the card mean the same.

    Parameters
    ----------
    cell : object
        A cell as read (a number, a text, ...).
    value : object
        A value written in the card.

    Returns
    -------
    bool
        True when both are numbers (or texts that read as numbers, as long as one side is a number) of
        equal value, or when their texts are equal.
    """
    if isinstance(cell, numbers.Real) or isinstance(value, numbers.Real):
        left, right = _number(cell), _number(value)
        if left is not None and right is not None:
            return left == right
    return str(cell) == str(value)


def label_text(value) -> str:
    """A cell as a label: a whole number read as a float (``0.0``) without its decimals (``"0"``).

    Parameters
    ----------
    value : object
        A cell as read.
    """
    number = _number(value) if isinstance(value, numbers.Real) else None
    return str(int(number)) if number is not None and number.is_integer() else str(value)


def matching(values, wanted: Sequence) -> np.ndarray:
    """Which of ``values`` equal one of ``wanted`` by :func:`same_value` (missing cells never match).

    Parameters
    ----------
    values : array-like
        Cells of one column.
    wanted : sequence
        Values written in the card.

    Returns
    -------
    numpy.ndarray of bool
    """
    values = pd.Series(values, dtype=object)
    present = values[values.notna()]
    hits = {v for v in present.unique() if any(same_value(v, w) for w in wanted)}
    return np.asarray(values.notna() & values.isin(hits), dtype=bool)


def find_value(cell, values: Sequence):
    """The first of ``values`` that ``cell`` matches by :func:`same_value`, or None.

    Parameters
    ----------
    cell : object
        A cell as read.
    values : sequence
        Values written in the card (an ordinal order, say).
    """
    return next((v for v in values if same_value(cell, v)), None)


def near_duplicates(values) -> list[list[str]]:
    """Groups of distinct text values that differ only by case or surrounding white space.

    Parameters
    ----------
    values : array-like
        Cells of one column; numbers and missing cells are ignored.

    Returns
    -------
    list of list of str
        Each group sorted, groups sorted; empty when there are none.
    """
    groups: dict[str, set[str]] = {}
    for value in pd.Series(values, dtype=object).dropna().unique():
        if isinstance(value, str):
            groups.setdefault(value.strip().casefold(), set()).add(value)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


def closest(name, names) -> str:
    """``"; did you mean 'x'?"`` naming the closest of ``names`` to a misspelt ``name`` ("" when none is close).

    Parameters
    ----------
    name : object
        The name written in the card.
    names : iterable of str
        The names it could have meant (the file's columns).
    """
    match = difflib.get_close_matches(str(name), [str(n) for n in names], n=1)
    return f"; did you mean {match[0]!r}?" if match else ""
