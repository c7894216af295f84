"""privnb.experiments.feature_selection (inputs): notebook 03's data sets as binary items (FSAC), on small tables and on
the synthetic own-data cards.
"""

import numpy as np
import pandas as pd
import pytest
from own_data import write_own_data

from privnb.data import Dataset, binarize_table
from privnb.experiments.feature_selection import (
    dataset_statistics,
    experiment_sizes,
    itemset_tables,
    selection_inputs,
    selection_requirements,
)
from privnb.experiments.feature_selection.inputs import SECTIONS, adult_feature_definitions
from privnb.mechanisms import dataset_ac


def _table():
    frame = pd.DataFrame(
        {
            "age": [20.0, 30.0, np.nan, 40.0, 50.0, 60.0],
            "sex": ["F", "M", "F", None, "F", "M"],
            "level": ["high", "low", "low", "mid", "high", "low"],
            "y": [0, 1, 0, 1, 1, 0],
        }
    )
    kinds = {"age": "numeric", "sex": "nominal", "level": "ordinal"}
    return Dataset("toy", frame, ("age", "sex", "level"), None, "y", kinds, {"level": ("low", "mid", "high")})


def test_binarize_table_one_binary_per_value_and_per_interval():
    binary, definitions = binarize_table(_table(), n_bins=2)
    # age: quantiles 20, 40, 60 -> [20, 40] and (40, 60]; sex in sorted order; level in domain order
    expected = ["age=[20, 40]", "age=(40, 60]", "sex=F", "sex=M", "level=low", "level=mid", "level=high"]
    assert binary.columns.tolist() == expected == definitions["feature"].tolist()
    assert binary["age=[20, 40]"].tolist() == [1, 1, 0, 1, 0, 0] and binary["age=(40, 60]"].tolist() == [0] * 4 + [1, 1]
    assert binary.loc[2, ["age=[20, 40]", "age=(40, 60]"]].sum() == 0  # a missing cell sets none of its binaries
    assert binary.loc[3, ["sex=F", "sex=M"]].sum() == 0
    assert (binary[["level=low", "level=mid", "level=high"]].sum(axis=1) == 1).all()
    assert binary.dtypes.eq(np.int8).all() and set(np.unique(binary)) <= {0, 1}
    assert definitions.set_index("feature").loc["age=(40, 60]", "holds when"] == "age in (40, 60]"
    assert definitions["column"].tolist() == ["age"] * 2 + ["sex"] * 2 + ["level"] * 3


def test_binarize_table_constant_numeric_column_and_bad_bins():
    data = _table()
    frame = data.frame.assign(age=7.0)
    same = Dataset("toy", frame, data.quasi_identifiers, None, "y", data.kinds, data.orders)
    binary, _ = binarize_table(same, n_bins=4)
    assert binary["age=[7, 7]"].tolist() == [1] * 6  # one interval holds every row
    with pytest.raises(ValueError, match="n_bins"):
        binarize_table(data, n_bins=0)


def test_adult_feature_definitions_name_the_19_features():
    definitions = adult_feature_definitions()
    assert len(definitions) == 19 and definitions["feature"].is_unique
    assert definitions.set_index("feature").loc["race=white", "holds when"] == "White"


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    return write_own_data(tmp_path_factory.mktemp("own"))


def test_selection_inputs_of_own_cards(cards):
    inputs = selection_inputs([str(cards["items"]), str(cards["table"])], maximal_max_items=8, table_bins=3)
    assert list(inputs) == ["baskets", "ward"]
    baskets, ward = inputs["baskets"], inputs["ward"]
    assert baskets.X.shape == (600, 24) and baskets.definitions is None and baskets.max_items == 8
    assert ward.X.shape == (591, 3 + 4 + 2 + 3 + 6) and ward.y.sum() == ward.y_all.sum()
    assert ward.definitions["share of rows"].between(0, 1).all() and not ward.paper_data
    requirements = selection_requirements(inputs)
    assert requirements.index.tolist() == ["baskets"] * len(SECTIONS) + ["ward"] * len(SECTIONS)
    assert requirements["runs"].tolist() == [True, False, False, False, True, False]
    stats, metrics = dataset_statistics(inputs)
    assert stats.index.tolist() == ["baskets", "ward"] and metrics["ward_ac_all_features"] == dataset_ac(ward.X)
    miners, items, miner_metrics = itemset_tables(inputs, [5])
    assert miners["dataset"].unique().tolist() == ["ward"] and miners["maximal itemsets"].nunique() == 1
    assert set(miner_metrics) == {"ward_miner_pyfim_s", "ward_miner_mlxtend_s"}
    assert items["dataset"].unique().tolist() == ["baskets"] and len(items) == 3 + 1
    sizes = experiment_sizes(inputs, {"baskets": 1.5, "ward": 2.0})
    assert sizes.loc["ward", ["rows", "features", "seconds"]].tolist() == [591, 18, 2.0]


def test_selection_inputs_keep_a_card_apart_from_the_paper_and_refuse_twins(cards, tmp_path):
    twin = tmp_path / "adult.yaml"
    twin.write_text(cards["items"].read_text().replace("name: baskets", "name: adult"))
    (tmp_path / "baskets.csv").write_text((cards["items"].parent / "baskets.csv").read_text())
    inputs = selection_inputs([str(twin)])
    assert list(inputs) == ["adult (card)"] and not inputs["adult (card)"].paper_data
    with pytest.raises(ValueError, match="two entries"):
        selection_inputs([str(cards["items"]), str(cards["items"])])
