"""Data cards: a small YAML file beside a CSV or Parquet file that says what the data is.

A card names the file (relative to the card), the column roles (quasi-identifiers, sensitive attribute,
target and its positive label), each column's kind (numeric, ordinal with its order, nominal; inferred by
:func:`privnb.validation.infer_kind` when omitted, and the inference reported), the missing-value markers
and what to do with them (drop the rows, or make them a category of their own), and optionally
generalization hierarchies (ARX CSV files, or intervals over a numeric column)::

    name: clinic
    file: clinic.csv                  # .csv, .tsv, .txt (optionally .gz) or .parquet
    read: {sep: ","}                  # optional pandas.read_csv options (sep, header, names, ...)
    roles:
      quasi_identifiers: [age, zip, sex]   # default: every column without another role
      sensitive: diagnosis
      target: readmitted
      positive: "yes"
    columns:                          # kinds; a column left out is inferred
      age: numeric
      zip: nominal
      severity: {kind: ordinal, order: [low, medium, high]}
    missing: {markers: ["?", ""], action: drop}     # or action: category (category: missing)
    hierarchies:
      zip: {arx: zip_hierarchy.csv}                # ';'-separated, raw value first, '*' last
      age: {intervals: {low: 0, high: 100, width: 10}}   # or cuts: [[...], ...]; low/high default min/max

A binary item matrix (the feature-selection notebook) has an ``items`` section instead of ``file``/``roles``
(see :mod:`privnb.data.card_items`). The papers' own data sets have cards in ``privnb/data/cards/`` that name
their loader (``loader: adult``), which handles each file's quirks; ``load("adult")`` and
``load(<that card>)`` are the same call.

Every problem found is reported at once in a :class:`CardError`, one line each naming the card, the column and
what to do.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from privnb.data.card_columns import _kinds, _missing, _target
from privnb.data.card_hierarchies import build_card_hierarchies, card_file
from privnb.data.card_items import ItemProblems, load_items
from privnb.data.containers import Dataset, TokenCorpus
from privnb.data.hierarchy import Hierarchy
from privnb.data.loaders import LOADERS

CARD_SUFFIXES = (".yaml", ".yml")
CARDS_DIR = Path(__file__).resolve().parent / "cards"
CARD_KEYS = (
    "name",
    "description",
    "file",
    "read",
    "roles",
    "columns",
    "missing",
    "hierarchies",
    "items",
    "loader",
    "options",
    "loader_does",
    "files",
)
ROLE_KEYS = ("quasi_identifiers", "sensitive", "target", "positive")
READ_KEYS = ("sep", "header", "names", "skiprows", "encoding", "skipinitialspace", "comment", "decimal", "thousands")
MISSING_ACTIONS = ("drop", "category")


class CardError(ValueError):
    """A card that cannot be loaded; ``problems`` holds one line per problem (card, column, what to do)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass
class CardReport:
    """What loading a card did: one row per column (role, kind, how the kind was decided, values, missing
    cells) and notes (rows read and dropped, target balance, sensitive domain, the largest l anatomy allows).
    """

    card: str
    columns: pd.DataFrame
    notes: list[str] = field(default_factory=list)

    def to_string(self) -> str:
        with pd.option_context("display.max_colwidth", 80, "display.width", 200):
            table = self.columns.to_string(index=False) if len(self.columns) else ""
        return "\n".join([f"card: {self.card}", *self.notes, *([table] if table else [])])


def builtin_cards() -> dict[str, Path]:
    """The cards that ship with privnb, by data set name."""
    return {p.stem: p for p in sorted(CARDS_DIR.glob("*.yaml"))}


def is_card(value) -> bool:
    """Whether ``value`` names an existing file ending in .yaml or .yml (then ``load`` reads it as a card)."""
    return (
        isinstance(value, (str, os.PathLike)) and str(value).lower().endswith(CARD_SUFFIXES) and Path(value).is_file()
    )


def load(name: str | os.PathLike, **options) -> Dataset | TokenCorpus:
    """A data set by name (``"adult"``, ``"bank"``, ``"fars"``, ``"ipums"``, ``"pu1"``) or by the path of a
    data card (a ``.yaml``/``.yml`` file): every data set goes through a card.

    ``options`` go to a built-in card's loader (``data_home``, Adult's ``version``, ...); a card of your own
    takes only ``data_home`` (ignored: its file is named by the card).
    """
    if is_card(name):
        return load_card(name, **options)
    cards = builtin_cards()
    if isinstance(name, str) and name in cards:
        return load_card(cards[name], **options)
    if isinstance(name, (str, os.PathLike)) and str(name).lower().endswith(CARD_SUFFIXES):
        raise ValueError(
            f"data card {name} not found; give the path of an existing .yaml card or one of {sorted(cards)}"
        )
    raise ValueError(
        f"unknown data set {name!r}; choose one of {sorted(cards)} or give the path of a data card (.yaml)"
    )


