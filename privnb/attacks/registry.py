"""Which attacks measure which release: a list of attacks per release type, read by the frontier.

After anonypyx's attackers (one class per attack on a kind of release) and anonymeter's evaluators (an attack's
rate beside the rate it must beat), every attack takes a release record (:mod:`privnb.mechanisms.releases`,
:class:`privnb.nbc.NBCViews`), the attacked individuals (:class:`~privnb.attacks.Targets`, or what the release
kind's attacks need) and the runner's options, and returns :class:`~privnb.attacks.AttackResult` records; it
never reads a fitted learner. :func:`register_attack` adds one attack to a release type (its subclasses
inherit it); :func:`release_attacks` runs every attack registered for a release. How the frontier shows an
attack (panel, axis, legend) is the workbench's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from privnb.attacks.adversary import common_adversary
from privnb.attacks.anatomy_disclosure import definetti_disclosure, original_model_disclosure, pruning_disclosure
from privnb.attacks.class_disclosure import class_disclosure
from privnb.attacks.linkage import linkage_attack
from privnb.attacks.nbc_audit import nbc_audit_attack
from privnb.attacks.result import AttackResult
from privnb.attacks.risk import homogeneity_attack, prosecutor_attack
from privnb.mechanisms import Anatomy, GeneralizedRelease, ProjectionRelease, PrunedRelease
from privnb.nbc import NBCViews

__all__ = ["ATTACKS", "Attack", "attacks_for", "register_attack", "release_attacks"]

AttackFunction = Callable[[object, object, Mapping], Sequence[AttackResult]]


@dataclass(frozen=True)
class Attack:
    """One attack registered for a release type.

    Parameters
    ----------
    headline : str
        The ``AttackResult.attack`` of the record the frontier plots (``{m}`` filled with the frontier's m).
    function : callable
        ``function(release, targets, options) -> sequence of AttackResult``.
    frontier : bool
        Whether the frontier shows the headline record as a point.
    """

    headline: str
    function: AttackFunction
    frontier: bool = True


ATTACKS: dict[type, list[Attack]] = {}
"""Release type -> its attacks, in registration order (the first registered type first)."""


def register_attack(release_type: type, function: AttackFunction, *, headline: str, frontier: bool = True) -> Attack:
    """Add an attack to the attacks of ``release_type`` (and of its subclasses).

    Parameters
    ----------
    release_type : type
        The release record's class.
    function : callable
        ``function(release, targets, options) -> sequence of AttackResult``.
    headline : str
        The record of the function's results that the frontier plots.
    frontier : bool
        Whether the frontier plots it.

    Returns
    -------
    Attack
    """
    if not isinstance(release_type, type):
        raise TypeError(f"release_type must be a class, got {release_type!r}")
    entries = ATTACKS.setdefault(release_type, [])
    if any(entry.headline == headline for entry in entries):
        raise ValueError(f"{release_type.__name__} has an attack {headline!r} already; give the new one its own name")
    attack = Attack(headline, function, frontier)
    entries.append(attack)
    return attack


def attacks_for(release) -> list[Attack]:
    """The attacks registered for the release's type and its base classes (the most specific first).

    Parameters
    ----------
    release : object
        A release record.

    Returns
    -------
    list of Attack
    """
    return [attack for kind in type(release).__mro__ for attack in ATTACKS.get(kind, ())]


def release_attacks(release, targets, options: Mapping) -> list[AttackResult]:
    """Every registered attack's records on one release.

    Parameters
    ----------
    release : object
        A release record.
    targets : object
        The attacked individuals (:class:`~privnb.attacks.Targets` for microdata, the item matrix's
        :class:`~privnb.attacks.Targets` for a projection, None for NBC views).
    options : mapping
        The runner's attack options (``n_iter``, ``tol``, ``ms``, ``adversaries``, ``prior``, ``max_size``).

    Returns
    -------
    list of AttackResult
    """
    return [result for attack in attacks_for(release) for result in attack.function(release, targets, options)]


def _em(options) -> dict:
    return {key: options[key] for key in ("n_iter", "tol") if key in options}


def _common(release, targets, options):
    return [common_adversary(release, targets)]


def _definetti(release: Anatomy, targets, options):
    qi = [c for c in release.it.columns if c in targets.rows.columns]  # not gid, not the published class
    truth = targets.truth
    return [
        definetti_disclosure(release, truth, quasi_identifiers=qi, l=release.l, **_em(options)),
        original_model_disclosure(release, truth, quasi_identifiers=qi),
    ]


def _pruning(release: PrunedRelease, targets, options):
    return [pruning_disclosure(release.anatomy, release.kept, targets.truth)]


def _class_definetti(release: GeneralizedRelease, targets, options):
    """De Finetti on the classes of a release that promises a privacy model on the sensitive attribute (anatomy's
    peers); a k-anonymous release promises nothing of it, and meets the common adversary and homogeneity.
    """
    if not release.models:
        return []
    known = [c for c in targets.rows.columns if c != targets.sensitive]
    qi = list(release.quasi_identifiers)
    return class_disclosure(release.table, targets.rows, known, targets.sensitive, classes=qi, **_em(options))


def _homogeneity(release: GeneralizedRelease, targets, options):
    return [homogeneity_attack(release.table, list(release.quasi_identifiers), targets.sensitive, k=release.k)]


def _prosecutor(release: GeneralizedRelease, targets, options):
    return [prosecutor_attack(release.table, list(release.quasi_identifiers), k=release.k)]


def _linkage(release: ProjectionRelease, targets, options):
    return [
        linkage_attack(
            targets.rows, m, release.features, adversary=adversary, on_short="skip", random_state=targets.seed + m
        )
        for adversary in options.get("adversaries", ("items", "values"))
        for m in options.get("ms", (1, 2, 3, 4, 5))
    ]


def _audit(release: NBCViews, targets, options):
    return [nbc_audit_attack(release, options.get("prior"), max_size=options.get("max_size"))]


register_attack(Anatomy, _common, headline="common")
register_attack(Anatomy, _definetti, headline="definetti")
register_attack(PrunedRelease, _common, headline="common")
register_attack(PrunedRelease, _pruning, headline="pruning_disclosure")
register_attack(GeneralizedRelease, _common, headline="common")
register_attack(GeneralizedRelease, _class_definetti, headline="definetti")
register_attack(GeneralizedRelease, _homogeneity, headline="homogeneity")
register_attack(GeneralizedRelease, _prosecutor, headline="prosecutor", frontier=False)
register_attack(ProjectionRelease, _linkage, headline="linkage_items_m{m}")
register_attack(NBCViews, _audit, headline="r_closeness")
