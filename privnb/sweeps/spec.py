"""Sweep specs: a YAML file naming a notebook, fixed parameters and a grid, expanded into points with
stable ids.

A value that names a data card (a string ending in .yaml or .yml, e.g. ``dataset: [adult, cards/ward.yaml]``)
is a path relative to the spec's folder; the point receives its absolute path and its id reads
``dataset=ward`` (the card's file name without suffix).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from privnb.data.cards import CARD_SUFFIXES
from privnb.files import write_text

SPEC_KEYS = ("notebook", "parameters", "grid", "description")


INJECTED = "output_dir"


_SAFE = re.compile(r"[^A-Za-z0-9._+-]+")


_MAX_ID = 100


def write_json(path: Path, data) -> None:
    """Write ``data`` as indented JSON to ``path``, whole or not at all.

    Parameters
    ----------
    path : Path
        The file.
    data : object
        JSON-ready data (other objects are written as their ``str``).
    """
    write_text(path, json.dumps(data, indent=2, default=str) + "\n")


def read_json(path: Path, default=None):
    """The JSON in ``path``; ``default`` when it is missing; a ValueError naming it when it is damaged.

    Parameters
    ----------
    path : Path
        The file.
    default : object
        What a missing file reads as.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is damaged ({type(error).__name__}: {error})") from None


@dataclass
class Point:
    """One papermill run of a sweep: the notebook, its parameters and its folder."""

    sweep: str
    point_id: str
    notebook: str
    parameters: dict
    output_dir: str
    notebook_name: str = ""
    notebook_sha256: str = ""


@dataclass
class SweepSpec:
    """A parsed sweep spec; see the module docstring for the YAML format."""

    name: str
    path: str
    notebook: str
    parameters: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    description: str = ""
    notebook_name: str = ""
    notebook_sha256: str = ""

    def points(self, out: str | os.PathLike) -> list[Point]:
        """The grid's cartesian product (in spec order) as points under ``out/<name>/``.

        Parameters
        ----------
        out : path
            The results folder.
        """
        sweep_dir = Path(out).resolve() / self.name
        points = []
        for values in expand_grid(self.grid):
            pid = point_id(values)
            parameters = {**self.parameters, **values}
            points.append(
                Point(
                    self.name,
                    pid,
                    self.notebook,
                    parameters,
                    str(sweep_dir / pid),
                    self.notebook_name,
                    self.notebook_sha256,
                )
            )
        ids = [p.point_id for p in points]
        if len(set(ids)) != len(ids):
            raise ValueError(
                f"sweep {self.name!r}: grid values collide once made file-name safe ({ids}); "
                "use values that differ in letters, digits, '.', '_' or '-'"
            )
        return points


def sweep_name(path: str | os.PathLike) -> str:
    """The sweep's name: the spec file name without ``.yaml``/``.yml`` (``00_tour.quick``).

    Parameters
    ----------
    path : path
        The spec file.
    """
    name = Path(path).name
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise ValueError(f"a sweep spec must end in .yaml or .yml, got {path!s}")


def expand_grid(grid: dict) -> list[dict]:
    """The cartesian product of ``grid`` (name -> list of values), first key varying slowest.

    An empty grid gives one point with no swept values.

    Parameters
    ----------
    grid : dict
        Parameter name -> list of values.
    """
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def point_id(values: dict) -> str:
    """A readable, file-name-safe folder name for a grid point: ``dataset=adult,l=2``, ``ls=2+3``.

    Characters other than letters, digits, ``.``, ``_``, ``+`` and ``-`` become ``-``; a name longer than 100
    characters is cut and ends in a hash of the full one. No swept values: ``default``.

    Parameters
    ----------
    values : dict
        The point's swept values (name -> value).
    """
    if not values:
        return "default"
    text = ",".join(f"{_SAFE.sub('-', str(k))}={_SAFE.sub('-', _compact(v))}" for k, v in values.items())
    if len(text) > _MAX_ID:
        import hashlib

        text = f"{text[: _MAX_ID - 9]}~{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    return text


