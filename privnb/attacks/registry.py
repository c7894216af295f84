"""Which attack measures which release: one registry entry per release kind, read by the frontier and its plot.

After anonypyx's attackers (one class per attack on a kind of release) and anonymeter's results (an attack's
rate beside the rate it must beat), each :class:`ReleaseKind` names how to attack the release a fitted view
learned from (a callable returning :class:`~privnb.attacks.AttackResult` records), which of those records
is the frontier's x (its advantage, success minus the baseline the attack computed), and the words of the
axis, the legend and the panel. Adding a release kind is one :func:`register_release` call; the runners, the
frontier table and the plot need no other change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from privnb.attacks.anatomy_disclosure import definetti_disclosure, original_model_disclosure, pruning_disclosure
from privnb.attacks.class_disclosure import class_disclosure
from privnb.attacks.linkage import linkage_attack
from privnb.attacks.nbc_audit import nbc_audit_attack
from privnb.attacks.result import AttackResult
from privnb.attacks.risk import homogeneity_attack, prosecutor_attack

__all__ = [
    "ReleaseKind",
    "RELEASES",
    "LIKE_FOR_LIKE",
    "register_release",
    "anatomy_attacks",
    "class_attacks",
    "nbc_attacks",
]

AttackFunction = Callable[[object, object, float | None, Mapping], Sequence[AttackResult]]


@dataclass(frozen=True)
class ReleaseKind:
    """A kind of release, its attacks and how the frontier shows it.

    Parameters
    ----------
    method : str
        The view's method in the result rows ("anatomized", "k-ac", ...).
    attack : callable
        ``attack(fitted, data, param, options) -> sequence of AttackResult``: the attacks on the release
        the fitted view learned from (``data`` is the fold's :class:`~privnb.experiments.FoldData`,
        ``options`` the runner's attack options).
    headline : str
        The ``AttackResult.attack`` whose advantage is the frontier's x; ``{m}`` is filled with the
        frontier's m (linkage).
    axis : str
        What the x axis measures (one panel per axis).
    label : str
        The legend's name of the release.
    letter : str
        The letter of its parameter ("l", "k", "γ", "ε"; "" for none).
    panel : str
        The title of its panel.
    """

    method: str
    attack: AttackFunction
    headline: str
    axis: str
    label: str
    letter: str
    panel: str


RELEASES: dict[str, ReleaseKind] = {}
"""Release kind (the view's method) -> :class:`ReleaseKind`, in the frontier's order."""


def register_release(kind: ReleaseKind, *, replace: bool = False) -> ReleaseKind:
    """Add a release kind to :data:`RELEASES` (the frontier and its plot then show it).

    Parameters
    ----------
    kind : ReleaseKind
        The entry.
    replace : bool
        Allow replacing an entry of the same method.

    Returns
    -------
    ReleaseKind
    """
    if not isinstance(kind, ReleaseKind):
        raise TypeError(f"expected a ReleaseKind, got {type(kind).__name__}")
    if kind.method in RELEASES and not replace:
        raise ValueError(f"release kind {kind.method!r} is registered already; pass replace=True to replace it")
    RELEASES[kind.method] = kind
    return kind


def _truth(fitted, data):
    return data.X_train[fitted.anatomy_.sensitive].reset_index(drop=True)


def anatomy_attacks(fitted, data, param, options) -> list[AttackResult]:
    """The de Finetti attack at full strength and the original data's model, on the anatomized release.

    Parameters
    ----------
    fitted : AnatomizedTraining
        The fitted view (``anatomy_``).
    data : FoldData
        The fold (its training rows hold the true sensitive values).
    param : float
        The release's l.
    options : mapping
        ``n_iter`` and ``tol`` of the EM.

    Returns
    -------
    list of AttackResult
    """
    anatomy, truth = fitted.anatomy_, _truth(fitted, data)
    qi = [c for c in anatomy.it.columns if c != "gid"]
    em = {key: options[key] for key in ("n_iter", "tol") if key in options}
    return [
        definetti_disclosure(anatomy, truth, quasi_identifiers=qi, l=int(param), **em),
        original_model_disclosure(anatomy, truth, quasi_identifiers=qi),
    ]


def _pruned_attacks(fitted, data, param, options):
    return [pruning_disclosure(fitted.anatomy_, fitted.pruning_.pruned, _truth(fitted, data))]


def _kanonymity_attacks(fitted, data, param, options):
    gen = fitted.generalizer_
    release, qi = gen.generalized_, gen.quasi_identifiers_
    k = int(param)
    return [prosecutor_attack(release, qi, k=k), homogeneity_attack(release, qi, options["sensitive"], k=k)]


def class_attacks(fitted, data, param, options) -> list[AttackResult]:
    """Anatomy's attacks on a generalized release at k = l: de Finetti on its classes, homogeneity, prosecutor.

    The adversary knows the quasi-identifiers anatomy publishes in IT (every training column but the
    sensitive one) and places each individual in its class (:func:`privnb.attacks.class_disclosure`).

    Parameters
    ----------
    fitted : GeneralizedTraining
        The fitted view (``generalizer_``).
    data : FoldData
        The fold (its training rows hold the quasi-identifiers and the true sensitive values).
    param : float
        The release's l (its k).
    options : mapping
        ``sensitive``, and ``n_iter`` and ``tol`` of the EM.

    Returns
    -------
    list of AttackResult
        ``definetti``, ``original_model``, ``homogeneity``, ``prosecutor``.
    """
    gen, sensitive = fitted.generalizer_, options["sensitive"]
    original = data.X_train.reset_index(drop=True)  # the generalizer labels the training rows 0..n-1
    known = [c for c in original.columns if c != sensitive]
    em = {key: options[key] for key in ("n_iter", "tol") if key in options}
    release, qi = gen.generalized_, gen.quasi_identifiers_
    return [
        *class_disclosure(release, original, known, sensitive, classes=qi, **em),
        homogeneity_attack(release, qi, sensitive),
        prosecutor_attack(release, qi),
    ]


def _linkage_attacks(fitted, data, param, options):
    return [
        linkage_attack(
            data.X_train, m, fitted.features_, adversary=adversary, on_short="skip", random_state=data.seed + m
        )
        for adversary in options.get("adversaries", ("items", "values"))
        for m in options.get("ms", (1, 2, 3, 4, 5))
    ]


def nbc_attacks(fitted, data, param, options) -> list[AttackResult]:
    """The exact audit of the published views (MZ09) at the runner's audit size.

    Parameters
    ----------
    fitted : NBCRelease
        The fitted release (``views_``).
    data : FoldData
        The fold (unused: the audit reads the views alone).
    param : float
        gamma or epsilon.
    options : mapping
        ``prior`` and ``max_size`` of the audit.

    Returns
    -------
    list of AttackResult
    """
    return [nbc_audit_attack(fitted.views_, options.get("prior"), max_size=options.get("max_size"))]


_ANATOMY_PANEL = "Anatomy and l-diverse generalization: the de Finetti attack"
_DEFINETTI = "correct guesses (de Finetti, strongest) - prior"
LIKE_FOR_LIKE = ("anatomized", "l-diverse full-domain", "l-diverse Mondrian", "t-close Mondrian")
"""Anatomy and its peers at the same l (k = l): the views the like-for-like comparison sets side by side."""
_HOMOGENEITY = ("homogeneity", "records in a one-valued class (homogeneity) - baseline")
_LINKAGE = ("linkage_items_m{m}", "users singled out (m known items) - baseline")
_AUDIT = ("r_closeness", "r - 1 (exact audit)")
for _kind in (
    ReleaseKind(
        "anatomized",
        anatomy_attacks,
        "definetti",
        _DEFINETTI,
        "anatomized (k-NN)",
        "l",
        _ANATOMY_PANEL,
    ),
    ReleaseKind(
        "l-diverse full-domain",
        class_attacks,
        "definetti",
        _DEFINETTI,
        "l-diverse full-domain, k = l (k-NN)",
        "l",
        _ANATOMY_PANEL,
    ),
    ReleaseKind(
        "l-diverse Mondrian",
        class_attacks,
        "definetti",
        _DEFINETTI,
        "l-diverse Mondrian, k = l (k-NN)",
        "l",
        _ANATOMY_PANEL,
    ),
    ReleaseKind(
        "t-close Mondrian",
        class_attacks,
        "definetti",
        _DEFINETTI,
        "t-close Mondrian, k = l (k-NN)",
        "l",
        _ANATOMY_PANEL,
    ),
    ReleaseKind(
        "pruned",
        _pruned_attacks,
        "pruning_disclosure",
        "kept row holds the true value - prior",
        "pruned (k-NN)",
        "l",
        "Anatomy, pruned to one row (MC16)",
    ),
    ReleaseKind(
        "generalized",
        _kanonymity_attacks,
        *_HOMOGENEITY,
        "full-domain (k-NN)",
        "k",
        "k-anonymity: the homogeneity attack",
    ),
    ReleaseKind(
        "mondrian", _kanonymity_attacks, *_HOMOGENEITY, "Mondrian (k-NN)", "k", "k-anonymity: the homogeneity attack"
    ),
    ReleaseKind("k-ac", _linkage_attacks, *_LINKAGE, "k-AC (linear SVC)", "k", "Containment: linkage (FSAC)"),
    ReleaseKind(
        "k-anonymity",
        _linkage_attacks,
        *_LINKAGE,
        "k-anonymity by containment (linear SVC)",
        "k",
        "Containment: linkage (FSAC)",
    ),
    ReleaseKind("full", _linkage_attacks, *_LINKAGE, "all features (linear SVC)", "", "Containment: linkage (FSAC)"),
    ReleaseKind(
        "safety_transform", nbc_attacks, *_AUDIT, "SafetyTransform (NBC)", "γ", "NBC views: the exact audit (MZ09)"
    ),
    ReleaseKind(
        "dp_laplace", nbc_attacks, *_AUDIT, "DP counts, Laplace (NBC)", "ε", "NBC views: the exact audit (MZ09)"
    ),
    ReleaseKind(
        "dp_geometric", nbc_attacks, *_AUDIT, "DP counts, geometric (NBC)", "ε", "NBC views: the exact audit (MZ09)"
    ),
):
    register_release(_kind)
del _kind
