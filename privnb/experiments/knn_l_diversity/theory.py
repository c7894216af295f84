"""MC17's theory checked as tables a notebook can show: its equations (2), (3) and (7), E{rho^2} of (19) and
Theorem 17.

Mancuhan and Clifton, *Instance-Based Learning with l-diversity* (MC17): eq. (2) gives the asymptotic
k-NN error as a series in xi = q1(x) q2(x) whose printed limits read ``k+1/2`` (:func:`series_readings`
compares the readings (k+1)/2 and (k-1)/2 with the exact majority-vote error), eq. (3) sums the series to the
Bayes error (:func:`catalan_values`), and (7) orders the errors between R* and 2 R* (:func:`chain_holds`);
E{rho^2} of (19) against a nearest-neighbour simulation (:func:`rho_squared_table`) and the 1-NN errors of
Theorem 17 on synthetic data with known posteriors (:func:`theorem_17_table`, :func:`theorem_17_within_bounds`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import sympy as sp

from privnb.bounds import (
    AnatomizedGaussians,
    catalan_sum,
    expected_rho_squared,
    knn_error_chain,
    knn_error_series,
    knn_majority_error,
    simulate_rho_squared,
)
from privnb.learn.knn import kneighbors

__all__ = [
    "catalan_values",
    "chain_holds",
    "rho_squared_table",
    "series_readings",
    "theorem_17_table",
    "theorem_17_within_bounds",
]


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


def rho_squared_table(
    n_repeats: int, random_state: int = 0, *, dims: Sequence[int] = (1, 2, 4), sizes: Sequence[int] = (200, 2000)
) -> pd.DataFrame:
    """E{rho^2} of (19) of MC17 (exact) and (21) (approximate) against a nearest-neighbour simulation.

    Uniform density on the unit cube, the test point at its centre (:func:`privnb.bounds.simulate_rho_squared`,
    seeded ``random_state + d``); "within 4 s.e." compares the simulated mean with (19).

    Parameters
    ----------
    n_repeats : int
        Simulated nearest-neighbour distances per (d, N l).
    random_state : int
        Base seed.
    dims : sequence of int
        Dimensions d + 1 of the identifying space (the d of (19)).
    sizes : sequence of int
        Training sizes N l.

    Returns
    -------
    DataFrame
        One row per (d, N l): "E{rho^2} (19)", "approx (21)", "simulated", "std. error", "within 4 s.e.".
    """
    rows = []
    for d in dims:
        for n_train in sizes:
            mean, se = simulate_rho_squared(d, n_train, n_repeats=n_repeats, random_state=random_state + d)
            exact = float(expected_rho_squared(d, n_train))
            rows.append(
                {
                    "d": d,
                    "N l": n_train,
                    "E{rho^2} (19)": exact,
                    "approx (21)": float(expected_rho_squared(d, n_train, exact=False)),
                    "simulated": mean,
                    "std. error": se,
                    "within 4 s.e.": abs(mean - exact) < 4 * se,
                }
            )
    return pd.DataFrame(rows)


def theorem_17_table(
    sizes: Sequence[int], random_state: int = 0, *, l: int = 2, n_test: int = 4000
) -> tuple[dict, pd.DataFrame]:
    """Theorem 17 of MC17 on synthetic data with known posteriors (:class:`privnb.bounds.AnatomizedGaussians`).

    For each N in ``sizes``: the anatomized 1-NN (trained on D_A of N individuals, seeded
    ``random_state + N``) scored on test points distributed as D_A (one row per individual) and on raw
    test points, and the original 1-NN on raw test points (``n_test`` of each, seeded ``random_state + 1``
    and ``+ 2``).

    Parameters
    ----------
    sizes : sequence of int
        Numbers of individuals N.
    random_state : int
        Base seed.
    l : int
        The l of the anatomization.
    n_test : int
        Test points of each kind.

    Returns
    -------
    limits : dict
        The model's errors (``bayes``, ``bayes_A``, ``nn_A``, ...: :meth:`AnatomizedGaussians.errors`).
    table : DataFrame
        Columns "N", "anatomized 1-NN, test ~ D_A", "anatomized 1-NN, raw test", "original 1-NN".
    """
    model = AnatomizedGaussians(l=l)
    limits = model.errors()
    rows = []
    for n in sizes:
        X_a, y_a, _ = model.sample_anatomized(n, random_state=random_state + n)
        X_o, y_o, _, _ = model.sample(n, random_state=random_state + n)
        X_t, y_t, _, _ = model.sample(n_test, random_state=random_state + 1)
        X_ta, y_ta, _ = model.sample_anatomized(n_test, random_state=random_state + 2)
        X_ta, y_ta = X_ta[:: model.l], y_ta[:: model.l]  # one D_A row per individual
        rows.append(
            {
                "N": n,
                "anatomized 1-NN, test ~ D_A": np.mean(_nn(X_a, y_a, X_ta) != y_ta),
                "anatomized 1-NN, raw test": np.mean(_nn(X_a, y_a, X_t) != y_t),
                "original 1-NN": np.mean(_nn(X_o, y_o, X_t) != y_t),
            }
        )
    return limits, pd.DataFrame(rows)


def _nn(X, y, Q):
    return y[kneighbors(X, Q, 1)[1][:, 0]]


def theorem_17_within_bounds(limits: dict, table: pd.DataFrame, tolerance: float = 0.02) -> bool:
    """Whether the anatomized 1-NN error on D_A-distributed tests at the largest N lies in
    [R*_A, 2 R*_A] (Theorem 17 of MC17), widened by ``tolerance`` on both sides.

    Parameters
    ----------
    limits : dict
        The model's errors (:func:`theorem_17_table`).
    table : DataFrame
        The measured errors (:func:`theorem_17_table`).
    tolerance : float
        Slack on both sides.

    Returns
    -------
    bool
    """
    last = table.iloc[-1]["anatomized 1-NN, test ~ D_A"]
    return bool(limits["bayes_A"] - tolerance <= last <= 2 * limits["bayes_A"] + tolerance)
