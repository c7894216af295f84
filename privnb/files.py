"""Files written whole or not at all: a temporary file beside the target, then ``os.replace``; a file that
cannot be written (a full disk, a read-only folder) named in one :class:`WriteError`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["WriteError", "atomic_path", "naming_write_errors", "write_bytes", "write_text"]


class WriteError(ValueError):
    """A file that cannot be written (a full disk, a read-only folder), named with the system's reason."""


@contextmanager
def naming_write_errors(path: str | os.PathLike) -> Iterator[None]:
    """Turn a failure to write ``path`` (a read-only folder, a full disk) into a :class:`WriteError` naming it.

    Parameters
    ----------
    path : str or PathLike
        The file or folder being written.
    """
    try:
        yield
    except OSError as error:
        raise WriteError(f"cannot write {path}: {error.strerror or error}") from None


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
