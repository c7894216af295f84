"""The tour notebook's interactive explorer: l, k and gamma on sliders, every number computed by privnb, all three
acting on the data at hand.

:func:`tour_state` computes, for one ``(l, k, gamma)``, what the tour shows of the table it explores (Adult's
sample or a data card's): its anatomy for ``l`` (groups, suppressed rows, the joined training data D_A) and,
beside it, its l-diverse full-domain and Mondrian generalizations at k = l (class sizes, de Finetti disclosure,
utility: :func:`privnb.experiments.peer_releases`), the
equivalence classes of its full-domain (when the quasi-identifiers have hierarchies) and Mondrian k-anonymous
releases for ``k``, and the achieved r of SafetyTransform(gamma) on the NBC views of its discrete attributes
(the audit over quasi-identifiers of up to ``audit_max_size`` attributes, the largest that fits its fixed memory
budget ``audit_memory``: :func:`privnb.nbc.plan_audit`, which says what it chose). A section the data cannot run says
why instead. It is plain computation (tested against the mechanisms it calls). :func:`tour_explorer` puts
``IntSlider`` l, ``IntSlider`` k and ``FloatLogSlider`` gamma beside it with ``ipywidgets.interactive_output``.

How the explorer degrades to static output
------------------------------------------
Displaying a :class:`TourExplorer` writes two outputs into its cell:

1. the live explorer: the sliders beside an ``Output`` panel that ``interactive_output`` refills whenever a
   slider moves (the first fill, at the defaults, happens while the cell runs). Its ``text/plain``
   fallback is one line naming the sliders. The box also holds a tiny ``<style>`` element (an ``HTML``
   widget) that hides output 2, so wherever the widgets are rendered the reader sees only the live view;
2. a static copy of the default state: the same tables as ordinary ``text/html`` and ``text/plain`` outputs
   of the cell itself, inside ``<div class="privnb-static-TOKEN">``.

In JupyterLab (or Notebook 7, VS Code) with a kernel, the widget manager renders output 1, its style element
hides output 2, and moving a slider recomputes :func:`tour_state` into the panel. Where no widget manager runs
(papermill and nbval execute without a browser; nbconvert's HTML export offline, GitHub's viewer, the sweep's
report), output 1 renders as nothing (or its one line of text) and output 2, a plain part of the cell's outputs,
shows the default state. papermill's client stores what the panel captured only in the notebook's widget state,
which is why the static copy is written to the cell itself.
"""

from __future__ import annotations

import html
import uuid
from dataclasses import dataclass

import pandas as pd

from privnb.data import Dataset
from privnb.experiments.privacy_frontier.comparison import peer_releases
from privnb.experiments.section_plans import tour_audits
from privnb.mechanisms import Anatomy, FullDomainGeneralizer, MondrianGeneralizer, NotLDiverseError, anatomize
from privnb.nbc import NBCViews, achieved_r
from privnb.workbench.display import Caption, skipped, table

GAMMA = "\N{GREEK SMALL LETTER GAMMA}"

#: Groups of the anatomy shown (the first ones by group id).
GROUPS_SHOWN = 5

__all__ = ["TourState", "tour_state", "TourExplorer", "tour_explorer"]


