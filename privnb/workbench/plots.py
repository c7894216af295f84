"""The papers' figures: error boxplots, convergence curves, a bound against measured values.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state), so they work with
any backend, Agg included, and never leak open figures in a long sweep; Jupyter shows a returned Figure
inline. Each function takes an optional ``ax`` to draw into and an optional ``path`` to save to (written
whole or not at all).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from privnb.experiments.labels import method_label, method_sort_key
from privnb.files import atomic_path


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: int = 120) -> None:
    """Save ``fig`` to ``path`` (format from the suffix), whole or not at all; creates the folder.

    Parameters
    ----------
    fig : Figure
        The figure to save.
    path : path
        Where to write it; its suffix (e.g. ``.png``, ``.pdf``) names the format.
    dpi : int
        Resolution of raster formats.
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    if not suffix:
        raise ValueError(f"cannot tell the figure format of {path!r}: give a suffix such as .png or .pdf")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=suffix, dpi=dpi, bbox_inches="tight")


def _figure_and_axes(ax, n: int = 1, *, sharey: bool = True):
    if ax is not None:
        if n != 1:
            raise ValueError("ax draws one panel; leave ax=None to get one panel per facet value")
        return ax.figure, [ax]
    fig = Figure(figsize=(max(4.0, 4.0 * n), 3.4), layout="constrained")
    return fig, list(np.atleast_1d(fig.subplots(1, n, sharey=sharey, squeeze=False)[0]))


def _finish(fig: Figure, path) -> Figure:
    if path is not None:
        save_figure(fig, path)
    return fig


