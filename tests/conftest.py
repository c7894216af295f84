"""Shared fixtures: running a notebook from notebooks/ with papermill, as a sweep point would."""

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _lattice_cache(tmp_path_factory, monkeypatch):
    """Each test's lattice disk cache in a folder of its own (never the user's cache)."""
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path_factory.mktemp("privnb-cache")))


NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.fixture
def run_notebook(tmp_path):
    """Run ``notebooks/<name>`` with the given parameters; return the folder it wrote its artifacts to.

    Every parameter passed must be one of the notebook's parameters cell (papermill would only warn). Skips
    when a data set the notebook loads is not available and PRIVNB_DATA is unset (offline, no data
    folder); with PRIVNB_DATA set, a missing data set fails the test rather than passing it vacuously.
    """
    papermill = pytest.importorskip("papermill")
    import nbformat

    from privnb.data import DataUnavailableError
    from privnb.workbench import parameter_defaults

    def run(name: str, **parameters) -> Path:
        defaults = parameter_defaults(nbformat.read(NOTEBOOKS / name, as_version=4))
        unknown = sorted(set(parameters) - set(defaults))
        assert not unknown, f"{name} has no parameters {unknown} in its parameters cell"
        out = tmp_path / "out"
        try:
            papermill.execute_notebook(
                str(NOTEBOOKS / name),
                str(tmp_path / name),
                cwd=str(NOTEBOOKS),
                parameters={**parameters, "output_dir": str(out)},
                progress_bar=False,
                kernel_name="python3",
            )
        except papermill.PapermillExecutionError as error:
            if error.ename == DataUnavailableError.__name__ and "PRIVNB_DATA" not in os.environ:
                pytest.skip(f"{name} needs a data set that is not available: {error.evalue}")
            raise
        return out

    return run