@dataclass(frozen=True)
class TourState:
    """What the explorer shows for one ``(l, k, gamma)``; every table is a DataFrame.

    Parameters
    ----------
    l, k, gamma : int, int, float
        The sliders' values.
    name : str
        The data's name.
    anatomy : Anatomy or None
        ``anatomize(data.frame, data.sensitive, l)``; None when ``anatomy_missing`` says why not.
    anatomy_summary : DataFrame or None
        Rows, groups, rows suppressed and the size of D_A.
    groups : DataFrame or None
        The first :data:`GROUPS_SHOWN` groups: their size and their sensitive values.
    joined : DataFrame or None
        The anatomized training data D_A of those groups, ``anatomy.join()`` sorted by individual (``row_id``).
    anatomy_missing : str
        Why the data cannot be anatomized at this l ("" when it can).
    full_domain, mondrian : fitted FullDomainGeneralizer or None, fitted MondrianGeneralizer or None
        The k-anonymous releases (full-domain needs hierarchies; either is None when k exceeds the rows).
    classes : DataFrame
        One row per method: equivalence classes, the smallest, median and largest class, rows suppressed.
    smallest_classes : DataFrame
        The five smallest equivalence classes of each method (their generalized quasi-identifiers and size).
    release_missing : str
        Why there is no release at this k ("" when there is).
    safety : DataFrame or None
        Rows "published as counted" and "SafetyTransform(gamma)": achieved r (Definition 5 of MZ09) and
        Corollary 4's achieved gamma (the published views only).
    safety_missing : str
        Why SafetyTransform cannot run on this data ("" when it can).
    audit_max_size : int
        The largest quasi-identifier the r audit considers.
    safety_note : str
        What the audits chose where their memory budget made them smaller than asked, or "".
    peers : DataFrame or None
        Anatomy beside its l-diverse full-domain and Mondrian generalizations at k = l
        (:func:`privnb.experiments.peer_releases`); None when ``peers_missing`` says why not.
    peers_missing : str
        Why there is no comparison at this l ("" when there is).
    """

    l: int
    k: int
    gamma: float
    name: str
    anatomy: Anatomy | None
    anatomy_summary: pd.DataFrame | None
    groups: pd.DataFrame | None
    joined: pd.DataFrame | None
    anatomy_missing: str
    full_domain: FullDomainGeneralizer | None
    mondrian: MondrianGeneralizer | None
    classes: pd.DataFrame
    smallest_classes: pd.DataFrame
    release_missing: str
    safety: pd.DataFrame | None
    safety_missing: str
    audit_max_size: int
    safety_note: str = ""
    peers: pd.DataFrame | None = None
    peers_missing: str = ""

    def tables(self) -> dict:
        """Section title -> list of tables (:func:`privnb.workbench.display.table`) or skipped lines, in order."""
        anatomy = (
            [skipped(self.anatomy_missing)]
            if self.anatomy is None
            else [
                table(self.anatomy_summary, caption=f"Anatomy of {self.name} at l = {self.l}"),
                table(self.groups, caption=f"The first {_count(len(self.groups), 'group')} of l = {self.l}"),
                table(
                    self.joined,
                    caption=f"Their joined training data D_A ({len(self.joined)} rows)",
                    precision=1,
                    index=False,
                ),
            ]
        )
        releases = (
            [skipped(self.release_missing)]
            if self.release_missing
            else [
                table(self.classes, caption="Equivalence classes by method", precision=1),
                table(self.smallest_classes, caption="The smallest classes", index=False),
            ]
        )
        audit = f"audit over quasi-identifiers of up to {self.audit_max_size} attribute(s)"
        safety = (
            [skipped(self.safety_missing)]
            if self.safety is None
            else [
                table(
                    self.safety,
                    caption=f"Achieved r (Definition 5; {audit}). Achieved {GAMMA}: the smallest "
                    f"{GAMMA} of Corollary 4 the published counts meet, at most the {GAMMA} asked and often far "
                    "below it: Step 2 takes integer k-th roots of the counts, k rounded up from its bound",
                    precision=4,
                )
            ]
            + ([Caption(self.safety_note, "Audit sized to its memory budget.")] if self.safety_note else [])
        )
        peers = (
            [skipped(self.peers_missing)]
            if self.peers is None
            else [table(self.peers, caption=f"Anatomy beside l-diverse generalization (k = l = {self.l})", precision=3)]
        )
        return {
            f"l = {self.l}: anatomy of {self.name}": anatomy,
            f"l = {self.l}: anatomy beside l-diverse generalization, same l": peers,
            f"k = {self.k}: equivalence classes": releases,
            f"{GAMMA} = {self.gamma:g}: SafetyTransform on the NBC views of {self.name}": safety,
        }

    def _repr_html_(self) -> str:
        sections = []
        for title, tables in self.tables().items():
            cells = "".join(f'<div style="margin: 0 24px 8px 0;">{_html(t)}</div>' for t in tables)
            sections.append(
                f'<h4 style="margin: 12px 0 4px 0;">{html.escape(title)}</h4>'
                f'<div style="display: flex; flex-wrap: wrap; align-items: flex-start;">{cells}</div>'
            )
        return "\n".join(sections)

    def __repr__(self) -> str:
        parts = []
        for title, tables in self.tables().items():
            parts.append(f"== {title}\n" + "\n\n".join(repr(t) for t in tables))
        return "\n\n".join(parts)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


def _html(shown) -> str:
    """A table's HTML, or a skipped line as an HTML paragraph."""
    if hasattr(shown, "_repr_html_"):
        return shown._repr_html_()
    return f"<p><b>{html.escape(shown.prefix)}</b> <i>{html.escape(shown.text)}</i></p>"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _classes(frame: pd.DataFrame, quasi_identifiers) -> pd.Series:
    return frame.groupby(list(quasi_identifiers), observed=True).size().rename("rows")


