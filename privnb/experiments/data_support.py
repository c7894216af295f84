"""What a notebook's methods need from a data set, and whether the data set at hand has it.

A notebook's ``dataset`` parameter is one of the papers' data set names or the path of a data card
(``privnb.data.load``). :func:`data_support` describes what that data set offers; each notebook states up front
what its sections need (:meth:`DataSupport.requirements`) and skips, with the reason, a section whose needs
are not met (:meth:`DataSupport.missing`) instead of failing. When nothing of a notebook can run on the data
set (an item matrix given to a notebook about tables), :meth:`DataSupport.require` raises
:class:`DataUnsupportedError`, which a sweep records as a skipped point with its message, not a failure.

Needs
-----
``"sensitive"``
    A sensitive attribute with at least two values (anatomy, l-diversity); with ``l=``, at least ``l`` values.
``"hierarchies"``
    A generalization hierarchy for every quasi-identifier (full-domain k-anonymity; Adult's built-in ones or
    a card's ``hierarchies:``).
``"items"``
    A binary item matrix with a label per row (k-anonymity by containment).
``"table"``
    A table with roles (quasi-identifiers, target): every card except an item matrix.
``"paper:<name>"``
    One of the papers' own data sets (the paper's reported numbers exist only for them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["DataSupport", "DataUnsupportedError", "data_support", "NEEDS"]

NEEDS = ("sensitive", "hierarchies", "items", "table", "paper")


class DataUnsupportedError(ValueError):
    """The data set lacks what a whole notebook needs; the message says what and how to provide it."""


@dataclass(frozen=True)
class DataSupport:
    """What one data set offers the notebooks' methods (see the module docstring for the needs)."""

    dataset: str
    name: str
    paper: str | None
    sensitive: str | None = None
    sensitive_values: int = 0
    quasi_identifiers: tuple = ()
    hierarchies: Mapping | None = field(default=None, repr=False)
    items: bool = False

    @property
    def generalization_hierarchies(self) -> dict | None:
        """A hierarchy per quasi-identifier when every one has one (what the generalizers take), else None."""
        return None if self.missing("hierarchies") else dict(self.hierarchies)

    def missing(self, need: str, *, l: int | None = None) -> str:
        """``""`` when the data set meets ``need`` (with ``l`` for "sensitive"), else why not and what to do."""
        kind, _, paper = need.partition(":")
        if kind not in NEEDS:
            raise ValueError(f"unknown need {need!r}; needs are {NEEDS} (paper as 'paper:<name>')")
        if kind == "paper":
            if self.paper is not None and self.paper in paper.split("|"):
                return ""
            wanted = " or ".join(paper.split("|")) if paper else "one of the papers' data sets"
            return f"the paper's numbers exist only for {wanted}; {self.name!r} is not"
        if kind == "items":
            return "" if self.items else f"{self.name!r} is a table, not a binary item matrix (a card with items:)"
        if self.items:
            return f"{self.name!r} is a binary item matrix; this needs a table card (file:, roles:)"
        if kind == "sensitive":
            if self.sensitive is None:
                return f"{self.name!r} has no sensitive attribute; name one in the card's roles (sensitive:)"
            needed = max(2, l or 2)
            if self.sensitive_values < needed:
                return (
                    f"{self.sensitive!r} has {self.sensitive_values} value(s); l = {needed} needs at least {needed}"
                    " (lower l, or choose a sensitive attribute with more values)"
                )
        missing = [q for q in self.quasi_identifiers if q not in (self.hierarchies or {})]
        if kind == "hierarchies" and missing:
            named = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
            return (
                f"no generalization hierarchy for {named}; add them to the card's hierarchies: (ARX tables or "
                "intervals for numeric columns)"
            )
        return ""

    def require(self, need: str, *, l: int | None = None, what: str = "this notebook") -> None:
        """Raise :class:`DataUnsupportedError` when the data set does not meet ``need`` (``what`` needs it)."""
        reason = self.missing(need, l=l)
        if reason:
            raise DataUnsupportedError(f"{what} cannot run on {self.dataset}: {reason}")

    def requirements(self, sections: Mapping[str, Sequence[str] | str], *, l: int | None = None) -> pd.DataFrame:
        """One row per section: what it needs, whether this data set has it, and if not, why (``l`` is the
        largest l the section uses).
        """
        rows = []
        for section, needs in sections.items():
            needs = [needs] if isinstance(needs, str) else list(needs)
            reasons = list(dict.fromkeys(reason for need in needs if (reason := self.missing(need, l=l))))
            rows.append(
                {
                    "section": section,
                    "needs": ", ".join(needs) or "nothing beyond a table",
                    "runs": not reasons,
                    "why not": "; ".join(reasons),
                }
            )
        return pd.DataFrame(rows, columns=["section", "needs", "runs", "why not"])


def _paper_name(dataset) -> str | None:
    from privnb.data import builtin_cards, is_card

    if isinstance(dataset, str) and not is_card(dataset) and dataset in builtin_cards():
        return dataset
    return None


def data_support(dataset: str | os.PathLike, data=None) -> DataSupport:
    """What ``dataset`` (a papers' name or a card path) offers; ``data`` is its loaded Dataset or TokenCorpus
    (loaded here when omitted).
    """
    from privnb.data import TokenCorpus, load

    data = load(dataset) if data is None else data
    paper = _paper_name(dataset)
    name = getattr(data, "name", None) or (paper or os.path.splitext(os.path.basename(str(dataset)))[0])
    if isinstance(data, TokenCorpus):
        return DataSupport(str(dataset), name, paper, items=True)
    quasi_identifiers = tuple(data.quasi_identifiers)
    sensitive = data.sensitive
    values = int(data.frame[sensitive].nunique()) if sensitive is not None else 0
    return DataSupport(
        str(dataset),
        name,
        paper,
        sensitive=sensitive,
        sensitive_values=values,
        quasi_identifiers=quasi_identifiers,
        hierarchies={q: data.hierarchies[q] for q in quasi_identifiers if q in data.hierarchies},
    )
