"""Files written whole or not at all: a temporary file beside the target, then ``os.replace``."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "write_bytes", "write_text"]


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it vanishes.

    The file gets the usual permissions (0644), not the private ones a temporary file is created with.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(handle)
    try:
        yield tmp
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all.

    Parameters
    ----------
    path : str or PathLike
        The file to write; its folder is created when missing.
    data : bytes
        The content.
    """
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(data)


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all.

    Parameters
    ----------
    path : str or PathLike
        The file to write; its folder is created when missing.
    text : str
        The content.
    """
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