def _anatomy_section(data: Dataset, l: int, random_state):
    """(anatomy, summary, first groups, their D_A, why not) of ``data`` at ``l``."""
    if data.sensitive is None:
        return None, None, None, None, f"{data.name} has no sensitive attribute: anatomy needs one (the card's roles)"
    try:
        anatomy = anatomize(data.frame, data.sensitive, l, random_state=random_state)
    except NotLDiverseError as error:
        return None, None, None, None, str(error)
    report = anatomy.suppression_report()
    summary = pd.DataFrame(
        {"value": [report["rows"], report["groups"], report["rows_suppressed"], report["groups"] * l * l]},
        index=["rows", "groups", "rows suppressed", "rows of D_A"],
    )
    shown = sorted(anatomy.it["gid"].unique())[:GROUPS_SHOWN]
    members = anatomy.it[anatomy.it["gid"].isin(shown)].reset_index()
    values = anatomy.st[anatomy.st["gid"].isin(shown)].groupby("gid")[data.sensitive]
    groups = pd.DataFrame(
        {
            "rows": members.groupby("gid").size(),
            f"{data.sensitive} values": values.agg(lambda s: ", ".join(map(str, s))),
        }
    )
    joined = anatomy.join()
    joined = joined[joined["row_id"].isin(members["row_id"])]
    joined = joined.sort_values(["row_id", data.sensitive], kind="stable").reset_index(drop=True)
    return anatomy, summary, groups, joined, ""


def _release_section(data: Dataset, qi: list, k: int, hierarchies):
    """(full-domain, Mondrian, class summary, smallest classes, why not) of ``data`` at ``k``."""
    if k > len(data.frame):
        return None, None, pd.DataFrame(), pd.DataFrame(), f"k = {k} exceeds the {len(data.frame)} rows of {data.name}"
    full_domain = None if hierarchies is None else FullDomainGeneralizer(qi, k, hierarchies).fit(data.frame)
    mondrian = MondrianGeneralizer(qi, k, kinds=data.kinds, hierarchies=hierarchies, orders=data.orders).fit(data.frame)
    summary, smallest = {}, []
    for name, release in (("full-domain", full_domain), ("Mondrian", mondrian)):
        if release is None:
            continue
        sizes = _classes(release.generalized_, qi)
        summary[name] = {
            "classes": len(sizes),
            "smallest": sizes.min(),
            "median": sizes.median(),
            "largest": sizes.max(),
            "rows suppressed": len(release.suppressed_),
        }
        head = sizes.sort_values(kind="stable").head(5).reset_index()
        smallest.append(head.assign(method=name)[["method", *qi, "rows"]].astype(dict.fromkeys(qi, str)))
    classes = pd.DataFrame.from_dict(summary, orient="index").astype(
        {"classes": int, "smallest": int, "largest": int, "rows suppressed": int}
    )
    return full_domain, mondrian, classes, pd.concat(smallest, ignore_index=True), ""


def _peer_section(data: Dataset, qi: list, l: int, hierarchies, anatomy_missing: str, random_state):
    """(anatomy beside its l-diverse peers, why not) of ``data`` at ``l``."""
    if anatomy_missing:
        return None, anatomy_missing
    try:
        return peer_releases(data, qi, l, hierarchies=hierarchies, random_state=random_state), ""
    except NotLDiverseError as error:  # a generalization cannot reach l on these rows
        return None, str(error)


def _safety_section(views: NBCViews, gamma: float, audit_max_size: int, audit_memory, random_state):
    """Achieved r of ``views`` as counted and after SafetyTransform(gamma), each audit the largest that fits, and
    what the budget made them choose.
    """
    transform, plans = tour_audits(
        views, gamma, audit_max_size=audit_max_size, audit_memory=audit_memory, random_state=random_state
    )
    r = {
        name: achieved_r(v, max_size=plan.max_size, method=plan.method, memory_limit=plan.budget)
        if plan.runs
        else float("nan")
        for name, (v, plan) in plans.items()
    }
    frame = pd.DataFrame(
        {
            "achieved r": list(r.values()),
            f"achieved {GAMMA} (Corollary 4)": [float("nan"), float(transform.achieved_gamma_)],
        },
        index=list(r),
    )
    note = " ".join(f"{name}: {plan.why}." for name, (_, plan) in plans.items() if plan.why)
    return frame, note


