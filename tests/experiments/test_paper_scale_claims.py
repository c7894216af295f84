"""The papers' claims judged on results at the paper's scale: every "differ" row carries its reason, of a named
kind, specific to the data set and computed from the rows.

``paper_scale/knn_<data set>.parquet`` are the tidy results of notebook 02's paper sweep
(``notebooks/sweeps/02_knn_l_diversity.paper.yaml``: every row, 10 folds, k 1..9, l 2..5, the anonymized 1-NN
and the convergence experiment), kept as the sweep wrote them.
"""

from pathlib import Path

import pandas as pd
import pytest

from privnb.experiments.claims import count_verdicts, reason_counts, unexplained
from privnb.experiments.knn_l_diversity import knn_claims

STORED = Path(__file__).parent / "paper_scale"


def _claims(dataset_name):
    return knn_claims(pd.read_parquet(STORED / f"knn_{dataset_name}.parquet"), dataset_name)


def _paired(claims):
    return claims[claims["reading"].isin(["", "paired t-test"])]


@pytest.mark.parametrize(
    "dataset_name, agree, claims, kinds",
    [
        ("adult", 17, 27, {"differ: ambiguous": 1, "differ: data": 1, "differ: noise": 8}),
        ("bank", 17, 25, {"differ: ambiguous": 7, "differ: noise": 1}),
    ],
)
def test_knn_claims_at_the_papers_scale_each_carry_a_reason(dataset_name, agree, claims, kinds):
    table = _claims(dataset_name)
    assert unexplained(table).empty  # no fallback: every differing claim names its own reason
    paired = _paired(table)
    assert len(paired) == claims and count_verdicts(paired)["agree"].sum() == agree
    assert reason_counts(paired).loc[dataset_name].drop("agree").to_dict() == kinds


def test_knn_reasons_at_the_papers_scale_say_what_differs_and_how_big_the_noise_is():
    adult = _claims("adult").set_index(["claim", "reading"])
    anonymized = adult.loc[("anatomized 1-NN beats the anonymized 1-NN (k = l)", "")]
    assert anonymized["reason"] == "data" and "Inan et al.'s hierarchies" in anonymized["why"]
    assert "(L=2) +0.94; standard error of one run 0.19 points (45222 rows)" in anonymized["evidence"]
    cell = adult.loc[("3-NN, Org. vs L=3", "paired t-test")]  # the paper's P, privnb's F by 0.08 points
    assert cell["reason"] == "noise" and cell["why"].startswith("the difference is within two standard errors")
    assert "difference -0.08 points, standard error of one run 0.18 points (45222 rows)" in cell["evidence"]
    split = adult.loc[("7-NN, Org. vs L=2", "paired t-test")]  # paired P, unpaired F: the paper's F
    assert split["reason"] == "ambiguous" and "p = 0.00606 paired, 0.0856 unpaired" in split["evidence"]
    bank = _claims("bank").set_index(["claim", "reading"])
    clear = bank.loc[("7-NN, Org. vs L=4", "paired t-test")]  # both readings P, the paper's F
    assert clear["reason"] == "ambiguous" and "equal-frequency bins" in clear["why"]
    assert "difference -0.81 points, standard error of one run 0.22 points (39922 rows)" in clear["evidence"]
