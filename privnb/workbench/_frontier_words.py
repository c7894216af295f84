"""The words of the privacy-utility pictures: each view's legend label and parameter letter, each attack's panel
title and axis. The data (which attacks measure which release) lives in :mod:`privnb.attacks` and
:mod:`privnb.experiments.privacy_frontier`; a view or attack with no words here is shown under its own name.
"""

from __future__ import annotations

from privnb.experiments.privacy_frontier.views import VIEWS

__all__ = ["attack_words", "method_order", "method_words"]

_METHODS = {
    "anatomized": ("anatomized (k-NN)", "l"),
    "pruned": ("pruned (k-NN)", "l"),
    "generalized": ("full-domain (k-NN)", "k"),
    "mondrian": ("Mondrian (k-NN)", "k"),
    "mdav": ("MDAV microaggregation (k-NN)", "k"),
    "l-diverse full-domain": ("l-diverse full-domain, k = l (k-NN)", "l"),
    "l-diverse Mondrian": ("l-diverse Mondrian, k = l (k-NN)", "l"),
    "t-close Mondrian": ("t-close Mondrian, k = l (k-NN)", "l"),
    "k-ac": ("k-AC (linear SVC)", "k"),
    "k-anonymity": ("k-anonymity by containment (linear SVC)", "k"),
    "full": ("all features (linear SVC)", ""),
    "original": ("original data (NBC views)", ""),
    "safety_transform": ("SafetyTransform (NBC)", "γ"),
    "dp_laplace": ("DP counts, Laplace (NBC)", "ε"),
    "dp_geometric": ("DP counts, geometric (NBC)", "ε"),
}

_ATTACKS = {
    "common": ("One adversary for every release", "correct guesses - the background's (common adversary)"),
    "definetti": ("The de Finetti attack (strongest variant)", "correct guesses - the release's own prior"),
    "pruning_disclosure": ("Anatomy, pruned to one row (MC16)", "kept row holds the true value - prior"),
    "homogeneity": ("k-anonymity: the homogeneity attack", "records in a one-valued class - baseline"),
    "prosecutor": ("k-anonymity: prosecutor re-identification", "average risk - 1/k"),
    "linkage_items": ("Containment: linkage (FSAC)", "users singled out (m known items) - baseline"),
    "r_closeness": ("NBC views: the exact audit (MZ09)", "r - 1 (exact audit)"),
}


def method_words(method: str) -> tuple[str, str]:
    """(legend label, parameter letter) of a view; a view without words is labelled by its method and letter.

    Parameters
    ----------
    method : str
        The view's method.

    Returns
    -------
    (str, str)
    """
    if method in _METHODS:
        return _METHODS[method]
    view = VIEWS.get(method)
    return method, view.parameter if view is not None else ""


def attack_words(attack: str) -> tuple[str, str]:
    """(panel title, x axis) of an attack's headline; ``linkage_items_m5`` reads as ``linkage_items``.

    Parameters
    ----------
    attack : str
        The headline record's name.

    Returns
    -------
    (str, str)
    """
    base = attack.rsplit("_m", 1)[0] if attack.rsplit("_m", 1)[-1].isdigit() else attack
    return _ATTACKS.get(base, (attack, f"{attack}: success - baseline"))


def method_order(method: str) -> int:
    """The rank of a view in the legends: the worded views first, in order, then the others.

    Parameters
    ----------
    method : str
        The view's method.

    Returns
    -------
    int
    """
    order = [*_METHODS, *VIEWS]
    return order.index(method) if method in order else len(order)
