"""Figure 1 of FSAC: the DP baselines' AUC per data set and epsilon, against the majority-class baseline."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.experiments.feature_selection._svm import CONSTANT_AUC
from privnb.experiments.feature_selection._views import LABELS


def dp_figure(summary: pd.DataFrame, epsilons: Sequence[float], methods=("laplace-dp", "exponential-dp")):
    """Bars of each DP method's AUC per data set and epsilon (std over runs as error bars), the majority-class
    baseline (a constant score, AUC 0.5) as a dashed line, and the bars at or below it hatched.

    Parameters
    ----------
    summary : DataFrame
        A :func:`privnb.experiments.feature_selection.summary_table`.
    epsilons : sequence of float
        The budgets to show, one bar each.
    methods : sequence of str
        The DP methods, one panel each.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    majority = summary.loc[summary["method"] == "majority", "auc"]
    line = float(majority.max()) if len(majority) else CONSTANT_AUC
    fig, axes = plt.subplots(1, len(methods), figsize=(5 * len(methods), 3.6), sharey=True, squeeze=False)
    width = 0.8 / max(1, len(epsilons))
    for ax, method in zip(axes[0], methods):
        part = summary[summary["method"] == method]
        names = list(dict.fromkeys(part["dataset"]))
        for j, eps in enumerate(epsilons):
            rows = part[np.isclose(part["param"], eps)].set_index("dataset").reindex(names)
            bars = ax.bar(
                np.arange(len(names)) + j * width,
                rows["auc"],
                width,
                yerr=rows["auc_std"].fillna(0),
                label=f"ε = {eps}",
                capsize=3,
            )
            for bar, auc in zip(bars, rows["auc"]):
                if auc <= line:
                    bar.set_hatch("//")
        ax.set_xticks(np.arange(len(names)) + width * (len(epsilons) - 1) / 2, names)
        ax.set_title(LABELS[method])
        ax.axhline(line, color="grey", lw=0.8, ls="--", label=f"majority (AUC {line:.2f})")
    axes[0][0].set_ylabel("AUC")
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1))  # beside the bars, not over them
    return fig
