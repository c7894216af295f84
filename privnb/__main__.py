"""The ``privnb`` command: ``privnb sweep``, ``privnb report``, ``privnb data``, ``privnb notebooks``.

Exit status: 0 on success; 1 when ``sweep`` had failed points (their count is printed), lost its dask
scheduler (one line; finished points kept, reports written) or met a full disk where no point was to blame,
``data`` found a
damaged or mismatching file, or ``notebooks`` found a notebook off the conventions; 2 for bad usage or input
(argparse's usage errors, an invalid spec or data card (``data check``), a spec value whose type does not
fit the notebook's parameter, a missing notebook, an unknown ``--kernel``, an ``--out`` that is a file or
cannot be written or that another sweep holds, an unreachable ``--scheduler`` or a worker without the kernel, a
point another process runs (``--point``), a folder that holds no sweep
or whose reports cannot be written); 3 for an internal error; 130 / 143 / 129 when SIGINT / SIGTERM /
SIGHUP stopped a sweep (the reports are written for what finished). Every error is one line on stderr
(``PRIVNB_DEBUG=1`` adds the traceback).

This module lives outside :mod:`privnb.workbench` so that ``privnb --help`` or ``privnb data`` start without
importing the workbench (nbformat, papermill, matplotlib, sympy): each subcommand imports what it needs when
it runs (``python -m privnb`` runs it too).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
import unicodedata


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="privnb", description="privnb: privacy-preserving classification workbench")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sweep = commands.add_parser(
        "sweep",
        help="run sweep specs with papermill and write results/<sweep>/ and the index report",
        description="Run every point of the given sweep specs (notebooks/sweeps/*.yaml), skipping finished "
        "points, then write each sweep's results.parquet and report and the index over OUT.",
    )
    sweep.add_argument("specs", nargs="+", metavar="SPEC", help="sweep spec files (YAML)")
    sweep.add_argument("--out", default="results", help="results folder (default: results)")
    sweep.add_argument("--workers", type=int, default=1, help="points run at once in local processes (default 1)")
    sweep.add_argument("--scheduler", metavar="ADDRESS", help="run the points on this dask.distributed scheduler")
    sweep.add_argument("--force", action="store_true", help="run finished points again")
    sweep.add_argument("--kernel", default="python3", help="Jupyter kernel (default python3: this environment)")
    sweep.add_argument("--cell-timeout", type=float, metavar="SECONDS", help="limit on one cell's run time")
    sweep.add_argument("--dry-run", action="store_true", help="list the points and whether they would run")
    one = sweep.add_mutually_exclusive_group()
    one.add_argument(
        "--point",
        type=int,
        metavar="N",
        help="run only point N of the one SPEC (numbered by --list): a job array's task",
    )
    one.add_argument("--only", metavar="NAME", help="run only the point named NAME (its folder's name)")
    one.add_argument("--list", action="store_true", help="number the points of each SPEC (for --point) and exit")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")

    report = commands.add_parser(
        "report",
        help="rebuild the tables and reports of a results folder",
        description="Rebuild results.parquet and report.{md,html} of one sweep "
        "folder, or of every sweep in a results folder and its index.",
    )
    report.add_argument("results_dir", metavar="RESULTS_DIR")

    data = commands.add_parser(
        "data",
        help="list the data files and check their sha256; `data check CARD` validates a data card",
        description="List every data file, where it resolves (PRIVNB_DATA, the user "
        "cache) and whether its checksum matches; downloads nothing. "
        "Exit status 1 when a checksum mismatches. `privnb data check CARD...` "
        "validates data cards and describes their data (rows, roles, kinds, "
        "the sensitive domain, the largest l anatomy allows, missing values); "
        "it writes nothing; exit status 2 when a card has a problem.",
    )
    data.add_argument("action", nargs="?", choices=["check"], help="check: validate the data cards given")
    data.add_argument("cards", nargs="*", metavar="CARD", help="data cards (.yaml) or built-in names (adult, ...)")
    data.add_argument("--no-verify", dest="verify", action="store_false", help="skip hashing the files")
    data.add_argument("--data-home", metavar="DIR", help="look here first (default: PRIVNB_DATA, then the cache)")

    notebooks = commands.add_parser(
        "notebooks",
        help="check notebooks against the conventions; --refresh runs them and keeps only checked outputs",
        description="Check that each notebook has one literal parameters cell with output_dir and no outputs "
        "except the keep_output cells nbval checks. With --refresh, first run it with its defaults "
        "and store only those cells' outputs (how a notebook is prepared for a commit).",
    )
    notebooks.add_argument("paths", nargs="+", metavar="NOTEBOOK")
    notebooks.add_argument("--refresh", action="store_true", help="run each notebook and keep only checked outputs")
    notebooks.add_argument("--params", action="store_true", help="print each notebook's parameters and defaults")

    release = commands.add_parser(
        "release",
        help="protect a data set with one mechanism and write the release, its owner's file and its risk summary",
        description="Apply anatomy (--l) or full-domain, Mondrian or MDAV (--k) to the whole data set and write "
        "into OUT the released table(s) without original row ids (rows shuffled, the target in the card's "
        "labels), owner/ with the suppressed rows kept apart, and risk.json (k and l reached, rows suppressed, "
        "utility, the attacks' success and baseline). A folder with files privnb did not write is refused.",
    )
    release.add_argument("card", metavar="CARD", help="a data card (.yaml) or a built-in name (adult, ...)")
    release.add_argument("--mechanism", required=True, choices=["anatomy", "full-domain", "mondrian", "mdav"])
    release.add_argument("--l", type=int, help="anatomy's l")
    release.add_argument("--k", type=int, help="the generalizers' and MDAV's k")
    release.add_argument("--out", required=True, metavar="DIR", help="the release's folder")
    release.add_argument("--format", default="csv", choices=["csv", "parquet"], help="the tables' format")
    release.add_argument("--seed", type=int, default=0, help="anatomy's groups and the rows' shuffle (default 0)")
    return parser


def _release(args) -> int:
    from privnb.data import load
    from privnb.workbench.release_export import make_release, write_release

    made = make_release(load(args.card), args.mechanism, l=args.l, k=args.k, random_state=args.seed)
    for path in write_release(made, args.out, format=args.format):
        print(path)
    summary = made.summary
    print(
        f"{summary['rows_released']} of {summary['rows']} rows released, {summary['rows_suppressed']} suppressed "
        f"(in owner/); k reached {summary['k_reached']}, l reached {summary['l_reached']}"
    )
    return 0


def _sweep(args) -> int:
    from privnb.sweeps.runner import run_sweeps

    if args.dry_run or args.list:
        return _dry_run(args)
    from privnb.sweeps.dask_sweep import SchedulerLost
    from privnb.sweeps.runner import SweepInterrupted

    if args.point is not None or args.only is not None:
        return _one_point(args)
    try:
        summary = run_sweeps(
            args.specs,
            out=args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            force=args.force,
            progress=not args.no_progress,
            kernel_name=args.kernel,
            cell_timeout=args.cell_timeout,
        )
    except SweepInterrupted as stopped:
        summary = stopped.summary
        _print_summary(summary)
        print(
            f"privnb sweep: {stopped}: {summary.n_pending} point(s) not run; run the same command again to resume",
            file=sys.stderr,
        )
        return 128 + stopped.signum
    except SchedulerLost as lost:
        _print_summary(lost.summary)
        print(
            f"privnb sweep: {lost}: {lost.summary.n_pending} point(s) not run, finished ones kept; start the "
            "scheduler and its workers again and run the same command to resume",
            file=sys.stderr,
        )
        return 1
    _print_summary(summary)
    return int(summary.n_failed > 0 or bool(summary.unwritten))


def _one_point(args) -> int:
    """``--point N`` / ``--only NAME``: one point of one spec, beside other one-point processes."""
    from privnb.sweeps.one_point import run_one_point
    from privnb.sweeps.runner import SweepInterrupted
    from privnb.sweeps.spec import load_spec

    if len(args.specs) != 1 or args.scheduler or args.workers != 1:
        raise ValueError(
            "--point and --only run one point of one SPEC in this process: give one SPEC, no --scheduler or --workers"
        )
    try:
        summary = run_one_point(
            load_spec(args.specs[0]),
            out=args.out,
            index=args.point,
            name=args.only,
            force=args.force,
            kernel_name=args.kernel,
            cell_timeout=args.cell_timeout,
        )
    except SweepInterrupted as stopped:
        print(f"privnb sweep: {stopped}: the point was not recorded; run it again", file=sys.stderr)
        return 128 + stopped.signum
    ((name, (record,)),) = summary.records.items()
    done = "already done" if record.get("cached") else f"{record['status']} in {record.get('duration_s')} s"
    print(f"{name}/{record['point']}: {done}; `privnb report {summary.out}` writes the reports once every point ran")
    if record["status"] in ("failed", "skipped"):
        print(f"  {record['status']} {name}/{record['point']}: {record['error']}", file=sys.stderr)
    return int(record["status"] == "failed")


def _dry_run(args) -> int:
    """Print each point, whether it would run and why (new, parameters differ, notebook changed...); with
    ``--list``, each point's number first (what ``--point`` takes).
    """
    from privnb.sweeps.freshness import point_state
    from privnb.sweeps.spec import load_spec

    for spec in map(load_spec, args.specs):
        for number, point in enumerate(spec.points(args.out)):
            state = point_state(point)
            verdict = "to run" if args.force or not state.done else "done"
            reason = "forced" if args.force else state.reason
            first = f"{number}\t" if args.list else ""
            print(f"{first}{spec.name}/{point.point_id}\t{verdict}\t{reason}\t{point.parameters}")
    return 0


def _print_summary(summary) -> None:
    print(
        f"{summary.n_points} points ({summary.n_run} run, {summary.n_points - summary.n_run - summary.n_pending} "
        f"already done), {summary.n_failed} failed, {summary.n_skipped} skipped; report: {summary.out}/report.md"
    )
    for name, records in summary.records.items():
        for record in records:
            if record["status"] in ("failed", "skipped"):
                print(f"  {record['status']} {name}/{record['point']}: {record['error']}", file=sys.stderr)
    for line in summary.unwritten:
        print(f"  not written: {line}", file=sys.stderr)


def _report(args) -> int:
    from privnb.sweeps.report import rebuild_reports

    for path in rebuild_reports(args.results_dir):
        print(path)
    return 0


def _check_cards(cards: list[str]) -> int:
    from privnb.data import CardError, DataUnavailableError
    from privnb.experiments.card_check import card_check
    from privnb.experiments.notebook_parameters import notebook_defaults

    if not cards:
        raise ValueError("privnb data check needs at least one CARD (a .yaml data card or a built-in name)")
    failed = False
    for card in cards:
        try:
            print(_printable(card_check(card, notebook_defaults() or None).to_string()), end="\n\n")
        except CardError as error:
            failed = True
            for problem in error.problems:
                print(_printable(f"privnb data check: {problem}"), file=sys.stderr)
        except DataUnavailableError as error:
            failed = True
            print(_printable(f"privnb data check: {card}: {_one_line(error)}"), file=sys.stderr)
    return 2 if failed else 0


def _data(args) -> int:
    import pandas as pd

    if args.action == "check":
        return _check_cards(args.cards)
    if args.cards:
        raise ValueError(f"unexpected arguments {args.cards}; did you mean `privnb data check CARD`?")
    from privnb.data.manifest import describe_data

    table = describe_data(args.data_home, verify=args.verify)
    with pd.option_context("display.max_colwidth", 120, "display.width", 250):
        print(table.to_string(index=False))
    bad = table.get("sha256", pd.Series(dtype=object)).isin(["mismatch", "damaged"])
    for _, row in table[bad].iterrows():
        print(f"privnb data: {row['file']}: {row.get('problem') or row['sha256']}", file=sys.stderr)
    return int(bool(bad.any()))


def _notebooks(args) -> int:
    import nbformat

    from privnb.workbench.notebooks import convention_problems, refresh_kept_outputs

    failed = 0
    for path in args.paths:
        if not os.path.isfile(path):
            raise ValueError(f"notebook {path} not found")
        if args.params:
            from privnb.workbench.notebooks import parameter_defaults

            defaults = parameter_defaults(nbformat.read(path, as_version=4))
            print("\n".join([f"{path}:", *(f"  {name} = {value!r}" for name, value in defaults.items())]))
            continue
        problems = (
            refresh_kept_outputs(path) if args.refresh else convention_problems(nbformat.read(path, as_version=4))
        )
        failed += bool(problems)
        print(f"{path}: " + ("ok" if not problems else "; ".join(problems)))
    return int(bool(failed))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``privnb`` console script; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in ("sweep", "report", "notebooks"):  # the commands that read notebooks
        from privnb.sweeps import skip_iri_parser

        skip_iri_parser()
    try:
        commands = {"sweep": _sweep, "report": _report, "data": _data, "notebooks": _notebooks, "release": _release}
        return commands[args.command](args)
    except ValueError as error:  # bad usage or input, a bad spec, an unusable --out or scheduler (SweepError)
        _debug()
        parser.exit(2, f"privnb {args.command}: error: {_one_line(error)}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"privnb {args.command}: interrupted\n")
    except Exception as error:
        _debug()
        if isinstance(error, OSError) and error.errno in _DISK_FULL:  # no bug: what could be written was
            parser.exit(1, f"privnb {args.command}: error: {_one_line(error)}\n")
        parser.exit(
            3,
            f"privnb {args.command}: internal error: {type(error).__name__}: {_one_line(error)} "
            "(PRIVNB_DEBUG=1 shows the traceback)\n",
        )


_DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_MAX_MESSAGE = 1000  # characters of an error shown on the terminal (a full disk's errors can be megabytes)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return _printable(text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "\N{HORIZONTAL ELLIPSIS}")


def _printable(text: str) -> str:
    """``text`` with its control and format characters (terminal escape codes, bidi overrides) shown as escapes
    (ESC as the four characters backslash, x, 1, b), so that names read from a data file cannot drive the
    terminal; new lines and tabs kept.
    """
    return "".join(c if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf") else ascii(c)[1:-1] for c in text)


def _debug() -> None:
    if os.environ.get("PRIVNB_DEBUG"):
        traceback.print_exc()


if __name__ == "__main__":
    sys.exit(main())
