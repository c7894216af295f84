"""LiRA (Carlini et al. 2022): it beats the loss threshold on a memorising model, is at chance on a constant one,
its Gaussian likelihood ratio against a hand computation, and its shadow models' rows."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import csr_matrix
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC, LinearSVC

from privnb.attacks import lira_attacks, lira_scores, membership_attack
from privnb.attacks.lira import logit_confidence, shadow_confidences


def _noisy_blobs(n, seed, flip=0.2):
    """Two features, the label the sign of the first, a share ``flip`` of labels flipped: easy and hard rows."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = (X[:, 0] > 0).astype(int)
    flipped = rng.rand(n) < flip
    return X, np.where(flipped, 1 - y, y)


def _split(seed):
    X, y = _noisy_blobs(3000, seed)
    return (X[:500], y[:500]), (X[500:1000], y[500:1000]), (X[1000:], y[1000:])


def test_lira_beats_the_loss_threshold_on_a_memorising_model():
    # 1-NN: every member has probability 1, and so does a non-member whose neighbour shares its label (an easy
    # row): the loss threshold cannot call anyone a member at 1% false positives. LiRA knows which rows are
    # hard (their OUT models give them a low phi) and finds the members among them (about 0.10 here, at
    # every seed tried; the accuracies stay alike: both call every easy row a member).
    (Xm, ym), (Xo, yo), (Xp, yp) = _split(0)
    model = KNeighborsClassifier(1).fit(Xm, ym)
    loss = membership_attack(model, Xm, ym, Xo, yo, random_state=0)
    online, offline = lira_attacks(model, Xm, ym, Xo, yo, Xp, yp, random_state=0)
    assert (online.attack, offline.attack) == ("lira_online", "lira_offline")
    assert online.baseline == 0.5 and online.n_targets == 500 and online.details["n_shadows"] == 16
    assert loss.details["tpr_at_1pct_fpr"] <= 0.02
    for lira in (online, offline):
        assert lira.details["tpr_at_1pct_fpr"] > 0.06 > loss.details["tpr_at_1pct_fpr"] + 0.04
        assert lira.details["auc"] > loss.details["auc"] + 0.05
        assert lira.advantage > loss.advantage - 0.02
        assert lira.details["tpr_at_0_1pct_fpr"] <= lira.details["tpr_at_1pct_fpr"]
        assert lira.details["n_splits"] == 10 and lira.details["advantage_std"] > 0


def test_lira_is_at_chance_on_a_constant_model():
    (Xm, ym), (Xo, yo), (Xp, yp) = _split(1)
    model = DummyClassifier(strategy="prior").fit(Xm, ym)
    for lira in lira_attacks(model, Xm, ym, Xo, yo, Xp, yp, random_state=0):
        assert abs(lira.advantage) < 0.05 and lira.details["auc"] == pytest.approx(0.5, abs=0.06)
        assert lira.details["tpr_at_1pct_fpr"] < 0.05


def _log_normal(x, mu, sd):
    return -0.5 * math.log(2 * math.pi * sd * sd) - (x - mu) ** 2 / (2 * sd * sd)


def test_the_likelihood_ratio_against_a_hand_computation():
    rng = np.random.RandomState(3)
    confidences = rng.randn(6, 4) * 2
    inside = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 1], [0, 0, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]], bool)
    phi = rng.randn(4)
    online = lira_scores(confidences, inside, phi, min_std=1e-9)
    offline = lira_scores(confidences, inside, phi, online=False, min_std=1e-9)
    pooled = {side: [] for side in (True, False)}
    fits = {}
    for t in range(4):
        for side in (True, False):
            values = [confidences[m, t] for m in range(6) if inside[m, t] == side]
            mu = sum(values) / len(values)
            fits[t, side] = mu, math.sqrt(sum((v - mu) ** 2 for v in values) / len(values))
            pooled[side] += [(v - mu) ** 2 for v in values]
        (mu_in, sd_in), (mu_out, sd_out) = fits[t, True], fits[t, False]
        assert online[t] == pytest.approx(_log_normal(phi[t], mu_in, sd_in) - _log_normal(phi[t], mu_out, sd_out))
        cdf = 0.5 * (1 + math.erf((phi[t] - mu_out) / (sd_out * math.sqrt(2))))
        assert offline[t] == pytest.approx(math.log(cdf))
    fixed = lira_scores(confidences, inside, phi, fix_variance=True, min_std=1e-9)
    sd = {side: math.sqrt(sum(v) / len(v)) for side, v in pooled.items()}
    for t in range(4):
        expected = _log_normal(phi[t], fits[t, True][0], sd[True]) - _log_normal(phi[t], fits[t, False][0], sd[False])
        assert fixed[t] == pytest.approx(expected)
    # the floor: a target whose IN models all agree gets sigma_in = min_std, not 0
    flat = np.where(inside, 1.0, confidences)
    floored = lira_scores(flat, inside, phi, min_std=0.5)
    assert floored[0] == pytest.approx(_log_normal(phi[0], 1.0, 0.5) - _log_normal(phi[0], *fits[0, False]))


