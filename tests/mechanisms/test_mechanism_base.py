"""The mechanism base: one validation and one place that counts suppressed rows, for every mechanism."""

import numpy as np
import pandas as pd
import pytest

from privnb.data import Hierarchy
from privnb.mechanisms import Anatomizer, AnatomyPruner, FullDomainGeneralizer, Mechanism, MondrianGeneralizer
from privnb.mechanisms.anatomy import SensitiveDropper


def _rows(n=60, seed=0):
    rng = np.random.RandomState(seed)
    return pd.DataFrame({"age": rng.randint(20, 60, n), "zip": rng.randint(0, 4, n), "s": rng.randint(0, 4, n)})


def _mechanisms():
    age = Hierarchy.intervals(0, 100, width=10, name="age")
    return [
        SensitiveDropper("s"),
        Anatomizer("s", 2, random_state=0),
        AnatomyPruner("s", 3, random_state=0),
        MondrianGeneralizer(quasi_identifiers=["age", "zip"], k=5),
        FullDomainGeneralizer(quasi_identifiers=["age"], k=25, hierarchies={"age": age}, max_suppression=0.5),
    ]


@pytest.mark.parametrize("mechanism", _mechanisms(), ids=lambda m: type(m).__name__)
def test_every_mechanism_counts_its_suppressed_rows_through_the_base(mechanism):
    assert isinstance(mechanism, Mechanism)
    X, y = _rows(), np.arange(60) % 2
    released, labels = mechanism.fit_resample(X, y)
    assert mechanism.n_suppressed_ == len(mechanism.suppressed_)
    assert len(released) == len(labels)
    assert set(mechanism.suppressed_) <= set(range(len(X)))


@pytest.mark.parametrize("mechanism", _mechanisms(), ids=lambda m: type(m).__name__)
def test_every_mechanism_refuses_labels_of_another_length(mechanism):
    with pytest.raises(ValueError, match="one label per training row"):
        mechanism.fit_resample(_rows(), np.zeros(59))


def test_a_mechanism_without_its_own_step_says_so():
    class Nothing(Mechanism):
        pass

    with pytest.raises(NotImplementedError, match="_fit_resample"):
        Nothing().fit_resample(_rows(), np.zeros(60))
