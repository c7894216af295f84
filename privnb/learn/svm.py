"""The SVC/SVM experiment grid of MC16 (Section 5), fast and exact.

The paper trains LibSVM's linear-kernel SVC and RBF SVM (defaults C = 1, gamma = 1 / n_features) on
original, identifying, pruned (l = 2..5) and generalized (k = 2..5) training folds, tested on raw rows,
by 10-fold cross-validation. :func:`privnb.experiments.run_svm_grid` runs that grid over
:func:`privnb.experiments.run_folds` (the folds and seeds of every runner), (view, fold) tasks in parallel, with
exact savings from the helpers here:

* each mechanism (anatomize + prune, generalize) runs once per (view, fold), and its rows are encoded
  and collapsed once, for both kernels (:class:`KernelBank`); the generalized views of a fold share one
  lattice search (:class:`privnb.mechanisms.FullDomainLattice`);
* :class:`CollapseDuplicates` fits the solver once per distinct (encoded row, label) pair with the
  pair's count as its sample weight. The soft-margin objective 1/2 ||w||^2 + C sum_i xi_i is the same
  whether a row appears c times or once with weight c (C_i = c C), so the learned classifier is the
  same problem's solution; generalized views, whose rows repeat a lot, shrink several fold;
* the encoder is fitted on the whole training view first, so the collapse never changes scaling, and
  gamma is 1 / n_features ("auto", LibSVM's default), which does not depend on row multiplicities.

Solvers: ``"libsvm"`` (scikit-learn's SVC, the paper's library, the reference), ``"sklearnex"``
(scikit-learn-intelex's SVC: the same soft-margin problem solved by oneDAL, several times faster;
its agreement with libsvm is measured in benchmarks/bench_svm.py), and ``"nystroem"`` (RBF only:
Nystroem features and a linear SVM, an approximation, never a default).

Input spaces (:data:`SPACES`): the default, :data:`DEFAULT_SPACE`, is MC16's R^(d+1) scaled as LibSVM's
``svm-scale`` does; see there why.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.kernel_approximation import Nystroem
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC, LinearSVC
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from privnb._docstrings import shared_doc
from privnb.validation import seed_unset_random_states

KERNELS = ("linear", "rbf")


SOLVERS = ("libsvm", "sklearnex", "nystroem")


#: Names of the classifiers in result rows: the paper's "SVC" (linear kernel) and "SVM" (RBF kernel).
CLASSIFIER_NAMES = {"linear": "SVC", "rbf": "SVM"}

#: The SVMs' input spaces, each a FrameEncoder scheme: "one_hot" (numbers and ordinal ranks standardized,
#: nominal one-hot; privnb's first space), "appendix_b" (MC16's R^(d+1): one centred column per attribute,
#: Appendix B of MC16a, unscaled as written), "appendix_b_scaled" (the same columns divided by their largest
#: training magnitude, centre kept at 0) and "appendix_b_svm_scale" (the same columns mapped by LibSVM's
#: ``svm-scale -l -1 -u 1``: each column's training min..max onto [-1, 1]).
SPACES = {
    "one_hot": "standard",
    "appendix_b": "appendix_b",
    "appendix_b_scaled": "appendix_b_scaled",
    "appendix_b_svm_scale": "appendix_b_svm_scale",
}

#: The default input space: MC16's R^(d+1) (Appendix B of MC16a), scaled as LibSVM, the library MC16 names,
#: documents: its guide asks to scale every attribute to [-1, 1] with ``svm-scale`` (fitted on the training
#: data, the same factors applied to the test data). The paper names the tool and is silent on the scaling, so
#: the tool's documented practice is the paper's behaviour; "appendix_b" (unscaled, as Appendix B is written)
#: and "appendix_b_scaled" (privnb's earlier reading of "scaled to [-1, 1]") remain options.
DEFAULT_SPACE = "appendix_b_svm_scale"


class CollapseDuplicates(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Fit ``estimator`` once per distinct (row, label) pair, weighted by the pair's count.

    Exact for losses that are sums over rows (SVC, LinearSVC): c copies of a row and one row with
    sample weight c give the same objective. Use it after the encoder (the rows it sees are numeric).

    Parameters
    ----------
    estimator : classifier
        Must accept ``sample_weight`` in ``fit``.

    Attributes
    ----------
    estimator_ : the fitted estimator
    n_distinct_ : int
        Rows the estimator was fitted on.
    classes_ : ndarray
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        """Collapse duplicates of ``(X, y)`` (summing ``sample_weight``) and fit a clone of the estimator.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            The training rows, numbers.
        y : array-like of shape (n_rows,)
            Their class labels.
        sample_weight : array-like of shape (n_rows,), optional
            Weight of each row (default 1); a collapsed row weighs the sum of its copies'.
        """
        try:
            X, y = validate_data(self, X, y, dtype=float)
        except ValueError as error:
            if "inconsistent numbers of samples" in str(error):
                raise ValueError(f"X must be 2-d with one row per label: {error}") from error
            raise
        X = np.ascontiguousarray(X)
        weight = _check_sample_weight(sample_weight, X)
        labels, y_codes = np.unique(y, return_inverse=True)
        keyed = np.column_stack([X, y_codes.astype(float)])
        rows = keyed.view(np.dtype((np.void, keyed.dtype.itemsize * keyed.shape[1]))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=weight)
        self.estimator_ = clone(self.estimator).fit(X[first], y[first], sample_weight=counts)
        self.n_distinct_ = len(first)
        self.classes_ = labels
        return self

    def predict(self, X):
        """Predictions of the fitted estimator."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(validate_data(self, X, reset=False, dtype=float))

    def decision_function(self, X):
        """Decision values of the fitted estimator."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(validate_data(self, X, reset=False, dtype=float))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


@shared_doc
class NystroemSVM(ClassifierMixin, BaseEstimator):
    """Approximate RBF SVM: Nystroem features (gamma = 1 / n_features) and a hinge-loss linear SVM.

    An approximation of LibSVM's RBF SVM, offered for speed; never the paper grid's default. Its error
    difference against the exact solver is measured in benchmarks/bench_svm.py.

    Parameters
    ----------
    C : float
        The linear SVM's penalty of the hinge loss.
    n_components : int
        Nystroem landmarks (capped by the number of training rows).
    random_state : int, RandomState or None
        Seeds the landmarks and liblinear's shuffling.
        {random_state}
    """

    def __init__(self, C=1.0, n_components=1000, random_state=None):
        self.C = C
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit the Nystroem map and the linear SVM.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            The training rows, numbers.
        y : array-like of shape (n_rows,)
            Their class labels.
        sample_weight : array-like of shape (n_rows,), optional
            Weight of each row in the linear SVM's loss.
        """
        X, y = validate_data(self, X, y, dtype=float)
        rng = check_random_state(self.random_state)
        features = Nystroem(
            gamma=1.0 / X.shape[1], n_components=min(self.n_components, len(X)), random_state=rng.randint(2**31 - 1)
        )
        # liblinear's dual solver shuffles: seeded from the same stream, so that a fit is reproducible
        svm = LinearSVC(C=self.C, loss="hinge", max_iter=20000, random_state=rng.randint(2**31 - 1))
        self.pipeline_ = make_pipeline(features, svm)
        self.pipeline_.fit(X, y, linearsvc__sample_weight=sample_weight)
        self.classes_ = self.pipeline_.classes_
        return self

    def predict(self, X):
        """Predicted classes."""
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.predict(validate_data(self, X, reset=False, dtype=float))

    def decision_function(self, X):
        """Decision values of the linear SVM on the Nystroem features."""
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.decision_function(validate_data(self, X, reset=False, dtype=float))


