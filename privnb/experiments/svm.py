"""Seed 003's experiment grid: both kernels on every training view and fold, each (view, fold) anonymized,
encoded and collapsed once, and the inputs of Theorem 4.1 measured on the pruned linear SVCs.

The learner's input space is a parameter (``space``, :data:`privnb.learn.SPACES`): "appendix_b" is the paper's
R^(d+1) (Appendix B of seed 000: one centred column per attribute), "one_hot" privnb's standardized one-hot
encoding; Appendix B's ordinal centring is read either way (``ordinal_center``, :func:`compare_ordinal_centers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sklearn.base import clone

from privnb.learn.svm import CLASSIFIER_NAMES, KERNELS, KernelBank, encoded_classifier, svm_classifier, svm_pipeline
from privnb.learn.training import PrunedTraining
from privnb.validation import seed_unset_random_states


def svm_views(
    dataset,
    kernel: str | None = "rbf",
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    solver: str = "libsvm",
    collapse: bool = True,
    generalization: str = "full-domain",
    space: str = "one_hot",
    ordinal_center: str = "mean",
    **options,
) -> dict:
    """The training views of Section 5 for one kernel, keyed ``(classifier, method, param)``.

    ``space`` is the learner's input space ("one_hot" | "appendix_b", :data:`privnb.learn.SPACES`);
    ``ordinal_center`` ("mean" | "mode") Appendix B's ordinal centring, in the pruning step and the encoder.

    Original, identifying, pruned for each l in ``ls`` and generalized (k-anonymity; ``hierarchies``
    for full-domain generalization) for each k in ``k_anonymity``. ``kernel=None`` leaves the classifier out
    (keys ``(method, param)``, estimator ``None``): the mechanisms alone, as :func:`run_svm_grid` uses them.
    """
    from privnb.learn.encoding import generalized_kinds
    from privnb.learn.training import GeneralizedTraining, IdentifyingTraining, OriginalTraining

    if dataset.sensitive is None:
        raise ValueError(f"dataset {dataset.name!r} has no sensitive attribute; the SVM grid needs one")

    def pipeline(kinds=None):
        if kernel is None:
            return None
        return svm_pipeline(
            dataset,
            kernel,
            solver=solver,
            collapse=collapse,
            space=space,
            ordinal_center=ordinal_center,
            kinds=kinds,
            **options,
        )

    model = pipeline()
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
    generalized_model = pipeline(generalized_kinds(dataset.kinds, hierarchies)) if k_anonymity else None
    for k in k_anonymity:
        views[("generalized", k)] = GeneralizedTraining(
            generalized_model,
            quasi_identifiers=list(dataset.quasi_identifiers),
            k=k,
            method=generalization,
            hierarchies=hierarchies,
        )
    if kernel is None:
        return views
    name = CLASSIFIER_NAMES.get(kernel, kernel)
    return {(name, *key): view for key, view in views.items()}


def theorem_4_1_inputs(view, encoder, svc) -> dict:
    """What Theorem 4.1 (seed 003) needs from a fitted pruned view and its linear SVC.

    ``w_norm`` is ||w_p|| of the SVC fitted on D_P (encoded by ``encoder``, fitted on D_P);
    ``r2_min`` and ``r2_max`` are the smallest and largest squared norms of D_A (the prerequisite
    step, Figure B.1) in that encoded space, so that [r_p^2] = R^2 ||w_p||^2 measures R_p and w_p
    alike (:func:`privnb.bounds.rp2_range_from_data`); ``appendix_b_r2_min`` and
    ``appendix_b_r2_max`` are the same extremes in the Appendix B preprocessing, the space the pruning
    step chose rows in; ``dimension`` is the number of coordinates the SVC sees (d + 1 in the paper's
    notation, :func:`privnb.experiments.theorem_4_1_table` takes d = dimension - 1).
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


def _fit_fold(dataset_name, names, views, X, y, train, test, fold, seed, na_errors, theorem_inputs):
    """One fold's task: for each (key, view), apply the mechanism once, encode and collapse its rows
    once, fit every kernel's classifier (a :class:`KernelBank`), score on the raw test rows (and record
    :func:`theorem_4_1_inputs` of pruned views when asked); ``names`` are the bank's classifiers.
    """
    rows = []
    for (method, param), view in views:
        param = np.nan if param is None else float(param)
        view = seed_unset_random_states(clone(view), seed)
        try:
            view.fit(X.iloc[train], y[train])
        except na_errors as error:
            rows += [
                (dataset_name, name, method, param, fold, "error", np.nan, np.nan, np.nan, f"N/A: {error}")
                for name in names
            ]
            continue
        encoder, last = view.estimator_[0], view.estimator_[-1]
        models = getattr(last, "estimator_", last).models_  # the bank, behind CollapseDuplicates or not
        test_rows = encoder.transform(view.test_view(X.iloc[test]))
        rows += [
            (
                dataset_name,
                name,
                method,
                param,
                fold,
                "error",
                float(np.mean(model.predict(test_rows) != y[test])),
                view.n_train_,
                view.n_suppressed_,
                "",
            )
            for name, model in models.items()
        ]
        linear = CLASSIFIER_NAMES["linear"]
        if theorem_inputs and method == "pruned" and linear in models:
            rows += [
                (dataset_name, linear, method, param, fold, metric, value, view.n_train_, view.n_suppressed_, "")
                for metric, value in theorem_4_1_inputs(view, encoder, models[linear]).items()
            ]
    return rows


