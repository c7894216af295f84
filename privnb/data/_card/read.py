"""Reading a data card's YAML and its table: the pandas options of ``read:`` checked one by one, duplicated
header names refused, text cells and column names in Unicode NFKC without format characters (U+200B...),
surrounding white space stripped from text cells (``read: {strip: false}`` keeps it), and
the missing-value markers applied the same way to every format (a numeric marker matches numeric cells, a text
marker the text of a cell). Every problem is appended to ``problems``, one line naming the card and what to do.
"""

from __future__ import annotations

import codecs
import numbers
import re
import unicodedata
from pathlib import Path

import pandas as pd
import yaml

from privnb.data._card.read_limits import size_problem
from privnb.data._card.values import matching

READ_KEYS = (
    "sep",
    "header",
    "names",
    "skiprows",
    "encoding",
    "skipinitialspace",
    "comment",
    "decimal",
    "thousands",
    "strip",
)
TEXT_OPTIONS = ("sep", "encoding", "comment", "decimal", "thousands")
BOOLEAN_OPTIONS = ("skipinitialspace", "strip")
YAML_BOOL = "tag:yaml.org,2002:bool"
BOOLEAN_SECTIONS = ("read", "options")


class CardLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases: ``*name`` in a card is refused, so that a few hundred bytes of nested
    aliases (an alias bomb) cannot expand into billions of nodes. A card writes each value out.
    """

    def compose_node(self, parent, index):
        """Compose a node, refusing an alias (see the class docstring).

        Parameters
        ----------
        parent : yaml.Node or None
            The node being composed around it.
        index : object
            Its key or position in ``parent``.
        """
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None,
                None,
                f"an alias (*{event.anchor}) is not allowed in a data card: write the value out",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def yaml_booleans(card, text: str) -> list[str]:
    """Problem lines for the YAML 1.1 booleans of a card written where text is meant.

    PyYAML reads the unquoted words yes/no/on/off/true/false (any case) as booleans, so ``markers: [NO]`` or
    ``positive: yes`` would silently compare ``False`` or ``True`` with the file's cells. Only the pandas
    options under ``read:`` and a built-in loader's ``options:`` take booleans.

    Parameters
    ----------
    card : str or Path
        The card, named in each line.
    text : str
        The card's YAML text.

    Returns
    -------
    list of str
        One line per boolean outside ``read:`` and ``options:``.
    """
    try:
        root = yaml.compose(text, Loader=CardLoader)
    except yaml.YAMLError:
        return []
    found: list[tuple[str, str]] = []
    _walk(root, "", found)
    return [
        f"{card}: {where}: YAML reads the unquoted {word} as a boolean ({word.lower() in ('yes', 'y', 'on', 'true')}); "
        f'write it in quotes ("{word}") to mean the text'
        for where, word in found
    ]


def _walk(node, where: str, found: list) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = f"{where}.{key.value}" if where else str(key.value)
            if key.tag == YAML_BOOL:
                found.append((f"{where or 'the card'}: key {key.value}", key.value))
            if where or key.value not in BOOLEAN_SECTIONS:
                _walk(value, name, found)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, f"{where}[{index}]", found)
    elif isinstance(node, yaml.ScalarNode) and node.tag == YAML_BOOL:
        found.append((where, node.value))


def read_options(card, read, csv: bool, problems: list[str]) -> dict | None:
    """The checked ``read:`` options of a card, ready for :func:`pandas.read_csv` (``strip`` included).

    Parameters
    ----------
    card : str or Path
        The card, named in each problem.
    read : mapping or None
        The card's ``read:`` section.
    csv : bool
        Whether the file is a text table; a Parquet file takes only ``strip``.
    problems : list of str
        Where each problem is appended.

    Returns
    -------
    dict or None
        None when an option is unknown or malformed.
    """
    if read is not None and not isinstance(read, dict):
        problems.append(f"{card}: read: must be a mapping of options, e.g. {{sep: ';', header: 0}}")
        return None
    read = dict(read or {})
    unknown = sorted(set(read) - set(READ_KEYS))
    if unknown:
        problems.append(f"{card}: read: unknown options {unknown}; allowed: {list(READ_KEYS)}")
        return None
    if not csv and set(read) - {"strip"}:
        problems.append(
            f"{card}: read: options {sorted(set(read) - {'strip'})} apply to text files (CSV, TSV); a Parquet "
            "file takes only strip: drop them"
        )
        return None
    bad = [line for key, value in read.items() if (line := _bad_option(key, value))]
    problems.extend(f"{card}: read.{line}" for line in bad)
    if bad:
        return None
    if "header" in read:
        read["header"] = None if read["header"] in (False, None) else int(read["header"])
    if "names" in read:
        read["names"] = [str(name) for name in read["names"]]
    return read


def _is_count(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0


def _bad_option(key: str, value) -> str:
    """What is wrong with one ``read:`` option ("" when nothing)."""
    if key in TEXT_OPTIONS and not isinstance(value, str):
        return f"{key}: {value!r} must be a text (in quotes)"
    if key == "encoding":
        try:
            codecs.lookup(value)
        except LookupError:
            return f"encoding: {value!r} is not an encoding Python knows; use one such as utf-8, latin-1 or cp1252"
    if key in BOOLEAN_OPTIONS and not isinstance(value, bool):
        return f"{key}: {value!r} must be true or false"
    if key == "header" and not (value in (None, False, True) or _is_count(value)):
        return (
            f"header: {value!r} is not supported; give the row number of the header (0 = the first row after "
            "skiprows), or false for a file without one (then name the columns with names:)"
        )
    if key == "names" and (not isinstance(value, list) or len({str(v) for v in value}) != len(value)):
        return f"names: {value!r} must be a list of distinct column names"
    if key == "skiprows" and not (_is_count(value) or (isinstance(value, list) and all(map(_is_count, value)))):
        return f"skiprows: {value!r} must be a number of rows or a list of row numbers"
    return ""


def read_frame(card, path: Path, read: dict, markers: list, problems: list[str]) -> pd.DataFrame | None:
    """The table of a card's file, its text cells stripped and its missing-value markers made missing.

    Parameters
    ----------
    card : str or Path
        The card, named in each problem.
    path : Path
        The CSV/TSV/TXT (optionally .gz) or Parquet file.
    read : dict
        Options checked by :func:`read_options`.
    markers : list
        The card's ``missing.markers`` as written: a number matches numeric cells of equal value (and texts
        that read as that number), a text matches cells of that text (after stripping).
    problems : list of str
        Where each problem is appended.

    Returns
    -------
    pandas.DataFrame or None
        None when the file cannot be read or its header names a column twice.
    """
    options = dict(read)
    strip = options.pop("strip", True)
    csv = path.suffix.lower() != ".parquet"
    too_large = size_problem(path)
    if too_large:
        problems.append(f"{card}: file {path.name} is not read: {too_large}")
        return None
    try:
        if csv:
            options.setdefault("sep", "\t" if path.name.lower().endswith((".tsv", ".tsv.gz")) else ",")
            frame = pd.read_csv(path, na_values=[str(m) for m in markers], keep_default_na=False, **options)
            if _duplicated_header(card, path, options, frame.columns, problems):
                return None
        else:
            frame = pd.read_parquet(path)
    except (OSError, ValueError, pd.errors.ParserError) as error:
        hint = "set read: {encoding: ...} to the file's encoding" if isinstance(error, UnicodeError) else "fix the file"
        problems.append(
            f"{card}: file {path.name} cannot be read ({type(error).__name__}: "
            f"{' '.join(str(error).split())[:200]}); {hint} or the read: options"
        )
        return None
    frame.columns = [normalized_text(str(c)) for c in frame.columns]
    for index in range(frame.shape[1]):
        column = _normalized(frame.iloc[:, index])
        column = _stripped(column) if strip else column
        column = _without_markers(column, markers)
        frame.isetitem(index, _as_numbers(column) if csv else column)
    return frame


def _duplicated_header(card, path: Path, options: dict, columns, problems: list[str]) -> bool:
    """Whether the header row names a column twice (pandas renames the copies ``name.1``, ...)."""
    row = options.get("header", 0)
    names = [str(c) for c in columns]
    if row is None or "names" in options or not any(re.fullmatch(r"(.+)\.\d+", n) for n in names):
        return False
    keys = ("sep", "skiprows", "encoding", "comment", "skipinitialspace")
    try:  # the header row as written: numbered columns, so that shorter lines above it read too
        head = pd.read_csv(
            path,
            header=None,
            names=list(range(len(names))),
            nrows=row + 1,
            dtype=str,
            keep_default_na=False,
            **{k: options[k] for k in keys if k in options},
        )
    except (ValueError, pd.errors.ParserError):
        return False
    written = [str(v) for v in head.iloc[row]] if len(head) > row else names
    twice = sorted({n for n in written if written.count(n) > 1})
    if twice:
        problems.append(
            f"{card}: file {path.name}: its header names the columns {twice} more than once (pandas would "
            f"silently call the copies {twice[0]}.1, ...); give each column its own name in the file, or name "
            "them all with read: {names: [...]} and header: 0"
        )
    return bool(twice)


def normalized_text(text: str) -> str:
    """``text`` in Unicode NFKC with its format characters (category Cf: U+200B zero-width space, U+00AD soft
    hyphen, U+FEFF, ...) removed: spellings that look alike read alike, so a hidden U+200B cannot make ``hiv``
    a second value of a column.

    Parameters
    ----------
    text : str
        A cell or a column name.
    """
    if text.isascii():  # ASCII is NFKC already and holds no format character
        return text
    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


def _normalized(column: pd.Series) -> pd.Series:
    """A column's text cells through :func:`normalized_text` (each distinct value once)."""
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return column
    changed = {}
    for value in pd.unique(column.dropna()):
        if isinstance(value, str) and (text := normalized_text(value)) != value:
            changed[value] = text
    return column.map(lambda v: changed.get(v, v) if isinstance(v, str) else v) if changed else column


def _stripped(column: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return column
    return column.map(lambda v: v.strip() if isinstance(v, str) else v)


def _without_markers(column: pd.Series, markers: list) -> pd.Series:
    if not markers:
        return column
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        numbers_ = [float(m) for m in markers if isinstance(m, numbers.Real) and not isinstance(m, bool)]
        numbers_ += [float(n) for m in markers if isinstance(m, str) and (n := pd.to_numeric(m, errors="coerce")) == n]
        hits = column.isin(numbers_)
    else:
        hits = matching(column, markers)
    return column.where(~hits) if hits.any() else column


def _as_numbers(column: pd.Series) -> pd.Series:
    """A text column of a text file whose cells are all numbers once stripped and cleared of markers, as
    numbers (what pandas would have read without the white space or the markers).
    """
    if pd.api.types.is_numeric_dtype(column):
        return column
    present = column.dropna()
    numbers_ = pd.to_numeric(present, errors="coerce")
    if len(present) and numbers_.notna().all():
        return pd.to_numeric(column)
    return column
