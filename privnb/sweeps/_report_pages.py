"""Report blocks rendered as Markdown and as standalone HTML pages: wide tables scroll inside the page, and
maths (``$...$``, ``$$...$$``) renders offline with a local copy of MathJax beside the results.

Saved pages load nothing from the internet. MathJax is copied from ``jupyter-server-mathjax`` and told to use the
web font that package ships (STIX-Web; its default TeX font's files are not in it). No installed package ships
require.js or the widget manager's embed script (``@jupyter-widgets/html-manager``), so a notebook page drops
both and shows, where a widget was, that it needs a live kernel (:data:`LIVE_KERNEL_NOTE`).
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from privnb.files import naming_write_errors, write_text


@dataclass(frozen=True)
class Link:
    """A link in a report: its ``text`` and its ``href`` (relative to the report)."""

    text: str
    href: str


def _cell_md(cell) -> str:
    text = f"[{cell.text}]({cell.href})" if isinstance(cell, Link) else cell
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: Sequence[tuple]) -> str:
    """Render report blocks to Markdown.

    Parameters
    ----------
    blocks : sequence of tuple
        The report's blocks (see :func:`render_html`).
    """
    parts = []
    for kind, *body in blocks:
        if kind in ("h1", "h2", "h3"):
            parts.append(f"{'#' * int(kind[1])} {body[0]}")
        elif kind == "p":
            text = body[0]
            parts.append(
                text if isinstance(text, str) else " ".join(map(_cell_md, text if isinstance(text, list) else [text]))
            )
        elif kind == "code":
            parts.append(f"```\n{body[0].rstrip()}\n```")
        elif kind == "img":
            parts.append(f"![{body[0]}]({body[1]})")
        else:
            header, rows = body
            lines = [f"| {' | '.join(map(_cell_md, header))} |", f"|{'---|' * len(header)}"]
            lines += [f"| {' | '.join(map(_cell_md, row))} |" for row in rows]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _cell_html(cell, tag: str = "td") -> str:
    text = (
        f'<a href="{html.escape(cell.href)}">{html.escape(cell.text)}</a>'
        if isinstance(cell, Link)
        else html.escape(cell)
    )
    return f"<{tag}>{text}</{tag}>"


def render_html(blocks: Sequence[tuple], mathjax: str | None = None) -> str:
    """Render report blocks to a standalone HTML page (figures linked relative to the page).

    Parameters
    ----------
    blocks : sequence of tuple
        The report's blocks (``("h1", text)``, ``("p", text or links)``, ``("table", header, rows)``, ...).
    mathjax : str, optional
        URL of ``MathJax.js`` (relative to the page: a local copy, :func:`mathjax_url`); with it, ``$...$``
        and ``$$...$$`` in the text render as maths offline. None: no maths rendering.
    """
    title = next((body[0] for kind, *body in blocks if kind == "h1"), "privnb report")
    parts = []
    for kind, *body in blocks:
        if kind == "p" and not isinstance(body[0], str):
            cells = body[0] if isinstance(body[0], list) else [body[0]]
            parts.append("<p>" + " ".join(_cell_html(c, "span") for c in cells) + "</p>")
        elif kind in ("h1", "h2", "h3", "p"):
            parts.append(f"<{kind}>{html.escape(body[0])}</{kind}>")
        elif kind == "code":
            parts.append(f"<pre>{html.escape(body[0])}</pre>")
        elif kind == "img":
            parts.append(
                f'<figure><img src="{html.escape(body[1])}" alt="{html.escape(body[0])}">'
                f"<figcaption>{html.escape(body[0])}</figcaption></figure>"
            )
        else:
            header, rows = body
            parts.append(
                '<div class="wide"><table>\n<tr>'
                + "".join(_cell_html(c, "th") for c in header)
                + "</tr>\n"
                + "\n".join("<tr>" + "".join(map(_cell_html, row)) + "</tr>" for row in rows)
                + "\n</table></div>"
            )
    style = (
        "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}img{max-width:40em}"
        "pre{background:#f6f6f6;padding:.5em;overflow:auto}.wide{overflow-x:auto;max-width:100%}"
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style>{_mathjax_tags(mathjax)}</head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )


#: An output wider than the page (a wide table) scrolls inside its cell instead of widening the page.
WIDE_OUTPUTS_CSS = ".jp-OutputArea-output { overflow-x: auto; }"
#: MathJax 2's combined configuration: HTML-CSS output with its own web fonts (the package ships no SVG fonts).
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"
#: HTML-CSS output with the web font the local copy ships (STIX-Web), never the machine's fonts or image fonts: the
#: default (the TeX web font) names font files jupyter-server-mathjax does not ship, which an offline page then
#: requested in vain.
_FONT_CONFIG = "'HTML-CSS':{availableFonts:[],preferredFont:null,webFont:'STIX-Web',imageFont:null}"
_TEX2JAX_CONFIG = (
    "MathJax.Hub.Config({tex2jax:{inlineMath:[['$','$'],['\\\\(','\\\\)']],processEscapes:true}," + _FONT_CONFIG + "});"
)


def _mathjax_tags(url: str | None) -> str:
    if url is None:
        return ""
    return (
        f'<script type="text/x-mathjax-config">{_TEX2JAX_CONFIG}</script>'
        f'<script src="{html.escape(url)}?config={MATHJAX_CONFIG}"></script>'
    )


MATHJAX_FOLDER = "_static/mathjax"


def mathjax_source() -> Path | None:
    """The MathJax 2 files the ``jupyter-server-mathjax`` package ships (its ``static`` folder).

    None when it is not installed (the reports then show maths as written).
    """
    import importlib.util

    spec = importlib.util.find_spec("jupyter_server_mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    static = Path(next(iter(spec.submodule_search_locations))) / "static"
    return static if (static / "MathJax.js").is_file() else None


def mathjax_url(out: str | os.PathLike, folder: str | os.PathLike) -> str | None:
    """The URL of a local MathJax for the HTML pages in ``folder``: copied once into
    ``out/_static/mathjax`` (the results folder) and linked relative to the page, so that reports render
    their maths offline. None when no MathJax is installed (:func:`mathjax_source`) or it cannot be copied
    (a full disk: a partial copy is never left, and one left by an earlier run is replaced).

    Parameters
    ----------
    out : path
        The results folder (holds ``_static``).
    folder : path
        The folder of the page that links it.
    """
    source = mathjax_source()
    if source is None:
        return None
    target = Path(out) / MATHJAX_FOLDER
    if not (target / _COPIED).is_file() and not _copy_mathjax(source, target):
        return None
    return Path(os.path.relpath(target / "MathJax.js", Path(folder))).as_posix()


_COPIED = ".privnb-copied"  # written last in a complete copy of MathJax


def _copy_mathjax(source: Path, target: Path) -> bool:
    """Copy MathJax into ``target`` whole or not at all (a copy cut short, by a full disk say, is replaced);
    False when it cannot be written: the pages then show their maths as TeX source.
    """
    import shutil
    import tempfile

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        part = Path(tempfile.mkdtemp(dir=target.parent, prefix=".mathjax.", suffix=".part"))
    except OSError:
        return False
    try:
        shutil.copytree(source, part, dirs_exist_ok=True)
        (part / _COPIED).write_text("a complete copy of MathJax, written by privnb\n", encoding="utf-8")
        if target.exists():  # a partial copy (no marker): replaced
            shutil.rmtree(target)
        os.replace(part, target)
    except OSError:
        shutil.rmtree(part, ignore_errors=True)
        return False
    return True


def export_notebook_html(notebook: str | os.PathLike, out: str | os.PathLike) -> Path | None:
    """Export an executed notebook to ``notebook.html`` beside it, its maths rendered by the local MathJax.

    nbconvert's own export loads MathJax from a CDN, so an offline page shows raw ``$$...$$``; this one links the
    copy in ``out/_static/mathjax`` (:func:`mathjax_url`), and a wide output scrolls inside its cell. The page is
    written whole or not at all, and again only when the notebook is newer than it.

    Parameters
    ----------
    notebook : path
        An executed ``.ipynb``.
    out : path
        The results folder (holds ``_static``).

    Returns
    -------
    Path or None
        The page, or None when no MathJax is installed or the notebook cannot be read (nothing is written).
    """
    notebook = Path(notebook)
    page = notebook.with_suffix(".html")
    url = mathjax_url(out, notebook.parent)
    if url is None:
        return None
    if page.exists() and page.stat().st_mtime_ns >= notebook.stat().st_mtime_ns:
        return page
    import nbformat
    from nbconvert import HTMLExporter

    try:
        node = nbformat.read(notebook, as_version=4)
    except (ValueError, KeyError, nbformat.ValidationError):  # a notebook a failed run left half written
        return None
    exporter = HTMLExporter(mathjax_url=f"{url}?config={MATHJAX_CONFIG}")
    body, _ = exporter.from_notebook_node(without_widgets(node))
    body = body.replace(f'<script src="{exporter.require_js_url}"></script>', "", 1)  # only widgets needed it
    body = body.replace("</head>", f"<style>{WIDE_OUTPUTS_CSS}</style></head>", 1)
    loader = f'<script src="{exporter.mathjax_url}"'  # the fonts are configured before MathJax starts
    fonts = f'<script type="text/x-mathjax-config">MathJax.Hub.Config({{{_FONT_CONFIG}}});</script>'
    body = body.replace(loader, fonts + loader, 1)
    with naming_write_errors(page):
        write_text(page, body)
    return page


#: What a saved page shows where a notebook displayed a widget (the tour's explorer): its sliders need a kernel.
LIVE_KERNEL_NOTE = (
    '<div class="privnb-live-kernel" style="border:1px solid #c8a000;background:#fff8dc;padding:.5em">'
    "<strong>This explorer needs a live kernel.</strong> A saved page runs no code and loads no widget code, so "
    "its sliders are not shown here; the outputs of this cell show it at the notebook's parameters. Open the "
    "notebook in JupyterLab (or Notebook 7) with a running kernel to move them.</div>"
)

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def without_widgets(node):
    """A copy of notebook ``node`` whose widget views are :data:`LIVE_KERNEL_NOTE` and with no widget state.

    A page exported from it loads no widget manager (none is installed to bundle) and says, where each widget
    was, that it needs a live kernel.

    Parameters
    ----------
    node : nbformat.NotebookNode
        A notebook.
    """
    import copy

    node = copy.deepcopy(node)
    node.metadata.pop("widgets", None)
    for cell in node.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if _WIDGET_VIEW in data:
                output["data"] = {"text/html": LIVE_KERNEL_NOTE, "text/plain": "This explorer needs a live kernel."}
    return node
