"""Anatomy against its peers at the same l (notebook 05): error and de Finetti disclosure against l."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from privnb.workbench._frontier_words import method_words

__all__ = ["like_for_like_plot"]

_MARKERS = "osD^v<>"


def like_for_like_plot(table: pd.DataFrame, *, title: str = "") -> Figure:
    """Two panels against l, one line per mechanism: test error (majority-class error dashed) and the share
    of training rows the common adversary guesses right, with its 95% interval (the background's share, common
    to every release, dotted).

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
    if table.empty or not {"error", "common"} <= set(table.columns):
        raise ValueError("the table holds no error and common-adversary rows: run the frontier with its peers first")
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    error_ax, attack_ax = fig.subplots(1, 2)
    for i, method in enumerate(dict.fromkeys(table.index.get_level_values("method"))):
        rows = table.xs(method, level="method").sort_index()
        style = {"marker": _MARKERS[i % len(_MARKERS)], "color": f"C{i}", "label": method_words(method)[0]}
        error_ax.plot(rows.index, rows["error"], **style)
        attack_ax.plot(rows.index, rows["common"], **style)
        if {"common_advantage_low", "common_advantage_high"} <= set(rows.columns):
            low = rows["common_advantage_low"] + rows["common_baseline"]
            high = rows["common_advantage_high"] + rows["common_baseline"]
            attack_ax.fill_between(rows.index, low, high, color=f"C{i}", alpha=0.15, lw=0)
    if "common_baseline" in table:
        background = table["common_baseline"].groupby(level="l").mean()
        attack_ax.plot(background.index, background.to_numpy(), ls=":", color="0.3", label="background alone")
    if "majority_error" in table:
        majority = table["majority_error"].groupby(level="l").mean()
        error_ax.plot(majority.index, majority.to_numpy(), ls="--", color="grey", label="majority-class error")
    error_ax.set(xlabel="l (k = l for the generalizations)", ylabel="test error on raw rows", title="Classifier")
    attack_ax.set(
        xlabel="l",
        ylabel="share of training rows guessed right",
        title="The common adversary (band: 95% interval)",
    )
    for ax in (error_ax, attack_ax):
        ax.set_xticks(sorted(set(table.index.get_level_values("l"))))
        ax.grid(alpha=0.3)
    error_ax.legend(fontsize=8)
    attack_ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig
