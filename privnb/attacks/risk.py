"""Re-identification and attribute-disclosure risk of k-anonymous releases, and linkage on containment.

For a release where rows sharing their quasi-identifiers form equivalence classes (full-domain or Mondrian
k-anonymity), :func:`kanonymity_risk` reports what ARX's risk analysis and pyCANON define:

- prosecutor re-identification risk (El Emam's prosecutor model, ARX's "highest" and "average" risk): a
  record in a class of size f is re-identified with probability 1/f; the highest risk is 1/min f, the
  mean over records is (number of classes) / (number of records);
- the homogeneity attack (Machanavajjhala et al., l-diversity, ICDE 2006, Section 3.1): the share of
  records in a class holding a single sensitive value, whose value the class reveals;
- distinct l-diversity (the same paper; pyCANON's ``l_diversity``): the fewest distinct sensitive values
  of a class.

For k-anonymity by containment (seed 001), :func:`linkage_attack` is the adversary who knows m items of a
user's row and looks for the rows of the released projection that contain them: the user is singled out
when exactly one row does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_random_state

from privnb.mechanisms import check_binary, check_columns
from privnb.validation import check_int

__all__ = ["equivalence_classes", "kanonymity_risk", "linkage_attack", "singled_out"]


def equivalence_classes(release: pd.DataFrame, quasi_identifiers) -> np.ndarray:
    """Class id of every record: records with equal (released) quasi-identifiers share one."""
    qi = list(quasi_identifiers)
    if not isinstance(release, pd.DataFrame):
        raise TypeError(f"release must be a DataFrame, got {type(release).__name__}")
    if not qi:
        raise ValueError("quasi_identifiers is empty: name the released quasi-identifier columns")
    check_columns(release, qi, "release")
    if len(release) == 0:
        raise ValueError("the release holds no record")
    return release.groupby(qi, sort=False, observed=True, dropna=False).ngroup().to_numpy()


def kanonymity_risk(release: pd.DataFrame, quasi_identifiers, sensitive: str, *, k: int | None = None) -> dict:
    """Prosecutor risk, homogeneity share and distinct l-diversity of a k-anonymous release (ARX, pyCANON).

    Parameters
    ----------
    release : DataFrame
        The released records (suppressed ones left out), generalized quasi-identifiers as labels.
    quasi_identifiers : sequence of str
    sensitive : str
    k : int, optional
        The k the release claims: a ``ValueError`` when some class holds fewer records.

    Returns
    -------
    dict
        ``k`` (smallest class), ``n_records``, ``n_classes``, ``prosecutor_highest`` (1/k),
        ``prosecutor_mean`` (classes / records), ``homogeneity`` (share of records in a single-valued class),
        ``l_diversity`` (fewest distinct sensitive values in a class).
    """
    classes = equivalence_classes(release, quasi_identifiers)
    if sensitive not in release.columns:
        raise ValueError(f"sensitive column {sensitive!r} is not in the release ({list(release.columns)})")
    check_columns(release, [sensitive], "release")
    sizes = np.bincount(classes)
    values = pd.factorize(release[sensitive])[0]
    distinct = pd.DataFrame({"c": classes, "v": values}).drop_duplicates().groupby("c").size().to_numpy()
    smallest = int(sizes.min())
    if k is not None and smallest < check_int(k, "k"):
        raise ValueError(
            f"the release is not {k}-anonymous: its smallest equivalence class holds {smallest} "
            f"record(s); pass the k it was built with, or the release after suppression"
        )
    return {
        "k": smallest,
        "n_records": len(classes),
        "n_classes": len(sizes),
        "prosecutor_highest": 1.0 / smallest,
        "prosecutor_mean": len(sizes) / len(classes),
        "homogeneity": float(sizes[distinct == 1].sum() / len(classes)),
        "l_diversity": int(distinct.min()),
    }


def _known_items(X: sp.csr_array, m: int, rng, on_short: str):
    """m items drawn without replacement from each row's items (rows with fewer items: error or dropped)."""
    counts = np.diff(X.indptr)
    short = counts < m
    if short.any() and on_short == "error":
        raise ValueError(
            f"{int(short.sum())} row(s) hold fewer than m={m} items (the fewest: {int(counts.min())}); "
            "lower m, or pass on_short='skip' to leave those users out"
        )
    users = np.flatnonzero(~short)
    # a random rank for every item of a row: the m smallest ranks are the known items
    keys = rng.random_sample(X.nnz)
    row_of = np.repeat(np.arange(X.shape[0]), counts)
    order = np.lexsort((keys, row_of))
    position = np.arange(X.nnz) - np.repeat(X.indptr[:-1], counts)
    chosen = order[position < m]
    chosen = chosen[~short[row_of[chosen]]]
    items = X.indices[chosen].reshape(-1, m) if m else np.empty((len(users), 0), dtype=np.intp)
    return users, items


