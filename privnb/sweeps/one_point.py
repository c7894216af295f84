"""One point of a sweep, run alone: what each task of a job array runs (``privnb sweep SPEC --point N``).

A SLURM array (or any batch scheduler) runs a paper sweep as one job per point: ``--list`` numbers the
points (0, 1, ...), ``--point N`` or ``--only NAME`` runs one, and ``privnb report OUT`` writes the tables and
reports once every point has run. One-point processes on different points of the same ``--out`` run side by
side: each shares the results folder's lock (a whole sweep, which holds it alone, is refused while they run,
and refuses them while it runs) and holds its own point's lock (:mod:`privnb.sweeps._point_lock`: a second
process on the same point is refused, naming the first). A point writes its own folder and ``point.json``
(written only while its lock names this process's run); ``points.json``, the sweep's index the report
reads, is written when missing or out of date (every process writes the same content, whole).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from privnb.sweeps._point_lock import hold_point
from privnb.sweeps._safety import LOCK_NAME, StopFlag, SweepError, catch_signals, check_out
from privnb.sweeps.freshness import point_state
from privnb.sweeps.point_run import run_point
from privnb.sweeps.runner import SweepInterrupted, SweepSummary, check_kernel, write_points_json
from privnb.sweeps.spec import Point, SweepSpec, read_json


def select_point(points: list[Point], *, index: int | None = None, name: str | None = None) -> Point:
    """The point numbered ``index`` (as ``privnb sweep --list`` numbers them, from 0) or named ``name``.

    Parameters
    ----------
    points : list of Point
        A spec's points, in order.
    index : int, optional
        The point's number.
    name : str, optional
        The point's id (its folder's name, ``dataset=adult,l=2``).

    Raises
    ------
    ValueError
        Neither or both given, a number out of range or an unknown name (the error lists the valid ones).
    """
    if (index is None) == (name is None):
        raise ValueError("give one of --point N or --only NAME")
    if index is not None:
        if not 0 <= index < len(points):
            raise ValueError(
                f"--point {index} is out of range: sweep {points[0].sweep} has points 0 to {len(points) - 1} "
                "(privnb sweep SPEC --list numbers them)"
            )
        return points[index]
    by_name = {p.point_id: p for p in points}
    if name not in by_name:
        raise ValueError(f"--only {name!r}: sweep {points[0].sweep} has no such point; it has {sorted(by_name)}")
    return by_name[name]


@contextmanager
def share_results(out: Path) -> Iterator[None]:
    """Hold the results folder's lock shared with other one-point processes: refused while a whole sweep
    holds it (a whole sweep is refused while this holds it).

    Parameters
    ----------
    out : Path
        The results folder.
    """
    import fcntl

    with open(out / LOCK_NAME, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise SweepError(
                f"a whole sweep ({holder}) is writing to {out}; wait for it to finish, or use another --out"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_index(spec: SweepSpec, points: list[Point]) -> None:
    """Write ``points.json`` when it is missing or lists other points (the spec changed)."""
    folder = Path(points[0].output_dir).parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        index = read_json(folder / "points.json", {})
    except ValueError:
        index = {}
    listed = [p.get("point") for p in index.get("points", [])]
    if listed == [p.point_id for p in points] and index.get("spec", {}).get("path") == spec.path:
        return
    pending = {"status": "pending", "error": "not run yet: run this point (privnb sweep SPEC --point N)"}
    write_points_json(
        spec, points, {p.point_id: {"point": p.point_id, "parameters": p.parameters, **pending} for p in points}
    )


def run_one_point(
    spec: SweepSpec,
    *,
    out: str | Path,
    index: int | None = None,
    name: str | None = None,
    force: bool = False,
    kernel_name: str = "python3",
    cell_timeout: float | None = None,
) -> SweepSummary:
    """Run one point of ``spec`` in this process, beside other one-point processes on the same ``out``.

    A point that is done is skipped unless ``force`` (as in a whole sweep). No tables or reports are written:
    ``privnb report OUT`` writes them once every point has run.

    Parameters
    ----------
    spec : SweepSpec
        The sweep.
    out : path
        The results folder.
    index, name : int or str, optional
        Which point (:func:`select_point`).
    force : bool
        Run the point even when it is done.
    kernel_name : str
        The Jupyter kernel (checked first).
    cell_timeout : float, optional
        Seconds a single cell may run.

    Returns
    -------
    SweepSummary
        The one point's record (``cached`` when it was done already).

    Raises
    ------
    SweepError
        An unusable ``out``, a whole sweep writing to it, or another process running this point
        (:class:`privnb.sweeps._point_lock.PointBusy`).
    SweepInterrupted
        SIGINT, SIGTERM or SIGHUP stopped the point (its kernel too); nothing was recorded for it.
    """
    out = Path(out).resolve()
    points = spec.points(out)
    point = select_point(points, index=index, name=name)
    check_kernel(kernel_name)
    check_out(out)
    stop = StopFlag()
    with share_results(out), hold_point(point, uuid.uuid4().hex[:12]) as hold:
        _write_index(spec, points)
        record = None
        if not force and point_state(point).done:
            record = {**read_json(Path(point.output_dir) / "point.json"), "cached": True}
        else:
            with catch_signals(stop, serial=True):
                stop.running = True
                try:
                    record = run_point(point, kernel_name=kernel_name, cell_timeout=cell_timeout, owner=hold)
                except KeyboardInterrupt:  # raised by the signal handler: the kernel is stopped already
                    if not stop:
                        raise
                finally:
                    stop.running = False
    pending = {"point": point.point_id, "parameters": point.parameters, "status": "pending", "error": ""}
    summary = SweepSummary(str(out), {spec.name: [record or pending]})
    if stop:
        raise SweepInterrupted(stop.signum, summary)
    return summary
