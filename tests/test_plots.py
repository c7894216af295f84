"""The papers' figures: box order and labels, convergence curves, bound plots, atomic saving."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from privnb.experiments import tidy_frame
from privnb.workbench import bound_plot, convergence_plot, error_boxplot, save_figure


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
