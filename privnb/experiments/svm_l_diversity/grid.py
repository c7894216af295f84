"""MC16's experiment grid: both kernels on every training view and fold, each (view, fold) anonymized,
encoded and collapsed once, and the inputs of Theorem 4.1 measured on the pruned linear SVCs.

The grid is :func:`privnb.experiments.run_folds` over one :class:`~privnb.experiments.View` per training view
(original, identifying, pruned per l, generalized per k, the majority-class baseline): each view's estimator
encodes its rows and fits every kernel at once (a :class:`~privnb.learn.svm.KernelBank`), and one
:class:`KernelScorer` gives a Score per kernel (and, on the pruned views, the rows Theorem 4.1 of MC16 needs).
The generalized views of a fold share a batch (one lattice search for every k).

The learner's input space is a parameter (``space``, :data:`privnb.learn.SPACES`; default
:data:`privnb.learn.DEFAULT_SPACE`, LibSVM's svm-scale of MC16's R^(d+1), see there why); Appendix B of MC16a's
ordinal centring is read either way (``ordinal_center``, :func:`compare_ordinal_centers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from privnb._docstrings import shared_doc
from privnb.experiments.class_metrics import CLASSIFICATION_METRICS, measure, metric_outputs, positive_scores
from privnb.experiments.folds import FoldData, Score, View, majority_view, run_folds
from privnb.learn.svm import (
    CLASSIFIER_NAMES,
    DEFAULT_SPACE,
    KERNELS,
    KernelBank,
    encoded_classifier,
    svm_classifier,
    svm_pipeline,
)
from privnb.learn.training import PrunedTraining

#: The options :func:`~privnb.learn.svm_classifier` takes besides the kernel and the solver.
CLASSIFIER_OPTIONS = ("C", "cache_size", "n_components", "random_state")


def dataset_hierarchies(dataset, hierarchies: Mapping | None = None) -> Mapping | None:
    """``hierarchies`` when given, else the data set's own (``dataset.hierarchies``), else None.

    Parameters
    ----------
    dataset : privnb.data.Dataset
        The data; its ``hierarchies`` attribute is read when it has one.
    hierarchies : mapping, optional
        Column -> generalization hierarchy; wins over the data set's.

    Returns
    -------
    mapping or None
    """
    if hierarchies is not None:
        return hierarchies
    return getattr(dataset, "hierarchies", None) or None


def training_views(
    dataset,
    model,
    generalized_model=None,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    ordinal_center: str = "mean",
    generalization: str = "full-domain",
) -> dict:
    """The training views of Section 5 of MC16 around ``model``, keyed ``(method, param)``.

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Needs a sensitive attribute.
    model : estimator or None
        What every view but the generalized ones trains (an encoder and the classifier).
    generalized_model : estimator, optional
        What the generalized views train (their ordinal columns become nominal); default ``model``.
    ls, k_anonymity : sequences of int
        l of the pruned views, k of the generalized ones.
    hierarchies : mapping, optional
        Full-domain generalization hierarchies (default the data set's).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes in the pruning step.
    generalization : str
        The generalized views' method (``privnb.learn.GeneralizedTraining``).

    Returns
    -------
    dict
        ``(method, param) -> unfitted view``: original, identifying, pruned per l, generalized per k.
    """
    from privnb.learn.training import GeneralizedTraining, IdentifyingTraining, OriginalTraining

    if dataset.sensitive is None:
        raise ValueError(f"dataset {dataset.name!r} has no sensitive attribute; the SVM grid needs one")
    hierarchies = dataset_hierarchies(dataset, hierarchies)
    views = {
        ("original", None): OriginalTraining(model),
        ("identifying", None): IdentifyingTraining(model, sensitive=dataset.sensitive),
    }
    for l in ls:
        views[("pruned", l)] = PrunedTraining(
            model,
            sensitive=dataset.sensitive,
            l=l,
            kinds=dict(dataset.kinds),
            orders=dict(dataset.orders),
            ordinal_center=ordinal_center,
        )
    for k in k_anonymity:
        views[("generalized", k)] = GeneralizedTraining(
            model if generalized_model is None else generalized_model,
            quasi_identifiers=list(dataset.quasi_identifiers),
            k=k,
            method=generalization,
            hierarchies=hierarchies,
        )
    return views


def svm_views(
    dataset,
    kernel: str = "rbf",
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    generalization: str = "full-domain",
    **learner,
) -> dict:
    """The training views of Section 5 of MC16 for one kernel, keyed ``(classifier, method, param)``.

    Each view is an unfitted estimator (e.g. for :func:`privnb.experiments.cross_validate_views`).

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Needs a sensitive attribute.
    kernel : {"linear", "rbf"}
        The paper's SVC (linear) or SVM (RBF).
    ls, k_anonymity : sequences of int
        l of the pruned views, k of the generalized ones (these need hierarchies).
    hierarchies : mapping, optional
        Full-domain generalization hierarchies; default the data set's own.
    generalization : str
        The generalized views' method.
    learner
        ``solver``, ``space``, ``ordinal_center``, ``collapse`` and :func:`~privnb.learn.svm_classifier`'s
        options (``C``, ``cache_size``, ``n_components``), as in :class:`SvmLearner`.

    Returns
    -------
    dict
    """
    from privnb.learn.encoding import generalized_kinds

    setup = SvmLearner.from_options(kernels=(kernel,), **learner)
    hierarchies = dataset_hierarchies(dataset, hierarchies)

    def pipeline(kinds=None):
        return svm_pipeline(
            dataset,
            kernel,
            solver=setup.solver,
            collapse=setup.collapse,
            space=setup.space,
            ordinal_center=setup.ordinal_center,
            kinds=kinds,
            **setup.options,
        )

    generalized = pipeline(generalized_kinds(dataset.kinds, hierarchies)) if k_anonymity else None
    views = training_views(
        dataset,
        pipeline(),
        generalized,
        ls=ls,
        k_anonymity=k_anonymity,
        hierarchies=hierarchies,
        ordinal_center=setup.ordinal_center,
        generalization=generalization,
    )
    name = CLASSIFIER_NAMES.get(kernel, kernel)
    return {(name, *key): view for key, view in views.items()}


@dataclass(frozen=True)
class SvmLearner:
    """How the grid's SVMs learn: which kernels, which solver, in which input space.

    Parameters
    ----------
    kernels : sequence of {"linear", "rbf"}
        The paper's SVC (linear) and SVM (RBF), fitted on the same rows.
    solver : {"libsvm", "sklearnex", "nystroem"}
        "nystroem" replaces the RBF solver only; the linear SVC then uses libsvm.
    space : str
        The input space (:data:`privnb.learn.SPACES`).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes, in the pruning step and the "appendix_b*" encoders.
    collapse : bool
        Collapse duplicate rows (exact; False only to measure it).
    options : mapping
        :func:`~privnb.learn.svm_classifier`'s ``C``, ``cache_size``, ``n_components``.
    """

    kernels: tuple[str, ...] = KERNELS
    solver: str = "libsvm"
    space: str = DEFAULT_SPACE
    ordinal_center: str = "mean"
    collapse: bool = True
    options: Mapping = field(default_factory=dict)

    @classmethod
    def from_options(
        cls,
        kernels: Sequence[str] = KERNELS,
        solver: str = "libsvm",
        space: str = DEFAULT_SPACE,
        ordinal_center: str = "mean",
        collapse: bool = True,
        **options,
    ) -> SvmLearner:
        """A learner from keyword options (those not named here go to :func:`~privnb.learn.svm_classifier`).

        Parameters
        ----------
        kernels, solver, space, ordinal_center, collapse
            As in the class.
        options
            ``C``, ``cache_size``, ``n_components``.

        Returns
        -------
        SvmLearner
        """
        unknown = sorted(set(options) - set(CLASSIFIER_OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown SVM option(s) {unknown}: the learner takes kernels, solver, space, ordinal_center, "
                f"collapse and the classifier's {list(CLASSIFIER_OPTIONS)}"
            )
        return cls(tuple(kernels), solver, space, ordinal_center, collapse, dict(options))

    def bank(self) -> KernelBank:
        """Every kernel's classifier, fitted on the same rows."""
        return KernelBank(
            {
                CLASSIFIER_NAMES[kernel]: svm_classifier(
                    kernel,
                    solver="libsvm" if self.solver == "nystroem" and kernel == "linear" else self.solver,
                    **self.options,
                )
                for kernel in self.kernels
            }
        )

    def estimator(self, dataset, kinds=None):
        """The encoder of ``dataset``'s columns (``kinds`` replacing its kinds) in front of :meth:`bank`.

        Parameters
        ----------
        dataset : Dataset
            Whose columns are encoded.
        kinds : mapping column -> kind, optional
            Replaces the dataset's column kinds (``encoded_classifier``'s ``kinds``).
        """
        return encoded_classifier(
            dataset,
            self.bank(),
            space=self.space,
            ordinal_center=self.ordinal_center,
            collapse=self.collapse,
            kinds=kinds,
        )


def theorem_4_1_inputs(view, encoder, svc) -> dict:
    """What Theorem 4.1 of MC16 needs from a fitted pruned view and its linear SVC.

    ``w_norm`` is ||w_p|| of the SVC fitted on D_P (encoded by ``encoder``, fitted on D_P);
    ``r2_min`` and ``r2_max`` are the smallest and largest squared norms of D_A (the prerequisite
    step, Figure B.1 of MC16a) in that encoded space, so that [r_p^2] = R^2 ||w_p||^2 measures R_p and w_p
    alike (:func:`privnb.bounds.rp2_range_from_data`); ``appendix_b_r2_min`` and
    ``appendix_b_r2_max`` are the same extremes in the Appendix B preprocessing, the space the pruning
    step chose rows in; ``dimension`` is the number of coordinates the SVC sees (d + 1 in the paper's
    notation, :func:`theorem_4_1_table` takes d = dimension - 1).

    Parameters
    ----------
    view : privnb.learn.PrunedTraining
        Fitted.
    encoder : privnb.learn.FrameEncoder
        The view's fitted encoder.
    svc : fitted linear SVC
        The one trained on D_P (has ``coef_``).

    Returns
    -------
    dict
        ``dimension``, ``w_norm``, ``r2_min``, ``r2_max``, ``appendix_b_r2_min``, ``appendix_b_r2_max``.
    """
    from privnb.mechanisms.pruning import prerequisites

    encoded = prerequisites(encoder.transform(view.anatomy_.join()[view.view_columns_]))
    appendix_b = view.pruning_.prerequisites
    return {
        "dimension": float(np.shape(svc.coef_)[-1]),
        "w_norm": float(np.linalg.norm(svc.coef_)),
        "r2_min": encoded.r2_min,
        "r2_max": encoded.r2_max,
        "appendix_b_r2_min": appendix_b.r2_min,
        "appendix_b_r2_max": appendix_b.r2_max,
    }


def fitted_models(view) -> dict:
    """A fitted grid view's classifiers by name (the bank behind :class:`~privnb.learn.CollapseDuplicates` or not).

    Parameters
    ----------
    view : privnb.learn.ProtectedTraining
        Fitted on a :meth:`SvmLearner.estimator`.

    Returns
    -------
    dict
        Name ("SVC", "SVM") -> fitted classifier on the encoded rows.
    """
    last = view.estimator_[-1]
    return getattr(last, "estimator_", last).models_


@dataclass(frozen=True)
class KernelScorer:
    """One mechanism, every kernel: the test error, balanced accuracy and AUC of each classifier of a fitted view's
    bank (:data:`~privnb.experiments.class_metrics.CLASSIFICATION_METRICS`).

    The test rows are encoded once (by the view's encoder, fitted on its training rows) for every kernel. With
    ``theorem_inputs``, the linear SVC also gives the rows of :func:`theorem_4_1_inputs` (pruned views only).

    Parameters
    ----------
    classifiers : tuple of str
        The bank's classifier names, in order (the N/A rows of a view that cannot be built).
    theorem_inputs : bool
        Also score Theorem 4.1's inputs of the linear SVC ("SVC").
    """

    classifiers: tuple[str, ...]
    theorem_inputs: bool = False

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """Each classifier's metrics on ``data``'s raw test rows, then Theorem 4.1's inputs when asked.

        Parameters
        ----------
        fitted : privnb.learn.ProtectedTraining
            The fitted view.
        data : FoldData
            The fold.

        Returns
        -------
        list of Score
        """
        encoder, models = fitted.estimator_[0], fitted_models(fitted)
        test_rows = encoder.transform(fitted.test_view(data.X_test))
        scores = [
            Score(name, metric, value)
            for name, model in models.items()
            for metric, value in measure(
                data.y_test, model.predict(test_rows), positive_scores(model, test_rows)
            ).items()
        ]
        linear = CLASSIFIER_NAMES["linear"]
        if self.theorem_inputs and linear in models:
            inputs = theorem_4_1_inputs(fitted, encoder, models[linear])
            scores += [Score(linear, metric, value) for metric, value in inputs.items()]
        return scores

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pairs of a view's N/A rows: every classifier's metrics."""
        return metric_outputs(self.classifiers)


def svm_grid_views(
    dataset,
    learner: SvmLearner,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    theorem_inputs: bool = False,
    majority: bool = True,
) -> list[View]:
    """The grid's :class:`~privnb.experiments.View` list: every training view with a :class:`KernelScorer`.

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Needs a sensitive attribute.
    learner : SvmLearner
        The kernels, solver and space.
    ls, k_anonymity : sequences of int
        l of the pruned views, k of the generalized ones (one batch per fold: one lattice search).
    hierarchies : mapping, optional
        Default the data set's own.
    theorem_inputs : bool
        The pruned views' scorers also give Theorem 4.1's inputs.
    majority : bool
        Add the majority-class baseline (:func:`~privnb.experiments.majority_view`).

    Returns
    -------
    list of View
    """
    from privnb.learn.encoding import generalized_kinds

    hierarchies = dataset_hierarchies(dataset, hierarchies)
    if k_anonymity and hierarchies is None:
        raise ValueError(
            "generalized views (k_anonymity) need hierarchies, e.g. "
            "privnb.data.load('adult').hierarchies; pass k_anonymity=() to skip them"
        )
    generalized = learner.estimator(dataset, generalized_kinds(dataset.kinds, hierarchies)) if k_anonymity else None
    views = training_views(
        dataset,
        learner.estimator(dataset),
        generalized,
        ls=ls,
        k_anonymity=k_anonymity,
        hierarchies=hierarchies,
        ordinal_center=learner.ordinal_center,
    )
    names = tuple(CLASSIFIER_NAMES[kernel] for kernel in learner.kernels)
    chosen = [
        View(
            method,
            param,
            view,
            KernelScorer(names, theorem_inputs and method == "pruned"),
            batch="generalized" if method == "generalized" else (method, param),
        )
        for (method, param), view in views.items()
    ]
    return chosen + ([majority_view(CLASSIFICATION_METRICS)] if majority else [])


@shared_doc
def run_svm_grid(
    dataset,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    n_splits: int = 10,
    random_state=None,
    folds=None,
    n_jobs: int | None = None,
    progress: bool = True,
    theorem_inputs: bool = False,
    majority: bool = True,
    **learner,
):
    """Cross-validate every view of the paper grid for every kernel on the same folds (tidy rows).

    Gives the same rows as :func:`privnb.experiments.cross_validate_views` on ``svm_views`` of each
    kernel with the same ``random_state`` (same folds, same per-fold seeds), but each mechanism
    (anatomize and prune, generalize) runs once per (view, fold) for all kernels, (view, fold)
    tasks run in parallel, and duplicates are collapsed (:class:`~privnb.learn.CollapseDuplicates`).

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Needs a sensitive attribute.
    ls, k_anonymity : sequences of int
        l values of the pruned views and k values of the generalized ones (``k_anonymity`` needs
        hierarchies: ``hierarchies`` or the data set's own; the paper has them for Adult only).
    hierarchies : mapping, optional
        Full-domain generalization hierarchies, e.g. ``privnb.data.load("adult").hierarchies``; default the
        data set's ``hierarchies``.
    n_splits : int
        Folds (the paper: 10).
    random_state : int, RandomState or None
        Seeds the folds and every view's anatomization (as in :func:`cross_validate_views`).
        {random_state}
    folds : sequence of int, optional
        Fold indices to run (default all), with the same splits and seeds, e.g. to time one.
    n_jobs : int, optional
        Tasks run in parallel (joblib processes).
    progress : bool
        Show a progress bar over the (view, fold) tasks.
    theorem_inputs : bool
        Also give, for each pruned view and fold, rows of the linear SVC with the metrics of
        :func:`theorem_4_1_inputs` (``w_norm``, ``r2_min``, ...), next to its ``error`` rows.
    majority : bool
        Also give the majority-class baseline's error per fold (classifier and method "majority").
    learner
        The learner (:meth:`SvmLearner.from_options`): ``kernels`` (default both), ``solver`` ("libsvm",
        "sklearnex", "nystroem"), ``space`` (:data:`privnb.learn.SPACES`, default
        :data:`privnb.learn.DEFAULT_SPACE`), ``ordinal_center`` ("mean" | "mode"), ``collapse`` and
        :func:`~privnb.learn.svm_classifier`'s ``C``, ``cache_size``, ``n_components``.

    Returns
    -------
    DataFrame
        Tidy rows (``privnb.experiments.COLUMNS``), classifiers "SVC" (linear) and "SVM" (RBF); an l
        beyond the sensitive domain gives N/A rows with the reason in ``note``.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", arXiv version, October 2016 (MC16; the text gives no venue).
    .. [2] K. Mancuhan and C. Clifton, the same paper's conference version with the appendix (MC16a; its text
       gives neither venue nor year).
    """
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}")
    views = svm_grid_views(
        dataset,
        SvmLearner.from_options(**learner),
        ls=ls,
        k_anonymity=k_anonymity,
        hierarchies=hierarchies,
        theorem_inputs=theorem_inputs,
        majority=majority,
    )
    return run_folds(
        dataset,
        views,
        n_splits=n_splits,
        random_state=random_state,
        folds=folds,
        n_jobs=n_jobs,
        progress=progress,
        desc=f"SVM grid {dataset.name}",
    )
