"""Privacy mechanisms: data in, protected data out, no learner imported. Anatomy and its pruning, full-domain
and Mondrian k-anonymity with their hierarchies and privacy models, MDAV microaggregation, k-anonymity by
containment, randomization flipping and the DP release; the utility of a release.
"""

from .anatomy import (
    Anatomizer,
    Anatomy,
    NotLDiverseError,
    anatomize,
    is_l_diverse,
)
from .base import (
    Mechanism,
)
from .containment import (
    CONSTRAINTS,
    dataset_ac,
    entity_ac,
    feature_hamdist,
    is_k_ac,
)
from .dp_release import (
    DP_MECHANISMS,
    dp_select_release,
    dp_table_release,
)
from .flipping import (
    Flipping,
    randomized_flipping,
)
from .full_domain import (
    FullDomainGeneralizer,
)
from .grouping import (
    is_k_anonymous,
)
from .lattice import (
    FullDomainLattice,
)
from .mdav import (
    MDAVMicroaggregator,
)
from .mondrian import (
    MondrianGeneralizer,
)
from .optimal_node import (
    optimal_node,
)
from .privacy_models import (
    BasicBetaLikeness,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
    sensitive_counts,
)
from .pruning import (
    AnatomyPruner,
    prune,
)
from .releases import (
    GeneralizedRelease,
    MicroaggregatedRelease,
    ProjectionRelease,
    PrunedRelease,
)
from .utility import (
    record_utility,
    release_utility,
)

__all__ = [
    "Mechanism",
    "Anatomy",
    "NotLDiverseError",
    "anatomize",
    "is_l_diverse",
    "Anatomizer",
    "CONSTRAINTS",
    "entity_ac",
    "dataset_ac",
    "is_k_ac",
    "feature_hamdist",
    "DP_MECHANISMS",
    "dp_select_release",
    "dp_table_release",
    "Flipping",
    "randomized_flipping",
    "FullDomainGeneralizer",
    "is_k_anonymous",
    "FullDomainLattice",
    "MondrianGeneralizer",
    "optimal_node",
    "prune",
    "AnatomyPruner",
    "PrivacyModel",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "TCloseness",
    "BasicBetaLikeness",
    "EnhancedBetaLikeness",
    "sensitive_counts",
    "MDAVMicroaggregator",
    "GeneralizedRelease",
    "MicroaggregatedRelease",
    "ProjectionRelease",
    "PrunedRelease",
    "release_utility",
    "record_utility",
]
