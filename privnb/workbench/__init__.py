"""The workbench around the notebooks: sweeps (spec, run, report), notebook conventions, plots, the CLI."""

from .notebooks import (
    PARAMETERS_TAG,
    KEEP_OUTPUT_TAG,
    CHECK_OUTPUT_MARK,
    parameter_defaults,
    convention_problems,
    clear_unkept_outputs,
    write_notebook,
    write_artifacts,
    refresh_kept_outputs,
)
from .plots import save_figure, error_boxplot, convergence_plot, bound_plot
from .display import equation, equations, table, caption, show_figure
from .explorer import TourState, tour_state, tour_explorer
from .report import (
    collect_results,
    write_sweep_outputs,
    sweep_folders,
    write_index,
    rebuild_reports,
    Link,
    render_markdown,
    render_html,
)
from .runner import run_point, SweepSummary, run_sweeps
from .spec import SPEC_KEYS, INJECTED, Point, SweepSpec, sweep_name, expand_grid, point_id, load_spec

__all__ = [
    "PARAMETERS_TAG",
    "KEEP_OUTPUT_TAG",
    "CHECK_OUTPUT_MARK",
    "parameter_defaults",
    "convention_problems",
    "clear_unkept_outputs",
    "write_notebook",
    "write_artifacts",
    "refresh_kept_outputs",
    "save_figure",
    "error_boxplot",
    "convergence_plot",
    "bound_plot",
    "equation",
    "equations",
    "table",
    "caption",
    "show_figure",
    "TourState",
    "tour_state",
    "tour_explorer",
    "collect_results",
    "write_sweep_outputs",
    "sweep_folders",
    "write_index",
    "rebuild_reports",
    "Link",
    "render_markdown",
    "render_html",
    "run_point",
    "SweepSummary",
    "run_sweeps",
    "SPEC_KEYS",
    "INJECTED",
    "Point",
    "SweepSpec",
    "sweep_name",
    "expand_grid",
    "point_id",
    "load_spec",
]
