"""What the notebooks show and follow: tables, captions and equations, plots, the explorer, release export, and the
notebook conventions (sweeps are :mod:`privnb.sweeps`).
"""

from .comparison_plot import (
    like_for_like_plot,
)
from .display import (
    caption,
    equation,
    equations,
    show_figure,
    skipped,
    table,
)
from .explorer import (
    tour_explorer,
    tour_state,
)
from .frontier_plot import (
    frontier_plot,
)
from .notebooks import (
    clear_unkept_outputs,
    convention_problems,
    matching_keys,
    parameter_defaults,
    write_artifacts,
)
from .plots import (
    bar_panels,
    bound_plot,
    convergence_plot,
    error_boxplot,
    save_figure,
)
from .release_export import (
    Release,
    make_release,
    write_release,
)

__all__ = [
    "frontier_plot",
    "like_for_like_plot",
    "Release",
    "make_release",
    "write_release",
    "parameter_defaults",
    "convention_problems",
    "clear_unkept_outputs",
    "write_artifacts",
    "matching_keys",
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
    "tour_state",
    "tour_explorer",
]