def _compact(value) -> str:
    if isinstance(value, (list, tuple)):  # a list of data sets reads datasets=adult+pu1
        return "+".join(map(_compact, value))
    if isinstance(value, str) and value.lower().endswith(CARD_SUFFIXES):  # a data card reads dataset=ward
        return Path(value).stem
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _resolve_cards(value, folder: Path, spec: Path):
    """Data card paths (strings ending in .yaml/.yml, alone or in lists) made absolute, relative to the spec's
    folder, so that a point finds its card whatever folder its notebook runs in.
    """
    if isinstance(value, list):
        return [_resolve_cards(v, folder, spec) for v in value]
    if not (isinstance(value, str) and value.lower().endswith(CARD_SUFFIXES)):
        return value
    card = (folder / value).resolve()
    if not card.is_file():
        raise ValueError(
            f"sweep spec {spec}: data card {value!r} not found at {card} (a card path is relative to the spec's folder)"
        )
    return str(card)


def notebook_fingerprint(nb) -> str:
    """The sha256 of a notebook's code: its code cells' sources in order (markdown and outputs left out).

    A point records it; a point whose notebook's code changed since is run again.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.
    """
    import hashlib

    sources = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    return hashlib.sha256(json.dumps(sources).encode("utf-8")).hexdigest()


_TYPES = ((bool, (bool,)), (int, (int,)), (float, (int, float)), (str, (str,)), (list, (list,)), (tuple, (list,)))


def _expected_types(default) -> tuple[type, ...] | None:
    """The types a spec value may have for a parameter with this default; None: any value."""
    if isinstance(default, dict):
        return (dict,)
    return next((accepted for kind, accepted in _TYPES if isinstance(default, kind)), None)


def _type_problem(name: str, value, default) -> str | None:
    """Why ``value`` cannot stand for a parameter whose default is ``default``, or None."""
    accepted = _expected_types(default)
    if accepted is None or (isinstance(value, accepted) and not (bool not in accepted and isinstance(value, bool))):
        return None
    names = " or ".join(kind.__name__ for kind in accepted)
    return (
        f"parameter {name!r} = {value!r} is a {type(value).__name__}, but its default in the parameters cell is "
        f"{default!r}, so it expects {names}"
    )


def check_parameter_types(path, notebook: Path, defaults: dict, parameters: dict, grid: dict) -> None:
    """Check every fixed and swept value of a spec against the type of the notebook's default.

    An int default takes an int, a float default an int or a float, a str, bool, list (or tuple) or dict
    default a value of its type; a ``None`` default (or any other) takes anything.

    Parameters
    ----------
    path : path
        The spec file (named in the error).
    notebook : Path
        The notebook (named in the error).
    defaults : dict
        The notebook's parameter defaults (:func:`privnb.experiments.notebook_parameters.cell_defaults`).
    parameters, grid : dict
        The spec's fixed values and its grid (name -> list of values).

    Raises
    ------
    ValueError
        Naming the spec, the parameter, the value and the type expected.
    """
    values = list(parameters.items())
    values += [(name, value) for name, options in grid.items() for value in options]
    problems = [_type_problem(name, value, defaults[name]) for name, value in values if name in defaults]
    problems = [problem for problem in problems if problem]
    if problems:
        raise ValueError(f"sweep spec {path}: {'; '.join(problems)} (notebook {notebook.name})")


