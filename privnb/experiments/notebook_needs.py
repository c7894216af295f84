"""What each notebook's sections need from a data set, read from the paper faces (:data:`PAPERS`): the notebooks
open with the table of :meth:`DataSupport.requirements` over these needs, and ``privnb data check`` shows the
same tables for a card (:func:`notebook_requirements`). The needs are those of
:mod:`privnb.experiments.data_support`.
"""

from __future__ import annotations

import pandas as pd

from privnb.experiments.data_support import DataSupport
from privnb.experiments.papers import PAPERS

__all__ = ["notebook_requirements", "section_needs"]


def section_needs(notebook: str, **options) -> dict[str, list]:
    """The needs of each section of ``notebook``, as its face declares them (:meth:`PaperFace.needs`).

    Parameters
    ----------
    notebook : str
        The notebook's file name without ``.ipynb`` (``"00_tour"``, ...): a key of :data:`PAPERS`.
    **options
        What shapes the sections: ``items`` (notebook 05: whether the data set is a binary item matrix, which
        its containment linkage then takes as given), ``anonymity_ks`` (notebook 02: the k of the anonymized
        1-NN; empty, that section is not run).

    Returns
    -------
    dict
        Section title -> list of needs (``"rows"``: the section's k must fit the rows of a training fold).

    Raises
    ------
    KeyError
        No face is registered for ``notebook`` (the message lists those that are).
    """
    return PAPERS[notebook].needs(**options)


def notebook_requirements(support: DataSupport, data, *, l: int = 2) -> pd.DataFrame:
    """Every registered notebook's table of what its sections need and whether ``data`` has it, one block each.

    Parameters
    ----------
    support : DataSupport
        What the data set offers (:func:`privnb.experiments.data_support`).
    data : Dataset or TokenCorpus
        The data set itself (notebook 04 looks at its attributes).
    l : int
        The l of anatomy the sections are checked for.

    Returns
    -------
    pandas.DataFrame
        Columns notebook, section, needs, runs, why not.
    """
    tables = {notebook: face.needs_table(support, data, l=l) for notebook, face in PAPERS.items()}
    return pd.concat(tables, names=["notebook", None]).reset_index(level=0).reset_index(drop=True)
