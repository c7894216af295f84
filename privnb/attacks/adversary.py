"""One adversary for every microdata release: what it knows, how it infers, scored on the same rows.

**What it knows.** Every training individual's quasi-identifiers and label (the target), that the individual
is in the training data, and a background of the population: rows outside the training data (the fold's test
rows, and any population rows the caller adds), from which it fits a model of P(sensitive | quasi-identifiers,
target). **What the release adds.** Every release kind places each known individual in a class whose
multiset of sensitive values it publishes: anatomy's group (IT's ``gid``, ST's values), a generalization's or
microaggregation's equivalence class (the adversary recomputes the recoding from the quasi-identifiers it
knows). Where the released rows keep each label beside its sensitive value (a generalization published for
training), the class splits by label. **How it infers.** Random worlds weighted by the background: each
assignment of the class's values to its members has probability proportional to the product of the members'
background probabilities of their values, and each member's posterior is the marginal over those assignments;
exact for classes of up to :data:`EXACT_CLASS_SIZE` members (every assignment enumerated) and for larger ones
whose counts allow (:data:`EXACT_STATES`: a dynamic programme over the counts already assigned), Sinkhorn
scaling of the background to the published counts above. **How it is scored.** It guesses each individual's most
probable value (a tie of t values at the top counts 1/t of a right guess, so the rate does not depend on the
order of rows or the labels of values), on every training row; a row the release suppressed is guessed from
the background alone. The baseline is the background's guess on the same rows, common to every release, and
the advantage is the gain over it, with a paired 95% interval.
"""

from __future__ import annotations

import hashlib
import itertools
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder

from privnb.attacks._kernels import counting_weights
from privnb.attacks.result import Z95, AttackResult
from privnb.mechanisms import Anatomy, GeneralizedRelease, PrunedRelease

__all__ = [
    "EXACT_CLASS_SIZE",
    "EXACT_STATES",
    "guess_credit",
    "Targets",
    "background_prior",
    "class_cells",
    "common_adversary",
    "cell_posteriors",
]

EXACT_CLASS_SIZE = 6
"""Classes of up to this many members are computed by enumerating every assignment (720 at 6)."""

EXACT_STATES = 20_000
"""Larger classes are computed exactly by counting (:func:`_counting`) while the product of (count + 1) over their
distinct values is at most this; Sinkhorn scaling above."""

_TIE = 1e-6  # relative tolerance under which two posteriors are a tie
_FLOOR = 1e-6  # the background's least probability of a value of the domain


@dataclass(frozen=True)
class Targets:
    """The attacked individuals, the truth their guesses are scored against, and the adversary's background.

    Parameters
    ----------
    rows : DataFrame or binary matrix
        The training rows as the curator held them, under the labels the release uses (the mechanisms label
        them 0..n-1), the sensitive column included (the truth); for a projection of items, the item matrix.
    labels : array-like
        Their targets (labels), one per row.
    sensitive : str, optional
        The sensitive column (None for item matrices).
    population : DataFrame, optional
        Rows outside the training data, with the same columns (the background: the fold's test rows and any
        population rows the caller adds); the common adversary needs it.
    population_labels : array-like, optional
        Their targets.
    quasi_identifiers : sequence of str, optional
        What the adversary knows of each individual (default every column of ``rows`` but the sensitive one).
    seed : int
        Seeds what the attacks draw.
    """

    rows: object
    labels: np.ndarray
    sensitive: str | None = None
    population: pd.DataFrame | None = None
    population_labels: np.ndarray | None = None
    quasi_identifiers: tuple = ()
    seed: int = 0

    def __post_init__(self):
        if len(np.asarray(self.labels)) != self.rows.shape[0]:
            raise ValueError(f"labels has {len(np.asarray(self.labels))} entries for {self.rows.shape[0]} rows")
        if self.sensitive is None:
            return
        if self.sensitive not in self.rows.columns:
            raise ValueError(f"the sensitive column {self.sensitive!r} is not among the rows' columns")
        if self.rows[self.sensitive].isna().any():
            raise ValueError(f"the sensitive column {self.sensitive!r} has missing values; drop those rows first")
        if self.population is not None and len(np.asarray(self.population_labels)) != len(self.population):
            raise ValueError("population_labels needs one label per population row")
        if not self.quasi_identifiers:
            object.__setattr__(self, "quasi_identifiers", tuple(c for c in self.rows.columns if c != self.sensitive))

    @property
    def truth(self) -> pd.Series:
        """The true sensitive values, under the rows' labels."""
        return self.rows[self.sensitive]


