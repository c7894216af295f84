"""Which points of a sweep are done: a point's record (``point.json``) against what the spec asks now.

A point is done, and skipped unless ``--force``, when its ``point.json`` says "ok", its executed notebook
is there, its results.parquet (if any) can be read, and the record was made for the same point: the same
parameters (the whole dict papermill received, but for the injected ``output_dir``; a value compared with
its JSON spelling, so ``1`` and ``1.0`` differ), the same notebook (its path relative to ``notebooks/``)
and the same code in it (:func:`privnb.sweeps.spec.notebook_fingerprint`: its code cells' sources; an edit
to a markdown cell does not run a point again), and the same content of every file it reads through a data
card (``inputs``: the sha256 of the card, its data file, its hierarchy and item files,
:func:`privnb.data.input_digests`): editing the CSV, the card or a hierarchy file runs the point
again. Anything else runs the point again; its last good results wait in ``<point>.previous`` meanwhile.

Recorded beside the numbers but never a reason to run again (:mod:`privnb.sweeps._provenance`): privnb's
version and git commit. A change to privnb's own code, to an installed package or to an environment variable
the notebook reads does not run a point again: ``--force`` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from privnb.data import input_digests
from privnb.sweeps._provenance import privnb_provenance
from privnb.sweeps.spec import Point, read_json


@dataclass(frozen=True)
class PointState:
    """Whether a point is done and why (or why not): ``done``, ``new``, ``parameters differ: l 2->3``...

    ``damaged`` marks a reason a sweep reports as a note (a damaged record or an unreadable table).
    """

    done: bool
    reason: str
    damaged: bool = False


def point_identity(point: Point) -> dict:
    """What a point's record says about what it ran: the notebook's relative name and code fingerprint, the
    digests of the files it reads through data cards (``inputs``), and privnb's version and commit (``privnb``,
    recorded only).

    Parameters
    ----------
    point : Point
        The point.
    """
    return {
        "notebook": point.notebook_name,
        "notebook_sha256": point.notebook_sha256,
        "inputs": input_digests(point.parameters.values()),
        "privnb": privnb_provenance(),
    }


def point_state(point: Point) -> PointState:
    """Whether ``point`` is done (see the module docstring) and why.

    Parameters
    ----------
    point : Point
        A point of a loaded spec.
    """
    folder = Path(point.output_dir)
    try:
        record = read_json(folder / "point.json")
    except ValueError as error:
        return PointState(False, str(error), damaged=True)
    if record is None:
        return PointState(False, "new")
    if record.get("status") != "ok":
        return PointState(False, f"{record.get('status', 'unfinished')} before")
    if not (folder / "notebook.ipynb").exists():
        return PointState(False, "its executed notebook.ipynb is missing")
    changed = _parameter_changes(record.get("parameters", {}), point.parameters)
    if changed:
        return PointState(False, f"parameters differ: {changed}")
    if record.get("notebook") != point.notebook_name:
        return PointState(False, f"notebook changed: {record.get('notebook')} -> {point.notebook_name}")
    if record.get("notebook_sha256") != point.notebook_sha256:
        return PointState(False, "notebook changed: its code differs from the run recorded")
    changed = _input_changes(record.get("inputs"), input_digests(point.parameters.values()))
    if changed:
        return PointState(False, f"inputs changed: {changed}")
    unreadable = _unreadable_results(folder)
    if unreadable:
        return PointState(False, f"results.parquet is unreadable ({unreadable})", damaged=True)
    return PointState(True, "done")


def _spelling(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _parameter_changes(old: dict, new: dict) -> str:
    """``"scale 1.0->10.0, l (unset)->2"``: the keys whose values differ, old -> new; empty when none."""
    keys = list(dict.fromkeys([*new, *old]))
    unset = "(unset)"
    changes = [
        f"{key} {_spelling(old[key]) if key in old else unset}->{_spelling(new[key]) if key in new else unset}"
        for key in keys
        if key not in old or key not in new or _spelling(old[key]) != _spelling(new[key])
    ]
    return ", ".join(changes)


def _input_changes(old: dict | None, new: dict) -> str:
    """``"ward.csv edited, hier.csv new"``: the card-read files whose content differs from the record's."""
    if old is None:  # a record made before inputs were recorded
        return "not recorded" if new else ""
    names = {path: Path(path).name for path in [*old, *new]}
    changes = [f"{names[p]} {'edited' if p in old else 'new'}" for p in new if old.get(p) != new[p]]
    changes += [f"{names[p]} no longer read" for p in old if p not in new]
    return ", ".join(changes)


def _unreadable_results(folder: Path) -> str | None:
    """Why a finished point's results.parquet cannot be read, or None."""
    path = folder / "results.parquet"
    if not path.exists():
        return None
    try:
        import pyarrow.parquet as pq

        pq.read_table(path)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None
