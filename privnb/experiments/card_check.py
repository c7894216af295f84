"""What ``privnb data check`` says of a data card: the card's report (rows, roles, kinds, notes, unused columns,
warnings), the hierarchies it builds, and every notebook's table of what its sections need and whether this
card has it (the tables the notebooks open with).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

CHECK_L = 2
"""The l the notebooks' tables are checked for (the report's notes say how far l can go)."""


@dataclass
class CardCheck:
    """The outcome of :func:`card_check`.

    Attributes
    ----------
    report : privnb.data.cards.CardReport
        The card's report (columns, notes, unused columns, warnings).
    hierarchies : pandas.DataFrame
        One row per built hierarchy: column, source, levels, groups per level, leaves.
    requirements : pandas.DataFrame
        Every notebook's sections, what they need, whether they run and why not (or what they chose).
    planned : str
        With what the notebooks were planned ("each notebook's defaults", or the l checked).
    risk : str
        The input's re-identification risk on its quasi-identifiers (:func:`input_risk`), before any release.
    """

    report: object
    hierarchies: pd.DataFrame
    requirements: pd.DataFrame
    planned: str = f"l = {CHECK_L}"
    risk: str = ""

    def to_string(self) -> str:
        """The check as text: the report, the hierarchies and the notebooks' table."""
        with pd.option_context("display.max_colwidth", 90, "display.width", 250):
            built = (
                self.hierarchies.to_string(index=False)
                if len(self.hierarchies)
                else "none (full-domain k-anonymity needs one per quasi-identifier; Mondrian needs none)"
            )
            table = self.requirements.to_string(index=False)
        heading = f"what each notebook's sections need ({self.planned}) and whether this card has it:"
        risk = [self.risk, ""] if self.risk else []
        return "\n".join([self.report.to_string(), "", *risk, "hierarchies:", built, "", heading, table])


def input_risk(data) -> str:
    """The input's risk on its quasi-identifiers before anything is released, as sdcMicro's and ARX's summaries
    show it: the equivalence classes (rows sharing every quasi-identifier value), the sample uniques (rows
    alone in theirs: a prosecutor re-identifies each for sure), the smallest class (the k the raw table
    already meets) and the rows in classes under 2, 3 and 5 (sdcMicro's k-anonymity violations).

    Parameters
    ----------
    data : Dataset or TokenCorpus
        The data set (an item matrix has no quasi-identifiers: "").

    Returns
    -------
    str
        One line, or "".
    """
    qi = list(getattr(data, "quasi_identifiers", ()))
    if not qi:
        return ""
    sizes = data.frame.groupby(qi, dropna=False, observed=True).size().to_numpy()
    n = int(sizes.sum())
    under = ", ".join(f"{int(sizes[sizes < k].sum())} under {k}" for k in (2, 3, 5))
    return (
        f"input risk on the quasi-identifiers {', '.join(qi)} (before any release): {n} rows in {len(sizes)} "
        f"classes; sample uniques {int((sizes == 1).sum())} ({(sizes == 1).sum() / n:.1%} of rows); smallest "
        f"class {int(sizes.min())} (k = {int(sizes.min())} without protection); rows in classes {under}"
    )


def _source(spec) -> str:
    if not isinstance(spec, dict):
        return ""
    if "arx" in spec:
        return f"arx {spec['arx']}"
    interval = spec.get("intervals") or {}
    shape = f"width {interval['width']}" if "width" in interval else f"cuts ({len(interval.get('cuts') or [])} levels)"
    return f"intervals, {shape}"


def _hierarchy_rows(specs: dict, hierarchies: dict) -> pd.DataFrame:
    rows = []
    for column, hierarchy in hierarchies.items():
        groups = [hierarchy.n_groups(level) for level in range(1, hierarchy.n_levels)]
        if _is_intervals(hierarchy):
            leaves = f"{groups[0]} intervals over [{hierarchy.low:g}, {hierarchy.high:g}]"
        else:
            leaves = f"{len(hierarchy.values)} values"
        rows.append(
            {
                "column": column,
                "source": _source(specs.get(column)),
                "levels": hierarchy.n_levels,
                "groups per level": " / ".join(map(str, groups)),
                "leaves": leaves,
            }
        )
    return pd.DataFrame(rows, columns=["column", "source", "levels", "groups per level", "leaves"])


