"""A protected release of a data set, written for publication: what ARX's export of the transformed table and
sdcMicro's ``writeSafeFile`` with ``report()`` give their users.

:func:`make_release` applies one mechanism to a whole data set (anatomy for ``l``; full-domain, Mondrian or MDAV
for ``k``) and :func:`write_release` writes, into a folder of its own:

- the released table(s) as CSV or Parquet: anatomy's identifying and sensitive tables (``it``, ``st``, linked by
  the random group id only), or the generalized table (``release``). The rows are shuffled and numbered afresh:
  no original row id or row order is published (an ``it.to_csv()`` of the mechanism's own frame would publish
  the input's row labels). The target holds the card's labels (``target_names``), not 0/1;
- ``owner/suppressed.<ext>``: the rows the mechanism left out, with their original row numbers, kept apart for
  the data owner (never part of the release);
- ``risk.json``: the risk summary beside it: the k and l the release reaches (its smallest equivalence class or
  group, the fewest distinct sensitive values in one), the rows suppressed, the utility metrics
  (:func:`privnb.mechanisms.release_utility`) and the attacks privnb runs on that kind of release, each with
  its success and its baseline (:func:`risk_attacks`: the one place where the common adversary of
  :mod:`privnb.attacks` is to be added beside them).

Every file is written whole (:mod:`privnb.files`); a folder that holds files privnb did not write (no
``risk.json`` of a release) is refused, never overwritten.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from privnb.files import atomic_path, write_text

MECHANISMS = ("anatomy", "full-domain", "mondrian", "mdav")
FORMATS = ("csv", "parquet")
MARKER = "risk.json"


@dataclass
class Release:
    """A release of one data set, ready to write (see the module docstring).

    Attributes
    ----------
    mechanism : str
        One of :data:`MECHANISMS`.
    parameters : dict
        ``l`` or ``k``, and ``random_state``.
    tables : dict of str to DataFrame
        The released tables by file name (``it`` and ``st``, or ``release``), shuffled, without row ids.
    suppressed : DataFrame
        The input rows left out, with their original row number in column ``row``.
    summary : dict
        The risk summary (``risk.json``).
    """

    mechanism: str
    parameters: dict
    tables: dict = field(default_factory=dict)
    suppressed: pd.DataFrame | None = None
    summary: dict = field(default_factory=dict)


def _labelled(frame: pd.DataFrame, data) -> pd.DataFrame:
    """``frame`` with its target in the card's labels."""
    if data.target not in frame.columns:
        return frame
    labels = np.asarray(data.target_names, dtype=object)
    return frame.assign(**{data.target: labels[frame[data.target].to_numpy(dtype=int)]})


def _published(frame: pd.DataFrame, data, rng) -> pd.DataFrame:
    """Rows shuffled, numbered afresh, target in its labels: nothing of the input's row ids or order."""
    order = rng.permutation(len(frame))
    return _labelled(frame.iloc[order], data).reset_index(drop=True)


def _reached(release: pd.DataFrame, classes, sensitive) -> dict:
    """The smallest class (k reached) and the fewest distinct sensitive values in a class (l reached)."""
    if not len(release):
        return {"k_reached": 0, "l_reached": 0}
    groups = release.groupby(list(classes), observed=True, dropna=False)
    out = {"k_reached": int(groups.size().min())}
    out["l_reached"] = int(groups[sensitive].nunique().min()) if sensitive is not None else None
    return out


def _fit(data, mechanism: str, *, l, k, random_state):
    """The released rows (indexed by the input's row labels), the suppressed labels, the columns the classes
    are made of, and the anatomy when there is one.
    """
    from privnb.mechanisms import FullDomainGeneralizer, MDAVMicroaggregator, MondrianGeneralizer, anatomize

    qi = list(data.quasi_identifiers)
    if mechanism == "anatomy":
        if l is None:
            raise ValueError("anatomy needs l (--l): the distinct sensitive values of each group")
        if data.sensitive is None:
            raise ValueError(f"{data.name!r} has no sensitive attribute; anatomy needs roles.sensitive in its card")
        anatomy = anatomize(data.frame, data.sensitive, int(l), random_state=random_state)
        return anatomy.it, data.frame.index.difference(anatomy.it.index), ["gid"], anatomy
    if k is None:
        raise ValueError(f"{mechanism} needs k (--k): the smallest equivalence class")
    if mechanism == "full-domain":
        missing = [q for q in qi if q not in data.hierarchies]
        if missing:
            raise ValueError(
                f"full-domain generalization needs a hierarchy for every quasi-identifier and {', '.join(missing)} "
                "have none: add one per column under the card's `hierarchies:` key (an ARX table, or intervals for "
                "a numeric column), or use --mechanism mondrian, which needs none"
            )
        fitted = FullDomainGeneralizer(qi, int(k), dict(data.hierarchies)).fit(data.frame)
    elif mechanism == "mondrian":
        hierarchies = {q: h for q, h in data.hierarchies.items() if q in qi} or None
        fitted = MondrianGeneralizer(qi, int(k), kinds=data.kinds, hierarchies=hierarchies, orders=data.orders)
        fitted = fitted.fit(data.frame)
    elif mechanism == "mdav":
        fitted = MDAVMicroaggregator(qi, int(k)).fit(data.frame)
    else:
        raise ValueError(f"unknown mechanism {mechanism!r}; choose one of {list(MECHANISMS)}")
    return fitted.generalized_, fitted.suppressed_, qi, None