def _background_features(columns: Sequence[str], frame: pd.DataFrame) -> ColumnTransformer:
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].nunique() > 10]
    nominal = [c for c in columns if c not in numeric]
    bins = KBinsDiscretizer(n_bins=10, encode="onehot", strategy="quantile", quantile_method="averaged_inverted_cdf")
    return ColumnTransformer(
        [("nominal", OneHotEncoder(handle_unknown="ignore"), nominal), ("numeric", bins, numeric)],
        sparse_threshold=1.0,
    )


def _digest(*frames: pd.DataFrame) -> str:
    digest = hashlib.sha256()
    for frame in frames:
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        digest.update(repr(list(frame.columns)).encode())
    return digest.hexdigest()


_PRIORS: OrderedDict = OrderedDict()  # content digest -> prior: the views of one fold share one background fit


def background_prior(targets: Targets, domain: Sequence) -> np.ndarray:
    """The background's P(sensitive value | quasi-identifiers, target) of every training row.

    A multinomial logistic regression on the population rows (nominal columns one-hot, numeric ones in ten
    quantile bins, the target as one more nominal column); each probability is floored at 1e-6 and every row
    renormalized over ``domain``, so a value the population lacks keeps a small chance. The fit is kept (by the
    content of the rows, the population and the domain) for the other releases of the same fold.

    Parameters
    ----------
    targets : Targets
        The training rows (what the adversary knows of them) and the population.
    domain : sequence
        The sensitive values, in the columns' order.

    Returns
    -------
    ndarray of shape (n_rows, len(domain))
    """
    columns = list(targets.quasi_identifiers)
    population = targets.population[columns].assign(_target=np.asarray(targets.population_labels).astype(str))
    known = targets.rows[columns].assign(_target=np.asarray(targets.labels).astype(str))
    seen = pd.Series(targets.population[targets.sensitive].to_numpy()).astype(str)
    domain = [str(v) for v in domain]
    key = _digest(known, population.assign(_sensitive=seen.to_numpy()), pd.DataFrame({"domain": domain}))
    if key in _PRIORS:
        _PRIORS.move_to_end(key)
        return _PRIORS[key]
    prior = np.full((len(known), len(domain)), _FLOOR)
    if seen.nunique() >= 2:
        # rows in an order of their content and a tight tolerance: the fit does not depend on the rows' order or
        # the values' names beyond the last digits, which the guess's tie tolerance absorbs
        canonical = np.argsort(pd.util.hash_pandas_object(population.assign(_s=seen.to_numpy()), index=False))
        population, seen = population.iloc[canonical], seen.iloc[canonical]
        model = make_pipeline(
            _background_features([*columns, "_target"], population),
            LogisticRegression(C=1.0, tol=1e-8, max_iter=10_000),
        )
        with warnings.catch_warnings():  # a numeric column with tied quantiles loses bins, as it should
            warnings.simplefilter("ignore", UserWarning)
            model.fit(population, seen)
        probabilities = model.predict_proba(known)
        where = {value: j for j, value in enumerate(model.classes_)}
        for j, value in enumerate(domain):
            if value in where:
                prior[:, j] += probabilities[:, where[value]]
    elif seen.nunique() == 1:
        prior[:, domain.index(seen.iloc[0])] += 1.0
    prior = prior / prior.sum(axis=1, keepdims=True)
    _PRIORS[key] = prior
    while len(_PRIORS) > 4:
        _PRIORS.popitem(last=False)
    return prior


