"""The privacy-utility picture of notebook 05: one point per (mechanism, parameter), one panel per kind of attack."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privnb.experiments.frontier import AXES

__all__ = ["frontier_plot", "MECHANISMS"]

MECHANISMS = {
    "anatomized": ("anatomized (k-NN)", "l", "Anatomy: the de Finetti attack (seeds 002/003)"),
    "pruned": ("pruned (k-NN)", "l", "Anatomy, pruned to one row (seed 003)"),
    "generalized": ("full-domain (k-NN)", "k", "k-anonymity: the homogeneity attack"),
    "mondrian": ("Mondrian (k-NN)", "k", "k-anonymity: the homogeneity attack"),
    "k-ac": ("k-AC (linear SVC)", "k", "Containment: linkage (seed 001)"),
    "k-anonymity": ("k-anonymity by containment (linear SVC)", "k", "Containment: linkage (seed 001)"),
    "full": ("all features (linear SVC)", "", "Containment: linkage (seed 001)"),
    "safety_transform": ("SafetyTransform (NBC)", "γ", "NBC views: the exact audit (seed 004)"),
    "dp_laplace": ("DP counts, Laplace (NBC)", "ε", "NBC views: the exact audit (seed 004)"),
    "dp_geometric": ("DP counts, geometric (NBC)", "ε", "NBC views: the exact audit (seed 004)"),
}
"""Method -> (legend label, the letter of its parameter, the title of its panel)."""

_MARKERS = "osD^v<>ph*"
_ORDER = list(AXES)


def _rank(method) -> int:
    return _ORDER.index(method) if method in _ORDER else len(_ORDER)


def _unit(panel: pd.DataFrame, symlog: bool):
    """(attack, error) -> the point's place in the panel's unit square, x as drawn (symlog for r - 1)."""

    def drawn(x):
        x = np.asarray(x, dtype=float)
        return np.sign(x) * np.log10(1 + np.abs(x)) if symlog else x

    xs, ys = drawn(panel["attack"]), panel["error"].to_numpy(dtype=float)
    low, span = np.array([xs.min(), ys.min()]), np.maximum([np.ptp(xs), np.ptp(ys)], 1e-9)
    return lambda x, y: (np.array([drawn(x), y]) - low) / span


def _annotations(group: pd.DataFrame, letter: str, unit) -> list[tuple[float, float, str]]:
    """(x, y, text): one label per run of points (in parameter order) within 3% of the panel's size: ``k=8, 11``."""
    runs = []
    for x, y, param in group[["attack", "error", "param"]].itertuples(index=False):
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
    """One panel per x axis (``points["axis"]``) on a grid of ``ncols`` columns (default 3, 2 for four
    panels); r - 1 on a symlog scale once it exceeds 10.

    Panels and mechanisms come in :data:`privnb.experiments.AXES`'s order; each mechanism keeps one colour and
    marker, its points joined in parameter order and labelled by their parameter (coinciding points share a
    label). A dotted line marks the attack's baseline (x = 0). One legend serves all panels: in the grid's
    spare cell, else beside a grid of one or two columns, under a wider one.
    """
    methods = sorted(dict.fromkeys(points["method"]), key=_rank)
    names = list(dict.fromkeys(points.assign(rank=points["method"].map(_rank)).sort_values("rank")["axis"]))
    ncols = max(1, min(ncols or (2 if len(names) == 4 else 3), len(names)))
    nrows = max(1, math.ceil(len(names) / ncols))
    beside = nrows * ncols == len(names) and ncols < 3  # no spare cell, room for the legend beside the grid
    fig = Figure(figsize=(4.6 * ncols + 4.2 * beside, 4.1 * nrows + 0.5 + 1.4 * (not beside)), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False).ravel()
    style = {m: {"color": f"C{i % 10}", "marker": _MARKERS[i % len(_MARKERS)]} for i, m in enumerate(methods)}
    for ax, name in zip(grid, names):
        panel = points[points["axis"] == name]
        symlog = name.startswith("r - 1") and panel["attack"].max() > 10  # linear when every r is near 1
        unit = _unit(panel, symlog)
        for i, method in enumerate(sorted(dict.fromkeys(panel["method"]), key=_rank)):
            group = panel[panel["method"] == method].sort_values("param")
            ax.plot(group["attack"], group["error"], "-", ms=8, lw=1.6, **style[method])
            offset = (5, 4) if i % 2 == 0 else (5, -13)  # a second mechanism's labels below its points
            for x, y, text in _annotations(group, MECHANISMS.get(method, ("", ""))[1], unit):
                ax.annotate(text, (x, y), fontsize=10, xytext=offset, textcoords="offset points")
        ax.set_title(MECHANISMS.get(panel["method"].iloc[0], ("", "", ""))[2], fontsize=12)
        ax.axvline(0, color="0.5", lw=1, ls=":")
        ax.margins(x=0.15, y=0.12)
        if symlog:
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xlim(left=-0.1)
        else:
            ax.locator_params(axis="x", nbins=5)  # long tick labels (-0.0025) stay apart
        if np.ptp(panel["attack"]) == 0:  # one x for every point (nobody singled out): a readable range around it
            ax.set_xlim(panel["attack"].iloc[0] - 0.05, panel["attack"].iloc[0] + 0.05)
        ax.set_xlabel(name, fontsize=12)
        ax.set_ylabel("test error (raw rows)", fontsize=12)
        ax.tick_params(labelsize=11)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], lw=1.6, ms=8, **style[m]) for m in methods]
    labels = [MECHANISMS.get(m, (m,))[0] for m in methods]
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
