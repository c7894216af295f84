"""MC17 (Mancuhan and Clifton, *Instance-Based Learning with l-diversity*, TDP 2017): k-NN trained on
anatomized data.

The experiments of its Section 5 (:func:`cross_validate_knn`: every view, k and l; :func:`convergence_curves`:
Figure 9), both run by :func:`~privnb.experiments.folds.run_folds`; its claims as
:class:`~privnb.experiments.claims.Claim` records (:data:`KNN_CLAIMS`, :func:`knn_claims`) and the tables
they read; the checks of its theory (:func:`rho_squared_table`, :func:`theorem_17_table`, equations (2),
(3) and (7)).
"""

from .claims import (
    convergence_drops,
    knn_aspects,
    knn_claims,
    knn_error_table,
    knn_mean_errors,
    knn_suppression,
    knn_t_tests,
)
from .convergence import (
    convergence_curves,
)
from .cross_validation import (
    cross_validate_knn,
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
    "catalan_values",
    "chain_holds",
    "convergence_curves",
    "convergence_drops",
    "cross_validate_knn",
    "knn_aspects",
    "knn_claims",
    "knn_mean_errors",
    "knn_error_table",
    "knn_suppression",
    "knn_t_tests",
    "rho_squared_table",
    "series_readings",
    "theorem_17_table",
    "theorem_17_within_bounds",
]
