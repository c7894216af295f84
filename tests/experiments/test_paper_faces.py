"""Every paper's face, checked alike (as scikit-learn's ``parametrize_with_checks`` checks every estimator): the
names present and callable, the sections against the notebook's own headings, the headline against the notebook's
and against ``metrics``, the claims in the one claims schema. A toy sixth paper, registered here without editing a
shared module, is checked the same way, and runs."""

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import numpy as np
import pandas as pd
import pytest
from own_data import write_own_data

from privnb.experiments import (
    CLAIM_COLUMNS,
    NOTEBOOKS,
    PAPERS,
    Claim,
    FoldPlan,
    PaperFace,
    Section,
    cross_validate_views,
    evaluate,
    majority_view,
    notebook_plan,
    register_paper,
    section_needs,
    tidy_frame,
)
from privnb.experiments.data_support import NEEDS
from privnb.experiments.papers import section_numbers

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"


def _toy_run(data, plan, **parameters):
    from sklearn.linear_model import LogisticRegression

    views = {"original": LogisticRegression(), ("majority", "majority", None): majority_view().estimator}
    return cross_validate_views(data, views, n_splits=plan.n_splits, random_state=plan.random_state, progress=False)


def _toy_tables(results, **parameters):
    return {"errors": results[results["metric"] == "error"].groupby("method")["value"].mean().to_frame()}


_BEATS_MAJORITY = Claim(
    "TOY",
    "Section 1, TOY:1",
    "the learner beats the majority class",
    "holds",
    lambda errors: "holds" if errors["original"] < errors["majority"] else "fails",
    dataset="toy",
)


def _toy_claims(results, dataset, **parameters):
    if dataset != "toy":
        return evaluate((), None)
    return evaluate([_BEATS_MAJORITY], _toy_tables(results)["errors"]["value"])


def _toy_metrics(results, claims=None, **parameters):
    errors = _toy_tables(results)["errors"]["value"]
    agree = 0 if claims is None else int((claims["verdict"] == "agree").sum())
    return {f"error_{method}": float(value) for method, value in errors.items()} | {"claims_agree": agree}


TOY = PaperFace(
    name="TOY",
    notebook="99_toy_paper",
    sections=lambda **options: (Section(("1. The experiment",), "the learner against the majority", ("table",)),),
    run=_toy_run,
    tables=_toy_tables,
    claims=_toy_claims,
    metrics=_toy_metrics,
    headline=("error_original", "error_*", "claims_agree"),
)


@pytest.fixture
def face(request):
    """The face of ``request.param`` from :data:`PAPERS`; the toy is registered for this test only."""
    name = request.param
    if name == TOY.notebook:
        register_paper(TOY)
        try:
            yield PAPERS[name]
        finally:
            PAPERS.unregister(name)
    else:
        yield PAPERS[name]


FACES = [*PAPERS, TOY.notebook]


def _notebook(face: PaperFace):
    path = NOTEBOOK_DIR / f"{face.notebook}.ipynb"
    return nbformat.read(path, as_version=4) if path.exists() else None


def _headings(nb) -> list[str]:
    return [
        line[3:].strip()
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]


def _headline_patterns(nb) -> list[tuple[str, ...]]:
    """The patterns of every ``matching_keys(metrics, ...)`` call in the notebook's code."""
    calls = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "matching_keys" not in cell.source:
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "matching_keys":
                calls.append(tuple(arg.value for arg in node.args[1:] if isinstance(arg, ast.Constant)))
    return calls


@pytest.mark.parametrize("face", FACES, indirect=True)
def test_face_names_are_present_and_callable(face):
    assert isinstance(face, PaperFace) and face.name and face.notebook
    for name in ("sections", "run", "tables", "claims", "metrics"):
        assert callable(getattr(face, name)), f"{face.notebook}: {name} is not callable"
    assert face.headline and all(isinstance(pattern, str) and pattern for pattern in face.headline)
    sections = face.sections()
    assert sections and all(isinstance(section, Section) and section.headings for section in sections)
    assert len({section.title for section in sections}) == len(sections), "two rows share a title"
    assert section_needs(face.notebook) == face.needs()


@pytest.mark.parametrize("face", FACES, indirect=True)
def test_face_needs_are_needs_the_data_support_knows(face):
    if face.requirements is not None:  # a face that checks its own needs (notebook 04's NBC data)
        return
    options = [{}, {"items": True}, {"anonymity_ks": ()}]
    for needs in (face.needs(**o) for o in options):
        for need in (n for row in needs.values() for n in row):
            assert need.split(":")[0] in NEEDS, f"{face.notebook}: {need!r} is not among {NEEDS}"


@pytest.mark.parametrize("face", FACES, indirect=True)
def test_face_sections_are_the_notebook_headings(face):
    """Each row's sections are headings of the notebook as it is now: a renumbered or renamed section fails."""
    nb = _notebook(face)
    if nb is None:
        assert face.notebook not in NOTEBOOKS, f"{face.notebook} ships no notebook"
        return
    headings = _headings(nb)
    for section in (*face.sections(), *face.sections(items=True), *face.planned):
        for heading in section.headings:
            assert any(h.startswith(heading) for h in headings), (
                f"{face.notebook}: the row {section.title!r} names the section {heading!r}, which is not a heading "
                f"of the notebook (its headings: {headings})"
            )
        assert section.title.startswith(section_numbers(section.headings) + ". ")


@pytest.mark.parametrize("face", FACES, indirect=True)
def test_face_headline_is_the_notebooks(face):
    nb = _notebook(face)
    if nb is None:
        return
    source = "".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert ".headline_keys(metrics)" in source or tuple(face.headline) in _headline_patterns(nb), (
        f"{face.notebook}: the notebook names its headline with other patterns than the face's {face.headline}"
    )


