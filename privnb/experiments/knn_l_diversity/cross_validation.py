"""The k-NN experiment of Section 5 of MC17: the error of k-NN trained on each view, for every k and l.

One :class:`~privnb.experiments.folds.View` per training view (original, identifying, anatomized per l,
anonymized per k), run by :func:`~privnb.experiments.folds.run_folds`; the scorer of each view does one
neighbour search for the largest k and gives one :class:`~privnb.experiments.folds.Score` per k
(:class:`KNeighborsScorer`). The majority-class baseline runs beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone

from privnb._docstrings import shared_doc
from privnb.experiments.class_metrics import CLASSIFICATION_METRICS, measure, metric_outputs, positive_column
from privnb.experiments.folds import FoldData, Score, View, majority_view, run_folds
from privnb.learn.encoding import generalized_kinds
from privnb.learn.knn import IBkClassifier
from privnb.learn.training import (
    AnatomizedTraining,
    GeneralizedTraining,
    IdentifyingTraining,
    OriginalTraining,
)
from privnb.validation import check_int

#: Data sets whose sensitive attribute Weka reads as nominal in the k-NN paper's setting: Adult's
#: education (nominal in the UCI/Weka header), Marketing's discretized age (Weka's Discretize filter
#: outputs a nominal attribute) and Fatality's alcohol involvement. IPUMS' educrec is an integer code in
#: the raw file, which Weka's CSV loader reads as numeric: it keeps the data set's (ordinal) kind.
WEKA_NOMINAL_SENSITIVE = ("adult", "bank", "fars")

#: Readings of the sensitive attribute's kind for the k-NN (``sensitive_kind``).
SENSITIVE_KINDS = ("weka", "nominal", "as-dataset")


def ibk_kinds(dataset, sensitive_kind: str = "weka") -> dict:
    """The column kinds IBk's distance uses for ``dataset`` (Section 5.1.3 of MC17).

    ``"weka"`` (default): the sensitive attribute is nominal (a mismatch adds 1 to the squared distance)
    for the data sets of :data:`WEKA_NOMINAL_SENSITIVE`, as Weka reads the paper's data, and keeps its
    kind otherwise; ``"nominal"``: nominal for every data set; ``"as-dataset"``: ``dataset.kinds`` as they
    are (an ordinal sensitive attribute is then a rank scaled to [0, 1], privnb's earlier reading).

    Parameters
    ----------
    dataset : Dataset
        The data (``name``, ``kinds``, ``sensitive``).
    sensitive_kind : {"weka", "nominal", "as-dataset"}
        The reading.

    Returns
    -------
    dict
        Column -> kind.
    """
    if sensitive_kind not in SENSITIVE_KINDS:
        raise ValueError(f"sensitive_kind must be one of {SENSITIVE_KINDS}, got {sensitive_kind!r}")
    kinds = dict(dataset.kinds)
    if sensitive_kind == "nominal" or (sensitive_kind == "weka" and dataset.name in WEKA_NOMINAL_SENSITIVE):
        kinds[dataset.sensitive] = "nominal"
    return kinds


#: The class values as each data set's own documentation declares them, first first: Weka sends an even
#: vote to the first (``class_order="declared"``). Adult: adult.names, line 95 (">50K, <=50K.");
#: Marketing: bank-names.txt, attribute 7 (housing: "yes","no"); Fatality: the KEEL header (fars.dat) is not
#: available, so the order MC17 names in Section 5.1.1 ("values Injured and No_Injury"). Names as in
#: ``Dataset.target_names``.
DECLARED_CLASS_ORDERS = {
    "adult": (">50K", "<=50K"),
    "bank": ("yes", "no"),
    "fars": ("Injured", "No_Injury"),
}

#: Readings of the order Weka declares the class values in (``class_order``).
CLASS_ORDERS = ("appearance", "declared")


def weka_class_order(dataset, class_order: str = "appearance") -> tuple:
    """The class values in the order Weka declares them; IBk gives an even vote split to the first.

    ``"appearance"`` (default): order of first appearance in the data, as Weka's CSVLoader builds a
    nominal attribute's header (MC17 wrote its training data with Pandas, Section 5.1.3, and Weka read
    such files): Adult ``0`` ("<=50K", the label of adult.data's first row), Marketing ``1`` ("yes",
    housing of bank-full.csv's first kept row), Fatality ``1`` ("Injured"). ``"declared"``: the order of
    the data set's own documentation (:data:`DECLARED_CLASS_ORDERS`), as an ARFF header written from it
    would declare them: Adult ``1`` (">50K") first.

    Parameters
    ----------
    dataset : Dataset
        The data set (``name``, ``y``, ``target_names``).
    class_order : {"appearance", "declared"}
        Which order.

    Returns
    -------
    tuple
        The class labels (values of ``dataset.y``), first first.
    """
    if class_order not in CLASS_ORDERS:
        raise ValueError(f"class_order must be one of {CLASS_ORDERS}, got {class_order!r}")
    if class_order == "appearance":
        return tuple(pd.unique(np.asarray(dataset.y)).tolist())
    declared = DECLARED_CLASS_ORDERS.get(dataset.name)
    if declared is None:
        raise ValueError(
            f"no declared class order is known for {dataset.name!r} (known: {sorted(DECLARED_CLASS_ORDERS)}); "
            "use class_order='appearance'"
        )
    names = list(dataset.target_names)
    return tuple(names.index(name) for name in declared)


@dataclass(frozen=True)
class KNeighborsScorer:
    """Scores a fitted k-NN view for every k from ONE neighbour search for the largest k.

    Parameters
    ----------
    ks : sequence of int
        The k of k-NN; the rows are classifier ``"{k}-NN"``, metrics ``"error"``, ``"balanced_accuracy"`` and
        ``"auc"`` (:data:`~privnb.experiments.class_metrics.CLASSIFICATION_METRICS`; the AUC ranks rows by IBk's
        distribution, :meth:`~privnb.learn.IBkClassifier.predict_proba`).
    """

    ks: Sequence[int]

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The test metrics of the view's k-NN for each k (:meth:`IBkClassifier.predict_many`).

        Parameters
        ----------
        fitted : privnb.learn.ProtectedTraining
            The fitted view wrapping an :class:`~privnb.learn.IBkClassifier`.
        data : FoldData
            The fold's rows.

        Returns
        -------
        list of Score
        """
        model = fitted.estimator_
        predictions, shares = model.predict_many(fitted.test_view(data.X_test), self.ks, proba=True)
        positive = positive_column(model.classes_)
        return [
            Score(f"{k}-NN", metric, value)
            for k, p, share in zip(self.ks, predictions, shares)
            for metric, value in measure(data.y_test, p, share[:, positive]).items()
        ]

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pairs this scorer gives (the N/A rows of a view)."""
        return metric_outputs([f"{k}-NN" for k in self.ks])


def knn_views(dataset, n_neighbors, ls, hierarchies=None, k_anonymity=(), ibk_options=None) -> list[View]:
    """The views of Section 5 of MC17, each scored for every k by :class:`KNeighborsScorer`.

    Original (Definition 8), identifying (Definition 15), anatomized for each l (Definition 14) and, with
    ``hierarchies``, the anonymized 1-NN for each k of ``k_anonymity`` (Definition 7, full-domain).

    Parameters
    ----------
    dataset : Dataset
        The data (``sensitive``, ``orders``, ``quasi_identifiers``).
    n_neighbors : sequence of int
        The k of k-NN (the anonymized view runs 1-NN only, as in the paper).
    ls : sequence of int
        The l of the anatomized views.
    hierarchies : mapping, optional
        Generalization hierarchies per quasi-identifier; None: no anonymized view.
    k_anonymity : sequence of int
        The k of the anonymized views.
    ibk_options : dict, optional
        Further :class:`~privnb.learn.IBkClassifier` parameters (kinds, ties, ranges, class_order).

    Returns
    -------
    list of View
    """
    ibk_options = dict(ibk_options or {})
    base = IBkClassifier(max(n_neighbors), orders=dataset.orders, **ibk_options)
    every_k = KNeighborsScorer(tuple(n_neighbors))
    views = [
        View("original", None, OriginalTraining(base), every_k),
        View("identifying", None, IdentifyingTraining(base, sensitive=dataset.sensitive), every_k),
    ]
    factored = clone(base).set_params(factor_column=dataset.sensitive)
    views += [
        View("anatomized", l, AnatomizedTraining(factored, sensitive=dataset.sensitive, l=l), every_k) for l in ls
    ]
    if hierarchies is not None:
        qis = [q for q in dataset.quasi_identifiers if q in hierarchies]
        # a generalized ordinal quasi-identifier holds range labels ("low-medium", "*"): nominal for the distance
        options = {**ibk_options, "kinds": generalized_kinds(ibk_options.get("kinds") or dataset.kinds, qis)}
        one = IBkClassifier(1, orders=dataset.orders, **options)
        views += [
            View(
                "generalized",
                k,
                GeneralizedTraining(one, quasi_identifiers=qis, k=k, hierarchies=hierarchies),
                KNeighborsScorer((1,)),
            )
            for k in k_anonymity
        ]
    return views


def check_neighbors_ls(n_neighbors, ls):
    """The k and l, each sorted without repeats; a ValueError for none or an l below 2.

    Parameters
    ----------
    n_neighbors, ls : sequences of int
        The k of k-NN and the l of l-diversity.

    Returns
    -------
    (list of int, list of int)
    """
    n_neighbors = sorted({check_int(k, "k") for k in n_neighbors})
    ls = sorted({check_int(l, "l") for l in ls})
    if not n_neighbors or not ls or ls[0] < 2:
        raise ValueError(
            f"n_neighbors must be non-empty and ls must be integers >= 2, got n_neighbors={n_neighbors}, ls={ls}"
        )
    return n_neighbors, ls


VIEWS = ("original", "identifying", "anatomized", "generalized", "majority")


def ibk_options(dataset, *, ties="weka", ranges="weka", sensitive_kind="weka", class_order="appearance") -> dict:
    """The :class:`~privnb.learn.IBkClassifier` parameters of the Weka readings (see :func:`cross_validate_knn`).

    Parameters
    ----------
    dataset : Dataset
        The data.
    ties, ranges : str
        IBk's tie and range rules.
    sensitive_kind : str
        As in :func:`ibk_kinds`.
    class_order : str
        As in :func:`weka_class_order`.

    Returns
    -------
    dict
        ``kinds``, ``ties``, ``ranges``, ``class_order``.
    """
    return {
        "kinds": ibk_kinds(dataset, sensitive_kind),
        "ties": ties,
        "ranges": ranges,
        "class_order": weka_class_order(dataset, class_order),
    }


@shared_doc
def cross_validate_knn(
    dataset,
    *,
    n_neighbors=(1, 3, 5, 7, 9),
    ls=(2, 3, 4, 5),
    n_splits=10,
    random_state=None,
    hierarchies=None,
    k_anonymity=None,
    views=VIEWS,
    folds=None,
    n_jobs=None,
    progress=True,
    ties="weka",
    ranges="weka",
    sensitive_kind="weka",
    class_order="appearance",
) -> pd.DataFrame:
    """The k-NN experiment of Section 5 of MC17: every view, every k in ``n_neighbors``, every l.

    The views of :func:`knn_views` and the majority-class baseline, cross-validated by
    :func:`~privnb.experiments.folds.run_folds` (stratified folds shuffled with ``random_state``; the
    anatomization of fold f is seeded from it too, so a seed reproduces the whole table). Each view does
    ONE neighbour search for max(n_neighbors), which serves every k (:class:`KNeighborsScorer`); the views
    of a fold run in one task. An l beyond the sensitive domain gives N/A rows with the reason in ``note``.

    The k-NN is Weka IBk's (:class:`privnb.learn.IBkClassifier`): ``ties="weka"`` (every row tied with
    the k-th distance votes, an even split to the class Weka declares first), ``ranges="weka"`` (min-max
    ranges updated with each test row, in fold order) and ``sensitive_kind="weka"`` (:func:`ibk_kinds`);
    ``ties="exact-k"``, ``ranges="train"`` and ``sensitive_kind="as-dataset"`` give privnb's earlier
    readings.

    Cost: per fold and view one search of n_test queries over the training rows (n_train of them; the
    distinct quasi-identifier rows of D_A for an anatomized view), O(n_test n_train p) time.

    Parameters
    ----------
    dataset : Dataset
        The data (``name``, ``X``, ``y``, ``kinds``, ``orders``, ``sensitive``, ``quasi_identifiers``).
    n_neighbors : sequence of int
        The k of k-NN.
    ls : sequence of int
        The l of the anatomized views (at least 2).
    n_splits : int
        Folds (the paper: 10).
    random_state : int, RandomState or None
        Seeds the folds and every view's mechanism.
        {random_state}
    hierarchies : mapping, optional
        Generalization hierarchies for the anonymized 1-NN; default ``dataset.hierarchies`` when the data
        has them (None: no anonymized view).
    k_anonymity : sequence of int, optional
        The k of k-anonymity (Section 5.1.2: k = l); default ``ls``.
    views : sequence of str
        Which of :data:`VIEWS` run.
    folds : sequence of int, optional
        Fold indices to run (default all), with the same splits and seeds.
    n_jobs : int, optional
        Folds run in parallel processes (joblib), with the same rows.
    progress : bool
        Show a progress bar over the folds.
    ties : {"weka", "exact-k"}
        The tie rule of :class:`~privnb.learn.IBkClassifier`.
    ranges : {"weka", "train"}
        The range rule of :class:`~privnb.learn.IBkClassifier`.
    sensitive_kind : {"weka", "nominal", "as-dataset"}
        How the sensitive attribute enters the distance (:func:`ibk_kinds`).
    class_order : {"appearance", "declared"}
        The class Weka declares first, which wins an even vote (:func:`weka_class_order`).

    Returns
    -------
    DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`): classifier ``"{k}-NN"`` (``"majority"`` for the
        baseline), metric ``"error"``.
    """
    n_neighbors, ls = check_neighbors_ls(n_neighbors, ls)
    unknown = set(views) - set(VIEWS)
    if unknown:
        raise ValueError(f"unknown views {sorted(unknown)}; choose among {', '.join(VIEWS)}")
    if hierarchies is None:
        hierarchies = getattr(dataset, "hierarchies", None) or None
    k_anonymity = ls if k_anonymity is None else sorted({check_int(k, "k") for k in k_anonymity})
    options = ibk_options(dataset, ties=ties, ranges=ranges, sensitive_kind=sensitive_kind, class_order=class_order)
    chosen = [v for v in knn_views(dataset, n_neighbors, ls, hierarchies, k_anonymity, options) if v.method in views]
    if "majority" in views:
        chosen.append(majority_view(CLASSIFICATION_METRICS))
    return run_folds(
        dataset,
        chosen,
        n_splits=n_splits,
        random_state=random_state,
        folds=folds,
        n_jobs=n_jobs,
        progress=progress,
        desc=f"k-NN {dataset.name}",
    )
