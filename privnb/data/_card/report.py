"""What checking a data card found: :class:`CardReport`, a table of the columns and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from privnb.data.containers import Dataset


@dataclass
class CardReport:
    """What loading a card did: one row per column (role, kind, how the kind was decided, values, missing
    cells), notes (rows read and dropped, target balance, sensitive domain, the largest l anatomy allows), the
    file's columns that have no role (``unused``) and warnings (values that differ only by case or white space).
    """

    card: str
    columns: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_string(self) -> str:
        """The report as text: the card, its notes, the unused columns, the warnings, the column table."""
        with pd.option_context("display.max_colwidth", 80, "display.width", 200):
            table = self.columns.to_string(index=False) if len(self.columns) else ""
        unused = [f"unused columns (no role, not loaded): {', '.join(self.unused)}"] if self.unused else []
        warnings = [f"warning: {line}" for line in self.warnings]
        return "\n".join([f"card: {self.card}", *self.notes, *unused, *warnings, *([table] if table else [])])


def table_report(card: Path, data: Dataset, how: dict, missing: dict, notes: list[str]) -> CardReport:
    """The report of a table card: one row per column, and notes on the rows, the target and the sensitive domain.

    Parameters
    ----------
    card : Path
        The card.
    data : Dataset
        What it loads.
    how : dict
        Column -> how its kind was decided.
    missing : dict
        The card's ``missing:`` section.
    notes : list of str
        Notes so far (rows read, dropped).
    """
    frame = data.frame
    roles = dict.fromkeys(data.quasi_identifiers, "quasi-identifier")
    if data.sensitive is not None:
        roles[data.sensitive] = "sensitive"
    roles |= dict.fromkeys(data.insensitive, "insensitive")
    rows = [
        {
            "column": c,
            "role": role,
            "kind": data.kinds[c],
            "kind from": how.get(c, ""),
            "values": int(frame[c].nunique()),
            "order": ", ".join(map(str, data.orders[c]))[:60] if c in data.orders else "",
        }
        for c, role in roles.items()
    ]
    rows.append(
        {
            "column": data.target,
            "role": "target",
            "kind": "binary",
            "kind from": "",
            "values": 2,
            "order": f"1 = {data.target_names[1]}",
        }
    )
    y = data.y
    notes = [
        *notes,
        (
            f"{len(frame)} rows; target {data.target!r}: {int(y.sum())} positive "
            f"({data.target_names[1]}), {int(len(y) - y.sum())} negative ({data.target_names[0]})"
        ),
    ]
    if data.sensitive is None:
        notes.append("no sensitive attribute: anatomy and l-diversity cannot run on this data")
    else:
        counts = frame[data.sensitive].value_counts()
        eligible = min(len(counts), len(frame) // int(counts.max()))
        notes.append(
            f"sensitive {data.sensitive!r}: domain of {len(counts)} values; anatomy allows l up to "
            f"{len(counts)} (groups of l distinct values, the rest suppressed), with no row suppressed "
            f"up to l = {eligible} (most frequent value: {int(counts.max())} of {len(frame)} rows)"
        )
    return CardReport(str(card), pd.DataFrame(rows), notes)
