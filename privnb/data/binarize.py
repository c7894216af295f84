"""Binary features for the feature-selection paper (Section 5.1 of seed 001).

The paper turns eight Adult attributes (age, work class, education, marital status, occupation, race,
gender, hours-per-week) into 19 binary features: one binary per interval of age (five intervals),
education and hours-per-week, and one-vs-rest binaries for the others ("never-married versus others",
"white versus others"). Its interval bounds and two of its one-vs-rest choices were lost in the text we
have; :data:`ADULT_BINS` and :data:`ADULT_ONE_VS_REST` are ours, chosen so that the density lands
near the paper's 27.9% (Table 3): they give 27.6% on adult.data (32561 rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ADULT_BINS = {
    "age": ((17, 25), (26, 35), (36, 45), (46, 60), (61, 90)),
    "hours-per-week": ((1, 34), (35, 40), (41, 50), (51, 99)),
}
"""Closed integer intervals, one binary feature each (they cover Adult's whole range)."""

ADULT_EDUCATION = {
    "no-hs-diploma": ("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"),
    "hs-grad": ("HS-grad",),
    "some-college-assoc": ("Some-college", "Assoc-voc", "Assoc-acdm"),
    "bachelors": ("Bachelors",),
    "advanced": ("Masters", "Prof-school", "Doctorate"),
}
"""Education levels grouped into five ordered intervals."""

ADULT_ONE_VS_REST = {
    "workclass": ("government", ("Federal-gov", "State-gov", "Local-gov")),
    "marital-status": ("never-married", ("Never-married",)),
    "occupation": ("exec-or-prof", ("Exec-managerial", "Prof-specialty")),
    "race": ("white", ("White",)),
    "sex": ("male", ("Male",)),
}
"""Attribute -> (feature name, the values that give 1); a missing value gives 0."""


def binarize_adult(frame: pd.DataFrame) -> pd.DataFrame:
    """The 19 binary features of seed 001's Adult experiments (Section 5.1).

    Parameters
    ----------
    frame : pandas.DataFrame
        Adult rows with the columns age, workclass, education, marital-status, occupation, race,
        sex and hours-per-week (e.g. ``load_adult(version="train", drop_missing=False).frame``).

    Returns
    -------
    pandas.DataFrame of int8 0/1, 19 columns named ``attribute=value``, same index as ``frame``.
    """
    needed = [*ADULT_BINS, "education", *ADULT_ONE_VS_REST]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"binarize_adult needs the Adult columns {needed}; the frame lacks {missing}")
    columns = {}
    for attribute, intervals in ADULT_BINS.items():
        values = pd.to_numeric(frame[attribute], errors="raise").to_numpy()
        outside = ~np.any([(values >= lo) & (values <= hi) for lo, hi in intervals], axis=0)
        if outside.any():
            raise ValueError(
                f"{attribute} = {values[outside][0]} lies outside the intervals "
                f"{intervals}; extend privnb.data.ADULT_BINS"
            )
        for lo, hi in intervals:
            columns[f"{attribute}={lo}-{hi}"] = (values >= lo) & (values <= hi)
    education = frame["education"].astype(str).str.strip()
    known = {v for values in ADULT_EDUCATION.values() for v in values}
    unknown = sorted(set(education.unique()) - known)
    if unknown:
        raise ValueError(f"unknown education values {unknown[:5]}; extend privnb.data.ADULT_EDUCATION")
    for name, values in ADULT_EDUCATION.items():
        columns[f"education={name}"] = education.isin(values).to_numpy()
    for attribute, (name, values) in ADULT_ONE_VS_REST.items():
        columns[f"{attribute}={name}"] = frame[attribute].astype(str).str.strip().isin(values).to_numpy()
    return pd.DataFrame(columns, index=frame.index).astype(np.int8)


def density(X) -> float:
    """Share of non-zero cells of a binary matrix (Table 3 of seed 001)."""
    nnz = X.nnz if hasattr(X, "nnz") else int(np.count_nonzero(np.asarray(X)))
    return nnz / (X.shape[0] * X.shape[1])
