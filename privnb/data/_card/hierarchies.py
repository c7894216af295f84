"""A data card's ``hierarchies:`` section, built into :class:`~privnb.data.hierarchy.Hierarchy` objects.

Each entry maps a column to ``{arx: FILE}`` (an ARX table: ``;``-separated, the raw value first, ``*`` last;
relative to the card, or ``data:<path>`` in the data folder, verified) or to ``{intervals: {low:, high:,
width: or cuts:}}`` over a numeric column (``low``/``high`` default to the column's smallest and largest
value). :func:`build_card_hierarchies` builds every one, checks it covers the column's values, and returns
the hierarchies with one line per problem (the card, the column, the file, what to do), so that a check
can list them all; the card loader attaches the hierarchies to the Dataset it returns
(``Dataset.hierarchies``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from privnb.data._card.read_limits import size_problem
from privnb.data._card.values import closest
from privnb.data.hierarchy import Hierarchy, HierarchyError
from privnb.data.sources import DataUnavailableError

__all__ = ["DATA_PREFIX", "build_card_hierarchies", "card_file"]

DATA_PREFIX = "data:"
_SHAPES = "{arx: FILE.csv} or {intervals: {low:, high:, width: or cuts:}}"


def card_file(card: str | os.PathLike, ref, data_home=None) -> Path:
    """The path of a file a card names: relative to the card, absolute, or ``data:<path>`` in the data folder.

    Parameters
    ----------
    card : str or path-like
        The card.
    ref : str
        The name the card gives.
    data_home : str or path-like, optional
        Where ``data:`` files are looked up (default: ``PRIVNB_DATA``, then the user cache; see
        :func:`privnb.data.sources.search_dirs`); they are fetched and verified against their pinned sha256.

    Returns
    -------
    Path
    """
    ref = str(ref)
    if ref.startswith(DATA_PREFIX):
        from privnb.data.manifest import FILES
        from privnb.data.sources import fetch

        key = ref[len(DATA_PREFIX) :]
        if key not in FILES:
            raise ValueError(f"{ref!r} is not one of privnb's data files; name one of {sorted(FILES)} after data:")
        return fetch(FILES[key], data_home)
    path = Path(ref).expanduser()
    return path if path.is_absolute() else Path(card).parent / path


def build_card_hierarchies(
    card: str | os.PathLike, specs, frame: pd.DataFrame, kinds: Mapping[str, str], *, data_home=None, available=None
) -> tuple[dict[str, Hierarchy], list[str]]:
    """Every hierarchy of a card's ``hierarchies:`` section, built and checked against the data.

    Parameters
    ----------
    card : str or path-like
        The card (files are relative to it; messages name it).
    specs : mapping
        The card's ``hierarchies:`` section: column -> ``{arx: FILE}`` or ``{intervals: {...}}``.
    frame : DataFrame
        The data the card describes (after its missing values are handled).
    kinds : mapping
        Column -> "numeric", "ordinal" or "nominal" (intervals need a numeric column).
    data_home : str or path-like, optional
        Where ``data:`` files are looked up.
    available : sequence of str, optional
        Every column of the card's file (a hierarchy of a column without a role, or of no column, is named as
        such); default ``frame``'s columns.

    Returns
    -------
    hierarchies : dict
        Column -> Hierarchy, for every entry that could be built.
    problems : list of str
        One line per entry that could not (a file missing, unreadable or ragged; a label with two parents; a
        raw value listed twice; a bad width or cuts; values the hierarchy does not cover), naming the card,
        the column, the file and what to do. Empty when every hierarchy was built.
    """
    card = Path(card)
    if not isinstance(specs, Mapping):
        return {}, [f"{card}: hierarchies must map columns to {_SHAPES}"]
    built, problems = {}, []
    for column, spec in specs.items():
        where = f"{card}: column {column!r}"
        try:
            _check_column(column, frame, available)
            if not isinstance(spec, Mapping) or len(spec) != 1 or next(iter(spec)) not in ("arx", "intervals"):
                raise HierarchyError(f"a hierarchy is {_SHAPES}")
            if "arx" in spec:
                hierarchy = _arx(card, column, spec["arx"], data_home)
            else:
                hierarchy = _intervals(column, spec["intervals"], frame[column], kinds.get(column))
            hierarchy.check(frame[column].dropna().to_numpy())
        except (ValueError, DataUnavailableError) as error:  # HierarchyError, DataIntegrityError, values uncovered
            problems.append(f"{where}{' ' if str(error).startswith('(') else ': '}{error}")
        else:
            built[column] = hierarchy
    return built, problems


def _check_column(column, frame: pd.DataFrame, available) -> None:
    """A ``hierarchies:`` key must name a column with a role."""
    if column in frame.columns:
        return
    if column in (available or ()):
        raise HierarchyError("(hierarchies) has no role in the card; give it one or drop its hierarchy")
    columns = list(available or frame.columns)
    raise HierarchyError(
        f"(hierarchies): no such column in the file; its columns are {columns}{closest(column, columns)}; fix the key"
    )


def _arx(card: Path, column, ref, data_home) -> Hierarchy:
    path = card_file(card, ref, data_home)
    if not path.is_file():
        raise HierarchyError(f"hierarchy file {ref!r} not found at {path}; fix the path (it is relative to the card)")
    too_large = size_problem(path)
    if too_large:
        raise HierarchyError(f"hierarchy file {path} is not read: {too_large}")
    try:
        return Hierarchy.from_arx(path, name=str(column))
    except HierarchyError as error:
        raise HierarchyError(f"hierarchy file {path}: {error}; fix the file") from None


def _intervals(column, spec, values: pd.Series, kind) -> Hierarchy:
    if kind != "numeric":
        present = values.dropna()
        numbers = pd.to_numeric(present, errors="coerce")
        text = present[numbers.isna()].unique()[:3].tolist()
        why = (
            f" because it holds non-numbers such as {text}; list them in missing.markers if they mean missing, or"
            if len(text) and numbers.notna().mean() >= 0.5
            else ";"
        )
        raise HierarchyError(
            f"interval hierarchies need a numeric column, this one is {kind}{why} give an ARX table (arx: FILE.csv) "
            "instead"
        )
    if not isinstance(spec, Mapping):
        raise HierarchyError(f"intervals must be a mapping {{low:, high:, width: or cuts:}}, got {spec!r}")
    unknown = sorted(set(spec) - {"low", "high", "width", "cuts"})
    if unknown:
        raise HierarchyError("intervals take only low:, high: and one of width: or cuts:")
    cuts = spec.get("cuts")
    scalars = [spec.get(key, 0) for key in ("low", "high", "width")]
    scalars += [x for level in (cuts if isinstance(cuts, list) else []) if isinstance(level, list) for x in level]
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in scalars):
        raise HierarchyError(
            "intervals' low, high, width and cuts must be numbers (cuts: a list of lists of numbers, e.g. "
            "[[20, 40, 60], [40]]); write them without quotes or units"
        )
    values = values.dropna()
    spec = dict(spec)
    spec.setdefault("low", float(values.min()) if len(values) else 0.0)
    spec.setdefault("high", float(values.max()) if len(values) else 0.0)
    try:
        return Hierarchy.intervals(name=str(column), **spec)
    except HierarchyError as error:
        raise HierarchyError(f"{error}; fix the card's intervals") from None
