"""What each notebook's sections will do on a data set with given parameters, decided by the calls the notebooks
make themselves: the rows after sampling, the sections' needs (:meth:`DataSupport.requirements`), the NBC audits
sized to their fixed memory budget (:func:`privnb.nbc.plan_audit`) and the linkage's m values the rows allow.
``privnb data check`` plans every notebook with its own defaults through :func:`notebook_plan`, which asks the
notebook's face (:data:`privnb.experiments.PAPERS`), so that a section the check lists as running runs, and one it
lists as adapted or skipped says the same line in the notebook. The helpers here are those the faces share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privnb.experiments.data_support import DataSupport
from privnb.experiments.nbc_data import nbc_data

GAMMA = "γ"
TOUR_GAMMA = 2.0
"""The explorer's gamma at its start (the tour's static copy)."""
TOUR_NBC_ATTRIBUTES = ("age", "education-num", "hours-per-week")
"""The NBC attributes the tour and notebooks 04-05 wish for (Adult's, Section 8 of MZ09)."""
COLUMNS = ["section", "needs", "runs", "why not"]
__all__ = ["frontier_nbc_plan", "frontier_sizes", "linkage_ms", "notebook_plan", "sampled_support", "tour_audits"]


def tour_audits(views, gamma: float, *, audit_max_size: int, audit_memory, random_state):
    """SafetyTransform(gamma) of ``views``, and the audit plans of the views as counted and of its output
    (:func:`privnb.nbc.plan_audit` within ``audit_memory`` bytes): what the tour explorer's gamma section runs.

    Parameters
    ----------
    views : NBCViews
        The views as counted.
    gamma : float
        SafetyTransform's amplification.
    audit_max_size : int
        The largest quasi-identifier size wished for.
    audit_memory : int or None
        The audits' memory budget in bytes (None: :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`).
    random_state : int
        SafetyTransform's random choices.

    Returns
    -------
    (SafetyTransform, dict)
        The fitted transform, and row name -> (views, AuditPlan).
    """
    from privnb.nbc import SafetyTransform, plan_audit  # light import of privnb.experiments: NumPy and pandas only

    transform = SafetyTransform(gamma, random_state=random_state).fit(views)
    audited = {"published as counted": views, f"SafetyTransform({GAMMA} = {gamma:g})": transform.views_}
    plans = {
        name: (
            v,
            plan_audit(
                v,
                max_size=audit_max_size,
                table=False,
                budget=audit_memory,
                size_parameter="audit_max_size",
                budget_parameter="audit_memory",
            ),
        )
        for name, v in audited.items()
    }
    return transform, plans


def linkage_ms(X, ms: Sequence[int]) -> tuple[list[int], str]:
    """The m of notebook 05's linkage (an adversary who knows m items of a user) that the rows allow: at most
    the most items a row holds (a binarized table's rows hold one item per column), and one line when some
    are left out.

    Parameters
    ----------
    X : array-like or sparse matrix of 0/1
        The items the linkage attacks.
    ms : sequence of int
        The m asked for (notebook 05's ``ms``).

    Returns
    -------
    (list of int, str)
        The m kept, and ``""`` or the line naming those left out and the parameter.
    """
    most = int(np.asarray(X.sum(axis=1)).max()) if X.shape[0] else 0
    kept = [m for m in ms if m <= most]
    dropped = [m for m in ms if m > most]
    if not dropped:
        return kept, ""
    return kept, (
        f"m = {dropped} left out of ms: no row holds more than {most} items, so the items adversary cannot know "
        f"{min(dropped)}; set ms to values up to {most}"
    )


def notebook_plan(notebook: str, support: DataSupport, data, parameters: Mapping) -> pd.DataFrame:
    """What ``notebook``'s sections do on ``data`` with ``parameters`` (the notebook's defaults in ``privnb data
    check``): one row per section with its needs, whether it runs, and why not or what it chose.

    Parameters
    ----------
    notebook : str
        The notebook's file name without ``.ipynb``.
    support : DataSupport
        What the data set offers.
    data : Dataset or TokenCorpus
        The data set.
    parameters : mapping
        The notebook's parameters (its parameters cell's values).

    Returns
    -------
    pandas.DataFrame
        Columns section, needs, runs, why not.
    """
    from privnb.experiments.papers import PAPERS

    return pd.DataFrame(PAPERS[notebook].plan_rows(support, data, parameters), columns=COLUMNS)


def frontier_sizes(support: DataSupport, data, p: Mapping) -> tuple[list, list, int, list[str]]:
    """Notebook 05's setup: the linkage's m the rows allow (:func:`linkage_ms`, on the items section 6 attacks)
    and the NBC audits' size and gammas that fit their budget (:func:`frontier_nbc_plan`, on the rows section 7
    counts), with one line for each change.

    Parameters
    ----------
    support : DataSupport
        What the data set offers (the notebook's ``dataset``).
    data : Dataset or TokenCorpus
        The data set.
    p : mapping
        The notebook's parameters ``ms``, ``gammas``, ``audit_max_size``, ``n_rows``, ``nbc_rows``, ``seed``.

    Returns
    -------
    (list of int, list of float, int, list of str)
        ``ms``, ``gammas``, ``audit_max_size`` and the lines.
    """
    from privnb.experiments.feature_selection import selection_inputs

    inputs = selection_inputs([support.dataset], adult_rows=p["n_rows"], random_state=p["seed"])
    ms, why = linkage_ms(next(iter(inputs.values())).X, p["ms"])
    gammas, size, lines = list(p["gammas"]), int(p["audit_max_size"]), [why] if why else []
    if not support.missing("table"):
        if support.paper == "adult":
            from privnb.data import load

            data = load("adult", version="train", drop_missing=False)
        nbc = nbc_data(support, data, list(TOUR_NBC_ATTRIBUTES), n_rows=p["nbc_rows"], random_state=p["seed"])
        if not nbc.missing:
            size, gammas, why = frontier_nbc_plan(nbc, gammas=gammas, audit_max_size=size, random_state=p["seed"])
            lines += [why] if why else []
    return ms, gammas, size, lines


def sampled_support(support: DataSupport, n_rows: int) -> DataSupport:
    """The support of the sample a notebook takes (``n_rows`` > 0 and below the table's rows).

    Parameters
    ----------
    support : DataSupport
        What the whole data set offers.
    n_rows : int
        The notebook's sample size (0: no sample).

    Returns
    -------
    DataSupport
    """
    return support.for_rows(n_rows) if not support.missing("table") and 0 < n_rows < support.n_rows else support


def frontier_nbc_plan(nbc, *, gammas: Sequence[float], audit_max_size: int, audit_memory=None, random_state=None):
    """The audit size and the gammas notebook 05's published NBC views can take within ``audit_memory`` bytes
    (its section 7 audits each release exactly): the views of ``nbc``'s rows (the releases count a training half,
    fewer rows, so their chains are no wider) and SafetyTransform(gamma)'s output for each gamma, each planned by
    :func:`privnb.nbc.plan_audit`. A gamma whose output's exact audit does not fit is left out; the size is the
    largest every remaining audit fits.

    Parameters
    ----------
    nbc : NBCData
        The views' rows (:func:`privnb.experiments.nbc_data.nbc_data`, as section 7 prepares them).
    gammas : sequence of float
        SafetyTransform's gammas (notebook 05's ``gammas``).
    audit_max_size : int
        The audit size asked for (notebook 05's ``audit_max_size``).
    audit_memory : int, optional
        The budget in bytes (default :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`).
    random_state : int, RandomState or None
        Given to every SafetyTransform.

    Returns
    -------
    (int, list of float, str)
        The audit size, the gammas kept, and ``""`` or one line saying what was changed and which parameter
        changes it back.
    """
    from privnb.nbc import NBCViews, SafetyTransform, plan_audit

    views = NBCViews.from_frame(nbc.frame, nbc.attributes, nbc.target)
    size, kept, lines = min(int(audit_max_size), views.n_attributes), [], []
    if size < audit_max_size:
        lines.append(f"audit_max_size = {audit_max_size} lowered to {size}: the views count {size} attribute(s)")
    audited = {"the views as counted": views}
    audited |= {g: SafetyTransform(g, random_state=random_state).fit(views).views_ for g in gammas}
    for key, v in audited.items():
        plan = plan_audit(v, max_size=size, table=False, budget=audit_memory, budget_parameter="audit_memory")
        exact = plan.runs and plan.method == "exact"
        if key in gammas and not exact:
            lines.append(f"gamma {key:g} left out of gammas (its release's exact audit does not fit): {plan.why}")
            continue
        kept += [key] if key in gammas else []
        if exact and plan.max_size < size:
            lines.append(f"audit_max_size lowered to {plan.max_size} for {key}: {plan.why}")
            size = plan.max_size
    return size, kept, "; ".join(lines)
