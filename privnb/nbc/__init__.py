"""Publishing Naive Bayes classifiers (MZ09): NBC views and their equivalence, the exact privacy audit,
SafetyTransform and EST.
"""

from .audit_memory import AUDIT_MEMORY_BUDGET, AuditPlan, AuditTooLarge, plan_audit
from .counterexample import condition8_ratio, corollary4_counterexamples, two_attribute_views
from .dp_views import DP_COUNT_MECHANISMS, dp_views
from .est_release import ESTResult, est, merge, prior_r_lower_bound, resolve_ties, split, winning_labels
from .exact_audit import AuditResult, achieved_r, audit, brute_force_posterior, check_prior, posterior, r_closeness
from .prior_floor import PriorFloor, prior_floor
from .safety import (
    SafetyTransform,
    corollary4_gamma,
    k_sind,
    safety_transform,
    satisfies_corollary4,
    smallest_integers,
    step1_remove_zeros,
    step2_degree,
    step2_roots,
    step3_restore_totals,
    step4_integers,
    synthetic_database,
)
from .views import (
    NBCViews,
    count_tables,
    integer_tables,
    min_score_ratio,
    nbc_equivalent,
    score_signs,
    unflatten_counts,
)

__all__ = [
    "AUDIT_MEMORY_BUDGET",
    "AuditPlan",
    "AuditTooLarge",
    "plan_audit",
    "DP_COUNT_MECHANISMS",
    "dp_views",
    "condition8_ratio",
    "corollary4_counterexamples",
    "two_attribute_views",
    "PriorFloor",
    "prior_floor",
    "resolve_ties",
    "split",
    "merge",
    "ESTResult",
    "winning_labels",
    "prior_r_lower_bound",
    "est",
    "posterior",
    "brute_force_posterior",
    "check_prior",
    "AuditResult",
    "audit",
    "achieved_r",
    "r_closeness",
    "step1_remove_zeros",
    "step2_degree",
    "step2_roots",
    "step3_restore_totals",
    "step4_integers",
    "corollary4_gamma",
    "satisfies_corollary4",
    "k_sind",
    "synthetic_database",
    "SafetyTransform",
    "safety_transform",
    "smallest_integers",
    "NBCViews",
    "integer_tables",
    "score_signs",
    "nbc_equivalent",
    "min_score_ratio",
    "count_tables",
    "unflatten_counts",
]
