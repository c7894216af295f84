"""Corollary 4 of MZ09 does not imply the amplification condition (8): a seeded search for view sets
that meet Corollary 4 for gamma and still let the exact adversary (eq. (4)) move a posterior by more than
gamma.

Why it can happen: the NBC-enabling views fix ``E[K_c] = P_c prod_{i in I} N^i_{t_i,c} / P_c``, so for a
quasi-identifier of ``|I|`` attributes ``E[K_c] / E[K_c']`` is a product of ``|I|`` ratios of ``N`` and of
``(P_c' / P_c)^(|I| - 1)``: under Corollary 4 (each ratio at most ``gamma^(1/n)``) it reaches
``gamma^((2|I| - 1) / n)``, which exceeds gamma once ``|I| = n >= 2``. Lemma 3's ``|I|``-th root bound
misses the ``P`` factor (SafetyTransform itself is safe: Figure 2 asks Step 2 for ``gamma^(1/(2n+3))``).

:func:`corollary4_counterexamples` draws small random two-attribute, two-class views, screens them with a
vectorized exact posterior (two independent hypergeometric counts per quasi-identifier value), and confirms
every candidate with :func:`privnb.nbc.exact_audit.achieved_r`, the audit itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import hypergeom
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.nbc.exact_audit import AuditResult, achieved_r, audit
from privnb.nbc.safety import corollary4_gamma
from privnb.nbc.views import NBCViews


def two_attribute_views(p, a, b) -> NBCViews:
    """Views over attributes ``A`` (values ``a0, a1, ..``), ``B`` (``b0, ..``) and labels 0, 1 from literal
    counts: ``p = [P_0, P_1]``, ``a[t] = [N^A_{t,0}, N^A_{t,1}]``, ``b[t]`` likewise.

    Parameters
    ----------
    p : sequence of int
        The class counts ``P_c``, one per label (labels are ``0 .. len(p) - 1``).
    a, b : sequence of sequences of int
        The count tables of ``A`` and ``B``: one row per value, one count per label.
    """
    labels = list(range(len(p)))
    counts = {
        name: pd.DataFrame(
            [list(row) for row in rows], index=[f"{name.lower()}{t}" for t in range(len(rows))], columns=labels
        )
        for name, rows in (("A", a), ("B", b))
    }
    return NBCViews(pd.Series(list(p), index=labels), counts)


def _compositions(rng, totals: np.ndarray, n_values: int) -> np.ndarray:
    """Random positive parts ``(views, n_values)`` summing to ``totals`` (each part >= 1)."""
    rest = totals - n_values
    parts = np.empty((len(totals), n_values), dtype=np.int64)
    for v in range(n_values - 1):
        x = rng.binomial(rest, 1.0 / (n_values - v))
        parts[:, v] = 1 + x
        rest = rest - x
    parts[:, -1] = 1 + rest
    return parts


def _screen(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float posteriors of eq. (4) for every view (vectorized): the largest ``max(ratio, 1/ratio)`` against
    the uniform prior (Definition 5's r), the largest posterior ratio between the classes (condition (8)) and
    the largest posterior-to-prior ratio itself.

    ``p`` (views, 2), ``a`` (views, values, 2), ``b`` likewise. Alone, a value fixes its rows (K = N); for
    ``<a_t, b_u>`` each ``K_c ~ HG(P_c, N^B_{u,c}, N^A_{t,c})``, independent across classes.
    """
    posts = [a / a.sum(axis=2, keepdims=True), b / b.sum(axis=2, keepdims=True)]
    k = np.arange(int(a.max()) + 1)
    # pmf[view, t, u, class, k]
    pmf = hypergeom.pmf(
        k[None, None, None, None, :], p[:, None, None, :, None], b[:, None, :, :, None], a[:, :, None, :, None]
    )
    pmf = np.nan_to_num(pmf)
    k0, k1 = k[:, None], k[None, :]
    total = k0 + k1
    share = np.divide(k0, total, out=np.zeros(total.shape), where=total > 0)
    joint = pmf[..., 0, :, None] * pmf[..., 1, None, :]
    some = 1 - joint[..., 0, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        first = (joint * share).sum(axis=(-2, -1)) / some
    pair = np.stack([first, 1 - first], axis=-1)
    posts.append(pair.reshape(len(p), -1, 2))
    post = np.concatenate([x.reshape(len(p), -1, 2) for x in posts], axis=1)
    with np.errstate(divide="ignore"):
        ratio = 2 * post
        r = np.nanmax(np.maximum(ratio, 1 / ratio), axis=(1, 2))
        cond8 = np.nanmax(np.maximum(post[..., 0] / post[..., 1], post[..., 1] / post[..., 0]), axis=1)
    return r, cond8, np.nanmax(ratio, axis=(1, 2))


def condition8_ratio(views) -> float:
    """The largest ``P2^{c,I'} / P2^{c',I'}`` over every quasi-identifier value and pair of labels: the
    left side of condition (8) of MZ09, from the exact audit.

    ``views`` is an :class:`NBCViews` (audited here) or an :class:`AuditResult` already computed.
    """
    result = views if isinstance(views, AuditResult) else audit(views)
    properties = result.properties
    n_labels = sum(len(q) == 1 for q in properties)
    # one block of rows per quasi-identifier value, its properties in order: the single labels first
    post = result.table["posterior"].to_numpy(dtype=float).reshape(-1, len(properties))[:, :n_labels]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = post[:, :, None] / post[:, None, :]
    return float(np.nanmax(ratios))


@shared_doc
def corollary4_counterexamples(
    n_views: int = 20_000,
    *,
    n_values: int = 2,
    max_count: int = 6,
    max_audits: int = 50,
    criterion: str = "r",
    random_state=None,
) -> pd.DataFrame:
    """Search small random views that meet Corollary 4 for gamma yet have an audited r-closeness above gamma.

    Parameters
    ----------
    n_views : int
        Random view sets drawn: two attributes ``A``, ``B`` of ``n_values`` values, labels 0 and 1, every
        ``N^A_{t,c}`` uniform on ``1..max_count``, ``P_c = sum_t N^A_{t,c}``, ``N^B_{.,c}`` a random
        positive composition of ``P_c`` (no zero count: Corollary 4 needs none).
    n_values, max_count : int
        Domain size of each attribute; largest count of ``A``.
    max_audits : int
        Candidates (smallest first) confirmed with the exact audit.
    criterion : {"r", "upward", "condition8"}
        ``"r"`` (default): the audited r-closeness of Definition 5 (uniform prior) exceeds gamma, the bound
        the paper's chain Corollary 4 -> (8) -> Statement 11 promises, and the stronger failure (for two
        labels, r > gamma forces condition (8) above gamma). ``"condition8"``: the largest posterior ratio
        between two labels exceeds gamma, condition (8) itself (smaller examples exist). ``"upward"``: a
        posterior-to-prior ratio ``P2/P1`` itself exceeds gamma (with two labels and the uniform prior it is
        at most 2, so only gammas below 2 qualify: larger counts are needed).
    random_state : int, RandomState or None
        Seeds the random view sets.
        {random_state}

    Returns
    -------
    DataFrame
        One row per confirmed counterexample, smallest ``rows`` (``sum_c P_c``) first, then the largest
        ``r / gamma``: ``rows``, ``gamma`` (the smallest gamma of Corollary 4, exact as a float),
        ``r_audit`` (:func:`achieved_r`, uniform prior), ``upward`` (the largest audited ``P2/P1``),
        ``condition8`` (:func:`condition8_ratio`), ``p``,
        ``a``, ``b`` (the counts as lists, for :func:`two_attribute_views`).
    """
    if n_values < 2 or max_count < 1 or n_views < 1:
        raise ValueError("need n_values >= 2, max_count >= 1 and n_views >= 1")
    if criterion not in ("r", "upward", "condition8"):
        raise ValueError(f"criterion must be 'r', 'upward' or 'condition8', got {criterion!r}")
    rng = check_random_state(random_state)
    a = rng.randint(1, max_count + 1, size=(n_views, n_values, 2))
    p = a.sum(axis=1)
    b = np.stack([_compositions(rng, p[:, c], n_values) for c in range(2)], axis=-1)
    rows = np.concatenate([p[:, None, :], a, b], axis=1)
    gamma = (rows.max(axis=2) / rows.min(axis=2)).max(axis=1) ** 2  # Corollary 4 with n = 2
    r, cond8, up = _screen(p, a, b)
    score = {"r": r, "upward": up, "condition8": cond8}[criterion]
    candidate = np.flatnonzero((gamma > 1) & (score > gamma * (1 + 1e-9)))
    order = candidate[np.lexsort((-(score / gamma)[candidate], p.sum(axis=1)[candidate]))]
    found, seen = [], set()
    for i in order:
        key = (tuple(p[i]), tuple(map(tuple, a[i])), tuple(map(tuple, b[i])))
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > max_audits:
            break
        views = two_attribute_views(*key)
        g = corollary4_gamma(views)
        table = audit(views).table
        audited, ratio8, upward = achieved_r(views), condition8_ratio(views), float(table["ratio"].max())
        if {"r": audited, "upward": upward, "condition8": ratio8}[criterion] > float(g) * (1 + 1e-9):
            found.append(
                dict(
                    rows=int(p[i].sum()),
                    gamma=float(g),
                    r_audit=audited,
                    upward=upward,
                    condition8=ratio8,
                    p=list(key[0]),
                    a=[list(t) for t in key[1]],
                    b=[list(t) for t in key[2]],
                )
            )
    columns = ["rows", "gamma", "r_audit", "upward", "condition8", "p", "a", "b"]
    out = pd.DataFrame(found, columns=columns)
    if len(out):
        out = out.assign(excess=out[{"r": "r_audit"}.get(criterion, criterion)] / out.gamma)
        out = out.sort_values(["rows", "excess"], ascending=[True, False], kind="stable")
        out = out.drop(columns="excess").reset_index(drop=True)
    return out
