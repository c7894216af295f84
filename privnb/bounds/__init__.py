"""Sympy statements of the papers' bounds and identities, with lambdified numeric versions.

- :mod:`privnb.bounds.theorem_4_1`: the generalization bound of the SVM paper (MC16, Theorem 4.1).
- :mod:`privnb.bounds.knn`: the k-NN paper's constant beta and error series (MC17).
- :mod:`privnb.bounds.amplification`: the amplification criterion of the NBC paper (MZ09).
"""

from . import amplification, knn, theorem_4_1
from .amplification import *  # noqa: F403
from .knn import *  # noqa: F403
from .theorem_4_1 import *  # noqa: F403

__all__ = [*amplification.__all__, *knn.__all__, *theorem_4_1.__all__]
