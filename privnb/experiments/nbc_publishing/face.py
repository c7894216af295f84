"""MZ09's face (notebook 04): its sections and needs, Figure 9 over one split of the fold plan's seed, its tables,
claims and metrics under the names every paper shares (:class:`privnb.experiments.papers.PaperFace`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privnb.experiments.claims import evaluate
from privnb.experiments.data_support import DataSupport
from privnb.experiments.folds import tidy_frame
from privnb.experiments.nbc_data import AUDITS, SECTIONS, NBCData, nbc_data, nbc_requirements
from privnb.experiments.papers import FoldPlan, PaperFace, Section

from .claims import claims_table, figure9_metrics
from .figure9 import figure9, figure9_table
from .release import planned_audit_plans

__all__ = ["FACE"]


def _sections(**options) -> tuple[Section, ...]:
    return SECTIONS


def _run(data: NBCData, plan: FoldPlan, *, k_values=(2, 5, 10), **options) -> pd.DataFrame:
    """Figure 9's rows (:func:`figure9`) on ``data`` (:func:`nbc_data`'s answer): one stratified split seeded by
    the plan (the paper's experiment is one split, not folds).
    """
    if data.missing or data.figure9_missing:
        raise ValueError(f"Figure 9 cannot run on {data.name}: {data.missing or data.figure9_missing}")
    _, rows = figure9(
        data.frame,
        data.attributes,
        k_values,
        class_column=data.target,
        hierarchies=data.hierarchies,
        dataset=data.name,
        random_state=plan.random_state,
        **options,
    )
    return tidy_frame(rows)


def _tables(results: pd.DataFrame, **parameters) -> dict[str, pd.DataFrame]:
    return {"figure9": figure9_table(results)}


def _claims(results: pd.DataFrame, dataset: str, *, metrics: Mapping | None = None, **evidence) -> pd.DataFrame:
    """:func:`claims_table` on Adult with the notebook's ``metrics`` and evidence (``fig8``, ``gammas``,
    ``figure1_views``, ``alice``); empty for another data set or without them.
    """
    if dataset != "adult" or metrics is None:
        return evaluate((), None)
    views, alice = evidence["figure1_views"], evidence["alice"]
    return claims_table(metrics, evidence["fig8"], evidence["gammas"], figure1_views=views, alice=alice)


def _metrics(results: pd.DataFrame, claims: pd.DataFrame | None = None, **parts: Mapping) -> dict:
    """Figure 9's headline numbers (:func:`figure9_metrics`), with the notebook's other parts merged (the exact
    audits', Figure 8's, EST's metrics, each a mapping).
    """
    metrics = figure9_metrics(_tables(results)["figure9"]) if len(results) else {}
    for part in parts.values():
        metrics |= dict(part)
    return metrics


def _requirements(support: DataSupport, data, *, l: int = 2) -> pd.DataFrame:
    return nbc_requirements(support, nbc_data(support, data, ()))


def _plan(support: DataSupport, data, p: Mapping) -> list[dict]:
    """The needs table, then the exact audits of every gamma planned within ``audit_memory``."""
    nbc = nbc_data(support, data, p["attributes"], n_rows=p["n_rows"], random_state=p["seed"])
    rows = nbc_requirements(support, nbc).to_dict("records")
    if nbc.missing:
        return rows
    from privnb.nbc import NBCViews

    views = NBCViews.from_frame(nbc.frame, nbc.attributes, nbc.target)
    notes = planned_audit_plans(views, p["gammas"], audit_memory=p.get("audit_memory"), random_state=p["seed"])
    return [*rows, {"section": AUDITS.title, "needs": "audit_memory", "runs": True, "why not": notes}]


FACE = PaperFace(
    name="MZ09",
    notebook="04_nbc_publishing",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=_claims,
    metrics=_metrics,
    headline=(
        "accuracy_majority",
        "accuracy_original",
        "accuracy_drop_max",
        "r_closeness_original",
        "r_closeness_at_max_gamma",
        "est_r",
    ),
    planned=(AUDITS,),
    requirements=_requirements,
    plan=_plan,
)
