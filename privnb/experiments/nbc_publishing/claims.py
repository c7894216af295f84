"""Section 8 of MZ09 (Mozafari & Zaniolo): the headline metrics and the claims table of the Adult experiments.

- :func:`figure8_est_metrics`, :func:`figure8_metrics`: headline numbers of Figure 8 (EST) and of the
  SafetyTransform sweep (:func:`~privnb.experiments.nbc_publishing.figure8_est`,
  :func:`~privnb.experiments.nbc_publishing.safety_transform_sweep`).
- :func:`figure9_metrics`: headline numbers of Figure 9 (:func:`~privnb.experiments.nbc_publishing.figure9`).
- :data:`NBC_CLAIMS`: the paper's claims as :class:`privnb.experiments.Claim` records, measured on
  :class:`ClaimEvidence`; :func:`claims_table` evaluates them in the one claims schema (claims.csv).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb.experiments.claims import NOT_MEASURED, Claim, Reason, evaluate
from privnb.experiments.nbc_publishing.release import PAPER_PRIOR_NEGATIVE
from privnb.nbc.exact_audit import audit, posterior
from privnb.nbc.safety import k_sind
from privnb.nbc.views import NBCViews


def figure8_est_metrics(table: pd.DataFrame) -> dict:
    """Headline numbers of :func:`figure8_est`: ``est_figure8_successes``, ``est_figure8_runs``, the failures
    by stage (``est_figure8_failures``, e.g. "1 at prior floor, 2 at merging"), ``est_like_for_like_seconds``
    (the median time of the successful runs: the like-for-like comparison with the paper's 2.92 s; None when EST
    never published) and ``est_figure8_r_min`` (the smallest achieved r; None likewise).

    Parameters
    ----------
    table : DataFrame
        :func:`figure8_est`'s table.

    Returns
    -------
    dict
    """
    ok = table[table["success"]]
    return dict(
        est_figure8_successes=len(ok),
        est_figure8_runs=len(table),
        est_figure8_failures=", ".join(
            f"{int(v)} at {k}" for k, v in table.loc[~table["success"], "stage"].value_counts().items()
        ),
        est_like_for_like_seconds=float(ok["seconds"].median()) if len(ok) else None,
        est_figure8_r_min=float(ok["achieved_r"].min()) if len(ok) else None,
    )


def figure8_metrics(fig8: pd.DataFrame, r_floor: float) -> dict:
    """Headline numbers of Figure 8 (MZ09) from :func:`safety_transform_sweep`'s table.

    ``r_closeness_at_max_gamma`` (last row), ``r_closeness_prior_min``, ``r_floor_prior`` (``r_floor``) and
    ``safety_transform_seconds`` (median fit time).

    Parameters
    ----------
    fig8 : DataFrame
        :func:`safety_transform_sweep`'s table.
    r_floor : float
        The prior floor (:func:`privnb.nbc.prior_floor`).

    Returns
    -------
    dict
    """
    return dict(
        r_closeness_at_max_gamma=float(fig8.r_measured.iloc[-1]),
        r_closeness_prior_min=float(fig8.r_measured_prior.min()),
        r_floor_prior=r_floor,
        safety_transform_seconds=float(fig8.seconds.median()),
    )


def figure9_metrics(fig9: pd.DataFrame) -> dict:
    """Headline numbers of Figure 9 (MZ09) from :func:`figure9`'s table.

    Parameters
    ----------
    fig9 : DataFrame
        One row per method ("original", "generalized" per k, "majority"), with ``accuracy`` and ``recall``.

    Returns
    -------
    dict
        ``accuracy_original``, ``recall_original``, the largest drops over k, ``accuracy_drop_max`` and
        ``recall_drop_max``, and ``accuracy_majority`` (the majority class's on the same split; NaN without a
        "majority" row).
    """
    original = fig9[fig9["method"] == "original"].iloc[0]
    by_k = fig9[fig9["method"] == "generalized"]
    majority = fig9.loc[fig9["method"] == "majority", "accuracy"]
    return dict(
        accuracy_original=float(original.accuracy),
        recall_original=float(original.recall),
        accuracy_drop_max=float(original.accuracy - by_k.accuracy.min()),
        recall_drop_max=float(original.recall - by_k.recall.min()),
        accuracy_majority=float(majority.iloc[0]) if len(majority) else float("nan"),
    )


PAPER_R = 1.3
"""The r of the paper's EST task on Adult (Section 8.2), with the prior :data:`PAPER_PRIOR_NEGATIVE`."""
PAPER_SECONDS = 2.92
"""The paper's EST runtime on Adult (C++, Pentium 4)."""
ADULT_ROWS = 32561
"""Rows of adult.data: the paper's class counts hold for all of them."""


