"""PU1's vocabulary with and without the Subject line (Table 3 of FSAC counts 24604 tokens)."""

import os

import pytest

from privnb.data import load_pu1
from privnb.data.loaders import _drop_subject


def test_drop_subject_removes_only_a_leading_subject_line():
    assert _drop_subject("Subject: 5 7\n\n7 9\n").split() == ["7", "9"]
    assert _drop_subject("Subject:\n\n5\n").split() == ["5"]
    assert _drop_subject("3 4\nSubject: 1\n") == "3 4\nSubject: 1\n"  # no subject line first: unchanged


@pytest.mark.skipif("PRIVNB_DATA" not in os.environ, reason="needs pu1/pu1_encoded.tar.gz: set PRIVNB_DATA")
def test_body_only_bare_vocabulary_is_the_papers_count():
    body, full = load_pu1(subject=False), load_pu1()
    assert body.X.shape == (1099, 24604) and full.X.shape == (1099, 24748)  # Table 3: 24604
    assert set(body.tokens) < set(full.tokens)
    assert (body.y == full.y).all() and (body.folds == full.folds).all()
