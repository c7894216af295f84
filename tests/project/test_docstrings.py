"""Shared parameter text (privnb._docstrings): written once, filled into every docstring that names its key."""

import ast
import importlib
from pathlib import Path

from privnb._docstrings import KEY, SHARED, render, shared_doc

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "privnb"


def _holders(body, module: str, prefix: str = ""):
    """(module, qualified name, keys) of each function and class in ``body`` whose source docstring holds a key."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            keys = KEY.findall(ast.get_docstring(node, clean=False) or "")
            if keys:
                yield module, f"{prefix}{node.name}", keys
            if isinstance(node, ast.ClassDef):
                yield from _holders(node.body, module, f"{prefix}{node.name}.")


def _all_holders():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "_docstrings.py":
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield from _holders(ast.parse(path.read_text()).body, module)


def test_rendered_docstrings_hold_the_shared_text_and_no_key():
    holders = list(_all_holders())
    problems = []
    for module, name, keys in holders:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        doc = obj.__doc__
        if KEY.search(doc):
            problems.append(f"{module}.{name}: {KEY.search(doc)[0]} left unfilled (no @shared_doc?)")
        problems += [
            f"{module}.{name}: lacks the text of {{{key}}}"
            for key in keys
            if not all(line in doc for line in SHARED[key].split("\n"))
        ]
    print(f"{len(holders)} docstrings hold a shared text")
    assert problems == []
    assert {key for *_, keys in holders for key in keys} == set(SHARED), "a shared text nobody uses"


def test_render_indents_each_line_as_the_key_and_leaves_other_braces():
    doc = "\n".join(["f.", "    seed : int", "        Own words.", "        {random_state}", '    a : {"x", "y"}', ""])
    lines = render(doc).split("\n")
    first, *rest = SHARED["random_state"].split("\n")
    assert lines[2:4] == ["        Own words.", "        " + first]
    assert lines[4 : 4 + len(rest)] == ["        " + line for line in rest]
    assert lines[-2] == '    a : {"x", "y"}'
    assert render("no key {here}") == "no key {here}"


def test_shared_doc_fills_a_function_and_a_class_and_passes_no_docstring():
    @shared_doc
    def f():
        """{binary_labels}"""

    @shared_doc
    class C:
        """{binary_matrix}"""

    @shared_doc
    def bare():
        pass

    assert f.__doc__ == SHARED["binary_labels"]
    assert C.__doc__ == SHARED["binary_matrix"]
    assert bare.__doc__ is None
