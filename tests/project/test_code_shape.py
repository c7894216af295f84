"""How privnb's code reads: private names stay in their module, notebooks use what packages export, every
public callable documents its parameters, functions stay short, the papers are named by their keys."""

import ast
import functools
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "privnb"
MAX_FUNCTION_LINES = 100
#: The papers' keys (README, References); "seed 00x" also means a random seed, so the texts are not named so.
PAPER_KEYS = ("MC16", "MC16a", "MC17", "FSAC", "MZ09")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _sources():
    return {_module_name(p): (p, ast.parse(p.read_text())) for p in sorted(PACKAGE.rglob("*.py"))}


def _resolved(name: str, path: Path, node: ast.ImportFrom) -> str:
    base = node.module or ""
    if node.level:
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
    return base


def test_no_private_name_is_imported_from_another_module():
    problems = []
    for name, (path, tree) in _sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolved(name, path, node)
                if target.startswith("privnb") and target != name:
                    problems += [
                        f"{name} imports {target}.{a.name}"
                        for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")
                    ]
    assert problems == []


def _exports(module: str) -> set[str] | None:
    """The names a package exports (its ``__all__``), None for a plain module."""
    if not (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists():
        return None
    return set(getattr(importlib.import_module(module), "__all__", ()))


def test_notebooks_import_only_what_a_package_exports():
    problems = []
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("privnb"):
                    exported = _exports(node.module)
                    if exported is None:
                        problems.append(f"{notebook.name}: imports from the module {node.module}, not a package")
                        continue
                    problems += [
                        f"{notebook.name}: {node.module} does not export {a.name}"
                        for a in node.names
                        if a.name not in exported and _exports(f"{node.module}.{a.name}") is None
                    ]
    assert problems == []


def _parameters(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return [n for n in names if n not in ("self", "cls")]


def _documented(doc: str) -> set[str]:
    """The parameter names a numpydoc ``Parameters`` section lists (``a, b : int`` lists both)."""
    match = re.search(r"\n\s*Parameters\n\s*-+\n(.*?)(\n\s*\n\s*[A-Z][A-Za-z ]+\n\s*-+\n|\Z)", doc, re.S)
    if not match:
        return set()
    names = set()
    for line in match.group(1).splitlines():
        head = re.match(r"\s*(\*{0,2}[A-Za-z_][\w, *]*?)\s*(:|$)", line)
        if head and not line.startswith(" " * 8):
            names |= {n.strip().lstrip("*") for n in head.group(1).split(",")}
    return names


def _public_in(body, prefix: str):
    """(qualified name, parameters, docstring) of the public functions, methods and classes in ``body``."""
    for node in body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            yield from _public_in(node.body, f"{prefix}{node.name}.")
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init is not None:
                yield f"{prefix}{node.name}", _parameters(init), ast.get_docstring(node) or ""
        elif (
            isinstance(node, ast.FunctionDef)
            and not node.name.startswith("_")
            and not any(getattr(d, "id", "") == "property" for d in node.decorator_list)
        ):
            yield f"{prefix}{node.name}", _parameters(node), ast.get_docstring(node) or ""


def _public_callables():
    for name, (_, tree) in _sources().items():
        yield from _public_in(tree.body, f"{name}.")


def test_every_public_callable_documents_its_parameters():
    missing = []
    for name, parameters, doc in _public_callables():
        if len(parameters) >= 2 or (parameters and "Parameters" in doc):
            undocumented = [p for p in parameters if p not in _documented(doc)]
            if undocumented:
                missing.append(f"{name}: {', '.join(undocumented)}")
    assert missing == []


def test_functions_stay_short():
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, (_, tree) in _sources().items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


@pytest.mark.parametrize("folder", ["privnb", "notebooks", "benchmarks"])
def test_the_papers_are_named_by_their_keys(folder):
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".ipynb", ".yaml", ".md")
        for match in re.finditer(r"seeds? 00[0-4]", path.read_text())
    ]
    assert found == []
