"""The loss-threshold membership attack (Yeom et al. 2018): a memorising model leaks, a constant one does not,
the best threshold against brute force, and its invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC

from privnb.attacks import loss_threshold_attack, membership_attack
from privnb.attacks.membership import best_threshold, example_losses, threshold_rates, tpr_at_fpr


def _random_labels(n, seed):
    rng = np.random.RandomState(seed)
    return rng.rand(2 * n, 4), rng.randint(0, 2, 2 * n)


def test_a_memorising_model_gives_the_advantage_of_a_coin_on_non_members():
    # 1-NN on random labels: every member has loss 0, a non-member only when its neighbour's label is right
    # (half the time): TPR 1, FPR 1/2, so accuracy 3/4 and advantage 1/4, AUC 3/4
    X, y = _random_labels(1000, 0)
    model = KNeighborsClassifier(1).fit(X[:1000], y[:1000])
    result = membership_attack(model, X[:1000], y[:1000], X[1000:], y[1000:], random_state=0)
    assert result.baseline == 0.5 and result.n_targets == 1000 and result.details["loss"] == "log loss"
    assert result.advantage == pytest.approx(0.25, abs=0.05)
    assert result.details["tpr"] == 1.0 and result.details["auc"] == pytest.approx(0.75, abs=0.05)
    assert result.details["in_sample_advantage"] == pytest.approx(0.25, abs=0.05)


def test_a_constant_model_tells_nobody_apart():
    X, y = _random_labels(1000, 1)
    model = DummyClassifier(strategy="prior").fit(X[:1000], y[:1000])
    result = membership_attack(model, X[:1000], y[:1000], X[1000:], y[1000:], random_state=0)
    assert abs(result.advantage) < 0.05 and result.details["auc"] == pytest.approx(0.5, abs=0.05)


def test_the_best_threshold_of_a_hand_example():
    members, others = [0.1, 0.5, 0.9, 0.2], [0.3, 0.6, 0.05, 1.0]
    # t = 0.2: 2/4 members and 1/4 non-members at or below; 0.5 and 0.9 tie at 1/4; 0.2 is the smallest
    assert best_threshold(members, others) == (0.2, 0.25)
    tpr, fpr = threshold_rates(members, others, [-np.inf, 0.1, 0.2, 1.0])
    assert list(tpr) == [0, 0.25, 0.5, 1] and list(fpr) == [0, 0.25, 0.25, 1]
    result = loss_threshold_attack(members, others, random_state=0)
    assert result.details["in_sample_advantage"] == 0.125
    assert result.details["auc"] == 9 / 16  # member below non-member in 3 + 3 + 2 + 1 of 16 pairs
    assert result.details["yeom_advantage"] == 0  # at the mean member loss 0.425: 0.1, 0.2 against 0.05, 0.3


def _brute_force(members, others):
    best = 0.0
    for t in sorted({*members, *others}):
        tpr = sum(loss <= t for loss in members) / len(members)
        fpr = sum(loss <= t for loss in others) / len(others)
        best = max(best, tpr - fpr)
    return best


losses = st.lists(st.integers(0, 6).map(float), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(losses, losses, st.integers(0, 2**16))
def test_the_threshold_attack_against_brute_force_and_its_invariants(members, others, seed):
    _, gap = best_threshold(members, others)
    assert gap == pytest.approx(_brute_force(members, others))
    result = loss_threshold_attack(members, others, random_state=seed)
    n = min(len(members), len(others))
    assert -0.5 <= result.advantage <= 0.5 and 0 <= result.details["in_sample_advantage"] <= 0.5
    assert result.n_targets + result.details["n_calibration"] == 2 * n
    # a threshold attack reads the order of the losses only
    moved = loss_threshold_attack(np.exp(members), np.exp(others), random_state=seed)
    for key in ("tpr", "fpr", "auc", "in_sample_advantage"):
        assert moved.details[key] == pytest.approx(result.details[key])
    # members and non-members swapped: the AUC turns over
    swapped = loss_threshold_attack(others, members, random_state=seed)
    if len(members) == len(others):
        assert swapped.details["auc"] == pytest.approx(1 - result.details["auc"])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**16))
def test_relabelling_the_classes_changes_nothing(seed):
    X, y = _random_labels(40, seed)
    names = np.array(["zebra", "aardvark"])[y]  # the order of the names reverses the order of the classes
    results = [
        membership_attack(KNeighborsClassifier(3).fit(X[:40], t[:40]), X[:40], t[:40], X[40:], t[40:], random_state=1)
        for t in (y, names)
    ]
    assert results[0] == results[1]


def test_the_loss_each_kind_of_classifier_gives():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    svm = LinearSVC(C=100).fit(X, y)
    losses, kind = example_losses(svm, X, y)
    margin = np.where(y == 1, 1, -1) * svm.decision_function(X)
    assert kind == "hinge loss" and np.allclose(losses, np.maximum(0, 1 - margin))

    class Labels:  # predict only
        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    assert example_losses(Labels(), X, y)[1] == "0-1 loss" and list(example_losses(Labels(), X, y)[0]) == [0, 0, 1, 1]
    losses, kind = example_losses(DummyClassifier(strategy="prior").fit(X, y), X, np.array([0, 1, 2, 2]))
    assert kind == "log loss" and np.allclose(losses[:2], np.log(2)) and (losses[2:] == -np.log(1e-12)).all()


def test_sparse_rows_give_what_dense_rows_give():
    X, y = _random_labels(60, 2)
    X = (X > 0.5).astype(float)  # binary items, as the containment linkage holds them
    model = LinearSVC().fit(X[:60], y[:60])
    dense = membership_attack(model, X[:60], y[:60], X[60:], y[60:], random_state=3)
    sparse = membership_attack(model, csr_matrix(X[:60]), y[:60], csr_matrix(X[60:]), y[60:], random_state=3)
    assert sparse == dense and dense.details["loss"] == "hinge loss"


def test_bad_input_says_what_to_do():
    with pytest.raises(ValueError, match="at least 2 members and 2 non-members"):
        loss_threshold_attack([0.1], [0.2, 0.3])
    with pytest.raises(ValueError, match="calibration must lie"):
        loss_threshold_attack([0.1, 0.2], [0.2, 0.3], calibration=1.0)
    with pytest.raises(ValueError, match="NaN"):
        loss_threshold_attack([0.1, np.nan], [0.2, 0.3])
    X, y = _random_labels(5, 0)
    model = DummyClassifier().fit(X, y)
    with pytest.raises(ValueError, match="one label per row"):
        membership_attack(model, X[:5], y[:4], X[5:], y[5:])


def test_labels_of_another_type_than_the_models_classes_are_refused():
    # 0/1 labels against a model of "no"/"yes": every row would get probability 0, and the attack read "no risk"
    X, y = _random_labels(50, 4)
    model = KNeighborsClassifier(3).fit(X[:50], np.where(y[:50] == 1, "yes", "no"))
    with pytest.raises(ValueError, match="not the model's classes"):
        membership_attack(model, X[:50], y[:50], X[50:], y[50:])
    with pytest.raises(ValueError, match="not the model's classes"):  # numbers as text
        example_losses(KNeighborsClassifier(3).fit(X[:50], y[:50]), X[50:], y[50:].astype(str))
    with pytest.raises(ValueError, match="not the model's classes"):  # a margin model too
        example_losses(LinearSVC().fit(X[:50], y[:50] + 5), X[50:], y[50:])
    numbers = KNeighborsClassifier(3).fit(X[:50], y[:50])  # numbers held as objects are numbers
    assert np.array_equal(
        example_losses(numbers, X[50:], y[50:].astype(object))[0], example_losses(numbers, X[50:], y[50:])[0]
    )


def test_repeated_calibration_splits_average_and_report_their_spread():
    rng = np.random.RandomState(0)
    members, others = rng.rand(300), rng.rand(300) + 0.2
    one = loss_threshold_attack(members, others, n_splits=1, random_state=5)
    many = loss_threshold_attack(members, others, n_splits=20, random_state=5)
    assert one.details["advantage_std"] == 0 and many.details["n_splits"] == 20
    assert 0 < many.details["advantage_std"] < 0.05
    # the first split is the single split's; the mean of twenty moves less than one split does
    assert abs(many.advantage - one.advantage) < 3 * many.details["advantage_std"]
    for key in ("auc", "in_sample_advantage", "tpr_at_1pct_fpr"):
        assert many.details[key] == one.details[key]  # threshold-free: the same balanced rows
    with pytest.raises(ValueError, match="n_splits"):
        loss_threshold_attack(members, others, n_splits=0)


@settings(max_examples=40, deadline=None)
@given(losses, losses, st.sampled_from([0.0, 0.01, 0.25, 0.5, 1.0]))
def test_tpr_at_a_false_positive_rate_against_brute_force(members, others, level):
    best = 0.0
    for t in [-np.inf, *sorted({*members, *others})]:
        if sum(loss <= t for loss in others) / len(others) <= level:
            best = max(best, sum(loss <= t for loss in members) / len(members))
    assert tpr_at_fpr(members, others, level) == pytest.approx(best)
