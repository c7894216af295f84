"""Section 8 of seed 004 (Mozafari & Zaniolo): the headline metrics and the claims table of the Adult experiments.

- :func:`figure8_est_metrics`, :func:`figure8_metrics`: headline numbers of Figure 8 (EST) and of the
  SafetyTransform sweep (:func:`~privnb.experiments.nbc.figure8_est`,
  :func:`~privnb.experiments.nbc.safety_transform_sweep`).
- :func:`figure9_metrics`: headline numbers of Figure 9 (:func:`~privnb.experiments.nbc.figure9`).
- :func:`claims_table`: the paper's claims beside ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from privnb.experiments.nbc import PAPER_PRIOR_NEGATIVE
from privnb.nbc.exact_audit import audit, posterior
from privnb.nbc.safety import k_sind
from privnb.nbc.views import NBCViews


def figure8_est_metrics(table: pd.DataFrame) -> dict:
    """Headline numbers of :func:`figure8_est`: ``est_figure8_successes``, ``est_figure8_runs``, the failures
    by stage (``est_figure8_failures``, e.g. "1 at prior floor, 2 at merging"), ``est_like_for_like_seconds``
    (the median time of the successful runs: the like-for-like comparison with the paper's 2.92 s; None when EST
    never published) and ``est_figure8_r_min`` (the smallest achieved r; None likewise).
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
    """Headline numbers of Figure 8 (seed 004) from :func:`safety_transform_sweep`'s table.

    ``r_closeness_at_max_gamma`` (last row), ``r_closeness_prior_min``, ``r_floor_prior`` (``r_floor``) and
    ``safety_transform_seconds`` (median fit time).
    """
    return dict(
        r_closeness_at_max_gamma=float(fig8.r_measured.iloc[-1]),
        r_closeness_prior_min=float(fig8.r_measured_prior.min()),
        r_floor_prior=r_floor,
        safety_transform_seconds=float(fig8.seconds.median()),
    )


def figure9_metrics(fig9: pd.DataFrame) -> dict:
    """Headline numbers of Figure 9 (seed 004) from :func:`figure9`'s table (its first row is the original NBC).

    ``accuracy_original``, ``recall_original`` and the largest drops over k, ``accuracy_drop_max`` and
    ``recall_drop_max``.
    """
    best_k = fig9.iloc[1:]
    return dict(
        accuracy_original=float(fig9.accuracy[0]),
        recall_original=float(fig9.recall[0]),
        accuracy_drop_max=float(fig9.accuracy[0] - best_k.accuracy.min()),
        recall_drop_max=float(fig9.recall[0] - best_k.recall.min()),
    )


