"""What full-domain lattice searches learned, kept by the content of their inputs: a few lattices in
memory (so scikit-learn clones and every k of a fold share one) and, on disk, each k's classification
and the checked nodes' summaries (so the notebooks of a sweep, in other processes, share them too).

A lattice is keyed by :func:`lattice_key`: a digest of the rows' quasi-identifier codes and values, each
hierarchy's :meth:`~privnb.data.Hierarchy.fingerprint` and the suppression share, everything a search's
result depends on.

The disk cache owns only what it wrote. It lives in :data:`SUBFOLDER` (``privnb-lattices``) inside the
folder ``PRIVNB_CACHE`` names (by default the user cache, :func:`privnb.data.user_cache_dir`), never in
that folder itself: ``PRIVNB_CACHE=~/scratch`` writes ``~/scratch/privnb-lattices/``. privnb marks the
subfolder it creates with a ``CACHEDIR.TAG`` (the cache directory tagging convention); a subfolder of that
name that it did not create (no tag, something in it) is left alone and the disk cache is off.
``PRIVNB_CACHE`` set to ``off``, ``no``, ``none``, ``false``, ``disabled`` or ``0`` (any case) turns the
disk cache off. One file per key, ``<key>.npz``, at most :data:`MAX_FILES` (the least recently written
of privnb's own entry files removed first, nothing else), written whole (:mod:`privnb.files`), so
concurrent workers never read half a file.

An entry holds the key of the table it describes and a digest of its own content: a file whose key is
not the one asked for (a foreign or renamed entry), whose content digest does not match (a hand-edited
one), or that does not fit the lattice is ignored and removed (the search runs again and rewrites it).
A release does not trust the cache either: :func:`matches_data` re-checks, on the rows, the suppression
of every minimal node it offers before the release is made, and drops what was learned when they differ.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import zipfile
from pathlib import Path

import numpy as np

from privnb.data import user_cache_dir
from privnb.data.digest import update_digest
from privnb.files import write_bytes

__all__ = [
    "ENV_VAR",
    "MAX_FILES",
    "OFF_VALUES",
    "SUBFOLDER",
    "cache_dir",
    "forget_learned",
    "lattice_key",
    "load_learned",
    "matches_data",
    "save_learned",
]

#: The environment variable naming the folder the disk cache's own subfolder goes in.
ENV_VAR = "PRIVNB_CACHE"
#: Values of ``PRIVNB_CACHE`` (any case) that turn the disk cache off.
OFF_VALUES = ("off", "no", "none", "false", "disabled", "0")
#: The subfolder privnb creates and owns inside the folder ``PRIVNB_CACHE`` names.
SUBFOLDER = "privnb-lattices"
#: The most entry files the disk cache keeps; beyond it the least recently written go.
MAX_FILES = 256
_FORMAT = "privnb-lattice-2"  # changes whenever what a file holds, or how a search computes it, changes
_ENTRY = re.compile(r"[0-9a-f]{40}\.npz")  # the names of the entry files privnb writes (a 20-byte key)
_TAG = "CACHEDIR.TAG"
_TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by privnb (its full-domain lattice cache).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


def lattice_key(raw, uniques, hierarchies, max_suppression: float) -> str:
    """A digest of everything a lattice search depends on.

    Parameters
    ----------
    raw : list of int arrays
        Each quasi-identifier's code per row.
    uniques : list of arrays
        Each quasi-identifier's value per code.
    hierarchies : list of Hierarchy
        In quasi-identifier order.
    max_suppression : float
        The suppression share.

    Returns
    -------
    str
        A hexadecimal digest.
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{_FORMAT}|{float(max_suppression)!r}|{len(raw)}".encode())
    for codes, values, hierarchy in zip(raw, uniques, hierarchies):
        update_digest(h, np.asarray(codes).astype(np.min_scalar_type(len(values))))  # lossless, fewer bytes
        update_digest(h, values)
        h.update(hierarchy.fingerprint().encode())
    return h.hexdigest()


def cache_dir() -> Path | None:
    """The disk cache's own folder (``<PRIVNB_CACHE or the user cache>/privnb-lattices``), or None when
    ``PRIVNB_CACHE`` turns it off (:data:`OFF_VALUES`).

    Returns
    -------
    Path or None
    """
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip().lower() in OFF_VALUES:
        return None
    return (Path(env).expanduser() if env and env.strip() else user_cache_dir()) / SUBFOLDER


