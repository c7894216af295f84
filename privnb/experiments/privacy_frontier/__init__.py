"""Privacy against utility (notebook 05): every release attacked on the folds its learner is scored on.

A view of the frontier is one :class:`FrontierView` in :data:`VIEWS` (its mechanism and parameter list); its
fitted ``release_`` meets every attack registered for the release's type (:data:`privnb.attacks.ATTACKS`), the
common adversary first; the runners score every view with :class:`AttackScorer` through
:func:`~privnb.experiments.run_folds`; :func:`frontier_points` gives one point per (view, parameter, attack).
Every view's classifier is also attacked by membership inference (:func:`membership_scores`), shown beside its
release's attack by :func:`membership_table`. Anatomy's peers at the same l (:data:`PEERS`) are compared by
:func:`like_for_like_table`; every release's utility rows are tabled by :func:`utility_tables`.
"""

from .anatomy_rates import definetti_rates, rate_spread
from .comparison import (
    COMPARISON_COLUMNS,
    LIKE_FOR_LIKE,
    PEER_COLUMNS,
    like_for_like_table,
    peer_releases,
    utility_tables,
)
from .leakage import MEMBERSHIP_COLUMNS, lira_table, membership_reading, membership_table
from .points import POINT_COLUMNS, frontier_headlines, frontier_points, pooled_interval, view_table
from .readings import ADVERSARY_COLUMNS, adversary_table, ranking_lines, strongest_lines
from .releases import NBC_RELEASES, NBCRelease, SelectedLinearSVC
from .runners import anatomy_and_k_anonymity, containment_linkage, nbc_release_audit
from .scoring import (
    UTILITY_METRICS,
    AttackScorer,
    attack_scores,
    fold_targets,
    membership_scores,
    release_view,
    utility_scores,
)
from .views import PEERS, VIEWS, FrontierView, ViewSetting, matching_t, population_rows, register_view

__all__ = [
    "ADVERSARY_COLUMNS",
    "AttackScorer",
    "adversary_table",
    "ranking_lines",
    "strongest_lines",
    "COMPARISON_COLUMNS",
    "FrontierView",
    "LIKE_FOR_LIKE",
    "MEMBERSHIP_COLUMNS",
    "NBCRelease",
    "NBC_RELEASES",
    "PEERS",
    "PEER_COLUMNS",
    "POINT_COLUMNS",
    "SelectedLinearSVC",
    "UTILITY_METRICS",
    "VIEWS",
    "ViewSetting",
    "anatomy_and_k_anonymity",
    "attack_scores",
    "containment_linkage",
    "definetti_rates",
    "fold_targets",
    "frontier_headlines",
    "frontier_points",
    "like_for_like_table",
    "lira_table",
    "matching_t",
    "membership_reading",
    "membership_scores",
    "membership_table",
    "nbc_release_audit",
    "peer_releases",
    "pooled_interval",
    "population_rows",
    "rate_spread",
    "register_view",
    "release_view",
    "utility_scores",
    "utility_tables",
    "view_table",
]
