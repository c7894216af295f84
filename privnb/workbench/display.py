r"""How a notebook shows mathematics, tables and figures to a reader.

Each helper returns a small object that Jupyter renders with its richest representation and that stays
readable where only ``text/plain`` survives (a terminal, ``papermill --log-output``, nbval's diff):

- :func:`equation` / :func:`equations`: a sympy expression (or several) as rendered mathematics
  (``text/latex``, ``$$ ... \tag*{label} $$``) with the paper's equation number beside it; the plain-text
  fallback is the label and sympy's pretty print.
- :func:`table`: a DataFrame as a styled HTML table (numbers formatted, an optional caption above it);
  the plain-text fallback is the caption and ``DataFrame.to_string()``. The HTML is deterministic (no random
  element ids), so a ``keep_output`` cell that shows one is stable under nbval.
- :func:`caption` / :func:`show_figure`: one sentence under a figure saying what to look at (``text/markdown``,
  so ``$l$`` is typeset), the figure saved and shown above it.
- :func:`skipped`: the one line shown instead of a section the data at hand cannot support, with the reason.

Examples
--------
In a notebook cell::

    from privnb.bounds import corollary4_bound, gamma, lemma2_ratio, m1, m2
    equations(("Lemma 2, (7)", m2 / m1, lemma2_ratio), ("Corollary 4", None, corollary4_bound))
    table(summary, caption="Mean test error over the folds", precision=3)
    show_figure(fig, "Anatomy keeps every value but ...", out / "figures" / "toy.png")
"""

from __future__ import annotations

import hashlib
import html
import os

import pandas as pd
import sympy as sp

__all__ = [
    "Equation",
    "Equations",
    "equation",
    "equations",
    "Table",
    "table",
    "Caption",
    "caption",
    "show_figure",
    "skipped",
]


# ------------------------------------------------------------------------------------------------ mathematics
class Equation:
    """One labelled expression; see :func:`equation`.

    Parameters
    ----------
    expr : sympy expression
        The expression (or relation) shown.
    label : str, optional
        Its equation number or name.
    lhs : sympy expression, optional
        A left-hand side shown as ``lhs = expr``.
    """

    def __init__(self, expr, label: str | None = None, *, lhs=None):
        expr = sp.sympify(expr)
        self.expr = expr if lhs is None else sp.Eq(sp.sympify(lhs), expr, evaluate=False)
        self.label = label

    def latex(self) -> str:
        r"""The LaTeX source, ``\tag*{label}`` included (no ``$$`` delimiters)."""
        body = sp.latex(self.expr)
        return body + (rf" \tag*{{{_latex_text(self.label)}}}" if self.label else "")

    def _repr_latex_(self) -> str:
        return f"$${self.latex()}$$"

    def __repr__(self) -> str:
        pretty = sp.pretty(self.expr, use_unicode=True, wrap_line=False)
        return f"{self.label}:\n{pretty}" if self.label else pretty

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


def _latex_text(label: str) -> str:
    r"""``label`` safe inside ``\tag*{...}`` (text mode): TeX specials escaped."""
    for char, escaped in (
        ("\\", r"\backslash "),
        ("{", r"\{"),
        ("}", r"\}"),
        ("%", r"\%"),
        ("#", r"\#"),
        ("&", r"\&"),
        ("_", r"\_"),
    ):
        label = label.replace(char, escaped)
    return label


def equation(expr, label: str | None = None, *, lhs=None) -> Equation:
    r"""A sympy expression (or relation) shown as rendered mathematics with its equation number.

    Parameters
    ----------
    expr : sympy expression, relation (``sp.Eq``, ``sp.Le``, ...) or anything ``sympify`` accepts
        The expression shown.
    label : str, optional
        Where the paper states it, shown beside the formula: ``"(7)"``, ``"Lemma 2, (7)"``, ``"Eq. (9) of MC17"``.
    lhs : optional
        A left-hand side: the formula shown is ``lhs = expr`` (unevaluated).

    Returns
    -------
    Equation
        Renders as ``$$ ... \tag*{label} $$`` (``text/latex``: JupyterLab, nbconvert's HTML and GitHub
        typeset it, the label at the right margin); ``repr`` is the label and sympy's unicode pretty print.
    """
    return Equation(expr, label, lhs=lhs)


class Equations:
    """Several labelled expressions, one display each (so every one keeps its own tag)."""

    def __init__(self, items):
        self.items = list(items)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        for item in self.items:
            display(item)

    def __repr__(self) -> str:
        return "\n\n".join(repr(item) for item in self.items)