@shared_doc
def svm_classifier(
    kernel: str = "rbf",
    *,
    solver: str = "libsvm",
    C: float = 1.0,
    cache_size: float = 1000,
    n_components: int = 1000,
    random_state=None,
):
    """The paper's classifier on numeric rows: LibSVM defaults C = 1, gamma = 1 / n_features.

    Parameters
    ----------
    kernel : {"linear", "rbf"}
        "linear" is the paper's SVC, "rbf" its SVM (Section 5.1.3 of MC16).
    solver : {"libsvm", "sklearnex", "nystroem"}
        See the module docstring; "nystroem" exists only for the RBF kernel.
    C : float
        The soft margin's penalty (LibSVM's default 1).
    cache_size : float
        LibSVM's kernel cache in MB (speed only; 1000 MB instead of scikit-learn's 200).
    n_components : int
        Nystroem landmarks (solver "nystroem" only).
    random_state : int, RandomState or None
        Seeds the Nystroem solver (the exact solvers do not draw).
        {random_state}

    Returns
    -------
    classifier
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if solver == "libsvm":
        return SVC(kernel=kernel, C=C, gamma="auto", cache_size=cache_size)
    if solver == "sklearnex":
        from sklearnex.svm import SVC as OneDalSVC

        return OneDalSVC(kernel=kernel, C=C, gamma="auto")
    if kernel != "rbf":
        raise ValueError(
            "the nystroem solver approximates the RBF kernel only; use solver='libsvm' or "
            "'sklearnex' for the linear SVC"
        )
    return NystroemSVM(C=C, n_components=n_components, random_state=random_state)


def svm_pipeline(
    dataset,
    kernel: str = "rbf",
    *,
    solver: str = "libsvm",
    space: str = DEFAULT_SPACE,
    ordinal_center: str = "mean",
    collapse: bool = True,
    kinds=None,
    **options,
):
    """Encoder (``privnb.learn.FrameEncoder``, fitted on the training view) then the classifier.

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Gives the column kinds and orders.
    kernel : {"linear", "rbf"}
        The paper's SVC or SVM.
    solver : {"libsvm", "sklearnex", "nystroem"}
        As in :func:`svm_classifier`.
    space : str
        The learner's input space (:data:`SPACES`, default :data:`DEFAULT_SPACE`).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes (the "appendix_b*" spaces).
    collapse : bool
        Wrap the classifier in :class:`CollapseDuplicates` (exact).
    kinds : mapping, optional
        Replaces the dataset's column kinds (e.g. :func:`privnb.learn.encoding.generalized_kinds` for a
        generalized view).
    options
        Go to :func:`svm_classifier`.

    Returns
    -------
    Pipeline
    """
    return encoded_classifier(
        dataset,
        svm_classifier(kernel, solver=solver, **options),
        space=space,
        ordinal_center=ordinal_center,
        collapse=collapse,
        kinds=kinds,
    )


def encoded_classifier(
    dataset, classifier, *, space: str = DEFAULT_SPACE, ordinal_center: str = "mean", collapse: bool = True, kinds=None
):
    """``classifier`` behind a FrameEncoder of ``dataset``'s kinds in ``space`` (and :class:`CollapseDuplicates`).

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Gives the column kinds and orders.
    classifier : estimator
        Fitted on the encoded rows (a classifier or a :class:`KernelBank`).
    space : str
        The input space (:data:`SPACES`, default :data:`DEFAULT_SPACE`).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes (the "appendix_b*" spaces; the linear SVC and the RBF SVM are
        invariant to a shift of a column, so it moves only the radius of Theorem 4.1, not the classifier).
    collapse : bool
        Wrap the classifier in :class:`CollapseDuplicates`.
    kinds : mapping, optional
        Replaces the dataset's column kinds.

    Returns
    -------
    Pipeline
    """
    from privnb.learn.encoding import FrameEncoder

    if space not in SPACES:
        raise ValueError(f"space must be one of {tuple(SPACES)}, got {space!r}")
    return make_pipeline(
        FrameEncoder(
            kinds=dict(dataset.kinds if kinds is None else kinds),
            orders=dict(dataset.orders),
            scheme=SPACES[space],
            ordinal_center=ordinal_center,
        ),
        CollapseDuplicates(classifier) if collapse else classifier,
    )


class KernelBank(MetaEstimatorMixin, BaseEstimator):
    """Several classifiers fitted on the same rows (one encoded training view, every kernel of the grid).

    A holder of fitted models, not itself a classifier: it has no ``predict`` (predict with
    ``models_[name]``), so it is no ClassifierMixin.

    Parameters
    ----------
    models : mapping name -> estimator
        The classifiers, cloned by ``fit``.
    random_state : int, optional
        Given to every model whose own ``random_state`` is unset (the grid seeds it per fold).

    Attributes
    ----------
    models_ : dict name -> fitted clone
    classes_ : ndarray, the labels seen in ``fit``
    n_features_in_ : int
    """

    def __init__(self, models, random_state=None):
        self.models = models
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit a clone of every model on ``(X, y)`` (with ``sample_weight`` when given).

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            The training rows, numbers.
        y : array-like of shape (n_rows,)
            Their class labels.
        sample_weight : array-like of shape (n_rows,), optional
            Weight of each row, passed to every model's ``fit`` when given.
        """
        X, y = validate_data(self, X, y)
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.models_ = {}
        for name, model in self.models.items():
            model = clone(model)
            if self.random_state is not None:
                model = seed_unset_random_states(model, self.random_state)
            self.models_[name] = model.fit(X, y, **weights)
        self.classes_ = np.unique(y)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = False
        return tags
