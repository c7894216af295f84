"""The small hierarchies the generalizers' tests share, and whether the shared Adult hierarchies are at hand.

``small_hierarchies()`` generalizes ``num`` (integers from 0 in intervals of 2, then wider), ``let`` (a-d: two
pairs, then ``*``) and ``col`` (x-z: ``*``); small enough that a brute force over every node is cheap.
"""

from __future__ import annotations

import os

import pandas as pd

from privnb.data import Hierarchy

LETTERS = pd.DataFrame([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]])
COLOURS = pd.DataFrame([["x", "*"], ["y", "*"], ["z", "*"]])
HAS_ADULT_HIERARCHIES = os.path.exists(
    os.path.join(os.environ.get("PRIVNB_DATA", ""), "adult_hierarchies", "adult_hierarchy_age.csv")
)


def small_hierarchies(columns=("num", "let", "col"), *, num_top: int = 16, letters=LETTERS) -> dict:
    """The hierarchies of ``columns``: ``num`` covers 0..num_top-1, ``let`` follows ``letters`` (ARX's rows)."""
    build = {
        "num": lambda: Hierarchy.intervals(0, num_top, width=2, name="num"),
        "let": lambda: Hierarchy.from_arx(letters, name="let"),
        "col": lambda: Hierarchy.from_arx(COLOURS, name="col"),
    }
    return {column: build[column]() for column in columns}
