"""What a notebook section needs from a data set (privnb.experiments.data_support), on the papers' data and cards."""

import numpy as np
import pytest
from own_data import write_own_data
from sklearn.model_selection import StratifiedKFold

from privnb.experiments import DataSupport, DataUnsupportedError, data_support


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    return write_own_data(tmp_path_factory.mktemp("own"))


def test_a_table_card_with_hierarchies_supports_anatomy_and_generalization(cards):
    support = data_support(cards["table"])
    assert (support.name, support.paper, support.sensitive, support.sensitive_values) == ("ward", None, "diagnosis", 6)
    assert support.missing("sensitive", l=6) == "" and "l = 7 needs at least 7" in support.missing("sensitive", l=7)
    assert set(support.generalization_hierarchies) == {"age", "ward", "sex", "severity"}
    assert "binary item matrix" in support.missing("items") and "paper's numbers" in support.missing("paper:adult")


def test_requirements_say_which_sections_run_and_why_not(cards):
    table = data_support(cards["items"]).requirements(
        {"anatomy": ["sensitive"], "k-AC": "items", "claims": ["paper:pu1"], "both": ["sensitive", "table"]}, l=3
    )
    assert table["runs"].tolist() == [False, True, False, False]
    assert table.loc[0, "why not"] == "'baskets' is a binary item matrix; this needs a table card (file:, roles:)"
    assert table.loc[3, "why not"].count("binary item matrix") == 1  # one reason said once


def test_missing_hierarchies_are_named_and_require_raises_a_clear_error(cards, tmp_path):
    import yaml

    raw = yaml.safe_load(cards["table"].read_text())
    raw["hierarchies"] = {"age": raw["hierarchies"]["age"]}
    card = cards["table"].with_name("ward_no_hierarchies.yaml")
    card.write_text(yaml.safe_dump(raw))
    support = data_support(card)
    assert support.generalization_hierarchies is None
    assert support.missing("hierarchies").startswith("no generalization hierarchy for ward, sex, severity;")
    with pytest.raises(DataUnsupportedError, match=r"k-AC cannot run on .*ward_no_hierarchies.yaml: 'ward' is a table"):
        support.require("items", what="k-AC")
    with pytest.raises(ValueError, match="unknown need 'rowz'"):
        support.missing("rowz")


def test_the_papers_data_sets_are_recognised_by_name():
    from privnb.data import DataUnavailableError

    try:
        support = data_support("fars")
    except DataUnavailableError:
        pytest.skip("FARS is not available here")
    assert support.paper == "fars" and support.missing("paper:adult|bank|fars") == ""
    assert "4 value(s); l = 5" in support.missing("sensitive", l=5)  # Fatality has no l = 5 (MC16, Table 1)
    assert support.generalization_hierarchies is None  # the papers give hierarchies for Adult only


def test_a_k_above_the_rows_is_a_reason_to_skip_like_an_l_above_the_domain(cards):
    support = data_support(cards["table"])
    n = support.n_rows
    assert n > 10 and support.missing("rows", k=n) == ""
    assert support.missing("rows", k=n + 1).startswith(f"k = {n + 1} needs at least {n + 1} rows and it has {n} ")
    fold = n - -(-n // 3)
    assert support.missing("rows", k=fold, n_splits=3) == ""
    assert "the smallest training fold of 3-fold cross-validation has" in support.missing(
        "rows", k=fold + 1, n_splits=3
    )
    table = support.requirements({"full-domain": ["hierarchies", "rows"], "anatomy": ["sensitive"]}, k=n + 1)
    assert table["runs"].tolist() == [False, True] and "lower k" in table.loc[0, "why not"]
    assert support.for_rows(10).missing("rows", k=11) and not support.for_rows(10).missing("rows", k=10)
    with pytest.raises(DataUnsupportedError, match=r"k-anonymity cannot run on .*: k = 999 needs at least 999 rows"):
        support.require("rows", k=999, what="k-anonymity")
    items = data_support(cards["items"])
    assert items.missing("rows", k=items.n_rows) == "" and items.missing("rows", k=items.n_rows + 1)


@pytest.mark.parametrize("n_splits", [2, 3, 5, 10])
def test_the_smallest_training_fold_is_what_stratified_folds_give(n_splits):
    for n in range(n_splits, 60):
        y = (np.arange(n) % 3 == 0).astype(int)
        if np.bincount(y).min() < n_splits:
            continue
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=0).split(np.zeros(n), y)
        smallest = min(len(train) for train, _ in folds)
        rows = DataSupport("x", "x", None, n_rows=n)
        assert rows.missing("rows", k=smallest, n_splits=n_splits) == ""
        assert rows.missing("rows", k=smallest + 1, n_splits=n_splits) != ""


def test_a_notebooks_ls_run_up_to_the_sensitive_domain_and_name_the_rest_na():
    support = DataSupport("x", "x", None, sensitive="insurance", sensitive_values=4, n_rows=100)
    sections = {"anatomy": ["sensitive"], "table": ["table"]}
    table = support.requirements(sections, l=[5, 2, 3, 4])
    assert table["runs"].tolist() == [True, True]
    assert table.loc[0, "why not"] == "l = 5 recorded N/A: 'insurance' has 4 values (ls up to 4 run)"
    assert table.loc[1, "why not"] == ""  # a section without anatomy has no l to leave out
    assert support.requirements(sections, l=[2, 4])["why not"].tolist() == ["", ""]
    beyond = support.requirements(sections, l=[5, 6])
    assert beyond["runs"].tolist() == [False, True] and beyond.loc[0, "why not"].startswith("'insurance' has 4 value")
    assert support.requirements(sections, l=5).equals(beyond)  # an int l is the one-element ls