def risk_attacks(data, release: pd.DataFrame, *, anatomy=None, k=None, l=None) -> list[dict]:
    """The attacks privnb runs on this kind of release, each as ``attack``, ``success``, ``baseline``,
    ``advantage`` and ``n_targets``: anatomy's de Finetti attack (:func:`privnb.attacks.definetti_disclosure`),
    a generalized or aggregated table's prosecutor re-identification and homogeneity attack.

    The one place a release's attacks are chosen: the common adversary of :mod:`privnb.attacks` (every
    release, one baseline) is to be added here, beside them.

    Parameters
    ----------
    data : Dataset
        The input (its sensitive values are the truth the attacks are scored against).
    release : DataFrame
        The released rows (an anatomy's identifying table), indexed by the input's row labels.
    anatomy : Anatomy, optional
        The anatomy, for an anatomized release.
    k, l : int, optional
        The release's parameter.

    Returns
    -------
    list of dict
    """
    from privnb.attacks import definetti_disclosure, homogeneity_attack, prosecutor_attack

    qi = list(data.quasi_identifiers)
    if anatomy is not None:
        truth = data.frame[data.sensitive]
        results = [definetti_disclosure(anatomy, truth, quasi_identifiers=qi, l=l)] if len(release) else []
    else:
        results = [prosecutor_attack(release, qi, k=k)] if len(release) else []
        if data.sensitive is not None and len(release):
            results.append(homogeneity_attack(release, qi, data.sensitive, k=k))
    return [
        {
            "attack": r.attack,
            "success": float(r.success),
            "baseline": float(r.baseline),
            "advantage": float(r.success - r.baseline),
            "n_targets": int(r.n_targets),
        }
        for r in results
    ]


def make_release(data, mechanism: str, *, l: int | None = None, k: int | None = None, random_state=0) -> Release:
    """Protect ``data`` with ``mechanism`` and prepare its publication (module docstring).

    Parameters
    ----------
    data : Dataset
        The table (a card's, or a paper's data set).
    mechanism : {"anatomy", "full-domain", "mondrian", "mdav"}
        The mechanism.
    l : int, optional
        Anatomy's l.
    k : int, optional
        The generalizers' and MDAV's k.
    random_state : int
        Anatomy's groups and the shuffle of the published rows.

    Returns
    -------
    Release
    """
    from privnb.mechanisms import release_utility

    rng = np.random.default_rng(random_state)
    released, suppressed, classes, anatomy = _fit(data, mechanism, l=l, k=k, random_state=random_state)
    if anatomy is not None:
        tables = {"it": _published(anatomy.it, data, rng), "st": _published(anatomy.st, data, rng)}
        reached = _reached(anatomy.st, ["gid"], data.sensitive)
    else:
        tables = {"release": _published(released, data, rng)}
        reached = _reached(released, classes, data.sensitive)
    level = int(l if anatomy is not None else k)
    hierarchies = dict(data.hierarchies) if mechanism in ("full-domain", "mondrian") else None
    utility = release_utility(
        released,
        data.frame,
        list(data.quasi_identifiers),
        k=level,
        hierarchies=hierarchies,
        classes="gid" if anatomy is not None else None,
    )
    summary = {
        "data": data.name,
        "mechanism": mechanism,
        "parameters": {("l" if anatomy is not None else "k"): level, "random_state": random_state},
        "rows": len(data.frame),
        "rows_released": len(released),
        "rows_suppressed": len(suppressed),
        **reached,
        "quasi_identifiers": list(data.quasi_identifiers),
        "sensitive": data.sensitive,
        "target": data.target,
        "target_labels": list(data.target_names),
        "utility": {c: _plain(v) for c, v in utility.iloc[0].items()},
        "attacks": risk_attacks(data, released, anatomy=anatomy, k=k, l=l),
    }
    owner = _labelled(data.frame.loc[suppressed], data)
    owner = owner.rename_axis("row").reset_index()
    return Release(mechanism, summary["parameters"], tables, owner, summary)


def _plain(value):
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, np.floating):
        return None if np.isnan(value) else float(value)
    return value


def _check_folder(out: Path) -> None:
    """Refuse a folder that holds anything but a release privnb wrote (its ``risk.json``)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a folder for the release")
    if any(out.iterdir()) and not (out / MARKER).is_file():
        raise ValueError(
            f"--out {out} holds files privnb did not write (no {MARKER}); give an empty or new folder, so that "
            "nothing of yours is overwritten"
        )


def write_release(release: Release, out: str | os.PathLike, *, format: str = "csv") -> list[Path]:
    """Write ``release`` into the folder ``out`` (module docstring), each file whole.

    Parameters
    ----------
    release : Release
        From :func:`make_release`.
    out : str or PathLike
        The folder: new, empty, or one that holds an earlier release (its ``risk.json``).
    format : {"csv", "parquet"}
        The tables' format.

    Returns
    -------
    list of Path
        The files written.
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}, got {format!r}")
    out = Path(out)
    _check_folder(out)
    written = []
    for name, frame in [*release.tables.items(), ("owner/suppressed", release.suppressed)]:
        path = out / f"{name}.{format}"
        with atomic_path(path) as tmp:
            if format == "csv":
                frame.to_csv(tmp, index=False)
            else:
                frame.to_parquet(tmp, index=False)
        written.append(path)
    files = {"tables": [f"{name}.{format}" for name in release.tables], "owner": f"owner/suppressed.{format}"}
    write_text(out / MARKER, json.dumps({**release.summary, "files": files}, indent=2) + "\n")
    return [*written, out / MARKER]
