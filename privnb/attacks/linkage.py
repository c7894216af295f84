"""Linkage on k-anonymity by containment (FSAC): two adversaries who know m attribute values of a user.

The released data is the projection of the users' binary rows on the selected features. An adversary knows
m attribute values of a user and looks for the released rows that agree with them; the user is singled
out when exactly one row does.

- The *items* adversary (FSAC's threat model) knows m items the user has (1s) and matches the rows that
  contain them. k-AC guarantees that every row is contained in at least k rows, so this adversary singles
  out no one from a k-AC release, by construction.
- The *values* adversary knows m attribute values of the user, absences (0s) included, and matches the rows
  equal to them on those attributes. k-AC says nothing about absences: on the 2-AC rows {a, b}, {a, b},
  {a}, {b}, knowing both attributes singles out the users {a} and {b}, 2 of 4.

So k-AC protects against an adversary who learns only what a user has; it does not protect against one who
also learns what a user lacks (k-anonymity of the projection, equal rows, would).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.mechanisms.containment import check_binary
from privnb.validation import check_int

from .result import AttackResult

__all__ = ["ADVERSARIES", "linkage_attack", "singled_out"]

ADVERSARIES = ("items", "values")
"""The linkage adversaries: who knows m items a user has, who knows m attribute values (absences included)."""


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


def _known_values(X: sp.csr_array, m: int, rng):
    """m attributes drawn without replacement for every user, as literals: j (has item j) or p + j (lacks it)."""
    n, p = X.shape
    if m > p:
        raise ValueError(f"m={m} exceeds the {p} attributes; lower m")
    columns = np.argsort(rng.random_sample((n, p)), axis=1)[:, :m]
    has = np.asarray(X[np.repeat(np.arange(n), m), columns.ravel()]).reshape(n, m).astype(bool)
    return np.arange(n), columns + p * ~has


def singled_out(X, known: np.ndarray, features=None) -> np.ndarray:
    """Number of rows of the projection on ``features`` that agree with each user's known literals.

    ``known`` is (n_users, m) literals: ``j`` (the user has item j: rows containing it agree) or ``p + j``
    (the user lacks item j: rows without it agree), p the number of columns. A literal on a column outside
    ``features`` is not released and agrees with every row. Posting lists are bitsets over rows,
    intersected with a bitwise and, counted with a popcount.

    Parameters
    ----------
    X : binary matrix (n_users, n_items)
        The users' rows.
    known : ndarray of int, shape (n_users, m)
        Each user's known literals.
    features : array-like of int, optional
        The released columns (default all).

    Returns
    -------
    ndarray of int
    """
    X = check_binary(X)
    n, p = X.shape
    released = np.zeros(p, dtype=bool)
    released[np.arange(p) if features is None else np.asarray(features, dtype=np.intp)] = True
    words = (n + 63) // 64
    bits = np.zeros((2 * p, words * 64), dtype=bool)
    Xc = X.tocsc()
    bits[np.repeat(np.arange(p), np.diff(Xc.indptr)), Xc.indices] = True
    bits[p:, :n] = ~bits[:p, :n]
    unreleased = np.concatenate([~released, ~released])
    bits[unreleased] = False
    bits[unreleased, :n] = True  # an unreleased attribute is no constraint
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


@shared_doc
def linkage_attack(
    X, m: int, features=None, *, adversary: str = "items", on_short: str = "error", random_state=None
) -> AttackResult:
    """Share of users singled out by an adversary who knows m attribute values of each (FSAC's threat model).

    For each user, ``m`` attributes are drawn at random: among the user's items (``adversary="items"``,
    FSAC's adversary) or among all attributes, absences included (``"values"``). The user is singled out
    when exactly one row of the released projection ``X[:, features]`` agrees with those of them that are
    released. A k-AC projection (k >= 2) singles out no one for the items adversary, for any m; the values
    adversary may single users out of it.

    Parameters
    ----------
    X : binary matrix (n_users, n_items)
        The users' rows (all features).
    m : int
        Attribute values the adversary knows, at least 1.
    features : array-like of int, optional
        The released columns (default all: the full feature set).
    adversary : {"items", "values"}
        Who the adversary is (see above).
    on_short : {"error", "skip"}
        Items adversary: a row with fewer than ``m`` items raises ``ValueError``, or is left out.
    random_state : int, RandomState or None
        Seeds the draw of the known attributes.
        {random_state}

    Returns
    -------
    AttackResult
        Attack ``"linkage_items_m{m}"`` or ``"linkage_values_m{m}"``; baseline the share singled out when nothing is
        released (1 for a single user, else 0); details ``m``, ``mean_matches``, ``n_skipped``.
    """
    m = check_int(m, "m")
    if on_short not in ("error", "skip"):
        raise ValueError(f"on_short must be 'error' or 'skip', got {on_short!r}")
    if adversary not in ADVERSARIES:
        raise ValueError(f"adversary must be one of {ADVERSARIES}, got {adversary!r}")
    X = check_binary(X)
    if features is not None:
        features = np.asarray(features, dtype=np.intp)
        if features.size and (features.min() < 0 or features.max() >= X.shape[1]):
            raise ValueError(f"features must be column indices in 0..{X.shape[1] - 1}")
    rng = check_random_state(random_state)
    users, known = _known_items(X, m, rng, on_short) if adversary == "items" else _known_values(X, m, rng)
    if len(users) == 0:
        raise ValueError(f"no row holds m={m} items: nothing to attack")
    matches = singled_out(X, known, features)
    return AttackResult(
        f"linkage_{adversary}_m{m}",
        f"share of users singled out by an adversary who knows {m} "
        + ("items they have" if adversary == "items" else "attribute values, absences included"),
        float(np.mean(matches == 1)),
        float(X.shape[0] == 1),
        len(users),
        {"mean_matches": float(matches.mean()), "n_skipped": int(X.shape[0] - len(users))},
    )
