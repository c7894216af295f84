"""The tour notebook's interactive explorer: l, k and gamma on sliders, every number computed by privnb.

:func:`tour_state` computes, for one ``(l, k, gamma)``, what the tour shows: the anatomy of the papers' toy
(groups, suppressed rows, the joined training data D_A), the equivalence classes of full-domain (when the
table's quasi-identifiers have hierarchies) and Mondrian k-anonymous releases of a table (Adult's sample or a
data card's), and the achieved r of SafetyTransform(gamma) on the NBC views of the Naive
Bayes paper's Figure 1(a). It is plain computation (tested against the mechanisms it calls).
:func:`tour_explorer` puts ``IntSlider`` l, ``IntSlider`` k and ``FloatLogSlider`` gamma over it with
``ipywidgets.interactive_output``.

How the explorer degrades to static output
------------------------------------------
Displaying a :class:`TourExplorer` writes two outputs into its cell:

1. the live explorer: the sliders over an ``Output`` panel that ``interactive_output`` refills whenever a
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

import uuid
from dataclasses import dataclass

import pandas as pd

from privnb.data import Dataset, anatomy_toy, nbc_figure1_databases
from privnb.mechanisms import Anatomy, FullDomainGeneralizer, MondrianGeneralizer, anatomize
from privnb.nbc import NBCViews, SafetyTransform, achieved_r
from privnb.workbench.display import table

GAMMA = "\N{GREEK SMALL LETTER GAMMA}"

__all__ = ["TourState", "tour_state", "toy_views", "TourExplorer", "tour_explorer"]


def toy_views() -> NBCViews:
    """The NBC views of Figure 1(a) of seed 004 (attributes Adr, Age; class Sal)."""
    db_a, _ = nbc_figure1_databases()
    return NBCViews.from_frame(db_a, ["Adr", "Age"], "Sal")


@dataclass(frozen=True)
class TourState:
    """What the explorer shows for one ``(l, k, gamma)``; every table is a DataFrame.

    Attributes
    ----------
    anatomy : Anatomy
        ``anatomize(toy.frame, toy.sensitive, l)``.
    groups : DataFrame
        One row per anatomy group (``gid``): its members' row ids and its sensitive values.
    suppressed : DataFrame
        The toy's rows that no group holds.
    joined : DataFrame
        The anatomized training data D_A, ``anatomy.join()`` sorted by individual (``row_id``).
    full_domain, mondrian : fitted FullDomainGeneralizer (None without hierarchies) and MondrianGeneralizer
    classes : DataFrame
        One row per method: equivalence classes, the smallest, median and largest class, rows suppressed.
    smallest_classes : DataFrame
        The five smallest equivalence classes of each method (their generalized quasi-identifiers and size).
    safety : DataFrame
        Rows "published as counted" and "SafetyTransform(gamma)": achieved r (Definition 5 of seed 004)
        and Corollary 4's achieved gamma (the published views only).
    """

    l: int
    k: int
    gamma: float
    anatomy: Anatomy
    groups: pd.DataFrame
    suppressed: pd.DataFrame
    joined: pd.DataFrame
    full_domain: FullDomainGeneralizer | None
    mondrian: MondrianGeneralizer
    classes: pd.DataFrame
    smallest_classes: pd.DataFrame
    safety: pd.DataFrame

    def tables(self) -> dict:
        """Section title -> list of :func:`privnb.workbench.display.table` objects, in display order."""
        n = len(self.anatomy.it) + len(self.anatomy.suppressed)
        return {
            f"l = {self.l}: anatomy of the {n}-row toy": [
                table(self.groups, caption=f"{_count(len(self.groups), 'group')} of l = {self.l}"),
                table(self.suppressed, caption=f"{_count(len(self.suppressed), 'row')} suppressed", precision=1),
                table(
                    self.joined, caption=f"Joined training data D_A ({len(self.joined)} rows)", precision=1, index=False
                ),
            ],
            f"k = {self.k}: equivalence classes": [
                table(self.classes, caption="Equivalence classes by method", precision=1),
                table(self.smallest_classes, caption="The smallest classes", index=False),
            ],
            f"{GAMMA} = {self.gamma:g}: SafetyTransform on the views of Figure 1(a)": [
                table(self.safety, caption="Achieved r (Definition 5)", precision=4),
            ],
        }

    def _repr_html_(self) -> str:
        sections = []
        for title, tables in self.tables().items():
            cells = "".join(f'<div style="margin: 0 24px 8px 0;">{t._repr_html_()}</div>' for t in tables)
            sections.append(
                f'<h4 style="margin: 12px 0 4px 0;">{title}</h4>'
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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _classes(frame: pd.DataFrame, quasi_identifiers) -> pd.Series:
    return frame.groupby(list(quasi_identifiers), observed=True).size().rename("rows")


def tour_state(
    l: int,
    k: int,
    gamma: float,
    *,
    data: Dataset,
    quasi_identifiers,
    hierarchies,
    toy: Dataset | None = None,
    views: NBCViews | None = None,
    random_state=0,
) -> TourState:
    """Everything the tour explorer shows for one ``(l, k, gamma)``.

    Parameters
    ----------
    l : int
        Anatomy's diversity, applied to ``toy`` (default :func:`privnb.data.anatomy_toy`).
    k : int
        k-anonymity of the full-domain and Mondrian releases of ``data``'s ``quasi_identifiers``.
    gamma : float > 1
        SafetyTransform's amplification, applied to ``views`` (default :func:`toy_views`).
    data : Dataset
        The table generalized (the tour: its sample of Adult or of a data card's table).
    quasi_identifiers : sequence of str
    hierarchies : mapping attribute -> Hierarchy, or None
        One per quasi-identifier (:attr:`privnb.experiments.DataSupport.generalization_hierarchies`); None
        leaves full-domain generalization out (Mondrian needs none).
    random_state : int
        Anatomy's and SafetyTransform's random choices.

    Returns
    -------
    TourState
    """
    toy = anatomy_toy() if toy is None else toy
    views = toy_views() if views is None else views
    qi = list(quasi_identifiers)

    anatomy = anatomize(toy.frame, toy.sensitive, l, random_state=random_state)
    members = anatomy.it.reset_index().groupby("gid")["row_id"].agg(lambda s: ", ".join(map(str, sorted(s))))
    values = anatomy.st.groupby("gid")[toy.sensitive].agg(lambda s: ", ".join(f"{v:g}" for v in sorted(s)))
    groups = pd.DataFrame({"rows": members, f"{toy.sensitive} values": values})
    suppressed = toy.frame.loc[anatomy.suppressed]
    joined = anatomy.join().sort_values(["row_id", toy.sensitive], kind="stable").reset_index(drop=True)

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

    transform = SafetyTransform(gamma, random_state=random_state).fit(views)
    safety = pd.DataFrame(
        {
            "achieved r": [achieved_r(views), achieved_r(transform.views_)],
            f"achieved {GAMMA} (Corollary 4)": [float("nan"), float(transform.achieved_gamma_)],
        },
        index=["published as counted", f"SafetyTransform({GAMMA} = {gamma:g})"],
    )
    return TourState(
        l,
        k,
        float(gamma),
        anatomy,
        groups,
        suppressed,
        joined,
        full_domain,
        mondrian,
        classes,
        pd.concat(smallest, ignore_index=True),
        safety,
    )


class TourExplorer:
    """Sliders over :func:`tour_state`; displaying it writes the live view and a static copy (module docstring).

    Attributes
    ----------
    controls : dict name -> ipywidgets slider ("l", "k", "gamma")
    panel : ipywidgets.Output, refilled by ``interactive_output`` when a slider moves
    widget : ipywidgets.VBox, the sliders over the panel
    default : TourState, the state at the sliders' initial values (the static copy)
    state : TourState, the state last computed (the sliders' current values)
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
        self.widget = widgets.VBox([widgets.HBox(list(self.controls.values())), self.panel, hide_static])

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
    l: int = 2,
    k: int = 5,
    gamma: float = 2.0,
    k_max: int = 50,
    toy: Dataset | None = None,
    views: NBCViews | None = None,
    random_state=0,
) -> TourExplorer:
    """The tour's explorer: ``IntSlider`` l, ``IntSlider`` k and ``FloatLogSlider`` gamma over :func:`tour_state`.

    ``l`` runs from 2 to the toy's number of distinct sensitive values (a larger ``l`` starts at the largest),
    ``k`` from 2 to ``k_max``, gamma from 10^0.05 to 1000. States are computed once and kept. The last
    expression of a cell, it shows the live explorer where widgets render and the default state everywhere else
    (see the module docstring). ``data`` may be any table with roles (a data card's); without ``hierarchies``
    the k section shows Mondrian alone.
    """
    toy = anatomy_toy() if toy is None else toy
    views = toy_views() if views is None else views

    def compute(l_, k_, gamma_):
        return tour_state(
            l_,
            k_,
            gamma_,
            data=data,
            quasi_identifiers=quasi_identifiers,
            hierarchies=hierarchies,
            toy=toy,
            views=views,
            random_state=random_state,
        )

    l_max = int(toy.frame[toy.sensitive].nunique())
    return TourExplorer(compute, l=min(l, l_max), k=k, gamma=gamma, l_max=l_max, k_max=k_max)
