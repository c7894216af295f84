"""Parameter sweeps: a YAML grid -> executed notebooks -> one results table and a report.

A sweep spec (``notebooks/sweeps/<notebook>.<quick|paper>.yaml``) reads::

    notebook: 02_knn_l_diversity.ipynb     # relative to notebooks/ (the spec folder's parent)
    parameters: {n_splits: 3}              # fixed for every point
    grid: {dataset: [adult, bank], l: [2, 3]}  # cartesian product, one papermill run per point
    description: optional one line for the report

The sweep is named after the spec file without ``.yaml`` (``00_tour.quick``). Each point runs the
notebook with papermill (kernel ``python3``: the active environment), with ``cwd`` the notebook's own
folder, as when it is opened in JupyterLab, and ``output_dir`` injected as the point's absolute folder.
Results layout under ``out``::

    <sweep>/points.json              the spec and every point's parameters, status and error
    <sweep>/<point>/notebook.ipynb   the executed notebook (kept for failed points too)
    <sweep>/<point>/point.json       the point's status record, written last: "ok" marks it done
    <sweep>/<point>/{results.parquet, metrics.json, figures/*.png}   what the notebook wrote
    <sweep>/results.parquet          every point's tidy rows plus the point's parameters as columns
    <sweep>/report.{md,html}         spec, points (status, time, metrics.json numbers), mean error per
                                     view (Org., L=2, ...), failures with tracebacks, figures (linked)
    results.parquet, report.{md,html}   the index over every sweep folder in ``out``

A point whose ``point.json`` says "ok" and whose notebook exists is skipped unless ``force``; a failed
point is run again. Points run serially, in a local process pool (``workers``) or on a dask.distributed
cluster (``scheduler``: the workers must see the same file system and have privnb installed).
"""
from __future__ import annotations

import html
import itertools
import json
import math
import os
import re
import shutil
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import yaml

from privnb.files import atomic_path, write_text

SPEC_KEYS = ("notebook", "parameters", "grid", "description")
INJECTED = "output_dir"
_SAFE = re.compile(r"[^A-Za-z0-9._+-]+")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_MAX_ID = 100
_HEADLINE_COLUMNS = 8
_MAX_MEAN_ROWS = 200
_DATA_UNAVAILABLE = "DataUnavailableError"




def _write_json(path: Path, data) -> None:
    write_text(path, json.dumps(data, indent=2, default=str) + "\n")


def _read_json(path: Path, default=None):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default


# --------------------------------------------------------------------------- specs and points

@dataclass
class Point:
    """One papermill run of a sweep: the notebook, its parameters and its folder."""
    sweep: str
    point_id: str
    notebook: str
    parameters: dict
    output_dir: str

    @property
    def done(self) -> bool:
        """Whether a previous run finished this point ("ok" record and executed notebook present)."""
        record = _read_json(Path(self.output_dir) / "point.json", {})
        return record.get("status") == "ok" and (Path(self.output_dir) / "notebook.ipynb").exists()


@dataclass
class SweepSpec:
    """A parsed sweep spec; see the module docstring for the YAML format."""
    name: str
    path: str
    notebook: str
    parameters: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    description: str = ""

    def points(self, out: str | os.PathLike) -> list[Point]:
        """The grid's cartesian product (in spec order) as points under ``out/<name>/``."""
        sweep_dir = Path(out).resolve() / self.name
        points = []
        for values in expand_grid(self.grid):
            pid = point_id(values)
            points.append(Point(self.name, pid, self.notebook, {**self.parameters, **values}, str(sweep_dir / pid)))
        ids = [p.point_id for p in points]
        if len(set(ids)) != len(ids):
            raise ValueError(f"sweep {self.name!r}: grid values collide once made file-name safe ({ids}); "
                             "use values that differ in letters, digits, '.', '_' or '-'")
        return points


def sweep_name(path: str | os.PathLike) -> str:
    """The sweep's name: the spec file name without ``.yaml``/``.yml`` (``00_tour.quick``)."""
    name = Path(path).name
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise ValueError(f"a sweep spec must end in .yaml or .yml, got {path!s}")


