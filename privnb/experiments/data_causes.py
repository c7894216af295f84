"""What differs between privnb's runs and the l-diversity papers' (MC16, MC17) on each of their data sets: the
cause a differing claim's reason names when the difference is beyond sampling noise.

Each cause is a :class:`Cause`, a kind of :data:`privnb.experiments.claims.REASON_KINDS` and its words, read from
the papers' "Data Sets" sections (Section 5.1.1 of MC17, Appendix C.1 of MC16a) and the shared data's README:

- Adult: the paper's rows (45222 without missing values); what differs is privnb's reading where the paper is
  silent, and for the generalized views the hierarchies (Inan et al.'s are not public);
- Marketing: the paper's rows (UCI's 39922 non-subscribers), but the sensitive age is discretized by an unnamed
  Weka filter, so the bins are privnb's choice (``load_bank_marketing(age_bins=...)``);
- Fatality: PMLB's integer-coded copy of KEEL's fars, not the paper's KEEL file;
- IPUMS: privnb's reading of UCI's ipums-mld files.
"""

from __future__ import annotations

from typing import NamedTuple


class Cause(NamedTuple):
    """What a difference beyond sampling noise is put down to: a reason kind and its words.

    Parameters
    ----------
    kind : str
        One of :data:`privnb.experiments.claims.REASON_KINDS`.
    text : str
        What differs between privnb's run and the paper's.
    """

    kind: str
    text: str


GENERALIZED = Cause(
    "data",
    (
        "Inan et al.'s hierarchies, with which the paper generalizes Adult, are not public: privnb uses ARX's Adult "
        "hierarchies and its own intervals for capital-gain, capital-loss and hours-per-week"
    ),
)
"""The cause of a difference on the generalized (k-anonymized) views of Adult."""

_FARS = Cause(
    "data",
    (
        "Fatality is PMLB's integer-coded copy of KEEL's fars (KEEL's own file was not found): the paper's 91085 "
        "rows, but the category names are lost and each attribute's kind is inferred"
    ),
)

_IPUMS = Cause(
    "data",
    (
        "IPUMS is privnb's reading of UCI's ipums-mld files (233584 rows, the paper's count), the kinds and orders "
        "of its code columns inferred"
    ),
)


def _marketing(bins: str, why: str) -> Cause:
    return Cause(
        "ambiguous",
        (
            "Marketing's rows are the paper's (UCI's 39922 non-subscribers), but the paper discretizes the sensitive "
            f"age with an unnamed Weka filter: privnb's ten {bins} bins ({why}) decide every private view"
        ),
    )


SVM_CAUSES = {
    "adult": Cause(
        "ambiguous",
        (
            "Adult's rows are the paper's (45222 without missing values), so what differs is privnb's reading where "
            "MC16 is silent: Appendix B's coordinates scaled to [-1, 1] as LibSVM's svm-scale does (unscaled, the "
            "linear SVC does not converge in practical time) and the folds' draw"
        ),
    ),
    "bank": _marketing("equal-width", "the reading that gives MC16's suppression at l = 5"),
    "fars": _FARS,
    "ipums": _IPUMS,
}
"""MC16's data sets -> the cause of a difference beyond sampling noise (the generalized views: :data:`GENERALIZED`)."""

KNN_CAUSES = {
    "adult": Cause(
        "ambiguous",
        (
            "Adult's rows are the paper's (45222 without missing values), so what differs is privnb's reading where "
            "MC17 is silent: Weka IBk's distance and tie rules as privnb reads them (privnb.learn.knn) and the "
            "folds' draw"
        ),
    ),
    "bank": _marketing("equal-frequency", "the reading with no suppression at l = 2..5, as MC17 reports"),
    "fars": _FARS,
    "ipums": _IPUMS,
}
"""MC17's data sets -> the cause of a difference beyond sampling noise (the anonymized 1-NN: :data:`GENERALIZED`)."""
