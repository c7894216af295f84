"""The tour's explorer computes what privnb's own functions compute, and degrades to static output; the display
helpers render math, tables and captions with readable plain-text fallbacks."""

import numpy as np
import pandas as pd
import pytest
import sympy as sp

from privnb.data import Dataset, Hierarchy, nbc_figure1_databases
from privnb.mechanisms import anatomize, is_k_anonymous
from privnb.nbc import NBCViews, SafetyTransform, achieved_r
from privnb.workbench import caption, equation, equations, table, tour_explorer, tour_state
from privnb.workbench.explorer import nbc_views_of

QI = ["num", "let", "col"]


def _views():
    db_a, _ = nbc_figure1_databases()
    return NBCViews.from_frame(db_a, ["Adr", "Age"], "Sal")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame(
        {
            "num": rng.integers(0, 16, n),
            "let": rng.choice(list("abcd"), n),
            "col": rng.choice(list("xyz"), n),
            "s": rng.choice(list("ABCDE"), n),
            "y": rng.integers(0, 2, n),
        }
    )
    kinds = {"num": "numeric", "let": "nominal", "col": "nominal", "s": "nominal"}
    return Dataset("synthetic", frame, tuple(QI), "s", "y", kinds)


@pytest.fixture(scope="module")
def hierarchies():
    letters = pd.DataFrame([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]])
    return {
        "num": Hierarchy.intervals(0, 16, width=2, name="num"),
        "let": Hierarchy.from_arx(letters, name="let"),
        "col": Hierarchy.from_arx(pd.DataFrame([["x", "*"], ["y", "*"], ["z", "*"]]), name="col"),
    }


@pytest.mark.parametrize("l, k, gamma", [(2, 3, 2.0), (4, 10, 100.0), (5, 5, 1.5)])
def test_tour_state_acts_on_the_data_at_hand(data, hierarchies, l, k, gamma):
    views = _views()
    state = tour_state(
        l, k, gamma, data=data, quasi_identifiers=QI, hierarchies=hierarchies, views=views, random_state=3
    )
    anatomy = anatomize(data.frame, "s", l, random_state=3)
    report = anatomy.suppression_report()
    assert state.anatomy_summary["value"].tolist() == [
        200,
        report["groups"],
        report["rows_suppressed"],
        report["groups"] * l * l,
    ]
    assert len(state.groups) == min(5, report["groups"]) and (state.groups["rows"] == l).all()
    shown = anatomy.join()
    shown = shown[shown["row_id"].isin(anatomy.it.index[anatomy.it["gid"].isin(state.groups.index)])]
    assert len(state.joined) == len(shown) == l * l * len(state.groups)
    for name, release in (("full-domain", state.full_domain), ("Mondrian", state.mondrian)):
        sizes = release.generalized_.groupby(QI, observed=True).size()
        assert is_k_anonymous(release.generalized_, QI, k)
        assert state.classes.loc[name, "classes"] == len(sizes)
        assert state.classes.loc[name, "smallest"] == sizes.min() >= k
        assert state.classes.loc[name, "rows suppressed"] == len(release.suppressed_)
    assert (state.smallest_classes["rows"] >= k).all()
    published = SafetyTransform(gamma, random_state=3).fit(views).views_
    expected = [achieved_r(views, max_size=1), achieved_r(published, max_size=1)]
    assert state.safety["achieved r"].tolist() == expected


def test_sections_the_data_cannot_run_say_why(data, hierarchies):
    state = tour_state(6, 500, 2.0, data=data, quasi_identifiers=QI, hierarchies=hierarchies)
    text, html = repr(state), state._repr_html_()
    assert state.anatomy is None and "has 5" in state.anatomy_missing
    assert state.full_domain is None and "k = 500 exceeds the 200 rows" in text
    assert "no NBC views" in text and "Skipped." in html


def test_state_renders_every_table_as_html_and_text(data, hierarchies):
    state = tour_state(4, 5, 2.0, data=data, quasi_identifiers=QI, hierarchies=hierarchies, views=_views())
    html, text = state._repr_html_(), repr(state)
    for needle in (
        "Anatomy of synthetic at l = 4",
        "The first 5 groups of l = 4",
        "Their joined training data D_A (80 rows)",
        "Equivalence classes by method",
        "Achieved r (Definition 5; audit over quasi-identifiers of up to 1 attribute(s))",
    ):
        assert needle in html and needle in text
    assert "<table" in html and "<table" not in text


def test_explorer_sliders_recompute_and_display_writes_a_static_copy(data, hierarchies):
    pytest.importorskip("ipywidgets")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    explorer = tour_explorer(data=data, quasi_identifiers=QI, hierarchies=hierarchies, l=3, k=5, gamma=2.0)
    assert {name: type(w).__name__ for name, w in explorer.controls.items()} == {
        "l": "IntSlider",
        "k": "IntSlider",
        "gamma": "FloatLogSlider",
    }
    assert explorer.controls["l"].max == data.frame["s"].nunique()
    explorer.controls["l"].value = 4
    explorer.controls["k"].value = 8
    assert (explorer.state.l, explorer.state.k, explorer.default.l) == (4, 8, 3)
    InteractiveShell.instance()
    with capture_output() as captured:
        explorer._ipython_display_()
    live, static = captured.outputs
    assert "application/vnd.jupyter.widget-view+json" in live.data and "sliders" in live.data["text/plain"]
    assert "l = 3: anatomy of synthetic" in static.data["text/html"] and "l = 3: anatomy" in static.data["text/plain"]
    # the sliders sit beside the result
    assert type(explorer.widget).__name__ == "HBox" and explorer.widget.children[1] is explorer.panel
    assert "k = 5: equivalence classes" in static.data["text/html"]
    # the live box carries the style that hides the static copy wherever widgets render
    token = static.data["text/html"].split('class="privnb-static-')[1].split('"')[0]
    assert f".privnb-static-{token}" in explorer.widget.children[-1].value


