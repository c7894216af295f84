"""The conventions privnb's notebooks follow, checked and applied.

A notebook has one cell tagged ``parameters`` that holds literal assignments only (papermill injects
values after it) and names an ``output_dir``. It is committed with its outputs cleared, except the
cells tagged ``keep_output``: deterministic cells (sympy identities, the papers' toy examples) whose
source starts with ``# NBVAL_CHECK_OUTPUT`` so that nbval compares their stored output on every run.
"""

from __future__ import annotations

import fnmatch
import json
import math
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from privnb.experiments.notebook_parameters import PARAMETERS_TAG, cell_defaults
from privnb.files import atomic_path, write_text
from privnb.sweeps import HEADLINE_KEY

KEEP_OUTPUT_TAG = "keep_output"
CHECK_OUTPUT_MARK = "# NBVAL_CHECK_OUTPUT"


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def parameter_defaults(nb) -> dict:
    """The literal defaults of the notebook's ``parameters`` cell (read as ``cell_defaults`` reads them).

    Raises
    ------
    ValueError
        If there is not exactly one parameters cell, or it holds anything but literal assignments.
    """
    return cell_defaults(nb.cells)


def _papermill_parameters(nb) -> list[str]:
    """The parameter names papermill's own parser finds in the parameters cell."""
    from papermill.translators import PythonTranslator

    cell = next(c for c in nb.cells if c.cell_type == "code" and PARAMETERS_TAG in _tags(c))
    return [parameter.name for parameter in PythonTranslator.inspect(cell)]


def convention_problems(nb) -> list[str]:
    """Every way ``nb`` departs from the conventions above (an empty list when it follows them)."""
    problems = []
    try:
        defaults = parameter_defaults(nb)
        if "output_dir" not in defaults:
            problems.append("the parameters cell has no output_dir")
        unparsed = set(defaults) - set(_papermill_parameters(nb))
        if unparsed:
            problems.append(
                f"papermill cannot read the parameters {sorted(unparsed)} (it warns 'Passed unknown "
                "parameter' at every run); keep '=' out of their comments"
            )
    except ValueError as error:
        problems.append(str(error))
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        kept = KEEP_OUTPUT_TAG in _tags(cell)
        if kept and not cell.source.lstrip().startswith(CHECK_OUTPUT_MARK):
            problems.append(f"cell {index} is tagged {KEEP_OUTPUT_TAG} but does not start with {CHECK_OUTPUT_MARK}")
        if not kept and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(f"cell {index} has outputs but is not tagged {KEEP_OUTPUT_TAG}")
        if not kept and CHECK_OUTPUT_MARK in cell.source:
            problems.append(f"cell {index} asks nbval to check its output but is not tagged {KEEP_OUTPUT_TAG}")
    return problems