def _owned_dir(create: bool) -> Path | None:
    """The disk cache's folder when privnb owns it (it carries privnb's tag), creating and tagging it when
    ``create`` and it is missing or empty; None otherwise (off, or a folder of that name privnb did not make).
    """
    folder = cache_dir()
    if folder is None:
        return None
    tag = folder / _TAG
    if tag.is_file():
        with contextlib.suppress(OSError):
            if tag.read_text(encoding="utf-8") == _TAG_TEXT:
                return folder
        return None
    if not create or (folder.is_dir() and any(folder.iterdir())):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    write_bytes(tag, _TAG_TEXT.encode())
    return folder


def _path(key: str, create: bool = False) -> Path | None:
    folder = _owned_dir(create)
    return None if folder is None else folder / f"{key}.npz"


def _content_digest(arrays: dict) -> str:
    h = hashlib.blake2b(digest_size=20)
    h.update(_FORMAT.encode())
    for name in sorted(arrays):
        h.update(name.encode())
        update_digest(h, arrays[name])
    return h.hexdigest()


_ARRAYS = ("ks", "anonymous", "nodes", "caps", "groups", "squares")


def load_learned(key: str, heights) -> tuple[dict, dict]:
    """(k -> anonymous per node, node -> summary) stored under ``key``; empty when none, unreadable, made
    for another table (its stored key differs), edited (its content digest differs) or not fitting ``heights``.

    Parameters
    ----------
    key : str
        From :func:`lattice_key`.
    heights : sequence of int
        The lattice's heights (a file that does not fit them is ignored).

    Returns
    -------
    (dict, dict)
    """
    path = _path(key)
    if path is None or not path.is_file():
        return {}, {}
    heights = tuple(int(h) for h in heights)
    size = int(np.prod(heights))
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {name: f[name] for name in _ARRAYS}
            stored_key, digest = str(f["key"]), str(f["digest"])
        if stored_key != key or digest != _content_digest({**arrays, "key": np.array(key)}):
            return {}, {}
        ks, packed, flat = arrays["ks"].tolist(), arrays["anonymous"], arrays["nodes"]
        caps, groups, squares = arrays["caps"], arrays["groups"], arrays["squares"]
        if packed.shape != (len(ks), (size + 7) // 8) or len(caps) != len(flat) or len(squares) != len(flat):
            return {}, {}
        if len(flat) and (flat.min() < 0 or flat.max() >= size or caps.max() > groups.shape[1]):
            return {}, {}
        anonymous = {int(k): np.unpackbits(row, count=size).astype(bool) for k, row in zip(ks, packed)}
        nodes = zip(*(c.tolist() for c in np.unravel_index(flat, heights)))
        groups = groups.astype(float)
        summaries = {
            node: (cap, row[:cap], sq) for node, cap, row, sq in zip(nodes, caps.tolist(), groups, squares.tolist())
        }
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # a half-gone or foreign file
        return {}, {}
    return anonymous, summaries


def save_learned(key: str, heights, anonymous: dict, summaries: dict) -> None:
    """Store what a search learned under ``key``, merged with what the file already holds, with the key and
    a digest of the content.

    Parameters
    ----------
    key : str
        From :func:`lattice_key`.
    heights : sequence of int
        The lattice's heights.
    anonymous : dict
        k -> bool per node.
    summaries : dict
        node (tuple of levels) -> (cap, groups of each size below cap, sum of squared sizes).
    """
    with contextlib.suppress(OSError):  # a read-only or full cache: the next run searches again
        path = _path(key, create=True)
        if path is None:
            return
        heights = tuple(int(h) for h in heights)
        stored_anonymous, stored_summaries = load_learned(key, heights)
        anonymous = {**stored_anonymous, **anonymous}
        summaries = {**stored_summaries, **summaries}
        ks = sorted(anonymous)
        nodes = list(summaries)
        caps = np.array([summaries[n][0] for n in nodes], dtype=np.int64)
        groups = np.zeros((len(nodes), int(caps.max()) if len(caps) else 0))
        for row, n in zip(groups, nodes):
            row[: summaries[n][0]] = summaries[n][1]
        arrays = {
            "ks": np.array(ks, dtype=np.int64),
            "anonymous": np.array([np.packbits(anonymous[k]) for k in ks], dtype=np.uint8).reshape(len(ks), -1),
            "nodes": np.ravel_multi_index(np.array(nodes, dtype=np.intp).T.reshape(len(heights), -1), heights),
            "caps": caps,
            "groups": groups.astype(np.int32),
            "squares": np.array([summaries[n][2] for n in nodes], dtype=float),
        }
        buffer = io.BytesIO()
        np.savez(
            buffer, **arrays, key=np.array(key), digest=np.array(_content_digest({**arrays, "key": np.array(key)}))
        )
        write_bytes(path, buffer.getvalue())
        _prune(path.parent)


def _prune(folder: Path) -> None:
    """Remove privnb's least recently written entry files beyond :data:`MAX_FILES`; nothing else is touched
    (readers tolerate a file gone).
    """
    files = []
    for f in folder.iterdir():
        if _ENTRY.fullmatch(f.name):
            with contextlib.suppress(OSError):  # removed meanwhile by another worker
                files.append((f.stat().st_mtime, f))
    for _, f in sorted(files)[: max(len(files) - MAX_FILES, 0)]:
        f.unlink(missing_ok=True)


def matches_data(lattice, k: int, nodes, suppressed) -> bool:
    """Whether each node suppresses, on the lattice's rows, the rows the search said it does, within the budget.

    What a release depends on, re-checked before it is made: a search seeded from a wrong disk entry (valid,
    but another table's, or edited) claims the wrong suppression or k-anonymity. When it does, everything the
    lattice learned is forgotten (in memory and its disk entry; this process stops storing it), so that a new
    search starts from the rows alone.

    Parameters
    ----------
    lattice : FullDomainLattice
        The lattice searched (its ``suppressed_rows``, ``budget``, ``anonymous``, ``summaries`` and ``key``).
    k : int
        The anonymity level.
    nodes : sequence of sequences of int
        The nodes the search offers (one level per quasi-identifier).
    suppressed : sequence of int
        The rows the search says each node suppresses.

    Returns
    -------
    bool
        True when every count matches the rows and fits the budget.

    Raises
    ------
    RuntimeError
        The counts or summaries differ although nothing was learned from disk (a defect in the search, never a
        cache's).
    """
    actual = [int(lattice.suppressed_rows(node, k).sum()) for node in nodes]
    if (
        actual == [int(s) for s in suppressed]
        and max(actual, default=0) <= lattice.budget
        and all(_summary_holds(lattice, node) for node in nodes)  # the scores a release reports
    ):
        return True
    if not forget_learned(lattice):
        raise RuntimeError(
            f"the lattice search's suppression {list(suppressed)} or summaries differ from the rows' ({actual})"
        )
    return False


def _summary_holds(lattice, node) -> bool:
    """Whether the summary the lattice holds for ``node`` (if any) is the rows' own: the histogram of its small
    class sizes and the sum of squared sizes (the discernibility and suppression the minimal-node table reports).
    """
    key = tuple(int(lv) for lv in node)
    held = lattice.summaries.get(key)
    if held is None:
        return True
    cap, groups, squares = held
    size = lattice.sizes.sizes(list(key))
    rows = np.bincount(size[size < cap].astype(np.intp), minlength=cap).astype(float)
    return np.array_equal(np.asarray(groups, dtype=float), rows) and float(squares) == float(size @ size)


def forget_learned(lattice) -> bool:
    """Forget what ``lattice`` learned (in memory and its disk entry) when it may come from the disk cache.

    This process then stops storing the lattice on disk; a search starts from the rows alone.

    Parameters
    ----------
    lattice : FullDomainLattice
        The lattice (its ``anonymous``, ``summaries`` and ``key``).

    Returns
    -------
    bool
        False when nothing it holds came from disk (its ``key`` is None: a search of the rows alone).
    """
    if lattice.key is None:
        return False
    path = _path(lattice.key)
    if path is not None:
        path.unlink(missing_ok=True)
    lattice.anonymous, lattice.summaries, lattice.key = {}, {}, None
    return True
