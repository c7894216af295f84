"""The notebooks' parameters cells read as values, with no notebook library: what ``privnb data check`` plans with
(it starts without nbformat, matplotlib or scikit-learn) and what the workbench checks a sweep spec against.

A notebook has one code cell tagged ``parameters`` holding ``name = literal`` lines only; papermill injects values
after it.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

__all__ = ["NOTEBOOKS_DIR", "PARAMETERS_TAG", "cell_defaults", "notebook_defaults"]

PARAMETERS_TAG = "parameters"

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
"""The project's notebooks (a checkout's ``notebooks/``, beside the package)."""


def cell_defaults(cells) -> dict:
    """The literal defaults of the one ``parameters`` cell among ``cells`` (notebook cells as mappings).

    Parameters
    ----------
    cells : sequence of mapping
        The notebook's cells (``cell_type``, ``metadata``, ``source`` as a string or a list of lines).

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If there is not exactly one parameters cell, or it holds anything but literal assignments.
    """
    tagged = [c for c in cells if c["cell_type"] == "code" and PARAMETERS_TAG in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"expected exactly one cell tagged {PARAMETERS_TAG!r}, found {len(tagged)}")
    source = tagged[0]["source"]
    defaults = {}
    for node in ast.parse(source if isinstance(source, str) else "".join(source)).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"the parameters cell may hold only `name = literal` lines, not {ast.unparse(node)!r}")
        try:
            defaults[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError as error:
            raise ValueError(f"parameter {node.targets[0].id!r} is not a literal: {ast.unparse(node.value)}") from error
    return defaults


def notebook_defaults(folder: str | os.PathLike = NOTEBOOKS_DIR) -> dict[str, dict]:
    """Each notebook's parameters cell as values, by notebook name (``"00_tour"``: its defaults); empty when the
    folder holds no notebook (an installed package without the checkout).

    Parameters
    ----------
    folder : str or PathLike
        Where the notebooks are.

    Returns
    -------
    dict
    """
    return {
        path.stem: cell_defaults(json.loads(path.read_text(encoding="utf-8"))["cells"])
        for path in sorted(Path(folder).glob("0*.ipynb"))
    }