def claims_table(
    metrics: Mapping, fig8: pd.DataFrame, gammas: Sequence[float], *, figure1_views: Sequence[NBCViews], alice: Mapping
) -> pd.DataFrame:
    """The claims of seed 004 beside ours: columns "claim", "paper", "ours".

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
    """
    p1, p2 = (float(posterior(v, alice)["70K"]) for v in figure1_views)
    readings = {
        b: [audit(v, L1=0.5, L2=0.6, breach=b).n_breaches for v in figure1_views] for b in ("strict", "non-strict")
    }
    m = metrics
    if m.get("est_figure8_runs"):
        stages = m["est_figure8_failures"]
        fig8_ours = (
            f"EST published for {m['est_figure8_successes']} of {m['est_figure8_runs']} gammas"
            + (f" (r >= {m['est_figure8_r_min']:.4f})" if m["est_figure8_successes"] else "")
            + (f"; failed: {stages}" if stages else "")
            + f". SafetyTransform vs the uniform prior (not Figure 8): audited r = {fig8.r_measured.min():.4f}"
            f" .. {fig8.r_measured.max():.4f} for gamma {min(gammas)} .. {max(gammas)}"
        )
    else:
        fig8_ours = (
            f"SafetyTransform vs the uniform prior (audited): r = {fig8.r_measured.min():.4f} .. "
            f"{fig8.r_measured.max():.4f} for gamma {min(gammas)} .. {max(gammas)}"
        )
    papers_task = m.get("prior_negative") == PAPER_PRIOR_NEGATIVE
    if m.get("est_like_for_like_seconds") is not None and papers_task:
        runtime = f"{m['est_like_for_like_seconds']:.2f} s (Python; median of the successful EST runs, same prior)"
    elif m.get("est_like_for_like_seconds") is not None:
        runtime = (
            f"not comparable: EST publishes under prior {m.get('prior_negative', '?')} on <=50K in "
            f"{m['est_like_for_like_seconds']:.2f} s, another task than the paper's (prior "
            f"{PAPER_PRIOR_NEGATIVE})"
        )
    else:
        runtime = (
            "not comparable: EST never publishes this task (prior 75%) for any gamma tried, so there is no "
            f"successful run to time (failing runs: {m['est_seconds']:.3f} s at the floor, "
            f"{m['est_seconds_full']:.2f} s to fail at merging with r = 2.5)"
        )
    if "counterexample_rows" in m:
        c4 = (
            f"no: {m['counterexample_rows']} rows meet Corollary 4 for gamma = {m['counterexample_gamma']:g} "
            f"yet the exact audit gives r = {m['counterexample_r']:.4f} and condition (8) "
            f"{m['counterexample_condition8']:.4f}; condition (8) fails from {m['condition8_rows']} rows"
        )
    else:
        c4 = "no counterexample in this search"
    return pd.DataFrame(
        [
            ["Figure 1 example: posterior of Alice", "88% (V1), 78% (V2)", f"{p1:.1%}, {p2:.1%} (exact: 22/25, 7/9)"],
            [
                "Definition 1 with L1 = 0.5, L2 = 0.6",
                "neither V1 nor V2 is safe",
                (
                    f"strict (as printed): {readings['strict'][0]} and {readings['strict'][1]} breaches; "
                    f"non-strict: {readings['non-strict'][0]} and {readings['non-strict'][1]}"
                ),
            ],
            [
                "Lemma 10: k-SIND of SafetyTransform on Figure 1(a)",
                "k = min_c P_c",
                f"k = {k_sind(figure1_views[0])} (the input's smallest class)",
            ],
            ["Adult: class counts", "24720 : 7841 (F~ about 3)", f"{m['p_negative']} : {m['p_positive']}"],
            [
                "minimum gamma of Corollary 4",
                "238",
                (
                    f"inf with zeros; {m['min_gamma_zeros_skipped']:.4g} "
                    f"(largest ratio {m['max_ratio_zeros_skipped']:.0f}) "
                    f"without rows holding a zero; {m['min_gamma_plus_one']:.4g} with +1"
                ),
            ],
            ["Corollary 4 blocks amplification gamma (condition (8))", "yes (Lemma 3, Corollary 4)", c4],
            [
                "SafetyTransform keeps the classifier",
                "yes (proof)",
                f"yes: every step checked exactly over {m['tuples']:,} tuples",
            ],
            [
                "exact audit of every quasi-identifier value (1-3 attributes)",
                "combinatorial counting of all instances",
                f"{m['exact_audit_rows']:,} rows in {m['exact_audit_seconds']:.1f} s (hypergeometric chains)",
            ],
            [
                "achieved r-closeness well below the bound",
                "yes (Figure 8: EST, prior F~ about 3, 1 < gamma <= 283)",
                fig8_ours,
            ],
            ["EST runtime on Adult", "2.92 s (C++, P4)", runtime],
            [
                "EST with prior 75% and r = 1.3",
                "publishes (Figure 9's red bar)",
                "publishes"
                if m["est_success"]
                else (
                    f"impossible: >50K is predicted on {m['tuples_predicted_positive']:,} of {m['tuples']:,} tuples, "
                    f"its posterior there is >= 1/2 vs prior 1/4, so r >= {m['est_r_lower_bound']:g} "
                    "for any NBC-equivalent views with large counts (premise checked on the data)"
                ),
            ],
            [
                "Statement 14 for Adult (F~ = 3)",
                "EST applicable in practice",
                (
                    f"needs r >= 10^{m['statement14_log10_r_s_m']:.0f} with S_M = M1/M2 = {m['lemma12_s_m']:.3f}; "
                    f"10^{m['statement14_log10_r_s_min']:.3g} with the true smallest score ratio "
                    f"{m['min_score_ratio']:.6f}"
                ),
            ],
            [
                "best r-closeness w.r.t. prior 75% keeping accuracy",
                "r = 1.3",
                (
                    f"{m['r_closeness_prior_min']:.3f} measured (SafetyTransform, gamma = {min(gammas)}); "
                    f"floor {m['r_floor_prior']:g}"
                ),
            ],
            ["accuracy drop with k-anonymity", "about 5%", f"up to {m['accuracy_drop_max']:.1%}"],
            [
                "recall (>50K) drop with k-anonymity",
                "dramatic",
                f"up to {m['recall_drop_max']:.1%} (from {m['recall_original']:.1%})",
            ],
        ],
        columns=["claim", "paper", "ours"],
    )
