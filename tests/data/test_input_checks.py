"""Checkers and constructors refuse bad input with a ValueError naming the argument, never a pass."""

import math
import sys

import numpy as np
import pandas as pd
import pytest

from privnb.bounds.amplification import check_gamma, corollary4_ratio, lemma2_ratio_value
from privnb.mechanisms import is_k_anonymous, is_l_diverse
from privnb.mechanisms.anatomy import bucketize
from privnb.nbc.views import NBCViews


@pytest.mark.parametrize(
    "frame, message",
    [
        (pd.DataFrame({"gid": [0] * 6, "s": ["a", "b", np.nan, np.nan, np.nan, np.nan]}), "'s' has missing"),
        (pd.DataFrame({"gid": [0, 0, np.nan, np.nan], "s": ["a", "b", "a", "a"]}), "'gid' has missing"),
        (pd.DataFrame({"gid": [0, 0, None, None], "s": ["a", "b", "a", "a"]}, dtype=object), "'gid' has missing"),
    ],
)
def test_is_l_diverse_never_passes_missing_values(frame, message):
    with pytest.raises(ValueError, match=message):
        is_l_diverse(frame, "s", 2)


def test_is_l_diverse_refuses_duplicated_columns():
    frame = pd.DataFrame([[0, "a", "a"], [0, "b", "b"]], columns=["gid", "s", "s"])
    with pytest.raises(ValueError, match=r"frame.*duplicated.*'s'"):
        is_l_diverse(frame, "s", 2)


@pytest.mark.parametrize("l", [0, -1, 1.5, True])
def test_bucketize_checks_l(l):
    with pytest.raises(ValueError, match=r"l must be"):
        bucketize([3, 2], l)


@pytest.mark.parametrize("counts", [[3, -1], [[1, 2]], [1.5, 2]])
def test_bucketize_checks_counts(counts):
    with pytest.raises(ValueError, match=r"counts"):
        bucketize(counts, 2)


def test_is_k_anonymous_refuses_duplicated_columns():
    frame = pd.DataFrame([[1, 1, 2], [1, 1, 2]], columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"frame.*duplicated.*'a'"):
        is_k_anonymous(frame, ["a"], 2)


def test_is_k_anonymous_refuses_none_and_repeats_in_quasi_identifiers():
    frame = pd.DataFrame({None: [1, 1], "a": [1, 1]})
    with pytest.raises(ValueError, match=r"quasi_identifiers.*None"):
        is_k_anonymous(frame, ["a", None], 2)
    with pytest.raises(ValueError, match=r"quasi_identifiers.*'a' more than once"):
        is_k_anonymous(frame, ["a", "a"], 2)


def test_is_k_anonymous_refuses_missing_quasi_identifier_values():
    frame = pd.DataFrame({"a": [None, None, "x", "x"], "b": [1, 1, 1, 1]})
    with pytest.raises(ValueError, match=r"frame.*'a' has missing"):
        is_k_anonymous(frame, ["a", "b"], 2)


def test_an_empty_frame_is_refused_by_name():
    with pytest.raises(ValueError, match=r"frame has no columns"):
        is_k_anonymous(pd.DataFrame(), ["a"], 2)
    with pytest.raises(ValueError, match=r"frame has no columns"):
        is_l_diverse(pd.DataFrame(), "s", 2)


@pytest.mark.parametrize(
    "gamma", [math.inf, 1 + sys.float_info.epsilon, (0.1 + 0.2) / 0.3, np.float64(1.0) + 2e-16, 1.0, math.nan, "2"]
)
def test_check_gamma_refuses_infinity_and_one_within_float_precision(gamma):
    with pytest.raises(ValueError, match=r"gamma"):
        check_gamma(gamma)
    with pytest.raises(ValueError, match=r"gamma"):
        lemma2_ratio_value(gamma, 2)
    with pytest.raises(ValueError, match=r"gamma"):
        corollary4_ratio(gamma, 3)


def test_check_gamma_accepts_real_amplifications():
    from fractions import Fraction

    for gamma in (1.0001, 2, Fraction(1_000_000_001, 1_000_000_000), np.float64(1.5)):
        check_gamma(gamma)


def test_nbc_views_refuse_duplicated_columns_and_none_attributes():
    frame = pd.DataFrame([[1, "a", 0], [2, "b", 1]], columns=["q", "q", "y"])
    with pytest.raises(ValueError, match=r"frame.*duplicated.*'q'"):
        NBCViews.from_frame(frame, ["q"], "y")
    with pytest.raises(ValueError, match=r"attributes.*None"):
        NBCViews.from_frame(pd.DataFrame({None: [1, 2], "q": [1, 2], "y": [0, 1]}), ["q", None], "y")
    with pytest.raises(ValueError, match=r"attributes.*'q' more than once"):
        NBCViews.from_frame(pd.DataFrame({"q": [1, 2], "y": [0, 1]}), ["q", "q"], "y")
