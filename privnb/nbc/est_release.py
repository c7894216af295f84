"""EST (Section 6 of MZ09): publishing NBC views that are r-close to a given prior, through Split,
SafetyTransform and Merging, with the lower bound that a prior puts on r.
"""

from __future__ import annotations

import itertools
import math
import numbers
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.nbc._roots import precision_bits, rounded_roots, score_bound
from privnb.nbc.audit_memory import AuditTooLarge
from privnb.nbc.exact_audit import achieved_r, check_prior
from privnb.nbc.prior_floor import PriorFloor, prior_floor
from privnb.nbc.safety import (
    corollary4_gamma,
    natural_log,
    restored_integers,
    smallest_integers,
    step1_remove_zeros,
    step4_integers,
)
from privnb.nbc.views import NBCViews, count_tables, min_score_ratio, nbc_equivalent, score_signs
from privnb.validation import as_fraction


# ---------------------------------------------------------------------------------------------- EST
def resolve_ties(views: NBCViews) -> NBCViews:
    """EST's first step: multiply every ``N`` of the class of rank ``j`` by ``1 + j eps`` so that every
    tie goes strictly to the larger label and no strict order changes (Section 7.2).

    ``eps`` comes from the integer gap bound (Statement 8). Needs positive counts (Step 1 first).
    """
    if any(v == 0 for v in views.all_counts()):
        raise ValueError("ties between zero scores cannot be broken by scaling; run step1_remove_zeros first")
    n, n_classes = views.n_attributes, len(views.labels)
    eps = Fraction(1, 2 ** ((4 * n * n_classes * (score_bound(views) + 1)).bit_length()))
    factors = [1 + c * eps for c in range(n_classes)]
    tables = [[[v * f for v, f in zip(row, factors)] for row in t] for t in count_tables(views)]
    return views.with_counts(list(views.class_counts), tables)


def _prior_multiples(prior: pd.Series) -> list[int]:
    """``F(c) = F * F_c`` with F the greatest common divisor of the prior (Split, Section 7.2)."""
    return smallest_integers(prior)


def split(views: NBCViews, multiples: Mapping, *, power: int = 1) -> NBCViews:
    """Definition 6's split of ``views**power``: label c becomes sub-labels (c, 1..F_c) with counts
    divided by F_c (exact; meant for small inputs, EST itself never materializes the power).

    Parameters
    ----------
    views : NBCViews
        The views to split; every count is raised to ``power`` first.
    multiples : Mapping label -> int
        ``F_c``, the number of sub-labels of each label.
    power : int
        The exponent ``alpha`` the counts are raised to before they are divided (default 1).

    Returns
    -------
    NBCViews
        Views over the sub-labels ``(c, j)``, ``j = 1..F_c``, with exact Fraction counts.
    """
    labels, p, tables = [], [], []
    f = [int(multiples[label]) for label in views.labels]
    frames = count_tables(views)
    for c, label in enumerate(views.labels):
        for j in range(1, f[c] + 1):
            labels.append((label, j))
            p.append(Fraction(views.class_counts[label]) ** power / f[c])
    for t in frames:
        tables.append([[Fraction(row[c]) ** power / f[c] for c in range(len(f)) for _ in range(f[c])] for row in t])
    counts = {
        a: pd.DataFrame(tab, index=views.counts[a].index, columns=pd.Index(labels, tupleize_cols=False))
        for a, tab in zip(views.attributes, tables)
    }
    return NBCViews(pd.Series(p, index=pd.Index(labels, tupleize_cols=False), dtype=object), counts)


def merge(views: NBCViews, labels) -> NBCViews:
    """Definition 6's merging of sub-labels ``(c, j)`` back to c: ``|Psi^-1(c)| * min`` of their counts.

    Parameters
    ----------
    views : NBCViews
        Views over sub-labels ``(c, j)`` (as :func:`split` makes them).
    labels : sequence of labels
        The original labels c, in the order the merged views list them; they must be exactly the
        first components of the sub-labels (otherwise ValueError).
    """
    groups: dict = {}
    for sub in views.labels:
        groups.setdefault(sub[0], []).append(sub)
    if sorted(groups) != sorted(labels):
        raise ValueError(f"the sub-labels map to {sorted(groups)}, expected {sorted(labels)}")
    p = [len(groups[c]) * min(views.class_counts[s] for s in groups[c]) for c in labels]
    counts = {}
    for a, frame in views.counts.items():
        counts[a] = pd.DataFrame(
            {c: [len(groups[c]) * min(row[s] for s in groups[c]) for _, row in frame.iterrows()] for c in labels},
            index=frame.index,
        )
    return NBCViews(pd.Series(p, index=list(labels), dtype=object), counts)


