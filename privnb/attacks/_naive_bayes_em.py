"""The model and the iteration of the de Finetti attack's EM (:mod:`privnb.attacks.definetti`): Kifer's
categorical Naive Bayes as one vector of log-probabilities, the EM over it, plain or accelerated by SQUAREM.

SQUAREM (Varadhan and Roland, "Simple and globally convergent methods for accelerating the convergence of any
EM algorithm", Scand. J. Statist. 2008, scheme S3) extrapolates two EM steps theta1 = F(theta0),
theta2 = F(theta1): with r = theta1 - theta0, v = theta2 - theta1 - r and alpha = -|r| / |v|, it tries
theta0 - 2 alpha r + alpha^2 v and keeps it when its objective is at least theta0's (else theta2): the
objective never decreases and the fixed points are the EM's. The objective is what the EM with Laplace
smoothing increases: the log-likelihood plus the log-density of the Dirichlet prior the smoothing stands
for. The parameters are log-probabilities, renormalized after the extrapolation, so every iterate is a model.

Values the release cannot tell apart (every group holds each of them equally often; on Adult at l = 5
education's most frequent values are in every group) have equal columns in the exact EM from the join
model, at every iteration: swapping them maps the release onto itself. In floating point their columns
drift apart by rounding, and the EM can amplify the drift into a different answer for another row order or
labelling. The model averages such columns (:func:`interchangeable_values`), which the exact EM does anyway.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import logsumexp

__all__ = ["ACCELERATIONS", "NaiveBayesModel", "interchangeable_values", "run_em"]

ACCELERATIONS = (None, "squarem")
"""How :func:`run_em` iterates: plain EM steps, or SQUAREM steps (two EM steps and an extrapolation)."""


def interchangeable_values(counts: np.ndarray) -> list[np.ndarray]:
    """Classes of values with the same count in every group: columns equal in the exact EM.

    Parameters
    ----------
    counts : ndarray of shape (n_groups, n_values)
        Each group's count of each value.

    Returns
    -------
    list of ndarray of int
        The value columns of each class of two or more values, in increasing order.
    """
    _, label = np.unique(np.asarray(counts).T, axis=0, return_inverse=True)
    label = np.asarray(label).ravel()
    return [members for members in (np.flatnonzero(label == c) for c in np.unique(label)) if len(members) > 1]


class NaiveBayesModel:
    """Kifer's categorical Naive Bayes of the sensitive value given the quasi-identifiers, as a vector.

    theta holds log P(v) for the ``n_values`` values, then log P(q_j = k | v) for every quasi-identifier j and
    category k (rows) and value v (columns), raveled.

    Parameters
    ----------
    codes : ndarray of int, shape (n_rows, n_quasi_identifiers)
        The rows' categories (:func:`privnb.attacks.definetti.encode_quasi_identifiers`).
    n_values : int
        The sensitive values.
    alpha : float
        Laplace smoothing of every count.
    interchangeable : list of ndarray of int
        Value classes whose columns are averaged in :meth:`fit` (:func:`interchangeable_values`); none for a
        model of the original data.
    """

    def __init__(self, codes, n_values: int, alpha: float, interchangeable=()):
        n, n_columns = codes.shape
        self.n_values, self.alpha, self.interchangeable = n_values, alpha, list(interchangeable)
        self.offsets = np.r_[0, np.cumsum(codes.max(axis=0) + 1)] if n else np.zeros(n_columns + 1, int)
        cells = (codes + self.offsets[:-1]).ravel()
        self.indicator = sparse.csr_matrix(
            (np.ones(n * n_columns), (cells, np.repeat(np.arange(n), n_columns))), shape=(self.offsets[-1], n)
        )
        self.indicator_t = self.indicator.T.tocsr()

    def fit(self, weights: np.ndarray) -> np.ndarray:
        """The M-step: theta of the Naive Bayes fitted on (row, value) weights.

        Parameters
        ----------
        weights : ndarray of shape (n_rows, n_values)
            P(row holds value) (the E-step's posterior, or the join's weights).

        Returns
        -------
        ndarray
        """
        weights = np.array(weights, dtype=float)
        for members in self.interchangeable:
            weights[:, members] = weights[:, members].mean(axis=1, keepdims=True)
        prior = np.log(weights.sum(axis=0) + self.alpha)
        tables = np.log(np.asarray(self.indicator @ weights) + self.alpha)
        return self.normalize(np.concatenate([prior, tables.ravel()]))

    def normalize(self, theta: np.ndarray) -> np.ndarray:
        """theta with each distribution rescaled to sum to one (log-softmax of the prior and of each table column).

        Parameters
        ----------
        theta : ndarray
            Log-probabilities up to one constant per distribution.

        Returns
        -------
        ndarray
        """
        v, starts, sizes = self.n_values, self.offsets[:-1], np.diff(self.offsets)
        prior = theta[:v] - logsumexp(theta[:v])
        tables = theta[v:].reshape(-1, v)
        top = np.repeat(np.maximum.reduceat(tables, starts, axis=0), sizes, axis=0)
        mass = np.repeat(np.add.reduceat(np.exp(tables - top), starts, axis=0), sizes, axis=0)
        return np.concatenate([prior, (tables - top - np.log(mass)).ravel()])

    def log_prior(self, theta: np.ndarray) -> float:
        """The log-density (up to a constant) of the Dirichlet prior the smoothing stands for: alpha * sum(theta).

        The M-step's counts + alpha are the maximum a posteriori model under a Dirichlet(alpha + 1) prior on
        every distribution, so the EM increases the log-likelihood plus this term, not the log-likelihood alone.

        Parameters
        ----------
        theta : ndarray
            The model.

        Returns
        -------
        float
        """
        return self.alpha * float(theta.sum())

    def scores(self, theta: np.ndarray) -> np.ndarray:
        """log P(v) + sum_j log P(q_ij | v) of every row and value: (n_rows, n_values).

        Parameters
        ----------
        theta : ndarray
            The model.

        Returns
        -------
        ndarray
        """
        v = self.n_values
        return np.asarray(self.indicator_t @ theta[v:].reshape(-1, v)) + theta[:v]


def _objective(e_step, model, theta):
    """The E-step at theta: (posterior, log-likelihood + the smoothing's log prior)."""
    posterior, total = e_step(model.scores(theta))
    return posterior, total + model.log_prior(theta)


def _squarem_step(e_step, model, theta0, post0, total0):
    """One SQUAREM step from theta0 (whose E-step gave post0 and total0): (theta, posterior, objective, E-steps)."""
    theta1 = model.fit(post0)
    post1, _ = e_step(model.scores(theta1))
    theta2 = model.fit(post1)
    r, v = theta1 - theta0, theta2 - 2 * theta1 + theta0
    rr, vv = float(r @ r), float(v @ v)
    alpha = -np.sqrt(rr / vv) if vv > 0 else -1.0
    if alpha < -1:
        theta = model.normalize(theta0 - 2 * alpha * r + alpha**2 * v)
        post, total = _objective(e_step, model, theta)
        if total >= total0:
            return theta, post, total, 2
    post2, total2 = _objective(e_step, model, theta2)
    return theta2, post2, total2, 3 if alpha < -1 else 2


def run_em(e_step, model, weights, *, n_iter, tol, n, accelerate=None, progress=False):
    """The join model's E-step, then up to ``n_iter`` EM (or SQUAREM) iterations.

    Parameters
    ----------
    e_step : callable
        scores (n_rows, n_values) -> (posterior (n_rows, n_values), observed-data log-likelihood).
    model : NaiveBayesModel
        The model the M-step fits.
    weights : ndarray of shape (n_rows, n_values)
        The first M-step's weights (the anatomized join's).
    n_iter : int
        Largest number of iterations (a SQUAREM iteration runs at most 3 E-steps).
    tol : float
        Converged when an iteration gains less than ``tol * n`` in the objective (the observed-data
        log-likelihood plus the smoothing's log prior, :meth:`NaiveBayesModel.log_prior`: what an EM step
        with smoothed counts never decreases).
    n : int
        The individuals.
    accelerate : {None, "squarem"}
        Plain EM steps or SQUAREM steps.
    progress : bool
        Show a progress bar (tqdm) over the iterations with the last gain per individual.

    Returns
    -------
    posterior : ndarray
    n_iter : int
        Iterations run.
    converged : bool
    history : list of float
        The objective after the first E-step and after each iteration (non-decreasing up to rounding).
    e_steps : int
        E-steps run (the cost: one E-step is one pass over every group's assignments).
    """
    if accelerate not in ACCELERATIONS:
        raise ValueError(f"accelerate must be one of {ACCELERATIONS}, got {accelerate!r}")
    from tqdm.auto import tqdm

    theta = model.fit(weights)
    posterior, total = _objective(e_step, model, theta)
    history, converged, e_steps = [total], False, 1
    with tqdm(total=n_iter, disable=not progress, desc="de Finetti EM", unit="iteration") as bar:
        for _ in range(n_iter):
            if accelerate == "squarem":
                theta, posterior, total, used = _squarem_step(e_step, model, theta, posterior, total)
            else:
                theta = model.fit(posterior)
                (posterior, total), used = _objective(e_step, model, theta), 1
            history.append(total)
            e_steps += used
            gain = (history[-1] - history[-2]) / max(n, 1)
            bar.update()
            bar.set_postfix(gain=f"{gain:.2e}", tol=f"{tol:.0e}")
            if gain < tol:
                converged = True
                break
    return posterior, len(history) - 1, converged, history, e_steps
