"""FSAC's face (notebook 03): its sections and needs, the selection experiment over one fold plan, its tables,
claims and metrics under the names every paper shares (:class:`privnb.experiments.papers.PaperFace`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privnb.experiments.claims import evaluate
from privnb.experiments.papers import FoldPlan, PaperFace, Section

from .claims import selection_claims_table
from .inputs import SECTIONS, SelectionInput
from .runner import evaluate_datasets
from .tables import PAPER_TABLES, ac_table, auc_tables, selection_metrics, side_by_side, summary_table

__all__ = ["FACE"]

PAPER_DATASETS = tuple(PAPER_TABLES["dataset"].unique())
"""The data sets the paper reports numbers for (Tables 5-6)."""


def _sections(**options) -> tuple[Section, ...]:
    return SECTIONS


def _run(data: SelectionInput | Mapping[str, SelectionInput], plan: FoldPlan, **parameters) -> pd.DataFrame:
    """:func:`evaluate_datasets` on ``data`` (one prepared data set, or name -> data set); every fold."""
    if plan.folds is not None:
        raise ValueError("the selection experiment runs every fold of its plan; leave FoldPlan.folds at None")
    inputs = {data.name: data} if isinstance(data, SelectionInput) else dict(data)
    protocol = {name: (item.X, item.y, item.max_items) for name, item in inputs.items()}
    results, _ = evaluate_datasets(
        protocol, list(inputs), n_splits=plan.n_splits, random_state=plan.random_state, **parameters
    )
    return results


def _tables(results: pd.DataFrame, *, n_splits: int = 5, **parameters) -> dict[str, pd.DataFrame]:
    summary = summary_table(results, n_splits=n_splits)
    return {"summary": summary, "auc": auc_tables(summary), "ac": ac_table(summary)}


def _claims(results: pd.DataFrame, dataset: str, *, n_splits: int = 5, margin: float = 0.01) -> pd.DataFrame:
    """The claims of Section 5.2 on ``dataset``'s rows (empty for a data set the paper does not report)."""
    if dataset not in PAPER_DATASETS:
        return evaluate((), None)
    summary = summary_table(results[results["dataset"] == dataset], n_splits=n_splits)
    return selection_claims_table(summary, margin=margin)


def _metrics(
    results: pd.DataFrame, claims: pd.DataFrame | None = None, *, n_splits: int = 5, seconds: Mapping | None = None
) -> dict:
    """:func:`selection_metrics` of the run: AUC and feature count per method, rank correlations with the paper."""
    summary = summary_table(results, n_splits=n_splits)
    papers = [name for name in PAPER_DATASETS if name in set(summary["dataset"])]
    side = side_by_side(summary[summary["dataset"].isin(papers)], papers) if papers else None
    return selection_metrics(summary, side, seconds or {})


FACE = PaperFace(
    name="FSAC",
    notebook="03_feature_selection_k_ac",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=_claims,
    metrics=_metrics,
    headline=("*_majority_auc", "*_full_auc", "*_greedy-distcnt_*_auc", "*_greedy-hamdist_*_auc", "*_maximal_*_auc"),
)
