"""Notebook 03's data sets (FSAC): each one's binary items with a label per row, and the itemset miners on them.

k-anonymity by containment (Definitions 3-6 of FSAC) works on binary items: a row holds a set of them,
and a published subset of features is k-AC when every row's items are contained in at least k rows. An
entry of the notebook's ``datasets`` is a papers' name or a data card (``privnb.data.load``):

- ``"adult"``: the paper's 19 binary features (:func:`privnb.data.binarize_adult`, Section 5.1);
- ``"pu1"``: the Email data set, token presence (Table 3);
- an item-matrix card: its 0/1 matrix as given (like PU1);
- a table card: :func:`privnb.data.binarize_table`, one binary per value of a nominal or ordinal column and one per
  equal-frequency interval of a numeric column (the paper does the same by hand for Adult).

:func:`selection_inputs` prepares them; :func:`selection_requirements` says what each section needs from each,
:func:`itemset_tables` runs the maximal-itemset miners (Lemma 3, Algorithm 1) on them and
:func:`privnb.experiments.feature_selection.dataset_statistics` gives their Table 3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.data import TokenCorpus, binarize_adult, binarize_table, load
from privnb.data.binarize import ADULT_BINS, ADULT_EDUCATION, ADULT_ONE_VS_REST
from privnb.experiments.data_support import DataSupport, data_support
from privnb.experiments.feature_selection.statistics import PAPER_DATA, frequent_columns, itemset_growth, time_miners
from privnb.experiments.papers import Section
from privnb.learn.largest_itemsets import largest_itemsets_stats

_EXPERIMENT = ("2. Data", "3. Maximal itemset miners", "4. Classification under the anonymity constraint")
SECTIONS = (
    Section(_EXPERIMENT, "k-AC selection on the item matrix as given", ("items",)),
    Section(_EXPERIMENT, "k-AC selection on a binarized table", ("table",)),
    Section(
        ("2. Data", "5. The paper's Tables 5-6 beside ours"),
        "the paper's Table 3, Tables 5-6 and claims",
        ("paper:adult|pu1",),
    ),
)
"""Notebook 03's sections by what they need (:meth:`DataSupport.requirements`): exactly one of the first two
runs for every data set."""


def adult_feature_definitions() -> pd.DataFrame:
    """What each of :func:`privnb.data.binarize_adult`'s 19 features holds (Section 5.1 of FSAC)."""
    rows = [(f"{a}={lo}-{hi}", a, f"{a} in {lo}..{hi}") for a, bins in ADULT_BINS.items() for lo, hi in bins]
    rows += [(f"education={name}", "education", ", ".join(values)) for name, values in ADULT_EDUCATION.items()]
    rows += [(f"{a}={name}", a, ", ".join(values)) for a, (name, values) in ADULT_ONE_VS_REST.items()]
    return pd.DataFrame(rows, columns=["feature", "column", "holds when"])


@dataclass(frozen=True, eq=False)
class SelectionInput:
    """One data set of notebook 03 as binary items (see the module docstring).

    ``X_all``, ``y_all``: every row (Table 3); ``X``, ``y``: the rows the experiment uses (Adult's sample);
    ``max_items``: Maximal's budget (None: every feature); ``definitions``: what each binary feature holds and
    the share of rows holding it (None for an item matrix); ``how``: one line saying how the items were made.

    Parameters
    ----------
    name : str
        The data set's name.
    support : DataSupport
        What the data set supports (its papers' name, items or table).
    X_all, y_all : matrix, array
        Every row and its label (Table 3).
    X, y : matrix, array
        The rows the experiment uses (Adult's sample).
    max_items : int or None
        Maximal's budget (None: every feature).
    definitions : DataFrame or None
        What each binary feature holds, and the share of rows holding it (None for an item matrix).
    how : str
        One line saying how the items were made.
    """

    name: str
    support: DataSupport
    X_all: object
    y_all: np.ndarray
    X: object
    y: np.ndarray
    max_items: int | None
    definitions: pd.DataFrame | None
    how: str

    @property
    def paper_data(self) -> bool:
        """Whether this is one of the paper's data sets, for which it reports numbers (Tables 3, 5 and 6)."""
        return self.support.paper in PAPER_DATA


def _input(entry, *, adult_rows, pu1_min_df, pu1_subject, maximal_max_items, table_bins, random_state):
    options = {"adult": {"version": "train", "drop_missing": False}, "pu1": {"subject": pu1_subject}}
    data = load(entry, **options.get(entry, {}))
    support = data_support(entry, data)
    name = support.name if support.paper or support.name not in PAPER_DATA else f"{support.name} (card)"
    budget = maximal_max_items or None
    if support.paper == "pu1":
        X = frequent_columns(data.X, pu1_min_df)
        how = f"token presence, tokens of at least {pu1_min_df} messages (Table 3 counts all)"
        return SelectionInput(name, support, data.X, data.y, X, data.y, budget, None, how)
    if isinstance(data, TokenCorpus):
        return SelectionInput(name, support, data.X, data.y, data.X, data.y, budget, None, "the card's item matrix")
    if support.paper == "adult":
        sample = data.sample(adult_rows, random_state=random_state) if adult_rows else data
        X_all, X = binarize_adult(data.frame), binarize_adult(sample.frame)
        how = f"the paper's 19 binary features; {len(sample.y)} of {len(data.y)} rows (stratified)"
        definitions = adult_feature_definitions().assign(**{"share of rows": X_all.mean(axis=0).to_numpy()})
        return SelectionInput(name, support, X_all, data.y, X, sample.y, None, definitions, how)
    binary, definitions = binarize_table(data, n_bins=table_bins)
    definitions = definitions.assign(**{"share of rows": binary.mean(axis=0).to_numpy()})
    how = f"one binary per nominal/ordinal value, {table_bins} equal-frequency intervals per numeric column"
    return SelectionInput(name, support, binary, data.y, binary, data.y, budget, definitions, how)


