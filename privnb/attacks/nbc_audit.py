"""The exact audit of published NBC views (MZ09, Section 4) as an attack record.

The adversary of MZ09 knows the published views (class counts and per-attribute count tables) and
computes, for every quasi-identifier value (combinations of up to ``max_size`` attributes), the
possible-worlds posterior of the class; the release's r is the largest ratio of that posterior to the prior
(either way round, Definition 5). r measures what this adversary learns about the class of someone with a
given quasi-identifier; it is not a differential-privacy guarantee, and a DP release's epsilon bounds a
different thing (what one row changes), so the two are reported side by side, not on one scale.
"""

from __future__ import annotations

import itertools
import math

from privnb.nbc import NBCViews, achieved_r

from .result import AttackResult

__all__ = ["nbc_audit_attack"]


def nbc_audit_attack(views: NBCViews, prior=None, *, max_size: int | None = None) -> AttackResult:
    """The achieved r-closeness of published NBC views under MZ09's exact possible-worlds adversary.

    Parameters
    ----------
    views : NBCViews
        The published views (SafetyTransform's, DP counts, or the original ones).
    prior : array-like, optional
        The adversary's class prior (default the views' class shares, as :func:`privnb.nbc.achieved_r`).
    max_size : int, optional
        Largest number of attributes in an audited quasi-identifier (default all of them): the audit size,
        to be named wherever r is shown.

    Returns
    -------
    AttackResult
        Attack ``"r_closeness"``: success r, baseline 1 (the r of views that teach nothing), n_targets the
        audited quasi-identifier values (every value combination of up to ``max_size`` attributes), details
        ``max_size`` (the audit size, the number of attributes when all are audited).
    """
    r = achieved_r(views, prior, max_size=max_size)
    size = views.n_attributes if max_size is None else min(int(max_size), views.n_attributes)
    domains = [len(counts) for counts in views.counts.values()]
    n_values = sum(math.prod(c) for j in range(1, size + 1) for c in itertools.combinations(domains, j))
    return AttackResult(
        "r_closeness",
        f"largest posterior/prior ratio of the class over quasi-identifiers of up to {size} attributes",
        r,
        1.0,
        n_values,
        {"max_size": size},
    )
