"""The project's set-up files agree with each other (pyproject.toml is the one list of dependencies)."""

import re
from pathlib import Path

import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _conda_env():
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def _requirement_name(spec: str) -> str:
    return re.split(r"[\s<>=!~\[;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_python_matches_requires_python():
    requires = _pyproject()["project"]["requires-python"]
    conda_python = [d for d in _conda_env()["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert conda_python, "environment.yml must pin python"
    assert conda_python[0].removeprefix("python") == requires


def test_environment_installs_the_package_with_dev_extra():
    deps = _conda_env()["dependencies"]
    pip_sections = [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    assert pip_sections == [["-e .[dev]"]]
    assert "pip" in deps


def test_environment_lists_no_package_outside_pyproject():
    """Anything conda installs besides python and pip must be a pyproject dependency too."""
    project = _pyproject()["project"]
    known = {_requirement_name(s) for s in project["dependencies"]}
    known |= {_requirement_name(s) for extra in project["optional-dependencies"].values() for s in extra}
    conda_names = {_requirement_name(d) for d in _conda_env()["dependencies"] if isinstance(d, str)} - {"python", "pip"}
    assert conda_names <= known, f"environment.yml lists {sorted(conda_names - known)} not in pyproject.toml"


def test_dev_extra_has_the_test_tools():
    dev = {_requirement_name(s) for s in _pyproject()["project"]["optional-dependencies"]["dev"]}
    assert {"pytest", "hypothesis"} <= dev


def test_console_script_points_at_cli_main():
    assert _pyproject()["project"]["scripts"]["privnb"] == "privnb.__main__:main"
