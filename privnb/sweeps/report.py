"""What a sweep leaves behind, read back: one tidy results table per sweep and over all sweeps, and the
Markdown and HTML reports.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd

from privnb.files import WriteError, atomic_path, naming_write_errors, write_text
from privnb.sweeps._provenance import provenance_text
from privnb.sweeps._report_pages import (
    Link,
    export_notebook_html,
    mathjax_url,
    render_html,
    render_markdown,
)
from privnb.sweeps.spec import read_json

HEADLINE_KEY = "headline"
"""The key of a point's metrics.json that names its headline metrics (written by ``write_artifacts``)."""

_HEADLINE_COLUMNS = 8
_INDEX_HEADLINES = 4  # numbers per point in the index's summary table
_MAX_VIEW_COLUMNS = 12  # views (columns) of the mean-over-folds table; all of them are in results.parquet
_MADE_WITH = "made with (privnb; inputs' sha256)"


_MAX_MEAN_ROWS = 200


def _point_records(sweep_dir: Path) -> tuple[dict, list[dict]]:
    """The sweep's spec and its points' latest records (each point's point.json wins over points.json)."""
    index = read_json(sweep_dir / "points.json")
    if index is None:
        raise ValueError(f"{sweep_dir} is not a sweep folder: it has no points.json")
    records = []
    for entry in index["points"]:
        try:
            record = read_json(sweep_dir / entry["point"] / "point.json") or entry
        except ValueError:  # a damaged point.json: the sweep's own list still says what happened
            record = entry
        records.append({**record, "cached": entry.get("cached", False)})
    return index["spec"], records


def _parameter_value(value):
    return value if value is None or isinstance(value, (str, int, float, bool)) else json.dumps(value)