@pytest.mark.parametrize("face", FACES, indirect=True)
def test_face_claims_are_claim_records(face):
    claims = face.claims(tidy_frame(), "no data set of any paper")
    assert isinstance(claims, pd.DataFrame) and list(claims.columns) == list(CLAIM_COLUMNS) and claims.empty


def _toy_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return SimpleNamespace(name="toy", X=X, y=(X[:, 0] > 0).astype(int))


@pytest.mark.parametrize("face", [TOY.notebook], indirect=True)
def test_a_registered_paper_runs_through_its_face(face):
    """The toy runs over a fold plan; its claims are judged records; its metrics hold every headline pattern."""
    results = face.run(_toy_data(), FoldPlan(n_splits=3, random_state=0))
    assert set(results["method"]) == {"original", "majority"}
    claims = face.claims(results, "toy")
    assert list(claims["verdict"]) == ["agree"]
    metrics = face.metrics(results, claims)
    keys = face.headline_keys(metrics)
    assert keys[0] == "error_original" and set(keys) == set(metrics)
    for pattern in face.headline:
        assert any(re.fullmatch(pattern.replace("*", ".*"), key) for key in keys)
    assert set(face.tables(results)) == {"errors"}


def test_the_toy_is_registered_only_inside_its_tests():
    assert TOY.notebook not in PAPERS and list(PAPERS) == list(NOTEBOOKS)


def test_a_registered_paper_is_planned_by_the_check():
    """``notebook_plan`` reaches a registered paper through the registry, with no notebook named in its code."""
    from privnb.experiments import DataSupport

    support = DataSupport(dataset="toy", name="toy", paper=None, n_rows=60)
    register_paper(TOY)
    try:
        plan = notebook_plan(TOY.notebook, support, None, {})
    finally:
        PAPERS.unregister(TOY.notebook)
    assert plan["section"].tolist() == ["1. the learner against the majority"]


def test_section_numbers_join_runs():
    assert section_numbers(["1. a", "2. b", "4. c", "5. d"]) == "1-2, 4-5"
    assert section_numbers(["2. a", "4. b"]) == "2, 4"
    assert section_numbers(["3b. a"]) == "3b"


def test_a_face_without_registration_is_refused():
    with pytest.raises(KeyError, match="register_paper"):
        PAPERS["no_such_notebook"]
    with pytest.raises(ValueError, match="built-in"):
        PAPERS.unregister("00_tour")


def _ward(tmp_path, rows=240):
    from privnb.data import load

    return load(write_own_data(tmp_path, n=rows)["table"])


def _ward_nbc(tmp_path):
    from privnb.experiments import data_support
    from privnb.experiments.nbc_publishing import nbc_data

    data = _ward(tmp_path, rows=400)
    return nbc_data(data_support(str(tmp_path / "ward.yaml"), data), data, ["ward", "sex", "severity"])


def _ward_items(tmp_path):
    from privnb.experiments.feature_selection import selection_inputs

    return selection_inputs([str(write_own_data(tmp_path, n=200)["items"])], random_state=0)


# notebook -> (data, run's parameters, the headline patterns this run must produce: the others need other runners)
TINY = {
    "00_tour": (_ward, {"l": 2, "k": 5}, ("error_original", "error_*")),
    "01_svm_l_diversity": (
        _ward,
        {"ls": [2], "k_anonymity": [5], "kernels": ["linear"]},
        ("majority_error", "mean_error_*_Org.", "mean_error_*_L=*", "claims_agree", "claims_total"),
    ),
    "02_knn_l_diversity": (
        _ward,
        {"n_neighbors": [1], "ls": [2], "k_anonymity": [5]},
        ("mean_error_majority_Majority", "mean_error_1-NN_Org.", "mean_error_1-NN_L=*", "mean_error_1-NN_k=*"),
    ),
    "03_feature_selection_k_ac": (
        _ward_items,
        {"k_ac": [5], "epsilons": [1.0], "n_runs": 1},
        ("*_majority_auc", "*_full_auc", "*_greedy-distcnt_*_auc", "*_greedy-hamdist_*_auc", "*_maximal_*_auc"),
    ),
    "04_nbc_publishing": (
        _ward_nbc,
        {"k_values": [2, 5]},
        ("accuracy_majority", "accuracy_original", "accuracy_drop_max"),
    ),
    "05_privacy_utility": (
        _ward,
        {"ls": [2], "k_anonymity": [5], "n_iter": 5, "peers": ()},
        ("definetti_l*", "homogeneity_*", "membership_5-NN_original", "membership_5-NN_anatomized_*"),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("face", list(TINY), indirect=True)
def test_face_metrics_give_its_headline_on_a_tiny_run(face, tmp_path):
    """``run`` over a two-fold plan on a small table of no paper, then ``metrics``: every headline pattern this run
    can produce names a key ``metrics`` gives (a renamed metric or a stale pattern fails here)."""
    make_data, parameters, produced = TINY[face.notebook]
    results = face.run(make_data(tmp_path), FoldPlan(n_splits=2, random_state=0), **parameters)
    assert len(results) and set(results.columns) >= {"method", "metric", "value"}
    assert all(isinstance(table, pd.DataFrame) for table in face.tables(results).values())
    claims = face.claims(results, "ward")
    assert list(claims.columns) == list(CLAIM_COLUMNS) and claims.empty  # no paper reports on this table
    keys = face.headline_keys(face.metrics(results, claims))
    for pattern in produced:
        assert any(re.fullmatch(re.escape(pattern).replace(r"\*", ".*"), key) for key in keys), (
            f"{face.notebook}: no metric matches the headline pattern {pattern!r} (headline keys: {keys})"
        )
