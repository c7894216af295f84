"""Publishing Naive Bayes classifiers (MZ09): NBC views and their equivalence, the exact privacy audit,
SafetyTransform and EST.
"""

from .audit_memory import (
    AUDIT_MEMORY_BUDGET,
    AuditTooLarge,
    plan_audit,
)
from .counterexample import (
    condition8_ratio,
    corollary4_counterexamples,
    two_attribute_views,
)
from .dp_views import (
    dp_views,
)
from .est_release import (
    ESTResult,
    est,
    prior_r_lower_bound,
)
from .exact_audit import (
    AuditResult,
    achieved_r,
    audit,
    brute_force_posterior,
    posterior,
    r_closeness,
)
from .prior_floor import (
    PriorFloor,
    prior_floor,
)
from .safety import (
    SafetyTransform,
    corollary4_gamma,
    k_sind,
    safety_transform,
    satisfies_corollary4,
    synthetic_database,
)
from .views import (
    NBCViews,
    min_score_ratio,
    nbc_equivalent,
)

__all__ = [
    "AUDIT_MEMORY_BUDGET",
    "AuditTooLarge",
    "plan_audit",
    "dp_views",
    "condition8_ratio",
    "corollary4_counterexamples",
    "two_attribute_views",
    "PriorFloor",
    "prior_floor",
    "ESTResult",
    "prior_r_lower_bound",
    "est",
    "posterior",
    "brute_force_posterior",
    "AuditResult",
    "audit",
    "achieved_r",
    "r_closeness",
    "corollary4_gamma",
    "satisfies_corollary4",
    "k_sind",
    "synthetic_database",
    "SafetyTransform",
    "safety_transform",
    "NBCViews",
    "nbc_equivalent",
    "min_score_ratio",
]
