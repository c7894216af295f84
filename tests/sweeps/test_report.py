"""Sweep reports: headline numbers first, each point's claims table with its verdict counts, links and paths
relative to the report (never the machine's absolute paths), and a sweep log free of the kernel's
"TCP without encryption" warnings."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from privnb.sweeps._kernels import kernel_options

BODY = """
import json, pathlib
import pandas as pd
out = pathlib.Path(output_dir)
out.mkdir(parents=True, exist_ok=True)
if x == 2:
    raise RuntimeError(f"boom in {out}")
(out / "metrics.json").write_text(json.dumps({"headline_error": 0.25, "claims_agree": 2}))
pd.DataFrame({"aspect": ["accuracy", "suppression", "bound"], "paper": ["a", "b", "c"],
              "privnb measures": ["1", "2", "3"], "verdict": ["agree", "agree", "differ"]}).to_csv(
    out / "claims.csv", index=False)
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('x = 1\noutput_dir = "results/toy"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(BODY)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (root / "notebooks" / "sweeps").mkdir(parents=True)
    nbformat.write(nb, root / "notebooks" / "toy.ipynb")
    spec = root / "notebooks" / "sweeps" / "toy.quick.yaml"
    spec.write_text("notebook: toy.ipynb\ngrid: {x: [1, 2]}\n")
    out = root / "results"
    done = subprocess.run(
        [sys.executable, "-m", "privnb", "sweep", str(spec), "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 1, done.stderr  # one point fails on purpose
    return root, out, done.stdout + done.stderr


def test_sweep_log_has_no_tcp_warning(swept):
    root, _, log = swept
    assert "without encryption" not in log
    assert not list((root / "notebooks").glob("kernel-*"))  # IPC sockets live in the runtime dir, not here
    assert "failed toy.quick/x=2" in log


def test_a_sweep_says_what_it_runs_before_its_first_point_finishes(swept):
    """Issue 31: `make run` showed nothing for its first minutes."""
    _, _, log = swept
    line = next(line for line in log.splitlines() if line.startswith("running "))
    assert line.startswith("running 2 point(s) of toy.quick on 1 worker(s): each point executes a notebook")
    assert log.index(line) < log.index("failed toy.quick/x=2")


def test_kernels_run_over_ipc_where_the_socket_path_fits():
    from jupyter_core.paths import jupyter_runtime_dir

    if len(jupyter_runtime_dir()) < 40:
        assert kernel_options()["kernel_manager_class"]().transport == "ipc"


def test_report_has_no_absolute_paths(swept):
    root, out, _ = swept
    for name in ("report.md", "report.html"):
        text = (out / "toy.quick" / name).read_text()
        assert str(root) not in text and str(Path.home()) + "/" not in text, name
    markdown = (out / "toy.quick" / "report.md").read_text()
    assert "[notebook toy.ipynb](../../notebooks/toy.ipynb)" in markdown
    assert "[spec toy.quick.yaml](../../notebooks/sweeps/toy.quick.yaml)" in markdown
    assert "boom in x=2" in markdown or "boom in ./x=2" in markdown
    index = (out / "report.md").read_text()
    assert str(root) not in index and "[toy.quick](toy.quick/report.md)" in index


def test_headline_numbers_come_first(swept):
    _, out, _ = swept
    markdown = (out / "toy.quick" / "report.md").read_text()
    headline = markdown.index("## Headline numbers")
    assert headline < markdown.index("## Points") and headline < markdown.index("## About this sweep")
    assert "| point | x | headline_error | claims_agree | claims |" in markdown
    assert "| x=1 | 1 | 0.25 | 2 | 2 agree, 1 differ |" in markdown


def test_each_points_claims_table_with_its_verdict_counts(swept):
    _, out, _ = swept
    markdown = (out / "toy.quick" / "report.md").read_text()
    assert "### x=1: 2 agree, 1 differ" in markdown
    assert "| aspect | paper | privnb measures | verdict |" in markdown
    assert "| bound | c | 3 | differ |" in markdown
    assert "[claims.csv](x=1/claims.csv)" in markdown
    html = (out / "toy.quick" / "report.html").read_text()
    assert "<th>verdict</th>" in html and '<a href="x=1/claims.csv">' in html


def write_point(sweep_dir, pid: str, x: int, **artifacts) -> dict:
    """A finished point of a hand-made sweep folder, its artifacts written by the notebook helper."""
    from privnb.workbench import write_artifacts

    (sweep_dir / pid).mkdir(parents=True)
    write_artifacts(sweep_dir / pid, **artifacts)
    return {"point": pid, "parameters": {"x": x}, "status": "ok", "error": "", "duration_s": 1.0}


def hand_made_sweep(sweep_dir, records: list[dict]) -> str:
    from privnb.sweeps.report import write_sweep_outputs

    spec = {"name": "toy.quick", "notebook": str(sweep_dir / "toy.ipynb"), "path": str(sweep_dir / "s.yaml")}
    spec.update(parameters={}, grid={"x": [1, 2]}, description="")
    (sweep_dir / "points.json").write_text(json.dumps({"sweep": "toy.quick", "spec": spec, "points": records}))
    write_sweep_outputs(sweep_dir)
    return (sweep_dir / "report.md").read_text()


def test_a_notebooks_headline_numbers_come_first_in_the_report(tmp_path):
    constants = {f"theorem_17_c{i}": 1.5 for i in range(4)}
    records = [
        write_point(tmp_path, "x=1", 1, metrics={**constants, "error": 0.25, "gap": 0.1}, headline=["error", "gap"]),
        write_point(tmp_path, "x=2", 2, metrics={**constants, "error": 0.5}),  # no headline: shown all the same
    ]
    assert json.loads((tmp_path / "x=1" / "metrics.json").read_text())["headline"] == ["error", "gap"]
    markdown = hand_made_sweep(tmp_path, records)
    header = "| point | x | error | gap | theorem_17_c0 | theorem_17_c1 | theorem_17_c2 | theorem_17_c3 |"
    assert header in markdown
    assert "| x=1 | 1 | 0.25 | 0.1 | 1.5 |" in markdown and "| x=2 | 2 | 0.5 |  | 1.5 |" in markdown


@pytest.mark.parametrize(
    "metrics, headline, message",
    [
        ({"error": 0.1}, ["errror"], r"headline keys \['errror'\] are not in metrics"),
        (None, ["error"], "pass metrics"),
        ({"error": 0.1}, "error", "list of metric keys"),
        ({"headline": 1.0}, None, "may not be named 'headline'"),
    ],
)
def test_a_headline_must_name_metrics(tmp_path, metrics, headline, message):
    from privnb.workbench import write_artifacts

    with pytest.raises(ValueError, match=message):
        write_artifacts(tmp_path, metrics=metrics, headline=headline)
    assert not (tmp_path / "metrics.json").exists()


def test_wide_tables_scroll_inside_the_page():
    from privnb.sweeps._report_pages import render_html

    page = render_html([("h1", "T"), ("table", [f"column {i}" for i in range(40)], [["1"] * 40])])
    assert '<div class="wide"><table>' in page and "</table></div>" in page
    assert ".wide{overflow-x:auto" in page


def test_reports_render_maths_with_a_local_mathjax_copied_beside_them(tmp_path, monkeypatch):
    import privnb.sweeps._report_pages as report_pages
    from privnb.sweeps.report import write_index

    source = tmp_path / "package_static"
    (source / "jax").mkdir(parents=True)
    (source / "MathJax.js").write_text("/* MathJax */")
    (source / "jax" / "input.js").write_text("/* a part MathJax loads on demand */")
    monkeypatch.setattr(report_pages, "mathjax_source", lambda: source)
    out = tmp_path / "results"
    records = [write_point(out / "toy.quick", "x=1", 1, metrics={"error": 0.25})]
    hand_made_sweep(out / "toy.quick", records)
    write_index(out)
    assert (out / "_static" / "mathjax" / "jax" / "input.js").exists()
    page = (out / "toy.quick" / "report.html").read_text()
    assert (
        '<script src="../_static/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>' in page
        and "inlineMath" in page
    )
    assert '<script src="_static/mathjax/MathJax.js?config=' in (out / "report.html").read_text()
    assert "http" not in page  # nothing from a CDN

    monkeypatch.setattr(report_pages, "mathjax_source", lambda: None)  # not installed: the page still renders
    assert "<script" not in report_pages.render_html([("h1", "T"), ("p", "$x^2$")], report_pages.mathjax_url(out, out))


def test_executed_notebooks_are_exported_with_the_local_mathjax(tmp_path):
    import nbformat

    from privnb.sweeps._report_pages import MATHJAX_FOLDER, export_notebook_html, mathjax_source

    if mathjax_source() is None:
        pytest.skip("jupyter-server-mathjax is not installed")
    notebook = tmp_path / "sweep" / "point" / "notebook.ipynb"
    notebook.parent.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(r"The bound $$R \le 2 R^*$$ holds.")]
    nbformat.write(nb, notebook)
    page = export_notebook_html(notebook, tmp_path)
    text = page.read_text()
    assert page == notebook.with_suffix(".html") and r"R \le 2 R^*" in text
    assert f"../../{MATHJAX_FOLDER}/MathJax.js?config=" in text and "libs/mathjax" not in text
    assert (tmp_path / MATHJAX_FOLDER / "MathJax.js").is_file()
    assert ".jp-OutputArea-output { overflow-x: auto; }" in text  # a wide table scrolls inside its cell


def test_reports_read_like_a_summary_however_many_numbers_a_notebook_writes(tmp_path):
    """Issue 31: 05's report listed ~150 headline names in one paragraph and a 43-column table; the index now
    shows each point's first few headline numbers in one short table and links the rest."""
    from privnb.experiments import tidy_frame
    from privnb.sweeps.report import write_index

    out = tmp_path / "results"
    metrics = {f"attack_{i}": i / 1000 for i in range(150)}
    headline = [f"attack_{i}" for i in range(20)]
    results = tidy_frame([("d", "5-NN", "anatomized", float(p), 0, "error", 0.2, 10, 0, "") for p in range(43)])
    records = [write_point(out / "toy.quick", "x=1", 1, metrics=metrics, headline=headline, results=results)]
    markdown = hand_made_sweep(out / "toy.quick", records)
    assert "attack_149" not in markdown and "attack_30" not in markdown  # counted and linked, not listed
    assert "142 more numbers in each point's [metrics.json](x=1/metrics.json)" in markdown
    means = next(line for line in markdown.splitlines() if line.startswith("| point | dataset | classifier"))
    assert means.count("|") - 1 == 4 + 12  # the table's keys and at most 12 views
    assert "The first 12 of 43 views" in markdown and "[results.parquet](results.parquet)" in markdown
    write_index(out)
    index = (out / "report.md").read_text()
    assert "## Headline numbers" in index and "| sweep | point | headline numbers | more |" in index
    row = next(line for line in index.splitlines() if line.startswith("| [toy.quick]") and "x=1" in line)
    assert "attack_0 0; attack_1 0.001; attack_2 0.002; attack_3 0.003 |" in row and "attack_4 " not in row
    assert "[all 150](toy.quick/x=1/metrics.json)" in row
    assert index.index("## Headline numbers") < index.index("## Sweeps")


def test_a_saved_notebook_page_loads_nothing_from_the_internet_and_says_the_explorer_needs_a_kernel(tmp_path):
    """Issue 31: pages loaded require.js and the widget manager from a CDN; no installed package ships them, so the
    page drops them and says, in visible text where the widget was, that it needs a live kernel. MathJax uses the
    web font its local copy ships."""
    import re

    import nbformat

    from privnb.sweeps._report_pages import LIVE_KERNEL_NOTE, MATHJAX_FOLDER, export_notebook_html, mathjax_source

    if mathjax_source() is None:
        pytest.skip("jupyter-server-mathjax is not installed")
    notebook = tmp_path / "sweep" / "point" / "notebook.ipynb"
    notebook.parent.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("tour_explorer(...)")
    view = {"model_id": "abc", "version_major": 2, "version_minor": 0}
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": "<b>l = 3: anatomy</b>", "text/plain": "l = 3"}),
        nbformat.v4.new_output(
            "display_data", data={"application/vnd.jupyter.widget-view+json": view, "text/plain": "VBox()"}
        ),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("$$x^2$$"), cell]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2}}
    nbformat.write(nb, notebook)
    text = export_notebook_html(notebook, tmp_path).read_text()
    assert not re.findall(r'(?:src|href)="https?:', text)  # nothing fetched from the internet
    assert "require.min.js" not in text and "embed-amd.js" not in text and "widget-state+json" not in text
    assert LIVE_KERNEL_NOTE in text and "This explorer needs a live kernel." in text
    assert "<b>l = 3: anatomy</b>" in text  # the explorer's static outputs stay
    fonts = text.index("webFont:'STIX-Web'")
    assert fonts < text.index(f"{MATHJAX_FOLDER}/MathJax.js?config=")  # configured before MathJax starts
    copied = tmp_path / MATHJAX_FOLDER
    assert (copied / "jax/output/HTML-CSS/fonts/STIX-Web/fontdata.js").is_file()
    assert list((copied / "fonts/HTML-CSS/STIX-Web/woff").glob("*.woff"))  # the web font the pages ask for
    assert nbformat.read(notebook, as_version=4).metadata["widgets"]  # the notebook itself is left as it was
