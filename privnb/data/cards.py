"""Data cards: a small YAML file beside a CSV or Parquet file that says what the data is.

A card names the file (relative to the card), the column roles (quasi-identifiers, sensitive attribute,
target and its positive label), each column's kind (numeric, ordinal with its order, nominal; inferred by
:func:`privnb.validation.infer_kind` when omitted, and the inference reported), the missing-value markers
and what to do with them (drop the rows, or make them a category of their own), and optionally
generalization hierarchies (ARX CSV files, or intervals over a numeric column)::

    name: clinic
    file: clinic.csv                  # .csv, .tsv, .txt (optionally .gz) or .parquet
    read: {sep: ","}                  # optional pandas.read_csv options (sep, header, names, ...) and strip
    roles:
      quasi_identifiers: [age, zip, sex]   # default: every column without another role
      sensitive: diagnosis
      insensitive: [ward]             # predictors neither generalized nor attacked (ARX's term); default none
      target: readmitted
      positive: "yes"                 # a label, a list of labels, or a rule on numbers: "> 0", ">= 50000"
    columns:                          # kinds; a column left out is inferred
      age: numeric
      zip: nominal
      severity: {kind: ordinal, order: [low, medium, high]}
    missing: {markers: ["?", ""], action: drop}     # or action: category (category: missing)
    hierarchies:
      zip: {arx: zip_hierarchy.csv}                # ';'-separated, raw value first, '*' last
      age: {intervals: {low: 0, high: 100, width: 10}}   # or cuts: [[...], ...]; low/high default min/max

A binary item matrix (the feature-selection notebook) has an ``items`` section instead of ``file``/``roles``
(see :mod:`privnb.data._card.items`). The papers' own data sets have cards in ``privnb/data/cards/`` that name
their loader (``loader: adult``), which handles each file's quirks; ``load("adult")`` and
``load(<that card>)`` are the same call.

Text cells lose their surrounding white space (``read: {strip: false}`` keeps it) and the missing-value markers,
the ordinal orders and the positive label meet the cells as numbers where both are numbers, in every format
(:mod:`privnb.data._card.read`, :mod:`privnb.data._card.values`). Every problem found is reported at once in a
:class:`CardError`, one line each naming the card, the column and what to do.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from privnb.data._card.columns import binary_target, column_kinds, handle_missing, variant_warnings
from privnb.data._card.hierarchies import build_card_hierarchies, card_file
from privnb.data._card.items import ItemProblems, load_items
from privnb.data._card.read import CardLoader, read_frame, read_options, yaml_booleans
from privnb.data._card.report import CardReport, table_report
from privnb.data._card.values import closest
from privnb.data.containers import Dataset, TokenCorpus
from privnb.data.hierarchy import Hierarchy
from privnb.data.loaders import LOADERS

CARD_SUFFIXES = (".yaml", ".yml")
MAX_CARD_BYTES = 1 << 20  # a card is a page of YAML; its data lives in the files it names
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
ROLE_KEYS = ("quasi_identifiers", "sensitive", "insensitive", "target", "positive")
MISSING_ACTIONS = ("drop", "category")


class CardError(ValueError):
    """A card that cannot be loaded; ``problems`` holds one line per problem (card, column, what to do)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


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

    Parameters
    ----------
    name : str or path-like
        A built-in data set's name or the path of a data card.
    **options
        Keyword options of the card's loader, as above.
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

    Parameters
    ----------
    card : str or path-like
        The card's path.
    **options
        As in :func:`load`: a built-in loader's options, or only ``data_home`` for a card of your own.
    """
    return _load(Path(card), options)[0]


def check_card(card: str | os.PathLike) -> CardReport:
    """Validate a card and describe its data, reading only: nothing is written or downloaded.

    Parameters
    ----------
    card : str or PathLike
        The card's path.

    Raises
    ------
    CardError
        Every problem, one line each.
    DataUnavailableError
        A built-in card whose files are not here.
    """
    return inspect_card(card)[1]


def inspect_card(card: str | os.PathLike) -> tuple[Dataset | TokenCorpus, CardReport]:
    """What a card loads and its report (as :func:`check_card`), reading only: nothing is written or downloaded.

    Parameters
    ----------
    card : str or PathLike
        The card's path.
    """
    from privnb.data.sources import read_only

    with read_only():
        return _load(Path(card), {})


def read_card(card: str | os.PathLike) -> dict:
    """The card's YAML as a mapping, its keys checked and no YAML boolean where text is meant.

    Parameters
    ----------
    card : str or PathLike
        The card's path.

    Raises
    ------
    CardError
        The card is missing, not YAML, not a mapping, has unknown keys, or holds unquoted yes/no/on/off/true/false
        where text is meant (one line each).
    """
    card = Path(card)
    if not card.is_file():
        raise CardError([f"{card}: card not found; give the path of a .yaml data card"])
    if card.stat().st_size > MAX_CARD_BYTES:
        raise CardError([f"{card}: a card holds at most {MAX_CARD_BYTES} bytes; this one is not a data card"])
    try:
        text = card.read_text(encoding="utf-8")
        raw = yaml.load(text, Loader=CardLoader)
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise CardError([f"{card}: not valid YAML ({' '.join(str(error).split())}); fix the syntax"]) from None
    if not isinstance(raw, dict):
        raise CardError(
            [f"{card}: a card must be a YAML mapping (file:, roles:, ...); see the README's 'Your own data'"]
        )
    unknown = sorted(set(raw) - set(CARD_KEYS))
    if unknown:
        raise CardError([f"{card}: unknown keys {unknown}; allowed: {list(CARD_KEYS)}"])
    booleans = yaml_booleans(card, text)
    if booleans:
        raise CardError(booleans)
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
    return data, table_report(card, data, given, {}, notes)


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
    read = read_options(card, raw.get("read"), path.suffix.lower() != ".parquet", problems)
    return None if read is None else read_frame(card, path, read, markers, problems)


def _roles(card: Path, raw: dict, available: list[str], problems: list[str]):
    """The quasi-identifiers, sensitive attribute and target a card names, each checked against the file."""
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
            f"columns are {available}{closest(column, available)}; fix the name in the card"
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
    insensitive = roles.get("insensitive") or []
    if not isinstance(insensitive, list):
        problems.append(f"{card}: roles.insensitive must be a list of columns, e.g. [ward, occupation]")
        insensitive = []
    insensitive = [c for c in map(str, insensitive) if known(c, "roles.insensitive")]
    quasi = roles.get("quasi_identifiers")
    if quasi is None:
        quasi = [c for c in available if c not in (target, sensitive, *insensitive)]
    quasi = [c for c in map(str, quasi) if known(c, "roles.quasi_identifiers")]
    named = [*quasi, *([sensitive] if sensitive is not None else []), *insensitive, target]
    if len(set(named)) != len(named):
        problems.append(
            f"{card}: roles overlap (target {target!r}, sensitive {sensitive!r}, insensitive {insensitive}, "
            f"quasi-identifiers {quasi}); give each column one role"
        )
    for column in raw.get("columns") or {}:
        known(column, "columns")
    return quasi, sensitive, target, roles, insensitive


def _load_table(card: Path, raw: dict):
    problems: list[str] = []
    missing = dict(raw.get("missing") or {})
    markers = missing.get("markers", [""])
    if not isinstance(markers, list):
        problems.append(f'{card}: missing.markers must be a list, e.g. ["?", ""]')
        markers = []
    action = missing.get("action", "drop")
    if action not in MISSING_ACTIONS:
        problems.append(
            f"{card}: missing.action {action!r} is not one of {list(MISSING_ACTIONS)}; use drop (drop "
            "the rows) or category (a value of its own)"
        )
    frame = _read_frame(card, raw, markers, problems)
    if frame is None:
        raise CardError(problems)
    available = list(frame.columns)
    quasi, sensitive, target, roles, insensitive = _roles(card, raw, available, problems)
    if problems:
        raise CardError(problems)
    features = [*quasi, *([sensitive] if sensitive is not None else []), *insensitive]
    frame = frame[[*features, target]]
    unused = [c for c in available if c not in frame.columns]
    notes = [f"file: {raw['file']} ({len(frame)} rows read)"]
    kinds, orders, how = column_kinds(card, raw, frame, features, problems)
    frame = handle_missing(card, frame, features, target, kinds, orders, missing, action, problems, notes)
    y, names = binary_target(card, frame, target, roles, problems)
    if sensitive is not None and frame[sensitive].nunique() < 2:
        problems.append(
            f"{card}: column {sensitive!r} (roles.sensitive) has {frame[sensitive].nunique()} distinct "
            "value(s) after the missing values are handled; a sensitive attribute needs at least 2 "
            "(anatomy needs l of them): choose another column or drop roles.sensitive"
        )
    specs = raw.get("hierarchies") or {}
    troubled = {c for c in frame.columns if any(f"column {c!r}" in line for line in problems)}
    if isinstance(specs, dict):  # a column that already has a problem is not checked again
        specs = {column: spec for column, spec in specs.items() if column not in troubled}
    hierarchies, found = build_card_hierarchies(card, specs, frame, kinds, available=available)
    problems.extend(found)
    if problems:
        raise CardError(problems)
    warnings = variant_warnings(card, frame, quasi, sensitive, target)
    frame = frame.assign(**{target: y})
    name = str(raw.get("name") or card.stem)
    data = Dataset(
        name,
        frame,
        tuple(quasi),
        sensitive,
        target,
        kinds,
        orders,
        names,
        hierarchies=hierarchies,
        insensitive=insensitive,
    )
    report = table_report(card, data, how, missing, notes)
    report.unused, report.warnings = unused, warnings
    return data, report
