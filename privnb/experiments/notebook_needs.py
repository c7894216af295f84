"""What each notebook's sections need from a data set, in one place: the notebooks open with the table of
:meth:`DataSupport.requirements` over these needs, and ``privnb data check`` shows the same tables for a card
(:func:`notebook_requirements`). The needs are those of :mod:`privnb.experiments.data_support`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from privnb.experiments.data_support import DataSupport
from privnb.experiments.nbc_data import nbc_data, requirements_table

NOTEBOOKS = (
    "00_tour",
    "01_svm_l_diversity",
    "02_knn_l_diversity",
    "03_feature_selection_k_ac",
    "04_nbc_publishing",
    "05_privacy_utility",
)
PAPERS = "paper:adult|bank|fars|ipums"


def section_needs(notebook: str, *, items: bool = False, anonymity_ks: Sequence[int] = (2,)) -> dict[str, list]:
    """The needs of each section of ``notebook`` (00, 01, 02, 03 and 05; ``"rows"``: the section's k must fit the
    rows of a training fold, checked with the notebook's k and n_splits; 04's come with its NBC data,
    :func:`privnb.experiments.nbc_data.requirements_table`).

    Parameters
    ----------
    notebook : str
        The notebook's file name without ``.ipynb`` (``"00_tour"``, ...).
    items : bool
        Whether the data set is a binary item matrix (notebook 05's containment linkage then takes it as given).
    anonymity_ks : sequence of int
        Notebook 02's k of the anonymized 1-NN; empty: that section is not run.

    Returns
    -------
    dict
        Section title -> list of needs.
    """
    if notebook == "00_tour":
        return {
            "2, 4. anatomy of the sample; the identifying and anatomized views": ["sensitive"],
            "3-5. full-domain k-anonymity": ["hierarchies", "rows"],
            "2-5. anything on the data (Mondrian, the original view, the explorer's k)": ["table", "rows"],
        }
    if notebook == "01_svm_l_diversity":
        return {
            "4-5. pruned SVC/SVM (anatomy), Theorem 4.1": ["sensitive"],
            "4. generalized views (k-anonymity)": ["hierarchies", "rows"],
            "6. the paper's claims": [PAPERS],
            "7. input spaces, ordinal centring": ["sensitive"],
        }
    if notebook == "02_knn_l_diversity":
        anonymized = {f"3. anonymized 1-NN, k in {list(anonymity_ks)}": ["sensitive", "hierarchies", "rows"]}
        return {
            "1-2. toy example, theory, Theorem 17 (synthetic)": [],
            "3-5. original, identifying and anatomized k-NN; convergence; t-tests": ["sensitive"],
            **(anonymized if anonymity_ks else {}),
            "6. the paper's claims and t-test tables": ["sensitive", PAPERS],
        }
    if notebook == "03_feature_selection_k_ac":  # exactly one of the first two runs for every data set
        return {
            "k-AC selection on the item matrix as given": ["items"],
            "k-AC selection on a binarized table": ["table"],
            "Tables 3, 5-6 and the claims against the paper": ["paper:adult|pu1"],
        }
    if notebook == "05_privacy_utility":
        return {
            "1-2, 4-5. the common adversary, anatomy's attacks, utility, like for like": ["sensitive"],
            "3. full-domain k-anonymity": ["sensitive", "hierarchies", "rows"],
            "3. Mondrian and MDAV k-anonymity": ["sensitive", "rows"],
            "6. containment linkage (an item matrix, or a table binarized as in notebook 03)": [
                "items" if items else "table"
            ],
            "7. published NBC views (discrete attributes)": ["table"],
        }
    raise ValueError(f"no section needs for notebook {notebook!r}; choose one of 00_tour, 01, 02, 03 or 05's names")


def notebook_requirements(support: DataSupport, data, *, l: int = 2) -> pd.DataFrame:
    """Every notebook's table of what its sections need and whether ``data`` has it, one block per notebook.

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
    tables = {}
    for notebook in NOTEBOOKS:
        if notebook == "04_nbc_publishing":
            tables[notebook] = requirements_table(support, nbc_data(support, data, ()))
        else:
            tables[notebook] = support.requirements(section_needs(notebook, items=support.items), l=l)
    return pd.concat(tables, names=["notebook", None]).reset_index(level=0).reset_index(drop=True)
