"""Issue 31: `privnb data check` shows the input's risk on its quasi-identifiers before anything is released
(sdcMicro's and ARX's summaries): sample uniques and the smallest class, checked by brute force."""

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb.data import Dataset
from privnb.experiments.card_check import input_risk


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from("ab")), min_size=1, max_size=30))
def test_sample_uniques_and_the_smallest_class_match_a_count_by_hand(rows):
    frame = pd.DataFrame(rows, columns=["age", "sex"]).assign(y=[i % 2 for i in range(len(rows))])
    data = Dataset("t", frame, ("age", "sex"), None, "y", {"age": "numeric", "sex": "nominal"})
    counts = {row: rows.count(row) for row in rows}
    uniques = sum(1 for c in counts.values() if c == 1)
    line = input_risk(data)
    assert f"{len(rows)} rows in {len(counts)} classes" in line
    assert f"sample uniques {uniques} ({uniques / len(rows):.1%} of rows)" in line
    assert f"smallest class {min(counts.values())}" in line
    under5 = sum(c for c in counts.values() if c < 5)
    assert f"{under5} under 5" in line
