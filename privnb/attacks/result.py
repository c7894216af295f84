"""One record for what an attack measured: its success, the baseline it must beat, and how it got there.

Every attack of :mod:`privnb.attacks` returns an :class:`AttackResult`. After anonymeter's evaluation results
(the main attack's rate beside a control rate that needs no release) and its privacy risk (the main rate
above the control), the record carries both the success and the baseline the attack itself computed from
the release, so no caller has to know a baseline by heart; ``advantage`` is their difference. As anonymeter
reports each risk with its confidence interval, every record carries the counts its rate was computed from and a
95% interval: Wilson's score interval of a share (``successes`` of ``n_targets``) unless the attack gives its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["AttackResult", "wilson_interval"]

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a share (Wilson 1927): ``successes`` of ``n`` trials.

    Fractional successes (a tie counted 1/k of a right guess) are allowed. With ``n = 0`` the interval is
    (nan, nan).

    Parameters
    ----------
    successes : float
        Successes, 0 <= successes <= n.
    n : int
        Trials.
    z : float
        The normal quantile (default 95%).

    Returns
    -------
    (float, float)
    """
    if n <= 0:
        return (math.nan, math.nan)
    if not 0 <= successes <= n * (1 + 1e-12):
        raise ValueError(f"successes must lie in [0, n = {n}], got {successes}")
    p = min(1.0, successes / n)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if p == 0 else max(0.0, min(p, centre - half))  # the ends hold p exactly, also in floating point
    high = 1.0 if p == 1 else min(1.0, max(p, centre + half))
    return (low, high)


@dataclass(frozen=True)
class AttackResult:
    """What one attack measured on one release.

    Parameters
    ----------
    attack : str
        The attack's name ("definetti", "linkage_items", ...); the metric prefix of its result rows.
    metric : str
        What ``success`` measures, in words ("share of grouped individuals whose value is guessed right").
    success : float
        The attack's measured success.
    baseline : float
        What an adversary without the release's extra information achieves on the same targets (computed
        by the attack from the release: the prior of a random guess, r = 1 of a release that teaches
        nothing, ...).
    n_targets : int
        The individuals (rows, users, queries) the rate is measured over.
    details : mapping of str to float, int, bool or str
        What else the attack reports (variants, iterations, convergence, the rate over all rows, ...).
    successes : float, optional
        The count ``success`` is the share of (right guesses over ``n_targets``; a tie may count a fraction).
        Default ``success * n_targets`` when ``success`` is a share (0 to 1), else None (a success that is
        no share, such as r).
    interval : (float, float), optional
        A 95% interval of ``success``; default Wilson's interval of ``successes`` of ``n_targets``, (nan, nan)
        when there is no count.
    advantage_interval : (float, float), optional
        A 95% interval of the advantage when the attack computes one (a paired interval against a baseline
        measured on the same targets); default the success interval shifted by the baseline.
    """

    attack: str
    metric: str
    success: float
    baseline: float
    n_targets: int
    details: Mapping[str, object] = field(default_factory=dict)
    successes: float | None = None
    interval: tuple[float, float] | None = None
    advantage_interval: tuple[float, float] | None = None

    def __post_init__(self):
        if not self.attack or not isinstance(self.attack, str):
            raise ValueError(f"attack must be a non-empty name, got {self.attack!r}")
        if self.n_targets < 0:
            raise ValueError(f"n_targets must be >= 0, got {self.n_targets}")
        share = 0.0 <= self.success <= 1.0
        if self.successes is None and share:
            object.__setattr__(self, "successes", float(self.success) * self.n_targets)
        if self.interval is None:
            counted = self.successes is not None and self.n_targets > 0
            interval = wilson_interval(self.successes, self.n_targets) if counted else (math.nan, math.nan)
            object.__setattr__(self, "interval", interval)
        if self.advantage_interval is None:
            low, high = self.interval
            object.__setattr__(self, "advantage_interval", (low - self.baseline, high - self.baseline))

    @property
    def advantage(self) -> float:
        """``success - baseline``: what the release discloses beyond what its baseline adversary knows."""
        return self.success - self.baseline

    def values(self) -> dict[str, float]:
        """The numbers of the record under their row names.

        ``{attack}`` is the success, ``{attack}_baseline``, ``{attack}_advantage``, ``{attack}_n_targets``,
        the interval's ends ``{attack}_low`` and ``{attack}_high`` and the advantage's
        ``{attack}_advantage_low`` and ``{attack}_advantage_high`` follow (ends that are nan are left out),
        then every numeric (or boolean) detail as ``{attack}_{key}``; text details are left to :meth:`notes`.

        Returns
        -------
        dict of str to float
        """
        out = {
            self.attack: float(self.success),
            f"{self.attack}_baseline": float(self.baseline),
            f"{self.attack}_advantage": float(self.advantage),
            f"{self.attack}_n_targets": float(self.n_targets),
        }
        ends = {"low": self.interval[0], "high": self.interval[1]}
        ends |= {"advantage_low": self.advantage_interval[0], "advantage_high": self.advantage_interval[1]}
        out |= {f"{self.attack}_{key}": float(value) for key, value in ends.items() if not math.isnan(value)}
        for key, value in self.details.items():
            if isinstance(value, bool | int | float) and not (isinstance(value, float) and math.isnan(value)):
                out[f"{self.attack}_{key}"] = float(value)
        return out

    def notes(self) -> str:
        """The text details and the metric, as one line ("metric; key=value; ...").

        Returns
        -------
        str
        """
        text = [f"{key}={value}" for key, value in self.details.items() if isinstance(value, str)]
        return "; ".join([self.metric, *text])
