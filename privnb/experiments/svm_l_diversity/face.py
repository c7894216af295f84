"""MC16's face (notebook 01): its sections and needs, the SVM grid over one fold plan, its tables, claims and
metrics under the names every paper shares (:class:`privnb.experiments.papers.PaperFace`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from privnb.experiments.data_support import DataSupport
from privnb.experiments.papers import MC_DATA, FoldPlan, PaperFace, Section
from privnb.experiments.section_plans import sampled_support

from .claims import svm_claims
from .grid import run_svm_grid
from .tables import majority_error, svm_summary, theorem_4_1_table

__all__ = ["FACE"]

_EXPERIMENT, _THEOREM = "4. The experiment (Section 5)", "5. Theorem 4.1 on the experiment's pruned SVCs"
SECTIONS = (
    Section((_EXPERIMENT, _THEOREM), "pruned SVC/SVM (anatomy), Theorem 4.1", ("sensitive",)),
    Section((_EXPERIMENT,), "generalized views (k-anonymity)", ("hierarchies", "rows")),
    Section(("6. The paper's claims",), "the paper's claims", (MC_DATA,)),
    Section(("7. The SVM's input space",), "input spaces, ordinal centring", ("sensitive",)),
)


def _sections(**options) -> tuple[Section, ...]:
    return SECTIONS


def _run(data, plan: FoldPlan, **parameters) -> pd.DataFrame:
    return run_svm_grid(data, **plan.arguments, **{"progress": False, **parameters})


def _tables(results: pd.DataFrame, **parameters) -> dict[str, pd.DataFrame]:
    return {"summary": svm_summary(results), "theorem_4_1": theorem_4_1_table(results)}


def _metrics(results: pd.DataFrame, claims: pd.DataFrame | None = None, **parameters) -> dict:
    """The baseline's and every view's mean error, Theorem 4.1's bound per l, the claims agreeing."""
    metrics = {"majority_error": round(majority_error(results), 6)}
    for _, row in svm_summary(results).iterrows():
        error = row["mean_error"]
        metrics[f"mean_error_{row['classifier']}_{row['view']}"] = None if pd.isna(error) else round(float(error), 6)
    theorem = theorem_4_1_table(results)
    if "bound" in theorem:
        metrics |= {f"bound_4_6_L={int(r['l'])}": round(float(r["bound"]), 6) for _, r in theorem.iterrows()}
    agree = 0 if claims is None else int((claims["verdict"] == "agree").sum())
    return metrics | {"claims_agree": agree, "claims_total": 0 if claims is None else len(claims)}


def _plan(support: DataSupport, data, p: Mapping) -> list[dict]:
    """As the notebook's needs table (section 2): its sample, its ls (those above the domain N/A), k = min(ks)."""
    support = sampled_support(support, p["sample_size"])
    needs = FACE.needs()
    k = min(p["ks"], default=1)
    return support.requirements(needs, l=p["ls"], k=k, n_splits=p["n_splits"]).to_dict("records")


FACE = PaperFace(
    name="MC16",
    notebook="01_svm_l_diversity",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=svm_claims,
    metrics=_metrics,
    headline=(
        "majority_error",
        "mean_error_*_Org.",
        "mean_balanced_accuracy_*_Org.",
        "mean_auc_*_Org.",
        "mean_error_*_L=*",
        "mean_auc_*_L=*",
        "claims_agree",
        "claims_total",
    ),
    plan=_plan,
)
