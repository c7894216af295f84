"""Where data files live, how they are downloaded, checked and written (private to privnb.data).

A data file has a logical path relative to a data home (``adult/adult.data``), mirroring the layout
of the shared data folder. On disk it may be stored plain or gzipped (``adult/adult.data.gz``); its
pinned sha256 is always of the uncompressed content, i.e. of the file as its source serves it.
"""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import hashlib
import io
import os
import urllib.request
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import platformdirs

from privnb.files import write_bytes

ENV_VAR = "PRIVNB_DATA"
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class DataUnavailableError(RuntimeError):
    """A data file is missing and could not be downloaded, or its checksum does not match.

    The message names the file, its download address and the ``PRIVNB_DATA`` variable.
    """


class DataIntegrityError(ValueError):
    """A local data file is not what it claims to be: its sha256 does not match the pinned one, its gzip
    stream is truncated or corrupt, or its bytes are not the expected format. The message names the file
    and what to do.
    """


@dataclass(frozen=True)
class FileSpec:
    """One data file: its logical path, where to download it and its pinned checksum.

    Parameters
    ----------
    dataset : str
        The data set the file belongs to (a row label of ``describe_data``).
    path : str
        Path relative to a data home, with ``/`` separators, without a ``.gz`` suffix unless the
        source itself serves a gzipped archive (``pu1/pu1_encoded.tar.gz``).
    url : str or None
        Canonical download address; None when no address serves this exact file.
    sha256 : str or None
        sha256 of the uncompressed content; None when no checksum is known (then unverified).
    member : str or None
        When ``url`` serves a zip archive, the name of the file inside it.
    """

    dataset: str
    path: str
    url: str | None
    sha256: str | None
    member: str | None = None


def user_cache_dir() -> Path:
    """The per-user cache folder for downloads (platformdirs, application ``privnb``)."""
    return Path(platformdirs.user_cache_dir("privnb"))


def search_dirs(data_home: str | os.PathLike | None = None) -> tuple[list[Path], Path]:
    """Folders to look in, in order, and the folder a missing file is downloaded into.

    ``data_home`` when given is the only place looked at and written to; otherwise the folder named
    by ``PRIVNB_DATA`` (read only: it may be a shared folder) and then the user cache, which
    receives downloads.
    """
    if data_home is not None:
        home = Path(data_home).expanduser()
        return [home], home
    cache = user_cache_dir()
    env = os.environ.get(ENV_VAR)
    dirs = [Path(env).expanduser()] if env else []
    if cache not in dirs:
        dirs.append(cache)
    return dirs, cache


def locate(spec: FileSpec, dirs: list[Path]) -> Path | None:
    """The first existing copy of ``spec`` (plain, then gzipped) in ``dirs``, or None.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    dirs : list of Path
        The folders to look in, in order.
    """
    for folder in dirs:
        for candidate in (folder / spec.path, folder / (spec.path + ".gz")):
            if candidate.is_file():
                return candidate
    return None


def _is_gzipped_copy(spec: FileSpec, path: Path) -> bool:
    return path.name.endswith(".gz") and not spec.path.endswith(".gz")


def open_binary(spec: FileSpec, path: Path) -> BinaryIO:
    """Open a located copy for reading its uncompressed content.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    path : Path
        A copy of it, plain or gzipped (``.gz`` when ``spec.path`` has no such suffix).
    """
    return gzip.open(path, "rb") if _is_gzipped_copy(spec, path) else open(path, "rb")


def content_sha256(spec: FileSpec, path: Path) -> str:
    """sha256 of the uncompressed content of a located copy (hex).

    Parameters
    ----------
    spec : FileSpec
        The data file.
    path : Path
        A copy of it, plain or gzipped.
    """
    digest = hashlib.sha256()
    with open_binary(spec, path) as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


_READ_ONLY = contextvars.ContextVar("privnb_data_read_only", default=False)


@contextmanager
def read_only() -> Iterator[None]:
    """Within this block nothing is downloaded and no checksum is remembered: files are only read
    (``privnb data check``). A missing file is a DataUnavailableError.
    """
    token = _READ_ONLY.set(True)
    try:
        yield
    finally:
        _READ_ONLY.reset(token)


def _unavailable(spec: FileSpec, dirs: list[Path], reason: str) -> DataUnavailableError:
    where = ", ".join(str(d) for d in dirs)
    source = spec.url or "(no download address is known for this exact file)"
    return DataUnavailableError(
        f"data file {spec.path!r} ({spec.dataset}) is not available: {reason}. "
        f"Looked in: {where}. Download address: {source}. "
        f"Put the file (plain or gzipped as {spec.path}.gz) under a folder and set the environment "
        f"variable {ENV_VAR} to that folder, or pass data_home=..."
    )