def _single_valued(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    for column in columns:
        if column in frame and frame[column].nunique() > 1:
            raise ValueError(
                f"{what} got several {column} values {sorted(frame[column].unique())}: "
                f"filter the results or pass facet={column!r}"
            )


def _split_baseline(frame: pd.DataFrame, baseline: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of the views and those of the ``baseline`` method (empty without one)."""
    if baseline is None:
        return frame, frame.iloc[:0]
    is_baseline = frame["method"] == baseline
    return frame[~is_baseline], frame[is_baseline]


def _by_view(groups) -> list:
    """``(method, param)`` groups in the papers' order (Org., Id., L=2.., k=2..)."""
    return sorted(groups, key=lambda item: method_sort_key(*item[0]))


MIN_ERROR_SPAN = 0.02
"""The least span of an error box plot's axis (two points of error): views that differ by less look alike."""


def error_boxplot(
    results: pd.DataFrame,
    *,
    metric: str = "error",
    facet: str | None = None,
    ax=None,
    title: str | None = None,
    ylabel: str = "Error rate",
    path=None,
    baseline: float | None = None,
) -> Figure:
    """Boxplots of per-fold errors, one box per training view, in the papers' style.

    Boxes are ordered and labelled as in Figures 5-6 and C.1-C.8 of MC16 and Figures 3-8 of
    MC17: "Org.", "Id.", then "L=2".."L=5" (anatomized or pruned) and "k=2".. (generalized). Views
    that could not be built (N/A rows) are left out.

    Parameters
    ----------
    results : DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`).
    metric : str
        The rows' ``metric`` plotted.
    facet : str, optional
        A column (e.g. ``"classifier"`` for the 1-NN..9-NN panels of Figure 5 of MC17) giving one
        panel per value; without it the rows must hold one dataset and one classifier.
    ax : matplotlib Axes, optional
        Where to draw (one panel only); by default a new figure.
    title : str, optional
        The title: of the single panel, or of the figure with ``facet`` (panels then show the facet values).
    ylabel : str
        The value axis' label.
    path : path, optional
        Where to save the figure (:func:`save_figure`).
    baseline : float, optional
        A reference error drawn as a dashed line on every panel (e.g. the majority class's): a box at or above
        it learned nothing a constant guess would not give; a view whose mean error is at or above it gets
        "≥" after its label. Default: the mean error of the rows of method "majority" when there are any
        (they are drawn as this line, not as a box).
    """
    frame = results[(results["metric"] == metric) & results["value"].notna()]
    majority = frame["method"] == "majority"
    if majority.any():  # the majority-class view is the baseline line, not a box
        baseline = float(frame.loc[majority, "value"].mean()) if baseline is None else baseline
        frame = frame[~majority]
    if frame.empty:
        raise ValueError(f"no values for metric {metric!r} to plot")
    panels = [(None, frame)] if facet is None else list(frame.groupby(facet, sort=True))
    for _, part in panels:
        _single_valued(part, [c for c in ("dataset", "classifier") if c != facet], "error_boxplot")
    fig, axes = _figure_and_axes(ax, len(panels))
    for axis, (name, part) in zip(axes, panels):
        views = _by_view(part.groupby(["method", "param"], dropna=False)["value"])
        labels = [method_label(*key).replace(" ", "\n", 1) for key, _ in views]  # "Mondrian\nk=5": no overlap
        if baseline is not None:  # a view no better than the baseline on average is marked
            labels = [f"{label} ≥" if values.mean() >= baseline else label for label, (_, values) in zip(labels, views)]
        axis.boxplot([values.to_numpy() for _, values in views], tick_labels=labels)
        if baseline is not None:
            axis.axhline(baseline, color="grey", ls="--", lw=1, label=f"majority class ({baseline:.3f})")
            axis.legend(fontsize=7, loc="best")
        axis.set_xlabel("Classifier type")
        axis.set_title(str(name) if title is None or facet is not None else title)
        low, high = axis.get_ylim()  # identical boxes must look identical, not spread over a 0.0004 axis
        if high - low < MIN_ERROR_SPAN:
            axis.set_ylim((low + high - MIN_ERROR_SPAN) / 2, (low + high + MIN_ERROR_SPAN) / 2)
    axes[0].set_ylabel(ylabel)
    if title is not None and facet is not None:
        fig.suptitle(title)
    return _finish(fig, path)


def convergence_plot(
    results: pd.DataFrame,
    *,
    x: str = "n_train",
    metric: str = "error",
    ax=None,
    title: str | None = None,
    xlabel: str = "Training set size",
    ylabel: str = "Error rate",
    logx: bool = False,
    path=None,
    baseline_method: str | None = None,
) -> Figure:
    """Mean error (± one standard deviation over folds, shaded) against training-set size, per view.

    The convergence curves of Figure 9 of MC17 (original and anatomized 1-NN for each l). ``x`` names
    the column holding the training-set size of each row. With a ``fold`` column, the j-th size of every
    fold makes one point (at the folds' mean size), so folds whose sizes differ by a row share a point.
    ``baseline_method`` names a method (e.g. ``"majority"``) whose curve is drawn dashed, whatever its
    classifier.

    Parameters
    ----------
    results : DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`) of one dataset and one classifier (besides the
        baseline method's).
    x : str
        The column of training-set sizes.
    metric : str
        The rows' ``metric`` plotted.
    ax : matplotlib Axes, optional
        Where to draw; by default a new figure.
    title, xlabel, ylabel : str
        The axes' title and labels.
    logx : bool
        A logarithmic x axis.
    path : path, optional
        Where to save the figure (:func:`save_figure`).
    baseline_method : str, optional
        The method drawn as a dashed reference curve.
    """
    frame = results[(results["metric"] == metric) & results["value"].notna()]
    frame, base = _split_baseline(frame, baseline_method)
    if x not in frame:
        raise ValueError(f"results have no column {x!r} for the x axis; columns: {list(frame.columns)}")
    if frame.empty:
        raise ValueError(f"no values for metric {metric!r} to plot")
    _single_valued(frame, ("dataset", "classifier"), "convergence_plot")
    fig, (axis,) = _figure_and_axes(ax)
    for key, curve in _by_view(_curves(pd.concat([frame, base]), x).groupby(["method", "param"], dropna=False)):
        curve = curve.sort_values(x)
        if key[0] == baseline_method:
            axis.plot(curve[x], curve["mean"], color="0.3", linestyle="--", label=method_label(*key))
            continue
        (line,) = axis.plot(curve[x], curve["mean"], marker="o", label=method_label(*key))
        spread = curve["std"].fillna(0.0)
        axis.fill_between(
            curve[x], curve["mean"] - spread, curve["mean"] + spread, color=line.get_color(), alpha=0.15, linewidth=0
        )
    if logx:
        axis.set_xscale("log")
    axis.set(xlabel=xlabel, ylabel=ylabel, title=title)
    axis.legend()
    return _finish(fig, path)


def _curves(frame: pd.DataFrame, x: str) -> pd.DataFrame:
    """Mean and standard deviation of the values at the j-th training size of every fold, per view."""
    view = ["method", "param"]
    step = frame.groupby([*view, "fold"], dropna=False)[x].rank(method="dense") if "fold" in frame else frame[x]
    return (
        frame.assign(step=step)
        .groupby([*view, "step"], dropna=False)
        .agg(**{x: (x, "mean"), "mean": ("value", "mean"), "std": ("value", "std")})
        .reset_index()
    )


def _as_series(values, default_label: str) -> dict:
    return dict(values) if isinstance(values, Mapping) else {default_label: values}


def bound_plot(
    x,
    *,
    measured,
    bound,
    ax=None,
    xlabel: str = "",
    ylabel: str = "",
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    path=None,
) -> Figure:
    """Measured values (solid, markers) against a theoretical bound (dashed) over the same ``x``.

    ``measured`` and ``bound`` are arrays or mappings label -> array, each as long as ``x``: e.g. the
    measured k-NN error against the bound of Theorem 23 of MC17, or an r-closeness curve.

    Parameters
    ----------
    x : array-like
        The shared x values.
    measured, bound : array-like or mapping label -> array-like
        The measured series (solid, markers) and the bounds (dashed), each as long as ``x``; a bare
        array is labelled "measured" or "bound".
    ax : matplotlib Axes, optional
        Where to draw; by default a new figure.
    xlabel, ylabel, title : str
        The axes' labels and title.
    logx, logy : bool
        Logarithmic axes.
    path : path, optional
        Where to save the figure (:func:`save_figure`).
    """
    x = np.asarray(x)
    fig, (axis,) = _figure_and_axes(ax)
    if ax is None:
        fig.set_size_inches(6.5, 3.6)  # room for the legend beside the lines
    for style, series in (("-o", _as_series(measured, "measured")), ("--", _as_series(bound, "bound"))):
        for label, y in series.items():
            y = np.asarray(y)
            if y.shape != x.shape:
                raise ValueError(f"series {label!r} has shape {y.shape}, x has {x.shape}: give one value per x")
            axis.plot(x, y, style, label=label)
    if logx:
        axis.set_xscale("log")
    if logy:
        axis.set_yscale("log")
    axis.set(xlabel=xlabel, ylabel=ylabel, title=title)
    axis.legend(loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, fontsize="small")  # beside the lines
    return _finish(fig, path)


def bar_panels(
    values: pd.DataFrame,
    labels: Sequence[str],
    *,
    colors: Sequence[str],
    titles: Sequence[str] | None = None,
    baseline: Mapping[str, float] | None = None,
    baseline_label: str = "majority class",
    marked: Sequence[bool] | None = None,
    marked_label: str | None = None,
    ylim=(0, 1),
    path=None,
) -> Figure:
    """One bar chart per column of ``values`` (e.g. accuracy and recall of several training views), a
    baseline drawn as a dashed line in each panel and the bars at or below it hatched.

    Parameters
    ----------
    values : DataFrame
        One row per bar, one column per panel.
    labels : sequence of str
        The bars' labels, one per row.
    colors : sequence of str
        The bars' colours, one per row.
    titles : sequence of str, optional
        The panels' titles (default the column names).
    baseline : mapping of str to float, optional
        Column -> the baseline's value (e.g. the majority class's accuracy), drawn dashed.
    baseline_label : str
        The baseline's legend label.
    marked : sequence of bool, optional
        Rows whose bars are hatched (e.g. at or below the majority class's accuracy); they are told in the legend.
    marked_label : str, optional
        The hatched bars' legend label (default "at or below the" and ``baseline_label``).
    ylim : (float, float)
        The value axis' range.
    path : path, optional
        Where to save the figure.

    Returns
    -------
    Figure
    """
    if len(labels) != len(values) or len(colors) != len(values):
        raise ValueError(f"give one label and one colour per row: {len(values)} rows, {len(labels)} labels")
    fig, axes = _figure_and_axes(None, values.shape[1], sharey=False)
    fig.set_size_inches(5.0 * values.shape[1], 3.6)
    hatched = np.zeros(len(values), bool) if marked is None else np.asarray(marked, bool)
    for axis, column, title in zip(axes, values.columns, titles or values.columns):
        bars = axis.bar(list(labels), values[column].to_numpy(dtype=float), color=list(colors))
        for bar, hatch in zip(bars, hatched):
            bar.set_hatch("//" if hatch else None)
        if baseline is not None and column in baseline:
            axis.axhline(
                baseline[column], color="black", linestyle="--", label=f"{baseline_label} ({baseline[column]:.3f})"
            )
        if hatched.any():
            axis.bar(
                [labels[0]],
                [0],
                color="white",
                edgecolor="black",
                hatch="//",
                label=marked_label or f"at or below the {baseline_label}",
            )
        axis.set(title=title, ylim=ylim)
        axis.tick_params(axis="x", rotation=45)
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize="small")
    return _finish(fig, path)
