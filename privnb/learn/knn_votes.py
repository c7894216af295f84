"""The votes of k-NN from neighbour lists: Weka IBk's (:func:`tied_counts`, :func:`weka_vote`) and the
exact-k rule (:func:`vote`); the tie rules are described in :mod:`privnb.learn.knn`.
"""

from __future__ import annotations

import numpy as np

from privnb.validation import check_int

__all__ = ["class_ranks", "tied_counts", "vote", "weka_vote"]


def vote(neighbor_labels, ks, n_classes=None):
    """Majority votes of the first k neighbours for each k in ``ks`` (labels coded 0..n_classes-1).

    Vote ties go to the tied class whose nearest member comes first (the module's vote tie rule).

    Parameters
    ----------
    neighbor_labels : int array of shape (n_query, k_max)
        Class codes of each query's neighbours, nearest first.
    ks : sequence of int
        The k values, each at most k_max.
    n_classes : int, optional
        Number of classes; default the largest code in ``neighbor_labels`` plus 1.

    Returns
    -------
    array of shape (len(ks), n_query)
    """
    labels = np.asarray(neighbor_labels)
    k_max = labels.shape[1]
    ks = [check_int(k, "k") for k in ks]
    if max(ks) > k_max:
        raise ValueError(f"k={max(ks)} needs {max(ks)} neighbours, only {k_max} were searched")
    n_classes = int(labels.max()) + 1 if n_classes is None else n_classes
    onehot = labels[:, :, None] == np.arange(n_classes)
    counts = np.cumsum(onehot, axis=1)
    first = np.where(onehot.any(axis=1), onehot.argmax(axis=1), k_max)
    out = np.empty((len(ks), len(labels)), dtype=np.intp)
    for row, k in enumerate(ks):
        score = counts[:, k - 1, :] * (k_max + 1) - first
        out[row] = score.argmax(axis=1)
    return out


def tied_counts(neighbors, labels, ks, n_classes: int) -> np.ndarray:
    """Class counts among the IBk neighbours for each k in ``ks``, from one tied search for max(ks).

    For k, the neighbours of a query are the rows of its list (:class:`TiedNeighbors` of the search for
    k_max >= k) whose distance is at most the list's k-th distance: a prefix of the list, since it is
    sorted and every row tied with the k-th lies within the k_max-th distance.

    Parameters
    ----------
    neighbors : privnb.learn.knn.TiedNeighbors
        The tied neighbour lists of one search for k_max.
    labels : int array
        Class code 0..n_classes-1 of every training row.
    ks : sequence of int
        The k values, each at most k_max.
    n_classes : int
        Number of classes.

    Returns
    -------
    int array of shape (len(ks), n_query, n_classes)
    """
    offsets, dist = neighbors.offsets, neighbors.sq_dist
    n_query = len(offsets) - 1
    sizes = np.diff(offsets)
    ks = [check_int(k, "k") for k in ks]
    if n_query and sizes.min(initial=max(ks)) < max(ks):
        raise ValueError(f"k={max(ks)} needs {max(ks)} neighbours; some queries have only {sizes.min()}")
    query_of = np.repeat(np.arange(n_query), sizes)
    onehot = np.asarray(labels)[neighbors.index][:, None] == np.arange(n_classes)
    cum = np.vstack([np.zeros((1, n_classes), dtype=np.intp), np.cumsum(onehot, axis=0)])
    out = np.empty((len(ks), n_query, n_classes), dtype=np.intp)
    for row, k in enumerate(ks):
        within = dist <= dist[offsets[:-1] + k - 1][query_of]
        ends = offsets[:-1] + np.bincount(query_of[within], minlength=n_query)
        out[row] = cum[ends] - cum[offsets[:-1]]
    return out


def weka_vote(counts, first) -> np.ndarray:
    """IBk's prediction from class counts (..., n_classes): the most votes, an even split to the class
    with the smallest rank in ``first`` (array: the rank of each class code in the declared order).

    Parameters
    ----------
    counts : int array of shape (..., n_classes)
        Votes per class code.
    first : int array of shape (n_classes,)
        The rank of each class code in the declared order (:func:`class_ranks`).

    Returns
    -------
    int array of shape counts.shape[:-1]
        The predicted class codes.
    """
    ranked = np.take(counts, np.argsort(first), axis=-1)  # columns in declared order
    return np.argsort(first)[ranked.argmax(axis=-1)]  # argmax: the first maximum wins


def class_ranks(classes, class_order=None) -> np.ndarray:
    """Rank of each of the sorted ``classes`` in ``class_order`` (the order Weka declares the class values;
    the sorted order when None): the ``first`` of :func:`weka_vote`.

    Parameters
    ----------
    classes : sequence
        The training classes, sorted.
    class_order : sequence, optional
        Every training class, in the declared order; None: the sorted order.
    """
    if class_order is None:
        return np.arange(len(classes))
    order = list(class_order)
    missing = [c for c in classes if c not in order]
    if missing:
        raise ValueError(f"class_order {order} lacks the training classes {missing}")
    return np.argsort(np.argsort([order.index(c) for c in classes]))
