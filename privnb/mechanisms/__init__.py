"""Privacy mechanisms: data in, protected data out, no learner imported. Anatomy and its pruning, full-domain
and Mondrian k-anonymity with their hierarchies and privacy models, MDAV microaggregation, k-anonymity by
containment, randomization flipping and the DP release; the utility of a release.
"""

from privnb.data import Hierarchy, adult_hierarchies, format_interval, hierarchies_from_card  # the same objects

from .anatomy import (
    Anatomizer,
    Anatomy,
    NotLDiverseError,
    SensitiveDropper,
    anatomize,
    bucketize,
    is_l_diverse,
)
from .base import Mechanism, as_rows
from .containment import (
    CONSTRAINTS,
    Patterns,
    Selection,
    check_binary,
    check_constraint,
    check_labels,
    classification_metric,
    dataset_ac,
    dataset_anonymity,
    distcnt,
    entity_ac,
    entity_anonymity,
    feature_hamdist,
    hamdist,
    is_k_ac,
    is_k_anonymous_binary,
)
from .dp_release import (
    DP_MECHANISMS,
    DPRelease,
    dp_select_release,
    dp_table_release,
    hamdist_sensitivity,
    selection_noise_scale,
)
from .flipping import Flipping, randomized_flipping
from .full_domain import FullDomainGeneralizer
from .grouping import check_columns, is_k_anonymous
from .lattice import FullDomainLattice
from .mdav import MDAVMicroaggregator, mdav_groups
from .model_checks import ModelCheck, NodeJudge, search_with_models
from .mondrian import MondrianGeneralizer
from .optimal_node import OptimalNode, optimal_node
from .privacy_models import (
    BasicBetaLikeness,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    PrivacyModel,
    RecursiveCLDiversity,
    SensitiveCounts,
    TCloseness,
    sensitive_counts,
)
from .pruning import AnatomyPruner, Prerequisites, Pruning, appendix_b_preprocess, prerequisites, prune
from .releases import GeneralizedRelease, MicroaggregatedRelease, ProjectionRelease, PrunedRelease, row_classes
from .utility import UTILITY_COLUMNS, certainty_penalty, non_uniform_entropy, record_utility, release_utility

__all__ = [
    "Mechanism",
    "as_rows",
    "Anatomy",
    "NotLDiverseError",
    "anatomize",
    "bucketize",
    "is_l_diverse",
    "SensitiveDropper",
    "Anatomizer",
    "CONSTRAINTS",
    "Selection",
    "check_binary",
    "check_labels",
    "check_constraint",
    "Patterns",
    "entity_ac",
    "dataset_ac",
    "is_k_ac",
    "entity_anonymity",
    "dataset_anonymity",
    "is_k_anonymous_binary",
    "feature_hamdist",
    "hamdist",
    "distcnt",
    "classification_metric",
    "DP_MECHANISMS",
    "DPRelease",
    "hamdist_sensitivity",
    "dp_select_release",
    "selection_noise_scale",
    "dp_table_release",
    "Flipping",
    "randomized_flipping",
    "adult_hierarchies",
    "FullDomainGeneralizer",
    "check_columns",
    "is_k_anonymous",
    "Hierarchy",
    "hierarchies_from_card",
    "format_interval",
    "FullDomainLattice",
    "MondrianGeneralizer",
    "OptimalNode",
    "optimal_node",
    "appendix_b_preprocess",
    "Prerequisites",
    "prerequisites",
    "Pruning",
    "prune",
    "AnatomyPruner",
    "PrivacyModel",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "TCloseness",
    "BasicBetaLikeness",
    "EnhancedBetaLikeness",
    "SensitiveCounts",
    "sensitive_counts",
    "ModelCheck",
    "NodeJudge",
    "search_with_models",
    "MDAVMicroaggregator",
    "mdav_groups",
    "GeneralizedRelease",
    "MicroaggregatedRelease",
    "ProjectionRelease",
    "PrunedRelease",
    "row_classes",
    "UTILITY_COLUMNS",
    "release_utility",
    "record_utility",
    "certainty_penalty",
    "non_uniform_entropy",
]
