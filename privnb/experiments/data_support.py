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
``"rows"``
    A table with enough rows for the section's k (k-anonymity's k, k-AC's k, k neighbours), with ``k=``; with
    ``n_splits=`` each training fold of the cross-validation needs them (a fold has ``n - ceil(n / n_splits)``
    rows or more).
``"items"``
    A binary item matrix with a label per row (k-anonymity by containment).
``"table"``
    A table with roles (quasi-identifiers, target): every card except an item matrix.
``"paper:<name>"``
    One of the papers' own data sets (the paper's reported numbers exist only for them).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["DataSupport", "DataUnsupportedError", "data_support", "NEEDS"]

NEEDS = ("sensitive", "hierarchies", "rows", "items", "table", "paper")


class DataUnsupportedError(ValueError):
    """The data set lacks what a whole notebook needs; the message says what and how to provide it."""


@dataclass(frozen=True)
class DataSupport:
    """What one data set offers the notebooks' methods (see the module docstring for the needs).

    Parameters
    ----------
    dataset : str
        The name or card path the notebook was given.
    name : str
        The data set's name.
    paper : str or None
        The paper data set it is (``"adult"``, ...), None for a card of one's own.
    sensitive : str or None
        The sensitive attribute.
    sensitive_values : int
        Its number of distinct values.
    quasi_identifiers : tuple of str
    hierarchies : mapping, optional
        Quasi-identifier -> Hierarchy, those the data set carries (``Dataset.hierarchies``).
    items : bool
        Whether it is a binary item matrix.
    n_rows : int
        Rows of the data the sections run on (:meth:`for_rows` after sampling).
    """

    dataset: str
    name: str
    paper: str | None
    sensitive: str | None = None
    sensitive_values: int = 0
    quasi_identifiers: tuple = ()
    hierarchies: Mapping | None = field(default=None, repr=False)
    items: bool = False
    n_rows: int = 0

    @property
    def generalization_hierarchies(self) -> dict | None:
        """A hierarchy per quasi-identifier when every one has one (what the generalizers take), else None."""
        return None if self.missing("hierarchies") else dict(self.hierarchies)

    def for_rows(self, n_rows: int) -> DataSupport:
        """The same support for a sample of the data set.

        Parameters
        ----------
        n_rows : int
            Rows of the sample the sections run on.

        Returns
        -------
        DataSupport
        """
        return dataclasses.replace(self, n_rows=int(n_rows))

    def missing(self, need: str, *, l: int | None = None, k: int | None = None, n_splits: int | None = None) -> str:
        """Why the data set does not meet ``need``, and what to do; ``""`` when it does.

        Parameters
        ----------
        need : str
            One of :data:`NEEDS` (``"paper:<name>|<name>"`` for the papers' data sets).
        l : int, optional
            For ``"sensitive"``: the largest l the section uses.
        k : int, optional
            For ``"rows"``: the largest k the section uses (k-anonymity, k-AC, k neighbours).
        n_splits : int, optional
            For ``"rows"``: the section anonymizes the training folds of ``n_splits``-fold cross-validation,
            so each needs ``k`` rows.

        Returns
        -------
        str
        """
        kind, _, paper = need.partition(":")
        if kind not in NEEDS:
            raise ValueError(f"unknown need {need!r}; needs are {NEEDS} (paper as 'paper:<name>')")
        if kind == "paper":
            return self._missing_paper(paper)
        if kind == "items":
            return "" if self.items else f"{self.name!r} is a table, not a binary item matrix (a card with items:)"
        if kind == "rows":
            return self._missing_rows(k, n_splits)
        if self.items:
            return f"{self.name!r} is a binary item matrix; this needs a table card (file:, roles:)"
        if kind == "sensitive":
            return self._missing_sensitive(l)
        if kind == "hierarchies":
            return self._missing_hierarchies()
        return ""

    def _missing_paper(self, paper: str) -> str:
        if self.paper is not None and self.paper in paper.split("|"):
            return ""
        wanted = " or ".join(paper.split("|")) if paper else "one of the papers' data sets"
        return f"the paper's numbers exist only for {wanted}; {self.name!r} is not"

    def _missing_sensitive(self, l: int | None) -> str:
        if self.sensitive is None:
            return f"{self.name!r} has no sensitive attribute; name one in the card's roles (sensitive:)"
        needed = max(2, l or 2)
        if self.sensitive_values < needed:
            return (
                f"{self.sensitive!r} has {self.sensitive_values} value(s); l = {needed} needs at least {needed}"
                " (lower l, or choose a sensitive attribute with more values)"
            )
        return ""

    def _missing_hierarchies(self) -> str:
        missing = [q for q in self.quasi_identifiers if q not in (self.hierarchies or {})]
        if not missing:
            return ""
        named = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        return (
            f"no generalization hierarchy for {named}; add one per column under the card's `hierarchies:` key "
            "(an ARX table, or intervals for a numeric column)"
        )

    def _missing_rows(self, k: int | None, n_splits: int | None) -> str:
        k = 1 if k is None else int(k)
        rows = self.n_rows - (-(-self.n_rows // n_splits) if n_splits else 0)  # the smallest training fold
        if rows >= k:
            return ""
        where = f"the smallest training fold of {n_splits}-fold cross-validation has" if n_splits else "it has"
        return (
            f"k = {k} needs at least {k} rows and {where} {rows} (of {self.n_rows} in {self.name!r}); lower k "
            "or use more rows"
        )

    def require(
        self,
        need: str,
        *,
        l: int | None = None,
        k: int | None = None,
        n_splits: int | None = None,
        what: str = "this notebook",
    ) -> None:
        """Raise :class:`DataUnsupportedError` when the data set does not meet ``need``.

        Parameters
        ----------
        need : str
            As for :meth:`missing`.
        l, k, n_splits : int, optional
            As for :meth:`missing`.
        what : str
            What needs it, for the message.
        """
        reason = self.missing(need, l=l, k=k, n_splits=n_splits)
        if reason:
            raise DataUnsupportedError(f"{what} cannot run on {self.dataset}: {reason}")

    def requirements(
        self,
        sections: Mapping[str, Sequence[str] | str],
        *,
        l: int | Sequence[int] | None = None,
        k: int | None = None,
        n_splits: int | None = None,
    ) -> pd.DataFrame:
        """One row per section: what it needs, whether this data set has it, and if not, why.

        Parameters
        ----------
        sections : mapping
            Section -> its needs (one or a list of :data:`NEEDS`).
        l : int or sequence of int, optional
            The l the sections use. A sequence is a notebook's ``ls``: an l above the sensitive domain gives N/A
            rows there, so a section needing ``"sensitive"`` runs when the smallest l fits, and its ``why not``
            names the l recorded N/A.
        k : int, optional
            The largest k the sections that need ``"rows"`` use.
        n_splits : int, optional
            Those sections anonymize training folds of ``n_splits``-fold cross-validation.

        Returns
        -------
        DataFrame
            Columns ``section``, ``needs``, ``runs``, ``why not`` (for a running section: what it left N/A).
        """
        ls = sorted(int(value) for value in l) if isinstance(l, Sequence) else [l]
        beyond = self._beyond_domain(ls)
        rows = []
        for section, needs in sections.items():
            needs = [needs] if isinstance(needs, str) else list(needs)
            reasons = [self.missing(need, l=ls[0] if ls else None, k=k, n_splits=n_splits) for need in needs]
            reasons = list(dict.fromkeys(reason for reason in reasons if reason))
            chose = beyond if "sensitive" in needs else ""
            rows.append(
                {
                    "section": section,
                    "needs": ", ".join(needs) or "nothing beyond a table",
                    "runs": not reasons,
                    "why not": "; ".join(reasons) or chose,
                }
            )
        return pd.DataFrame(rows, columns=["section", "needs", "runs", "why not"])

    def _beyond_domain(self, ls: Sequence[int | None]) -> str:
        """The line naming the l of ``ls`` above the sensitive domain (their rows are N/A), or ``""``."""
        above = [l for l in ls if l is not None and l > self.sensitive_values]
        if self.sensitive is None or self.items or not above or len(above) == len(ls):
            return ""
        return (
            f"l = {', '.join(map(str, above))} recorded N/A: {self.sensitive!r} has {self.sensitive_values} values"
            f" (ls up to {self.sensitive_values} run)"
        )


def _paper_name(source) -> str | None:
    from privnb.data import builtin_cards
    from privnb.data.cards import is_card

    if isinstance(source, str) and not is_card(source) and source in builtin_cards():
        return source
    return None


def data_support(source: str | os.PathLike, data=None) -> DataSupport:
    """What the data set ``source`` names offers; its hierarchies are those the loaded data set carries (its card
    is not read again).

    Parameters
    ----------
    source : str or path-like
        One of the papers' data set names or a card's path (a notebook's ``dataset`` parameter).
    data : Dataset or TokenCorpus, optional
        ``source`` loaded (loaded here when omitted).

    Returns
    -------
    DataSupport
    """
    from privnb.data import TokenCorpus, load

    data = load(source) if data is None else data
    paper = _paper_name(source)
    name = getattr(data, "name", None) or (paper or os.path.splitext(os.path.basename(str(source)))[0])
    if isinstance(data, TokenCorpus):
        return DataSupport(str(source), name, paper, items=True, n_rows=int(data.X.shape[0]))
    quasi_identifiers = tuple(data.quasi_identifiers)
    sensitive = data.sensitive
    values = int(data.frame[sensitive].nunique()) if sensitive is not None else 0
    return DataSupport(
        str(source),
        name,
        paper,
        sensitive=sensitive,
        sensitive_values=values,
        quasi_identifiers=quasi_identifiers,
        hierarchies={q: data.hierarchies[q] for q in quasi_identifiers if q in data.hierarchies},
        n_rows=len(data.frame),
    )
