"""Issue 31: every notebook runs on a card it has never seen, with its own defaults, and ``privnb data check``
predicts what each does. The card (tests/own_data.py's survey: 2,000 rows, quasi-identifiers sex, age 0-110
and income, a four-value sensitive attribute, a count target made binary by ``"> 0"``, no hierarchies) is the
shape that stopped 00, 04 and 05 before: its NBC views count sex alone, so SafetyTransform publishes counts
near 10^8 whose exact audit needs 2.4-7.7 GiB, over the 2 GiB budget; its binarized rows hold 4 items, not
notebook 05's m = 5.
"""

import html
import json

import nbformat
import pytest
from own_data import write_survey

from privnb.experiments import NOTEBOOKS, card_check
from privnb.experiments.notebook_parameters import notebook_defaults

SKIPPED = "**Skipped.**"
NOT_RUN = {  # l = 5 is above the card's four sensitive values: the check names it N/A, no number is written
    "01_svm_l_diversity": "mean_error_SVC_L=5",
    "02_knn_l_diversity": "mean_error_1-NN_L=5",
}
RAN = {  # metrics only the sections the check lists as running on this card write
    "00_tour": {"anatomy_groups", "mondrian_groups", "error_original", "error_anatomized"},
    "01_svm_l_diversity": {"mean_error_SVC_L=2", "mean_error_SVC_L=4"},
    "02_knn_l_diversity": {"mean_error_1-NN_L=2", "mean_error_1-NN_L=4"},
    "04_nbc_publishing": {"r_closeness_original", "p_positive"},
    "05_privacy_utility": {"n_rows", "linkage_items_full_m1"},
}


def _outputs(executed) -> str:
    """Every text, Markdown and HTML output of the executed notebook, unescaped, joined."""
    parts = []
    for cell in executed.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = output.get("data", {})
            parts += [data.get(kind, "") for kind in ("text/plain", "text/markdown", "text/html")]
            parts.append(output.get("text", ""))
    return html.unescape("\n".join(parts))


def _parts(why: str) -> list[str]:
    """The lines a check row joins with "; ", each without its "name: " prefix (the notebook names it its way)."""
    parts = []
    for part in why.split("; "):
        head, _, rest = part.partition(": ")
        parts.append(rest if rest and len(head) < 40 and "(" not in head else part)
    return parts


@pytest.mark.slow
def test_every_notebook_runs_on_a_new_card_with_its_defaults_as_the_check_plans(run_notebook, tmp_path):
    card = write_survey(tmp_path / "survey", n=2000)
    defaults = notebook_defaults()
    assert sorted(defaults) == sorted(NOTEBOOKS)
    plans = card_check(card, defaults).requirements
    # what the check predicts for this card: the adapted audits and m, and the skipped full-domain sections
    explorer = plans[plans.section.str.startswith("5. the explorer's")].iloc[0]
    assert explorer.runs and "method 'expected'" in explorer["why not"]
    nbc = plans[(plans.notebook == "05_privacy_utility") & plans.section.str.startswith("6-7. linkage")].iloc[0]
    assert "audit_max_size = 2 lowered to 1" in nbc["why not"] and "gamma 2 left out of gammas" in nbc["why not"]
    anatomy = plans[plans.section.str.startswith("4-5. pruned SVC/SVM")].iloc[0]
    assert anatomy.runs and anatomy["why not"] == "l = 5 recorded N/A: 'insurance' has 4 values (ls up to 4 run)"
    for notebook in NOTEBOOKS:
        parameters = {"datasets": [str(card)]} if notebook.startswith("03") else {"dataset": str(card)}
        out = run_notebook(f"{notebook}.ipynb", **parameters)  # papermill raises on any cell's error
        metrics = json.loads((out / "metrics.json").read_text())
        assert RAN.get(notebook, set()) <= set(metrics), notebook
        assert metrics.get(NOT_RUN.get(notebook)) is None, notebook
        executed = nbformat.read(tmp_path / f"{notebook}.ipynb", as_version=4)
        shown = _outputs(executed)
        skips = [line for line in shown.splitlines() if line.startswith(SKIPPED)]
        assert all(len(line) < 400 for line in skips), skips  # one line each, saying why
        for _, row in plans[plans.notebook == notebook].iterrows():
            for part in _parts(row["why not"]) if row["why not"] else []:
                assert part in shown, (notebook, row["section"], part)
