"""How much a data card may make privnb read: a bound on a file's bytes once decompressed and on its longest line,
checked in one streaming pass before pandas reads it, so that a compressed bomb or a file of one huge line is
refused in one line instead of exhausting the memory.

The limits are ``PRIVNB_MAX_READ_MB`` (default 1024 MiB: a file's bytes, decompressed for ``.gz``) and
``PRIVNB_MAX_LINE_MB`` (default 16 MiB: its longest line); set either to a larger number of MiB to read more.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

__all__ = ["LINE_ENV_VAR", "READ_ENV_VAR", "read_limits", "size_problem"]

#: The environment variable bounding a card's file, in MiB once decompressed.
READ_ENV_VAR = "PRIVNB_MAX_READ_MB"
#: The environment variable bounding a card's file's longest line, in MiB.
LINE_ENV_VAR = "PRIVNB_MAX_LINE_MB"
_DEFAULTS = {READ_ENV_VAR: 1024, LINE_ENV_VAR: 16}
_MIB = 1 << 20
_CHUNK = 4 * _MIB


def read_limits() -> tuple[int, int]:
    """(most bytes a file may hold once decompressed, most bytes in one line), from the environment.

    Raises
    ------
    ValueError
        A limit that is not a positive number of MiB.
    """
    limits = []
    for name, default in _DEFAULTS.items():
        text = os.environ.get(name, "").strip()
        try:
            mib = float(text) if text else default
        except ValueError:
            mib = -1.0
        if not mib > 0:
            raise ValueError(f"{name}={text!r} must be a positive number of MiB (default {default})")
        limits.append(int(mib * _MIB))
    return limits[0], limits[1]


def _limit_text(limit: int, name: str) -> str:
    return f"{limit / _MIB:g} MiB ({name}; set it higher to read more)"


def size_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` is too large to read (its decompressed size or its longest line over the limits), or None.

    A text file (``.gz`` decompressed as it is read) is streamed once, never held whole; a Parquet file is
    bounded by its size on disk.

    Parameters
    ----------
    path : str or path-like
        The file a card names.
    """
    path = Path(path)
    most, line_most = read_limits()
    if path.suffix.lower() == ".parquet":
        size = path.stat().st_size
        return f"it holds {size} bytes, more than {_limit_text(most, READ_ENV_VAR)}" if size > most else None
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    total, line = 0, 0
    try:
        with opener(path, "rb") as f:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                total += len(chunk)
                if total > most:
                    return f"it holds more than {_limit_text(most, READ_ENV_VAR)} once decompressed"
                last = chunk.rfind(b"\n")
                if last < 0:
                    line += len(chunk)
                else:  # the line carried over ends here; one inside the chunk can be long only in a long chunk
                    first = chunk.find(b"\n")
                    inner = _longest(chunk, first, last) if len(chunk) > line_most else 0
                    line = max(line + first, inner) if max(line + first, inner) > line_most else len(chunk) - last - 1
                if line > line_most:
                    return f"a line of it is longer than {_limit_text(line_most, LINE_ENV_VAR)}"
    except (OSError, EOFError, zlib.error):  # unreadable or damaged: pandas names the problem
        return None
    return None


def _longest(chunk: bytes, first: int, last: int) -> int:
    """The longest line of ``chunk`` between its first and last newline."""
    if first == last:
        return 0
    return max(map(len, chunk[first + 1 : last].split(b"\n")))
