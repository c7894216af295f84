"""A synthetic data set that is none of the papers', described by data cards, for the notebooks' own-data runs.

``write_own_data(folder)`` writes ``ward.csv`` (a table with quasi-identifiers of all three kinds, a sensitive
attribute of six values, a binary target with signal in age and severity, missing cells), ARX hierarchies for
``ward``, ``sex`` and ``severity`` and an interval hierarchy for ``age`` (so the generalized views can run),
``ward.yaml`` (its card), and ``baskets.csv`` with ``baskets.yaml`` (a 0/1 item matrix with a label per row,
for k-AC). It returns ``{"table": card path, "items": card path}``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

WARDS = ["north", "south", "east", "west"]


def _table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    age = rng.integers(18, 91, n)
    severity = rng.choice(["low", "medium", "high"], n, p=[0.5, 0.3, 0.2])
    risk = (age - 55) / 20 + (severity == "high") * 1.5 - (severity == "low") + rng.normal(0, 1, n)
    frame = pd.DataFrame(
        {
            "age": age.astype(object),
            "ward": rng.choice(WARDS, n),
            "sex": rng.choice(["F", "M"], n),
            "severity": severity,
            "diagnosis": rng.choice(["flu", "asthma", "diabetes", "ulcer", "fracture", "migraine"], n),
            "readmitted": np.where(risk > 0.5, "yes", "no"),
        }
    )
    frame.loc[rng.choice(n, 6, replace=False), "sex"] = "?"
    frame.loc[rng.choice(n, 3, replace=False), "age"] = "?"
    return frame


def _items(n: int, n_items: int, rng: np.random.Generator) -> pd.DataFrame:
    label = rng.random(n) < 0.4
    rates = rng.uniform(0.05, 0.4, n_items)
    lift = np.where(np.arange(n_items) < n_items // 4, 2.0, 1.0)  # the first quarter of the items carry signal
    p = np.clip(np.where(label[:, None], rates * lift, rates), 0, 0.9)
    matrix = (rng.random((n, n_items)) < p).astype(int)
    frame = pd.DataFrame(matrix, columns=[f"item{j:02d}" for j in range(n_items)])
    frame["class"] = np.where(label, "spam", "ham")
    return frame


def write_own_data(folder: str | Path, *, n: int = 600, n_items: int = 24, seed: int = 0) -> dict[str, Path]:
    """Write the synthetic table, its hierarchies, the item matrix and their cards under ``folder``."""
    folder = Path(folder)
    (folder / "hierarchies").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    _table(n, rng).to_csv(folder / "ward.csv", index=False)
    arx = {
        "ward": [[w, "north-south" if w in ("north", "south") else "east-west", "*"] for w in WARDS],
        "sex": [["F", "*"], ["M", "*"]],
        "severity": [["low", "low-medium", "*"], ["medium", "low-medium", "*"], ["high", "high", "*"]],
    }
    for column, rows in arx.items():
        pd.DataFrame(rows).to_csv(folder / "hierarchies" / f"{column}.csv", sep=";", header=False, index=False)
    table_card = {
        "name": "ward",
        "description": "Synthetic readmissions (not a paper's data): privnb's own-data test table.",
        "file": "ward.csv",
        "roles": {
            "quasi_identifiers": ["age", "ward", "sex", "severity"],
            "sensitive": "diagnosis",
            "target": "readmitted",
            "positive": "yes",
        },
        "columns": {"age": "numeric", "severity": {"kind": "ordinal", "order": ["low", "medium", "high"]}},
        "missing": {"markers": ["?"], "action": "drop"},
        "hierarchies": {
            **{column: {"arx": f"hierarchies/{column}.csv"} for column in ("ward", "sex", "severity")},
            "age": {"intervals": {"low": 10, "high": 100, "width": 10}},
        },
    }
    _items(n, n_items, rng).to_csv(folder / "baskets.csv", index=False)
    items_card = {
        "name": "baskets",
        "description": "Synthetic 0/1 item matrix (not a paper's data) with a label per row.",
        "items": {"file": "baskets.csv", "format": "matrix", "label": "class", "positive": "spam"},
    }
    paths = {"table": folder / "ward.yaml", "items": folder / "baskets.yaml"}
    paths["table"].write_text(yaml.safe_dump(table_card, sort_keys=False))
    paths["items"].write_text(yaml.safe_dump(items_card, sort_keys=False))
    return paths


INSURANCE = ["public", "private", "none", "mixed"]


def write_survey(folder: str | Path, *, n: int = 3000, seed: int = 0) -> Path:
    """Write ``survey.csv`` and its card ``survey.yaml`` under ``folder`` and return the card's path.

    A health survey as a new user brings it (none of the papers' data, no hierarchies): three quasi-identifiers
    (``sex``; ``age``, 0-110 whole years; ``income``, an amount with cents), a sensitive ``insurance`` of four values,
    an ``occupation`` that is neither (the card's ``insensitive`` role), and ``admissions``, a count whose rule
    ``"> 0"`` makes the binary target (about one row in seven positive).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 111, n)  # 111 whole years: too many values for NBC views, which count sex alone
    income = np.round(rng.lognormal(10, 0.6, n), 2)
    insurance = rng.choice(INSURANCE, n, p=[0.4, 0.35, 0.15, 0.1])
    rate = np.exp(-2.6 + (age - 50) / 30 + 0.5 * (insurance == "none"))
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["female", "male"], n),
            "age": age,
            "income": income,
            "occupation": rng.choice(["clerk", "driver", "nurse", "teacher", "farmer"], n),
            "insurance": insurance,
            "admissions": rng.poisson(rate),
        }
    )
    frame.to_csv(folder / "survey.csv", index=False)
    card = {
        "name": "survey",
        "description": "Synthetic health survey (not a paper's data): sex, age, income; admissions counted.",
        "file": "survey.csv",
        "roles": {
            "quasi_identifiers": ["sex", "age", "income"],
            "sensitive": "insurance",
            "insensitive": ["occupation"],
            "target": "admissions",
            "positive": "> 0",
        },
    }
    path = folder / "survey.yaml"
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path
