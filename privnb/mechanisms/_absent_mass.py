"""A monotone necessary condition of t-closeness, which lets Flash's search bound the nodes a t-closeness model
can accept (:func:`~privnb.mechanisms._model_checks.candidate_nodes`).

A class's Earth Mover's Distance to the input table's distribution P is at least the mass P puts on the values
the class lacks, each unit carried from another value, so at least the least ground distance from that value
to any other: ``EMD >= sum over absent v of P_v * d_v`` (Li, Li and Venkatasubramanian 2007, Section 4: the
EMD is the least cost of a flow between the two distributions). A class whose *absent mass* exceeds t fails
t-closeness. Merging classes only removes absent values, so a merged class whose absent mass exceeds t is made
of classes that all exceed it: like distinct l-diversity, the rows failing this condition only shrink up the
lattice, and Flash classifies it exactly. ``d_v`` is 1 under the equal distance, ``1 / (m - 1)`` under the
ordered one (m values in the domain), and under the hierarchical one ``level / H`` of the lowest ancestor of v
that holds another value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privnb.mechanisms._ground_distances import ordered_domain, tree
from privnb.mechanisms.privacy_models import PrivacyModel, TCloseness

__all__ = ["AbsentMass", "absent_mass"]

#: Slack over t: a class is refused only when its absent mass exceeds t by more than any rounding of the EMD.
SLACK = 1e-9


@dataclass(frozen=True)
class AbsentMass(PrivacyModel):
    """Classes whose absent mass (the module's docstring) is at most ``limit``.

    Parameters
    ----------
    weights : tuple of float
        ``P_v * d_v`` per value, in the count matrix's column order.
    limit : float
        The model's t, with :data:`SLACK`.
    """

    weights: tuple
    limit: float
    name = "absent mass"

    def class_holds(self, counts, overall):
        """Classes whose weighted absent values sum to at most ``limit``.

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds` (``overall`` is already in the weights).
        """
        return (np.asarray(counts) == 0) @ np.asarray(self.weights) <= self.limit


def absent_mass(model: TCloseness, overall: np.ndarray, values) -> AbsentMass | None:
    """The absent-mass condition of a t-closeness model compared with the input's distribution ``overall``
    (None for ``reference="release"``, whose distribution changes with the suppression).

    Parameters
    ----------
    model : TCloseness
        The model (``values`` and ``order`` filled in, as :class:`~privnb.mechanisms._model_checks.ModelCheck`
        holds it).
    overall : ndarray of shape (n_values,)
        The input table's sensitive distribution.
    values : sequence
        The sensitive values of the columns.

    Returns
    -------
    AbsentMass or None
    """
    if model.reference != "input":
        return None
    n_values = len(values)
    if n_values < 2:
        distance = np.zeros(n_values)
    elif model.distance == "equal":
        distance = np.ones(n_values)
    elif model.distance == "ordered":
        m = ordered_domain(values, overall > 0, model.order)[1]
        distance = np.full(n_values, 1 / (m - 1))
    else:
        weights, child_of_value, parent_of_child = tree(model.hierarchy, tuple(values))[:3]
        distance = np.zeros(n_values)
        for weight, children, parents in zip(weights[::-1], child_of_value[::-1], parent_of_child[::-1]):
            node = parents[children]  # each value's ancestor at this level
            shared = np.bincount(node)[node] > 1
            distance[shared] = weight  # lower levels overwrite: the lowest ancestor holding another value
    return AbsentMass(tuple((overall * distance).tolist()), model.t + SLACK)
