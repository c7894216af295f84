"""scikit-learn estimators: training on a protected view, the encoder, Weka IBk's k-NN, the SVM helpers
and the feature selectors.
"""

from .encoding import (
    FrameEncoder,
    generalized_kinds,
)
from .feature_selection import (
    CONTAINMENT_SELECTORS,
    STOP_RULES,
    ContainmentSelector,
    greedy_cm,
    greedy_distcnt,
    greedy_hamdist,
    greedy_submodular,
    maximal_feasible,
)
from .knn import (
    IBkClassifier,
    vote,
)
from .largest_itemsets import (
    SearchBudgetExceeded,
    largest_itemsets,
)
from .maximal_selection import (
    maximal,
    maximal_itemsets,
)
from .neighbors import (
    kneighbors,
)
from .svm import (
    CLASSIFIER_NAMES,
    DEFAULT_SPACE,
    SPACES,
    CollapseDuplicates,
    NystroemSVM,
    svm_classifier,
    svm_pipeline,
)
from .training import (
    AnatomizedTraining,
    GeneralizedTraining,
    IdentifyingTraining,
    OriginalTraining,
    ProtectedTraining,
    PrunedTraining,
    TrainingView,
)

__all__ = [
    "FrameEncoder",
    "generalized_kinds",
    "greedy_submodular",
    "greedy_distcnt",
    "greedy_hamdist",
    "maximal_itemsets",
    "maximal",
    "maximal_feasible",
    "STOP_RULES",
    "SearchBudgetExceeded",
    "largest_itemsets",
    "CONTAINMENT_SELECTORS",
    "ContainmentSelector",
    "greedy_cm",
    "kneighbors",
    "vote",
    "IBkClassifier",
    "SPACES",
    "DEFAULT_SPACE",
    "CLASSIFIER_NAMES",
    "CollapseDuplicates",
    "NystroemSVM",
    "svm_classifier",
    "svm_pipeline",
    "ProtectedTraining",
    "TrainingView",
    "OriginalTraining",
    "IdentifyingTraining",
    "AnatomizedTraining",
    "GeneralizedTraining",
    "PrunedTraining",
]
