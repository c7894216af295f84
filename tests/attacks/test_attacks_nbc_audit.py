"""DP NBC views (a release, in privnb.nbc) and the exact audit as an attack record."""

import numpy as np
import pandas as pd
import pytest

from privnb.attacks import nbc_audit_attack
from privnb.nbc import NBCViews, achieved_r, dp_views


def _views():
    rng = np.random.RandomState(0)
    frame = pd.DataFrame({"a": rng.randint(0, 3, 300), "b": rng.randint(0, 2, 300), "y": rng.randint(0, 2, 300)})
    return NBCViews.from_frame(frame, ["a", "b"], "y")


def test_dp_views_are_realistic_and_audited():
    views = _views()
    for mechanism in ("laplace", "geometric"):
        released = dp_views(views, 1.0, mechanism=mechanism, random_state=0)
        assert released.is_integral() and released.is_realistic()
        assert all((np.asarray(c, dtype=float) >= 1).all() for c in released.counts.values())
        assert 1 <= achieved_r(released) < np.inf
    with pytest.raises(ValueError, match="epsilon"):
        dp_views(views, 0)
    with pytest.raises(ValueError, match="mechanism"):
        dp_views(views, 1.0, mechanism="gauss")


@pytest.mark.parametrize("max_size", [1, 2, None])
def test_the_audit_record_is_r_against_one_with_its_audit_size(max_size):
    released = dp_views(_views(), 0.5, random_state=1)
    result = nbc_audit_attack(released, max_size=max_size)
    assert result.success == achieved_r(released, max_size=max_size) and result.baseline == 1.0
    assert result.advantage == pytest.approx(result.success - 1)
    assert result.details["max_size"] == (2 if max_size is None else max_size)
    assert result.n_targets == {1: 3 + 2, 2: 3 + 2 + 3 * 2, None: 11}[max_size]  # the audited value combinations
