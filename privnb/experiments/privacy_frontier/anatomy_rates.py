"""The de Finetti attack's rates on one table at several l and anatomy seeds: each variant, the strongest,
over grouped rows and over all rows, the EM's iterations and convergence, and the spread over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from privnb.attacks import definetti_disclosure
from privnb.mechanisms import NotLDiverseError, anatomize

__all__ = ["definetti_rates", "rate_spread"]


def definetti_rates(
    frame: pd.DataFrame,
    sensitive: str,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    seeds: Sequence[int] = (0, 1, 2),
    quasi_identifiers=None,
    n_iter: int = 2000,
    tol: float = 1e-6,
) -> pd.DataFrame:
    """Anatomize ``frame`` at each l with each seed and attack it (:func:`privnb.attacks.definetti_disclosure`).

    Parameters
    ----------
    frame : DataFrame
        The rows (quasi-identifiers, the sensitive column; the class too when IT publishes it).
    sensitive : str
        The sensitive column.
    ls : sequence of int
        The l of anatomy.
    seeds : sequence of int
        The anatomy's random states.
    quasi_identifiers : sequence of str, optional
        IT columns the adversary models (default all but ``gid``).
    n_iter : int
        Largest number of EM iterations.
    tol : float
        The EM's tolerance (log-likelihood gain per individual and iteration).

    Returns
    -------
    DataFrame
        One row per (l, seed) (none for an l beyond the sensitive domain): ``join``, ``em_early``, ``em``,
        ``strongest`` (grouped rows), ``strongest_variant``, ``strongest_all_rows``, ``baseline`` (mean
        1/distinct values of the group), ``random_worlds``, ``tie_share``, ``iterations``, ``converged``,
        ``n_grouped``, ``n_suppressed``.
    """
    truth = frame[sensitive]
    rows = []
    for l in ls:
        for seed in seeds:
            try:
                anatomy = anatomize(frame, sensitive, l, random_state=seed)
            except NotLDiverseError:  # l beyond the sensitive domain: no release to attack
                break
            result = definetti_disclosure(
                anatomy, truth, quasi_identifiers=quasi_identifiers, l=l, n_iter=n_iter, tol=tol
            )
            d = result.details
            rows.append(
                {
                    "l": l,
                    "seed": seed,
                    "join": d["join_rate"],
                    "em_early": d["em_early_rate"],
                    "em": d["em_rate"],
                    "strongest": result.success,
                    "strongest_variant": d["strongest"],
                    "strongest_all_rows": d["success_all_rows"],
                    "baseline": result.baseline,
                    "random_worlds": d["random_worlds"],
                    "tie_share": d["tie_share"],
                    "iterations": d["iterations"],
                    "converged": d["converged"],
                    "n_grouped": result.n_targets,
                    "n_suppressed": d["n_suppressed"],
                }
            )
    return pd.DataFrame(rows)


def rate_spread(rates: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max over anatomy seeds of each rate of :func:`definetti_rates`, per l.

    Parameters
    ----------
    rates : DataFrame
        :func:`definetti_rates`'s table.

    Returns
    -------
    DataFrame
        Indexed by l, columns (rate, statistic).
    """
    columns = ["join", "em_early", "em", "strongest", "strongest_all_rows", "baseline", "iterations"]
    return rates.groupby("l")[columns].agg(["mean", "min", "max"])