def card_check(source: str | os.PathLike, parameters: Mapping[str, Mapping] | None = None) -> CardCheck:
    """Check a data card (or a papers' data set by name) the way ``privnb data check`` reports it.

    Reads only: nothing is written or downloaded.

    Parameters
    ----------
    source : str or PathLike
        The path of a ``.yaml`` card, or a built-in data set's name (``"bank"``).
    parameters : mapping, optional
        Notebook name -> its parameters (``privnb data check``: each notebook's defaults): each notebook is
        planned with them through :func:`privnb.experiments.section_plans.notebook_plan`, the calls the
        notebook makes (its sample, its l and k, its audits' memory budget, its m). Without them, every
        notebook's needs are checked for l = :data:`CHECK_L`.

    Returns
    -------
    CardCheck

    Raises
    ------
    privnb.data.CardError
        The card's problems, one line each (the hierarchies are built only when the columns pass; a hierarchy
        that cannot be built is a problem too).
    privnb.data.DataUnavailableError
        A built-in card whose files are not here.
    """
    from privnb.data import builtin_cards, read_card
    from privnb.data.cards import inspect_card, is_card
    from privnb.data.sources import read_only
    from privnb.experiments.data_support import data_support
    from privnb.experiments.notebook_needs import notebook_requirements

    path = Path(source) if is_card(source) else builtin_cards().get(str(source), Path(source))
    with read_only():
        data, report = inspect_card(path)
        specs = read_card(path).get("hierarchies") or {}
        hierarchies = dict(getattr(data, "hierarchies", {}))  # built and checked when the card was loaded
        support = data_support(source if is_card(source) else str(source), data)
        if parameters is None:
            requirements = notebook_requirements(support, data, l=CHECK_L)
        else:
            from privnb.experiments.section_plans import notebook_plan

            plans = {name: notebook_plan(name, support, data, values) for name, values in parameters.items()}
            requirements = pd.concat(plans, names=["notebook", None]).reset_index(level=0).reset_index(drop=True)
    planned = f"l = {CHECK_L}" if parameters is None else "planned with each notebook's defaults"
    if hierarchies:  # an item card has none (and no frame)
        report.warnings.extend(collapsing_hierarchies(hierarchies, data.frame))
    return CardCheck(report, _hierarchy_rows(specs, hierarchies), requirements, planned, input_risk(data))


def collapsing_hierarchies(hierarchies: Mapping, frame: pd.DataFrame) -> list[str]:
    """One warning per interval hierarchy whose first level is one interval over the whole column (a width or
    cuts as wide as its range): generalizing the column at all then erases it, so full-domain k-anonymity can
    only keep it exact or publish one value for every row.

    Parameters
    ----------
    hierarchies : mapping
        Column -> :class:`privnb.data.Hierarchy`, as the card built them.
    frame : DataFrame
        The loaded rows (a column with one value has nothing to collapse: no warning).

    Returns
    -------
    list of str
    """
    lines = []
    for column, hierarchy in hierarchies.items():
        if not _is_intervals(hierarchy) or hierarchy.n_groups(1) > 1 or frame[column].nunique() < 2:
            continue
        lines.append(
            f"the intervals hierarchy of {column!r} puts all {frame[column].nunique()} values in one interval "
            f"[{hierarchy.low:g}, {hierarchy.high:g}] at its first level, so generalizing {column!r} at all "
            "publishes one value for every row; give a smaller width, or cuts inside that range"
        )
    return lines


def _is_intervals(hierarchy) -> bool:
    try:
        _ = hierarchy.values
    except ValueError:  # intervals list no values
        return True
    return False