@shared_doc
def selection_inputs(
    datasets: Sequence,
    *,
    adult_rows: int = 0,
    pu1_min_df: int = 1,
    pu1_subject: bool = False,
    maximal_max_items: int = 0,
    table_bins: int = 4,
    random_state=None,
) -> dict[str, SelectionInput]:
    """Each entry of ``datasets`` (a papers' name or a card path) as binary items, by data set name.

    ``adult_rows`` (0: all) is the size of Adult's stratified sample, ``pu1_min_df`` and ``pu1_subject`` choose
    PU1's tokens (Table 3 of FSAC), ``maximal_max_items`` (0: all) is Maximal's budget on every data set but
    Adult, ``table_bins`` the intervals per numeric column of a table card. A card named like one of the
    paper's data sets gets " (card)" appended, so that its rows never meet the paper's numbers.

    Parameters
    ----------
    datasets : sequence of str
        Papers' names ("adult", "pu1") or data card paths.
    adult_rows : int
        Size of Adult's stratified sample (0: all rows).
    pu1_min_df : int
        PU1 keeps the tokens of at least this many messages.
    pu1_subject : bool
        Count the Subject line's tokens.
    maximal_max_items : int
        Maximal's budget on every data set but Adult (0: all).
    table_bins : int
        Intervals per numeric column of a table card.
    random_state : int, RandomState or None
        Draws Adult's sample.
        {random_state}

    Returns
    -------
    dict of str to SelectionInput
    """
    options = dict(
        adult_rows=adult_rows,
        pu1_min_df=pu1_min_df,
        pu1_subject=pu1_subject,
        maximal_max_items=maximal_max_items,
        table_bins=table_bins,
        random_state=random_state,
    )
    inputs = {}
    for entry in datasets:
        item = _input(entry, **options)
        if item.name in inputs:
            raise ValueError(f"two entries of datasets are named {item.name!r}; give each data set once")
        inputs[item.name] = item
    return inputs


def selection_requirements(inputs: Mapping[str, SelectionInput]) -> pd.DataFrame:
    """:data:`SECTIONS` against each data set (:meth:`DataSupport.requirements`), one block per data set.

    Parameters
    ----------
    inputs : mapping of str to SelectionInput
        The data sets.

    Returns
    -------
    DataFrame
    """
    needs = {section.title: list(section.needs) for section in SECTIONS}
    return pd.concat(
        {name: item.support.requirements(needs) for name, item in inputs.items()}, names=["dataset", None]
    ).droplevel(1)


def itemset_tables(
    inputs: Mapping[str, SelectionInput], ks: Sequence[int], *, k: int = 5, top: Sequence[int] = (10, 15, 20)
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """The maximal-itemset miners on each data set (Algorithm 1's first step, Lemma 3 of FSAC).

    A binarized table (few dense features) is mined whole at support ``k`` by pyfim and by mlxtend, timed; an
    item matrix (many sparse items) gets the number of maximal itemsets over its ``top`` features of highest
    HamDist, and for each of ``ks`` the size range of its 50 largest maximal itemsets (the exact search of
    :func:`privnb.learn.largest_itemsets`) with the rows that survive its pruning.

    Returns
    -------
    miners : DataFrame
        dataset, miner, maximal itemsets, seconds (binarized tables).
    items : DataFrame
        dataset, search ("top n items, support k" or "50 largest, support k"), maximal itemsets, itemset sizes,
        rows left (item matrices).
    metrics : dict
        ``<name>_miner_<miner>_s`` per binarized table.

    Parameters
    ----------
    inputs : mapping of str to SelectionInput
        The data sets.
    ks : sequence of int
        Supports of the 50-largest search.
    k : int
        Support of the miners and of the top-items count.
    top : sequence of int
        Numbers of top-HamDist items mined.
    """
    miners, items, metrics = [], [], {}
    for name, item in inputs.items():
        if not item.support.items:
            for miner, (found, seconds) in time_miners(item.X, k, ("pyfim", "mlxtend")).items():
                miners.append((name, miner, found, seconds))
                metrics[f"{name}_miner_{miner}_s"] = seconds
            continue
        for n, count in itemset_growth(item.X_all, item.y_all, top, k=k).items():
            items.append((name, f"top {n} items, support {k}", count, "", np.nan))
        for support in ks:
            found = largest_itemsets_stats(item.X, support, 50)
            sizes = f"{found['size_bound']}..{found['sizes'][0]}" if found["sizes"] else ""
            items.append((name, f"50 largest, support {support}", found["itemsets"], sizes, found["rows_left"]))
    return (
        pd.DataFrame(miners, columns=["dataset", "miner", "maximal itemsets", "seconds"]),
        pd.DataFrame(items, columns=["dataset", "search", "maximal itemsets", "itemset sizes", "rows left"]),
        metrics,
    )


def experiment_sizes(inputs: Mapping[str, SelectionInput], seconds: Mapping[str, float]) -> pd.DataFrame:
    """Rows and features each data set's experiment ran on (Section 5.2 of FSAC), and its wall seconds.

    Parameters
    ----------
    inputs : mapping of str to SelectionInput
        The data sets.
    seconds : mapping of str to float
        Wall seconds per data set.

    Returns
    -------
    DataFrame
    """
    return pd.DataFrame(
        [
            (name, item.X.shape[0], item.X.shape[1], item.max_items or "all", seconds.get(name))
            for name, item in inputs.items()
        ],
        columns=["dataset", "rows", "features", "Maximal over", "seconds"],
    ).set_index("dataset")
