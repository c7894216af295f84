"""Table 6 of FSAC: every greedy and baseline count on PU1 under the paper's stopping rule (issue 34).

The setting: PU1's bare version, message bodies only (no Subject line: Table 3's 24,604 tokens), token
presence, all 1,099 messages, selection on the whole data, k-AC counting the row itself. With the paper's rule
(stop at the first best feature that breaks the constraint, Algorithms 2 and 3) every count of Table 6's greedy
and baseline rows comes out exactly; with the other rule (take the best feasible feature) privnb's earlier counts.
"""

import os
from pathlib import Path

import pytest

from privnb.data import load_pu1
from privnb.learn import greedy_cm, greedy_distcnt, greedy_hamdist

_ARCHIVE = Path(os.environ.get("PRIVNB_DATA", "/nonexistent")) / "pu1" / "pu1_encoded.tar.gz"
pytestmark = pytest.mark.skipif(
    not _ARCHIVE.is_file(), reason="needs pu1/pu1_encoded.tar.gz under PRIVNB_DATA (the shared data folder)"
)

KS = (5, 8, 11)

#: Table 6's rows: (selector, constraint) -> counts at k = 5, 8, 11 under each rule. "first-infeasible" is the
#: paper's; "best-feasible" privnb's earlier rule (Greedy-HamDist and its k-anonymity twin already stopped, so
#: their earlier counts are the paper's; skipping gives them more: 191 / 105 / 71 for Greedy-HamDist, measured
#: once and left out here for its five minutes, and 23 / 11 / 4 for the k-anonymity twin).
COUNTS = {
    ("greedy-hamdist", "k-ac"): {"first-infeasible": (11, 11, 11)},
    ("greedy-distcnt", "k-ac"): {"first-infeasible": (11, 7, 7), "best-feasible": (16, 17, 17)},
    ("cm-greedy", "k-ac"): {"first-infeasible": (3, 3, 3), "best-feasible": (19, 14, 20)},
    ("greedy-hamdist", "k-anonymity"): {"first-infeasible": (4, 4, 4), "best-feasible": (23, 11, 4)},
    ("greedy-distcnt", "k-anonymity"): {"first-infeasible": (4, 4, 4), "best-feasible": (19, 6, 4)},
}
SELECT = {"greedy-hamdist": greedy_hamdist, "greedy-distcnt": greedy_distcnt, "cm-greedy": greedy_cm}


@pytest.fixture(scope="module")
def pu1():
    corpus = load_pu1(version="bare", subject=False)
    assert corpus.X.shape == (1099, 24604)  # Table 3
    return corpus.X, corpus.y


@pytest.mark.parametrize(
    "selector, constraint, stop",
    [(s, c, rule) for (s, c), rules in COUNTS.items() for rule in rules],
)
def test_table6_counts_under_each_stopping_rule(pu1, selector, constraint, stop):
    X, y = pu1
    counts = tuple(SELECT[selector](X, y, k, constraint=constraint, stop=stop).features.size for k in KS)
    assert counts == COUNTS[selector, constraint][stop]