def tour_state(
    l: int,
    k: int,
    gamma: float,
    *,
    data: Dataset,
    quasi_identifiers,
    hierarchies,
    views: NBCViews | None = None,
    views_missing: str = "",
    audit_max_size: int = 1,
    audit_memory: int | None = None,
    random_state=0,
) -> TourState:
    """Everything the tour explorer shows for one ``(l, k, gamma)``, on the data at hand.

    Parameters
    ----------
    l : int
        Anatomy's diversity, applied to ``data`` (on its sensitive attribute).
    k : int
        k-anonymity of the full-domain and Mondrian releases of ``data``'s ``quasi_identifiers``.
    gamma : float > 1
        SafetyTransform's amplification, applied to ``views``.
    data : Dataset
        The table explored (the tour: its sample of Adult or of a data card's table).
    quasi_identifiers : sequence of str
        The columns generalized.
    hierarchies : mapping attribute -> Hierarchy, or None
        One per quasi-identifier; None leaves full-domain generalization out (Mondrian needs none).
    views : NBCViews, optional
        The NBC views of ``data``'s discrete attributes (:func:`nbc_views_of`); None skips the gamma section
        with ``views_missing`` as the reason.
    views_missing : str
        Why there are no views.
    audit_max_size : int
        The largest quasi-identifier the exact r audit considers (:func:`privnb.nbc.achieved_r`), lowered to
        what fits ``audit_memory`` (:func:`privnb.nbc.plan_audit`).
    audit_memory : int, optional
        The audits' memory budget in bytes (default :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`).
    random_state : int
        Anatomy's and SafetyTransform's random choices.

    Returns
    -------
    TourState
    """
    qi = list(quasi_identifiers)
    anatomy, summary, groups, joined, anatomy_missing = _anatomy_section(data, int(l), random_state)
    full_domain, mondrian, classes, smallest, release_missing = _release_section(data, qi, int(k), hierarchies)
    safety, note = (
        (None, "") if views is None else _safety_section(views, gamma, audit_max_size, audit_memory, random_state)
    )
    safety_missing = "" if views is not None else (views_missing or f"{data.name} has no NBC views")
    peers, peers_missing = _peer_section(data, qi, int(l), hierarchies, anatomy_missing, random_state)
    return TourState(
        int(l),
        int(k),
        float(gamma),
        str(data.name),
        anatomy,
        summary,
        groups,
        joined,
        anatomy_missing,
        full_domain,
        mondrian,
        classes,
        smallest,
        release_missing,
        safety,
        safety_missing,
        int(audit_max_size),
        note,
        peers,
        peers_missing,
    )


def nbc_views_of(support, data: Dataset, attributes=()) -> tuple[NBCViews | None, str]:
    """The NBC views of ``data``'s discrete attributes, as notebook 04 reads them, or None and why not.

    Parameters
    ----------
    support : privnb.experiments.DataSupport
        What the data offers (:func:`privnb.experiments.data_support`).
    data : Dataset
        The table.
    attributes : sequence of str
        The attributes wished for (Adult: the paper's three); a card without them all uses its discrete
        quasi-identifiers.

    Returns
    -------
    (NBCViews or None, str)
    """
    from privnb.experiments.nbc_publishing import nbc_data

    nbc = nbc_data(support, data, list(attributes))
    if nbc.missing:
        return None, nbc.missing
    return NBCViews.from_frame(nbc.frame, nbc.attributes, nbc.target), ""