def class_cells(release, targets: Targets) -> np.ndarray:
    """The published cell of every training row: the class whose sensitive multiset the release links to it.

    Anatomy's group (a pruned view's anatomy); a generalized or microaggregated release's class, split by
    label when ``links_target``. A suppressed row gets -1.

    Parameters
    ----------
    release : Anatomy, PrunedRelease, GeneralizedRelease or MicroaggregatedRelease
        The release record.
    targets : Targets
        The training rows (the release's labels).

    Returns
    -------
    ndarray of int, one per training row
    """
    if isinstance(release, PrunedRelease):
        release = release.anatomy
    cells = pd.Series(-1, index=targets.rows.index, dtype=np.int64)
    if isinstance(release, Anatomy):
        cells.loc[release.it.index] = release.it["gid"].to_numpy()
        return cells.to_numpy()
    if isinstance(release, GeneralizedRelease):
        classes = pd.Series(release.classes, index=release.table.index)
        if release.links_target:
            labels = pd.Series(np.asarray(targets.labels), index=targets.rows.index).loc[release.table.index]
            pairs = pd.DataFrame({"class": classes.to_numpy(), "label": labels.to_numpy()}, index=classes.index)
            classes = pairs.groupby(["class", "label"], sort=False).ngroup()
        cells.loc[classes.index] = classes.to_numpy()
        return cells.to_numpy()
    raise TypeError(f"the common adversary reads anatomy and generalized releases, not a {type(release).__name__}")


def _published_values(release, targets: Targets) -> pd.Series:
    """The sensitive values the release publishes, one per released row, under the rows' labels' cells."""
    if isinstance(release, PrunedRelease):
        release = release.anatomy
    if isinstance(release, Anatomy):
        return pd.Series(release.st[release.sensitive].to_numpy(), index=release.st["gid"].to_numpy())
    return release.table[targets.sensitive]


