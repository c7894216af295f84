"""The registry of attacks per release type: attacks take release records, subclasses inherit their base's
attacks, a headline is registered once per type; attacks and utility import no learner and read no attribute of
a fitted learner."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privnb
from privnb.attacks import ATTACKS, Targets, attacks_for, register_attack, release_attacks
from privnb.mechanisms import (
    Anatomy,
    GeneralizedRelease,
    MDAVMicroaggregator,
    MicroaggregatedRelease,
    ProjectionRelease,
    PrunedRelease,
    anatomize,
)
from privnb.nbc import NBCViews

PACKAGE = Path(privnb.__file__).parent
LEARNER_ATTRIBUTES = {"mechanism_", "anatomy_", "generalizer_", "features_", "views_", "estimator_", "pruning_"}


def test_every_release_type_has_its_attacks():
    for kind in (Anatomy, PrunedRelease, GeneralizedRelease, ProjectionRelease, NBCViews):
        assert ATTACKS[kind], kind.__name__
    assert [a.headline for a in ATTACKS[Anatomy]][:2] == ["common", "definetti"]
    assert "common" in [a.headline for a in ATTACKS[GeneralizedRelease]]


def test_a_microaggregated_release_inherits_the_generalized_attacks():
    rows = pd.DataFrame({"x": np.arange(12.0), "s": list("abcabcabcabc")})
    release = MDAVMicroaggregator(["x"], 3).fit(rows).release_
    assert isinstance(release, MicroaggregatedRelease)
    assert [a.headline for a in attacks_for(release)] == [a.headline for a in ATTACKS[GeneralizedRelease]]
    targets = Targets(rows, np.zeros(12, dtype=int), "s", rows, np.zeros(12, dtype=int))
    names = [result.attack for result in release_attacks(release, targets, {})]
    assert names[0] == "common" and "homogeneity" in names


def test_register_attack_refuses_a_second_attack_of_one_headline_and_a_non_type():
    with pytest.raises(ValueError, match="has an attack 'common' already"):
        register_attack(Anatomy, lambda release, targets, options: [], headline="common")
    with pytest.raises(TypeError, match="must be a class"):
        register_attack("anatomy", lambda release, targets, options: [], headline="x")


def test_anatomy_is_its_own_release_record():
    rows = pd.DataFrame({"q": range(8), "s": list("abababab")})
    anatomy = anatomize(rows, "s", 2, random_state=0)
    with pytest.raises(AttributeError):
        anatomy.l = 3  # frozen: a release record is not edited after it is published


def _modules(*parts):
    for part in parts:
        path = PACKAGE / part
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


@pytest.mark.parametrize("path", list(_modules("attacks", "mechanisms/utility.py")), ids=lambda p: p.name)
def test_attacks_and_utility_import_no_learner_and_read_no_fitted_learner_attribute(path):
    tree = ast.parse(path.read_text())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m.startswith(("privnb.learn", "privnb.experiments", "privnb.workbench"))]
    read = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not read & LEARNER_ATTRIBUTES, f"{path.name} reads {sorted(read & LEARNER_ATTRIBUTES)}"
