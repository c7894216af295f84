"""The tour's face (notebook 00): its sections and needs, its training views (section 4) run over one fold plan,
the mean error per view, and what ``privnb data check`` plans for it (the explorer's gamma audit included).

The tour states no paper's claims: its claims table is always empty.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privnb.experiments.claims import evaluate
from privnb.experiments.data_support import DataSupport
from privnb.experiments.nbc_data import nbc_data
from privnb.experiments.papers import FoldPlan, PaperFace, Section
from privnb.experiments.section_plans import GAMMA, TOUR_GAMMA, TOUR_NBC_ATTRIBUTES, sampled_support, tour_audits

__all__ = ["FACE", "tour_views"]

_ANATOMY, _GENERALIZATION = "2. Anatomy", "3. k-anonymity by generalization"
_VIEWS, _EXPLORE = "4. Train on the protected view", "5. Explore"
SECTIONS = (
    Section((_ANATOMY, _VIEWS), "anatomy of the sample; the identifying and anatomized views", ("sensitive",)),
    Section((_GENERALIZATION, _VIEWS, _EXPLORE), "full-domain k-anonymity", ("hierarchies", "rows")),
    Section(
        (_ANATOMY, _GENERALIZATION, _VIEWS, _EXPLORE),
        "anything on the data (Mondrian, the original view, the explorer's k)",
        ("table", "rows"),
    ),
)
EXPLORER = Section((_EXPLORE,), "the explorer's gamma audit")


def _sections(**options) -> tuple[Section, ...]:
    """The tour's rows of needs: anatomy, full-domain k-anonymity, everything else on the data."""
    return SECTIONS


def tour_views(data, *, l: int, k: int, hierarchies=None, anatomy: bool = True, full_domain: bool = True) -> dict:
    """The training views of the tour's section 4, each the same logistic regression (one-hot nominal attributes,
    standardized numbers): the original rows, the majority class, the identifying table and the anatomized data
    at ``l`` (with ``anatomy``), full-domain (with ``full_domain`` and hierarchies) and Mondrian k-anonymous rows
    at ``k`` (a generalized attribute read as nominal).

    Parameters
    ----------
    data : Dataset
        The table, with roles.
    l, k : int
        Anatomy's l and k-anonymity's k.
    hierarchies : mapping, optional
        Full-domain generalization hierarchies (default the data set's).
    anatomy, full_domain : bool
        Whether the anatomized and identifying views and the full-domain view are built.

    Returns
    -------
    dict
        Key -> estimator, as :func:`privnb.experiments.cross_validate_views` takes them.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from privnb.experiments.folds import majority_view
    from privnb.learn import (
        AnatomizedTraining,
        FrameEncoder,
        GeneralizedTraining,
        IdentifyingTraining,
        OriginalTraining,
        generalized_kinds,
    )

    def logistic(kinds=None):
        encoder = FrameEncoder(kinds=kinds or dict(data.kinds), orders=dict(data.orders), scheme="standard")
        return make_pipeline(encoder, LogisticRegression(max_iter=2000))

    hierarchies = hierarchies if hierarchies is not None else getattr(data, "hierarchies", None)
    generalized = dict(
        quasi_identifiers=list(data.quasi_identifiers),
        k=k,
        hierarchies=hierarchies,
        kinds=data.kinds,
        orders=data.orders,
    )
    views = {"original": OriginalTraining(logistic()), ("majority", "majority", None): majority_view().estimator}
    if anatomy:
        views["identifying"] = IdentifyingTraining(logistic(), sensitive=data.sensitive)
        views[("anatomized", l)] = AnatomizedTraining(logistic(), sensitive=data.sensitive, l=l)
    if full_domain and hierarchies:
        full_domain_kinds = generalized_kinds(data.kinds, hierarchies)
        views[("generalized", k)] = GeneralizedTraining(
            logistic(full_domain_kinds), method="full-domain", **generalized
        )
    mondrian_kinds = generalized_kinds(data.kinds, dict.fromkeys(data.quasi_identifiers))
    views[("mondrian", k)] = GeneralizedTraining(logistic(mondrian_kinds), method="mondrian", **generalized)
    return views


def _run(data, plan: FoldPlan, *, l: int = 3, k: int = 5, **options) -> pd.DataFrame:
    """:func:`tour_views` cross-validated over ``plan`` (every fold: the tour takes no fold subset)."""
    from privnb.experiments.folds import cross_validate_views

    if plan.folds is not None:
        raise ValueError("the tour runs every fold of its plan; leave FoldPlan.folds at None")
    views = tour_views(data, l=l, k=k, **options)
    return cross_validate_views(data, views, n_splits=plan.n_splits, random_state=plan.random_state, progress=False)


def _tables(results: pd.DataFrame, **parameters) -> dict[str, pd.DataFrame]:
    """The mean test error, training rows and suppressed rows per (method, param) over the folds."""
    errors = results[results["metric"] == "error"]
    summary = errors.groupby(["method", "param"], dropna=False)[["value", "n_train", "n_suppressed"]].mean()
    return {"summary": summary}


def _claims(results: pd.DataFrame, dataset: str, **parameters) -> pd.DataFrame:
    """No claims: the tour checks no paper's statements (the empty claims table)."""
    return evaluate((), None)


def _metrics(results: pd.DataFrame, claims: pd.DataFrame | None = None, **parameters) -> dict:
    """``error_<method>``: the mean test error of each view over the folds."""
    summary = _tables(results)["summary"]
    return {f"error_{method}": round(float(row["value"]), 6) for (method, _), row in summary.iterrows()}


def _tour_plan(support: DataSupport, data, p: Mapping) -> list[dict]:
    if sampled_support(support, p["sample_size"]) is not support:
        support = support.for_rows(p["sample_size"])
        data = data.sample(p["sample_size"], random_state=p["seed"])
    needs = {section.title: list(section.needs) for section in SECTIONS}
    table = support.requirements(needs, l=p["l"], k=p["k"], n_splits=p["n_splits"])
    rows = table.to_dict("records")
    if table["why not"].iloc[-1]:
        return rows
    nbc = nbc_data(support, data, list(TOUR_NBC_ATTRIBUTES))
    section = EXPLORER.titled(f"the explorer's {GAMMA} audit (at {GAMMA} = {TOUR_GAMMA:g})")
    if nbc.missing:
        return [*rows, {"section": section, "needs": "discrete attributes", "runs": False, "why not": nbc.missing}]
    from privnb.nbc import NBCViews

    views = NBCViews.from_frame(nbc.frame, nbc.attributes, nbc.target)
    _, plans = tour_audits(
        views, TOUR_GAMMA, audit_max_size=1, audit_memory=p.get("audit_memory"), random_state=p["seed"]
    )
    notes = "; ".join(f"{name}: {plan.why}" for name, (_, plan) in plans.items() if plan.why)
    runs = all(plan.runs for _, plan in plans.values())
    return [*rows, {"section": section, "needs": "audit_memory", "runs": runs, "why not": notes}]


FACE = PaperFace(
    name="tour",
    notebook="00_tour",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=_claims,
    metrics=_metrics,
    headline=(
        "error_original",
        "balanced_accuracy_original",
        "auc_original",
        "error_majority",
        "error_*",
        "balanced_accuracy_*",
        "auc_*",
    ),
    planned=(EXPLORER,),
    plan=_tour_plan,
)
