"""MC16 / MC16a (Mancuhan and Clifton): linear SVC and RBF SVM trained on pruned anatomized data (notebook 01).

The public face: the grid (:func:`run_svm_grid`, :func:`svm_views`, :class:`SvmLearner`, :class:`KernelScorer`,
:func:`theorem_4_1_inputs`, :func:`compare_ordinal_centers`), its tables (:func:`svm_summary`,
:func:`svm_aspects`, :func:`theorem_4_1_table`, :func:`compare_spaces`) and the paper's claims as
:class:`~privnb.experiments.Claim` records (:data:`SVM_CLAIMS`, :func:`svm_claims`).
"""

from .claims import (
    SVM_CLAIMS,
    T_TEST_READINGS,
    SvmClaim,
    SvmEvidence,
    compare_space_claims,
    svm_claims,
    svm_evidence,
)
from .grid import (
    KernelScorer,
    SvmLearner,
    dataset_hierarchies,
    fitted_models,
    run_svm_grid,
    svm_grid_views,
    svm_views,
    theorem_4_1_inputs,
    training_views,
)
from .ordinal_centers import CENTER_COLUMNS, CenteredPair, CenterScorer, compare_ordinal_centers
from .tables import (
    AT_MAJORITY,
    MAJORITY,
    THEOREM_4_1_COLUMNS,
    THEOREM_4_1_MAIN_COLUMNS,
    compare_spaces,
    error_rows,
    majority_error,
    svm_aspects,
    svm_summary,
    theorem_4_1_table,
)

__all__ = [
    "AT_MAJORITY",
    "CENTER_COLUMNS",
    "CenterScorer",
    "CenteredPair",
    "KernelScorer",
    "MAJORITY",
    "SVM_CLAIMS",
    "SvmClaim",
    "SvmEvidence",
    "SvmLearner",
    "THEOREM_4_1_COLUMNS",
    "THEOREM_4_1_MAIN_COLUMNS",
    "T_TEST_READINGS",
    "compare_ordinal_centers",
    "compare_space_claims",
    "compare_spaces",
    "dataset_hierarchies",
    "error_rows",
    "fitted_models",
    "majority_error",
    "run_svm_grid",
    "svm_aspects",
    "svm_claims",
    "svm_evidence",
    "svm_grid_views",
    "svm_summary",
    "svm_views",
    "theorem_4_1_inputs",
    "theorem_4_1_table",
    "training_views",
]
