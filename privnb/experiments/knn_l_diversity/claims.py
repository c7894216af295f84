"""MC17's claims checked against the k-NN experiment's results table, and its theory checks.

Mancuhan and Clifton, *Instance-Based Learning with l-diversity* (MC17, Transactions on Data Privacy 10,
2017): the mean errors of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`
(:func:`knn_mean_errors`, :func:`knn_error_table`) and anatomy's suppression in it (:func:`knn_suppression`),
the observation aspects of Section 5.2 (:func:`knn_aspects`), the convergence of Section 5.2.6 read off
:func:`~privnb.experiments.knn_l_diversity.convergence_curves` (:func:`convergence_drops`), the paper's claims
and t-test tables (Tables 1-4) as :class:`~privnb.experiments.claims.Claim` records (:data:`KNN_CLAIMS`,
evaluated by :func:`knn_claims`); the checks of its theory are in :mod:`privnb.experiments.knn_l_diversity.theory`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.experiments.claims import NOT_MEASURED, Claim, Reason, evaluate, fold_errors_reason, fold_rows, gap_reason
from privnb.experiments.data_causes import GENERALIZED, KNN_CAUSES, Cause
from privnb.experiments.labels import method_label, method_sort_key
from privnb.experiments.ttest import t_test_table

#: Tables 1-4 of MC17 ("P" significant, "F" not): rows k = 1, 3, 5, 7, 9; columns l = 2, 3, 4, 5
#: (Fatality: l = 2, 3, 4; its sensitive attribute has 4 values).
PAPER_TTESTS = {
    "adult": ["FFFF", "FPPP", "PFFP", "FPPP", "PPPP"],
    "ipums": ["PPPP", "PPPP", "PPPP", "PPPP", "PPPP"],
    "bank": ["PPPP", "PPPP", "PPPP", "FFFF", "PFFF"],
    "fars": ["FPP", "FFP", "FFP", "PFP", "PFF"],
}

#: Columns of :func:`knn_aspects`' table after k, l and the three mean errors.
ASPECT_COLUMNS = (
    "1: anatomized beats original",
    "2: sensitive is a good predictor (Org. < Id.)",
    "2: anatomized between Org. and Id.",
    "3: anatomized beats anonymized",
)


def _split(results: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The cross-validation rows (metric "error") and the convergence rows ("incremental_error")."""
    return results[results["metric"] == "error"], results[results["metric"] == "incremental_error"]


def knn_mean_errors(results: pd.DataFrame) -> pd.Series:
    """Mean error over folds of every (classifier, method, param) that could be built (N/A rows left out).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn` (only metric "error" is read, so the
        rows of :func:`~privnb.experiments.knn_l_diversity.convergence_curves` may be in the same table).
    """
    errors, _ = _split(results)
    ok = errors[errors["note"] == ""]
    return ok.groupby(["classifier", "method", "param"], dropna=False)["value"].mean()