def collect_results(sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """Every finished point's ``results.parquet`` rows with columns ``sweep``, ``point`` and the
    point's parameters (named ``point_<name>`` where a parameter shares a tidy column's name, e.g.
    ``dataset``).

    Parameters
    ----------
    sweep_dir : path
        A sweep folder (holding points.json).
    """
    sweep_dir = Path(sweep_dir)
    spec, records = _point_records(sweep_dir)
    frames = []
    for record in records:
        path = sweep_dir / record["point"] / "results.parquet"
        if record["status"] != "ok" or not path.exists():
            continue
        try:
            frame = pd.read_parquet(path)
        except Exception as error:
            raise ValueError(
                f"{path} is unreadable ({type(error).__name__}: {error}); run the sweep again to redo the point"
            ) from None
        extra = {"sweep": spec["name"], "point": record["point"]}
        for name, value in record["parameters"].items():
            extra[f"point_{name}" if name in frame.columns or name in extra else name] = _parameter_value(value)
        frames.append(frame.assign(**extra))
    if not frames:
        return _empty_results()
    return _parquet_safe(pd.concat(frames, ignore_index=True))


def _parquet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Cast object columns that mix Python types (e.g. ints and strings across points) to strings."""
    for column in [c for c in frame.columns if pd.api.types.is_object_dtype(frame[c])]:
        if pd.api.types.infer_dtype(frame[column], skipna=True).startswith("mixed"):
            frame[column] = frame[column].map(
                lambda v: v if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
            )
    return frame


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    with naming_write_errors(path), atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)


def write_sweep_outputs(sweep_dir: str | os.PathLike) -> None:
    """(Re)write ``results.parquet``, ``report.{md,html}`` and each point's ``notebook.html`` of one sweep folder
    from what it holds.

    Parameters
    ----------
    sweep_dir : path
        A sweep folder (holding points.json).

    Raises
    ------
    ValueError
        A damaged or unreadable point file, or a file that cannot be written (naming it).
    """
    sweep_dir = Path(sweep_dir)
    results = collect_results(sweep_dir)
    _write_parquet(results, sweep_dir / "results.parquet")
    for notebook in sorted(sweep_dir.glob("*/notebook.ipynb")):
        export_notebook_html(notebook, sweep_dir.parent)
    _write_report(sweep_dir, _sweep_report(sweep_dir, results), mathjax_url(sweep_dir.parent, sweep_dir))


def unwritten(write, *args, what: str = "") -> list[str]:
    """Call ``write(*args)``; return ``[]``, or one short line naming what could not be written (a full disk, a
    read-only folder), so that a sweep that cannot write one report still writes the others and ends cleanly.

    Parameters
    ----------
    write : callable
        A writer (:func:`write_sweep_outputs`, :func:`write_index`, ...).
    *args
        Its arguments.
    what : str
        What ``write`` writes, named in the line when the error does not name a file.
    """
    try:
        write(*args)
    except (OSError, WriteError) as error:
        text = " ".join(str(error).split())
        if what and isinstance(error, OSError) and error.filename is None:
            text = f"cannot write {what}: {error.strerror or text}"
        return [text if len(text) <= _MAX_LINE else text[: _MAX_LINE - 1] + "\N{HORIZONTAL ELLIPSIS}"]
    return []


_MAX_LINE = 300


def sweep_folders(out: str | os.PathLike) -> list[Path]:
    """The sweep folders (those holding points.json) directly under ``out``, by name.

    Parameters
    ----------
    out : path
        A results folder.
    """
    return sorted(p.parent for p in Path(out).glob("*/points.json"))


def write_index(out: str | os.PathLike) -> None:
    """Write ``out/results.parquet`` (every sweep's rows) and ``out/report.{md,html}`` (the index).

    Parameters
    ----------
    out : path
        A results folder.
    """
    out = Path(out)
    folders = sweep_folders(out)
    tables = [pd.read_parquet(f / "results.parquet") for f in folders if (f / "results.parquet").exists()]
    tables = [t for t in tables if len(t)]
    combined = _parquet_safe(pd.concat(tables, ignore_index=True)) if tables else _empty_results()
    _write_parquet(combined, out / "results.parquet")
    _write_report(out, _index_report(folders, len(combined)), mathjax_url(out, out))


def _empty_results() -> pd.DataFrame:
    from privnb.experiments.folds import COLUMNS

    return pd.DataFrame(columns=[*COLUMNS, "sweep", "point"])


def rebuild_reports(path: str | os.PathLike) -> list[Path]:
    """Rebuild the tables and reports under ``path``: one sweep folder, or a results folder of sweeps
    (each sweep and the index). Returns the Markdown reports written.

    Parameters
    ----------
    path : path
        A sweep folder or a results folder.

    Raises
    ------
    ValueError
        ``path`` holds no sweep, a point file is damaged, or a report cannot be written (naming the file).
    """
    path = Path(path)
    if (path / "points.json").exists():
        write_sweep_outputs(path)
        return [path / "report.md"]
    folders = sweep_folders(path)
    if not folders:
        raise ValueError(
            f"{path} holds no sweep: expected points.json in it or in its sub-folders "
            "(run `privnb sweep SPEC --out DIR` first)"
        )
    for folder in folders:
        write_sweep_outputs(folder)
    write_index(path)
    return [*(f / "report.md" for f in folders), path / "report.md"]


def _fmt(value) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return "" if value is None else str(value)


def _status(record: dict) -> str:
    return f"{record['status']} (cached)" if record.get("cached") and record["status"] == "ok" else record["status"]


def _mean_table(results: pd.DataFrame) -> tuple | None:
    """Mean value over folds per point, dataset, classifier and metric; one column per view (Org., L=2, ...)."""
    from privnb.experiments.labels import method_label, method_sort_key

    if results.empty:
        return None
    views = results[["method", "param"]].drop_duplicates()
    views["view"] = [method_label(m, p) for m, p in zip(views["method"], views["param"])]
    views["order"] = [method_sort_key(m, p) for m, p in zip(views["method"], views["param"])]
    frame = results.merge(views[["method", "param", "view"]], on=["method", "param"], how="left")
    keys = ["point", "dataset", "classifier", "metric"]
    table = frame.groupby([*keys, "view"], sort=False)["value"].mean().unstack("view")
    columns = list(dict.fromkeys(views.sort_values("order")["view"]))[:_MAX_VIEW_COLUMNS]
    table = table.reindex(columns=columns).dropna(how="all").iloc[:_MAX_MEAN_ROWS]
    rows = [[*map(_fmt, key), *map(_fmt, values)] for key, values in zip(table.index, table.to_numpy())]
    return ("table", [*keys, *columns], rows)


def _relativizer(sweep_dir: Path, spec: dict):
    """A function that rewrites the machine's absolute paths in a text relative to the report's folder:
    the sweep folder, the results folder, the notebook's and the spec's folders; the home folder as ``~``.
    """
    sweep_dir = sweep_dir.resolve()
    folders = {sweep_dir, sweep_dir.parent, Path(spec["notebook"]).parent, Path(spec["path"]).parent}
    pairs = sorted(((str(f), _relative(f, sweep_dir)) for f in folders), key=lambda p: -len(p[0]))
    home = str(Path.home())

    def rewrite(text: str) -> str:
        for absolute, relative in pairs:
            text = text.replace(absolute + os.sep, relative + "/").replace(absolute, relative)
        return text.replace(home + os.sep, "~/") if len(home) > 1 else text

    return rewrite


def _relative(path, folder: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), folder.resolve())).as_posix()


def _claims(folder: Path) -> pd.DataFrame | None:
    """The point's claims table (``claims.csv`` written by its notebook), or None."""
    path = folder / "claims.csv"
    if not path.exists():
        return None
    try:
        return pd.read_csv(path, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError):
        return None


def _verdicts(claims: pd.DataFrame) -> str:
    """``"5 agree, 1 differ"``: the counts of the verdict column (or of an agree column of booleans)."""
    if "verdict" in claims.columns:
        counts = claims["verdict"].astype(str).value_counts()
    elif "agree" in claims.columns:
        agree = claims["agree"].astype(str).str.lower().isin(["true", "1", "yes"])
        counts = pd.Series({"agree": int(agree.sum()), "differ": int((~agree).sum())})
        counts = counts[counts > 0]
    else:
        return f"{len(claims)} claims (no verdict column)"
    return ", ".join(f"{n} {verdict}" for verdict, n in counts.items())


def _sweep_report(sweep_dir: Path, results: pd.DataFrame) -> list[tuple]:
    spec, records = _point_records(sweep_dir)
    metrics = {r["point"]: read_json(sweep_dir / r["point"] / "metrics.json", {}) for r in records}
    claims = {r["point"]: _claims(sweep_dir / r["point"]) for r in records if r["status"] == "ok"}
    claims = {pid: table for pid, table in claims.items() if table is not None}
    n_failed, n_skipped = _count(records, "failed"), _count(records, "skipped")
    blocks = [
        ("h1", f"Sweep {spec['name']}"),
        (
            "p",
            (
                f"{len(records)} points: {_count(records, 'ok')} ok, {n_failed} failed, {n_skipped} skipped "
                "(a data set not available). "
                f"{len(results)} result rows in results.parquet."
            ),
        ),
        *_headline_blocks(spec, records, metrics, claims),
        *_claims_blocks(claims),
        *_about_blocks(spec, records, sweep_dir),
    ]
    means = _mean_table(results)
    if means is not None:
        blocks += [("h2", "Mean over folds"), means]
        n_views = len(results[["method", "param"]].drop_duplicates())
        if len(means[2]) == _MAX_MEAN_ROWS or n_views > _MAX_VIEW_COLUMNS:
            shown = f"The first {min(n_views, _MAX_VIEW_COLUMNS)} of {n_views} views, at most {_MAX_MEAN_ROWS} rows"
            blocks.append(("p", [f"{shown}; all of them are in", Link("results.parquet", "results.parquet")]))
    return blocks + _failure_blocks(records, _relativizer(sweep_dir, spec)) + _figure_blocks(records, sweep_dir)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def headline_keys(metrics: list[dict]) -> list[str]:
    """The numeric metric keys of a sweep's points, headline keys first.

    A notebook names its headline numbers with ``write_artifacts(..., headline=[...])`` (the ``"headline"``
    list in metrics.json); those keys come first, in the order the points name them, then every other numeric
    key in the order the points list them. A point without a headline list only adds its keys after.

    Parameters
    ----------
    metrics : list of dict
        Each point's metrics.json.
    """
    named = [k for m in metrics if isinstance(m.get(HEADLINE_KEY), list) for k in m[HEADLINE_KEY]]
    numeric = [k for m in metrics for k, v in m.items() if k != HEADLINE_KEY and _is_number(v)]
    present = set(numeric)
    return list(dict.fromkeys([*(k for k in named if k in present), *numeric]))


def _headline_blocks(spec: dict, records: list[dict], metrics: dict, claims: dict) -> list[tuple]:
    keys = headline_keys([metrics[r["point"]] for r in records])
    shown = keys[:_HEADLINE_COLUMNS]
    if not (shown or claims):
        return []
    rows = [
        [
            r["point"],
            *(_fmt(r["parameters"].get(k)) for k in spec["grid"]),
            *(_fmt(metrics[r["point"]].get(k)) for k in shown),
            *([_verdicts(claims[r["point"]]) if r["point"] in claims else ""] if claims else []),
            provenance_text(r),
        ]
        for r in records
    ]
    blocks = [
        ("h2", "Headline numbers"),
        ("table", ["point", *spec["grid"], *shown, *(["claims"] if claims else []), _MADE_WITH], rows),
    ]
    if len(keys) > len(shown):
        first = next(r["point"] for r in records if metrics[r["point"]])
        more = f"{len(keys) - len(shown)} more numbers in each point's"
        blocks.append(("p", [more, Link("metrics.json", f"{first}/metrics.json")]))
    return blocks


def _claims_blocks(claims: dict) -> list[tuple]:
    if not claims:
        return []
    blocks = [("h2", "Claims: the paper against privnb")]
    for pid, table in claims.items():
        blocks += [
            ("h3", f"{pid}: {_verdicts(table)}"),
            (
                "table",
                [str(c) for c in table.columns],
                [[_fmt(v) for v in row] for row in table.itertuples(index=False)],
            ),
            ("p", Link("claims.csv", f"{pid}/claims.csv")),
        ]
    return blocks


def _about_blocks(spec: dict, records: list[dict], sweep_dir: Path) -> list[tuple]:
    blocks = [("h2", "About this sweep")]
    if spec.get("description"):
        blocks.append(("p", spec["description"]))
    rows = [
        [
            r["point"],
            *(_fmt(r["parameters"].get(k)) for k in spec["grid"]),
            _status(r),
            _fmt(r.get("duration_s")),
            Link("notebook.ipynb", f"{r['point']}/notebook.ipynb"),
            Link("html", f"{r['point']}/notebook.html"),
            provenance_text(r),
        ]
        for r in records
    ]
    return blocks + [
        (
            "p",
            [
                Link(f"notebook {Path(spec['notebook']).name}", _relative(spec["notebook"], sweep_dir)),
                Link(f"spec {Path(spec['path']).name}", _relative(spec["path"], sweep_dir)),
            ],
        ),
        ("p", f"Fixed parameters: {json.dumps(spec['parameters'])}. Grid: {json.dumps(spec['grid'])}."),
        ("h2", "Points"),
        ("table", ["point", *spec["grid"], "status", "time (s)", "notebook", "page", _MADE_WITH], rows),
    ]


def _failure_blocks(records: list[dict], rewrite) -> list[tuple]:
    failed = [r for r in records if r["status"] != "ok"]
    if not failed:
        return []
    blocks = [("h2", "Failed and skipped points")]
    for record in failed:
        blocks += [
            ("h3", f"{record['point']} ({record['status']})"),
            ("p", rewrite(record.get("error") or "(no message)")),
        ]
        if record.get("traceback"):
            blocks.append(("code", rewrite(record["traceback"])))
    return blocks


def _figure_blocks(records: list[dict], sweep_dir: Path) -> list[tuple]:
    figures = [(r["point"], sorted((sweep_dir / r["point"] / "figures").glob("*.png"))) for r in records]
    if not any(files for _, files in figures):
        return []
    blocks = [("h2", "Figures")]
    for pid, files in figures:
        if files:
            blocks.append(("h3", pid))
            blocks += [("img", f.stem, f"{pid}/figures/{f.name}") for f in files]
    return blocks


def _count(records: list[dict], status: str) -> int:
    return sum(r["status"] == status for r in records)


def _index_headlines(folder: Path, spec: dict, records: list[dict]) -> list[list]:
    """One row per finished point of a sweep: its first few headline numbers, named, and links to the rest."""
    rows = []
    for record in records:
        metrics = read_json(folder / record["point"] / "metrics.json", {}) if record["status"] == "ok" else {}
        keys = headline_keys([metrics])
        if not keys:
            continue
        numbers = "; ".join(f"{key} {_fmt(metrics[key])}" for key in keys[:_INDEX_HEADLINES])
        more = Link(f"all {len(keys)}", f"{folder.name}/{record['point']}/metrics.json")
        rows.append([Link(spec["name"], f"{folder.name}/report.md"), record["point"], numbers, more])
    return rows


def _index_report(folders: list[Path], n_rows: int) -> list[tuple]:
    rows, headlines = [], []
    for folder in folders:
        spec, records = _point_records(folder)
        headlines += _index_headlines(folder, spec, records)
        rows.append(
            [
                Link(spec["name"], f"{folder.name}/report.md"),
                Path(spec["notebook"]).name,
                str(len(records)),
                *(str(_count(records, status)) for status in ("ok", "failed", "skipped")),
                Link("html", f"{folder.name}/report.html"),
            ]
        )
    summary = [
        ("h2", "Headline numbers"),
        (
            "p",
            (
                f"The first {_INDEX_HEADLINES} headline numbers of each point, each named by its metric; the sweep's "
                "report and the point's metrics.json hold the rest."
            ),
        ),
        ("table", ["sweep", "point", "headline numbers", "more"], headlines),
    ]
    return [
        ("h1", "privnb results"),
        ("p", f"{len(folders)} sweeps; {n_rows} result rows in results.parquet (column sweep names the sweep)."),
        *(summary if headlines else []),
        ("h2", "Sweeps"),
        ("table", ["sweep", "notebook", "points", "ok", "failed", "skipped", "report"], rows),
    ]


def _write_report(folder: Path, blocks: list[tuple], mathjax: str | None) -> None:
    with naming_write_errors(folder / "report.md"):
        write_text(folder / "report.md", render_markdown(blocks))
    with naming_write_errors(folder / "report.html"):
        write_text(folder / "report.html", render_html(blocks, mathjax))