def expand_grid(grid: dict) -> list[dict]:
    """The cartesian product of ``grid`` (name -> list of values), first key varying slowest.

    An empty grid gives one point with no swept values.
    """
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def point_id(values: dict) -> str:
    """A readable, file-name-safe folder name for a grid point: ``dataset=adult,l=2``, ``ls=2+3``.

    Characters other than letters, digits, ``.``, ``_``, ``+`` and ``-`` become ``-``; a name longer than 100
    characters is cut and ends in a hash of the full one. No swept values: ``default``.
    """
    if not values:
        return "default"
    text = ",".join(f"{_SAFE.sub('-', str(k))}={_SAFE.sub('-', _compact(v))}" for k, v in values.items())
    if len(text) > _MAX_ID:
        import hashlib
        text = f"{text[:_MAX_ID - 9]}~{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    return text


def _compact(value) -> str:
    if isinstance(value, (list, tuple)):  # a list of data sets reads datasets=adult+pu1
        return "+".join(map(_compact, value))
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read and check a sweep spec.

    Raises
    ------
    ValueError
        Unknown keys, a grid value that is not a non-empty list, a name both fixed and swept, an
        ``output_dir`` parameter (the runner injects it), a missing notebook, or a parameter the
        notebook's ``parameters`` cell does not define.
    """
    from privnb.notebooks import parameter_defaults
    import nbformat

    path = Path(path)
    name = sweep_name(path)
    if not path.is_file():
        raise ValueError(f"sweep spec {path} does not exist")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise ValueError(f"sweep spec {path} is not valid YAML: {error}") from error
    if not isinstance(raw, dict) or "notebook" not in raw:
        raise ValueError(f"sweep spec {path} must be a mapping with a 'notebook' key")
    unknown = set(raw) - set(SPEC_KEYS)
    if unknown:
        raise ValueError(f"sweep spec {path} has unknown keys {sorted(unknown)}; allowed: {list(SPEC_KEYS)}")
    parameters, grid = raw.get("parameters") or {}, raw.get("grid") or {}
    if not isinstance(parameters, dict) or not isinstance(grid, dict):
        raise ValueError(f"sweep spec {path}: 'parameters' and 'grid' must be mappings")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"sweep spec {path}: grid[{key!r}] must be a non-empty list (put a fixed value "
                             f"under 'parameters'), got {values!r}")
    both = set(parameters) & set(grid)
    if both:
        raise ValueError(f"sweep spec {path}: {sorted(both)} both fixed and swept; keep each in one place")
    if INJECTED in parameters or INJECTED in grid:
        raise ValueError(f"sweep spec {path}: do not set {INJECTED!r}; the runner injects each point's folder")
    notebook = (path.resolve().parent.parent / raw["notebook"]).resolve()
    if not notebook.is_file():
        raise ValueError(f"sweep spec {path}: notebook {raw['notebook']!r} not found at {notebook} "
                         "(it is relative to the spec folder's parent, notebooks/)")
    known = parameter_defaults(nbformat.read(notebook, as_version=4))
    undefined = (set(parameters) | set(grid)) - set(known)
    if undefined:
        raise ValueError(f"sweep spec {path}: {sorted(undefined)} not in the parameters cell of {notebook.name} "
                         f"(it defines {sorted(known)})")
    return SweepSpec(name, str(path.resolve()), str(notebook), parameters, grid, str(raw.get("description", "")))


# --------------------------------------------------------------------------- running points

def run_point(point: Point, *, kernel_name: str = "python3", cell_timeout: float | None = None) -> dict:
    """Execute one point with papermill and record the outcome; never raises for a failing notebook.

    The point runs in an empty folder; what a previous run left there is set aside as
    ``<point>.previous`` and deleted once the new run succeeds, so a failing ``--force`` re-run loses
    no results. The executed notebook is written to ``notebook.ipynb`` (also when a cell fails, for
    debugging); ``point.json`` is written last with ``status`` "ok", "failed" or "skipped" (the
    notebook raised ``privnb.datasets.DataUnavailableError``), the ``error`` (exception type and
    message), the ``traceback`` and the duration.
    """
    import papermill

    folder = Path(point.output_dir)
    previous = folder.with_name(folder.name + ".previous")
    if folder.exists():
        if previous.exists():
            shutil.rmtree(previous)
        os.replace(folder, previous)
    folder.mkdir(parents=True)
    partial = folder / ".notebook.part.ipynb"
    start = time.perf_counter()
    record = {"point": point.point_id, "parameters": point.parameters, "status": "ok", "error": "",
              "traceback": ""}
    try:
        # A fresh thread starts with empty contextvars, so nbclient makes its own event loop: jupyter_core
        # caches a loop in a context variable, and dask copies contexts into its task threads.
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(papermill.execute_notebook, point.notebook, str(partial),
                          parameters={**point.parameters, INJECTED: str(folder)}, kernel_name=kernel_name,
                          cwd=str(Path(point.notebook).parent), progress_bar=False,
                          execution_timeout=cell_timeout).result()
    except Exception as error:  # a failing point is recorded and the sweep goes on
        record.update(_failure(error))
    finally:
        if partial.exists():
            os.replace(partial, folder / "notebook.ipynb")
    if previous.exists():
        if record["status"] == "ok":
            shutil.rmtree(previous)
        else:
            record["error"] += f" (the previous run's files are kept in {previous.name})"
    record.update(duration_s=round(time.perf_counter() - start, 3),
                  finished=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _write_json(folder / "point.json", record)
    return record


def _failure(error: BaseException) -> dict:
    ename, evalue = getattr(error, "ename", None), getattr(error, "evalue", None)
    message = f"{ename}: {evalue}" if ename else f"{type(error).__name__}: {error}"
    if getattr(error, "exec_count", None) is not None:
        message += f" (in cell [{error.exec_count}])"
    # a notebook's error carries the cell's own traceback; anything else, the runner's
    text = str(error) if ename else "".join(traceback.format_exception(error))
    # a data set that is neither in PRIVNB_DATA nor downloadable skips the point (IPUMS, say), it is no failure
    status = "skipped" if ename == _DATA_UNAVAILABLE else "failed"
    return {"status": status, "error": message, "traceback": _ANSI.sub("", text).strip()[-4000:]}


def _lost(point: Point, error: BaseException) -> dict:
    """The record of a point whose worker died before it could write one."""
    record = {"point": point.point_id, "parameters": point.parameters, **_failure(error), "duration_s": math.nan,
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    Path(point.output_dir).mkdir(parents=True, exist_ok=True)
    _write_json(Path(point.output_dir) / "point.json", record)
    return record


def _execute(points: list[Point], *, workers: int, scheduler, options: dict) -> Iterator[tuple[Point, dict]]:
    """Run points serially, in a process pool or on a dask cluster; yield them as they finish."""
    if not points:
        return
    if scheduler is not None:
        from distributed import Client, as_completed
        with Client(scheduler) as client:
            yield from _gather({client.submit(run_point, p, pure=False, **options): p for p in points}, as_completed)
    elif workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
        with ProcessPoolExecutor(max_workers=min(workers, len(points)), mp_context=context) as pool:
            yield from _gather({pool.submit(run_point, p, **options): p for p in points}, as_completed)
    else:
        for point in points:
            yield point, run_point(point, **options)


def _gather(futures: dict, as_completed) -> Iterator[tuple[Point, dict]]:
    for future in as_completed(futures):
        point = futures[future]
        try:
            record = future.result()
        except Exception as error:  # the worker died: run_point could not record the point itself
            record = _lost(point, error)
        yield point, record


@dataclass
class SweepSummary:
    """What :func:`run_sweeps` did: per sweep, the point records (``cached`` True for skipped ones)."""
    out: str
    records: dict[str, list[dict]]

    @property
    def n_failed(self) -> int:
        return sum(r["status"] == "failed" for rs in self.records.values() for r in rs)

    @property
    def n_run(self) -> int:
        return sum(not r.get("cached") for rs in self.records.values() for r in rs)

    @property
    def n_points(self) -> int:
        return sum(len(rs) for rs in self.records.values())


def run_sweeps(specs: Iterable[str | os.PathLike | SweepSpec], *, out: str | os.PathLike = "results",
               workers: int = 1, scheduler=None, force: bool = False, progress: bool = True,
               kernel_name: str = "python3", cell_timeout: float | None = None) -> SweepSummary:
    """Run every point of every spec (one pool for all), then write the tables and reports.

    Parameters
    ----------
    specs : paths or SweepSpec
        The sweeps; their names must differ.
    out : path
        Results folder; each sweep writes ``out/<sweep>/`` and the index ``out/report.md`` covers every
        sweep folder found there.
    workers : int
        Local processes running points at once (1: in this process).
    scheduler : str or None
        Address of a dask.distributed scheduler (``tcp://host:8786``); overrides ``workers``.
    force : bool
        Run points even when a previous run finished them.
    cell_timeout : float, optional
        Seconds a single cell may run (papermill ``execution_timeout``).

    Returns
    -------
    SweepSummary
        Every point's record; ``n_failed`` counts the failed points (a skipped point is a finished,
        "ok" one).
    """
    from tqdm import tqdm

    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    specs = [s if isinstance(s, SweepSpec) else load_spec(s) for s in specs]
    names = [s.name for s in specs]
    if not specs:
        raise ValueError("no sweep specs given")
    if len(set(names)) != len(names):
        raise ValueError(f"two specs share a sweep name: {names}; rename one file")
    out = Path(out).resolve()
    plan = {s.name: s.points(out) for s in specs}
    records = {}
    todo = []
    for spec in specs:
        sweep_dir = out / spec.name
        sweep_dir.mkdir(parents=True, exist_ok=True)
        records[spec.name] = {}
        for point in plan[spec.name]:
            if point.done and not force:
                records[spec.name][point.point_id] = {**_read_json(Path(point.output_dir) / "point.json"), "cached": True}
            else:
                records[spec.name][point.point_id] = {"point": point.point_id, "parameters": point.parameters,
                                                      "status": "pending", "error": ""}
                todo.append(point)
        _write_points_json(spec, plan[spec.name], records[spec.name])
    options = {"kernel_name": kernel_name, "cell_timeout": cell_timeout}
    skipped = sum(len(plan[n]) for n in names) - len(todo)
    bar = tqdm(total=len(todo), disable=not progress, desc="sweep points", unit="point")
    if skipped and progress:
        bar.write(f"skipping {skipped} finished point(s); --force runs them again")
    with bar:
        for point, record in _execute(todo, workers=workers, scheduler=scheduler, options=options):
            records[point.sweep][point.point_id] = record
            bar.set_postfix_str(f"{point.sweep}/{point.point_id}: {record['status']}")
            bar.update()
    for spec in specs:
        _write_points_json(spec, plan[spec.name], records[spec.name])
        write_sweep_outputs(out / spec.name)
    write_index(out)
    return SweepSummary(str(out), {n: [records[n][p.point_id] for p in plan[n]] for n in names})


def _write_points_json(spec: SweepSpec, points: list[Point], records: dict) -> None:
    _write_json(Path(points[0].output_dir).parent / "points.json",
                {"sweep": spec.name, "spec": asdict(spec),
                 "points": [{k: v for k, v in records[p.point_id].items() if k != "traceback"} for p in points]})


# --------------------------------------------------------------------------- tables

def _point_records(sweep_dir: Path) -> tuple[dict, list[dict]]:
    """The sweep's spec and its points' latest records (each point's point.json wins over points.json)."""
    index = _read_json(sweep_dir / "points.json")
    if index is None:
        raise ValueError(f"{sweep_dir} is not a sweep folder: it has no points.json")
    records = []
    for entry in index["points"]:
        record = _read_json(sweep_dir / entry["point"] / "point.json") or entry
        records.append({**record, "cached": entry.get("cached", False)})
    return index["spec"], records


def _parameter_value(value):
    return value if value is None or isinstance(value, (str, int, float, bool)) else json.dumps(value)


def collect_results(sweep_dir: str | os.PathLike) -> pd.DataFrame:
    """Every finished point's ``results.parquet`` rows with columns ``sweep``, ``point`` and the
    point's parameters (named ``point_<name>`` where a parameter shares a tidy column's name, e.g.
    ``dataset``)."""
    sweep_dir = Path(sweep_dir)
    spec, records = _point_records(sweep_dir)
    frames = []
    for record in records:
        path = sweep_dir / record["point"] / "results.parquet"
        if record["status"] != "ok" or not path.exists():
            continue
        frame = pd.read_parquet(path)
        extra = {"sweep": spec["name"], "point": record["point"]}
        for name, value in record["parameters"].items():
            extra[f"point_{name}" if name in frame.columns or name in extra else name] = _parameter_value(value)
        frames.append(frame.assign(**extra))
    if not frames:
        return _empty_results()
    return _parquet_safe(pd.concat(frames, ignore_index=True))


def _parquet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Cast object columns that mix Python types (e.g. ints and strings across points) to strings."""
    for column in frame.columns[frame.dtypes == object]:
        if pd.api.types.infer_dtype(frame[column], skipna=True).startswith("mixed"):
            frame[column] = frame[column].map(lambda v: v if v is None or (isinstance(v, float) and math.isnan(v))
                                              else str(v))
    return frame


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)


def write_sweep_outputs(sweep_dir: str | os.PathLike) -> None:
    """(Re)write ``results.parquet`` and ``report.{md,html}`` of one sweep folder from what it holds."""
    sweep_dir = Path(sweep_dir)
    results = collect_results(sweep_dir)
    _write_parquet(results, sweep_dir / "results.parquet")
    _write_report(sweep_dir, _sweep_report(sweep_dir, results))


def sweep_folders(out: str | os.PathLike) -> list[Path]:
    """The sweep folders (those holding points.json) directly under ``out``, by name."""
    return sorted(p.parent for p in Path(out).glob("*/points.json"))


def write_index(out: str | os.PathLike) -> None:
    """Write ``out/results.parquet`` (every sweep's rows) and ``out/report.{md,html}`` (the index)."""
    out = Path(out)
    folders = sweep_folders(out)
    tables = [pd.read_parquet(f / "results.parquet") for f in folders if (f / "results.parquet").exists()]
    tables = [t for t in tables if len(t)]
    combined = _parquet_safe(pd.concat(tables, ignore_index=True)) if tables else _empty_results()
    _write_parquet(combined, out / "results.parquet")
    _write_report(out, _index_report(folders, len(combined)))


def _empty_results() -> pd.DataFrame:
    from privnb.evaluation import COLUMNS
    return pd.DataFrame(columns=[*COLUMNS, "sweep", "point"])


def rebuild_reports(path: str | os.PathLike) -> list[Path]:
    """Rebuild the tables and reports under ``path``: one sweep folder, or a results folder of sweeps
    (each sweep and the index). Returns the Markdown reports written."""
    path = Path(path)
    if (path / "points.json").exists():
        write_sweep_outputs(path)
        return [path / "report.md"]
    folders = sweep_folders(path)
    if not folders:
        raise ValueError(f"{path} holds no sweep: expected points.json in it or in its sub-folders "
                         "(run `privnb sweep SPEC --out DIR` first)")
    for folder in folders:
        write_sweep_outputs(folder)
    write_index(path)
    return [*(f / "report.md" for f in folders), path / "report.md"]


# --------------------------------------------------------------------------- reports
# A report is a list of blocks rendered twice, to Markdown and to HTML. Blocks: ("h1"|"h2"|"h3"|"p", text),
# ("code", text), ("img", alt, src), ("table", header, rows) where a cell is text or Link.

@dataclass(frozen=True)
class Link:
    text: str
    href: str


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
    from privnb.evaluation import method_label, method_sort_key

    if results.empty:
        return None
    views = results[["method", "param"]].drop_duplicates()
    views["view"] = [method_label(m, p) for m, p in zip(views["method"], views["param"])]
    views["order"] = [method_sort_key(m, p) for m, p in zip(views["method"], views["param"])]
    frame = results.merge(views[["method", "param", "view"]], on=["method", "param"], how="left")
    keys = ["point", "dataset", "classifier", "metric"]
    table = frame.groupby([*keys, "view"], sort=False)["value"].mean().unstack("view")
    columns = list(dict.fromkeys(views.sort_values("order")["view"]))
    table = table.reindex(columns=columns).iloc[:_MAX_MEAN_ROWS]
    rows = [[*map(_fmt, key), *map(_fmt, values)] for key, values in zip(table.index, table.to_numpy())]
    return ("table", [*keys, *columns], rows)


def _sweep_report(sweep_dir: Path, results: pd.DataFrame) -> list[tuple]:
    spec, records = _point_records(sweep_dir)
    metrics = {r["point"]: _read_json(sweep_dir / r["point"] / "metrics.json", {}) for r in records}
    keys = list(dict.fromkeys(k for m in metrics.values() for k, v in m.items()
                              if isinstance(v, (int, float)) and not isinstance(v, bool)))
    shown = keys[:_HEADLINE_COLUMNS]
    n_failed, n_skipped = _count(records, "failed"), _count(records, "skipped")
    blocks = [("h1", f"Sweep {spec['name']}")]
    if spec.get("description"):
        blocks.append(("p", spec["description"]))
    blocks += [
        ("p", f"Notebook: {spec['notebook']}. Spec: {spec['path']}."),
        ("p", f"Fixed parameters: {json.dumps(spec['parameters'])}. Grid: {json.dumps(spec['grid'])}."),
        ("p", f"{len(records)} points: {_count(records, 'ok')} ok, {n_failed} failed, {n_skipped} skipped "
              "(a data set not available). "
              f"{len(results)} result rows in results.parquet."),
        ("h2", "Points"),
        ("table", ["point", *spec["grid"], "status", "time (s)", *shown, "notebook"],
         [[r["point"], *(_fmt(r["parameters"].get(k)) for k in spec["grid"]), _status(r),
           _fmt(r.get("duration_s")), *(_fmt(metrics[r["point"]].get(k)) for k in shown),
           Link("notebook.ipynb", f"{r['point']}/notebook.ipynb")] for r in records]),
    ]
    if len(keys) > len(shown):
        blocks.append(("p", f"More headline numbers in each point's metrics.json: {', '.join(keys[len(shown):])}."))
    means = _mean_table(results)
    if means is not None:
        blocks += [("h2", "Mean over folds"), means]
        if len(means[2]) == _MAX_MEAN_ROWS:
            blocks.append(("p", f"The first {_MAX_MEAN_ROWS} rows; all of them are in results.parquet."))
    failed = [r for r in records if r["status"] != "ok"]
    if failed:
        blocks.append(("h2", "Failed and skipped points"))
        for record in failed:
            blocks += [("h3", f"{record['point']} ({record['status']})"), ("p", record.get("error") or "(no message)")]
            if record.get("traceback"):
                blocks.append(("code", record["traceback"]))
    figures = [(r["point"], sorted((sweep_dir / r["point"] / "figures").glob("*.png"))) for r in records]
    if any(f for _, f in figures):
        blocks.append(("h2", "Figures"))
        for pid, files in figures:
            if files:
                blocks.append(("h3", pid))
                blocks += [("img", f.stem, f"{pid}/figures/{f.name}") for f in files]
    return blocks


def _count(records: list[dict], status: str) -> int:
    return sum(r["status"] == status for r in records)


def _index_report(folders: list[Path], n_rows: int) -> list[tuple]:
    rows = []
    for folder in folders:
        spec, records = _point_records(folder)
        rows.append([Link(spec["name"], f"{folder.name}/report.md"), Path(spec["notebook"]).name,
                     str(len(records)), *(str(_count(records, status)) for status in ("ok", "failed", "skipped")),
                     Link("html", f"{folder.name}/report.html")])
    return [("h1", "privnb results"),
            ("p", f"{len(folders)} sweeps; {n_rows} result rows in results.parquet (column sweep names the sweep)."),
            ("table", ["sweep", "notebook", "points", "ok", "failed", "skipped", "report"], rows)]


def _cell_md(cell) -> str:
    text = f"[{cell.text}]({cell.href})" if isinstance(cell, Link) else cell
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: Sequence[tuple]) -> str:
    """Render report blocks to Markdown."""
    parts = []
    for kind, *body in blocks:
        if kind in ("h1", "h2", "h3"):
            parts.append(f"{'#' * int(kind[1])} {body[0]}")
        elif kind == "p":
            parts.append(body[0])
        elif kind == "code":
            parts.append(f"```\n{body[0].rstrip()}\n```")
        elif kind == "img":
            parts.append(f"![{body[0]}]({body[1]})")
        else:
            header, rows = body
            lines = [f"| {' | '.join(map(_cell_md, header))} |", f"|{'---|' * len(header)}"]
            lines += [f"| {' | '.join(map(_cell_md, row))} |" for row in rows]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _cell_html(cell, tag: str = "td") -> str:
    text = (f'<a href="{html.escape(cell.href)}">{html.escape(cell.text)}</a>' if isinstance(cell, Link)
            else html.escape(cell))
    return f"<{tag}>{text}</{tag}>"


def render_html(blocks: Sequence[tuple]) -> str:
    """Render report blocks to a standalone HTML page (figures linked relative to the page)."""
    title = next((body[0] for kind, *body in blocks if kind == "h1"), "privnb report")
    parts = []
    for kind, *body in blocks:
        if kind in ("h1", "h2", "h3", "p"):
            parts.append(f"<{kind}>{html.escape(body[0])}</{kind}>")
        elif kind == "code":
            parts.append(f"<pre>{html.escape(body[0])}</pre>")
        elif kind == "img":
            parts.append(f'<figure><img src="{html.escape(body[1])}" alt="{html.escape(body[0])}">'
                         f"<figcaption>{html.escape(body[0])}</figcaption></figure>")
        else:
            header, rows = body
            parts.append("<table>\n<tr>" + "".join(_cell_html(c, "th") for c in header) + "</tr>\n"
                         + "\n".join("<tr>" + "".join(map(_cell_html, row)) + "</tr>" for row in rows)
                         + "\n</table>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}img{max-width:40em}"
             "pre{background:#f6f6f6;padding:.5em;overflow:auto}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")


def _write_report(folder: Path, blocks: list[tuple]) -> None:
    write_text(folder / "report.md", render_markdown(blocks))
    write_text(folder / "report.html", render_html(blocks))
