"""notebooks/05_privacy_utility.ipynb runs end to end with tiny parameters and writes its artifacts, on Adult and
on data cards that are none of the papers' data sets."""

import json
from pathlib import Path

import nbformat
import pandas as pd
from own_data import write_own_data

from privnb.experiments import COLUMNS

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_privacy_utility.ipynb"
TINY = {
    "n_rows": 800,
    "population_size": 4000,  # the background and LiRA's shadows on 4,000 of the other rows, not all 44,422
    "n_splits": 3,
    "folds": [0],
    "ls": [2, 3],
    "ks": [2, 5],
    "n_iter": 5,
    "anatomy_seeds": [0, 1],
    "containment_ks": [5],
    "ms": [1, 3],
    "nbc_rows": 600,
    "gammas": [2],
    "epsilons": [1.0],
    "audit_max_size": 1,
    "seed": 1,
}


def test_runs_with_tiny_parameters(run_notebook):
    out = run_notebook("05_privacy_utility.ipynb", **TINY)
    results = pd.read_parquet(out / "results.parquet")
    assert list(results.columns) == list(COLUMNS)
    assert {"anatomized", "pruned", "generalized", "mondrian", "k-ac", "full", "safety_transform", "dp_laplace"} <= set(
        results["method"]
    )
    metrics = json.loads((out / "metrics.json").read_text())
    for l in (2, 3):  # the planted-free real data still leaks: the attack beats 1/l, the reference beats it
        assert 1 / l < metrics[f"definetti_l{l}"] <= metrics[f"original_model_l{l}"] + 0.05
        low, high = metrics[f"definetti_spread_l{l}"]  # the spread over anatomy seeds
        assert 1 / l < low <= high <= 1
    assert metrics["r_safety_transform_2"] <= 2
    points = pd.read_csv(out / "frontier.csv")
    assert len(points) == metrics["n_points"] and points["error"].between(0, 1).all()
    assert points["majority_error"].between(0, 1).all() and "at_or_above_majority" in points
    assert (out / "figures" / "frontier.png").exists()
    # both linkage adversaries, on the full feature set
    assert {"linkage_items_full_m1", "linkage_values_full_m3"} <= set(metrics)
    # what the trained model leaks: every view's classifier attacked by membership inference
    leaks = pd.read_csv(out / "membership.csv")
    assert {"original", "anatomized", "pruned", "generalized", "mondrian", "full", "k-ac"} <= set(leaks["method"])
    assert leaks["membership_advantage"].between(-0.5, 0.5).all() and leaks["membership_auc"].between(0, 1).all()
    assert (
        metrics["membership_5-NN_anatomized_2"]
        == leaks.query("method == 'anatomized' and param == 2")["membership_advantage"].item()
    )
    assert _markdown(out).count("**Answer.**") == 3  # one per classifier: k-NN, linear SVM, NBC
    # one adversary for every release: the same baseline, an interval on every gain, a ranking per l
    common = {key: value for key, value in metrics.items() if key.startswith("common_")}
    assert {"common_anatomized_2", "common_l-diverse_Mondrian_3", "common_mdav_5"} <= set(common)
    assert all(low <= high for _, low, high in common.values())
    assert len({round(b, 12) for b in results.query("metric == 'common_baseline'")["value"]}) == 1
    assert _markdown(out).count("**Ranking.**") == 2 and "gain over the background" in _markdown(out)


def _markdown(out: Path) -> str:
    executed = nbformat.read(out.parent / "05_privacy_utility.ipynb", as_version=4)
    cells = [c for c in executed.cells if c.cell_type == "code"]
    return "".join(o.get("data", {}).get("text/markdown", "") for c in cells for o in c.outputs)


def test_runs_every_section_on_a_table_card(run_notebook, tmp_path):
    card = write_own_data(tmp_path / "own")["table"]
    out = run_notebook("05_privacy_utility.ipynb", **{**TINY, "dataset": str(card)})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "ward" and metrics["n_rows"] == 591
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["dataset"]) == {"ward"}
    methods = {"anatomized", "pruned", "generalized", "mondrian", "k-ac", "full", "safety_transform", "dp_laplace"}
    assert methods <= set(results["method"])
    # nothing is skipped: the requirements table says so, and no section says "Skipped."...
    executed = nbformat.read(out.parent / "05_privacy_utility.ipynb", as_version=4)
    requirements = next(c for c in executed.cells if c.cell_type == "code" and "requirements(" in c.source)
    text = "".join(o.get("data", {}).get("text/plain", "") for o in requirements.outputs)
    assert "What each section needs from ward" in text and "False" not in text
    # but LiRA: all 591 rows are in the data, so none are left for its shadow models, and the notebook says so
    markdown = _markdown(out)
    assert markdown.count("Skipped.") == 1 and "**Skipped.** *LiRA: this run uses every row of ward" in markdown
    # issue 31: the conclusions' numbers come from this run's rows, not Adult's
    assert "Section 1's 95% intervals of the gain are up to" in _markdown(
        out
    ) and "on this run's 591 rows" in _markdown(out)
    points = pd.read_csv(out / "frontier.csv")
    assert len(points) == metrics["n_points"] and set(points["dataset"]) == {"ward"}
    assert (out / "figures" / "frontier.png").exists()


def test_runs_the_linkage_alone_on_an_item_matrix(run_notebook, tmp_path):
    card = write_own_data(tmp_path / "own")["items"]
    out = run_notebook("05_privacy_utility.ipynb", **{**TINY, "dataset": str(card)})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "baskets" and {"linkage_items_full_m1", "linkage_values_full_m3"} <= set(metrics)
    assert set(pd.read_parquet(out / "results.parquet")["method"]) == {"full", "k-ac", "k-anonymity"}
    skips = _markdown(out)
    assert "Sections 1-5, anatomy and k-anonymity: 'baskets' is a binary item matrix" in skips
    assert "Published NBC views: 'baskets' is a binary item matrix" in skips