def _default_opener(url: str):
    return urllib.request.urlopen(url, timeout=60)


def _extract_member(payload: bytes, member: str, spec: FileSpec) -> bytes:
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as archive:
            names = {Path(n).name: n for n in archive.namelist()}
            if member not in names:
                raise KeyError(member)
            return archive.read(names[member])
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{spec.url} is not a zip archive holding {member!r} ({exc!r})") from exc


def download(
    spec: FileSpec, dirs: list[Path], target_dir: Path, opener: Callable[[str], BinaryIO] | None = None
) -> Path:
    """Download ``spec`` into ``target_dir``, check its sha256, write it atomically; return the path.

    A gzip payload (for example PMLB's ``fars.tsv.gz``) is stored as ``<path>.gz`` and checked on
    its uncompressed content. Raises DataUnavailableError when offline or on a checksum mismatch;
    nothing is written then.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    dirs : list of Path
        The folders searched, named in the error message.
    target_dir : Path
        The folder the download is written into.
    opener : callable, optional
        ``opener(url)`` returns a readable binary response (a context manager); default ``urllib``'s
        ``urlopen`` with a 60 s timeout.
    """
    if spec.url is None:
        raise _unavailable(spec, dirs, "it is missing and has no download address")
    if _READ_ONLY.get():
        raise _unavailable(spec, dirs, "it is missing (a check downloads nothing)")
    opener = opener or _default_opener
    try:
        with opener(spec.url) as response:
            payload = response.read()
        if spec.member is not None:
            payload = _extract_member(payload, spec.member, spec)
    except (OSError, ValueError) as exc:  # URLError, HTTPError and timeouts are OSErrors
        raise _unavailable(spec, dirs, f"it is missing and the download failed ({exc})") from exc
    gzipped = payload[:2] == _GZIP_MAGIC and not spec.path.endswith(".gz")
    if gzipped:
        try:
            content = gzip.decompress(payload)
        except (OSError, EOFError) as exc:
            raise _unavailable(spec, dirs, f"the downloaded gzip stream is corrupt ({exc})") from exc
    else:
        content = payload
    if spec.sha256 is None:
        why = _wrong_bytes(content[:4096])
        if why is not None:
            raise _unavailable(
                spec, dirs, f"the download from {spec.url} is not the data file: {why} (nothing was written)"
            )
        warnings.warn(f"{spec.path}: no pinned sha256, the download from {spec.url} is unverified", stacklevel=3)
    else:
        got = hashlib.sha256(content).hexdigest()
        if got != spec.sha256:
            raise _unavailable(
                spec, dirs, f"the download's sha256 {got} does not match the pinned {spec.sha256} (nothing was written)"
            )
    target = target_dir / (spec.path + ".gz" if gzipped else spec.path)
    write_bytes(target, payload)
    return target


def candidates(spec: FileSpec, dirs: list[Path]) -> list[Path]:
    """Every existing copy of ``spec`` (plain, then gzipped) in ``dirs``, in search order.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    dirs : list of Path
        The folders to look in, in order.
    """
    return [c for folder in dirs for c in (folder / spec.path, folder / (spec.path + ".gz")) if c.is_file()]


_VERIFIED = "verified.json"

#: The most files the verified-checksum cache remembers (``verified.json`` in the user cache); beyond it the
#: least recently verified entries are dropped (they are hashed again when next used).
VERIFIED_LIMIT = 256


def _verified_cache() -> Path:
    return user_cache_dir() / _VERIFIED