def equations(*items) -> Equations:
    """Several formulas, each an :class:`Equation` or a tuple ``(label, lhs, expr)`` / ``(label, expr)``.

    ``lhs`` may be ``None``. Displayed one under the other, each with its own equation number.
    """
    out = []
    for item in items:
        if isinstance(item, Equation):
            out.append(item)
        elif isinstance(item, tuple) and len(item) in (2, 3):
            label, *rest = item
            lhs, expr = rest if len(rest) == 2 else (None, rest[0])
            out.append(Equation(expr, label, lhs=lhs))
        else:
            raise ValueError(f"each item must be an Equation, (label, expr) or (label, lhs, expr), got {item!r}")
    return Equations(out)


# ----------------------------------------------------------------------------------------------------- tables
class Table:
    """A DataFrame with its formatting; see :func:`table`.

    Parameters
    ----------
    frame : DataFrame
        The table's content.
    styler : pandas Styler
        Its formatting.
    caption : str, optional
        One sentence above it.
    precision : int
        Decimals of floats.
    """

    def __init__(self, frame: pd.DataFrame, styler, caption: str | None, precision: int = 3):
        self.frame = frame
        self.styler = styler
        self.caption = caption
        self.precision = precision

    def _repr_html_(self) -> str:
        # the caption as a block above the table: a <caption> is only as wide as the table and wraps in it
        style = "font-weight: bold; margin: 4px 0;"
        title = f'<div style="{style}">{html.escape(self.caption)}</div>' if self.caption else ""
        return title + self.styler.to_html()

    def __repr__(self) -> str:
        whole = {c: "Int64" for c in self.frame.columns if _integral(self.frame[c])}  # ages read 34, not 34.0
        shown = self.frame.astype(whole) if whole and self.frame.columns.is_unique else self.frame
        text = shown.to_string(float_format=lambda v: f"{v:.{self.precision}f}")
        return f"{self.caption}\n{text}" if self.caption else text

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


_TABLE_STYLES = [
    {"selector": "th, td", "props": "padding: 2px 8px;"},
    {"selector": "td", "props": "font-variant-numeric: tabular-nums;"},
]


def table(
    frame,
    *,
    caption: str | None = None,
    precision: int = 3,
    formats: dict | None = None,
    percent=(),
    index: bool = True,
    na_rep: str = "\N{EN DASH}",
) -> Table:
    """A DataFrame (or Series) as a reader expects a result: a formatted, captioned table.

    Parameters
    ----------
    frame : DataFrame or Series
        The values shown.
    caption : str, optional
        A title shown above the table (what it holds: "Mean test error over 3 folds").
    precision : int
        Decimals of every float column not named in ``formats`` or ``percent``.
    formats : dict column -> format string or callable, optional
        Passed to ``Styler.format`` (``{"r": "{:.4f}"}``).
    percent : sequence of columns
        Shown as percentages with one decimal (``0.123`` -> ``12.3%``).
    index : bool
        Show the index (False hides it, for tables whose index is a plain range).
    na_rep : str
        What a missing value shows.

    Returns
    -------
    Table
        ``_repr_html_``: ``frame.style`` formatted (deterministic element ids); ``repr``: the caption and
        ``frame.to_string()`` (floats to ``precision`` decimals). ``.frame`` and ``.styler`` give the pieces back.
    """
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"table() shows a DataFrame or a Series, got {type(frame).__name__}")
    uuid = hashlib.sha1(
        pd.util.hash_pandas_object(frame.reset_index(drop=True).astype(str), index=True).to_numpy().tobytes()
        + repr(list(frame.columns)).encode()
    ).hexdigest()[:8]
    # every text from the data (cells, labels, the axes' names) reaches the HTML escaped: a card's values are untrusted
    shown = frame.copy(deep=False)
    shown.index = shown.index.set_names([_escaped(n) for n in shown.index.names])
    shown.columns = shown.columns.set_names([_escaped(n) for n in shown.columns.names])
    styler = shown.style.set_uuid(uuid).set_table_styles(_TABLE_STYLES)
    styler = styler.format(precision=precision, na_rep=na_rep, thousands=None, escape="html")
    styler = styler.format_index(escape="html", axis=1)
    whole = [c for c in frame.columns if _integral(frame[c])]
    if whole:  # counts stored as floats (a mean over folds of equal sizes) read as counts
        styler = styler.format("{:.0f}", subset=whole, na_rep=na_rep, escape="html")
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    numbers = [c for c in frame.columns if c not in text]
    # per column by selector (td.colN), not set_properties: that looks rows up and fails on a NaN index label
    align = {c: [{"selector": "", "props": "text-align: left;"}] for c in text}
    align |= {c: [{"selector": "", "props": "text-align: right;"}] for c in numbers}
    if align:
        styler = styler.set_table_styles(align, overwrite=False)
    styler = styler.format_index(precision=precision, na_rep=na_rep, escape="html")
    for level in range(frame.index.nlevels):
        values = frame.index.get_level_values(level)
        if _integral(pd.Series(values)):
            styler = styler.format_index("{:.0f}", level=level, na_rep=na_rep, escape="html")
    if percent:
        styler = styler.format("{:.1%}", subset=list(percent), na_rep=na_rep, escape="html")
    if formats:
        for column, fmt in formats.items():
            styler = styler.format(fmt, subset=[column], na_rep=na_rep, escape="html")
    if not index:
        styler = styler.hide(axis="index")
    return Table(frame, styler, caption, precision)