@dataclass
class ESTResult:
    """The outcome of :func:`est`: published views, or a failure with its reason (Figure 7)."""

    success: bool
    reason: str
    views: NBCViews | None = None
    r: float = math.nan
    achieved_r: float = math.nan
    power: int | None = None
    k: int | None = None
    multiples: dict = field(default_factory=dict)
    seconds: float = math.nan
    r_lower_bound: float = math.nan

    def __bool__(self) -> bool:
        return self.success


def winning_labels(views: NBCViews) -> pd.Series:
    """For each label, on how many tuples of the product of domains the NBC predicts it (eq. (2), ties to
    the larger label; exact).
    """
    signs = score_signs(views)  # sign(X_a - X_b) for a < b
    n_classes = len(views.labels)
    wins = np.ones((signs.shape[0], n_classes), dtype=bool)
    for column, (a, b) in enumerate(itertools.combinations(range(n_classes), 2)):
        wins[:, a] &= signs[:, column] > 0
        wins[:, b] &= signs[:, column] <= 0
    return pd.Series(wins.sum(axis=0), index=list(views.labels))


def _prior_bound(views: NBCViews, f: pd.Series) -> tuple[float, object, pd.Series]:
    """(bound, the label that sets it, wins per label) for :func:`prior_r_lower_bound`."""
    wins = winning_labels(views)
    label = min((c for c in views.labels if wins[c] > 0), key=lambda c: f[c])
    return 1 / (len(views.labels) * float(f[label])), label, wins


def prior_r_lower_bound(views: NBCViews, prior) -> float:
    """The smallest r any NBC-equivalent publication with large counts can meet (Definition 5).

    For the full tuple tau as quasi-identifier the posterior of eq. (4) is the normalized score
    ``X_{tau,c} / sum_c' X_{tau,c'}`` (``E[K_c] = X_{tau,c}``; exact to float64 precision once the counts
    are large, as EST's and SafetyTransform's are), so the label the classifier predicts has posterior at
    least ``1/|C|``. Keeping the classifier therefore forces ``r >= max_c 1 / (|C| F(c))`` over the labels
    ``c`` predicted for some tuple.

    The bound holds for published views exactly when some tuple where they predict ``c`` has exact
    posterior ``>= 1/|C|`` (:func:`privnb.nbc.prior_floor.prior_floor` checks it with the exact audit): always
    for large counts, not in general for small ones, where the floor can be beaten.

    Parameters
    ----------
    views : NBCViews
        The views whose classifier must be kept.
    prior : Mapping label -> probability, or None
        The prior of Definition 5, strictly positive and summing to 1; None is the uniform prior (read by
        :func:`privnb.nbc.exact_audit.check_prior`).

    Returns
    -------
    float
        The floor ``1 / (|C| F(c))``, ``F(c)`` the prior of the label that sets it.
    """
    return _prior_bound(views, check_prior(prior, views.labels))[0]


def _split_power(base: NBCViews, f_max: int, max_power: int) -> tuple[int | None, str]:
    """Split's power ``alpha`` (Lemma 12 with the true smallest score ratio): the smallest whose ratio
    exceeds ``F~``; None and the reason when it would exceed ``max_power``.
    """
    if f_max == 1:
        return 1, ""
    ratio = min_score_ratio(base)
    log_ratio = natural_log(ratio)
    if log_ratio * max_power <= math.log(f_max):
        return None, (
            f"Split needs the counts raised to a power above max_power={max_power}: the smallest "
            f"score ratio is 1 + {float(ratio - 1):.6g} against F~={f_max} (Lemma 12)"
        )
    power = math.floor(math.log(f_max) / log_ratio) + 1
    while power * log_ratio <= math.log(f_max):
        power += 1
    return power, ""