def spec_notebook(path: Path, name: str) -> Path:
    """The notebook a spec names, wherever the spec lies.

    ``name`` is looked for relative to the spec folder's parent (``notebooks/`` for a spec in
    ``notebooks/sweeps/``), then relative to the spec's own folder, then among privnb's own notebooks (the
    checkout's ``notebooks/``), so that a spec kept in a folder of one's own can name ``01_svm_l_diversity.ipynb``.

    Parameters
    ----------
    path : Path
        The spec file.
    name : str
        Its ``notebook`` value.

    Raises
    ------
    ValueError
        No such notebook in any of those folders (each named).
    """
    folders = [path.resolve().parent.parent, path.resolve().parent, Path(__file__).resolve().parents[2] / "notebooks"]
    candidates = list(dict.fromkeys((folder / name).resolve() for folder in folders))
    found = next((candidate for candidate in candidates if candidate.is_file()), None)
    if found is None:
        raise ValueError(
            f"sweep spec {path}: notebook {name!r} not found at {' or '.join(map(str, candidates))} (it is relative "
            "to the spec folder's parent, the spec's folder or privnb's notebooks/ folder)"
        )
    return found


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read and check a sweep spec.

    Parameters
    ----------
    path : path
        The spec file (``notebooks/sweeps/<name>.yaml``).

    Raises
    ------
    ValueError
        Unknown keys, a grid value that is not a non-empty list, a name both fixed and swept, an
        ``output_dir`` parameter (the runner injects it), a missing notebook, a parameter the
        notebook's ``parameters`` cell does not define, or a value whose type does not fit the
        parameter's default there (:func:`check_parameter_types`).
    """
    path = Path(path)
    name = sweep_name(path)
    if not path.is_file():
        raise ValueError(f"sweep spec {path} does not exist")
    raw = _read_spec(path)
    parameters, grid = raw.get("parameters") or {}, raw.get("grid") or {}
    _check_shape(path, parameters, grid)
    notebook = spec_notebook(path, raw["notebook"])
    nb = _read_notebook(notebook)
    from privnb.experiments.notebook_parameters import cell_defaults

    known = cell_defaults(nb.cells)
    undefined = (set(parameters) | set(grid)) - set(known)
    if undefined:
        raise ValueError(
            f"sweep spec {path}: {sorted(undefined)} not in the parameters cell of {notebook.name} "
            f"(it defines {sorted(known)})"
        )
    check_parameter_types(path, notebook, known, parameters, grid)
    folder = path.resolve().parent
    parameters = {key: _resolve_cards(value, folder, path) for key, value in parameters.items()}
    grid = {key: _resolve_cards(values, folder, path) for key, values in grid.items()}
    return SweepSpec(
        name,
        str(path.resolve()),
        str(notebook),
        parameters,
        grid,
        str(raw.get("description", "")),
        Path(os.path.normpath(raw["notebook"])).as_posix(),
        notebook_fingerprint(nb),
    )


def _read_spec(path: Path) -> dict:
    """The spec's YAML mapping, with a 'notebook' key and only known keys."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise ValueError(f"sweep spec {path} is not valid YAML: {error}") from error
    if not isinstance(raw, dict) or "notebook" not in raw:
        raise ValueError(f"sweep spec {path} must be a mapping with a 'notebook' key")
    unknown = set(raw) - set(SPEC_KEYS)
    if unknown:
        raise ValueError(f"sweep spec {path} has unknown keys {sorted(unknown)}; allowed: {list(SPEC_KEYS)}")
    return raw


def _check_shape(path: Path, parameters, grid) -> None:
    """Mappings; each grid value a non-empty list; no name both fixed and swept; no output_dir."""
    if not isinstance(parameters, dict) or not isinstance(grid, dict):
        raise ValueError(f"sweep spec {path}: 'parameters' and 'grid' must be mappings")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(
                f"sweep spec {path}: grid[{key!r}] must be a non-empty list (put a fixed value "
                f"under 'parameters'), got {values!r}"
            )
    both = set(parameters) & set(grid)
    if both:
        raise ValueError(f"sweep spec {path}: {sorted(both)} both fixed and swept; keep each in one place")
    if INJECTED in parameters or INJECTED in grid:
        raise ValueError(f"sweep spec {path}: do not set {INJECTED!r}; the runner injects each point's folder")


def _read_notebook(notebook: Path):
    import nbformat

    try:
        return nbformat.read(notebook, as_version=4)
    except (OSError, ValueError) as error:  # nbformat's NotJSONError and validation errors are ValueErrors
        raise ValueError(f"notebook {notebook} cannot be read: {error}") from None