@dataclass(frozen=True)
class Reading:
    """privnb's measurement of one claim: the text shown and whether it agrees with the paper.

    Parameters
    ----------
    text : str
        What privnb measures, in words (the claims table's "privnb value").
    holds : bool or None
        Whether the measurement agrees with the paper's claim; None when this run cannot measure it (then
        ``str(reading)`` is "n/a", which is what :meth:`privnb.experiments.Claim.verdict` reads).
    """

    text: str
    holds: bool | None

    def __str__(self) -> str:
        return NOT_MEASURED if self.holds is None else self.text


@dataclass(frozen=True)
class ClaimEvidence:
    """What the claims of MZ09 are measured on (:func:`claims_evidence` builds it).

    Parameters
    ----------
    metrics : mapping
        The notebook's metrics (see :func:`claims_table`).
    fig8 : DataFrame
        :func:`safety_transform_sweep`'s table.
    gammas : sequence of float
        The gammas of the sweep.
    alice : (float, float)
        Alice's exact posterior of 70K on Figure 1's V1 and V2 (eq. (4)).
    breaches : dict
        "strict" and "non-strict" -> the breaches of V1 and V2 for L1 = 0.5, L2 = 0.6 (Definition 1).
    k_sind : int
        Lemma 10's k of SafetyTransform on Figure 1(a).
    smallest_class : int
        The smallest class count of Figure 1(a).
    """

    metrics: Mapping
    fig8: pd.DataFrame
    gammas: Sequence[float]
    alice: tuple
    breaches: dict
    k_sind: int
    smallest_class: int

    @property
    def papers_task(self) -> bool:
        """Whether the run's prior is the paper's (75% on <=50K)."""
        return self.metrics.get("prior_negative") == PAPER_PRIOR_NEGATIVE

    @property
    def full_adult(self) -> bool:
        """Whether the views count all of adult.data (the paper's class counts hold only there)."""
        return self.metrics["p_negative"] + self.metrics["p_positive"] == ADULT_ROWS


def claims_evidence(
    metrics: Mapping, fig8: pd.DataFrame, gammas: Sequence[float], *, figure1_views: Sequence[NBCViews], alice: Mapping
) -> ClaimEvidence:
    """The evidence :data:`NBC_CLAIMS` are measured on: the run's metrics and Figure 1's worked example.

    Parameters
    ----------
    metrics, fig8, gammas, figure1_views, alice
        As in :func:`claims_table`.

    Returns
    -------
    ClaimEvidence
    """
    posteriors = tuple(float(posterior(v, alice)["70K"]) for v in figure1_views)
    breaches = {
        b: [audit(v, L1=0.5, L2=0.6, breach=b).n_breaches for v in figure1_views] for b in ("strict", "non-strict")
    }
    smallest = min(int(v) for v in figure1_views[0].class_counts)
    return ClaimEvidence(metrics, fig8, gammas, posteriors, breaches, k_sind(figure1_views[0]), smallest)


def _alice(e: ClaimEvidence) -> Reading:
    p1, p2 = e.alice
    return Reading(f"{p1:.1%}, {p2:.1%} (exact: 22/25, 7/9)", f"{p1:.0%}, {p2:.0%}" == "88%, 78%")


