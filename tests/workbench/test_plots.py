"""The papers' figures: box order and labels, convergence curves, bound plots, atomic saving; notebook 05's
privacy-utility grid."""

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from privnb.experiments import tidy_frame
from privnb.workbench import bound_plot, convergence_plot, error_boxplot, like_for_like_plot, save_figure


def rows(classifier="1-NN", dataset="adult"):
    views = [
        ("generalized", 2.0),
        ("anatomized", 3.0),
        ("original", math.nan),
        ("anatomized", 2.0),
        ("identifying", math.nan),
        ("anatomized", 5.0),
    ]
    out = []
    for method, param in views:
        for fold in range(4):
            value = math.nan if param == 5.0 else 0.1 + 0.01 * fold + (param if param == param else 0) / 100
            out.append((dataset, classifier, method, param, fold, "error", value, 90.0, 0.0, ""))
    return out


def tick_labels(axis):
    return [t.get_text() for t in axis.get_xticklabels()]


def test_error_boxplot_orders_and_labels_boxes_as_the_papers():
    fig = error_boxplot(tidy_frame(rows()), title="1-NN on Adult")
    assert isinstance(fig, Figure)
    (axis,) = fig.axes
    assert tick_labels(axis) == ["Org.", "Id.", "L=2", "L=3", "k=2"]  # the N/A view L=5 is left out
    assert axis.get_ylabel() == "Error rate" and axis.get_title() == "1-NN on Adult"


def test_error_boxplot_draws_the_majority_view_as_a_line_and_wraps_long_labels():
    majority = [("adult", "majority", "majority", None, fold, "error", 0.3, 100, 0, "") for fold in range(3)]
    mondrian = [("adult", "1-NN", "mondrian", 5.0, fold, "error", 0.1, 100, 0, "") for fold in range(3)]
    (axis,) = error_boxplot(tidy_frame(rows() + majority + mondrian)).axes
    labels = tick_labels(axis)
    assert "Majority" not in labels and "Mondrian\nk=5" in labels  # two lines: no overlap with its neighbour
    (line,) = [ln for ln in axis.get_lines() if ln.get_linestyle() == "--"]
    assert list(line.get_ydata()) == [0.3, 0.3] and "majority class (0.300)" in axis.get_legend_handles_labels()[1]


def test_error_boxplot_facets_one_panel_per_classifier():
    fig = error_boxplot(tidy_frame(rows("1-NN") + rows("3-NN")), facet="classifier")
    assert [a.get_title() for a in fig.axes] == ["1-NN", "3-NN"]


def test_error_boxplot_refuses_mixed_classifiers_without_facet():
    with pytest.raises(ValueError, match="facet='classifier'"):
        error_boxplot(tidy_frame(rows("1-NN") + rows("3-NN")))


def test_error_boxplot_draws_into_a_given_axis():
    fig = Figure()
    axis = fig.subplots()
    assert error_boxplot(tidy_frame(rows()), ax=axis) is fig


def test_convergence_plot_one_curve_per_view():
    frame = tidy_frame(
        [
            ("adult", "1-NN", m, p, f, "error", 0.3 - n / 1e4, n, 0.0, "")
            for m, p in (("original", math.nan), ("anatomized", 2.0))
            for n in (100.0, 200.0, 400.0)
            for f in range(3)
        ]
    )
    fig = convergence_plot(frame, logx=True)
    (axis,) = fig.axes
    assert [line.get_label() for line in axis.get_lines()] == ["Org.", "L=2"]
    assert list(axis.get_lines()[0].get_xdata()) == [100.0, 200.0, 400.0]
    with pytest.raises(ValueError, match="no column 'train_size'"):
        convergence_plot(frame, x="train_size")


def test_convergence_plot_one_point_per_part_when_fold_sizes_differ():
    """Folds of 100 and 101 rows: each part is one point at the mean size, with the mean over folds."""
    frame = tidy_frame(
        [
            ("adult", "1-NN", "original", math.nan, f, "error", 0.3 - j / 10 + f / 100, j * (100 + f), 0.0, "")
            for j in (1, 2, 3)
            for f in range(2)
        ]
    )
    (line,) = convergence_plot(frame).axes[0].get_lines()
    assert np.allclose(line.get_xdata(), [100.5, 201.0, 301.5])
    assert np.allclose(line.get_ydata(), [0.205, 0.105, 0.005])


def test_bound_plot_and_its_shape_check():
    x = np.arange(1, 6)
    fig = bound_plot(x, measured={"1-NN": 1 / x}, bound=2 / x, xlabel="n")
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["1-NN", "bound"]
    with pytest.raises(ValueError, match="one value per x"):
        bound_plot(x, measured=x[:3], bound=x)


def test_save_figure_writes_whole_files(tmp_path):
    path = tmp_path / "figures" / "box.png"
    error_boxplot(tidy_frame(rows()), path=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in path.parent.iterdir()] == ["box.png"]
    with pytest.raises(ValueError, match="suffix"):
        save_figure(Figure(), tmp_path / "nosuffix")


HEADLINE = {  # each method's panel in the frame below
    "anatomized": "common",
    "pruned": "pruning_disclosure",
    "mondrian": "homogeneity",
    "generalized": "homogeneity",
    "k-ac": "linkage_items_m5",
    "full": "linkage_items_m5",
    "safety_transform": "r_closeness",
    "dp_laplace": "r_closeness",
}


