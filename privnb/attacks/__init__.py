"""What each release actually discloses: the de Finetti attack on anatomy, prosecutor risk and homogeneity on
k-anonymity, linkage on k-anonymity by containment, and the exact audit applied to differentially private
NBC views. No learner is imported here (the runner that puts attacks and learners on the same folds lives in
``privnb.experiments.frontier``).
"""

from .definetti import (
    AnatomyAttack,
    check_anatomy,
    definetti_attack,
    encode_quasi_identifiers,
    naive_definetti_attack,
    pruning_disclosure,
    random_guess,
    random_worlds_rate,
)
from .nbc_dp import DP_COUNT_MECHANISMS, dp_views
from .risk import equivalence_classes, kanonymity_risk, linkage_attack, singled_out

__all__ = [
    "AnatomyAttack",
    "check_anatomy",
    "definetti_attack",
    "encode_quasi_identifiers",
    "naive_definetti_attack",
    "pruning_disclosure",
    "random_guess",
    "random_worlds_rate",
    "DP_COUNT_MECHANISMS",
    "dp_views",
    "equivalence_classes",
    "kanonymity_risk",
    "linkage_attack",
    "singled_out",
]
