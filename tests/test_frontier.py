"""Notebook 05's experiments on a data set that is none of the papers': result rows carry its name, and the
k-NN views learn from a generalized ordinal quasi-identifier."""

import pytest
from own_data import write_own_data

from privnb.data import load
from privnb.experiments import anatomy_and_k_anonymity, data_support, nbc_release_audit


@pytest.fixture(scope="module")
def ward(tmp_path_factory):
    card = write_own_data(tmp_path_factory.mktemp("own"))["table"]
    return load(card), data_support(card)


def test_nbc_release_audit_names_its_rows_after_the_data_set(ward):
    data, _ = ward
    frame = data.frame[["ward", "sex", "severity", data.target]]
    rows = nbc_release_audit(
        frame,
        ["ward", "sex", "severity"],
        class_column=data.target,
        dataset_name="ward",
        gammas=[2],
        epsilons=[1.0],
        max_size=1,
        random_state=0,
    )
    assert set(rows["dataset"]) == {"ward"} and set(rows["metric"]) == {"error", "r_closeness"}


def test_generalized_views_learn_from_a_generalized_ordinal_quasi_identifier(ward):
    data, support = ward  # severity is ordinal; its generalized labels (low-medium, *) lie outside its order
    rows = anatomy_and_k_anonymity(
        data,
        ls=[2],
        k_anonymity=[10],
        hierarchies=support.generalization_hierarchies,
        n_splits=3,
        folds=[0],
        n_iter=2,
        random_state=0,
    )
    errors = rows[rows["metric"] == "error"].set_index("method")["value"]
    assert {"generalized", "mondrian"} <= set(errors.index) and errors.between(0, 1).all()
