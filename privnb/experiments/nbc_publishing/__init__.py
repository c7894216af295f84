"""MZ09 (Mozafari & Zaniolo, publishing a Naive Bayes classifier without accuracy loss), Section 8 on Adult or
a table card: the experiments of notebook 04, their headline metrics and the paper's claims as records.

- :mod:`.release`: Corollary 4's gamma, SafetyTransform audited per gamma, Figure 8 (EST), the counterexample
  to Corollary 4, EST with the paper's prior and r.
- :mod:`.figure9`: Figure 9, NBCs trained on k-anonymized rows beside the published one and the majority class.
- :mod:`.claims`: headline metrics and :data:`NBC_CLAIMS`, evaluated by :func:`claims_table`.
- :mod:`privnb.experiments.nbc_data` (beside :mod:`privnb.experiments.data_support`, so that ``privnb data check``
  imports none of the above): Adult or a card's table prepared for NBC views (:func:`nbc_data`), and what
  notebook 04 needs.
"""

from privnb.experiments.nbc_data import (
    nbc_data,
    nbc_requirements,
)

from .claims import (
    claims_table,
    figure8_est_metrics,
    figure8_metrics,
    figure9_metrics,
)
from .figure9 import (
    figure9,
)
from .release import (
    corollary4_report,
    counterexample_report,
    est_experiment,
    exact_audits,
    figure8_est,
    safety_transform_sweep,
)

__all__ = [
    "claims_table",
    "figure8_est_metrics",
    "figure8_metrics",
    "figure9_metrics",
    "nbc_data",
    "nbc_requirements",
    "figure9",
    "corollary4_report",
    "counterexample_report",
    "est_experiment",
    "exact_audits",
    "figure8_est",
    "safety_transform_sweep",
]