def _read_verified() -> dict:
    import json

    try:
        data = json.loads(_verified_cache().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _remember(key: str, entry: list) -> None:
    """Add or refresh one entry, most recent last; the oldest beyond :data:`VERIFIED_LIMIT` are dropped."""
    import json

    if _READ_ONLY.get():
        return
    data = _read_verified()
    data.pop(key, None)
    data[key] = entry
    kept = dict(list(data.items())[-VERIFIED_LIMIT:])
    with contextlib.suppress(OSError):  # a read-only cache: verify again next time
        write_bytes(_verified_cache(), json.dumps(kept, indent=0).encode())


def _file_state(stat: os.stat_result) -> list[int]:
    """What the cache compares: size, mtime, ctime (ns) and inode, as git's index does. Restoring an edited
    file's mtime (``touch -r``, ``cp -p``, ``rsync -t``) still changes its ctime or its inode.
    """
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def checked_sha256(spec: FileSpec, path: Path) -> str:
    """sha256 of the uncompressed content of ``path``, remembered in the user cache by path, size, mtime, ctime
    and inode (so a file is hashed once until it changes). A truncated or corrupt gzip stream is a
    DataIntegrityError. A malformed cache entry is ignored (the file is hashed again).

    Parameters
    ----------
    spec : FileSpec
        The file ``path`` is a copy of (plain or gzipped).
    path : Path
        The copy.

    Returns
    -------
    str
        The hex sha256 of the uncompressed content.
    """
    path = Path(path)
    state = _file_state(path.stat())
    key = str(path.resolve())
    entry = _read_verified().get(key)
    if isinstance(entry, list) and len(entry) == len(state) + 1 and entry[:-1] == state and isinstance(entry[-1], str):
        return entry[-1]
    try:
        digest = content_sha256(spec, path)
    except (OSError, EOFError, zlib.error) as error:
        raise DataIntegrityError(
            f"data file {path} is damaged ({type(error).__name__}: {error}); {_remedy(spec, path)}"
        ) from None
    _remember(key, [*state, digest])
    return digest


def _remedy(spec: FileSpec, path: Path) -> str:
    source = f"download it again from {spec.url}" if spec.url else "copy it again from its source"
    return f"delete {path} and {source} (the README of the data folder lists the sha256 of each file)"


def looks_wrong(spec: FileSpec, path: Path) -> str | None:
    """Why the start of a file without a pinned checksum is not a data file (an HTML page, empty), or None.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    path : Path
        A copy of it, plain or gzipped; its first 4096 uncompressed bytes are read.
    """
    try:
        with open_binary(spec, path) as handle:
            head = handle.read(4096)
    except (OSError, EOFError, zlib.error) as error:
        return f"it is damaged ({type(error).__name__}: {error})"
    return _wrong_bytes(head)


def _wrong_bytes(head: bytes) -> str | None:
    text = head.lstrip()
    if not text:
        return "it is empty"
    if text[:1] == b"<" or b"<html" in text[:512].lower():
        return "it is an HTML or XML page, not the data file"
    return None


def verify(spec: FileSpec, path: Path) -> Path:
    """``path`` when it is the file ``spec`` claims (pinned sha256, or a plausible format when unpinned);
    else a DataIntegrityError naming it and what to do.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    path : Path
        A copy of it, plain or gzipped.
    """
    if spec.sha256 is None:
        why = looks_wrong(spec, path)
        if why is not None:
            raise DataIntegrityError(f"data file {path} is not {spec.path}: {why}; {_remedy(spec, path)}")
        return path
    got = checked_sha256(spec, path)
    if got != spec.sha256:
        raise DataIntegrityError(
            f"data file {path} does not match the pinned sha256 of {spec.path} "
            f"(got {got}, expected {spec.sha256}): it was edited, emptied or replaced; "
            f"{_remedy(spec, path)}"
        )
    return path


def fetch(
    spec: FileSpec, data_home: str | os.PathLike | None = None, opener: Callable[[str], BinaryIO] | None = None
) -> Path:
    """Path of a verified copy of ``spec``: found in the search folders, else downloaded (see search_dirs).

    Each copy found is checked (:func:`verify`) before it is used; when several are present (plain and
    gzipped), the first that checks out is used and a warning says which and why the others were not.
    An unpinned download in the cache that is not in the expected format is deleted and fetched again.

    Parameters
    ----------
    spec : FileSpec
        The data file.
    data_home : str, path-like or None
        The only folder looked in and downloaded into; None: ``PRIVNB_DATA``, then the user cache.
    opener : callable, optional
        As in :func:`download`.
    """
    dirs, target_dir = search_dirs(data_home)
    problems = []
    for path in candidates(spec, dirs):
        try:
            verify(spec, path)
        except DataIntegrityError as error:
            if spec.sha256 is None and path.parent.is_relative_to(target_dir) and data_home is None:
                path.unlink(missing_ok=True)  # a bad download of ours: never served again
                continue
            problems.append(error)
            continue
        if problems:
            warnings.warn(f"using {path} for {spec.path}; not the other copy: {problems[0]}", stacklevel=2)
        return path
    if problems:
        raise problems[0]
    return download(spec, dirs, target_dir, opener)
