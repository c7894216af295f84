"""MC17 (Mancuhan and Clifton, *Instance-Based Learning with l-diversity*, TDP 2017): k-NN trained on
anatomized data.

The experiments of its Section 5 (:func:`cross_validate_knn`: every view, k and l; :func:`convergence_curves`:
Figure 9), both run by :func:`~privnb.experiments.folds.run_folds`; its claims as
:class:`~privnb.experiments.claims.Claim` records (:data:`KNN_CLAIMS`, :func:`knn_claims`) and the tables
they read; the checks of its theory (:func:`rho_squared_table`, :func:`theorem_17_table`, equations (2),
(3) and (7)).
"""

from .claims import (
    KNN_CLAIMS,
    PAPER_TTESTS,
    convergence_drops,
    knn_aspects,
    knn_claims,
    knn_error_table,
    knn_mean_errors,
    knn_suppression,
    knn_t_tests,
)
from .convergence import PartsTraining, PrefixScorer, convergence_curves, convergence_views
from .cross_validation import (
    CLASS_ORDERS,
    DECLARED_CLASS_ORDERS,
    KNeighborsScorer,
    cross_validate_knn,
    ibk_kinds,
    knn_views,
    weka_class_order,
)
from .theory import (
    catalan_values,
    chain_holds,
    rho_squared_table,
    series_readings,
    theorem_17_table,
    theorem_17_within_bounds,
)

__all__ = [
    "CLASS_ORDERS",
    "DECLARED_CLASS_ORDERS",
    "KNN_CLAIMS",
    "KNeighborsScorer",
    "PAPER_TTESTS",
    "PartsTraining",
    "PrefixScorer",
    "catalan_values",
    "chain_holds",
    "convergence_curves",
    "convergence_drops",
    "convergence_views",
    "cross_validate_knn",
    "ibk_kinds",
    "knn_aspects",
    "knn_claims",
    "knn_mean_errors",
    "knn_error_table",
    "knn_suppression",
    "knn_t_tests",
    "knn_views",
    "rho_squared_table",
    "series_readings",
    "theorem_17_table",
    "theorem_17_within_bounds",
    "weka_class_order",
]
