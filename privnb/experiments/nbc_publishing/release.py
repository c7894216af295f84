"""Section 8 of MZ09 (Mozafari & Zaniolo, publishing Naive Bayesian Classifiers): the experiments on Adult.

- :func:`corollary4_report`: the minimum gamma of Corollary 4 on the original views (Section 8.1: 238).
- :func:`figure8_est`: Figure 8 as the paper defines it, EST's achieved r-closeness against the
  non-uniform prior for each gamma, failures kept as failures (with their stage and reason).
- :func:`safety_transform_sweep`, :func:`exact_audits`, :func:`figure8_metrics`: SafetyTransform's output
  for each gamma audited exactly, against the uniform prior (and the prior): not the paper's Figure 8.
- :func:`counterexample_report`: Corollary 4 does not imply condition (8) (the smallest counterexample found).
- :func:`est_experiment`: EST on Adult with the paper's prior and r (Section 8.2), its runtime, the prior
  floor and Statement 14's r.

Result rows follow :data:`privnb.experiments.COLUMNS` (dataset "adult" or the ``dataset`` given, classifier "nbc").
Figure 9 is in :mod:`.figure9`, the claims in :mod:`.claims`, a data card's table in :mod:`.data`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.bounds.amplification import statement14_min_r
from privnb.experiments.folds import ResultRow
from privnb.nbc.audit_memory import plan_audit
from privnb.nbc.counterexample import condition8_ratio, corollary4_counterexamples
from privnb.nbc.est_release import ESTResult, est, prior_r_lower_bound, winning_labels
from privnb.nbc.exact_audit import audit
from privnb.nbc.prior_floor import prior_floor
from privnb.nbc.safety import SafetyTransform, corollary4_gamma, step1_remove_zeros
from privnb.nbc.views import NBCViews, min_score_ratio, nbc_equivalent

PAPER_PRIOR_NEGATIVE = 0.75
"""The paper's prior on <=50K (Section 8.2: "a prior belief of 75%"; Adult's F~ about 3): the task of its 2.92 s."""


def corollary4_report(views: NBCViews) -> tuple[dict, dict, dict]:
    """The minimum gamma of Corollary 4 of MZ09 on the original views (Section 8.1 reports 238).

    A zero count makes condition (10) fail for every gamma. Three readings: (a) zeros kept (infinite),
    (b) the rows (attribute, value) holding a zero left out, as Corollary 4's gamma = (largest ratio)^n
    and as the largest ratio itself, (c) Laplace's +1 on every count (class counts grow by the domain
    size of the first attribute, so that they stay the sums of the counts).

    Parameters
    ----------
    views : NBCViews
        The original views.

    Returns
    -------
    zero_rows : dict
        Attribute -> number of its values with a zero count for some class.
    ratios : dict
        Attribute -> {value: largest / smallest count, rounded to 0.1} for its three largest ratios among
        the values without a zero.
    gammas : dict
        ``min_gamma_zeros_kept``, ``min_gamma_zeros_skipped``, ``max_ratio_zeros_skipped``,
        ``min_gamma_plus_one``.
    """
    zero_rows = {a: int((f == 0).any(axis=1).sum()) for a, f in views.counts.items()}
    ratios = {}
    for a, f in views.counts.items():
        positive = f[(f > 0).all(axis=1)]
        ratio = positive.max(axis=1) / positive.min(axis=1)
        ratio = ratio.astype(float).sort_values(ascending=False)
        ratios[a] = {v.item() if isinstance(v, np.generic) else v: round(x, 1) for v, x in ratio.head(3).items()}
    plus_one = views.with_counts(
        [v + len(views.domain(views.attributes[0])) for v in views.class_counts],
        [f.to_numpy() + 1 for f in views.counts.values()],
    )
    gamma_skip = float(corollary4_gamma(views, zeros="skip"))
    gammas = dict(
        min_gamma_zeros_kept=float(corollary4_gamma(views, zeros="inf")),
        min_gamma_zeros_skipped=gamma_skip,
        max_ratio_zeros_skipped=gamma_skip ** (1 / len(views.attributes)),
        min_gamma_plus_one=float(corollary4_gamma(plus_one)),
    )
    return zero_rows, ratios, gammas


def planned_audit(views: NBCViews, audit_memory: int | None, **policy):
    """The largest exact audit of ``views`` (every quasi-identifier size) that fits ``audit_memory`` bytes
    (:func:`privnb.nbc.plan_audit`), run; None when not even single attributes fit.

    Parameters
    ----------
    views : NBCViews
        The views audited.
    audit_memory : int or None
        The budget in bytes (None: :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`), notebook 04's parameter.
    **policy
        ``L1``, ``L2`` and ``breach`` of :func:`privnb.nbc.audit`.

    Returns
    -------
    (AuditResult or None, AuditPlan)
        The audit and the plan (its ``why`` says what the budget made it choose).
    """
    plan = plan_audit(views, max_size=None, table=True, budget=audit_memory, budget_parameter="audit_memory")
    if not plan.runs:  # planned_audit_plans makes the same call
        return None, plan
    return audit(views, max_size=plan.max_size, method=plan.method, memory_limit=plan.budget, **policy), plan


@shared_doc
def planned_audit_plans(views: NBCViews, gammas: Sequence[float], *, audit_memory, random_state=None) -> str:
    """What :func:`planned_audit` will choose for ``views`` and for SafetyTransform(gamma)'s output at each gamma,
    without auditing: one line per audit smaller than asked, ``""`` when every audit runs in full (what
    ``privnb data check`` shows for notebook 04).

    Parameters
    ----------
    views : NBCViews
        The original views.
    gammas : sequence of float
        The gammas given to SafetyTransform.
    audit_memory : int or None
        The budget in bytes (None: :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`).
    random_state : int, RandomState or None
        Given to every SafetyTransform.
        {random_state}

    Returns
    -------
    str
    """
    audited = {"original": views}
    audited |= {f"gamma {g:g}": SafetyTransform(g, random_state=random_state).fit(views).views_ for g in gammas}
    plans = {
        name: plan_audit(v, max_size=None, table=True, budget=audit_memory, budget_parameter="audit_memory")
        for name, v in audited.items()
    }
    return "; ".join(f"{name}: {plan.why}" for name, plan in plans.items() if plan.why)


@shared_doc
def safety_transform_sweep(
    views: NBCViews,
    gammas: Sequence[float],
    prior: Mapping,
    *,
    n_train: int,
    dataset: str = "adult",
    random_state=None,
    audit_memory: int | None = None,
) -> tuple[pd.DataFrame, list[ResultRow]]:
    """SafetyTransform for each gamma, audited exactly: not the paper's Figure 8 (that is :func:`figure8_est`).

    Each output is checked NBC-equivalent to ``views`` (Definition 2) and, where the prior floor's premise
    holds on it (:func:`privnb.nbc.prior_floor`), no closer to ``prior`` than the floor; a failed check
    raises AssertionError. Every r-closeness here is the exact audit's: gamma is what SafetyTransform meets
    for Corollary 4, not a bound on r (Corollary 4 does not imply condition (8): :func:`counterexample_report`).

    Parameters
    ----------
    views : NBCViews
        The original views.
    gammas : sequence of float
        Amplification bounds (> 1) given to SafetyTransform.
    prior : mapping
        Label -> prior probability (the paper's: 75% on <=50K).
    n_train : int
        The number of rows behind ``views`` (``n_train`` of the result rows).
    dataset : str
        The result rows' data set name.
    random_state : int, RandomState or None
        Given to every SafetyTransform.
        {random_state}
    audit_memory : int, optional
        Bytes each audit may take (default :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`): each is the largest that
        fits (:func:`planned_audit`), and says so when smaller than asked.

    Returns
    -------
    fig8 : DataFrame
        One row per gamma: ``gamma``, ``k`` (Step 2's root degree), ``achieved_gamma``, ``r_measured``
        (audited r-closeness for the uniform prior, Statement 11's setting), ``r_measured_prior`` (for
        ``prior``), ``condition8`` (the audited largest posterior ratio of two labels, condition (8)) and
        ``seconds`` (SafetyTransform's fit) and ``audit`` (what the memory budget made the audit choose, or "").
    rows : list of ResultRow
        Per gamma ``r_closeness`` then ``r_closeness_prior`` (method "safety_transform").
    """
    fig8, rows = [], []
    for gamma in gammas:
        start = time.perf_counter()
        st = SafetyTransform(gamma, random_state=random_state).fit(views)
        seconds = time.perf_counter() - start
        uniform, plan = planned_audit(st.views_, audit_memory)
        measured = uniform.r_closeness if uniform else np.nan
        measured_prior = uniform.r_closeness_for(prior) if uniform else np.nan
        floor = prior_floor(st.views_, prior)
        beats_floor = floor.holds and measured_prior < floor.bound * (1 - 1e-9)
        if not nbc_equivalent(views, st.views_) or beats_floor:
            raise AssertionError(f"SafetyTransform({gamma}) changed the classifier or beat the prior floor")
        fig8.append(
            {
                "gamma": gamma,
                "k": st.k_,
                "achieved_gamma": float(st.achieved_gamma_),
                "r_measured": measured,
                "r_measured_prior": measured_prior,
                "condition8": condition8_ratio(uniform) if uniform else np.nan,
                "seconds": seconds,
                "audit": plan.why,
            }
        )
        note = f"prior {prior[0]} on label 0"
        for metric, value, why in (("r_closeness", measured, ""), ("r_closeness_prior", measured_prior, note)):
            rows.append(ResultRow(dataset, "nbc", "safety_transform", gamma, 0, metric, value, n_train, 0, why))
    return pd.DataFrame(fig8), rows


@shared_doc
def exact_audits(
    views: NBCViews, policy: Sequence[float], *, gamma: float, random_state=None, audit_memory: int | None = None
) -> dict:
    """Exact audit (eq. (4) of MZ09) of the original views and of SafetyTransform(gamma)'s output.

    Parameters
    ----------
    views : NBCViews
        The original views.
    policy : (float, float)
        ``(L1, L2)`` of Definition 1.
    gamma : float
        SafetyTransform's gamma.
    random_state : int, RandomState or None
        SafetyTransform's.
        {random_state}
    audit_memory : int, optional
        Bytes each audit may take (default :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`): each is the largest that
        fits (:func:`planned_audit`), and says so when smaller than asked.

    Returns
    -------
    dict
        ``r_closeness_original``, ``breaches_original``, ``breaches_published`` (L1-to-L2 breaches; NaN for
        an audit its budget cannot hold), ``exact_audit_seconds`` and ``exact_audit_rows`` (time and size of the
        original views' audit), and ``audit_note`` (what the budget made the audits choose, or "").
    """
    policy = dict(L1=policy[0], L2=policy[1])
    start = time.perf_counter()
    original, plan = planned_audit(views, audit_memory, **policy)
    seconds = time.perf_counter() - start
    st = SafetyTransform(gamma, random_state=random_state).fit(views)
    published, published_plan = planned_audit(st.views_, audit_memory, **policy)
    notes = [f"{name}: {p.why}" for name, p in (("original", plan), ("published", published_plan)) if p.why]
    return dict(
        r_closeness_original=original.r_closeness if original else np.nan,
        breaches_original=original.n_breaches if original else np.nan,
        breaches_published=published.n_breaches if published else np.nan,
        exact_audit_seconds=seconds,
        exact_audit_rows=len(original.table) if original else 0,
        audit_note="; ".join(notes),
    )


def _stage(result: ESTResult) -> str:
    if result.success:
        return "published"
    for key, stage in (
        ("large counts", "prior floor"),
        ("merging", "merging"),
        ("exact audit", "audit"),
        ("Split", "split"),
        ("rounding", "rounding"),
    ):
        if key in result.reason:
            return stage
    return "failed"


@shared_doc
def figure8_est(
    views: NBCViews, gammas: Sequence[float], prior: Mapping, *, random_state=None, audit_memory: int | None = None
) -> pd.DataFrame:
    """Figure 8 of MZ09 as the paper defines it: EST's achieved r-closeness on Adult for each gamma.

    Section 8.1: "By running SafetyTransform for 1 < gamma <= 283, we measured the actual r-closeness that is
    achieved by EST for this dataset" against the data's prior (F~ about 3: 75% on <=50K). EST calls
    SafetyTransform with gamma = r on the split labels (Figure 7); its output is audited exactly against
    ``prior``. A failed EST is kept as a failure (``success`` False, ``achieved_r`` NaN, ``stage`` and
    ``reason``), never replaced by another algorithm's number.

    Parameters
    ----------
    views : NBCViews
        The original views.
    gammas : sequence of float
        The r (= gamma) EST is asked for, one run each.
    prior : mapping
        Label -> prior probability.
    random_state : int, RandomState or None
        Given to every EST.
        {random_state}
    audit_memory : int, optional
        Bytes the audit of each EST output may take (:func:`privnb.nbc.est`'s ``memory_limit``); an output
        whose audit would take more is a failure at the audit.

    Returns
    -------
    DataFrame
        One row per gamma: ``gamma``, ``success``, ``achieved_r``, ``stage`` ("published", "prior floor",
        "merging", "audit", "split", "rounding"), ``seconds`` and ``reason``.
    """
    out = []
    below = len(views.labels) > 1 and min(gammas, default=np.inf) < prior_r_lower_bound(views, prior)
    floor = prior_floor(views, prior) if below else None  # the same for every gamma below it: checked once
    for gamma in gammas:
        result = est(views, prior, gamma, random_state=random_state, floor=floor, memory_limit=audit_memory)
        out.append(
            {
                "gamma": gamma,
                "success": bool(result.success),
                "achieved_r": float(result.achieved_r),
                "stage": _stage(result),
                "seconds": float(result.seconds),
                "reason": result.reason,
            }
        )
    return pd.DataFrame(out, columns=["gamma", "success", "achieved_r", "stage", "seconds", "reason"])


@shared_doc
def counterexample_report(*, n_views: int = 20_000, max_count: int = 6, random_state=None) -> tuple[pd.DataFrame, dict]:
    """Corollary 4 does not imply condition (8) (MZ09): :func:`privnb.nbc.corollary4_counterexamples` with
    the audited r-closeness criterion and with condition (8) itself.

    Parameters
    ----------
    n_views : int
        Random view sets tried.
    max_count : int
        The largest count drawn.
    random_state : int, RandomState or None
        The search's.
        {random_state}

    Returns
    -------
    found : DataFrame
        The counterexamples (r criterion).
    metrics : dict
        ``counterexample_rows``, ``counterexample_gamma``, ``counterexample_r`` (the audit's),
        ``counterexample_condition8``, ``counterexample_views`` (p, a, b) of the smallest found,
        ``condition8_rows`` (the smallest condition (8) failure) and ``counterexamples_found``.
    """
    found = corollary4_counterexamples(n_views, max_count=max_count, random_state=random_state)
    small = corollary4_counterexamples(
        n_views, max_count=max_count, criterion="condition8", max_audits=5, random_state=random_state
    )
    metrics = dict(counterexamples_found=len(found), condition8_rows=int(small.rows.iloc[0]) if len(small) else None)
    if len(found):
        first = found.iloc[0]
        metrics.update(
            counterexample_rows=int(first.rows),
            counterexample_gamma=float(first.gamma),
            counterexample_r=float(first.r_audit),
            counterexample_condition8=float(first.condition8),
            counterexample_views=[first.p, first.a, first.b],
        )
    return found, metrics


@dataclass
class ESTExperiment:
    """EST on Adult (Section 8 of MZ09) and the numbers that explain its outcome (:func:`est_experiment`).

    Parameters
    ----------
    result : ESTResult
        EST with the given prior and r; ``seconds`` its wall time.
    wins : Series
        Label -> number of tuples of the product of domains where the NBC predicts it.
    largest : tuple
        The two largest counts M1 >= M2 (Lemma 12's S_M = M1 / M2 is ``s_m``).
    s_min : float
        The smallest ratio of two different scores after Step 1 (what Split needs).
    f_tilde : int
        The largest prior multiple EST used (F~).
    big_m, small_m : int
        The largest and smallest positive counts (M and m of Statement 14).
    log10_r14 : dict
        "S_M" and "S_min" -> log10 of the smallest r Statement 14 guarantees with that ratio.
    above : ESTResult
        EST at ``r_above`` (above the prior floor), through Split, SafetyTransform and Merging.
    uniform : ESTResult
        EST with the uniform prior at the same r.
    """

    result: ESTResult
    seconds: float
    wins: pd.Series
    largest: tuple
    s_m: float
    s_min: float
    f_tilde: int
    big_m: int
    small_m: int
    log10_r14: dict
    above: ESTResult
    uniform: ESTResult

    @property
    def metrics(self) -> dict:
        """Headline numbers for ``metrics.json``, in the notebook's order.

        ``est_seconds``, ``est_success``, ``est_power``, ``est_r_lower_bound``, ``tuples_predicted_positive``,
        ``tuples``, ``lemma12_s_m``, ``min_score_ratio``, ``statement14_log10_r_s_m``,
        ``statement14_log10_r_s_min``, ``est_seconds_full``, ``est_r`` (the r EST was asked for).
        """
        return dict(
            est_seconds=self.seconds,
            est_success=bool(self.result.success),
            est_power=self.result.power,
            est_r_lower_bound=self.result.r_lower_bound,
            tuples_predicted_positive=int(self.wins[1]),
            tuples=int(self.wins.sum()),
            lemma12_s_m=self.s_m,
            min_score_ratio=self.s_min,
            statement14_log10_r_s_m=self.log10_r14["S_M"],
            statement14_log10_r_s_min=self.log10_r14["S_min"],
            est_seconds_full=self.above.seconds,
            est_r=float(self.result.r),
        )

    def table(self) -> pd.DataFrame:
        """The runs and the numbers that explain their outcome, one row each (``value`` as text), for a notebook."""
        result, above, uniform = self.result, self.above, self.uniform
        n = self.log10_r14
        return pd.DataFrame(
            {
                f"EST at r = {result.r:g}": f"{'published' if result.success else 'failed'} after {self.seconds:.3f} s",
                "its reason": result.reason or "-",
                "tuples where the NBC predicts label 1": f"{int(self.wins[1]):,} of {int(self.wins.sum()):,}",
                "smallest r any large-count release can meet (prior floor)": f"{result.r_lower_bound:g}",
                "Lemma 12's S_M = M1/M2": f"{self.largest[0]}/{self.largest[1]} = {self.s_m:.4f}",
                "smallest ratio of two different scores (what Split needs)": f"{self.s_min:.7f}",
                f"Statement 14's r (limit form, F~ = {self.f_tilde}, M/m = {self.big_m}/{self.small_m})": (
                    f"10^{n['S_M']:.0f} with S_M; 10^{n['S_min']:.3g} with the smallest score ratio"
                ),
                f"EST at r = {above.r:g} (above the floor)": (
                    f"{'published' if above.success else 'failed'} after {above.seconds:.2f} s; {above.reason or '-'}"
                ),
                f"EST at r = {uniform.r:g}, uniform prior (another task)": (
                    f"{'published' if uniform.success else 'failed'}, achieved r = {uniform.achieved_r:.4f}"
                ),
            }.items(),
            columns=["quantity", "value"],
        ).set_index("quantity")


@shared_doc
def est_experiment(
    views: NBCViews,
    prior: Mapping,
    r: float,
    *,
    r_above: float = 2.5,
    random_state=None,
    audit_memory: int | None = None,
) -> ESTExperiment:
    """EST (Figure 7 of MZ09) on ``views`` with ``prior`` and ``r``, timed (the paper: 2.92 s in C++).

    Also runs EST at ``r_above`` with the same prior and at ``r`` with the uniform prior, and computes
    Lemma 12's S_M, the true smallest score ratio and the r that Statement 14's limit form needs with
    either (Section 7). Every EST gets ``random_state`` as is.

    Parameters
    ----------
    views : NBCViews
        The original views.
    prior : mapping
        Label -> prior probability.
    r : float
        The r-closeness asked for.
    r_above : float
        A second r, above the prior floor.
    random_state : int, RandomState or None
        Given to every EST.
        {random_state}
    audit_memory : int, optional
        Bytes the audit of each EST output may take (:func:`privnb.nbc.est`'s ``memory_limit``).

    Returns
    -------
    ESTExperiment
    """
    start = time.perf_counter()
    result = est(views, prior, r, random_state=random_state, memory_limit=audit_memory)
    seconds = time.perf_counter() - start
    largest = sorted((v for f in views.counts.values() for v in f.to_numpy().ravel()), reverse=True)[:2]
    s_m = largest[0] / largest[1]
    s_min = float(min_score_ratio(step1_remove_zeros(views, random_state=random_state)))
    positive = [v for v in views.all_counts() if v > 0]
    f_tilde = max(result.multiples.values())
    ln_r14 = {
        name: statement14_min_r(f_tilde, s, max(positive), min(positive), len(views.attributes), log=True)
        for name, s in (("S_M", s_m), ("S_min", s_min))
    }
    return ESTExperiment(
        result=result,
        seconds=seconds,
        wins=winning_labels(views),
        largest=tuple(largest),
        s_m=s_m,
        s_min=s_min,
        f_tilde=f_tilde,
        big_m=max(positive),
        small_m=min(positive),
        log10_r14={name: v / np.log(10) for name, v in ln_r14.items()},
        above=est(views, prior, r_above, random_state=random_state, memory_limit=audit_memory),
        uniform=est(views, {0: 0.5, 1: 0.5}, r, random_state=random_state, memory_limit=audit_memory),
    )
