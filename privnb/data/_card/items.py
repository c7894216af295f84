"""Binary item matrices described by a data card (the feature-selection notebook's input), read into the same
:class:`TokenCorpus` that PU1's loader returns.

The card's ``items`` section::

    items:
      file: baskets.csv       # relative to the card
      format: matrix          # a CSV of 0/1 columns plus a label column (and optionally a fold column)
      label: class            # the label column
      positive: spam          # the positive label
      folds: part             # optional: a column of fold numbers (else 10 stratified folds in row order)

    items:
      file: baskets.txt
      format: transactions    # one transaction per line: the label first, then the items it holds
      sep: " "                # optional; default any whitespace
      positive: spam
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privnb.data._card.columns import positive_labels
from privnb.data._card.read_limits import size_problem
from privnb.data.containers import TokenCorpus

ITEM_KEYS = ("file", "format", "label", "positive", "folds", "sep", "n_folds")
ITEM_FORMATS = ("matrix", "transactions")


class ItemProblems(ValueError):
    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def load_items(card: Path, raw: dict) -> tuple[TokenCorpus, list[str]]:
    """The TokenCorpus of a card's ``items`` section, and notes for the check report.

    Parameters
    ----------
    card : Path
        The card, named in each problem.
    raw : dict
        The card's YAML (its ``items`` section is read).

    Raises
    ------
    ItemProblems
        Every problem found, one line each naming the card, the file or column, and what to do.
    """
    spec = raw["items"]
    problems: list[str] = []
    if not isinstance(spec, dict):
        raise ItemProblems([f"{card}: items must be a mapping (file:, format:, positive:, ...)"])
    unknown = sorted(set(spec) - set(ITEM_KEYS))
    if unknown:
        problems.append(f"{card}: items: unknown keys {unknown}; allowed: {list(ITEM_KEYS)}")
    fmt = spec.get("format", "matrix")
    if fmt not in ITEM_FORMATS:
        problems.append(f"{card}: items.format {fmt!r} is not one of {list(ITEM_FORMATS)}")
    if "positive" not in spec:
        problems.append(f"{card}: items.positive is missing; name the positive label")
    path = card.parent / str(spec.get("file", ""))
    if not spec.get("file") or not path.is_file():
        problems.append(
            f"{card}: items.file {spec.get('file')!r} not found at {path}; fix the path (it is relative to the card)"
        )
    n_folds = spec.get("n_folds", 10)
    if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 1:
        problems.append(f"{card}: items.n_folds {n_folds!r} must be a whole number of folds, at least 1 (default 10)")
    if fmt == "matrix" and spec.get("label") is None:
        problems.append(f"{card}: items.label is missing; name the label column of {spec.get('file')}")
    too_large = problems or size_problem(path)
    if too_large:
        raise ItemProblems(problems or [f"{card}: items.file {path.name} is not read: {too_large}"])
    try:
        if fmt == "matrix":
            X, labels, folds, tokens = _matrix(card, path, spec, problems)
        else:
            X, labels, folds, tokens = _transactions(card, path, spec, problems)
    except (OSError, ValueError, pd.errors.ParserError) as error:
        shape = ", one row per line, the same number of fields in each" if fmt == "matrix" else ""
        reason = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
        raise ItemProblems(
            [f"{card}: items.file {path.name} cannot be read as {fmt} ({reason}); fix the file (UTF-8 text{shape})"]
        ) from None
    if problems:
        raise ItemProblems(problems)
    label_name = spec.get("label", "label")
    positive = str(spec["positive"])
    y = positive_labels(card, label_name, labels, positive, "items.positive", problems).astype(np.int64)
    if problems:
        raise ItemProblems(problems)
    notes = [f"items: {spec['file']} ({fmt})"]
    if folds is None:
        folds = _stratified_folds(y, n_folds)
        notes.append(f"no folds column: {len(np.unique(folds))} stratified folds assigned in row order")
    X = sp.csr_matrix(X, dtype=np.int8)
    notes.append(
        f"{X.shape[0]} rows x {X.shape[1]} items, {int(y.sum())} positive ({positive}), density "
        f"{X.nnz / max(1, X.shape[0] * X.shape[1]):.4g}"
    )
    return TokenCorpus(X, y, np.asarray(folds), np.asarray(tokens), str(raw.get("name") or card.stem)), notes


def _matrix(card, path, spec, problems):
    frame = pd.read_csv(path, sep=spec.get("sep", ","))
    label = spec.get("label")
    if label is None or label not in frame.columns:
        problems.append(
            f"{card}: column {label!r} (items.label) is not in {path.name}; its columns are "
            f"{list(frame.columns)[:10]}: name the label column"
        )
        return None, None, None, None
    fold_column = spec.get("folds")
    if fold_column is not None and fold_column not in frame.columns:
        problems.append(
            f"{card}: column {fold_column!r} (items.folds) is not in {path.name}; fix the name or drop items.folds"
        )
        return None, None, None, None
    items = frame.drop(columns=[c for c in (label, fold_column) if c is not None])
    for column in items.columns:
        values = items[column]
        if not values.isin([0, 1]).all():
            bad = sorted(map(str, values[~values.isin([0, 1])].unique()))[:5]
            problems.append(
                f"{card}: column {column!r} holds {bad} besides 0/1; an item column is 0 (absent) or "
                "1 (present): fix the data or name it items.label / items.folds"
            )
    if problems:
        return None, None, None, None
    folds = frame[fold_column].to_numpy() if fold_column is not None else None
    return items.to_numpy(dtype=np.int8), frame[label].to_numpy(), folds, np.asarray(items.columns, dtype=object)


def _transactions(card, path, spec, problems):
    sep = spec.get("sep")
    rows = [line.split(sep) if sep else line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [[t.strip() for t in r if t.strip()] for r in rows]
    rows = [r for r in rows if r]
    if not rows:
        problems.append(f"{card}: {path.name} holds no transactions; write one per line: the label, then its items")
        return None, None, None, None
    labels = np.array([r[0] for r in rows], dtype=object)
    baskets = [sorted(set(r[1:])) for r in rows]
    tokens, columns = np.unique(
        np.concatenate([np.array(b, dtype=object) for b in baskets] or [[]]).astype(str), return_inverse=True
    )
    lengths = np.array([len(b) for b in baskets])
    X = sp.csr_matrix(
        (np.ones(len(columns), dtype=np.int8), (np.repeat(np.arange(len(rows)), lengths), columns)),
        shape=(len(rows), len(tokens)),
    )
    return X, labels, None, tokens


def _stratified_folds(y: np.ndarray, n_folds: int) -> np.ndarray:
    """Folds 1..n_folds dealt in row order within each class (deterministic, stratified)."""
    n_folds = max(1, min(n_folds, int(np.bincount(y).min())))
    folds = np.empty(len(y), dtype=np.int64)
    for value in (0, 1):
        rows = np.flatnonzero(y == value)
        folds[rows] = np.arange(len(rows)) % n_folds + 1
    return folds
