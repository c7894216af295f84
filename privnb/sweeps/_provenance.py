"""What made a sweep point's numbers, recorded beside them: privnb's version and, for a git checkout, its commit.

Recorded only: a point does not run again when they change (:mod:`privnb.sweeps.freshness` says what does).
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import privnb

__all__ = ["privnb_provenance", "provenance_text"]

_GIT_TIMEOUT_S = 10.0


@functools.cache
def privnb_provenance() -> dict:
    """``{"version": ..., "commit": ...}``: privnb's version and the git commit of its source when it runs from a
    checkout (``"+dirty"`` appended when tracked files differ from it; None elsewhere).
    """
    source = Path(privnb.__file__).resolve().parent.parent
    commit = None
    try:
        head = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=_GIT_TIMEOUT_S
        )
        if head.returncode == 0 and head.stdout.strip():
            commit = head.stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no", "--", "privnb"],
                capture_output=True,
                text=True,
                timeout=_GIT_TIMEOUT_S,
            )
            if dirty.returncode == 0 and dirty.stdout.strip():
                commit += "+dirty"
    except (OSError, subprocess.SubprocessError):  # no git, or a slow file system
        commit = None
    return {"version": privnb.__version__, "commit": commit}


def provenance_text(record: dict) -> str:
    """``"privnb 0.1.0 (1a2b3c4d); ward.yaml 5e6f7a8b, ward.csv 9c0d1e2f"``: a point record's privnb and the first
    8 hex digits of each input's sha256, for a report.

    Parameters
    ----------
    record : dict
        A point's record (point.json).
    """
    made = record.get("privnb") or {}
    text = f"privnb {made.get('version', '?')}" if made else ""
    if made.get("commit"):
        text += f" ({made['commit'][:8]}{'+dirty' if made['commit'].endswith('+dirty') else ''})"
    inputs = record.get("inputs") or {}
    files = ", ".join(f"{Path(path).name} {digest[:8]}" for path, digest in inputs.items())
    return "; ".join(part for part in (text, files) if part)
