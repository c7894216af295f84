"""Notebook 03, FSAC (feature selection under k-anonymity by containment): the runner, the tables, the claims.

:func:`evaluate_methods` / :func:`evaluate_datasets` cross-validate every method (views of :mod:`.views`, the
SVM of :mod:`.svm`) with :func:`privnb.experiments.run_folds`; :func:`selection_inputs` prepares the data sets;
:func:`summary_table`, :func:`auc_tables` and the other tables condense the rows; :func:`selection_claims`
judges the paper's claims (:class:`privnb.experiments.Claim` records).
"""

from .claims import (
    KAC_SELECTORS,
    SELECTION_CLAIMS,
    reading_table,
    selection_claims,
    selection_claims_table,
    svm_setting_table,
)
from .figures import dp_figure
from .inputs import (
    SECTIONS,
    SelectionInput,
    adult_feature_definitions,
    experiment_sizes,
    itemset_tables,
    requirements_table,
    selection_inputs,
)
from .runner import (
    READINGS,
    SVM_SETTINGS,
    ProtectedData,
    RunStream,
    evaluate_datasets,
    evaluate_methods,
    fixed_views,
    randomized_views,
    run_seeds,
    selection_folds,
    whole_reading,
)
from .statistics import PAPER_DATA, dataset_statistics, frequent_columns, itemset_growth, time_miners
from .svm import C_GRID, CLASSIFIER, CONSTANT_AUC, auc_or_nan, fit_svm, repeated_rows, svm_auc
from .tables import (
    PAPER_TABLES,
    ac_table,
    auc_tables,
    feature_set_table,
    method_label,
    selection_example,
    selection_metrics,
    side_by_side,
    summary_table,
)
from .views import (
    DP_METHODS,
    LABELS,
    METHODS,
    SELECTORS,
    AllFeaturesSVM,
    DPReleaseSVM,
    FlippedSVM,
    SelectorSVM,
    auc_scores,
)

__all__ = [
    "AllFeaturesSVM",
    "C_GRID",
    "CLASSIFIER",
    "CONSTANT_AUC",
    "DPReleaseSVM",
    "DP_METHODS",
    "FlippedSVM",
    "KAC_SELECTORS",
    "LABELS",
    "METHODS",
    "PAPER_DATA",
    "PAPER_TABLES",
    "ProtectedData",
    "READINGS",
    "RunStream",
    "SECTIONS",
    "SELECTION_CLAIMS",
    "SELECTORS",
    "SVM_SETTINGS",
    "SelectionInput",
    "SelectorSVM",
    "ac_table",
    "adult_feature_definitions",
    "auc_or_nan",
    "auc_scores",
    "auc_tables",
    "dataset_statistics",
    "dp_figure",
    "evaluate_datasets",
    "evaluate_methods",
    "experiment_sizes",
    "feature_set_table",
    "fit_svm",
    "fixed_views",
    "frequent_columns",
    "itemset_growth",
    "itemset_tables",
    "method_label",
    "randomized_views",
    "reading_table",
    "repeated_rows",
    "requirements_table",
    "run_seeds",
    "selection_claims",
    "selection_claims_table",
    "selection_example",
    "selection_folds",
    "selection_inputs",
    "selection_metrics",
    "side_by_side",
    "summary_table",
    "svm_auc",
    "svm_setting_table",
    "time_miners",
    "whole_reading",
]