class TourExplorer:
    """Sliders over :func:`tour_state`; displaying it writes the live view and a static copy (module docstring).

    Attributes
    ----------
    controls : dict name -> ipywidgets slider ("l", "k", "gamma")
    panel : ipywidgets.Output, refilled by ``interactive_output`` when a slider moves
    widget : ipywidgets.HBox, the sliders beside the panel
    default : TourState, the state at the sliders' initial values (the static copy)
    state : TourState, the state last computed (the sliders' current values)

    Parameters
    ----------
    compute : callable (l, k, gamma) -> TourState
        E.g. :func:`tour_state` with its data bound; each result is cached per slider position.
    l, k, gamma : int, int, float
        The sliders' initial values (the static copy's state).
    l_max, k_max : int
        The largest l and k the sliders offer (both start at 2).
    """

    def __init__(self, compute, *, l: int, k: int, gamma: float, l_max: int, k_max: int):
        import ipywidgets as widgets

        self._compute = compute
        self._cache = {}
        self.default = self.state = self._state(l, k, gamma)
        self._token = uuid.uuid4().hex[:12]
        self.controls = {
            "l": widgets.IntSlider(value=l, min=2, max=l_max, description="l"),
            "k": widgets.IntSlider(value=k, min=2, max=k_max, description="k"),
            "gamma": widgets.FloatLogSlider(
                value=gamma, base=10, min=0.05, max=3, step=0.05, description=GAMMA, readout_format=".3g"
            ),
        }
        self.panel = widgets.interactive_output(self._show, self.controls)
        hide_static = widgets.HTML(f"<style>.privnb-static-{self._token} {{display: none;}}</style>")
        sliders = widgets.VBox(list(self.controls.values()), layout=widgets.Layout(min_width="320px"))
        self.widget = widgets.HBox([sliders, self.panel, hide_static], layout=widgets.Layout(align_items="flex-start"))

    def _state(self, l, k, gamma) -> TourState:
        key = (int(l), int(k), float(gamma))
        if key not in self._cache:
            self._cache[key] = self._compute(*key)
        return self._cache[key]

    def _show(self, l, k, gamma) -> None:
        from IPython.display import display

        self.state = self._state(l, k, gamma)
        display(self.state)

    def static_html(self) -> str:
        """The default state as the HTML the static copy shows (hidden where the live widget renders)."""
        return f'<div class="privnb-static-{self._token}">{self.default._repr_html_()}</div>'

    def _ipython_display_(self) -> None:
        from IPython.display import display

        bundle = self.widget._repr_mimebundle_()
        bundle["text/plain"] = (
            f"Explorer: sliders l, k and {GAMMA} (live in JupyterLab with a running kernel); the default state follows."
        )
        display(bundle, raw=True)
        display({"text/html": self.static_html(), "text/plain": repr(self.default)}, raw=True)

    def __repr__(self) -> str:
        return repr(self.default)


def tour_explorer(
    *,
    data: Dataset,
    quasi_identifiers,
    hierarchies,
    support=None,
    nbc_attributes=(),
    l: int = 2,
    k: int = 5,
    gamma: float = 2.0,
    k_max: int = 50,
    audit_max_size: int = 1,
    audit_memory: int | None = None,
    random_state=0,
) -> TourExplorer:
    """The tour's explorer: ``IntSlider`` l, ``IntSlider`` k and ``FloatLogSlider`` gamma beside :func:`tour_state`.

    All three act on ``data``. ``l`` runs from 2 to the number of distinct sensitive values (a larger ``l``
    starts at the largest), ``k`` from 2 to ``k_max`` (at most the rows), gamma from 10^0.05 to 1000. States are
    computed once and kept. The last expression of a cell, it shows the live explorer where widgets render and
    the default state everywhere else (see the module docstring).

    Parameters
    ----------
    data : Dataset
        The table explored (a data card's, or a sample of a paper's).
    quasi_identifiers : sequence of str
        The columns generalized.
    hierarchies : mapping or None
        One hierarchy per quasi-identifier; None shows Mondrian alone.
    support : privnb.experiments.DataSupport, optional
        What the data offers; with it, gamma acts on the NBC views of the data's discrete attributes
        (:func:`nbc_views_of`), else the gamma section says why not.
    nbc_attributes : sequence of str
        The NBC attributes wished for (Adult: the paper's three).
    l, k, gamma : int, int, float
        The sliders' initial values.
    k_max : int
        The k slider's largest value.
    audit_max_size : int
        The largest quasi-identifier the r audit considers.
    audit_memory : int, optional
        The audits' memory budget in bytes (default :data:`privnb.nbc.AUDIT_MEMORY_BUDGET`).
    random_state : int
        Anatomy's and SafetyTransform's random choices.

    Returns
    -------
    TourExplorer
    """
    if support is None:
        views, why = None, "no data support given: pass support= to audit SafetyTransform on this data"
    else:
        views, why = nbc_views_of(support, data, nbc_attributes)

    def compute(l_, k_, gamma_):
        return tour_state(
            l_,
            k_,
            gamma_,
            data=data,
            quasi_identifiers=quasi_identifiers,
            hierarchies=hierarchies,
            views=views,
            views_missing=why,
            audit_max_size=audit_max_size,
            audit_memory=audit_memory,
            random_state=random_state,
        )

    l_max = max(2, int(data.frame[data.sensitive].nunique())) if data.sensitive is not None else 2
    k_max = max(2, min(k_max, len(data.frame)))
    return TourExplorer(compute, l=min(l, l_max), k=min(k, k_max), gamma=gamma, l_max=l_max, k_max=k_max)
