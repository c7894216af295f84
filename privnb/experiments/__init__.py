"""The protocol every paper's experiments share, and what a data set supports.

- :mod:`.folds`: one fold runner (folds, seeds, views, scores, the typed tidy row, the N/A rule);
  :mod:`.class_metrics`: the error, balanced accuracy and AUC every view of notebooks 00-02 is scored by.
- :mod:`.claims`: one claim record and its verdicts; :mod:`.ttest`: the papers' t-tests; :mod:`.labels`.
- :mod:`.papers`: one face per paper (:class:`PaperFace`: sections and needs, run over a :class:`FoldPlan`,
  tables, claims, metrics and headline), listed in :data:`PAPERS` (:func:`register_paper` adds one).
- :mod:`.data_support`, :mod:`.notebook_needs`, :mod:`.section_plans`, :mod:`.nbc_data`, :mod:`.card_check`:
  what a data set or card holds, which notebook sections it can run (read from the faces), and
  ``privnb data check``.

Each paper's experiments are a subpackage with its face in ``face.py``, imported by name or when :data:`PAPERS`
is first read (importing this package imports none of them):
:mod:`.svm_l_diversity` (MC16), :mod:`.knn_l_diversity` (MC17), :mod:`.feature_selection` (FSAC),
:mod:`.nbc_publishing` (MZ09) and :mod:`.privacy_frontier` (notebook 05); the tour's face is :mod:`.tour`.
"""

from .card_check import CardCheck, card_check
from .claims import (
    CLAIM_COLUMNS,
    REASON_KINDS,
    VERDICTS,
    Claim,
    Reason,
    count_verdicts,
    evaluate,
    fold_rows,
    reason_counts,
    scale_reason,
    t_test_reason,
    unexplained,
    verdict,
)
from .class_metrics import (
    CLASSIFICATION_METRICS,
    METRIC_MEANINGS,
    balanced_accuracy,
    metric_means,
    metric_values,
    roc_auc,
)
from .data_support import NEEDS, DataSupport, DataUnsupportedError, data_support
from .folds import (
    COLUMNS,
    FoldData,
    PredictionScorer,
    ResultRow,
    Score,
    View,
    chosen_folds,
    cross_validate_views,
    error_rate,
    folds_and_seeds,
    majority_view,
    run_folds,
    tidy_frame,
)
from .labels import method_label, method_sort_key
from .notebook_needs import notebook_requirements, section_needs
from .papers import NOTEBOOKS, PAPERS, FoldPlan, PaperFace, Section, register_paper
from .section_plans import frontier_nbc_plan, frontier_sizes, linkage_ms, notebook_plan, tour_audits
from .ttest import TTestResult, paired_t_test, t_test_table, unpaired_t_test

__all__ = [
    "CLAIM_COLUMNS",
    "CLASSIFICATION_METRICS",
    "COLUMNS",
    "NEEDS",
    "NOTEBOOKS",
    "PAPERS",
    "REASON_KINDS",
    "VERDICTS",
    "CardCheck",
    "Claim",
    "DataSupport",
    "DataUnsupportedError",
    "FoldPlan",
    "METRIC_MEANINGS",
    "FoldData",
    "PredictionScorer",
    "Reason",
    "PaperFace",
    "ResultRow",
    "Score",
    "Section",
    "TTestResult",
    "View",
    "balanced_accuracy",
    "card_check",
    "chosen_folds",
    "count_verdicts",
    "cross_validate_views",
    "data_support",
    "error_rate",
    "evaluate",
    "fold_rows",
    "folds_and_seeds",
    "frontier_nbc_plan",
    "frontier_sizes",
    "majority_view",
    "method_label",
    "metric_means",
    "metric_values",
    "method_sort_key",
    "linkage_ms",
    "notebook_plan",
    "notebook_requirements",
    "tour_audits",
    "paired_t_test",
    "reason_counts",
    "register_paper",
    "roc_auc",
    "run_folds",
    "scale_reason",
    "section_needs",
    "t_test_reason",
    "t_test_table",
    "tidy_frame",
    "unexplained",
    "unpaired_t_test",
    "verdict",
]
