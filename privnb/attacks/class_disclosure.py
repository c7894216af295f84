"""The de Finetti attack on a generalized release: each equivalence class read as an anatomy group.

A k-anonymous (or l-diverse, or t-close) generalization publishes, for each equivalence class, its
generalized quasi-identifiers and the multiset of its sensitive values, one per row. An adversary who knows
the quasi-identifiers of the people in the table (the linkage adversary of k-anonymity) places each of them in
the class whose generalized values cover theirs, and so holds exactly what anatomy publishes: every group's
members with their quasi-identifiers and the group's sensitive values, unlinked. Kifer's de Finetti attack
(SIGMOD 2009, Section 5) therefore applies unchanged: :func:`class_release` builds that anatomy-shaped view
of the release and :func:`class_disclosure` runs :func:`~privnb.attacks.definetti_disclosure` on it, so that
anatomy and generalization at the same l are measured by the same attack. Classes larger than
:data:`~privnb.attacks.definetti.MAX_GROUP` rows (most of a full-domain release's) are approximated by
Sinkhorn scaling (:func:`~privnb.attacks.definetti.sinkhorn_marginals`); smaller ones are enumerated exactly,
as anatomy's groups are.

The adversary here models the members' original quasi-identifiers only; a released row's other columns (in
Adult, the class is not one: it stays with the learner) are not used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.mechanisms import Anatomy
from privnb.mechanisms.grouping import check_columns
from privnb.validation import check_int

from .anatomy_disclosure import definetti_disclosure, original_model_disclosure
from .result import AttackResult
from .risk import equivalence_classes

__all__ = ["class_release", "class_disclosure"]


def class_release(
    release: pd.DataFrame,
    original: pd.DataFrame,
    quasi_identifiers,
    sensitive: str,
    *,
    classes=None,
    l: int = 1,
) -> Anatomy:
    """A generalized release as the de Finetti adversary holds it: an :class:`~privnb.mechanisms.Anatomy`.

    Parameters
    ----------
    release : DataFrame
        The released rows (suppressed ones left out) with the sensitive column, indexed by the original
        rows' labels (a generalizer's ``generalized_``).
    original : DataFrame
        The original rows, suppressed ones included: the quasi-identifiers the adversary knows.
    quasi_identifiers : sequence of str
        The quasi-identifiers the adversary knows (columns of ``original``).
    sensitive : str
        The sensitive column of ``release``.
    classes : sequence of str, optional
        The release's columns whose equal values make a class; default ``quasi_identifiers``.
    l : int
        The diversity the release claims (the Anatomy's ``l``; read by no check).

    Returns
    -------
    Anatomy
        IT: the released individuals' original quasi-identifiers and their class as ``gid``, indexed by
        their labels (``row_id``); ST: each class's sensitive values (sorted within the class: their order
        in the release says nothing); ``suppressed``: the original labels the release left out.
    """
    qi = list(quasi_identifiers)
    check_columns(original, qi, "original")
    if sensitive not in release.columns:
        raise ValueError(f"sensitive column {sensitive!r} is not in the release ({list(release.columns)})")
    if release[sensitive].isna().any():
        raise ValueError(
            f"the release's sensitive column {sensitive!r} has {int(release[sensitive].isna().sum())} missing "
            "values: a missing value is no value of the class's multiset; drop or impute those rows before "
            "releasing"
        )
    if release.index.has_duplicates or not release.index.isin(original.index).all():
        raise ValueError("the release must be indexed by the original rows' labels, each once (``generalized_``)")
    gid = equivalence_classes(release, qi if classes is None else list(classes))
    it = original.loc[release.index, qi].assign(gid=gid)
    it.index = pd.Index(release.index, name="row_id")
    st = pd.DataFrame({"gid": gid, sensitive: release[sensitive].to_numpy()})
    st = st.sort_values(["gid", sensitive], kind="stable").reset_index(drop=True)
    order = np.argsort(gid, kind="stable")
    suppressed = original.index[~original.index.isin(release.index)]
    return Anatomy(it.iloc[order], st, suppressed, sensitive, int(l))


def class_disclosure(
    release: pd.DataFrame,
    original: pd.DataFrame,
    quasi_identifiers,
    sensitive: str,
    *,
    classes=None,
    n_iter: int = 2000,
    tol: float = 1e-6,
    reference: bool = True,
    progress: bool = False,
) -> list[AttackResult]:
    """The de Finetti attack (and the original data's model) on a generalized release's classes.

    Parameters
    ----------
    release : DataFrame
        The released rows with the sensitive column, indexed by the original rows' labels.
    original : DataFrame
        The original rows (their quasi-identifiers and true sensitive values), suppressed ones included.
    quasi_identifiers : sequence of str
        The quasi-identifiers the adversary knows and models.
    sensitive : str
        The sensitive column.
    classes : sequence of str, optional
        As in :func:`class_release`.
    n_iter : int
        Largest number of EM iterations, at least 1.
    tol : float
        The EM's tolerance (log-likelihood gain per individual and iteration), a number >= 0.
    reference : bool
        Also the guess of the model fitted on the original rows (``original_model``).
    progress : bool
        Show a progress bar over the EM's iterations.

    Returns
    -------
    list of AttackResult
        ``definetti`` (the strongest variant; baseline the mean of 1 / distinct values of the target's class)
        and, with ``reference``, ``original_model``.
    """
    n_iter = check_int(n_iter, "n_iter", low=1)
    if not tol >= 0:
        raise ValueError(f"tol (log-likelihood gain per individual) must be a number >= 0, got {tol!r}")
    anatomy = class_release(release, original, quasi_identifiers, sensitive, classes=classes)
    truth = original[sensitive]
    qi = list(quasi_identifiers)
    options = dict(quasi_identifiers=qi, n_iter=n_iter, tol=tol, large_groups="sinkhorn", progress=progress)
    out = [definetti_disclosure(anatomy, truth, **options)]
    if reference:
        out.append(original_model_disclosure(anatomy, truth, quasi_identifiers=qi, large_groups="sinkhorn"))
    return out
