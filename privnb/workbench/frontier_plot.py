"""The privacy-utility picture of notebook 05: one point per (mechanism, parameter), one panel per kind of attack."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privnb.experiments.privacy_frontier.points import frontier_headlines
from privnb.workbench._frontier_words import attack_words, method_order, method_words

__all__ = ["frontier_plot"]

_MARKERS = "osD^v<>ph*"
_COLOURS = [*matplotlib.colormaps["tab20"].colors[::2], *matplotlib.colormaps["tab20"].colors[1::2]]
"""Twenty colours, the ten strong ones first: no two of up to 20 mechanisms share one."""


def _unit(panel: pd.DataFrame, symlog: bool):
    """(attack, error) -> the point's place in the panel's unit square, x as drawn (symlog for r - 1)."""

    def drawn(x):
        x = np.asarray(x, dtype=float)
        return np.sign(x) * np.log10(1 + np.abs(x)) if symlog else x

    xs, ys = drawn(panel["advantage"]), panel["error"].to_numpy(dtype=float)
    low, span = np.array([xs.min(), ys.min()]), np.maximum([np.ptp(xs), np.ptp(ys)], 1e-9)
    return lambda x, y: (np.array([drawn(x), y]) - low) / span


def _majority(ax, panel: pd.DataFrame) -> None:
    """The majority-class error as a dashed line, and a red ring on every point at or above it."""
    if "majority_error" not in panel or panel["majority_error"].isna().all():
        return
    for level in panel["majority_error"].dropna().unique():
        ax.axhline(level, color="0.3", lw=1.2, ls="--")
    above = panel[panel["error"] >= panel["majority_error"]]
    ax.plot(above["advantage"], above["error"], "o", ms=14, mfc="none", mec="red", mew=1.5, ls="")


def _annotations(group: pd.DataFrame, letter: str, unit) -> list[tuple[float, float, str]]:
    """(x, y, text): one label per run of points (in parameter order) within 3% of the panel's size: ``k=8, 11``."""
    runs = []
    for x, y, param in group[["advantage", "error", "param"]].itertuples(index=False):
        if pd.isna(param):
            continue
        here = unit(x, y)
        if runs and np.all(np.abs(here - runs[-1][0]) < 0.03):
            runs[-1][3].append(f"{param:g}")
        else:
            runs.append((here, x, y, [f"{param:g}"]))
    return [(x, y, (f"{letter}=" if letter else "") + ", ".join(values)) for _, x, y, values in runs]


def frontier_plot(
    points: pd.DataFrame, *, title: str = "Measured attack success against test error", ncols: int | None = None
):
    """One panel per attack (``points["attack"]``) on a grid of ``ncols`` columns (default 3, 2 for four
    panels); r - 1 on a symlog scale once it exceeds 10; each point's 95% interval of the advantage as a bar.

    Panels come in the attacks' registration order, mechanisms in :mod:`privnb.workbench._frontier_words`' order
    with its labels (a view without words under its method); each mechanism
    keeps one colour and marker, its points joined in parameter order and labelled by their parameter
    (coinciding points share a label). A dotted line marks the attack's baseline (x = 0); a dashed line the
    majority-class error (``points["majority_error"]``, when given), and a point at or above it is ringed
    in red. One legend serves all panels: in the grid's spare cell, else beside a grid of one or two
    columns, under a wider one.

    Parameters
    ----------
    points : DataFrame
        :func:`privnb.experiments.frontier_points`'s table.
    title : str
        The figure's title.
    ncols : int, optional
        Columns of the grid.

    Returns
    -------
    Figure
    """
    methods = sorted(dict.fromkeys(points["method"]), key=method_order)
    heads = frontier_headlines()
    names = sorted(dict.fromkeys(points["attack"]), key=lambda a: heads.index(a) if a in heads else len(heads))
    ncols = max(1, min(ncols or (2 if len(names) == 4 else 3), len(names)))
    nrows = max(1, math.ceil(len(names) / ncols))
    beside = nrows * ncols == len(names) and ncols < 3  # no spare cell, room for the legend beside the grid
    fig = Figure(figsize=(4.6 * ncols + 4.2 * beside, 4.1 * nrows + 0.5 + 1.4 * (not beside)), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False).ravel()
    style = {
        m: {"color": _COLOURS[i % len(_COLOURS)], "marker": _MARKERS[i % len(_MARKERS)]} for i, m in enumerate(methods)
    }
    for ax, name in zip(grid, names):
        panel = points[points["attack"] == name]
        symlog = name == "r_closeness" and panel["advantage"].max() > 10  # linear when every r is near 1
        unit = _unit(panel, symlog)
        for i, method in enumerate(sorted(dict.fromkeys(panel["method"]), key=method_order)):
            group = panel[panel["method"] == method].sort_values("param")
            ax.plot(group["advantage"], group["error"], "-", ms=8, lw=1.6, **style[method])
            if {"advantage_low", "advantage_high"} <= set(group.columns) and group["advantage_low"].notna().any():
                spread = np.clip(
                    [group["advantage"] - group["advantage_low"], group["advantage_high"] - group["advantage"]], 0, None
                )
                ax.errorbar(
                    group["advantage"],
                    group["error"],
                    xerr=spread,
                    fmt="none",
                    lw=1,
                    capsize=3,
                    color=style[method]["color"],
                    alpha=0.7,
                )
            offset = (5, 4) if i % 2 == 0 else (5, -13)  # a second mechanism's labels below its points
            for x, y, text in _annotations(group, method_words(method)[1], unit):
                ax.annotate(text, (x, y), fontsize=10, xytext=offset, textcoords="offset points")
        ax.set_title(attack_words(name)[0], fontsize=12)
        ax.axvline(0, color="0.5", lw=1, ls=":")
        _majority(ax, panel)
        ax.margins(x=0.15, y=0.12)
        if symlog:
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xlim(left=-0.1)
        else:
            ax.locator_params(axis="x", nbins=5)  # long tick labels (-0.0025) stay apart
        if np.ptp(panel["advantage"]) == 0:  # one x for every point (nobody singled out): a readable range around it
            ax.set_xlim(panel["advantage"].iloc[0] - 0.05, panel["advantage"].iloc[0] + 0.05)
        ax.set_xlabel(attack_words(name)[1], fontsize=12)
        ax.set_ylabel("test error (raw rows)", fontsize=12)
        ax.tick_params(labelsize=11)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], lw=1.6, ms=8, **style[m]) for m in methods]
    labels = [method_words(m)[0] for m in methods]
    if "majority_error" in points:
        handles.append(Line2D([], [], color="0.3", lw=1.2, ls="--"))
        labels.append("majority-class error (ringed: at or above it)")
    spare = list(grid[len(names) :])
    for ax in spare:
        ax.set_axis_off()
    legend = dict(handles=handles, labels=labels, fontsize=12, title="mechanism", title_fontsize=12, frameon=False)
    if not handles:
        grid[0].text(0.5, 0.5, "no (mechanism, parameter) point to draw", ha="center", fontsize=12)
    elif spare:
        spare[0].legend(loc="center", **legend)
    elif beside:
        fig.legend(loc="outside right center", **legend)
    else:
        fig.legend(loc="outside lower center", ncols=3, **legend)
    fig.suptitle(title, fontsize=15)
    return fig
