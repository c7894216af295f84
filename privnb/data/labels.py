"""Exact labels of numeric intervals, as releases print them (Mondrian's regions, interval hierarchies, binarized
columns).

:func:`format_number` prints the shortest text that reads back as the same float (integers in full), so
distinct intervals get distinct labels, and a label's bounds, read back by :func:`parse_interval`, contain every
value it stands for (6 significant digits, as ``%g`` prints, would merge 1234561 and 1234562).
"""

from __future__ import annotations

import re

__all__ = ["TOP", "format_interval", "format_number", "parse_interval"]

#: The label of the whole domain (a hierarchy's top level, a Mondrian cell that kept every category).
TOP = "*"

_NUMBER = r"[-+]?(?:inf|nan|\d+(?:\.\d*)?(?:e[-+]?\d+)?)"
_INTERVAL = re.compile(rf"\[({_NUMBER})-({_NUMBER})([\])])")


def format_number(x) -> str:
    """The exact text of a number: an integer value in full, else the shortest text that reads back as
    the same float (``repr``).

    Parameters
    ----------
    x : float or int
        The number.

    Returns
    -------
    str
        ``"1234561"``, ``"0.1"``, ``"1e-07"``, ``"1e+20"``.
    """
    x = float(x)
    if x.is_integer() and abs(x) < 2**53:
        return str(int(x))
    return repr(x)


def format_interval(low: float, high: float, *, closed: bool = False) -> str:
    """Label of an interval: ``"[20-30)"`` (half-open) or ``"[20-30]"`` (closed); a closed point is ``"20"``.

    Parameters
    ----------
    low, high : float
        The bounds, printed exactly (:func:`format_number`).
    closed : bool
        Whether ``high`` belongs to the interval.

    Returns
    -------
    str
        The label; :func:`parse_interval` reads it back.
    """
    if closed and low == high:
        return format_number(low)
    return f"[{format_number(low)}-{format_number(high)}{']' if closed else ')'}"


def parse_interval(label: str) -> tuple[float, float, bool]:
    """The bounds of a label made by :func:`format_interval`.

    Parameters
    ----------
    label : str
        ``"[a-b)"``, ``"[a-b]"`` or a number.

    Returns
    -------
    (low, high, closed) : (float, float, bool)
        ``closed`` is whether ``high`` belongs to the interval (always True for a number).
    """
    match = _INTERVAL.fullmatch(label)
    if match is not None:
        return float(match.group(1)), float(match.group(2)), match.group(3) == "]"
    if re.fullmatch(_NUMBER, label):
        return float(label), float(label), True
    raise ValueError(f"{label!r} is not an interval label such as '[20-30)', '[20-30]' or '25'")