def _root_degree(base: NBCViews, power: int, f_max, r) -> int:
    """Step 2's root degree ``k >= n (2n + 3) log w / log r`` for the split views (w: their count ratio)."""
    n = base.n_attributes
    logs = [natural_log(v) for v in base.all_counts()]
    log_w = power * (max(logs) - min(logs)) + math.log(f_max)
    return max(1, math.ceil(n * (2 * n + 3) * log_w / math.log(r)))


def _transform_and_merge(views, base, r, power: int, divisors: list, k: int) -> tuple[NBCViews | None, int, str]:
    """SafetyTransform's Step 2 on the sub-labels with gamma = r, then Merging (Definition 6): the merged
    views, the root degree used and "" when they keep the classifier, else None, the degree and why not.
    """
    # Statement 8's bound for the raised counts would need ~alpha times the bits; start from the
    # unraised bound and let the exact check below ask for more.
    bits = precision_bits(base, k) + 64
    ranks = range(len(base.labels))
    for _ in range(8):
        p, tables, shift = rounded_roots(base, k, bits, ranks=ranks, power=power, divisors=divisors)
        # Step 3's counts times their common denominator, which no ratio or score comparison sees
        p, tables, _ = restored_integers(p, tables, 1 << shift)
        sub = base.with_counts(p, tables)
        if corollary4_gamma(sub) > as_fraction(r):  # the sub-labels must meet Corollary 4 for r
            k += max(1, k // 4)
            continue
        # Merging: the F_c identical sub-labels of c become F_c times their counts (Definition 6).
        merged = base.with_counts(
            [v * d for v, d in zip(p, divisors)],
            [[[v * d for v, d in zip(row, divisors)] for row in t] for t in tables],
        )
        if nbc_equivalent(views, merged):
            return merged, k, ""
        if nbc_equivalent(views, sub):  # the sub-labels keep the classifier: merging is at fault
            return (
                None,
                k,
                (
                    "merging the sub-labels does not preserve the classifier (Lemma 12 / Statement 14): "
                    f"with alpha={power} and k={k}, the factors F_c^(1-1/k) outweigh the score gaps; "
                    "ask for a larger r"
                ),
            )
        bits *= 2  # rounding was at fault: more precision
    return None, k, "Step 2's rounding could not keep the classifier; please report this"


def _floor_failure(views: NBCViews, f, r, prior_bound, floor: PriorFloor | None) -> str:
    """Why EST fails at once, ``r`` lying below the prior floor whose premise the exact audit checked on the
    data (Definition 5 of MZ09); ``""`` when it goes on (the premise not met on the data, small counts: the exact
    audit of its output decides). ``prior_bound`` is :func:`_prior_bound`'s; ``floor``, when given, must be its.
    """
    bound, c, wins = prior_bound
    if floor is not None and (floor.bound != bound or floor.label != c):
        raise ValueError(
            f"floor is the prior floor {floor.bound:g} of label {floor.label!r}, but these views and prior have "
            f"{bound:g} of label {c!r}: pass prior_floor(views, prior) of the same views and prior, or None"
        )
    if r >= bound:
        return ""
    floor = floor if floor is not None else prior_floor(views, f)
    if not floor.holds:
        return ""
    return (
        f"no NBC-equivalent publication with large counts (as EST's) meets r={r}: the classifier "
        f"predicts {c!r} on {wins[c]} of {int(wins.sum())} tuples, where with large counts the "
        f"posterior given the whole tuple is its normalized score >= 1/{len(views.labels)} against a "
        f"prior of {float(f[c]):.4g}, so r >= {bound:.4g} (Definition 5). Premise checked on these "
        f"views: {floor.describe(len(views.labels))}"
    )


@shared_doc
def est(
    views: NBCViews,
    prior,
    r,
    *,
    random_state=None,
    max_power: int = 10**7,
    audit_result: bool = True,
    floor: PriorFloor | None = None,
    memory_limit: int | None = None,
) -> ESTResult:
    """EST (Figure 7 of MZ09): views that keep the classifier and meet r-closeness w.r.t. ``prior``.

    First, the floor of :func:`prior_r_lower_bound`: no classifier-keeping publication with large counts (as
    EST's are) can meet an r below it, so EST fails at once, once :func:`privnb.nbc.prior_floor.prior_floor`
    has checked the floor's premise on the data with the exact audit (otherwise EST goes on and the exact
    audit of its output decides). Steps: Step 1 (zeros must go before ties can be broken),
    tie resolution, Split of the counts raised to ``alpha`` into ``F_c`` sub-labels per label (``alpha`` the
    smallest power whose exact smallest score ratio exceeds ``F~``: Lemma 12 with the true ratio instead of
    ``M1/M2``), SafetyTransform on the sub-labels with gamma = r (the sub-labels of one label stay identical, so
    they share Step 2's rounding), Merging (Definition 6), then Steps 3-4. The merged views are checked exactly for
    NBC-equivalence with the input; when it fails (Statement 14's condition does not hold) the result is a failure
    with its reason, never a non-equivalent classifier. The achieved r is measured with the exact
    :func:`privnb.nbc.exact_audit.audit`.

    Parameters
    ----------
    views : NBCViews
        The views to publish (the classifier they define is kept).
    prior : Mapping label -> probability
        Strictly positive, summing to 1 (floats are read as the nearest fraction with denominator <= 1e6).
    r : float
        The requested r-closeness, > 1.
    random_state : int, RandomState or None
        For the values that replace zeros (Step 1).
        {random_state}
    max_power : int
        Largest Split power ``alpha`` tried before EST gives up.
    audit_result : bool
        Measure the achieved r with the exact audit and fail rather than publish above ``r`` (default).
        False skips the audit: ``achieved_r`` is NaN and r-closeness is then not verified.
    floor : PriorFloor, optional
        ``prior_floor(views, prior)`` when already computed (a sweep over r computes it once); used only when
        ``r`` is below the floor, and a floor of another bound or label is refused with a ``ValueError``.
    memory_limit : int, optional
        Bytes the audit may take (default :data:`~privnb.nbc.AUDIT_MEMORY_BUDGET`); above it: a failure.

    References
    ----------
    .. [1] Mozafari and Zaniolo, "Publishing Naive Bayesian Classifiers: Privacy without Accuracy Loss",
       PVLDB, 2009 (MZ09; the extracted text omits title, authors and venue: from the papers' index).
    """
    start = time.perf_counter()
    if not isinstance(r, numbers.Real) or not r > 1:
        raise ValueError(f"r must be a real number > 1 (Definition 5), got {r!r}")
    f = check_prior(prior, views.labels)
    multiples = dict(zip(views.labels, _prior_multiples(f)))

    def fail(reason, **extra):
        return ESTResult(False, reason, r=float(r), multiples=multiples, seconds=time.perf_counter() - start, **extra)

    if len(views.labels) < 2:
        return fail("a single label: nothing to protect")
    bound, c, wins = _prior_bound(views, f)
    reason = _floor_failure(views, f, r, (bound, c, wins), floor)
    if reason:
        return fail(reason, r_lower_bound=bound)
    base = resolve_ties(step1_remove_zeros(views, random_state=random_state))
    f_max = max(multiples.values())
    power, reason = _split_power(base, f_max, max_power)
    if power is None:
        return fail(reason, r_lower_bound=bound)
    divisors, k = [multiples[label] for label in base.labels], _root_degree(base, power, f_max, r)
    merged, k, reason = _transform_and_merge(views, base, r, power, divisors, k)
    if merged is None:
        return fail(reason, power=power, k=k, **({"r_lower_bound": bound} if reason.startswith("merging") else {}))
    published = step4_integers(merged)
    try:
        achieved = achieved_r(published, f, memory_limit=memory_limit) if audit_result else math.nan
    except AuditTooLarge as error:
        return fail(f"the exact audit of its output is out of reach (raise the audit's memory budget): {error}")
    if achieved > r:  # never publish above the requested r-closeness (NaN when the audit was skipped)
        return fail(
            f"the exact audit measures r-closeness {achieved:.6g} > r={r}: not published",
            power=power,
            k=k,
            r_lower_bound=bound,
        )
    return ESTResult(
        True,
        "",
        published,
        r=float(r),
        achieved_r=achieved,
        power=power,
        k=k,
        multiples=multiples,
        seconds=time.perf_counter() - start,
        r_lower_bound=bound,
    )
