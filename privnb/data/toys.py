"""The papers' small worked examples, as facts from the papers: the feature-selection paper's Table 1,
the Naive Bayes paper's Figure 1 databases, and a stand-in for the SVM and k-NN papers' six-point toy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.data.containers import Dataset


def feature_selection_table1() -> pd.DataFrame:
    """Table 1 of FSAC: 6 users x 5 binary keywords and a class label.

    Keywords ``a``..``e`` as extracted; the index is ``u1``..``u6``. The two feature sets of its
    Table 2 are {a, b, e} (projections 101 for u1-u4, 111 for u5, u6) and {c, d, e}. The class
    column (+1 / -1) was lost in the text extraction; it is reconstructed from the text: mapping 101
    to +1 and 111 to -1 on {a, b, e} "makes only 1 mistake out of 6", every positive has the same
    distances to the negatives (the HamDist example), and {c, d, e} shows "no good correlation".
    u1, u2, u3 are +1 and u4, u5, u6 are -1 (u4 is the one mistake; u1, u2, u4 are identical rows).
    Containment (Definition 4): u1 is 4-AC (with u2, u4, u5); u5 and u6 are 1-AC.
    """
    keywords = np.array(
        [[1, 0, 1, 0, 1], [1, 0, 1, 0, 1], [1, 0, 0, 1, 1], [1, 0, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 0, 1, 1]]
    )
    table = pd.DataFrame(keywords, columns=list("abcde"), index=pd.Index([f"u{i}" for i in range(1, 7)], name="user"))
    table["class"] = [1, 1, 1, -1, -1, -1]
    return table


def nbc_figure1_databases() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two tiny databases of Figure 1 of MZ09 (schema <Adr, Age, Sal>).

    The figure gives each database only through its NBC-enabling views pi_{Adr,Sal} and
    pi_{Age,Sal}; the tables returned list those views row by row, which is the first of each
    database's consistent worlds (d1 of V1, d'1 of V2). Adr is "W" (Westwood) or "P" (Palms),
    Age 30 or 40, Sal "50K" or "70K".

    Returns
    -------
    (db_a, db_b) : DataFrames of 7 and 5 tuples
        db_a: 5 of 7 earn 70K (the 71% prior); among its worlds Bob's average posterior for
        <W, 40, 70K> is 88%; db_b: 78% (Section 1).
    """

    def table(rows):
        return pd.DataFrame(rows, columns=["Adr", "Age", "Sal"])

    db_a = table([("W", 40, "70K")] * 4 + [("P", 30, "70K"), ("W", 40, "50K"), ("P", 30, "50K")])
    db_b = table([("W", 40, "70K")] * 2 + [("P", 30, "70K"), ("W", 40, "50K"), ("P", 30, "50K")])
    return db_a, db_b


def anatomy_toy() -> Dataset:
    """A stand-in for the 6-point toy of Figure 1 of MC16 and MC17 (coordinates only drawn).

    Two blue points on the left and four red on the right, attributes A_1 (quasi-identifier) and A_2
    (sensitive), every value distinct so each point is a unique individual. The classes are split
    by A_1 alone (blue A_1 <= 2, red A_1 >= 4), so the anatomized data (A_1 kept, A_2 permuted within
    groups) stays linearly separable, as in Figure 1(b). Target ``color``: 0 = blue, 1 = red. The
    coordinates are ours: the papers only draw them.
    """
    frame = pd.DataFrame(
        {"A_1": [1.0, 2.0, 4.0, 5.0, 6.0, 7.0], "A_2": [2.0, 4.5, 1.0, 3.5, 5.5, 2.5], "color": [0, 0, 1, 1, 1, 1]}
    )
    return Dataset(
        "anatomy_toy", frame, ("A_1",), "A_2", "color", {"A_1": "numeric", "A_2": "numeric"}, {}, ("blue", "red")
    )
