"""One face for every paper (and the tour): its sections and what each needs, ``run`` over one fold plan,
``tables``, ``claims``, ``metrics`` and its headline keys, listed in one registry, :data:`PAPERS`.

A paper subpackage builds one :class:`PaperFace` (in its ``face.py``) and registers it; ``privnb data check``
(:mod:`.card_check`), the needs tables (:mod:`.notebook_needs`) and the section plans (:mod:`.section_plans`)
read the registry instead of naming notebooks. A new paper is one subpackage and :func:`register_paper`: no
shared module is edited. ``tests/experiments/test_paper_faces.py`` checks every face in the registry (the
names present and callable, its sections against the notebook's headings, its headline against its metrics).
"""

from __future__ import annotations

import fnmatch
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from privnb._docstrings import shared_doc

__all__ = ["MC_DATA", "NOTEBOOKS", "PAPERS", "FoldPlan", "PaperFace", "Section", "register_paper", "section_numbers"]

_BUILTIN = {
    "00_tour": "privnb.experiments.tour",
    "01_svm_l_diversity": "privnb.experiments.svm_l_diversity.face",
    "02_knn_l_diversity": "privnb.experiments.knn_l_diversity.face",
    "03_feature_selection_k_ac": "privnb.experiments.feature_selection.face",
    "04_nbc_publishing": "privnb.experiments.nbc_publishing.face",
    "05_privacy_utility": "privnb.experiments.privacy_frontier.face",
}
NOTEBOOKS = tuple(_BUILTIN)
"""The notebooks privnb ships, by file name without ``.ipynb``: one face each in :data:`PAPERS`."""
MC_DATA = "paper:adult|bank|fars|ipums"
"""The need of a section that reads MC16's or MC17's reported numbers: one of their data sets."""


def section_numbers(headings: Sequence[str]) -> str:
    """The leading numbers of ``headings`` as a section label: ``["1. A", "2. B", "4. C"]`` -> ``"1-2, 4"``.

    A heading's number is what precedes its first ``". "`` (``"3b"`` stays as it is); runs of consecutive
    integers are joined by a dash.
    """
    numbers = [heading.split(". ", 1)[0] for heading in headings]
    if not all(number.isdigit() for number in numbers):
        return ", ".join(dict.fromkeys(numbers))
    values = sorted({int(number) for number in numbers})
    runs, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[i - 1] + 1:
            runs.append(str(values[start]) if i - 1 == start else f"{values[start]}-{values[i - 1]}")
            start = i
    return ", ".join(runs)


