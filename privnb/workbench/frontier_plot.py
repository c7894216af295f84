"""The privacy-utility picture of notebook 05: one point per (mechanism, parameter), one panel per kind of attack."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

__all__ = ["frontier_plot"]

_LETTER = {
    "anatomized": "l",
    "pruned": "l",
    "generalized": "k",
    "mondrian": "k",
    "k-ac": "k",
    "k-anonymity": "k",
    "safety_transform": "γ",
    "dp_laplace": "ε",
    "dp_geometric": "ε",
}


def frontier_plot(points: pd.DataFrame, *, title: str = "Measured attack success against test error"):
    """One panel per x axis (``points["axis"]``), each mechanism a labelled series; r - 1 on a log scale."""
    axes_names = list(dict.fromkeys(points["axis"]))
    fig, axes = plt.subplots(1, max(1, len(axes_names)), figsize=(4.2 * max(1, len(axes_names)), 3.8), squeeze=False)
    for ax, name in zip(axes[0], axes_names):
        panel = points[points["axis"] == name]
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("param")
            ax.plot(group["attack"], group["error"], "o-", label=method)
            for _, p in group.iterrows():
                if pd.notna(p["param"]):
                    ax.annotate(
                        f"{_LETTER.get(method, '')}={p['param']:g}",
                        (p["attack"], p["error"]),
                        fontsize=7,
                        xytext=(3, 3),
                        textcoords="offset points",
                    )
        if name.startswith("r - 1"):
            ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel(name)
        ax.set_ylabel("test error (raw rows)")
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
