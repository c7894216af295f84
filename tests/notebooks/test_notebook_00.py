"""notebooks/00_tour.ipynb runs end to end with tiny parameters and writes its artifacts, on Adult and on a data
card that is none of the papers' data sets."""

import json

import nbformat
import pandas as pd
from own_data import write_own_data

from privnb.experiments import COLUMNS

TINY = {"l": 2, "k": 3, "sample_size": 400, "n_splits": 2, "seed": 1}


def _outputs(executed, kind: str) -> str:
    """Every ``kind`` output (``text/html``, ``text/markdown``, ...) of the executed notebook, joined."""
    return "".join(o.get("data", {}).get(kind, "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)


def _explorer_cell(executed):
    return next(c for c in executed.cells if c.cell_type == "code" and "tour_explorer(" in c.source)


def test_tour_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("00_tour.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert set(results["method"]) == {"majority", "original", "identifying", "anatomized", "generalized", "mondrian"}
    assert set(results["fold"]) == {0, 1}
    assert results["value"].between(0, 1).all()
    assert set(results["metric"]) == {"error", "balanced_accuracy", "auc"}
    anatomized = results[results["method"] == "anatomized"]
    assert (anatomized["param"] == TINY["l"]).all()
    # the anatomized learner sees l candidate rows for every individual it kept
    assert (anatomized["n_train"] == TINY["l"] * (200 - anatomized["n_suppressed"])).all()
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["anatomy_groups"] * TINY["l"] + metrics["anatomy_rows_suppressed"] == TINY["sample_size"]
    assert {"error_original", "error_anatomized", "error_mondrian"} <= set(metrics)
    # the headline names its metrics, the error first, balanced accuracy and AUC beside it
    assert metrics["headline"][:3] == ["error_original", "balanced_accuracy_original", "auc_original"]
    assert all(key.startswith(("error_", "balanced_accuracy_", "auc_")) for key in metrics["headline"])
    assert metrics["balanced_accuracy_majority"] == metrics["auc_majority"] == 0.5
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert figures == {"toy_anatomy.png", "anatomy_suppression.png", "equivalence_classes.png", "views_error.png"}
    # the explorer's cell holds the default state as ordinary outputs (papermill has no widget frontend)
    executed = nbformat.read(out.parent / "00_tour.ipynb", as_version=4)
    cell = _explorer_cell(executed)
    html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
    text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
    for heading in (f"l = {TINY['l']}: anatomy", f"k = {TINY['k']}: equivalence classes", "SafetyTransform"):
        assert heading in html and heading in text
    assert "joined training data D_A" in html and "Equivalence classes by method" in html
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in cell.outputs)


def test_tour_runs_on_a_data_card_and_says_what_it_skips(run_notebook, tmp_path):
    # l = 7 exceeds the card's six diagnoses: anatomy is skipped; generalization, the views and the explorer run
    card = write_own_data(tmp_path / "own")["table"]
    out = run_notebook("00_tour.ipynb", **{**TINY, "l": 7, "dataset": str(card)})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "ward"
    assert "anatomy_groups" not in metrics
    assert {"full_domain_groups", "mondrian_groups", "error_original"} <= set(metrics)
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["method"]) == {"majority", "original", "generalized", "mondrian"}
    assert set(results["dataset"]) == {"ward"}
    executed = nbformat.read(out.parent / "00_tour.ipynb", as_version=4)
    html, skips = _outputs(executed, "text/html"), _outputs(executed, "text/markdown")
    assert "What each section needs from ward" in html
    assert "Skipped." in skips and "Anatomy of ward: 'diagnosis' has 6 value(s); l = 7 needs at least 7" in skips
    # the explorer generalizes the card's own quasi-identifiers with its hierarchies; its toy l starts at 6
    static = "".join(o.get("data", {}).get("text/plain", "") for o in _explorer_cell(executed).outputs)
    assert "l = 6: anatomy" in static and "severity" in static and "full-domain" in static


def test_a_k_above_a_training_folds_rows_skips_those_sections_with_the_reason(run_notebook, tmp_path):
    # 40 rows in 2 folds leave 20 training rows: k = 30 cannot be met, so generalization and the views are skipped
    card = write_own_data(tmp_path / "own")["table"]
    out = run_notebook("00_tour.ipynb", **{**TINY, "k": 30, "sample_size": 40, "dataset": str(card)})
    metrics = json.loads((out / "metrics.json").read_text())
    assert "anatomy_groups" in metrics and "error_original" not in metrics and "mondrian_groups" not in metrics
    skips = _outputs(nbformat.read(out.parent / "00_tour.ipynb", as_version=4), "text/markdown")
    reason = "k = 30 needs at least 30 rows and the smallest training fold of 2-fold cross-validation has 20"
    assert f"Full-domain k-anonymity: {reason}" in skips and f"Sections 2-5 on the data: {reason}" in skips
