"""One record for what an attack measured: its success, the baseline it must beat, and how it got there.

Every attack of :mod:`privnb.attacks` returns an :class:`AttackResult`. After anonymeter's evaluation results
(the main attack's rate beside a control rate that needs no release) and its privacy risk (the main rate
above the control), the record carries both the success and the baseline the attack itself computed from
the release, so no caller has to know a baseline by heart; ``advantage`` is their difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["AttackResult"]


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
    """

    attack: str
    metric: str
    success: float
    baseline: float
    n_targets: int
    details: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if not self.attack or not isinstance(self.attack, str):
            raise ValueError(f"attack must be a non-empty name, got {self.attack!r}")
        if self.n_targets < 0:
            raise ValueError(f"n_targets must be >= 0, got {self.n_targets}")

    @property
    def advantage(self) -> float:
        """``success - baseline``: what the release discloses beyond what its baseline adversary knows."""
        return self.success - self.baseline

    def values(self) -> dict[str, float]:
        """The numbers of the record under their row names.

        ``{attack}`` is the success, ``{attack}_baseline``, ``{attack}_advantage`` and
        ``{attack}_n_targets`` follow, then every numeric (or boolean) detail as ``{attack}_{key}``; text
        details are left to :meth:`notes`.

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