def _escaped(name):
    """An axis name as HTML text (None stays None: no name)."""
    return None if name is None else html.escape(str(name))


def _integral(values: pd.Series) -> bool:
    """A float column (or index level) whose every present value is a whole number."""
    if not pd.api.types.is_float_dtype(values):
        return False
    present = values.dropna()
    return len(present) > 0 and bool((present == present.round()).all() and (present.abs() < 2**53).all())


# ---------------------------------------------------------------------------------------------------- figures
#: Resolution of a figure shown in a notebook (saved files keep save_figure's own).
FIGURE_DPI = 100


class Caption:
    """One sentence under a figure; see :func:`caption`.

    Parameters
    ----------
    text : str
        The sentence (Markdown).
    prefix : str
        The bold word before it ("Figure.", "Skipped.").
    """

    def __init__(self, text: str, prefix: str = "Figure."):
        self.text = text
        self.prefix = prefix

    def _repr_markdown_(self) -> str:
        lead = f"**{self.prefix}** " if self.prefix else ""
        return f"{lead}*{self.text}*"

    def __repr__(self) -> str:
        return f"{self.prefix} {self.text}" if self.prefix else self.text

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


def caption(text: str, *, prefix: str = "Figure.") -> Caption:
    """A figure's caption: one sentence that says what to look at (Markdown, so ``$l$`` is typeset).

    Parameters
    ----------
    text : str
        The sentence (Markdown).
    prefix : str
        The bold word before it.

    Returns
    -------
    Caption
    """
    if not text or not text.strip():
        raise ValueError("a caption needs a sentence that says what to look at")
    return Caption(text.strip(), prefix)


def skipped(reason: str, *, section: str | None = None) -> Caption:
    """The one line a notebook shows instead of a section that cannot run on the data at hand (``reason``:
    what is missing and what to do, e.g. :meth:`privnb.experiments.DataSupport.missing`).

    Parameters
    ----------
    reason : str
        What is missing and what to do.
    section : str, optional
        The section's name, shown before the reason.

    Returns
    -------
    Caption
    """
    if not reason or not reason.strip():
        raise ValueError("say why the section is skipped")
    return Caption(f"{section + ': ' if section else ''}{reason.strip()}", "Skipped.")


def show_figure(fig, text: str, path: str | os.PathLike | None = None, *, prefix: str = "Figure."):
    """Save ``fig`` to ``path`` (when given), show it, then its caption under it, and close it.

    The figure is shown as a PNG image (``FIGURE_DPI``), so it appears in the notebook whatever matplotlib
    backend the kernel runs (``MPLBACKEND=Agg`` in a sweep shows nothing for a bare Figure). Closing keeps
    matplotlib's inline backend from showing the figure a second time after the caption.
    Returns None, so that the caption is not shown again as the cell's result.

    Parameters
    ----------
    fig : matplotlib Figure
        The figure.
    text : str
        Its caption (one sentence).
    path : str or PathLike, optional
        Where to save it (PNG), whole or not at all.
    prefix : str
        The bold word before the caption.
    """
    import io

    from IPython.display import Image, display

    from privnb.workbench.plots import save_figure

    if path is not None:
        save_figure(fig, path)
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    display(Image(data=png.getvalue(), format="png"))  # an image whatever the kernel's matplotlib backend
    display(caption(text, prefix=prefix))
    import matplotlib.pyplot as plt

    plt.close(fig)  # a Figure made without pyplot has nothing to close: a no-op