def frontier_points_frame(methods):
    """Two points per mechanism on one attack's panel, as frontier_points returns them."""
    rows = [
        {
            "dataset": "toy",
            "method": m,
            "param": p,
            "attack": HEADLINE[m],
            "advantage": x,
            "advantage_low": x - 0.05,
            "advantage_high": x + 0.05,
            "error": 0.2 + x / 10,
            "n_folds": 1,
        }
        for m in methods
        for p, x in ((2.0, 0.1), (5.0, 0.3 if not m.startswith(("safety", "dp")) else 300.0))
    ]
    return pd.DataFrame(rows)


def test_frontier_plot_puts_five_panels_on_a_grid_with_one_legend():
    from privnb.workbench._frontier_words import attack_words, method_words
    from privnb.workbench.frontier_plot import frontier_plot

    methods = ["dp_laplace", "anatomized", "pruned", "mondrian", "generalized", "k-ac", "full", "safety_transform"]
    fig = frontier_plot(frontier_points_frame(methods))
    *panels, spare = fig.axes
    assert len(panels) == 5 and not spare.axison  # a 2 x 3 grid; the sixth cell holds the legend
    assert [a.get_title() for a in panels[:2]] == [attack_words("common")[0], attack_words("pruning_disclosure")[0]]
    assert panels[-1].get_xscale() == "symlog" and panels[0].get_xscale() == "linear"
    legend = [t.get_text() for t in spare.get_legend().get_texts()]
    assert legend[:2] == [method_words("anatomized")[0], method_words("pruned")[0]] and len(legend) == len(methods)
    assert all(a.get_legend() is None for a in panels)
    assert min(t.get_fontsize() for a in panels for t in (a.xaxis.label, a.yaxis.label, a.title)) >= 12
    assert panels[0].collections  # the intervals drawn as bars


def test_frontier_plot_labels_coinciding_points_once():
    from privnb.workbench.frontier_plot import frontier_plot

    points = frontier_points_frame(["k-ac"])
    points.loc[1, ["advantage", "error"]] = points.loc[0, ["advantage", "error"]].to_numpy()
    fig = frontier_plot(points)
    assert [t.get_text() for t in fig.axes[0].texts] == ["k=2, 5"]
    assert fig.legends and not fig.axes[0].get_legend()  # one panel: the legend sits beside it


def test_bar_panels_draw_the_baseline_dashed_and_hatch_the_bars_at_or_below_it(tmp_path):
    from privnb.workbench import bar_panels

    values = pd.DataFrame({"accuracy": [0.8, 0.79, 0.75], "recall": [0.45, 0.41, 0.05]})
    fig = bar_panels(
        values,
        ["Org.", "k=2", "k=10"],
        colors=["tab:red", "tab:blue", "tab:blue"],
        baseline={"accuracy": 0.76, "recall": 0.0},
        marked=[False, False, True],
        marked_label="accuracy at or below it",
        path=tmp_path / "bars.png",
    )
    assert (tmp_path / "bars.png").stat().st_size > 0
    for axis, column in zip(fig.axes, values.columns):
        bars = axis.patches[:3]
        assert [b.get_height() for b in bars] == values[column].tolist()
        assert [b.get_hatch() for b in bars] == [None, None, "//"]
        (line,) = axis.get_lines()
        assert line.get_linestyle() == "--" and line.get_ydata()[0] == {"accuracy": 0.76, "recall": 0.0}[column]
        assert axis.get_legend_handles_labels()[1][-1] == "accuracy at or below it"
    with pytest.raises(ValueError, match="one label and one colour per row"):
        bar_panels(values, ["Org."], colors=["tab:red"])


def test_like_for_like_plot_draws_one_line_per_mechanism_in_each_panel_and_the_majority_dashed():
    index = pd.MultiIndex.from_product([["anatomized", "l-diverse Mondrian"], [2, 3]], names=["method", "l"])
    table = pd.DataFrame(
        {
            "error": 0.2,
            "majority_error": 0.25,
            "common": [0.7, 0.5, 0.6, 0.5],
            "common_baseline": 0.4,
            "common_advantage_low": [0.25, 0.05, 0.15, 0.05],
            "common_advantage_high": [0.35, 0.15, 0.25, 0.15],
        },
        index=index,
    )
    error_ax, attack_ax = like_for_like_plot(table).axes
    assert [line.get_label() for line in error_ax.lines] == [
        "anatomized (k-NN)",
        "l-diverse Mondrian, k = l (k-NN)",
        "majority-class error",
    ]
    assert error_ax.lines[-1].get_linestyle() == "--" and list(error_ax.lines[-1].get_ydata()) == [0.25, 0.25]
    assert len(attack_ax.lines) == 3  # each mechanism's share guessed right and the background's, common to all
    assert list(attack_ax.lines[1].get_ydata()) == [0.6, 0.5] and attack_ax.lines[2].get_linestyle() == ":"
    assert len(attack_ax.collections) == 2  # each mechanism's 95% band
    with pytest.raises(ValueError, match="no error and common-adversary rows"):
        like_for_like_plot(table.drop(columns="common"))


def test_error_boxplot_does_not_spread_views_that_differ_by_a_hair():
    """Issue 31: on a 13.5% outcome every view scored 0.1347-0.1351, and the axis spanned exactly that."""
    hair = [(*row[:6], 0.1347 + 0.0001 * (row[4] % 4), *row[7:]) for row in rows() if row[3] != 5.0]
    (axis,) = error_boxplot(tidy_frame(hair)).axes
    low, high = axis.get_ylim()
    assert high - low >= 0.02 and low < 0.1347 and high > 0.1351
