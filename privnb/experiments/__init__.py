"""One runner per paper over one protocol (folds, seeds, tidy rows), the t-tests and the claims tables."""

from .card_check import CardCheck, card_check
from .claims import CLAIM_COLUMNS, VERDICTS, Claim, count_verdicts, evaluate, verdict
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
from .knn import cross_validate_knn
from .knn_claims import (
    KNN_CLAIMS,
    PAPER_TTESTS,
    convergence_drops,
    knn_aspects,
    knn_claims,
    knn_mean_errors,
    knn_t_tests,
    rho_squared_table,
    theorem_17_table,
    theorem_17_within_bounds,
)
from .knn_convergence import convergence_curves
from .labels import method_label, method_sort_key
from .nbc import (
    EDUCATION_NUM_CUTS,
    ESTExperiment,
    adult_nbc_frame,
    corollary4_report,
    counterexample_report,
    est_experiment,
    exact_audits,
    figure8_est,
    figure9,
    safety_transform_sweep,
)
from .nbc_claims import claims_table, figure8_est_metrics, figure8_metrics, figure9_metrics
from .notebook_needs import NOTEBOOKS, notebook_requirements, section_needs
from .selection import (
    C_GRID,
    DP_METHODS,
    LABELS,
    METHODS,
    READINGS,
    SELECTORS,
    SVM_SETTINGS,
    dataset_statistics,
    evaluate_datasets,
    evaluate_methods,
    fit_svm,
    frequent_columns,
    itemset_growth,
    svm_auc,
    time_miners,
)
from .selection_claims import reading_table, selection_claims, svm_setting_table
from .selection_tables import PAPER_TABLES, ac_table, auc_tables, selection_metrics, side_by_side, summary_table
from .svm import compare_ordinal_centers, run_svm_grid, svm_views, theorem_4_1_inputs
from .svm_claims import SVM_CLAIMS, svm_claims
from .svm_tables import compare_spaces, svm_aspects, svm_summary, theorem_4_1_table
from .ttest import TTestResult, paired_t_test, t_test_table, unpaired_t_test

__all__ = [
    "cross_validate_knn",
    "convergence_curves",
    "COLUMNS",
    "error_rate",
    "method_label",
    "method_sort_key",
    "folds_and_seeds",
    "chosen_folds",
    "cross_validate_views",
    "tidy_frame",
    "FoldData",
    "PredictionScorer",
    "ResultRow",
    "Score",
    "View",
    "majority_view",
    "run_folds",
    "SELECTORS",
    "METHODS",
    "LABELS",
    "C_GRID",
    "PAPER_TABLES",
    "fit_svm",
    "svm_auc",
    "evaluate_methods",
    "summary_table",
    "side_by_side",
    "DP_METHODS",
    "READINGS",
    "SVM_SETTINGS",
    "reading_table",
    "selection_claims",
    "svm_setting_table",
    "svm_views",
    "theorem_4_1_inputs",
    "compare_ordinal_centers",
    "compare_spaces",
    "run_svm_grid",
    "TTestResult",
    "paired_t_test",
    "unpaired_t_test",
    "count_verdicts",
    "Claim",
    "CLAIM_COLUMNS",
    "VERDICTS",
    "evaluate",
    "verdict",
    "t_test_table",
    "KNN_CLAIMS",
    "PAPER_TTESTS",
    "convergence_drops",
    "knn_aspects",
    "knn_claims",
    "knn_mean_errors",
    "knn_t_tests",
    "rho_squared_table",
    "theorem_17_table",
    "theorem_17_within_bounds",
    "SVM_CLAIMS",
    "svm_aspects",
    "svm_claims",
    "svm_summary",
    "theorem_4_1_table",
    "EDUCATION_NUM_CUTS",
    "ESTExperiment",
    "adult_nbc_frame",
    "claims_table",
    "corollary4_report",
    "est_experiment",
    "exact_audits",
    "figure8_metrics",
    "figure9",
    "figure9_metrics",
    "safety_transform_sweep",
    "counterexample_report",
    "figure8_est",
    "figure8_est_metrics",
    "ac_table",
    "auc_tables",
    "dataset_statistics",
    "evaluate_datasets",
    "frequent_columns",
    "itemset_growth",
    "selection_metrics",
    "time_miners",
]

from .frontier import AXES, anatomy_and_k_anonymity, containment_linkage, frontier_points, nbc_release_audit

__all__ += ["AXES", "anatomy_and_k_anonymity", "containment_linkage", "frontier_points", "nbc_release_audit"]
__all__ += ["NEEDS", "DataSupport", "DataUnsupportedError", "data_support"]

__all__ += ["CardCheck", "card_check", "NOTEBOOKS", "notebook_requirements", "section_needs"]