def run_svm_grid(
    dataset,
    *,
    kernels: Sequence[str] = KERNELS,
    ls: Sequence[int] = (2, 3, 4, 5),
    k_anonymity: Sequence[int] = (),
    hierarchies: Mapping | None = None,
    n_splits: int = 10,
    solver: str = "libsvm",
    collapse: bool = True,
    random_state=None,
    folds=None,
    n_jobs: int | None = None,
    theorem_inputs: bool = False,
    progress: bool = True,
    space: str = "one_hot",
    ordinal_center: str = "mean",
    **options,
):
    """Cross-validate every view of the paper grid for every kernel on the same folds (tidy rows).

    Gives the same rows as :func:`privnb.experiments.cross_validate_views` on ``svm_views`` of each
    kernel with the same ``random_state`` (same folds, same per-fold seeds), but each mechanism
    (anatomize and prune, generalize) runs once per (view, fold) for all kernels, (view, fold)
    tasks run in parallel, and duplicates are collapsed (:class:`CollapseDuplicates`).

    Parameters
    ----------
    dataset : privnb.data.Dataset
    kernels : sequence of {"linear", "rbf"}
    ls, k_anonymity : sequences of int
        l values of the pruned views and k values of the generalized ones (``k_anonymity`` needs
        ``hierarchies``, e.g. ``privnb.mechanisms.adult_hierarchies()``; the paper has them for Adult only).
    n_splits : int
        Folds (the paper: 10).
    solver : {"libsvm", "sklearnex", "nystroem"}
        "nystroem" replaces the RBF solver only; the linear SVC then uses libsvm.
    collapse : bool
        Collapse duplicate rows (exact; False only to measure it).
    random_state : int, RandomState or None
        Seeds the folds and every view's anatomization (as in :func:`cross_validate_views`).
    folds : sequence of int, optional
        Fold indices to run (default all), with the same splits and seeds, e.g. to time one.
    n_jobs : int, optional
        Tasks run in parallel (joblib processes).
    progress : bool
        Show a progress bar over the (view, fold) tasks.
    space : {"one_hot", "appendix_b"}
        The learner's input space (:data:`privnb.learn.SPACES`): "appendix_b" is seed 003's R^(d+1).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes, in the pruning step and (space "appendix_b") the encoder.
    theorem_inputs : bool
        Also give, for each pruned view and fold, rows of the linear SVC with the metrics of
        :func:`theorem_4_1_inputs` (``w_norm``, ``r2_min``, ...), next to its ``error`` rows.
    options
        Passed to :func:`svm_classifier` (``C``, ``cache_size``, ``n_components``).

    Returns
    -------
    DataFrame
        Tidy rows (``privnb.experiments.COLUMNS``), classifiers "SVC" (linear) and "SVM" (RBF); an l
        beyond the sensitive domain gives N/A rows with the reason in ``note``.

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", arXiv version, October 2016 (seed 003; the text gives no venue).
    .. [2] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", conference version with the appendix (seed 000; its text gives neither venue nor year).
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    from privnb.experiments.folds import chosen_folds, folds_and_seeds, tidy_frame
    from privnb.mechanisms.anatomy import NotLDiverseError

    if k_anonymity and hierarchies is None:
        raise ValueError(
            "generalized views (k_anonymity) need hierarchies, e.g. "
            "privnb.mechanisms.adult_hierarchies(); pass k_anonymity=() to skip them"
        )
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}")
    bank = KernelBank(
        {
            CLASSIFIER_NAMES[kernel]: svm_classifier(
                kernel, solver="libsvm" if solver == "nystroem" and kernel == "linear" else solver, **options
            )
            for kernel in kernels
        }
    )
    views = svm_views(
        dataset, None, ls=ls, k_anonymity=k_anonymity, hierarchies=hierarchies, ordinal_center=ordinal_center
    )
    from privnb.learn.encoding import generalized_kinds

    for (method, _), view in views.items():
        kinds = generalized_kinds(dataset.kinds, hierarchies) if method == "generalized" else None
        view.set_params(
            estimator=encoded_classifier(
                dataset, bank, space=space, ordinal_center=ordinal_center, collapse=collapse, kinds=kinds
            )
        )
    X, y = dataset.X, np.asarray(dataset.y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state)
    folds = chosen_folds(folds, n_splits)
    alone = [[(key, view)] for key, view in views.items() if key[0] != "generalized"]
    generalized = [(key, view) for key, view in views.items() if key[0] == "generalized"]
    tasks = [(fold, group) for fold in folds for group in alone + ([generalized] if generalized else [])]
    outcomes = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_fold)(
            dataset.name,
            list(bank.models),
            group,
            X,
            y,
            *splits[fold],
            fold,
            int(seeds[fold]),
            (NotLDiverseError,),
            theorem_inputs,
        )
        for fold, group in tasks
    )
    rows = [
        row
        for rows in tqdm(outcomes, total=len(tasks), disable=not progress, desc=f"SVM grid {dataset.name}")
        for row in rows
    ]
    return tidy_frame(rows)


def compare_ordinal_centers(
    dataset,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    kernels: Sequence[str] = KERNELS,
    n_splits: int = 10,
    space: str = "appendix_b",
    solver: str = "libsvm",
    random_state=None,
    folds=None,
    **options,
):
    """Appendix B's "set mode of the discrete values to be mean", read both ways, on the pruned views.

    For each fold (the folds and per-fold seeds of :func:`run_svm_grid`, so the anatomy is the grid's) and
    each l, the training fold is anatomized once and pruned with ordinal codes centred on their mean and on
    their mode; the kept rows are compared individual by individual and every kernel is fitted on both D_P
    and scored on the raw test fold.

    Returns
    -------
    DataFrame
        One row per (classifier, l), averaged over folds: ``rows`` (|D_P|), ``kept rows differing`` (individuals
        whose kept candidate differs), ``share differing``, ``error (mean)``, ``error (mode)`` and
        ``mode - mean``. A data set without ordinal attributes gives 0 differing rows and equal errors.
    """
    import pandas as pd

    from privnb.experiments.folds import chosen_folds, folds_and_seeds
    from privnb.mechanisms.anatomy import NotLDiverseError

    bank = KernelBank({CLASSIFIER_NAMES[k]: svm_classifier(k, solver=solver, **options) for k in kernels})
    X, y = dataset.X, np.asarray(dataset.y)
    splits, seeds = folds_and_seeds(y, n_splits, random_state)
    rows = []
    for fold in chosen_folds(folds, n_splits):
        train, test = splits[fold]
        for l in ls:
            fitted = {}
            for center in ("mean", "mode"):
                view = PrunedTraining(
                    encoded_classifier(dataset, bank, space=space, ordinal_center=center),
                    sensitive=dataset.sensitive,
                    l=l,
                    kinds=dict(dataset.kinds),
                    orders=dict(dataset.orders),
                    ordinal_center=center,
                )
                try:
                    fitted[center] = seed_unset_random_states(view, int(seeds[fold])).fit(X.iloc[train], y[train])
                except NotLDiverseError:
                    break
            if len(fitted) < 2:
                continue
            differ = int(np.sum(fitted["mean"].pruning_.kept != fitted["mode"].pruning_.kept))
            test_rows = {c: v.test_view(X.iloc[test]) for c, v in fitted.items()}
            for name in bank.models:
                models = {
                    c: getattr(v.estimator_[-1], "estimator_", v.estimator_[-1]).models_[name]
                    for c, v in fitted.items()
                }
                errors = {
                    c: float(np.mean(models[c].predict(v.estimator_[0].transform(test_rows[c])) != y[test]))
                    for c, v in fitted.items()
                }
                rows.append(
                    {
                        "classifier": name,
                        "l": l,
                        "fold": fold,
                        "rows": len(fitted["mean"].pruning_.kept),
                        "kept rows differing": differ,
                        "error (mean)": errors["mean"],
                        "error (mode)": errors["mode"],
                    }
                )
    columns = [
        "classifier",
        "l",
        "rows",
        "kept rows differing",
        "share differing",
        "error (mean)",
        "error (mode)",
        "mode - mean",
    ]
    if not rows:
        return pd.DataFrame(columns=columns)
    table = pd.DataFrame(rows).groupby(["classifier", "l"], sort=False).mean(numeric_only=True).reset_index()
    table["share differing"] = table["kept rows differing"] / table["rows"]
    table["mode - mean"] = table["error (mode)"] - table["error (mean)"]
    return table[columns]
