"""Re-identification and attribute disclosure of k-anonymous releases, each measure under its own name.

For a release where rows sharing their quasi-identifiers form equivalence classes (full-domain or Mondrian
k-anonymity), with f the size of a record's class:

- prosecutor re-identification (El Emam's prosecutor model): a record is re-identified with probability
  1/f. :func:`prosecutor_attack` reports, each under its own name, the highest risk 1/min f (ARX's "highest
  risk"), ARX's average risk, the mean over *records* of 1/f = classes / records, and pyCANON's average risk,
  the mean over *classes* of 1/f (they differ: 0.046 and 0.19 on full-domain k = 2 of Adult);
- the homogeneity attack (Machanavajjhala et al., l-diversity, ICDE 2006, Section 3.1), :func:`homogeneity_attack`:
  the share of records in a class holding a single sensitive value, whose value the class reveals, beside
  distinct l-diversity (the fewest distinct sensitive values of a class; pyCANON's ``l_diversity``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.mechanisms.grouping import check_columns
from privnb.validation import check_int

from .result import AttackResult

__all__ = ["equivalence_classes", "prosecutor_attack", "homogeneity_attack"]


def equivalence_classes(release: pd.DataFrame, quasi_identifiers) -> np.ndarray:
    """Class id of every record: records with equal (released) quasi-identifiers share one.

    Parameters
    ----------
    release : DataFrame
        The released records.
    quasi_identifiers : sequence of str
        The released quasi-identifier columns.

    Returns
    -------
    ndarray of int
    """
    qi = list(quasi_identifiers)
    if not isinstance(release, pd.DataFrame):
        raise TypeError(f"release must be a DataFrame, got {type(release).__name__}")
    if not qi:
        raise ValueError("quasi_identifiers is empty: name the released quasi-identifier columns")
    check_columns(release, qi, "release")
    if len(release) == 0:
        raise ValueError("the release holds no record")
    return release.groupby(qi, sort=False, observed=True, dropna=False).ngroup().to_numpy()


def _class_sizes(release, quasi_identifiers, k):
    classes = equivalence_classes(release, quasi_identifiers)
    sizes = np.bincount(classes)
    smallest = int(sizes.min())
    if k is not None and smallest < check_int(k, "k"):
        raise ValueError(
            f"the release is not {k}-anonymous: its smallest equivalence class holds {smallest} "
            f"record(s); pass the k it was built with, or the release after suppression"
        )
    return classes, sizes


def prosecutor_attack(release: pd.DataFrame, quasi_identifiers, *, k: int | None = None) -> AttackResult:
    """Prosecutor re-identification: a record in a class of f records is re-identified with probability 1/f.

    Parameters
    ----------
    release : DataFrame
        The released records (suppressed ones left out), generalized quasi-identifiers as labels.
    quasi_identifiers : sequence of str
        The released quasi-identifier columns.
    k : int, optional
        The k the release claims: a ``ValueError`` when some class holds fewer records.

    Returns
    -------
    AttackResult
        Attack ``"prosecutor"``: success is ARX's average risk (mean over records of 1/f, classes / records);
        baseline 1 / records (a record picked among all); details ``highest`` (1 / min f, ARX's highest
        risk), ``arx_average`` (the success), ``pycanon_average`` (mean over classes of 1/f), ``k`` (min f),
        ``n_classes``.
    """
    _, sizes = _class_sizes(release, quasi_identifiers, k)
    n = int(sizes.sum())
    return AttackResult(
        "prosecutor",
        "expected share of records re-identified (ARX's average risk: classes / records)",
        len(sizes) / n,
        1.0 / n,
        n,
        {
            "highest": 1.0 / sizes.min(),
            "arx_average": len(sizes) / n,
            "pycanon_average": float(np.mean(1.0 / sizes)),
            "k": int(sizes.min()),
            "n_classes": len(sizes),
        },
    )


def homogeneity_attack(release: pd.DataFrame, quasi_identifiers, sensitive: str, *, k: int | None = None):
    """The homogeneity attack: a record whose class holds one sensitive value has that value disclosed.

    Parameters
    ----------
    release : DataFrame
        The released records (suppressed ones left out).
    quasi_identifiers : sequence of str
        The released quasi-identifier columns.
    sensitive : str
        The sensitive column.
    k : int, optional
        The k the release claims (checked).

    Returns
    -------
    AttackResult
        Attack ``"homogeneity"``: success the share of records in a single-valued class; baseline the same
        share when nothing but the sensitive column is released (1 when it holds one value, else 0);
        details ``l_diversity`` (fewest distinct sensitive values in a class).
    """
    if sensitive not in release.columns:
        raise ValueError(f"sensitive column {sensitive!r} is not in the release ({list(release.columns)})")
    classes, sizes = _class_sizes(release, quasi_identifiers, k)
    check_columns(release, [sensitive], "release")
    values = pd.factorize(release[sensitive])[0]
    distinct = pd.DataFrame({"c": classes, "v": values}).drop_duplicates().groupby("c").size().to_numpy()
    return AttackResult(
        "homogeneity",
        "share of records whose class holds a single sensitive value",
        float(sizes[distinct == 1].sum() / len(classes)),
        float(len(np.unique(values)) == 1),
        len(classes),
        {"l_diversity": int(distinct.min())},
    )
