"""What makes a sweep point done: the content of every file it reads through a data card, beside its parameters and
notebook code; what is recorded beside its numbers (privnb's version and commit, the inputs' digests)."""

import json
import subprocess
from pathlib import Path

import pytest
from test_sweep import dry_run, fake_run_point, runs, write_notebook, write_spec

import privnb
from privnb import sweeps as sweep
from privnb.data._card.inputs import card_inputs, input_digests
from privnb.sweeps import runner
from privnb.sweeps._provenance import privnb_provenance, provenance_text

CARD = """name: ward
file: ward.csv
roles: {quasi_identifiers: [age, zip], sensitive: diagnosis, target: y, positive: a}
columns: {age: numeric, zip: nominal, diagnosis: nominal}
missing: {markers: ["?"], action: drop}
hierarchies:
  zip: {arx: zip_hierarchy.csv}
"""

MEAN_AGE = """
import json, pathlib
from privnb.data import load
data = load(dataset)
pathlib.Path(output_dir).mkdir(parents=True, exist_ok=True)
(pathlib.Path(output_dir) / "metrics.json").write_text(json.dumps({"mean_age": float(data.frame["age"].mean())}))
"""


def write_card(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ward.csv").write_text("age,zip,diagnosis,y\n40,1301,flu,a\n49,1302,hiv,b\n?,1301,flu,a\n")
    (folder / "zip_hierarchy.csv").write_text("1301;130*;*\n1302;130*;*\n")
    (folder / "ward.yaml").write_text(CARD)
    return folder / "ward.yaml"


def test_card_inputs_are_the_card_its_data_and_hierarchy_files(tmp_path):
    card = write_card(tmp_path / "cards")
    assert [p.name for p in card_inputs(card)] == ["ward.yaml", "ward.csv", "zip_hierarchy.csv"]


def test_an_items_cards_file_is_among_its_inputs_and_editing_it_changes_the_digests(tmp_path):
    (tmp_path / "baskets.csv").write_text("a,b,class\n1,0,spam\n0,1,ham\n")
    card = tmp_path / "baskets.yaml"
    card.write_text("name: baskets\nitems: {file: baskets.csv, format: matrix, label: class, positive: spam}\n")
    assert [p.name for p in card_inputs(card)] == ["baskets.yaml", "baskets.csv"]
    before = input_digests([str(card)])
    (tmp_path / "baskets.csv").write_text("a,b,class\n1,1,spam\n0,1,ham\n")
    after = input_digests([str(card)])
    assert before.keys() == after.keys() and before != after
    assert before[str(card.resolve())] == after[str(card.resolve())]


def test_editing_the_data_a_finished_point_read_runs_it_again_and_serves_the_new_number(tmp_path, capsys):
    """A real sweep: the point's notebook reads a card; editing the CSV, then the card, runs it again."""
    write_notebook(tmp_path / "notebooks", "mean.ipynb", 'dataset = "adult"\noutput_dir = "results/x"', MEAN_AGE)
    write_card(tmp_path / "notebooks" / "sweeps" / "cards")
    spec = write_spec(tmp_path, "mean.quick.yaml", "notebook: mean.ipynb\ngrid: {dataset: [cards/ward.yaml]}\n")
    out = tmp_path / "results"
    metrics = out / "mean.quick" / "dataset=ward" / "metrics.json"
    assert sweep.run_sweeps([spec], out=out, progress=False).n_failed == 0
    assert json.loads(metrics.read_text())["mean_age"] == 44.5
    record = json.loads((out / "mean.quick" / "dataset=ward" / "point.json").read_text())
    assert {Path(p).name for p in record["inputs"]} == {"ward.yaml", "ward.csv", "zip_hierarchy.csv"}
    assert record["privnb"]["version"]

    csv = tmp_path / "notebooks" / "sweeps" / "cards" / "ward.csv"
    csv.write_text(csv.read_text().replace("49,1302", "77,1302"))
    assert dry_run(spec, out, capsys)["mean.quick/dataset=ward"] == ("to run", "inputs changed: ward.csv edited")
    summary = sweep.run_sweeps([spec], out=out, progress=False)
    assert (summary.n_run, summary.n_failed) == (1, 0)
    assert json.loads(metrics.read_text())["mean_age"] == 58.5
    report = (out / "mean.quick" / "report.md").read_text()
    assert (
        "privnb 0.1.0" in report
        and "ward.csv "
        + json.loads((out / "mean.quick" / "dataset=ward" / "point.json").read_text())["inputs"][str(csv.resolve())][:8]
        in report
    )


def test_editing_the_card_or_a_hierarchy_file_runs_the_point_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    write_notebook(tmp_path / "notebooks")
    cards = tmp_path / "notebooks" / "sweeps" / "cards"
    write_card(cards)
    spec = write_spec(tmp_path, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {label: [cards/ward.yaml]}\n")
    out = tmp_path / "results"
    sweep.run_sweeps([spec], out=out, progress=False)
    assert dry_run(spec, out, capsys)["toy.quick/label=ward"] == ("done", "done")

    (cards / "ward.yaml").write_text(CARD.replace('["?"]', '["?", "-"]'))  # a missing marker added
    assert dry_run(spec, out, capsys)["toy.quick/label=ward"] == ("to run", "inputs changed: ward.yaml edited")
    sweep.run_sweeps([spec], out=out, progress=False)
    assert dry_run(spec, out, capsys)["toy.quick/label=ward"] == ("done", "done")

    (cards / "zip_hierarchy.csv").write_text("1301;13*;*\n1302;13*;*\n")
    assert dry_run(spec, out, capsys)["toy.quick/label=ward"] == (
        "to run",
        "inputs changed: zip_hierarchy.csv edited",
    )
    runs.clear()
    assert sweep.run_sweeps([spec], out=out, progress=False).n_run == 1 and runs == ["label=ward"]


def test_a_record_without_inputs_runs_a_card_point_again(tmp_path, monkeypatch, capsys):
    """A point recorded before inputs were recorded (an older privnb) may hold numbers of other data."""
    monkeypatch.setattr(runner, "run_point", fake_run_point)
    write_notebook(tmp_path / "notebooks")
    write_card(tmp_path / "notebooks" / "sweeps" / "cards")
    spec = write_spec(tmp_path, "toy.quick.yaml", "notebook: toy.ipynb\ngrid: {label: [cards/ward.yaml, a]}\n")
    out = tmp_path / "results"
    sweep.run_sweeps([spec], out=out, progress=False)
    for point in ("label=ward", "label=a"):
        path = out / "toy.quick" / point / "point.json"
        record = json.loads(path.read_text())
        del record["inputs"]
        path.write_text(json.dumps(record))
    states = dry_run(spec, out, capsys)
    assert states["toy.quick/label=ward"] == ("to run", "inputs changed: not recorded")
    assert states["toy.quick/label=a"] == ("done", "done")


def test_the_commit_recorded_is_the_checkouts_and_the_report_shows_it_short():
    source = Path(privnb.__file__).resolve().parents[1]
    head = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("privnb does not run from a git checkout here")
    assert privnb_provenance()["commit"].removesuffix("+dirty") == head.stdout.strip()
    record = {"privnb": {"version": "0.1.0", "commit": "1a2b3c4d5e6f+dirty"}, "inputs": {"/d/ward.csv": "9c0d1e2f33"}}
    assert provenance_text(record) == "privnb 0.1.0 (1a2b3c4d+dirty); ward.csv 9c0d1e2f"
