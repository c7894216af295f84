"""MC17's face (notebook 02): its sections and needs, the k-NN experiment over one fold plan, its tables, claims
and metrics under the names every paper shares (:class:`privnb.experiments.papers.PaperFace`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from privnb.experiments.data_support import DataSupport
from privnb.experiments.labels import method_label
from privnb.experiments.papers import MC_DATA, FoldPlan, PaperFace, Section
from privnb.experiments.section_plans import sampled_support

from .claims import knn_claims, knn_error_table, knn_mean_errors, knn_suppression
from .cross_validation import cross_validate_knn

__all__ = ["FACE"]

_EXPERIMENTS = "3. The experiments (Section 5)"
_THEORY = (Section(("1. The toy example", "2. Theory"), "toy example, theory, Theorem 17 (synthetic)"),)
_VIEWS = Section(
    (_EXPERIMENTS, "4. Convergence", "5. Student t-tests"),
    "original, identifying and anatomized k-NN; convergence; t-tests",
    ("sensitive",),
)
_ANONYMIZED = Section((_EXPERIMENTS,), "anonymized 1-NN", ("sensitive", "hierarchies", "rows"))
_CLAIMS = Section(("6. The paper's claims",), "the paper's claims and t-test tables", ("sensitive", MC_DATA))


def _sections(*, anonymity_ks: Sequence[int] = (2,), **options) -> tuple[Section, ...]:
    """The rows of needs; the anonymized 1-NN's only with ``anonymity_ks`` (its title names them)."""
    anonymized = Section(_ANONYMIZED.headings, f"anonymized 1-NN, k in {list(anonymity_ks)}", _ANONYMIZED.needs)
    return (*_THEORY, _VIEWS, *((anonymized,) if anonymity_ks else ()), _CLAIMS)


def _run(data, plan: FoldPlan, **parameters) -> pd.DataFrame:
    return cross_validate_knn(data, **plan.arguments, **{"progress": False, **parameters})


def _tables(results: pd.DataFrame, **parameters) -> dict[str, pd.DataFrame]:
    return {"errors": knn_error_table(results), "suppression": knn_suppression(results)}


def _metrics(results: pd.DataFrame, claims: pd.DataFrame | None = None, **parameters) -> dict:
    """Every view's mean error (labelled as the paper labels it), the claims and those agreeing."""
    metrics = {
        f"mean_error_{classifier}_{method_label(method, param)}": float(value)
        for (classifier, method, param), value in knn_mean_errors(results).items()
    }
    agreeing = 0 if claims is None else int((claims["verdict"] == "agree").sum())
    return metrics | {"claims": 0 if claims is None else len(claims), "claims_agreeing": agreeing}


def _plan(support: DataSupport, data, p: Mapping) -> list[dict]:
    """As the notebook's section 0: its sample, its ls (those above the domain N/A), k = max(anonymity_ks)."""
    support = sampled_support(support, p["sample_size"])
    needs = FACE.needs(anonymity_ks=p["anonymity_ks"])
    k = max(p["anonymity_ks"] or [1])
    return support.requirements(needs, l=p["ls"], k=k, n_splits=p["n_splits"]).to_dict("records")


FACE = PaperFace(
    name="MC17",
    notebook="02_knn_l_diversity",
    sections=_sections,
    run=_run,
    tables=_tables,
    claims=knn_claims,
    metrics=_metrics,
    headline=(
        "mean_error_majority_Majority",
        "mean_error_1-NN_Org.",
        "mean_balanced_accuracy_1-NN_Org.",
        "mean_auc_1-NN_Org.",
        "mean_error_1-NN_L=*",
        "mean_auc_1-NN_L=*",
        "mean_error_1-NN_k=*",
        "claims_agreeing",
        "claims",
    ),
    plan=_plan,
)
