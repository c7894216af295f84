"""Privacy against utility (notebook 05): every release attacked on the folds its learner is scored on.

A release kind is one :class:`ReleaseKind` in :data:`RELEASES` (its attacks, the attack on the frontier's x,
the words of its axis, legend and panel); the runners score every view with :class:`AttackScorer` through
:func:`~privnb.experiments.run_folds`; :func:`frontier_points` reads the registry. Every view's classifier is
also attacked by membership inference (:func:`membership_scores`), shown beside its release's attack by
:func:`membership_table`. Anatomy's peers at the same l (:data:`PEERS`) are views of the same runner, compared
by :func:`like_for_like_table`; every release's utility rows are tabled by :func:`utility_tables`.
"""

from privnb.attacks.registry import LIKE_FOR_LIKE, RELEASES, ReleaseKind, anatomy_attacks, nbc_attacks, register_release

from .anatomy_rates import definetti_rates, rate_spread
from .comparison import COMPARISON_COLUMNS, PEER_COLUMNS, like_for_like_table, peer_releases, utility_tables
from .leakage import MEMBERSHIP_COLUMNS, membership_reading, membership_table
from .points import POINT_COLUMNS, frontier_points, view_table
from .releases import NBC_RELEASES, NBCRelease, SelectedLinearSVC
from .runners import PEERS, anatomy_and_k_anonymity, containment_linkage, nbc_release_audit
from .scoring import UTILITY_METRICS, AttackScorer, attack_scores, membership_scores, release_view, utility_scores

__all__ = [
    "AttackScorer",
    "COMPARISON_COLUMNS",
    "LIKE_FOR_LIKE",
    "PEERS",
    "PEER_COLUMNS",
    "UTILITY_METRICS",
    "peer_releases",
    "like_for_like_table",
    "utility_scores",
    "utility_tables",
    "MEMBERSHIP_COLUMNS",
    "NBCRelease",
    "NBC_RELEASES",
    "POINT_COLUMNS",
    "RELEASES",
    "ReleaseKind",
    "SelectedLinearSVC",
    "anatomy_and_k_anonymity",
    "anatomy_attacks",
    "attack_scores",
    "containment_linkage",
    "definetti_rates",
    "frontier_points",
    "membership_scores",
    "membership_reading",
    "membership_table",
    "nbc_attacks",
    "nbc_release_audit",
    "rate_spread",
    "register_release",
    "release_view",
    "view_table",
]