_FITS = []


class _Recorder(KNeighborsClassifier):
    """A 1-NN that keeps the rows of every fit in ``_FITS`` (its clones too)."""

    def fit(self, X, y):
        _FITS.append(np.asarray(X).copy())
        return super().fit(X, y)


def test_each_target_is_in_half_the_shadow_models_beside_population_rows_only():
    (Xm, ym), _, (Xp, yp) = _split(4)
    targets, labels = Xm[:40], ym[:40]
    _FITS.clear()
    confidences, inside = shadow_confidences(
        _Recorder(1), targets, labels, Xp[:100], yp[:100], n_shadows=6, shadow_size=70, random_state=0
    )
    assert confidences.shape == inside.shape == (6, 40) and (inside.sum(axis=0) == 3).all()
    known = {tuple(row) for row in np.r_[targets, Xp[:100]]}
    for m, rows in enumerate(_FITS):
        assert len(rows) == 70 and {tuple(r) for r in rows} <= known
        held = {tuple(r) for r in targets[inside[m]]}
        assert held == {tuple(r) for r in rows} & {tuple(r) for r in targets}
        assert (confidences[m, inside[m]] > 20).all()  # a 1-NN holds its own rows with probability 1


@pytest.mark.parametrize(
    "model, as_frame",
    [(SVC(probability=True, random_state=0), False), (LinearSVC(), True), (KNeighborsClassifier(3), "sparse")],
)
def test_lira_reads_probabilities_margins_frames_and_sparse_rows(model, as_frame):
    (Xm, ym), (Xo, yo), (Xp, yp) = _split(5)
    Xm, ym, Xo, yo, Xp, yp = Xm[:150], ym[:150], Xo[:100], yo[:100], Xp[:400], yp[:400]
    wrap = {
        False: lambda X: X,
        True: lambda X: pd.DataFrame(X, columns=["a", "b"]),
        "sparse": csr_matrix,
    }[as_frame]
    fitted = model.fit(wrap(Xm), ym)
    online, offline = lira_attacks(fitted, wrap(Xm), ym, wrap(Xo), yo, wrap(Xp), yp, n_shadows=4, random_state=0)
    assert online.n_targets == offline.n_targets == 100 and 0 <= online.details["auc"] <= 1


def test_the_shadow_models_show_a_progress_bar_only_when_asked(capsys):
    (Xm, ym), _, (Xp, yp) = _split(7)
    args = (KNeighborsClassifier(3), Xm[:30], ym[:30], Xp[:60], yp[:60])
    quiet = shadow_confidences(*args, n_shadows=2, random_state=0)
    assert "LiRA shadow models" not in capsys.readouterr().err
    loud = shadow_confidences(*args, n_shadows=2, random_state=0, progress=True)
    assert "LiRA shadow models" in capsys.readouterr().err
    np.testing.assert_array_equal(quiet[0], loud[0])


def test_logit_confidence_of_each_kind_of_model():
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    proba = logit_confidence(DummyClassifier(strategy="prior").fit(X, [0, 0, 0, 1]), X, y)
    np.testing.assert_allclose(proba, [math.log(3), math.log(3), -math.log(3), -math.log(3)])
    margin = LinearSVC().fit(X, y)
    np.testing.assert_allclose(logit_confidence(margin, X, y), np.where(y == 1, 1, -1) * margin.decision_function(X))


def test_lira_refuses_labels_of_another_type_and_odd_shadow_counts():
    (Xm, ym), (Xo, yo), (Xp, yp) = _split(6)
    model = KNeighborsClassifier(1).fit(Xm, np.where(ym == 1, "yes", "no"))
    with pytest.raises(ValueError, match="not the model's classes"):
        lira_attacks(model, Xm, ym, Xo, yo, Xp, yp, n_shadows=2)
    with pytest.raises(ValueError, match="even"):
        shadow_confidences(model, Xm, ym, Xp, yp, n_shadows=3)
    with pytest.raises(ValueError, match="population"):
        shadow_confidences(model, Xm, ym, Xp[:10], yp[:10], n_shadows=2, shadow_size=500)
    with pytest.raises(ValueError, match="OUT shadow model"):
        lira_scores(np.zeros((2, 1)), np.ones((2, 1), bool), np.zeros(1))
