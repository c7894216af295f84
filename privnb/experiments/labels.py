"""The papers' labels of training views in plots and tables, and the order they are shown in."""

from __future__ import annotations

import math

import pandas as pd

_PRIVACY_LETTER = {"anatomized": "L", "pruned": "L", "generalized": "k", "anonymized": "k", "mondrian": "Mondrian k"}


_FIXED_LABELS = {"original": "Org.", "identifying": "Id.", "majority": "Majority"}


_METHOD_ORDER = ("majority", "original", "identifying", "anatomized", "pruned", "generalized", "anonymized", "mondrian")


def method_label(method: str, param=None) -> str:
    """The paper's label of a training view in plots and tables.

    "Org." and "Id." stand for the original and identifying classifiers, "L=2" for the anatomized or
    pruned one trained on 2-diverse data and "k=2" for the one trained on 2-anonymous data (Section 5.2
    of MC16, Figure 4 of MC17), "Majority" for the majority-class baseline. Other methods read
    ``method`` or ``method=param``.

    Parameters
    ----------
    method : str
        The view's method.
    param : float, optional
        Its privacy parameter (None or NaN for none).

    Returns
    -------
    str

    Examples
    --------
    >>> method_label("original"), method_label("pruned", 3.0), method_label("generalized", 2)
    ('Org.', 'L=3', 'k=2')
    """
    if method in _FIXED_LABELS:
        return _FIXED_LABELS[method]
    if param is None or (isinstance(param, float) and math.isnan(param)):
        return str(method)
    value = int(param) if float(param).is_integer() else param
    return f"{_PRIVACY_LETTER.get(method, method)}={value}"


def method_sort_key(method: str, param=None) -> tuple:
    """Order of views in the papers' figures: the baseline, Org., Id., then each privacy method by parameter.

    Parameters
    ----------
    method : str
        The view's method.
    param : float, optional
        Its privacy parameter (None or NaN for none).

    Returns
    -------
    tuple
        A sort key.
    """
    rank = _METHOD_ORDER.index(method) if method in _METHOD_ORDER else len(_METHOD_ORDER)
    number = -math.inf if param is None or pd.isna(param) else float(param)
    return rank, str(method), number
