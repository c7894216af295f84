"""What each release actually discloses, every measure one :class:`AttackResult` (success, the baseline the attack
computes from the release, the advantage, the targets and details): the de Finetti attack on anatomy, prosecutor
re-identification and homogeneity on k-anonymity, linkage on k-anonymity by containment (two adversaries), the exact
audit of published NBC views, and membership inference on any trained classifier (the loss-threshold attack of Yeom
et al. 2018); one common adversary for every microdata release (a background of the population and the release's
classes, :mod:`privnb.attacks.adversary`); and the registry of the attacks of each release type
(:mod:`privnb.attacks.registry`). Every attack takes a release record, never a fitted learner. No learner is
imported here (the runner that puts attacks and learners on the same folds lives in
``privnb.experiments.privacy_frontier``).
"""

from .adversary import (
    Targets,
    background_prior,
    common_adversary,
)
from .anatomy_disclosure import (
    definetti_disclosure,
    original_model_disclosure,
    pruning_disclosure,
    random_guess,
    random_worlds_rate,
)
from .class_disclosure import (
    class_disclosure,
    class_release,
)
from .definetti import (
    AnatomyAttack,
    definetti_attack,
    naive_definetti_attack,
)
from .linkage import (
    ADVERSARIES,
    linkage_attack,
    singled_out,
)
from .lira import (
    lira_attacks,
    lira_scores,
)
from .membership import (
    loss_threshold_attack,
    membership_attack,
)
from .nbc_audit import (
    nbc_audit_attack,
)
from .registry import (
    ATTACKS,
    Attack,
    attacks_for,
    register_attack,
    release_attacks,
)
from .result import (
    AttackResult,
    wilson_interval,
)
from .risk import (
    equivalence_classes,
    homogeneity_attack,
    prosecutor_attack,
)

__all__ = [
    "ADVERSARIES",
    "ATTACKS",
    "Attack",
    "Targets",
    "attacks_for",
    "background_prior",
    "common_adversary",
    "register_attack",
    "release_attacks",
    "wilson_interval",
    "AnatomyAttack",
    "AttackResult",
    "class_disclosure",
    "class_release",
    "definetti_attack",
    "definetti_disclosure",
    "equivalence_classes",
    "homogeneity_attack",
    "linkage_attack",
    "lira_attacks",
    "lira_scores",
    "loss_threshold_attack",
    "membership_attack",
    "naive_definetti_attack",
    "nbc_audit_attack",
    "original_model_disclosure",
    "prosecutor_attack",
    "pruning_disclosure",
    "random_guess",
    "random_worlds_rate",
    "singled_out",
]
