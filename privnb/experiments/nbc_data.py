"""Notebook 04's data (Section 8 of MZ09): a table with a binary class and discrete attributes, as NBC views take
it.

The NBC-enabling views are the class counts and, per class, the count of every value of every attribute (Section
3): the attributes must be discrete (a finite domain whose values repeat) and the class is binary in the paper's
experiments. Adult, the paper's data, gets the paper's three attributes (Age, Years of education, Work hours per
week: :func:`adult_nbc_frame`). A table card gets ``attributes`` when it has
them all, else its quasi-identifiers; a nominal or ordinal attribute is used as it is, a numeric one when its
values are whole numbers, at most ``max_values`` of them (Adult's age and hours per week are such). Any other
attribute is left out, with the reason: binning it would be a choice the card does not make. Figure 9 needs a
generalization hierarchy for every attribute used (Adult's are built in; a card's come from ``hierarchies:``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.experiments.data_support import DataSupport
from privnb.experiments.papers import Section

MAX_VALUES = 100
"""The most values a numeric attribute may take to be counted as it is (Adult's hours-per-week takes 94)."""


@shared_doc
def adult_nbc_frame(data, *, n_rows: int = 0, random_state=None) -> pd.DataFrame:
    """Adult for Section 8 of MZ09: a copy of ``data.frame`` with ``education-num`` added.

    ``education-num`` is the rank (1..16) of ``education`` in ``data.orders["education"]`` (the paper's
    "Years of education").

    Parameters
    ----------
    data : Dataset
        Adult, loaded (with ``frame`` and ``orders``).
    n_rows : int
        When > 0, a sample of that many rows, reindexed.
    random_state : int, RandomState or None
        The sample's.
        {random_state}

    Returns
    -------
    DataFrame
    """
    frame = data.frame.copy()
    frame["education-num"] = frame["education"].map({e: i + 1 for i, e in enumerate(data.orders["education"])})
    if n_rows:
        frame = frame.sample(n=n_rows, random_state=random_state).reset_index(drop=True)
    return frame


@dataclass(frozen=True, eq=False)
class NBCData:
    """A table ready for :class:`privnb.nbc.NBCViews` (see the module docstring).

    Parameters
    ----------
    name : str
        The data set's name (the result rows' ``dataset``).
    frame : DataFrame
        The attributes and the class column (0/1), rows with a missing attribute left out, index reset.
    attributes, target : list of str, str
        The attributes the views count and the class column.
    label_names : (str, str)
        What labels 0 and 1 stand for.
    attribute_table : DataFrame
        One row per candidate attribute: kind, values, used, why not.
    hierarchies : dict or None
        Figure 9's generalization hierarchies of the attributes (None: Adult's, built by
        :func:`privnb.experiments.nbc_publishing.figure9`, or none available).
    missing, figure9_missing : str
        ``""``, or why section 5 (the views) or Figure 9 cannot run on this data set.
    """

    name: str
    frame: pd.DataFrame
    attributes: list
    target: str
    label_names: tuple
    attribute_table: pd.DataFrame
    hierarchies: dict | None
    missing: str
    figure9_missing: str


def _why_not(values: pd.Series, kind: str, max_values: int) -> str:
    if kind != "numeric":
        return ""
    present = pd.to_numeric(values.dropna())
    if not (present == np.round(present)).all():
        return "numeric with fractional values: NBC views count values, so give it a discrete (ordinal) version"
    if present.nunique() > max_values:
        return f"numeric with {present.nunique()} values (over {max_values}): bin it into an ordinal column"
    return ""


@shared_doc
def nbc_data(
    support: DataSupport,
    data,
    attributes: Sequence[str],
    *,
    n_rows: int = 0,
    random_state=None,
    max_values: int = MAX_VALUES,
) -> NBCData:
    """``data`` (loaded, described by ``support``: :func:`privnb.experiments.data_support`) as NBC views take it.

    ``attributes`` are the paper's (Adult's) or wished for; a card uses them when it has them all, else its
    quasi-identifiers.

    Parameters
    ----------
    support : DataSupport
        What the data set holds.
    data : Dataset
        The loaded data set.
    attributes : sequence of str
        The attributes wished for.
    n_rows : int
        When > 0, a sample of that many rows, as :func:`adult_nbc_frame` takes.
    random_state : int, RandomState or None
        The sample's.
        {random_state}
    max_values : int
        The most values a numeric attribute may take to be counted as it is.

    Returns
    -------
    NBCData
    """
    empty = pd.DataFrame(columns=["attribute", "kind", "values", "used", "why not"])
    if support.missing("table"):
        return NBCData(support.name, pd.DataFrame(), [], "", ("0", "1"), empty, None, support.missing("table"), "")
    if support.paper == "adult":
        frame = adult_nbc_frame(data, n_rows=n_rows, random_state=random_state)
        kinds = {**data.kinds, "education-num": "ordinal (rank of education)"}
        table = pd.DataFrame(
            [(a, kinds[a], frame[a].nunique(), True, "") for a in attributes], columns=list(empty.columns)
        )
        return NBCData(support.name, frame, list(attributes), data.target, data.target_names, table, None, "", "")
    candidates = list(attributes) if attributes and set(attributes) <= set(data.kinds) else list(data.quasi_identifiers)
    rows = []
    for a in candidates:
        why = _why_not(data.frame[a], data.kinds[a], max_values)
        rows.append((a, data.kinds[a], data.frame[a].nunique(), not why, why))
    table = pd.DataFrame(rows, columns=list(empty.columns))
    used = table.loc[table["used"], "attribute"].tolist()
    frame = data.frame[[*used, data.target]].dropna().reset_index(drop=True)
    numeric = [a for a in used if data.kinds[a] == "numeric"]
    frame[numeric] = frame[numeric].astype(np.int64)
    if n_rows and n_rows < len(frame):
        frame = frame.sample(n=n_rows, random_state=random_state).reset_index(drop=True)
    missing = "" if used else f"no attribute of {support.name!r} is discrete: " + "; ".join(table["why not"])
    found = {a: h for a, h in (support.hierarchies or {}).items() if a in used}
    lacking = [a for a in used if a not in found]
    figure9_missing = (
        f"no generalization hierarchy for {', '.join(lacking)}; add one per column under the card's "
        "`hierarchies:` key (an ARX table, or intervals for a numeric column)"
        if lacking
        else ""
    )
    hierarchies = None if lacking else found
    return NBCData(
        support.name, frame, used, data.target, data.target_names, table, hierarchies, missing, figure9_missing
    )


_ADULT = "5. Adult (Section 8)"
SECTIONS = (
    Section(
        (_ADULT,),
        "the views, Corollary 4's gamma, SafetyTransform, Figure 8 (EST), EST",
        ("a table with a binary class and discrete attributes",),
    ),
    Section((_ADULT,), "Figure 9: an NBC trained on k-anonymized rows", ("a generalization hierarchy per attribute",)),
    Section(("6. Paper against ours",), "the paper's numbers and claims against them", ("paper:adult",)),
)
"""Notebook 04's sections that need data (sections 1-4 need none), and what each needs."""
AUDITS = Section((_ADULT,), "exact audits of the views and of SafetyTransform's outputs (every gamma)")
"""The audits ``privnb data check`` plans within their memory budget."""


def nbc_requirements(support: DataSupport, nbc: NBCData) -> pd.DataFrame:
    """What notebook 04's sections that need data (:data:`SECTIONS`) need from the data set, whether they run and
    why not (the columns of :meth:`DataSupport.requirements`).

    Parameters
    ----------
    support : DataSupport
        What the data set holds.
    nbc : NBCData
        :func:`nbc_data`'s answer.

    Returns
    -------
    DataFrame
    """
    views, figure9, paper = SECTIONS
    rows = [(views, nbc.missing), (figure9, nbc.missing or nbc.figure9_missing)]
    own = pd.DataFrame(
        [(section.title, section.needs[0], not why, why) for section, why in rows],
        columns=["section", "needs", "runs", "why not"],
    )
    return pd.concat([own, support.requirements({paper.title: list(paper.needs)})], ignore_index=True)
