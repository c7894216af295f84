"""Notebook 05's face: its sections and needs, every release attacked over one fold plan, its tables and headline
metrics under the names every paper shares (:class:`privnb.experiments.papers.PaperFace`). The frontier checks no
paper's statements: its claims table is empty.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privnb.experiments.claims import evaluate
from privnb.experiments.data_support import DataSupport
from privnb.experiments.papers import FoldPlan, PaperFace, Section
from privnb.experiments.section_plans import frontier_sizes, sampled_support

from .leakage import membership_table
from .points import frontier_points, view_table
from .readings import adversary_table
from .runners import anatomy_and_k_anonymity

__all__ = ["FACE"]

_K_ANONYMITY = "3. k-anonymity: re-identification and homogeneity"
_LINKAGE, _NBC = "6. k-anonymity by containment (FSAC)", "7. Published NBC views (MZ09)"
_ANATOMY = (
    "1. One adversary for every release",
    "2. Anatomy (MC17, MC16)",
    "4. The utility of every release",
    "5. Like for like",
)
SIZED = Section((_LINKAGE, _NBC), "linkage and NBC audits, sized to the data")
"""The row ``privnb data check`` adds: the linkage's m and the NBC audits as the setup cell sizes them."""


def _sections(*, items: bool = False, **options) -> tuple[Section, ...]:
    """The rows of needs; the linkage takes an item matrix as given, else binarizes the table (``items``)."""
    linkage = "containment linkage (an item matrix, or a table binarized as in notebook 03)"
    return (
        Section(_ANATOMY, "the common adversary, anatomy's attacks, utility, like for like", ("sensitive",)),
        Section((_K_ANONYMITY,), "full-domain k-anonymity", ("sensitive", "hierarchies", "rows")),
        Section((_K_ANONYMITY,), "Mondrian and MDAV k-anonymity", ("sensitive", "rows")),
        Section((_LINKAGE,), linkage, ("items" if items else "table",)),
        Section((_NBC,), "published NBC views (discrete attributes)", ("table",)),
    )


def _run(data, plan: FoldPlan, **parameters) -> pd.DataFrame:
    return anatomy_and_k_anonymity(data, **plan.arguments, **parameters)


def _tables(results: pd.DataFrame, *, m: int = 5, **parameters) -> dict[str, pd.DataFrame]:
    return {"adversary": adversary_table(results), "frontier": frontier_points(results, m=m)}


def _claims(results: pd.DataFrame, dataset: str, **parameters) -> pd.DataFrame:
    """No claims: the frontier measures, it checks no paper's statements (the empty claims table)."""
    return evaluate((), None)


def _metrics(results: pd.DataFrame, claims: pd.DataFrame | None = None, *, m: int = 5, **parameters) -> dict:
    """The headline families, as notebook 05 names them: the de Finetti attack per l, homogeneity per (method,
    k), the values adversary's linkage on the full feature set per m, each NBC release's achieved r, and the
    membership advantage of each view's classifier.
    """
    present, metrics = set(results["method"]), {}
    if "anatomized" in present:
        guess = view_table(results, ["anatomized"], ["definetti"], by_metric=True)
        metrics |= {f"definetti_l{view.split()[1]}": column["definetti"] for view, column in guess.items()}
    kanon = view_table(results, ["generalized", "mondrian", "mdav"], ["homogeneity"])
    if "homogeneity" in kanon:
        metrics |= {f"homogeneity_{method}_k{int(k)}": row["homogeneity"] for (method, k), row in kanon.iterrows()}
    names = sorted(name for name in set(results["metric"]) if name.startswith("linkage_"))
    if "full" in present and names:
        linkage = view_table(results, ["full"], names, by_metric=True)
        metrics |= {name.replace("_m", "_full_m"): linkage.loc[name, "full"] for name in names}
    audits = view_table(results, ["original", "safety_transform", "dp_laplace", "dp_geometric"], ["r_closeness"])
    if "r_closeness" in audits:
        metrics |= {f"r_{method}_{p:g}": row["r_closeness"] for (method, p), row in audits.iterrows()}
    if "membership" in set(results["metric"]):
        for row in membership_table(results, m=m).itertuples():
            view = row.method if pd.isna(row.param) else f"{row.method}_{row.param:g}"
            metrics[f"membership_{row.classifier}_{view}"] = row.membership_advantage
    return metrics


def _plan(support: DataSupport, data, p: Mapping) -> list[dict]:
    """As the notebook's section 0 (its sample, its ls with those above the domain N/A, k = min(ks)), then the
    linkage and the NBC audits as its setup cell sizes them (:func:`frontier_sizes`).
    """
    support = sampled_support(support, p["n_rows"])
    needs = FACE.needs(items=support.items)
    table = support.requirements(needs, l=p["ls"], k=min(p["ks"], default=1), n_splits=p["n_splits"])
    ms, gammas, size, lines = frontier_sizes(support, data, p)
    section = SIZED.titled(f"linkage with m in {ms}; NBC audits of up to {size} attribute(s), gammas {gammas}")
    sized = {"section": section, "needs": "ms, audit_memory", "runs": bool(ms), "why not": "; ".join(lines)}
    return [*table.to_dict("records"), sized]


FACE = PaperFace(
    name="frontier",
    notebook="05_privacy_utility",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=_claims,
    metrics=_metrics,
    headline=(
        "definetti_l*",
        "homogeneity_*",
        "linkage_values_full_m*",
        "r_safety_transform_*",
        "r_dp_laplace_*",
        "membership_5-NN_original",
        "membership_5-NN_anatomized_*",
    ),
    planned=(SIZED,),
    plan=_plan,
)
