"""privnb's shape: layers that import only downwards, no import circle, small modules, short notebook cells."""

import ast
import importlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "privnb"

# data <- mechanisms / nbc <- attacks / learn <- experiments <- sweeps <- workbench; files, validation and bounds below
# them all. Packages of one rank never import each other (an attack uses no learner, a learner no attack).
RANK = {
    "files": 0,
    "validation": 0,
    "_docstrings": -1,  # the docstrings' shared parameter text, below every layer (text only)
    "bounds": 0,
    "data": 1,
    "mechanisms": 2,
    "nbc": 2,
    "attacks": 3,
    "learn": 3,
    "experiments": 4,
    "sweeps": 5,  # below the workbench: a point's process imports no plotting
    "workbench": 6,
    "__main__": 7,  # the privnb command, above the workbench: it imports the workbench only inside subcommands
}
MAX_MODULE_LINES = 550
MAX_CELL_LINES = 20
MAX_PARAMETER_LINES = 25


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, imported names) for every import in the module, relative ones resolved."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            out.append((base, [alias.name for alias in node.names]))
    return out


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_belongs_to_a_known_layer():
    assert {_layer(m) for m in _modules() if m != "privnb"} <= set(RANK)


def test_layers_import_only_downwards_and_no_private_names_across_layers():
    problems = []
    for name, path in _modules().items():
        if name == "privnb":
            continue
        for target, names in _imports(name, path):
            if not target.startswith("privnb.") or _layer(target) == _layer(name):
                continue
            if RANK[_layer(target)] >= RANK[_layer(name)]:
                problems.append(f"{name} imports {target} (layer {_layer(target)} is not below {_layer(name)})")
            problems += [
                f"{name} imports the private {target}.{n}"
                for n in names
                if n.startswith("_") and not n.startswith("__")
            ]
    assert problems == []


def test_no_import_circle_and_no_module_getattr():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target, names in _imports(name, path):
            targets |= {t for t in [target, *(f"{target}.{n}" for n in names)] if t in modules}
        # a package's __init__ re-exporting its own modules is not a circle of design
        graph[name] = {t for t in targets if t != name and not name.startswith(t + ".")}
        tree = ast.parse(path.read_text())
        assert not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body), name

    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                pytest.fail("import circle: " + " -> ".join(trail[trail.index(nxt) :] + [node, nxt]))
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_modules_stay_small():
    sizes = {name: len(path.read_text().splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_notebook_code_cells_stay_short():
    """At most 20 lines a code cell; the parameters cell, which holds only `name = literal` lines (one knob each, as
    ``cell_defaults`` enforces), at most 25 (the shared layers check's limit for any cell)."""
    long_cells = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for index, cell in enumerate(json.loads(notebook.read_text())["cells"]):
            lines = len("".join(cell["source"]).splitlines())
            limit = MAX_PARAMETER_LINES if "parameters" in cell.get("metadata", {}).get("tags", []) else MAX_CELL_LINES
            if cell["cell_type"] == "code" and lines > limit:
                long_cells.append(f"{notebook.name} cell {index}: {lines} lines")
    assert long_cells == []


MAX_LAYER_EXPORTS = 40
MAX_PAPER_EXPORTS = 20


@pytest.mark.parametrize(
    "package, limit",
    [(f"privnb.{layer}", MAX_LAYER_EXPORTS) for layer in sorted(set(RANK) - {"files", "validation", "__main__"})]
    + [
        (f"privnb.experiments.{paper}", MAX_PAPER_EXPORTS)
        for paper in ("svm_l_diversity", "knn_l_diversity", "feature_selection", "nbc_publishing", "privacy_frontier")
    ],
)
def test_each_package_exports_a_small_face(package, limit):
    """A layer's face is at most 40 names, a paper subpackage's at most 20 (what its notebook imports); the rest is
    imported from the module that holds it."""
    exported = importlib.import_module(package).__all__
    print(f"{package}: {len(exported)} exported names")
    assert len(exported) == len(set(exported)) <= limit