def _definition1(e: ClaimEvidence) -> Reading:
    strict, loose = e.breaches["strict"], e.breaches["non-strict"]
    text = f"strict (as printed): {strict[0]} and {strict[1]} breaches; non-strict: {loose[0]} and {loose[1]}"
    return Reading(text, min(strict) > 0)


def _lemma10(e: ClaimEvidence) -> Reading:
    return Reading(f"k = {e.k_sind} (the input's smallest class)", e.k_sind == e.smallest_class)


def _class_counts(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = f"{m['p_negative']} : {m['p_positive']}" + ("" if e.full_adult else " (a sample: not the paper's rows)")
    return Reading(text, (m["p_negative"], m["p_positive"]) == (24720, 7841) if e.full_adult else None)


def _min_gamma(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = (
        f"inf with zeros; {m['min_gamma_zeros_skipped']:.4g} (largest ratio {m['max_ratio_zeros_skipped']:.0f}) "
        f"without rows holding a zero; {m['min_gamma_plus_one']:.4g} with +1"
    )
    near = any(abs(g / 238 - 1) <= 0.01 for g in (m["min_gamma_zeros_skipped"], m["min_gamma_plus_one"]))
    return Reading(text, near if e.full_adult else None)


def _corollary4(e: ClaimEvidence) -> Reading:
    m = e.metrics
    if "counterexample_rows" not in m:
        return Reading("no counterexample in this search", None)
    text = (
        f"no: {m['counterexample_rows']} rows meet Corollary 4 for gamma = {m['counterexample_gamma']:g} "
        f"yet the exact audit gives r = {m['counterexample_r']:.4f} and condition (8) "
        f"{m['counterexample_condition8']:.4f}; condition (8) fails from {m['condition8_rows']} rows"
    )
    return Reading(text, False)


def _keeps_classifier(e: ClaimEvidence) -> Reading:
    return Reading(f"yes: every step checked exactly over {e.metrics['tuples']:,} tuples", True)


def _exact_audit(e: ClaimEvidence) -> Reading:
    m = e.metrics
    return Reading(f"{m['exact_audit_rows']:,} rows in {m['exact_audit_seconds']:.1f} s (hypergeometric chains)", True)


def _figure8(e: ClaimEvidence) -> Reading:
    m, fig8 = e.metrics, e.fig8
    spread = f"{fig8.r_measured.min():.4f} .. {fig8.r_measured.max():.4f}"
    audited = f"r = {spread} for gamma {min(e.gammas)} .. {max(e.gammas)}"
    if not m.get("est_figure8_runs"):
        return Reading(f"SafetyTransform vs the uniform prior (audited): {audited}", None)
    stages = m["est_figure8_failures"]
    text = (
        f"EST published for {m['est_figure8_successes']} of {m['est_figure8_runs']} gammas"
        + (f" (r >= {m['est_figure8_r_min']:.4f})" if m["est_figure8_successes"] else "")
        + (f"; failed: {stages}" if stages else "")
        + f". SafetyTransform vs the uniform prior (not Figure 8): audited {audited}"
    )
    return Reading(text, m["est_figure8_successes"] == m["est_figure8_runs"])


def _runtime(e: ClaimEvidence) -> Reading:
    m = e.metrics
    like = m.get("est_like_for_like_seconds")
    if like is not None and e.papers_task:
        return Reading(
            f"{like:.2f} s (Python; median of the successful EST runs, same prior)", like <= 10 * PAPER_SECONDS
        )
    if like is not None:
        text = (
            f"not comparable: EST publishes under prior {m.get('prior_negative', '?')} on <=50K in "
            f"{like:.2f} s, another task than the paper's (prior {PAPER_PRIOR_NEGATIVE})"
        )
        return Reading(text, None)
    text = (
        "not comparable: EST never publishes this task (prior 75%) for any gamma tried, so there is no "
        f"successful run to time (failing runs: {m['est_seconds']:.3f} s at the floor, "
        f"{m['est_seconds_full']:.2f} s to fail at merging with r = 2.5)"
    )
    return Reading(text, None)


def _est_publishes(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = (
        "publishes"
        if m["est_success"]
        else (
            f"impossible: >50K is predicted on {m['tuples_predicted_positive']:,} of {m['tuples']:,} tuples, "
            f"its posterior there is >= 1/2 vs prior 1/4, so r >= {m['est_r_lower_bound']:g} "
            "for any NBC-equivalent views with large counts (premise checked on the data)"
        )
    )
    return Reading(text, bool(m["est_success"]) if e.papers_task and m.get("est_r") == PAPER_R else None)


def _statement14(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = (
        f"needs r >= 10^{m['statement14_log10_r_s_m']:.0f} with S_M = M1/M2 = {m['lemma12_s_m']:.3f}; "
        f"10^{m['statement14_log10_r_s_min']:.3g} with the true smallest score ratio {m['min_score_ratio']:.6f}"
    )
    return Reading(text, bool(m["statement14_log10_r_s_min"] <= np.log10(283)))


def _best_r(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = (
        f"{m['r_closeness_prior_min']:.3f} measured (SafetyTransform, gamma = {min(e.gammas)}); "
        f"floor {m['r_floor_prior']:g}"
    )
    return Reading(text, m["r_closeness_prior_min"] <= PAPER_R if e.papers_task else None)


def _accuracy_drop(e: ClaimEvidence) -> Reading:
    drop = e.metrics["accuracy_drop_max"]
    return Reading(f"up to {drop:.1%}", 0.025 <= drop <= 0.10)


def _recall_drop(e: ClaimEvidence) -> Reading:
    m = e.metrics
    text = f"up to {m['recall_drop_max']:.1%} (from {m['recall_original']:.1%})"
    return Reading(text, m["recall_drop_max"] >= m["recall_original"] / 2)


_FLOOR_TEST = "tests/nbc/test_nbc_prior_floor.py"


def _definition1_reason(e: ClaimEvidence) -> Reason:
    strict, loose = e.breaches["strict"], e.breaches["non-strict"]
    why = (
        "Definition 1 as printed (strict inequalities) finds no breach in Figure 1's views with L1 = 0.5, L2 = 0.6; "
        "the non-strict reading gives the paper's verdict: privnb shows both and judges the printed one"
    )
    return Reason(
        "ambiguous", why, f"breaches of V1, V2: strict {strict[0]}, {strict[1]}; non-strict {loose[0]}, {loose[1]}"
    )


def _min_gamma_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = "the paper does not say how rows holding a zero count enter Corollary 4's gamma: no reading tried gives 238"
    shown = f"zeros skipped {m['min_gamma_zeros_skipped']:.4g}, +1 {m['min_gamma_plus_one']:.4g}; paper 238"
    return Reason("ambiguous", why, shown)


def _corollary4_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = (
        "the statement does not hold: a view set that meets Corollary 4 breaks condition (8) under the exact audit "
        "(tests/experiments/test_nbc_experiments.py::test_counterexample_report)"
    )
    shown = f"{m['counterexample_rows']} rows, gamma {m['counterexample_gamma']:g}: r = {m['counterexample_r']:.4f}"
    return Reason("unreachable", why, shown)


def _figure8_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = (
        f"EST publishes no gamma below the prior floor r >= 1 / (|C| F(c)) ({_FLOOR_TEST}); above it, Merging keeps "
        'the classifier only where Statement 14\'s condition holds (its failures say "merging")'
    )
    shown = f"published {m['est_figure8_successes']} of {m['est_figure8_runs']}; failed: {m['est_figure8_failures']}"
    return Reason("unreachable", why, f"{shown}; prior floor {m['r_floor_prior']:g}")


def _runtime_reason(e: ClaimEvidence) -> Reason:
    why = "privnb's EST is Python with an exact audit of every step; the paper's is C++ on a Pentium 4"
    return Reason("departure", why, f"{e.metrics['est_like_for_like_seconds']:.2f} s against {PAPER_SECONDS} s")


def _est_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = (
        f"no classifier-keeping release with large counts meets r = {PAPER_R} against prior 75%: the prior floor "
        f"({_FLOOR_TEST}), its premise checked on Adult's views"
    )
    shown = f"r >= {m['est_r_lower_bound']:g} (>50K predicted on {m['tuples_predicted_positive']:,} tuples)"
    return Reason("unreachable", why, shown)


def _statement14_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = (
        "Statement 14's condition on Adult needs an r far beyond the paper's range (r <= 283) "
        "(tests/bounds/test_bounds_amplification.py::test_corollary4_and_statement14)"
    )
    shown = f"log10 r >= {m['statement14_log10_r_s_min']:.3g} (true smallest score ratio); log10 283 = 2.45"
    return Reason("unreachable", why, shown)


def _best_r_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = f"no classifier-keeping release reaches an r below the prior floor ({_FLOOR_TEST})"
    return Reason("unreachable", why, f"floor {m['r_floor_prior']:g}, measured {m['r_closeness_prior_min']:.4f}")


def _generalization_reason(e: ClaimEvidence) -> Reason:
    m = e.metrics
    why = (
        "MZ09 names no hierarchies for Figure 9's k-anonymity: privnb generalizes age with ARX's table, hours per "
        "week and years of education with its own intervals, on one stratified 50/50 split per seed"
    )
    shown = f"accuracy drop up to {m['accuracy_drop_max']:.1%}, recall drop up to {m['recall_drop_max']:.1%}"
    return Reason("ambiguous", why, f"{shown} (from {m['recall_original']:.1%})")


def _claim(source, text, paper_value, measure, dataset_name="adult", reading="", reason=None) -> Claim:
    """A claim of MZ09 the paper says yes to, judged by its :class:`Reading`'s ``holds``; ``reason``: why it differs."""
    return Claim("MZ09", source, text, paper_value, measure, _holds, dataset_name, reading, _text, reason)


def _holds(reading: Reading) -> bool:
    return bool(reading.holds)


def _text(reading: Reading) -> str:
    return reading.text


NBC_CLAIMS = (
    # agrees: both posteriors round to the paper's whole percents
    _claim("Section 4, Figure 1", "Figure 1 example: posterior of Alice", "88% (V1), 78% (V2)", _alice, ""),
    # agrees: both views breach the definition as printed (strict); the non-strict count is shown beside
    _claim(
        "Section 4, Definition 1",
        "Definition 1 with L1 = 0.5, L2 = 0.6",
        "neither V1 nor V2 is safe",
        _definition1,
        "",
        reason=_definition1_reason,
    ),
    # agrees: k is the smallest class count of the input
    _claim("Section 6, Lemma 10", "Lemma 10: k-SIND of SafetyTransform on Figure 1(a)", "k = min_c P_c", _lemma10, ""),
    # agrees: the same counts on all of adult.data (n/a on a sample)
    _claim("Section 8.1", "Adult: class counts", "24720 : 7841 (F~ about 3)", _class_counts),
    # agrees: one of the readings (zeros skipped, +1) gives 238 within 1%
    _claim("Section 8.1", "minimum gamma of Corollary 4", "238", _min_gamma, reason=_min_gamma_reason),
    # agrees: the seeded search finds no view set that meets Corollary 4 and breaks condition (8)
    _claim(
        "Section 5, Lemma 3, Corollary 4",
        "Corollary 4 blocks amplification gamma (condition (8))",
        "yes (Lemma 3, Corollary 4)",
        _corollary4,
        "",
        reason=_corollary4_reason,
    ),
    # agrees: every published view set is NBC-equivalent to the input (checked, else the run fails)
    _claim("Section 6", "SafetyTransform keeps the classifier", "yes (proof)", _keeps_classifier),
    # agrees: the exact posterior of every value is computed (no sampling)
    _claim(
        "Section 8.1",
        "exact audit of every quasi-identifier value (1-3 attributes)",
        "combinatorial counting of all instances",
        _exact_audit,
    ),
    # agrees: EST publishes for every gamma tried (its output then meets r = gamma, audited)
    _claim(
        "Section 8.1, Figure 8",
        "achieved r-closeness well below the bound",
        "yes (Figure 8: EST, prior F~ about 3, 1 < gamma <= 283)",
        _figure8,
        reason=_figure8_reason,
    ),
    # agrees: a successful EST run of the paper's task takes at most ten times the paper's time
    _claim("Section 8", "EST runtime on Adult", f"{PAPER_SECONDS} s (C++, P4)", _runtime, reason=_runtime_reason),
    # agrees: EST publishes with the paper's prior and r
    _claim(
        "Section 8.2",
        "EST with prior 75% and r = 1.3",
        "publishes (Figure 9's red bar)",
        _est_publishes,
        reason=_est_reason,
    ),
    # agrees: the r Statement 14 needs is within the paper's range (r <= 283)
    _claim(
        "Section 7, Statement 14",
        "Statement 14 for Adult (F~ = 3)",
        "EST applicable in practice",
        _statement14,
        reason=_statement14_reason,
    ),
    # agrees: some classifier-keeping release measures r <= 1.3 against the paper's prior
    _claim(
        "Section 8.2", "best r-closeness w.r.t. prior 75% keeping accuracy", "r = 1.3", _best_r, reason=_best_r_reason
    ),
    # agrees: the largest drop lies within a factor of two of 5% (2.5% to 10%)
    _claim(
        "Section 8.2, Figure 9(a)",
        "accuracy drop with k-anonymity",
        "about 5%",
        _accuracy_drop,
        reason=_generalization_reason,
    ),
    # agrees: some k loses at least half of the original recall
    _claim(
        "Section 8.2, Figure 9(b)",
        "recall (>50K) drop with k-anonymity",
        "dramatic",
        _recall_drop,
        reason=_generalization_reason,
    ),
)
"""The claims of MZ09, each a :class:`privnb.experiments.Claim` the paper says yes to, measured as a
:class:`Reading` on :class:`ClaimEvidence` (the comment above each says when privnb agrees)."""


def claims_table(
    metrics: Mapping, fig8: pd.DataFrame, gammas: Sequence[float], *, figure1_views: Sequence[NBCViews], alice: Mapping
) -> pd.DataFrame:
    """The claims of MZ09 measured by privnb and judged: :data:`NBC_CLAIMS` evaluated in the one claims schema
    (:data:`privnb.experiments.CLAIM_COLUMNS`).

    A verdict is "n/a" where this run cannot measure the claim: a sample of Adult for its class counts, another
    prior or r than the paper's task, no counterexample search, no successful EST run to time.

    Parameters
    ----------
    metrics : mapping
        The notebook's metrics: :func:`corollary4_report`'s, :func:`exact_audits`', :func:`figure8_metrics`',
        :attr:`ESTExperiment.metrics`, :func:`figure9_metrics`' and ``p_negative``, ``p_positive``; optionally
        :func:`figure8_est_metrics`' and :func:`counterexample_report`'s, and ``prior_negative`` (the EST
        timing is compared with the paper's 2.92 s only for a successful run under the paper's prior).
    fig8 : DataFrame
        :func:`safety_transform_sweep`'s table.
    gammas : sequence of float
        The gammas of the sweep (their range is printed as given).
    figure1_views : pair of NBCViews
        Figure 1's V1 and V2; Alice's exact posterior of 70K on each (eq. (4)) is the first claim
        (Section 1: 88% and 78%).
    alice : mapping
        Bob's knowledge of Alice, attribute -> value.

    Returns
    -------
    DataFrame
        One row per claim, the columns :data:`privnb.experiments.CLAIM_COLUMNS`.
    """
    evidence = claims_evidence(metrics, fig8, gammas, figure1_views=figure1_views, alice=alice)
    return evaluate(NBC_CLAIMS, evidence)
