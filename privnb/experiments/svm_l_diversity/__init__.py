"""MC16 / MC16a (Mancuhan and Clifton): linear SVC and RBF SVM trained on pruned anatomized data (notebook 01).

The public face: the grid (:func:`run_svm_grid`, :func:`svm_views`, :class:`SvmLearner`, :class:`KernelScorer`,
:func:`theorem_4_1_inputs`, :func:`compare_ordinal_centers`), its tables (:func:`svm_summary`,
:func:`svm_aspects`, :func:`theorem_4_1_table`, :func:`compare_spaces`) and the paper's claims as
:class:`~privnb.experiments.Claim` records (:data:`SVM_CLAIMS`, :func:`svm_claims`).
"""

from .claims import (
    compare_space_claims,
    svm_claims,
)
from .grid import (
    run_svm_grid,
)
from .ordinal_centers import (
    compare_ordinal_centers,
)
from .tables import (
    AT_MAJORITY,
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
    "THEOREM_4_1_MAIN_COLUMNS",
    "compare_ordinal_centers",
    "compare_space_claims",
    "compare_spaces",
    "error_rows",
    "majority_error",
    "run_svm_grid",
    "svm_aspects",
    "svm_claims",
    "svm_summary",
    "theorem_4_1_table",
]