@dataclass(frozen=True)
class Section:
    """One row of a notebook's table of needs: the sections it covers and what it needs from a data set.

    Attributes
    ----------
    headings : tuple of str
        The start of each notebook heading (``## 6. k-anonymity by containment ...``, without ``## ``) the row
        covers; the face test checks each against the notebook, so that a renumbered or renamed section shows.
    what : str
        What those sections do with the data.
    needs : tuple of str
        The needs (:data:`privnb.experiments.data_support.NEEDS`, or a line where the face checks its own).
    """

    headings: tuple[str, ...]
    what: str
    needs: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The row's label: the sections' numbers, then what they do (``"6. containment linkage"``)."""
        return self.titled(self.what)

    def titled(self, what: str) -> str:
        """The label of these sections with another text (a planned row that names its parameters)."""
        return f"{section_numbers(self.headings)}. {what}"


@shared_doc
@dataclass(frozen=True)
class FoldPlan:
    """The folds a run covers, the same for every paper (:func:`privnb.experiments.run_folds`'s arguments).

    Attributes
    ----------
    n_splits : int
        Stratified folds (the papers: 10).
    random_state : int, RandomState or None
        Seeds the folds and one seed per fold.
        {random_state}
    folds : sequence of int, optional
        The fold indices to run (default all).
    """

    n_splits: int = 10
    random_state: object = None
    folds: Sequence[int] | None = None

    @property
    def arguments(self) -> dict:
        """The plan as the runners' keyword arguments."""
        return {"n_splits": self.n_splits, "random_state": self.random_state, "folds": self.folds}


@dataclass(frozen=True)
class PaperFace:
    """What a paper's experiments offer, under the same names for every paper.

    Attributes
    ----------
    name : str
        The paper's key (``"MC16"``), or what the notebook is (``"tour"``).
    notebook : str
        The notebook's file name without ``.ipynb``: the registry's key (a paper without a notebook: any name).
    sections : callable
        ``sections(**options) -> tuple of Section``, the rows of the notebook's table of needs (options such
        as ``items`` or ``anonymity_ks`` shape them; every option has a default).
    run : callable
        ``run(data, plan: FoldPlan, **parameters) -> DataFrame``, the paper's experiment as tidy rows
        (:data:`privnb.experiments.COLUMNS`).
    tables : callable
        ``tables(results, **parameters) -> dict`` of name -> DataFrame, the tables the notebook shows.
    claims : callable
        ``claims(results, dataset, **parameters) -> DataFrame`` in :data:`privnb.experiments.CLAIM_COLUMNS`
        (empty where ``dataset`` is not one of the paper's).
    metrics : callable
        ``metrics(results, claims=None, **parameters) -> dict``, the numbers ``metrics.json`` holds.
    headline : tuple of str
        Key patterns (shell-style) of the headline numbers among ``metrics``, in the report's order.
    planned : tuple of Section
        Sections the plan adds after the needs table (an audit, a linkage) whose titles it words itself.
    requirements : callable, optional
        ``requirements(support, data, l=...) -> DataFrame``, the needs table ``privnb data check`` shows
        without a notebook's parameters (default: :attr:`sections` against the support, :meth:`needs_table`).
    plan : callable, optional
        ``plan(support, data, parameters) -> list of dict``, the rows of
        :func:`~privnb.experiments.notebook_plan` with the notebook's parameters (default: the needs table).
    """

    name: str
    notebook: str
    sections: Callable[..., tuple[Section, ...]]
    run: Callable[..., pd.DataFrame]
    tables: Callable[..., dict]
    claims: Callable[..., pd.DataFrame]
    metrics: Callable[..., dict]
    headline: tuple[str, ...]
    planned: tuple[Section, ...] = ()
    requirements: Callable[..., pd.DataFrame] | None = field(default=None, repr=False)
    plan: Callable[..., list] | None = field(default=None, repr=False)

    def needs(self, **options) -> dict[str, list[str]]:
        """Section title -> needs (:meth:`DataSupport.requirements`'s argument)."""
        return {section.title: list(section.needs) for section in self.sections(**options)}

    def needs_table(self, support, data, *, l: int = 2) -> pd.DataFrame:
        """What the sections need from ``data`` and whether they run at ``l`` (``privnb data check``'s table).

        Parameters
        ----------
        support : DataSupport
            What ``data`` offers.
        data : Dataset or TokenCorpus
            The data set.
        l : int
            The l of anatomy the sections are checked for.

        Returns
        -------
        DataFrame
            Columns section, needs, runs, why not.
        """
        if self.requirements is not None:
            return self.requirements(support, data, l=l)
        return support.requirements(self.needs(items=support.items), l=l)

    def plan_rows(self, support, data, parameters: Mapping) -> list[dict]:
        """The sections with the notebook's ``parameters``: section, needs, runs, why not (or what it chose).

        Parameters
        ----------
        support : DataSupport
            What ``data`` offers.
        data : Dataset or TokenCorpus
            The data set.
        parameters : mapping
            The notebook's parameters (its parameters cell's values).

        Returns
        -------
        list of dict
        """
        if self.plan is not None:
            return self.plan(support, data, parameters)
        return support.requirements(self.needs(items=support.items)).to_dict("records")

    def headline_keys(self, metrics: Mapping) -> list[str]:
        """The keys of ``metrics`` matching :attr:`headline`, pattern by pattern, each once."""
        keys: list[str] = []
        for pattern in self.headline:
            keys += [key for key in metrics if fnmatch.fnmatchcase(str(key), pattern) and key not in keys]
        return keys


class _Registry(Mapping):
    """Notebook name -> :class:`PaperFace`; the built-in faces are imported when the registry is first read."""

    def __init__(self) -> None:
        self._faces: dict[str, PaperFace] = {}
        self._loaded = False

    def _load(self) -> dict[str, PaperFace]:
        if not self._loaded:
            self._loaded = True  # before the imports: a face module that reads the registry sees what is there
            try:
                for notebook, module in _BUILTIN.items():
                    self._faces.setdefault(notebook, importlib.import_module(module).FACE)
            except BaseException:
                self._loaded = False
                raise
        return self._faces

    def __getitem__(self, notebook: str) -> PaperFace:
        faces = self._load()
        if notebook not in faces:
            raise KeyError(
                f"no paper face for {notebook!r}; the registered ones are {sorted(faces)} (register_paper adds one)"
            )
        return faces[notebook]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def register(self, face: PaperFace) -> PaperFace:
        if not isinstance(face, PaperFace):
            raise TypeError(f"register_paper takes a PaperFace, got {type(face).__name__}")
        if not re.fullmatch(r"[\w.-]+", face.notebook):
            raise ValueError(f"a face's notebook is a file name without .ipynb, got {face.notebook!r}")
        self._load()[face.notebook] = face
        return face

    def unregister(self, notebook: str) -> None:
        if notebook in _BUILTIN:
            raise ValueError(f"{notebook!r} is a built-in paper; only a face added by register_paper can be removed")
        self._load().pop(notebook, None)


PAPERS = _Registry()
"""Notebook name -> :class:`PaperFace`, every paper privnb knows (``register_paper`` adds one)."""


def register_paper(face: PaperFace) -> PaperFace:
    """Add ``face`` to :data:`PAPERS` under its notebook name (replacing a face of that name), and return it.

    Parameters
    ----------
    face : PaperFace
        The paper's face.

    Returns
    -------
    PaperFace
    """
    return PAPERS.register(face)