def _exact(prior: np.ndarray, members: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Exact posteriors of equal-sized cells: members (G, m), values (G, m) as domain codes -> (G, m, V)."""
    g, m = members.shape
    perms = np.array(list(itertools.permutations(range(m))))
    weights = prior[members[:, :, None], values[:, None, :]]  # (G, m, m): member j, published slot s
    paths = np.ones((g, len(perms)))
    for j in range(m):
        paths *= weights[:, j, perms[:, j]]
    paths /= paths.sum(axis=1, keepdims=True)
    slots = np.stack([paths @ np.eye(m)[perms[:, j]] for j in range(m)], axis=1)  # (G, m, m): P(j holds slot s)
    return np.einsum("gjs,gsv->gjv", slots, np.eye(prior.shape[1])[values])


def _counting(prior: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Exact posteriors of one cell by dynamic programming over the counts of values already assigned.

    ``prior`` is (members x distinct values), ``counts`` the published count of each value. Forward, F_j(u) sums
    the weights of assigning members 1..j the multiset u; backward, B_j(u) those of assigning members j+1..m
    what is left of the counts after u; member j holds value d with weight sum_u F_{j-1}(u) P[j, d] B_j(u + e_d).
    Each step is rescaled (the posteriors are ratios), so no product underflows.
    """
    strides = np.cumprod(np.concatenate(([1], counts[:-1] + 1))).astype(np.intp)
    out = counting_weights(prior, counts, strides)
    return out / out.sum(axis=1, keepdims=True)


def _sinkhorn(weights: np.ndarray, counts: np.ndarray, n_iter: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """Scale a (members x values) background so that rows sum to 1 and columns to the published counts."""
    x = weights.copy()
    for _ in range(n_iter):
        x *= (counts / np.maximum(x.sum(axis=0), 1e-300))[None, :]
        x /= x.sum(axis=1, keepdims=True)
        if np.abs(x.sum(axis=0) - counts).max() < tol:
            break
    return x


def cell_posteriors(prior: np.ndarray, cells: np.ndarray, values: pd.Series) -> np.ndarray:
    """Each row's posterior over the domain given its cell's published values, weighted by ``prior``.

    Parameters
    ----------
    prior : ndarray of shape (n_rows, V)
        The background of every row.
    cells : ndarray of int
        Each row's cell (-1: suppressed, the posterior is the prior).
    values : Series
        Domain codes of the published values, indexed by cell.

    Returns
    -------
    ndarray of shape (n_rows, V)
    """
    posterior = prior.copy()
    grouped = {cell: np.sort(codes.to_numpy()) for cell, codes in values.groupby(level=0)}
    members = pd.Series(np.arange(len(cells)))[cells >= 0].groupby(cells[cells >= 0])
    by_size: dict[int, list] = {}
    for cell, rows in members:
        rows, codes = rows.to_numpy(), grouped[cell]
        if len(rows) != len(codes):
            raise ValueError(f"cell {cell} places {len(rows)} individuals but publishes {len(codes)} values")
        if len(np.unique(codes)) == 1:
            posterior[rows] = 0.0
            posterior[rows, codes[0]] = 1.0
        elif len(rows) <= EXACT_CLASS_SIZE:
            by_size.setdefault(len(rows), []).append((rows, codes))
        else:
            distinct, counts = np.unique(codes, return_counts=True)
            weights = prior[np.ix_(rows, distinct)]
            posterior[rows] = 0.0
            exact = np.prod(counts + 1.0) <= EXACT_STATES
            posterior[np.ix_(rows, distinct)] = _counting(weights, counts) if exact else _sinkhorn(weights, counts)
    for batch in by_size.values():
        rows = np.array([r for r, _ in batch])
        posterior[rows] = _exact(prior, rows, np.array([c for _, c in batch]))
    return posterior


def _exact_cells(values: pd.Series) -> np.ndarray:
    """The cells computed exactly: by enumeration, by counting, or with one value."""
    counts = values.groupby(level=0).value_counts()
    sizes = counts.groupby(level=0).sum()
    states = (counts + 1).groupby(level=0).prod()
    return sizes.index[(sizes <= EXACT_CLASS_SIZE) | (states <= EXACT_STATES)].to_numpy()


def guess_credit(posterior: np.ndarray, truth_codes: np.ndarray) -> np.ndarray:
    """Each row's credit for guessing its most probable value: 1/t when the truth is among t tied top values.

    Parameters
    ----------
    posterior : ndarray of shape (n_rows, V)
        The adversary's posteriors.
    truth_codes : ndarray of int
        The true values' columns.

    Returns
    -------
    ndarray of float
    """
    top = posterior.max(axis=1, keepdims=True)
    tied = posterior >= top * (1 - _TIE)
    return tied[np.arange(len(truth_codes)), truth_codes] / tied.sum(axis=1)


def common_adversary(release, targets: Targets) -> AttackResult:
    """The common adversary (module docstring) on one release, scored on every training row.

    Parameters
    ----------
    release : Anatomy, PrunedRelease, GeneralizedRelease or MicroaggregatedRelease
        The release record.
    targets : Targets
        The training rows (labels as the release's), their targets and the population.

    Returns
    -------
    AttackResult
        ``common``: the share guessed right; baseline the background's share on the same rows; a paired 95%
        interval of the advantage; details ``grouped_success``, ``grouped_baseline`` (rows the release placed
        in a class), ``suppressed_share``, ``exact_share`` (rows whose class was computed exactly),
        ``population_rows``; ``exact_share`` counts every cell computed exactly (enumerated or counted).
    """
    if targets.sensitive is None or targets.population is None:
        raise ValueError("the common adversary needs the sensitive column and a population (Targets)")
    truth = targets.truth
    domain = np.unique(
        np.concatenate([truth.to_numpy(dtype=object), targets.population[targets.sensitive]]).astype(str)
    )
    codes = pd.Index(domain)
    prior = background_prior(targets, domain)
    cells = class_cells(release, targets)
    published = _published_values(release, targets)
    values = pd.Series(codes.get_indexer(published.astype(str).to_numpy()), index=published.index)
    if isinstance(release, GeneralizedRelease):
        values.index = pd.Series(cells, index=targets.rows.index).loc[published.index].to_numpy()
    posterior = cell_posteriors(prior, cells, values)
    truth_codes = codes.get_indexer(truth.astype(str).to_numpy())
    hit, base = guess_credit(posterior, truth_codes), guess_credit(prior, truth_codes)
    n, placed = len(hit), cells >= 0
    gain = hit - base
    half = Z95 * gain.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    exact = placed & np.isin(cells, _exact_cells(values))
    return AttackResult(
        "common",
        "share of training rows whose sensitive value the common adversary guesses right",
        float(hit.mean()),
        float(base.mean()),
        n,
        {
            "grouped_success": float(hit[placed].mean()) if placed.any() else float("nan"),
            "grouped_baseline": float(base[placed].mean()) if placed.any() else float("nan"),
            "suppressed_share": float(1 - placed.mean()),
            "exact_share": float(exact.mean()),
            "population_rows": len(targets.population),
        },
        successes=float(hit.sum()),
        advantage_interval=(float(gain.mean() - half), float(gain.mean() + half)),
    )
