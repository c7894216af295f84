"""MC17's equations (2), (3) and (7) checked as tables a notebook can show.

Mancuhan and Clifton, *Instance-Based Learning with l-diversity* (MC17): eq. (2) gives the asymptotic
k-NN error as a series in xi = q1(x) q2(x) whose printed limits read ``k+1/2`` (:func:`series_readings`
compares the readings (k+1)/2 and (k-1)/2 with the exact majority-vote error), eq. (3) sums the series to the
Bayes error (:func:`catalan_values`), and (7) orders the errors between R* and 2 R* (:func:`chain_holds`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import sympy as sp

from privnb.bounds import catalan_sum, knn_error_chain, knn_error_series, knn_majority_error

__all__ = ["catalan_values", "chain_holds", "series_readings"]


def series_readings(ks: Sequence[int] = (1, 3, 5, 7, 9)) -> pd.DataFrame:
    """Eq. (2) of MC17 with its upper limit read as (k+1)/2 and as (k-1)/2, each against the exact
    majority-vote error of k neighbours at x (:func:`privnb.bounds.knn_majority_error`), xi = q (1 - q).

    Parameters
    ----------
    ks : sequence of int
        The (odd) k to check.

    Returns
    -------
    DataFrame
        One row per k: "(k+1)/2: equals the majority error", "(k-1)/2: equals the majority error" (bool).
    """
    q = sp.Symbol("q", nonnegative=True)
    rows = []
    for k in ks:
        exact = knn_majority_error(k, q)
        rows.append(
            {
                "k": k,
                "(k+1)/2: equals the majority error": sp.expand(knn_error_series(k, q * (1 - q)) - exact) == 0,
                "(k-1)/2: equals the majority error": sp.expand(
                    knn_error_series(k, q * (1 - q), upper=(k - 1) // 2) - exact
                )
                == 0,
            }
        )
    return pd.DataFrame(rows)


def catalan_values(qs: Sequence = (sp.Rational(1, 10), sp.Rational(3, 10), sp.Rational(1, 2), sp.Rational(4, 5))):
    """The sum of eq. (3) of MC17 (:func:`privnb.bounds.catalan_sum`) at xi = q (1 - q), exactly, beside
    the Bayes error min(q, 1 - q) it should equal.

    Parameters
    ----------
    qs : sequence of numbers
        Posteriors q in [0, 1] (exact rationals keep the check exact).

    Returns
    -------
    DataFrame
        One row per q: "q", "(3) summed", "min(q, 1-q)" (strings of exact rationals) and "equal" (bool).
    """
    closed = catalan_sum()
    (xi,) = closed.free_symbols
    rows = []
    for q in map(sp.nsimplify, qs):
        summed = sp.nsimplify(closed.subs(xi, q * (1 - q)))
        bayes = sp.Min(q, 1 - q)
        rows.append({"q": str(q), "(3) summed": str(summed), "min(q, 1-q)": str(bayes), "equal": summed == bayes})
    return pd.DataFrame(rows)


def chain_holds(n_points: int = 101, ks: Sequence[int] = (1, 3, 5, 7, 9)) -> bool:
    """Whether the chain (7) of MC17, R* <= R^(largest k) <= ... <= R^1 <= 2 R*, holds at ``n_points``
    posteriors q evenly spaced in [0, 1] (:func:`privnb.bounds.knn_error_chain`).

    Parameters
    ----------
    n_points : int
        Number of posteriors.
    ks : sequence of int
        The k of the chain.

    Returns
    -------
    bool
    """
    chain = knn_error_chain(np.linspace(0, 1, n_points), ks)
    ordered = chain[["bayes", *(f"R{k}" for k in sorted(ks, reverse=True)), "2bayes"]].to_numpy()
    return bool(np.all(np.diff(ordered, axis=1) >= -1e-12))