def test_equation_renders_latex_with_its_label_and_readable_text():
    x, y = sp.symbols("x y")
    eq = equation(x**2 / y, "Lemma 2, (7)", lhs=sp.Symbol("m"))
    assert eq._repr_latex_() == r"$$m = \frac{x^{2}}{y} \tag*{Lemma 2, (7)}$$"
    assert repr(eq).splitlines()[0] == "Lemma 2, (7):" and "x" in repr(eq)
    both = equations(("(1)", x + y), ("(2)", sp.Symbol("z"), x * y), eq)
    assert [e.label for e in both.items] == ["(1)", "(2)", "Lemma 2, (7)"]
    assert equation(x, "a_b & c").latex().endswith(r"\tag*{a\_b \& c}")
    with pytest.raises(ValueError, match="each item"):
        equations("x + y")


def test_table_is_deterministic_styled_html_with_a_text_fallback():
    frame = pd.DataFrame({"error": [0.123456, np.nan], "share": [0.5, 0.25]}, index=["a", "b"])
    shown = table(frame, caption="Errors & shares", precision=2, percent=["share"])
    assert shown._repr_html_() == table(frame, caption="Errors & shares", precision=2, percent=["share"])._repr_html_()
    html = shown._repr_html_()
    assert "0.12" in html and "50.0%" in html and "Errors &amp; shares" in html and "\N{EN DASH}" in html
    assert repr(shown).splitlines()[0] == "Errors & shares" and "0.12" in repr(shown)
    assert "<th" not in table(frame, index=False)._repr_html_().split("<tbody>")[1].split("</tr>")[0]
    with pytest.raises(ValueError, match="DataFrame or a Series"):
        table([1, 2])


def test_caption_is_markdown_under_the_figure():
    shown = caption("Look at the gap between the boxes.")
    assert shown._repr_markdown_() == "**Figure.** *Look at the gap between the boxes.*"
    assert repr(shown) == "Figure. Look at the gap between the boxes."
    with pytest.raises(ValueError, match="sentence"):
        caption("  ")


def test_tour_state_on_a_data_card_and_without_hierarchies(tmp_path):
    from own_data import write_own_data

    from privnb.data import load
    from privnb.experiments import data_support

    card = write_own_data(tmp_path)["table"]
    ward, support = load(card), data_support(card)
    qi = list(ward.quasi_identifiers)
    views, why = nbc_views_of(support, ward)
    assert why == "" and set(views.attributes) <= set(qi)
    state = tour_state(
        3, 4, 2.0, data=ward, quasi_identifiers=qi, hierarchies=support.generalization_hierarchies, views=views
    )
    assert state.anatomy is not None and state.safety is not None and "ward" in repr(state)
    assert list(state.classes.index) == ["full-domain", "Mondrian"]
    for release in (state.full_domain, state.mondrian):
        assert is_k_anonymous(release.generalized_, qi, 4)
    alone = tour_state(3, 4, 2.0, data=ward, quasi_identifiers=qi, hierarchies=None)
    assert alone.full_domain is None and list(alone.classes.index) == ["Mondrian"]
    assert set(alone.smallest_classes["method"]) == {"Mondrian"} and "Mondrian" in repr(alone)


def test_explorer_starts_l_within_the_sensitive_domain(data, hierarchies):
    pytest.importorskip("ipywidgets")
    explorer = tour_explorer(data=data, quasi_identifiers=QI, hierarchies=hierarchies, l=9, k=5)
    assert explorer.default.l == explorer.controls["l"].max == data.frame["s"].nunique()
    assert "pass support=" in explorer.default.safety_missing


@pytest.mark.parametrize("l", [2, 3])
def test_the_explorer_sets_anatomy_beside_l_diverse_generalization_at_its_l(data, hierarchies, l):
    state = tour_state(l, 5, 2.0, data=data, quasi_identifiers=QI, hierarchies=hierarchies, random_state=3)
    peers = state.peers
    assert list(peers.index) == ["anatomy", "l-diverse full-domain", "l-diverse Mondrian"]
    assert (peers["fewest distinct values"] >= l).all()  # every release is distinct l-diverse
    anatomy = anatomize(data.frame[[*QI, "s"]], "s", l, random_state=3)
    assert peers.loc["anatomy", "classes"] == anatomy.it["gid"].nunique()
    assert peers.loc["anatomy", "prior"] == pytest.approx(1 / l)  # groups of l distinct values
    assert peers["de Finetti (join model)"].between(0, 1).all() and peers["gcp"].between(0, 1).all()
    assert f"Anatomy beside l-diverse generalization (k = l = {l})" in state._repr_html_()
    assert tour_state(6, 5, 2.0, data=data, quasi_identifiers=QI, hierarchies=hierarchies).peers is None
