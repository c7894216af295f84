"""The files a data card makes a notebook read, and their content digests: what a sweep point's identity holds.

A card reads itself, its ``file``, its ``items.file`` and each ``hierarchies:`` ARX file named by path. A file
named ``data:<name>`` (and a built-in card's ``files:``) is one of privnb's pinned data files, checked against
its sha256 whenever it is read: the card's own text names it, so the card's digest covers it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from privnb.data._card.hierarchies import DATA_PREFIX, card_file
from privnb.data.cards import is_card, read_card

__all__ = ["card_inputs", "file_sha256", "input_digests"]

_CHUNK = 1 << 20


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (read in 1 MiB chunks).

    Parameters
    ----------
    path : str or path-like
        The file.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def card_inputs(card: str | os.PathLike) -> list[Path]:
    """The files a card reads (itself first), those that exist, each once.

    Parameters
    ----------
    card : str or path-like
        The card.
    """
    card = Path(card).resolve()
    refs = []
    try:
        raw = read_card(card)
    except ValueError:  # a broken card: the point fails on it, and its own bytes are what identify it
        raw = {}
    refs.append(raw.get("file"))
    items = raw.get("items")
    refs.append(items.get("file") if isinstance(items, dict) else None)
    hierarchies = raw.get("hierarchies")
    for spec in hierarchies.values() if isinstance(hierarchies, dict) else ():
        refs.append(spec.get("arx") if isinstance(spec, dict) else None)
    paths = [card]
    for ref in refs:
        if isinstance(ref, str) and ref and not ref.startswith(DATA_PREFIX):
            paths.append(card_file(card, ref).resolve())
    return [p for p in dict.fromkeys(paths) if p.is_file()]


def input_digests(values) -> dict[str, str]:
    """``{path: sha256}`` of every file read through the data cards among ``values`` (a point's parameters:
    strings naming existing ``.yaml``/``.yml`` files, alone or in lists).

    Parameters
    ----------
    values : iterable
        Parameter values.
    """
    digests = {}
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and is_card(item):
                for path in card_inputs(item):
                    digests.setdefault(str(path), file_sha256(path))
    return digests