def clear_unkept_outputs(nb):
    """Clear outputs and execution counts of every code cell not tagged ``keep_output`` (in place)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and KEEP_OUTPUT_TAG not in _tags(cell):
            cell.outputs = []
            cell.execution_count = None
    return nb


def write_notebook(nb, path: str | os.PathLike) -> None:
    """Write ``nb`` to ``path`` whole or not at all.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.
    path : path
        Where to write it.
    """
    import nbformat  # here, not at the top: a kernel writing its artifacts need not import it (seconds)

    with atomic_path(path) as tmp:
        nbformat.write(nb, tmp)


def matching_keys(metrics: Mapping, *patterns: str) -> list[str]:
    """The keys of ``metrics`` matching ``patterns`` (shell-style, ``fnmatch``), pattern by pattern, each once.

    A notebook names its headline numbers with it (``write_artifacts(..., headline=matching_keys(...))``), so a
    number the data at hand did not produce (a section skipped on a data card) is simply left out.

    Parameters
    ----------
    metrics : mapping
        The notebook's metrics.
    *patterns : str
        Key patterns, e.g. ``"error_original"``, ``"mean_error_*_L=*"``.

    Returns
    -------
    list of str
    """
    keys = []
    for pattern in patterns:
        keys += [key for key in metrics if fnmatch.fnmatchcase(key, pattern) and key not in keys]
    return keys


def write_artifacts(
    output_dir: str | os.PathLike,
    *,
    results=None,
    metrics: dict | None = None,
    tables: dict | None = None,
    headline: Sequence[str] | None = None,
) -> list[Path]:
    """Write a notebook's artifacts into ``output_dir``, each file whole or not at all.

    Parameters
    ----------
    output_dir : path
        The notebook's ``output_dir`` parameter.
    results : DataFrame or rows, optional
        Tidy rows (:data:`privnb.experiments.COLUMNS`), written to ``results.parquet``.
    metrics : dict, optional
        Headline numbers, a flat dict, written to ``metrics.json`` (numpy numbers become Python ones, NaN
        and infinities become strings).
    tables : dict, optional
        Name -> DataFrame, each written to ``<name>.csv``.
    headline : sequence of str, optional
        The keys of ``metrics`` that are this notebook's headline numbers, in the order a sweep's report
        shows them (before the other metrics); stored in ``metrics.json`` under ``"headline"``.

    Returns
    -------
    list of Path
        The paths written.

    Raises
    ------
    ValueError
        ``headline`` without ``metrics``, a headline key that is not a key of ``metrics``, or a metric named
        ``"headline"``.
    """
    out = Path(output_dir)
    metrics = _with_headline(metrics, headline)
    written = []
    if results is not None:
        from privnb.experiments.folds import tidy_frame

        with atomic_path(out / "results.parquet") as tmp:
            tidy_frame(results).to_parquet(tmp)
        written.append(out / "results.parquet")
    if metrics is not None:
        write_text(out / "metrics.json", json.dumps({k: _plain(v) for k, v in metrics.items()}, indent=2))
        written.append(out / "metrics.json")
    for name, table in (tables or {}).items():
        with atomic_path(out / f"{name}.csv") as tmp:
            table.to_csv(tmp, index=False)
        written.append(out / f"{name}.csv")
    return written


def _with_headline(metrics: dict | None, headline: Sequence[str] | None) -> dict | None:
    """``metrics`` with the ``headline`` list of its keys added (checked)."""
    if metrics is not None and HEADLINE_KEY in metrics:
        raise ValueError(f"a metric may not be named {HEADLINE_KEY!r}; pass headline=[...] to name headline keys")
    if headline is None:
        return metrics
    if isinstance(headline, str):
        raise ValueError(f"headline must be a list of metric keys, got the string {headline!r}")
    if metrics is None:
        raise ValueError("headline names keys of metrics; pass metrics=... too")
    unknown = [key for key in headline if key not in metrics]
    if unknown:
        raise ValueError(f"headline keys {unknown} are not in metrics (its keys: {sorted(map(str, metrics))})")
    return {**metrics, HEADLINE_KEY: list(headline)}


def _plain(value):
    """A JSON-ready version of a metric: Python numbers, finite or spelled out as a string."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        return float(value) if math.isfinite(value) else str(float(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return value


def refresh_kept_outputs(path: str | os.PathLike, *, timeout: int = 1800) -> list[str]:
    """Run a notebook with its defaults and store only its ``keep_output`` cells' outputs.

    This is how a notebook is prepared for a commit. Returns the remaining convention problems.

    Parameters
    ----------
    path : path
        The notebook (rewritten in place).
    timeout : int
        Seconds a single cell may run.
    """
    import nbformat
    from nbclient import NotebookClient

    from privnb.sweeps import kernel_options

    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        kernel_name="python3",
        timeout=timeout,
        resources={"metadata": {"path": str(path.parent)}},
        **kernel_options(),  # no "KeyboardInterrupt caught in kernel" error at its shutdown
    ).execute()
    clear_unkept_outputs(nb)
    nb.metadata.pop("papermill", None)
    write_notebook(nb, path)
    return convention_problems(nb)
