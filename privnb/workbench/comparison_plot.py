"""Anatomy against its peers at the same l (notebook 05): error and de Finetti disclosure against l."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from privnb.experiments.privacy_frontier import RELEASES

__all__ = ["like_for_like_plot"]

_MARKERS = "osD^v<>"


def like_for_like_plot(table: pd.DataFrame, *, title: str = "") -> Figure:
    """Two panels against l, one line per mechanism: test error (majority-class error dashed) and the share
    guessed right by the de Finetti attack (each release's own baseline dotted, in the line's colour).

    Parameters
    ----------
    table : DataFrame
        :func:`privnb.experiments.like_for_like_table`'s rows (indexed by method and l).
    title : str
        The figure's title.

    Returns
    -------
    Figure
    """
    if table.empty or not {"error", "definetti"} <= set(table.columns):
        raise ValueError("the table holds no error and de Finetti rows: run the frontier with its peers first")
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    error_ax, attack_ax = fig.subplots(1, 2)
    for i, method in enumerate(dict.fromkeys(table.index.get_level_values("method"))):
        rows = table.xs(method, level="method").sort_index()
        kind = RELEASES.get(method)
        style = {"marker": _MARKERS[i % len(_MARKERS)], "color": f"C{i}", "label": kind.label if kind else method}
        error_ax.plot(rows.index, rows["error"], **style)
        attack_ax.plot(rows.index, rows["definetti"], **style)
        if "definetti_baseline" in rows:
            attack_ax.plot(rows.index, rows["definetti_baseline"], ls=":", color=f"C{i}")
    if "majority_error" in table:
        majority = table["majority_error"].groupby(level="l").mean()
        error_ax.plot(majority.index, majority.to_numpy(), ls="--", color="grey", label="majority-class error")
    error_ax.set(xlabel="l (k = l for the generalizations)", ylabel="test error on raw rows", title="Classifier")
    attack_ax.set(
        xlabel="l",
        ylabel="share guessed right (de Finetti, strongest)",
        title="Disclosure (dotted: each release's prior)",
    )
    for ax in (error_ax, attack_ax):
        ax.set_xticks(sorted(set(table.index.get_level_values("l"))))
        ax.grid(alpha=0.3)
    error_ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig
