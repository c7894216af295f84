"""What full-domain lattice searches learned, kept by the content of their inputs: a few lattices in
memory (so scikit-learn clones and every k of a fold share one) and, on disk, each k's classification
and the checked nodes' summaries (so the notebooks of a sweep, in other processes, share them too).

A lattice is keyed by :func:`lattice_key`: a digest of the rows' quasi-identifier codes and values, each
hierarchy's :meth:`~privnb.data.Hierarchy.fingerprint` and the suppression share, everything a search's
result depends on. The disk cache lives in the folder named by ``PRIVNB_CACHE`` (``off`` turns it off),
by default ``lattices`` in the user cache (:func:`privnb.data.user_cache_dir`); one file per key (at
most :data:`MAX_FILES`, the least recently written removed first), written whole (:mod:`privnb.files`),
so concurrent workers never read half a file; an unreadable or inconsistent file is ignored (the search
runs again and rewrites it).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import zipfile
from pathlib import Path

import numpy as np

from privnb.data import user_cache_dir
from privnb.data.digest import update_digest
from privnb.files import write_bytes

__all__ = ["ENV_VAR", "MAX_FILES", "cache_dir", "lattice_key", "load_learned", "save_learned"]

#: The environment variable naming the disk cache's folder (``off``, ``0`` or ``none``: no disk cache).
ENV_VAR = "PRIVNB_CACHE"
#: The most files the disk cache keeps; beyond it the least recently written go.
MAX_FILES = 256
_FORMAT = "privnb-lattice-1"  # changes whenever what a file holds, or how a search computes it, changes


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
        update_digest(h, np.asarray(codes, dtype=np.int64))
        update_digest(h, values)
        h.update(hierarchy.fingerprint().encode())
    return h.hexdigest()


def cache_dir() -> Path | None:
    """The disk cache's folder, or None when ``PRIVNB_CACHE`` turns it off.

    Returns
    -------
    Path or None
    """
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip().lower() in ("off", "0", "none", "false"):
        return None
    return Path(env).expanduser() if env else user_cache_dir() / "lattices"


def _path(key: str) -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / f"{key}.npz"


def load_learned(key: str, heights) -> tuple[dict, dict]:
    """(k -> anonymous per node, node -> summary) stored under ``key``; empty when none or unreadable.

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
            ks, packed = f["ks"].tolist(), f["anonymous"]
            flat, caps, groups, squares = f["nodes"], f["caps"], f["groups"], f["squares"]
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
    """Store what a search learned under ``key``, merged with what the file already holds.

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
    path = _path(key)
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
    buffer = io.BytesIO()
    np.savez(
        buffer,
        ks=np.array(ks, dtype=np.int64),
        anonymous=np.array([np.packbits(anonymous[k]) for k in ks], dtype=np.uint8).reshape(len(ks), -1),
        nodes=np.ravel_multi_index(np.array(nodes, dtype=np.intp).T.reshape(len(heights), -1), heights),
        caps=caps,
        groups=groups.astype(np.int32),
        squares=np.array([summaries[n][2] for n in nodes], dtype=float),
    )
    with contextlib.suppress(OSError):  # a read-only or full cache: the next run searches again
        write_bytes(path, buffer.getvalue())
        _prune(path.parent)


def _prune(folder: Path) -> None:
    """Remove the least recently written files beyond :data:`MAX_FILES` (readers tolerate a file gone)."""
    files = []
    for f in folder.glob("*.npz"):
        with contextlib.suppress(OSError):  # removed meanwhile by another worker
            files.append((f.stat().st_mtime, f))
    for _, f in sorted(files)[: max(len(files) - MAX_FILES, 0)]:
        f.unlink(missing_ok=True)