def load_card(card: str | os.PathLike, **options) -> Dataset | TokenCorpus:
    """The Dataset (or, for a binary item matrix, the TokenCorpus) a card describes; CardError lists every
    problem.
    """
    return _load(Path(card), options)[0]


def check_card(card: str | os.PathLike) -> CardReport:
    """Validate a card and describe its data, reading only: nothing is written or downloaded.

    Raises CardError (every problem, one line each) or DataUnavailableError for a built-in card whose files
    are not here.
    """
    from privnb.data.sources import read_only

    with read_only():
        return _load(Path(card), {})[1]


def read_card(card: str | os.PathLike) -> dict:
    """The card's YAML as a mapping, its keys checked."""
    card = Path(card)
    if not card.is_file():
        raise CardError([f"{card}: card not found; give the path of a .yaml data card"])
    try:
        raw = yaml.safe_load(card.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise CardError([f"{card}: not valid YAML ({' '.join(str(error).split())}); fix the syntax"]) from None
    if not isinstance(raw, dict):
        raise CardError(
            [f"{card}: a card must be a YAML mapping (file:, roles:, ...); see the README's 'Your own data'"]
        )
    unknown = sorted(set(raw) - set(CARD_KEYS))
    if unknown:
        raise CardError([f"{card}: unknown keys {unknown}; allowed: {list(CARD_KEYS)}"])
    return raw


def hierarchies_from_card(card: str | os.PathLike, *, data_home=None) -> dict[str, Hierarchy]:
    """The generalization hierarchies a data card declares (``hierarchies:``), by column: the loaded data set's
    ``Dataset.hierarchies`` (an item matrix has none).

    Parameters
    ----------
    card : str or path-like
        The card (a built-in card's path included).
    data_home : str or path-like, optional
        Where a built-in card's files, and ``data:`` hierarchy files, are looked up.

    Returns
    -------
    dict
        Column -> Hierarchy.
    """
    data = load_card(card, **({"data_home": data_home} if data_home is not None else {}))
    return dict(getattr(data, "hierarchies", {}))


def adult_hierarchies(*, data_home=None) -> dict[str, Hierarchy]:
    """Adult's generalization hierarchies as its built-in card (``privnb/data/cards/adult.yaml``) declares them:
    ARX's tables for age, education, marital-status, native-country, occupation, race, sex and workclass;
    intervals for capital-gain, capital-loss and hours-per-week. ``load("adult").hierarchies`` holds the same.

    Parameters
    ----------
    data_home : str or path-like, optional
        Where Adult's files are looked up.

    Returns
    -------
    dict
        Column -> Hierarchy.
    """
    return hierarchies_from_card(builtin_cards()["adult"], data_home=data_home)


def _load(card: Path, options: dict):
    raw = read_card(card)
    if raw.get("loader") is not None:
        return _load_builtin(card, raw, options)
    unexpected = sorted(set(options) - {"data_home"})
    if unexpected:
        raise CardError(
            [f"{card}: options {unexpected} apply to built-in loaders only; describe the data in the card instead"]
        )
    if raw.get("items") is not None:
        try:
            corpus, notes = load_items(card, raw)
        except ItemProblems as error:
            raise CardError(error.problems) from None
        return corpus, CardReport(str(card), pd.DataFrame(), notes)
    return _load_table(card, raw)


def _load_builtin(card: Path, raw: dict, options: dict):
    name = raw["loader"]
    if name not in LOADERS:
        raise CardError(
            [
                (
                    f"{card}: loader {name!r} is not a built-in loader; use one of {sorted(LOADERS)} or "
                    "describe the file with file: and roles:"
                )
            ]
        )
    data = LOADERS[name](**{**(raw.get("options") or {}), **options})
    problems = [] if isinstance(data, TokenCorpus) else _agrees(card, raw, data)
    if problems:
        raise CardError(problems)
    if isinstance(data, Dataset) and raw.get("hierarchies"):
        data = _with_hierarchies(card, raw["hierarchies"], data, options.get("data_home"))
    if isinstance(data, TokenCorpus):
        notes = [
            f"loader: {name} ({' '.join(str(raw.get('loader_does', '')).split())})",
            (
                f"{data.X.shape[0]} rows x {data.X.shape[1]} items, {int(data.y.sum())} positive, "
                f"density {data.X.nnz / max(1, data.X.shape[0] * data.X.shape[1]):.4g}, "
                f"{len(np.unique(data.folds))} folds"
            ),
        ]
        return data, CardReport(str(card), pd.DataFrame(), notes)
    notes = [f"loader: {name} ({' '.join(str(raw.get('loader_does', '')).split())})"]
    given = dict.fromkeys(data.kinds, "given by the loader")
    return data, _report(card, data, given, {}, notes)


def _with_hierarchies(card: Path, specs, data: Dataset, data_home) -> Dataset:
    """A built-in loader's Dataset with the hierarchies its card declares."""
    hierarchies, problems = build_card_hierarchies(card, specs, data.frame, data.kinds, data_home=data_home)
    if problems:
        raise CardError(problems)
    return dataclasses.replace(data, hierarchies=hierarchies)


def _agrees(card: Path, raw: dict, data: Dataset) -> list[str]:
    """A built-in card's roles and kinds must say what its loader does."""
    roles, problems = raw.get("roles") or {}, []
    expected = {
        "quasi_identifiers": list(data.quasi_identifiers),
        "sensitive": data.sensitive,
        "target": data.target,
        "positive": data.target_names[1],
    }
    for key, value in expected.items():
        if key in roles and (list(roles[key]) if key == "quasi_identifiers" else roles[key]) != value:
            problems.append(
                f"{card}: roles.{key} says {roles[key]!r} but loader {raw['loader']!r} gives {value!r}; "
                "make the card say what the loader does"
            )
    for column, spec in (raw.get("columns") or {}).items():
        kind = spec.get("kind") if isinstance(spec, dict) else spec
        if data.kinds.get(column) != kind:
            problems.append(
                f"{card}: column {column!r}: the card says kind {kind!r}, loader {raw['loader']!r} "
                f"gives {data.kinds.get(column)!r}; make the card say what the loader does"
            )
    return problems


def _read_frame(card: Path, raw: dict, markers: list, problems: list[str]) -> pd.DataFrame | None:
    if not raw.get("file"):
        problems.append(
            f"{card}: no 'file:'; name the CSV or Parquet file (relative to the card), or give "
            "'items:' for a binary item matrix"
        )
        return None
    path = card_file(card, raw["file"])
    if not path.is_file():
        problems.append(f"{card}: file {raw['file']!r} not found at {path}; fix 'file:' (it is relative to the card)")
        return None
    read = dict(raw.get("read") or {})
    unknown = sorted(set(read) - set(READ_KEYS))
    if unknown:
        problems.append(f"{card}: read: unknown options {unknown}; allowed: {list(READ_KEYS)}")
        return None
    try:
        if path.suffix.lower() == ".parquet":
            frame = pd.read_parquet(path)
            for column in frame.columns:
                if not pd.api.types.is_numeric_dtype(frame[column]):
                    frame[column] = frame[column].astype(object).where(~frame[column].isin(markers))
            return frame.infer_objects()
        if read.get("header", True) is False:
            read["header"] = None
        elif "header" in read:
            read["header"] = 0
        read.setdefault("sep", "\t" if path.name.lower().endswith((".tsv", ".tsv.gz")) else ",")
        return pd.read_csv(path, na_values=markers, keep_default_na=False, **read)
    except (OSError, ValueError, pd.errors.ParserError) as error:
        problems.append(
            f"{card}: file {path.name} cannot be read ({type(error).__name__}: "
            f"{' '.join(str(error).split())[:200]}); fix the file or the read: options"
        )
        return None


def _load_table(card: Path, raw: dict):
    problems: list[str] = []
    missing = dict(raw.get("missing") or {})
    markers = [str(m) for m in missing.get("markers", [""])]
    action = missing.get("action", "drop")
    if action not in MISSING_ACTIONS:
        problems.append(
            f"{card}: missing.action {action!r} is not one of {list(MISSING_ACTIONS)}; use drop (drop "
            "the rows) or category (a value of its own)"
        )
    frame = _read_frame(card, raw, markers, problems)
    if frame is None:
        raise CardError(problems)
    frame.columns = [str(c) for c in frame.columns]
    available = list(frame.columns)
    roles = dict(raw.get("roles") or {})
    bad_roles = sorted(set(roles) - set(ROLE_KEYS))
    if bad_roles:
        problems.append(f"{card}: roles: unknown keys {bad_roles}; allowed: {list(ROLE_KEYS)}")
    target, sensitive = roles.get("target"), roles.get("sensitive")

    def known(column, where) -> bool:
        if column in available:
            return True
        problems.append(
            f"{card}: column {column!r} ({where}) is not in {Path(str(raw['file'])).name}; its "
            f"columns are {available}; fix the name in the card"
        )
        return False

    if target is None:
        problems.append(
            f"{card}: roles.target is missing; name the column to predict and its positive label (roles.positive)"
        )
    else:
        known(target, "roles.target")
    if sensitive is not None:
        known(sensitive, "roles.sensitive")
    quasi = roles.get("quasi_identifiers")
    if quasi is None:
        quasi = [c for c in available if c not in (target, sensitive)]
    quasi = [str(c) for c in quasi]
    quasi = [c for c in quasi if known(c, "roles.quasi_identifiers")]
    if target in quasi or (sensitive is not None and sensitive in quasi) or target == sensitive:
        problems.append(
            f"{card}: roles overlap (target {target!r}, sensitive {sensitive!r}, quasi-identifiers "
            f"{quasi}); give each column one role"
        )
    for column in raw.get("columns") or {}:
        known(column, "columns")
    if problems:
        raise CardError(problems)
    features = [*quasi, *([sensitive] if sensitive is not None else [])]
    frame = frame[[*features, target]]
    notes = [f"file: {raw['file']} ({len(frame)} rows read)"]
    kinds, orders, how = _kinds(card, raw, frame, features, problems)
    frame = _missing(card, frame, features, target, kinds, orders, missing, action, problems, notes)
    y, names = _target(card, frame, target, roles, problems)
    if sensitive is not None and frame[sensitive].nunique() < 2:
        problems.append(
            f"{card}: column {sensitive!r} (roles.sensitive) has {frame[sensitive].nunique()} distinct "
            "value(s) after the missing values are handled; a sensitive attribute needs at least 2 "
            "(anatomy needs l of them): choose another column or drop roles.sensitive"
        )
    hierarchies, found = build_card_hierarchies(card, raw.get("hierarchies") or {}, frame, kinds)
    problems.extend(found)
    if problems:
        raise CardError(problems)
    frame = frame.assign(**{target: y})
    name = str(raw.get("name") or card.stem)
    data = Dataset(name, frame, tuple(quasi), sensitive, target, kinds, orders, names, hierarchies=hierarchies)
    return data, _report(card, data, how, missing, notes)


def _report(card: Path, data: Dataset, how: dict, missing: dict, notes: list[str]) -> CardReport:
    frame = data.frame
    roles = dict.fromkeys(data.quasi_identifiers, "quasi-identifier")
    if data.sensitive is not None:
        roles[data.sensitive] = "sensitive"
    rows = [
        {
            "column": c,
            "role": role,
            "kind": data.kinds[c],
            "kind from": how.get(c, ""),
            "values": int(frame[c].nunique()),
            "order": ", ".join(map(str, data.orders[c]))[:60] if c in data.orders else "",
        }
        for c, role in roles.items()
    ]
    rows.append(
        {
            "column": data.target,
            "role": "target",
            "kind": "binary",
            "kind from": "",
            "values": 2,
            "order": f"1 = {data.target_names[1]}",
        }
    )
    y = data.y
    notes = [
        *notes,
        (
            f"{len(frame)} rows; target {data.target!r}: {int(y.sum())} positive "
            f"({data.target_names[1]}), {int(len(y) - y.sum())} negative ({data.target_names[0]})"
        ),
    ]
    if data.sensitive is None:
        notes.append("no sensitive attribute: anatomy and l-diversity cannot run on this data")
    else:
        counts = frame[data.sensitive].value_counts()
        eligible = min(len(counts), len(frame) // int(counts.max()))
        notes.append(
            f"sensitive {data.sensitive!r}: domain of {len(counts)} values; anatomy allows l up to "
            f"{len(counts)} (groups of l distinct values, the rest suppressed), with no row suppressed "
            f"up to l = {eligible} (most frequent value: {int(counts.max())} of {len(frame)} rows)"
        )
    return CardReport(str(card), pd.DataFrame(rows), notes)
