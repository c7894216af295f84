"""The workbench around the notebooks: sweeps (spec, run, report), notebook conventions, plots, the CLI."""

from .comparison_plot import like_for_like_plot
from .display import caption, equation, equations, show_figure, skipped, table
from .explorer import TourState, tour_explorer, tour_state
from .frontier_plot import frontier_plot
from .notebooks import (
    CHECK_OUTPUT_MARK,
    KEEP_OUTPUT_TAG,
    PARAMETERS_TAG,
    clear_unkept_outputs,
    convention_problems,
    matching_keys,
    parameter_defaults,
    refresh_kept_outputs,
    write_artifacts,
    write_notebook,
)
from .plots import bar_panels, bound_plot, convergence_plot, error_boxplot, save_figure
from .release_export import Release, make_release, write_release
from .report import collect_results, rebuild_reports, sweep_folders, write_index, write_sweep_outputs
from .report_pages import Link, render_html, render_markdown
from .runner import SweepSummary, run_point, run_sweeps
from .spec import INJECTED, SPEC_KEYS, Point, SweepSpec, expand_grid, load_spec, point_id, sweep_name

__all__ = [
    "frontier_plot",
    "like_for_like_plot",
    "Release",
    "make_release",
    "write_release",
    "PARAMETERS_TAG",
    "KEEP_OUTPUT_TAG",
    "CHECK_OUTPUT_MARK",
    "parameter_defaults",
    "convention_problems",
    "clear_unkept_outputs",
    "write_notebook",
    "write_artifacts",
    "matching_keys",
    "refresh_kept_outputs",
    "save_figure",
    "error_boxplot",
    "convergence_plot",
    "bound_plot",
    "bar_panels",
    "equation",
    "equations",
    "table",
    "caption",
    "show_figure",
    "skipped",
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
