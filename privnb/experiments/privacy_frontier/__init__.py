"""Privacy against utility (notebook 05): every release attacked on the folds its learner is scored on.

A view of the frontier is one :class:`FrontierView` in :data:`VIEWS` (its mechanism and parameter list); its
fitted ``release_`` meets every attack registered for the release's type (:data:`privnb.attacks.ATTACKS`), the
common adversary first; the runners score every view with :class:`AttackScorer` through
:func:`~privnb.experiments.run_folds`; :func:`frontier_points` gives one point per (view, parameter, attack).
Every view's classifier is also attacked by membership inference (:func:`membership_scores`), shown beside its
release's attack by :func:`membership_table`. Anatomy's peers at the same l (:data:`PEERS`) are compared by
:func:`like_for_like_table`; every release's utility rows are tabled by :func:`utility_tables`.
"""

from .anatomy_rates import (
    definetti_rates,
    rate_spread,
)
from .comparison import (
    LIKE_FOR_LIKE,
    like_for_like_table,
    utility_tables,
)
from .leakage import (
    lira_table,
    lira_unrun,
    membership_reading,
    membership_table,
)
from .points import (
    frontier_points,
    view_table,
)
from .readings import (
    adversary_table,
    ranking_lines,
    strongest_lines,
)
from .runners import (
    anatomy_and_k_anonymity,
    containment_linkage,
    nbc_release_audit,
)
from .views import (
    population_rows,
)

__all__ = [
    "adversary_table",
    "ranking_lines",
    "strongest_lines",
    "LIKE_FOR_LIKE",
    "anatomy_and_k_anonymity",
    "containment_linkage",
    "definetti_rates",
    "frontier_points",
    "like_for_like_table",
    "lira_table",
    "lira_unrun",
    "membership_reading",
    "membership_table",
    "nbc_release_audit",
    "population_rows",
    "rate_spread",
    "utility_tables",
    "view_table",
]