def knn_error_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean error per training view (rows, the papers' labels) and k (columns), with the majority-class
    baseline as a row of its own and, per view, the k at which its error is at or above the baseline's.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn` (with its "majority"
        rows; without them the flag column is empty).

    Returns
    -------
    DataFrame
        One column per k ("1-NN", ...), a "Majority" row (the baseline's error in every column) and the
        column "≥ majority" (the k, e.g. "1, 3", or "").
    """
    mean = knn_mean_errors(results)
    baseline = mean[mean.index.get_level_values("classifier") == "majority"]
    errors = mean[mean.index.get_level_values("classifier") != "majority"].unstack("classifier")
    errors = errors[sorted(errors.columns, key=lambda name: int(name.split("-")[0]))]
    errors = errors.loc[sorted(errors.index, key=lambda view: method_sort_key(*view))]
    errors.index = [method_label(m, p) for m, p in errors.index]
    if baseline.empty:
        return errors.assign(**{"≥ majority": ""})
    level = float(baseline.iloc[0])
    errors.loc["Majority"] = level
    flags = [
        ", ".join(c.split("-")[0] for c in errors.columns if row[c] >= level) if name != "Majority" else ""
        for name, row in errors.iterrows()
    ]
    return errors.assign(**{"≥ majority": flags})


def knn_suppression(results: pd.DataFrame) -> pd.DataFrame:
    """Per l: the mean number of training individuals anatomy suppressed per fold (rows left over once
    fewer than l distinct sensitive values remain, Section 5.1.2 of MC17) and whether l was N/A (beyond
    the sensitive domain) in some fold.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`.

    Returns
    -------
    DataFrame
        Indexed by l: "suppressed per fold" (mean) and "N/A" (bool).
    """
    errors, _ = _split(results)
    anatomized = errors[errors["method"] == "anatomized"]
    by_l = anatomized.groupby("param")
    table = pd.DataFrame(
        {"suppressed per fold": by_l["n_suppressed"].mean(), "N/A": by_l["note"].agg(lambda s: (s != "").any())}
    )
    table.index = table.index.astype(int).rename("l")
    return table


def _n_neighbors(errors: pd.DataFrame) -> list[int]:
    names = errors.loc[errors["method"] != "generalized", "classifier"].unique()
    return sorted(int(name.split("-")[0]) for name in names if name.endswith("-NN"))


def _ls(errors: pd.DataFrame) -> list[int]:
    return sorted(int(p) for p in errors.loc[errors["method"] == "anatomized", "param"].dropna().unique())


class _Measures:
    """What the claims of MC17 read: mean errors, aspects, t-tests and convergence drops."""

    def __init__(self, results, n_neighbors, ls):
        errors, curves = _split(results)
        self.ks = _n_neighbors(errors) if n_neighbors is None else list(n_neighbors)
        self.ls = _ls(errors) if ls is None else list(ls)
        self.big = [k for k in self.ks if k > 1]
        self.mean_error = knn_mean_errors(errors)
        self.aspects = _aspects(self.err, self.ks, self.ls)
        self.drops = convergence_drops(curves) if len(curves) else None
        self.results, self._t_tests = results, {}
        self.against: list[tuple[str, float]] = []  # the comparisons a check found against its claim (label, gap)

    def t_tests(self, paired: bool) -> pd.DataFrame:
        """:func:`knn_t_tests` of the results (paired or not), computed once."""
        if paired not in self._t_tests:
            self._t_tests[paired] = knn_t_tests(self.results, self.ks, paired=paired)
        return self._t_tests[paired]

    def err(self, method, k, l=None):
        """Mean error of ``method`` with k neighbours (and l), NaN when not measured."""
        key = (f"{k}-NN", method, float(l) if l is not None else np.nan)
        matches = [
            v
            for (c, m, p), v in self.mean_error.items()
            if c == key[0] and m == method and ((np.isnan(p) and l is None) or p == key[2])
        ]
        return matches[0] if matches else np.nan

    def lower(self, a, b, k_list, l_list=(None,)):
        """Mean error of view a < view b for every k and l listed (views: original, identifying, anatomized);
        each comparison that fails is kept in ``against`` with its error gap.
        """
        found = []
        for k in (k for k in k_list if k in self.ks):
            for l in (l for l in l_list if l is None or l in self.ls):
                gap = self.err(a, k, l if a == "anatomized" else None) - self.err(
                    b, k, l if b == "anatomized" else None
                )
                found.append(gap < 0 if not np.isnan(gap) else None)
                if gap >= 0:
                    self.against.append((f"{k}-NN {a} - {b}" + (f" (L={l})" if l is not None else ""), gap))
        return _all(found)

    def faster(self, l_list, expected=True):
        """Whether the anatomized 1-NN's error drops more than the original's (``expected``), every l listed;
        None without convergence rows.
        """
        if self.drops is None:
            return None
        drops = self.drops
        found = []
        for l in (l for l in l_list if f"L={l}" in drops and not np.isnan(drops[f"L={l}"])):
            found.append((drops[f"L={l}"] > drops["Org."]) == expected)
            if not found[-1]:
                self.against.append((f"error drop L={l} - Org.", drops[f"L={l}"] - drops["Org."]))
        return _all(found)

    def beats_anonymized(self):
        """Aspect 3: the anatomized 1-NN beats the anonymized 1-NN (k = l) for every l measured."""
        rows = self.aspects[(self.aspects["k"] == 1) & self.aspects[ASPECT_COLUMNS[3]].notna()]
        for l, anatomized, beaten in zip(rows["l"], rows["L"], rows[ASPECT_COLUMNS[3]]):
            if not beaten:
                self.against.append(
                    (f"1-NN anatomized - anonymized (L={l})", anatomized - self.err("generalized", 1, l))
                )
        return _all(rows[ASPECT_COLUMNS[3]].tolist())


def _all(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return bool(values) and all(values)


def _aspects(err, ks, ls):
    rows = []
    for k in ks:
        org, ident = err("original", k), err("identifying", k)
        for l in ls:
            anat = err("anatomized", k, l)
            rows.append(
                {
                    "k": k,
                    "l": l,
                    "Org.": org,
                    "Id.": ident,
                    "L": anat,
                    ASPECT_COLUMNS[0]: anat < org if not np.isnan(anat) else None,
                    ASPECT_COLUMNS[1]: org < ident,
                    ASPECT_COLUMNS[2]: (min(org, ident) <= anat <= max(org, ident)) if not np.isnan(anat) else None,
                    ASPECT_COLUMNS[3]: (anat < err("generalized", 1, l))
                    if k == 1 and not np.isnan(err("generalized", 1, l))
                    else None,
                }
            )
    return pd.DataFrame(rows)


def knn_aspects(
    results: pd.DataFrame, *, n_neighbors: Sequence[int] | None = None, ls: Sequence[int] | None = None
) -> pd.DataFrame:
    """The observation aspects 1-3 of Section 5.2 of MC17, one row per (k, l).

    Aspect 1: anatomized against original (Theorem 23: l-diversity regularizes); aspect 2: is the
    sensitive attribute a good predictor (original beats identifying), and does the anatomized k-NN
    land between them; aspect 3 (k = 1): anatomized against the anonymized 1-NN with k-anonymity = l.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn` (rows of other metrics are ignored).
    n_neighbors, ls : sequences of int, optional
        The k and l of the rows, in this order; default those in ``results``.

    Returns
    -------
    DataFrame
        Columns k, l, "Org.", "Id.", "L" (mean errors) and :data:`ASPECT_COLUMNS` (True, False, or
        None where not measurable).
    """
    return _Measures(results, n_neighbors, ls).aspects


def convergence_drops(curves: pd.DataFrame) -> pd.Series:
    """The drop of the mean 1-NN error from one part to all parts, per view (Section 5.2.6, Figure 9).

    "Converges faster" is read as a larger drop. The curve of a view is the mean over folds of the
    error at each training size (parts 1..j).

    Parameters
    ----------
    curves : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.convergence_curves` (metric "incremental_error").

    Returns
    -------
    Series
        Indexed by view label ("Org.", "L=2", ...), named "error drop, 1 part -> all parts".
    """
    by_size = curves[curves["value"].notna()].groupby(["method", "param"], dropna=False)
    drops = {}
    for (method, param), part in by_size:
        curve = part.groupby(part.groupby("fold").cumcount())["value"].mean()
        drops[method_label(method, param)] = curve.iloc[0] - curve.iloc[-1]
    return pd.Series(drops, name="error drop, 1 part -> all parts")


def knn_t_tests(
    results: pd.DataFrame, n_neighbors: Sequence[int] | None = None, *, paired: bool = True
) -> pd.DataFrame:
    """Original against anatomized k-NN, t-test over folds at 0.95 (Section 5.3, Tables 1-4 of MC17);
    ``paired=False`` gives Student's two-sample test (the paper does not say which).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`.
    n_neighbors : sequence of int, optional
        The k of the rows (default those in ``results``).
    paired : bool
        Paired t-test over folds (default) or Student's two-sample test.

    Returns
    -------
    DataFrame
        Rows ``"{k}-NN"``, columns ``"Org. vs L=l"``; cells "P" (significant), "F" (not) or "N/A" (l beyond
        the sensitive domain).
    """
    errors, _ = _split(results)
    ks = _n_neighbors(errors) if n_neighbors is None else list(n_neighbors)
    table = t_test_table(
        errors[errors["method"].isin(["original", "anatomized"])],
        against="anatomized",
        rows="classifier",
        paired=paired,
    )
    return table.reindex([f"{k}-NN" for k in ks])


def _aspect_reason(check, cause: Cause):
    """Why an aspect claim differs: the error gaps its check found against the claim, beside the standard error of
    one run's error rate (original 1-NN) on the data set's rows (:func:`~privnb.experiments.claims.gap_reason`).
    """

    def reason(measures) -> Reason | None:
        measures.against = []
        check(measures)
        gaps, measures.against = measures.against, []
        errors, _ = _split(measures.results)
        rows = fold_rows(errors[errors["method"] == "original"])
        return gap_reason(gaps, error=measures.err("original", 1), rows=rows, cause=cause)

    return reason


def _answer(check):
    """A claim's measure from a check of the measurements (True, False or None) as "yes", "no" or "n/a"."""
    return lambda measures: {True: "yes", False: "no", None: NOT_MEASURED}[check(measures)]


def _aspect_claims(dataset_name: str, rows) -> tuple[Claim, ...]:
    """The statements of Section 5.2; aspect 3 (the anonymized 1-NN) differs by the hierarchies, the others by the
    data set's cause (:data:`~privnb.experiments.data_causes.KNN_CAUSES`).
    """
    causes = {source: GENERALIZED if "aspect 3" in source else KNN_CAUSES[dataset_name] for source, _, _ in rows}
    return tuple(
        Claim(
            "MC17",
            source,
            text,
            "yes",
            _answer(check),
            dataset=dataset_name,
            reason=_aspect_reason(check, causes[source]),
        )
        for source, text, check in rows
    )


def _cell(k: int, l: int, paired: bool):
    """The measured t-test cell "P", "F" or "N/A" for k and l, "n/a" when the run has no such k or l."""

    def measure(measures):
        if k not in measures.ks or l not in measures.ls:
            return NOT_MEASURED
        table = measures.t_tests(paired)
        label = f"Org. vs L={l}"
        return table.loc[f"{k}-NN", label] if label in table.columns else "N/A"

    return measure


def _cell_reason(k: int, l: int, cause: Cause):
    """Why a t-test cell differs (:func:`~privnb.experiments.claims.fold_errors_reason` of its fold errors)."""

    def reason(measures):
        errors, _ = _split(measures.results)
        return fold_errors_reason(
            errors[(errors["classifier"] == f"{k}-NN") & (errors["note"] == "")], "anatomized", l, cause=cause
        )

    return reason


def _ttest_claims(dataset_name: str) -> tuple[Claim, ...]:
    """One claim per cell of the paper's t-test table for ``dataset_name`` and per reading (paired, unpaired)."""
    table = PAPER_TTESTS[dataset_name]
    return tuple(
        Claim(
            "MC17",
            TTEST_SOURCE,
            f"{k}-NN, Org. vs L={l}",
            table[row][col] if col < len(table[row]) else "N/A",
            _cell(k, l, paired),
            dataset=dataset_name,
            reading=reading,
            reason=_cell_reason(k, l, KNN_CAUSES[dataset_name]),
        )
        for row, k in enumerate((1, 3, 5, 7, 9))
        for col, l in enumerate((2, 3, 4, 5))
        for paired, reading in ((True, "paired t-test"), (False, "unpaired t-test"))
    )


#: Where the t-test claims come from (Tables 1-4 of MC17).
TTEST_SOURCE = "t-test table"

#: The claims of Section 5.2 of MC17 per data set as (source, claim, check): ``check(m)`` reads the
#: measurements ``m`` (:class:`_Measures`) and gives True, False or None (not measurable here).
_ASPECTS = {
    "adult": [
        (
            "Fig. 3a, aspect 1",
            "1-NN: original beats anatomized, l = 2..5",
            lambda m: m.lower("original", "anatomized", [1], m.ls),
        ),
        (
            "Fig. 3a, aspect 2",
            "1-NN: identifying beats original (sensitive a bad predictor)",
            lambda m: m.lower("identifying", "original", [1]),
        ),
        ("Fig. 4, aspect 3", "anatomized 1-NN beats the anonymized 1-NN (k = l)", lambda m: m.beats_anonymized()),
        (
            "Fig. 5, aspect 1",
            "k = 3..9: original beats anatomized, every l",
            lambda m: m.lower("original", "anatomized", m.big, m.ls),
        ),
        (
            "Fig. 5, aspect 2",
            "k = 3..9: original beats identifying (sensitive a good predictor)",
            lambda m: m.lower("original", "identifying", m.big),
        ),
        ("Fig. 9a, aspect 4", "anatomized 1-NN converges faster for l = 2, 3", lambda m: m.faster([2, 3])),
        (
            "Fig. 9a, aspect 4",
            "anatomized 1-NN converges slower for l = 4, 5",
            lambda m: m.faster([4, 5], expected=False),
        ),
    ],
    "ipums": [
        (
            "Fig. 3b, aspect 1",
            "1-NN: original beats anatomized, l = 2..4",
            lambda m: m.lower("original", "anatomized", [1], [2, 3, 4]),
        ),
        (
            "Fig. 6, aspect 1",
            "k = 3..9: original beats anatomized, every l",
            lambda m: m.lower("original", "anatomized", m.big, m.ls),
        ),
        (
            "Fig. 6, aspect 2",
            "k = 3..9: original beats identifying",
            lambda m: m.lower("original", "identifying", m.big),
        ),
        ("Fig. 9b, aspect 4", "anatomized 1-NN converges faster for l = 2..5", lambda m: m.faster([2, 3, 4, 5])),
    ],
    "bank": [
        (
            "Fig. 3c, aspect 1",
            "1-NN: anatomized beats original, l = 2..5",
            lambda m: m.lower("anatomized", "original", [1], m.ls),
        ),
        ("Fig. 3c, aspect 2", "1-NN: identifying beats original", lambda m: m.lower("identifying", "original", [1])),
        (
            "Fig. 7, aspect 1",
            "every k: anatomized beats original, every l",
            lambda m: m.lower("anatomized", "original", m.ks, m.ls),
        ),
        (
            "Fig. 7, aspect 2",
            "k = 7, 9: anatomized beats original and identifying",
            lambda m: (
                m.lower("anatomized", "original", [7, 9], m.ls) and m.lower("anatomized", "identifying", [7, 9], m.ls)
            ),
        ),
        ("Fig. 9c, aspect 4", "anatomized 1-NN converges faster for l = 2..5", lambda m: m.faster([2, 3, 4, 5])),
    ],
    "fars": [
        (
            "Fig. 3d, aspect 1",
            "1-NN: anatomized beats original at l = 2",
            lambda m: m.lower("anatomized", "original", [1], [2]),
        ),
        (
            "Fig. 8, aspect 1",
            "every k: anatomized beats original at l = 2",
            lambda m: m.lower("anatomized", "original", m.ks, [2]),
        ),
        (
            "Fig. 8, aspect 2",
            "every k: identifying beats original and anatomized",
            lambda m: m.lower("identifying", "original", m.ks) and m.lower("identifying", "anatomized", m.ks, [2]),
        ),
        ("Fig. 9d, aspect 4", "anatomized 1-NN converges faster for l = 2", lambda m: m.faster([2])),
        (
            "Fig. 9d, aspect 4",
            "anatomized 1-NN converges slower for l = 3, 4",
            lambda m: m.faster([3, 4], expected=False),
        ),
    ],
}


#: The claims of MC17 per data set: the statements of Section 5.2 (paper "yes"; privnb "yes", "no" or "n/a")
#: and every cell of its t-test tables (:data:`PAPER_TTESTS`), once per reading of its t-test.
KNN_CLAIMS = {name: _aspect_claims(name, rows) + _ttest_claims(name) for name, rows in _ASPECTS.items()}


def knn_claims(
    results: pd.DataFrame,
    dataset: str,
    *,
    n_neighbors: Sequence[int] | None = None,
    ls: Sequence[int] | None = None,
    fallback: Reason | None = None,
) -> pd.DataFrame:
    """The claims of MC17 for ``dataset`` (:data:`KNN_CLAIMS`) evaluated on the results.

    The statements of Section 5.2 and the cells of the paper's t-test table whose k and l were run, each
    cell once per reading ("paired t-test", "unpaired t-test": the paper does not say which). A cell N/A on
    both sides is "both N/A", never an agreement. The convergence claims (aspect 4) read the
    ``incremental_error`` rows of :func:`~privnb.experiments.knn_l_diversity.convergence_curves` in
    ``results`` and are "n/a" without them.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.knn_l_diversity.cross_validate_knn`, with those of
        :func:`~privnb.experiments.knn_l_diversity.convergence_curves` if that experiment ran.
    dataset : {"adult", "bank", "fars", "ipums"}
        The paper's data set whose claims apply; another name gives an empty table.
    n_neighbors, ls : sequences of int, optional
        The k and l that ran; default those in ``results``.
    fallback : Reason, optional
        The reason of a differing claim that names none (:func:`privnb.experiments.scale_reason` of a run below
        the paper's scale); a differing t-test cell carries the reason its fold errors give.

    Returns
    -------
    DataFrame
        Columns :data:`privnb.experiments.claims.CLAIM_COLUMNS`.
    """
    table = evaluate(KNN_CLAIMS.get(dataset, ()), _Measures(results, n_neighbors, ls), fallback=fallback)
    not_run = (table["source"] == TTEST_SOURCE) & (table["verdict"] == NOT_MEASURED)
    return table[~not_run].reset_index(drop=True)
