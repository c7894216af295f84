"""Untrusted text (a card's values, column names, its data set's name) reaches a notebook's HTML escaped: the
display table and the tour explorer's HTML never carry a raw tag from the data."""

import numpy as np
import pandas as pd

from privnb.data import Dataset, Hierarchy
from privnb.workbench import table, tour_state

SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(2)>"


def test_table_escapes_cells_column_names_index_and_caption():
    frame = pd.DataFrame({IMAGE: [SCRIPT, "flu"], "n": [1.5, 2.0]}, index=pd.Index([SCRIPT, "b"], name=IMAGE))
    html = table(frame, caption=SCRIPT)._repr_html_()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "<table" in html


def test_tour_state_escapes_the_data_sets_name_and_values():
    rng = np.random.default_rng(1)
    n = 60
    frame = pd.DataFrame(
        {
            "num": rng.integers(0, 8, n),
            IMAGE: rng.choice(["a", "b", SCRIPT], n),
            "s": rng.choice(["flu", "hiv", SCRIPT, "cold"], n),
            "y": rng.integers(0, 2, n),
        }
    )
    data = Dataset(SCRIPT, frame, ("num", IMAGE), "s", "y", {"num": "numeric", IMAGE: "nominal", "s": "nominal"})
    hierarchies = {
        "num": Hierarchy.intervals(0, 8, width=2, name="num"),
        IMAGE: Hierarchy.from_arx(pd.DataFrame([["a", "*"], ["b", "*"], [SCRIPT, "*"]]), name=IMAGE),
    }
    state = tour_state(2, 3, 2.0, data=data, quasi_identifiers=["num", IMAGE], hierarchies=hierarchies)
    html = state._repr_html_()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
