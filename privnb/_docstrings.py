"""Parameter text that many docstrings share, written once (as imbalanced-learn's ``Substitution`` does).

A docstring puts a key of :data:`SHARED` in braces where the shared text goes, on a line of its own under the
parameter's own words::

    random_state : int, RandomState or None
        Seeds the noise.
        {random_state}

and :func:`shared_doc` fills it in when the module is imported, each further line of the text indented as the
key's line. The parameter's name and type stay in the source, so the checks that every parameter is documented
(ruff's D417, ``tests/project``) read them as they read any other.
"""

from __future__ import annotations

import re

__all__ = ["SHARED", "render", "shared_doc"]

#: key -> the text that replaces ``{key}``.
SHARED = {
    "binary_matrix": "The rows, one 0/1 column per item: shape (n_rows, n_features), dense or scipy.sparse.",
    "binary_labels": "Two-class labels, one per row (the larger value is positive).",
    "random_state": (
        "An int gives the same draws on every call, a RandomState is drawn from, None draws from NumPy's global\n"
        "generator (as :func:`sklearn.utils.check_random_state` reads it)."
    ),
    "reference": (
        'The distribution each class is compared with. "input" (the default, ARX\'s reading): the input\n'
        "table's, before suppression; a generalizer suppresses the classes failing against it, and a release\n"
        'is checked with ``sensitive_counts(release, ..., input_table=table)``. "release": the released rows\'\n'
        "own (what a reader of the release alone can check, pyCANON's reading); a full-domain generalizer then\n"
        "suppresses failing classes until every kept class holds against the kept rows' distribution. The two\n"
        "differ only when rows are suppressed."
    ),
}

KEY = re.compile(r"\{(" + "|".join(SHARED) + r")\}")
"""A key of :data:`SHARED` in braces, as a docstring holds it until :func:`render` fills it."""


def render(doc: str) -> str:
    """``doc`` with every ``{key}`` of :data:`SHARED` replaced by its text, indented as the key's line.

    Parameters
    ----------
    doc : str
        A docstring, indented as in the source or cleaned.
    """

    def fill(line: str) -> str:
        pad = "\n" + line[: len(line) - len(line.lstrip())]
        return KEY.sub(lambda key: SHARED[key[1]].replace("\n", pad), line)

    return "\n".join(map(fill, doc.split("\n")))


def shared_doc(obj):
    """Decorator: fill the shared texts in ``obj``'s docstring (:func:`render`) and return ``obj``.

    Parameters
    ----------
    obj : function or class
        What the docstring belongs to (a class's documents its ``__init__``'s parameters).
    """
    if obj.__doc__:
        obj.__doc__ = render(obj.__doc__)
    return obj