def singled_out(X, known: np.ndarray, features=None) -> np.ndarray:
    """Number of rows of the projection on ``features`` that contain each user's known items.

    ``known`` is (n_users, m) item indices; items outside ``features`` are not released and match every
    row. Posting lists are bitsets over rows, intersected with a bitwise and, counted with a popcount.
    """
    X = check_binary(X)
    n, p = X.shape
    released = np.zeros(p + 1, dtype=bool)
    released[np.arange(p) if features is None else np.asarray(features, dtype=np.intp)] = True
    words = (n + 63) // 64
    bits = np.zeros((p + 1, words * 64), dtype=bool)
    Xc = X.tocsc()
    bits[np.repeat(np.arange(p), np.diff(Xc.indptr)), Xc.indices] = True
    bits[~released] = False
    bits[~released, :n] = True  # an unreleased item is no constraint
    packed = np.packbits(bits, axis=1, bitorder="little").view(np.uint64)
    unique, inverse = np.unique(np.sort(known, axis=1), axis=0, return_inverse=True)
    out = np.empty(len(unique), dtype=np.int64)
    step = max(1, (1 << 24) // (words * max(1, unique.shape[1]) * 8))
    for start in range(0, len(unique), step):
        block = unique[start : start + step]
        if block.shape[1] == 0:
            out[start : start + step] = n
            continue
        meet = np.bitwise_and.reduce(packed[block], axis=1)
        out[start : start + step] = np.bitwise_count(meet).sum(axis=1)
    return out[inverse.ravel()]


def linkage_attack(X, m: int, features=None, *, on_short: str = "error", random_state=None) -> dict:
    """Share of users singled out by an adversary who knows m of their items (seed 001's threat model).

    For each user, ``m`` items are drawn at random from the user's row of ``X`` (all features); the user is
    singled out when exactly one row of the released projection ``X[:, features]`` contains those of them
    that are released. A k-anonymous or k-AC projection (k >= 2) singles nobody out, for any m.

    Parameters
    ----------
    X : binary matrix (n_users, n_items)
    m : int
        Items the adversary knows, at least 1.
    features : array-like of int, optional
        The released columns (default all: the full feature set).
    on_short : {"error", "skip"}
        A row with fewer than ``m`` items raises ``ValueError``, or is left out of the share.
    random_state : int, RandomState or None

    Returns
    -------
    dict
        ``singled_out`` (share), ``mean_matches`` (mean number of rows containing the known items),
        ``n_users`` (users attacked), ``n_skipped``.
    """
    m = check_int(m, "m")
    if on_short not in ("error", "skip"):
        raise ValueError(f"on_short must be 'error' or 'skip', got {on_short!r}")
    X = check_binary(X)
    if features is not None:
        features = np.asarray(features, dtype=np.intp)
        if features.size and (features.min() < 0 or features.max() >= X.shape[1]):
            raise ValueError(f"features must be column indices in 0..{X.shape[1] - 1}")
    users, items = _known_items(X, m, check_random_state(random_state), on_short)
    if len(users) == 0:
        raise ValueError(f"no row holds m={m} items: nothing to attack")
    matches = singled_out(X, items, features)
    return {
        "singled_out": float(np.mean(matches == 1)),
        "mean_matches": float(matches.mean()),
        "n_users": len(users),
        "n_skipped": int(X.shape[0] - len(users)),
    }
