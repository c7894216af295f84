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


def _write_json(path: Path, data) -> None:
    write_text(path, json.dumps(data, indent=2, default=str) + "\n")


def _read_json(path: Path, default=None):
    """The JSON in ``path``; ``default`` when it is missing; a ValueError naming it when it is damaged."""
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

    @property
    def done(self) -> bool:
        """Whether a previous run finished this point ("ok" record and executed notebook present)."""
        record = _read_json(Path(self.output_dir) / "point.json", {})
        return record.get("status") == "ok" and (Path(self.output_dir) / "notebook.ipynb").exists()


@dataclass
class SweepSpec:
    """A parsed sweep spec; see the module docstring for the YAML format."""

    name: str
    path: str
    notebook: str
    parameters: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    description: str = ""

    def points(self, out: str | os.PathLike) -> list[Point]:
        """The grid's cartesian product (in spec order) as points under ``out/<name>/``."""
        sweep_dir = Path(out).resolve() / self.name
        points = []
        for values in expand_grid(self.grid):
            pid = point_id(values)
            points.append(Point(self.name, pid, self.notebook, {**self.parameters, **values}, str(sweep_dir / pid)))
        ids = [p.point_id for p in points]
        if len(set(ids)) != len(ids):
            raise ValueError(
                f"sweep {self.name!r}: grid values collide once made file-name safe ({ids}); "
                "use values that differ in letters, digits, '.', '_' or '-'"
            )
        return points


def sweep_name(path: str | os.PathLike) -> str:
    """The sweep's name: the spec file name without ``.yaml``/``.yml`` (``00_tour.quick``)."""
    name = Path(path).name
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise ValueError(f"a sweep spec must end in .yaml or .yml, got {path!s}")


def expand_grid(grid: dict) -> list[dict]:
    """The cartesian product of ``grid`` (name -> list of values), first key varying slowest.

    An empty grid gives one point with no swept values.
    """
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def point_id(values: dict) -> str:
    """A readable, file-name-safe folder name for a grid point: ``dataset=adult,l=2``, ``ls=2+3``.

    Characters other than letters, digits, ``.``, ``_``, ``+`` and ``-`` become ``-``; a name longer than 100
    characters is cut and ends in a hash of the full one. No swept values: ``default``.
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


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read and check a sweep spec.

    Raises
    ------
    ValueError
        Unknown keys, a grid value that is not a non-empty list, a name both fixed and swept, an
        ``output_dir`` parameter (the runner injects it), a missing notebook, or a parameter the
        notebook's ``parameters`` cell does not define.
    """
    import nbformat

    from privnb.workbench.notebooks import parameter_defaults

    path = Path(path)
    name = sweep_name(path)
    if not path.is_file():
        raise ValueError(f"sweep spec {path} does not exist")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise ValueError(f"sweep spec {path} is not valid YAML: {error}") from error
    if not isinstance(raw, dict) or "notebook" not in raw:
        raise ValueError(f"sweep spec {path} must be a mapping with a 'notebook' key")
    unknown = set(raw) - set(SPEC_KEYS)
    if unknown:
        raise ValueError(f"sweep spec {path} has unknown keys {sorted(unknown)}; allowed: {list(SPEC_KEYS)}")
    parameters, grid = raw.get("parameters") or {}, raw.get("grid") or {}
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
    notebook = (path.resolve().parent.parent / raw["notebook"]).resolve()
    if not notebook.is_file():
        raise ValueError(
            f"sweep spec {path}: notebook {raw['notebook']!r} not found at {notebook} "
            "(it is relative to the spec folder's parent, notebooks/)"
        )
    known = parameter_defaults(nbformat.read(notebook, as_version=4))
    undefined = (set(parameters) | set(grid)) - set(known)
    if undefined:
        raise ValueError(
            f"sweep spec {path}: {sorted(undefined)} not in the parameters cell of {notebook.name} "
            f"(it defines {sorted(known)})"
        )
    folder = path.resolve().parent
    parameters = {key: _resolve_cards(value, folder, path) for key, value in parameters.items()}
    grid = {key: _resolve_cards(values, folder, path) for key, values in grid.items()}
    return SweepSpec(name, str(path.resolve()), str(notebook), parameters, grid, str(raw.get("description", "")))
