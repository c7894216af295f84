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

from .card_check import (
    card_check,
)
from .claims import (
    CLAIM_COLUMNS,
    REASON_KINDS,
    VERDICTS,
    Claim,
    Reason,
    count_verdicts,
    evaluate,
    reason_counts,
    scale_reason,
    unexplained,
    verdict,
)
from .class_metrics import (
    CLASSIFICATION_METRICS,
    METRIC_MEANINGS,
    metric_means,
    metric_values,
)
from .data_support import (
    DataSupport,
    DataUnsupportedError,
    data_support,
)
from .folds import (
    COLUMNS,
    PredictionScorer,
    View,
    cross_validate_views,
    error_rate,
    majority_view,
    run_folds,
    tidy_frame,
)
from .labels import (
    method_label,
)
from .notebook_needs import (
    section_needs,
)
from .papers import (
    NOTEBOOKS,
    PAPERS,
    FoldPlan,
    PaperFace,
    Section,
    register_paper,
)
from .section_plans import (
    frontier_sizes,
    notebook_plan,
)
from .ttest import (
    paired_t_test,
    t_test_table,
)

__all__ = [
    "CLAIM_COLUMNS",
    "CLASSIFICATION_METRICS",
    "COLUMNS",
    "NOTEBOOKS",
    "PAPERS",
    "REASON_KINDS",
    "VERDICTS",
    "Claim",
    "DataSupport",
    "DataUnsupportedError",
    "FoldPlan",
    "METRIC_MEANINGS",
    "PredictionScorer",
    "Reason",
    "PaperFace",
    "Section",
    "View",
    "card_check",
    "count_verdicts",
    "cross_validate_views",
    "data_support",
    "error_rate",
    "evaluate",
    "frontier_sizes",
    "majority_view",
    "method_label",
    "metric_means",
    "metric_values",
    "notebook_plan",
    "paired_t_test",
    "reason_counts",
    "register_paper",
    "run_folds",
    "scale_reason",
    "section_needs",
    "t_test_table",
    "tidy_frame",
    "unexplained",
    "verdict",
]
