"""Sweeps: a spec's points run as notebooks (papermill) in local processes, on a dask cluster or one at a time, and
what they leave behind (results tables, reports).

A package of its own, beneath :mod:`privnb.workbench`, so that the ``privnb sweep`` command and every process that
runs a point import only what running a notebook needs (pandas, papermill), not the notebooks' plotting and
experiments: a point's process started in about 1 s here, against 6 s when these modules sat in the workbench.
"""

from ._kernels import (
    kernel_options,
    skip_iri_parser,
)
from .report import (
    HEADLINE_KEY,
    rebuild_reports,
)
from .runner import (
    SweepSummary,
    run_point,
    run_sweeps,
)
from .spec import (
    SweepSpec,
    load_spec,
)

__all__ = [
    "HEADLINE_KEY",
    "kernel_options",
    "skip_iri_parser",
    "rebuild_reports",
    "run_point",
    "SweepSummary",
    "run_sweeps",
    "SweepSpec",
    "load_spec",
]
