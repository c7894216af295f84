"""Notebook 03, FSAC (feature selection under k-anonymity by containment): the runner, the tables, the claims.

:func:`evaluate_methods` / :func:`evaluate_datasets` cross-validate every method (views of :mod:`.views`, the
SVM of :mod:`.svm`) with :func:`privnb.experiments.run_folds`; :func:`selection_inputs` prepares the data sets;
:func:`summary_table`, :func:`auc_tables` and the other tables condense the rows; :func:`selection_claims`
judges the paper's claims (:class:`privnb.experiments.Claim` records).
"""

from .claims import (
    reading_table,
    selection_claims_table,
    svm_setting_table,
)
from .counts import (
    maximal_order_range,
    selection_counts,
)
from .figures import (
    dp_figure,
)
from .inputs import (
    experiment_sizes,
    itemset_tables,
    selection_inputs,
    selection_requirements,
)
from .runner import (
    evaluate_datasets,
)
from .statistics import (
    dataset_statistics,
)
from .tables import (
    ac_table,
    auc_tables,
    feature_set_table,
    selection_example,
    selection_metrics,
    side_by_side,
    summary_table,
)

__all__ = [
    "ac_table",
    "auc_tables",
    "dataset_statistics",
    "dp_figure",
    "evaluate_datasets",
    "experiment_sizes",
    "feature_set_table",
    "itemset_tables",
    "maximal_order_range",
    "reading_table",
    "selection_requirements",
    "selection_claims_table",
    "selection_counts",
    "selection_example",
    "selection_inputs",
    "selection_metrics",
    "side_by_side",
    "summary_table",
    "svm_setting_table",
]
