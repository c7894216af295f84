"""Data sets with their roles (quasi-identifiers, sensitive attribute, target) and the papers' toy tables.

Files are looked up in the folder given as ``data_home``, else in the folder named by the environment
variable ``PRIVNB_DATA`` and then in the user cache (platformdirs, ``privnb``). The layout mirrors
the shared data folder (``adult/adult.data``, ``bank/bank-full.csv``, ...); each file may be stored
plain or gzipped. A missing file is downloaded from its canonical address into the cache (or into
``data_home`` when given), checked against a pinned sha256 of its uncompressed content and written
atomically; offline, or on a checksum mismatch, a :class:`DataUnavailableError` names the file, the
address and ``PRIVNB_DATA``.
"""

from __future__ import annotations

import functools
import gzip
import io
import re
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privnb.data.containers import Dataset, TokenCorpus
from privnb.data.manifest import FILES, HIERARCHY_SHA, IPUMS_FILES, data_file, read_checked
from privnb.data.sources import fetch, open_binary

ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)


ADULT_QUASI_IDENTIFIERS = (
    "age",
    "workclass",
    "marital-status",
    "occupation",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
)


#: Adult's education levels in the order of education-num (1..16).
EDUCATION_ORDER = (
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
)


_ADULT_NUMERIC = ("age", "capital-gain", "capital-loss", "hours-per-week")


def _read_adult(path, skiprows: int) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        header=None,
        names=list(ADULT_COLUMNS),
        skiprows=skiprows,
        skipinitialspace=True,
        na_values=["?"],
        keep_default_na=False,
    )
    frame["income"] = frame["income"].str.rstrip(".")
    return frame


def load_adult(*, data_home=None, version: str = "merged", drop_missing: bool = True) -> Dataset:
    """UCI Adult with the roles of the SVM and k-NN papers (Section 5.1.1 of MC17).

    Target ``income`` (1 = ">50K"); sensitive ``education`` (ordinal, :data:`EDUCATION_ORDER`);
    quasi-identifiers age, workclass, marital-status, occupation, race, sex, capital-gain,
    capital-loss, hours-per-week, native-country. fnlwgt and education-num are dropped (the latter
    would reveal the sensitive value). The test file's trailing periods on labels are stripped.

    Parameters
    ----------
    data_home : str or path-like, optional
        Where the files are looked up (default: ``PRIVNB_DATA``, then the user cache).
    version : {"merged", "train"}
        "merged": adult.data and adult.test (45222 rows without missing values, as MC17);
        "train": adult.data alone (32561 rows with missing values, 30162 without; the NBC and
        feature-selection papers).
    drop_missing : bool
        Drop the rows with a ``?`` (workclass, occupation, native-country); when False those cells
        are NaN.
    """
    if version not in ("merged", "train"):
        raise ValueError(f"version must be 'merged' (adult.data + adult.test) or 'train' (adult.data); got {version!r}")
    parts = [read_checked(data_file("adult/adult.data", data_home), lambda p: _read_adult(p, skiprows=0))]
    if version == "merged":
        parts.append(read_checked(data_file("adult/adult.test", data_home), lambda p: _read_adult(p, skiprows=1)))
    frame = pd.concat(parts, ignore_index=True)
    if drop_missing:
        frame = frame.dropna().reset_index(drop=True)
    frame["income"] = (frame["income"] == ">50K").astype(np.int64)
    kinds = {c: ("numeric" if c in _ADULT_NUMERIC else "nominal") for c in ADULT_QUASI_IDENTIFIERS}
    kinds["education"] = "ordinal"
    return Dataset(
        "adult",
        frame,
        ADULT_QUASI_IDENTIFIERS,
        "education",
        "income",
        kinds,
        {"education": EDUCATION_ORDER},
        ("<=50K", ">50K"),
    )


ARX_ADULT_ATTRIBUTES = tuple(HIERARCHY_SHA)
"""The nine quasi-identifiers of ARX's Adult task, one per hierarchy file ARX ships (age, education,
marital-status, native-country, occupation, race, salary-class, sex, workclass)."""


def load_adult_hierarchies(*, data_home=None) -> dict[str, pd.DataFrame]:
    """ARX's generalization hierarchy tables for Adult, raw (``privnb.data.adult_hierarchies`` gives them built).

    Parameters
    ----------
    data_home : str or path-like, optional
        Where the files are looked up (default: ``PRIVNB_DATA``, then the user cache).

    Returns
    -------
    dict
        Attribute name (``age``, ``education``, ``marital-status``, ``native-country``, ``occupation``,
        ``race``, ``salary-class``, ``sex``, ``workclass``) -> DataFrame of strings, no header:
        column 0 the original value, then increasingly general levels, the last ``*``.
    """
    return {
        attr: read_checked(
            data_file(f"adult_hierarchies/adult_hierarchy_{attr}.csv", data_home),
            lambda p: pd.read_csv(p, sep=";", header=None, dtype=str, keep_default_na=False),
        )
        for attr in HIERARCHY_SHA
    }


#: Age bins for Bank Marketing: Weka's default unsupervised Discretize (10 equal-width bins) over
#: the observed range 18..95 of the 39922 rows (width 7.7), written as the integer ages each holds.
BANK_AGE_BINS = ((18, 25), (26, 33), (34, 41), (42, 48), (49, 56), (57, 64), (65, 71), (72, 79), (80, 87), (88, 95))


BANK_AGE_ORDER = tuple(f"{lo}-{hi}" for lo, hi in BANK_AGE_BINS)


#: The readings of "discretized age" that ``load_bank_marketing(age_bins=...)`` offers.
BANK_AGE_READINGS = ("equal-width", "equal-frequency")


def weka_equal_frequency_cuts(values, n_bins: int = 10) -> np.ndarray:
    """Cut points of Weka's unsupervised Discretize with ``useEqualFrequency`` (``-F -B n_bins``).

    Weka 3.8's ``calculateCutPointsByEqualFrequencyBinning``, rewritten over the distinct values: walk
    the sorted values with a running count; at each change of value whose count reaches the ideal bin
    size ``freq``, cut either here or at the previous change of value (whichever is nearer to ``freq``),
    cut points lying half way between neighbouring distinct values; ``freq`` is then recomputed from the
    rows left for the bins left. A last candidate cut is kept when fewer than ``n_bins - 1`` cuts were
    placed. Every row weighs 1.

    Parameters
    ----------
    values : array-like of float
        The attribute's values, one per row.
    n_bins : int, default 10
        Weka's ``-B``: the number of bins asked for (at most ``n_bins - 1`` cuts).

    Returns
    -------
    ndarray
        The cut points, increasing.
    """
    distinct, counts = np.unique(np.asarray(values, dtype=float), return_counts=True)
    n_cuts = n_bins - 1
    remaining = float(counts.sum())
    freq = remaining / n_bins
    cuts, counter, last, last_i = [], 0.0, 0.0, -1
    for i in range(len(distinct) - 1):  # i: the last row of distinct value i, followed by value i + 1
        counter += counts[i]
        remaining -= counts[i]
        if counter >= freq:
            if (freq - last) < (counter - freq) and last_i != -1:
                cuts.append((distinct[last_i] + distinct[last_i + 1]) / 2)
                counter -= last
                last, last_i = counter, i
            else:
                cuts.append((distinct[i] + distinct[i + 1]) / 2)
                counter, last, last_i = 0.0, 0.0, -1
            freq = (remaining + counter) / ((n_cuts + 1) - len(cuts))
        else:
            last_i, last = i, counter
        if len(cuts) == n_cuts:
            break
    if len(cuts) < n_cuts and last_i != -1:
        cuts.append((distinct[last_i] + distinct[last_i + 1]) / 2)
    return np.asarray(cuts)


def _bins_from_cuts(age: np.ndarray, cuts: np.ndarray):
    """Labels "lo-hi" (the integer ages each bin holds, in the data) and the bin of each age."""
    bins = np.searchsorted(cuts, age, side="left")  # Weka: value <= cut point goes below it
    labels = []
    for b in range(len(cuts) + 1):
        held = age[bins == b]
        labels.append(f"{held.min()}-{held.max()}" if len(held) else f"bin{b}")
    return tuple(labels), bins


def load_bank_marketing(*, data_home=None, age_bins: str = "equal-width") -> Dataset:
    """UCI Bank Marketing as the SVM and k-NN papers use it (Section 5.1.1 of MC17).

    The clients who did not subscribe (``y == "no"``, 39922 rows); target ``housing`` (1 = "yes");
    quasi-identifiers job (nominal), day (numeric), month (nominal, as Weka reads it); sensitive
    ``age`` discretized by Weka's unsupervised Discretize filter into 10 bins (ordinal), labelled by
    the ages they hold. Both papers say only "discretized age" (Weka's filters), and they disagree:

    ``age_bins="equal-width"`` (Weka's default; :data:`BANK_AGE_BINS`): 10 equal-width bins over the
        observed ages 18..95 (cut points 25.7, 33.4, ..., 87.3): 18-25, 26-33, ..., 88-95. The few rows
        of the oldest bins make large l suppress many rows: almost half at l = 5 under anatomy, as the
        SVM paper reports (Appendix C.2 of MC16a, Figure C.5). Notebook 01 uses it.
    ``age_bins="equal-frequency"`` (Discretize ``-F``, :func:`weka_equal_frequency_cuts`): 10 bins of
        about equal counts. No row is suppressed for l = 2..5, as the k-NN paper reports (Section 5.2
        of MC17: Marketing satisfies l-diversity for every l). Notebook 02 uses it.

    Parameters
    ----------
    data_home : str or path-like, optional
        Where the files are looked up (default: ``PRIVNB_DATA``, then the user cache).
    age_bins : {"equal-width", "equal-frequency"}
        How ``age`` is discretized, as above.
    """
    if age_bins not in BANK_AGE_READINGS:
        raise ValueError(f"age_bins must be one of {BANK_AGE_READINGS}, got {age_bins!r}")
    raw = read_checked(
        data_file("bank/bank-full.csv", data_home),
        lambda p: pd.read_csv(p, sep=";", usecols=["age", "job", "day", "month", "housing", "y"]),
    )
    raw = raw[raw["y"] == "no"].reset_index(drop=True)
    upper = np.array([hi for _, hi in BANK_AGE_BINS])
    age = raw["age"].to_numpy()
    if age.min() < BANK_AGE_BINS[0][0] or age.max() > upper[-1]:
        raise ValueError(f"bank-full.csv has ages outside {BANK_AGE_BINS[0][0]}..{upper[-1]}; is it the UCI file?")
    if age_bins == "equal-width":
        order, binned = BANK_AGE_ORDER, np.searchsorted(upper, age)
    else:
        order, binned = _bins_from_cuts(age, weka_equal_frequency_cuts(age, 10))
    frame = pd.DataFrame(
        {
            "job": raw["job"],
            "day": raw["day"],
            "month": raw["month"],
            "age": np.asarray(order, dtype=object)[binned],
            "housing": (raw["housing"] == "yes").astype(np.int64),
        }
    )
    frame["age"] = frame["age"].astype(str)
    kinds = {"job": "nominal", "day": "numeric", "month": "nominal", "age": "ordinal"}
    return Dataset(
        "bank", frame, ("job", "day", "month"), "age", "housing", kinds, {"age": tuple(order)}, ("no", "yes")
    )


FARS_SENSITIVE = "POLICE_REPORTED_ALCOHOL_INVOLVEMENT"


#: The attributes KEEL stores as numbers (README of the shared data, section 4). PMLB's metadata
#: also calls SEATING_POSITION, CASE_STATE, RACE and a few more "continuous", but their values are
#: the label codes 0..n-1 of KEEL's nominal attributes, so they are kept nominal here.
FARS_NUMERIC = (
    "AGE",
    "ALCOHOL_TEST_RESULT",
    "DRUG_TEST_RESULTS_(1_of_3)",
    "DRUG_TEST_RESULTS_(2_of_3)",
    "DRUG_TEST_RESULTS_(3_of_3)",
)


_FARS_INJURED = (1, 2, 5)  # Fatal, Incapaciting, Nonincapaciting_Evident


_FARS_NOT_INJURED = (4,)  # No_Injury


def load_fars(*, data_home=None) -> Dataset:
    """KEEL's fars (Fatality Analysis Reporting System, 2001) as converted by PMLB.

    As Section 5.1.1 of MC17: the classes Died_Prior_to_Accident (0), Injured_Severity_Unknown
    (3), Possible_Injury (6) and Unknown (7) are dropped, leaving 91085 rows; target ``injured``
    (1 = codes 1, 2, 5: fatal, incapacitating, non-incapacitating evident injury; 0 = code 4, no
    injury); sensitive POLICE_REPORTED_ALCOHOL_INVOLVEMENT; every other attribute a
    quasi-identifier. PMLB replaced category names by integer codes, so nominal columns hold ints;
    :data:`FARS_NUMERIC` are numeric.
    """
    raw = read_checked(data_file("fars/fars.tsv", data_home), lambda p: pd.read_csv(p, sep="\t"))
    raw = raw[raw["target"].isin(_FARS_INJURED + _FARS_NOT_INJURED)].reset_index(drop=True)
    raw["injured"] = raw.pop("target").isin(_FARS_INJURED).astype(np.int64)
    quasi = tuple(c for c in raw.columns if c not in (FARS_SENSITIVE, "injured"))
    kinds = {c: ("numeric" if c in FARS_NUMERIC else "nominal") for c in (*quasi, FARS_SENSITIVE)}
    return Dataset("fars", raw, quasi, FARS_SENSITIVE, "injured", kinds, {}, ("No_Injury", "Injured"))


#: The 61 comma-separated integer fields of a line of ipums.la.97/98/99, in file order. The UCI
#: description uses general-version names (``raceg``, ``classwkg``) for race and class of worker.
IPUMS_COLUMNS = (
    "year",
    "gq",
    "gqtype",
    "farm",
    "ownershp",
    "value",
    "rent",
    "ftotinc",
    "nfams",
    "ncouples",
    "nmothers",
    "nfathers",
    "momloc",
    "stepmom",
    "momrule",
    "poploc",
    "steppop",
    "poprule",
    "sploc",
    "sprule",
    "famsize",
    "nchild",
    "nchlt5",
    "famunit",
    "eldch",
    "yngch",
    "nsibs",
    "relate",
    "age",
    "sex",
    "raceg",
    "marst",
    "chborn",
    "bpl",
    "school",
    "educrec",
    "schltype",
    "empstat",
    "labforce",
    "occ1950",
    "occscore",
    "sei",
    "ind1950",
    "classwkg",
    "wkswork2",
    "hrswork2",
    "yrlastwk",
    "workedyr",
    "inctot",
    "incwage",
    "incbus",
    "incfarm",
    "incss",
    "incwelfr",
    "incother",
    "poverty",
    "migrate5",
    "migplac5",
    "movedin",
    "vetstat",
    "tranwork",
)


IPUMS_QUASI_IDENTIFIERS = ("age", "sex", "raceg", "marst", "occ1950", "classwkg", "hrswork2", "migplac5", "vetstat")


def _read_ipums(path) -> pd.DataFrame:
    frame = pd.read_csv(path, header=None, skipinitialspace=True, dtype=np.int64)
    if frame.shape[1] != len(IPUMS_COLUMNS):
        raise ValueError(
            f"{path}: expected {len(IPUMS_COLUMNS)} comma-separated integer fields per line "
            f"(UCI IPUMS format), found {frame.shape[1]}"
        )
    frame.columns = list(IPUMS_COLUMNS)
    return frame


def load_ipums(*, data_home=None) -> Dataset:
    """UCI IPUMS census data, Los Angeles and Long Beach 1970/1980/1990 (ipums.la.97, .98, .99).

    As Section 5.1.1 of MC17: 233584 rows in all; sensitive ``educrec`` (ordinal codes);
    quasi-identifiers age (numeric), sex, raceg, marst, occ1950, classwkg (nominal codes),
    hrswork2 (ordinal: hours-worked intervals), migplac5, vetstat (nominal codes); target
    ``bintotinc`` = 1 when total personal income ``inctot`` exceeds 50000. Each file holds one
    person per line, 61 comma-separated integers (:data:`IPUMS_COLUMNS`). The files are not in the
    shared data folder: they are downloaded from UCI (gzipped) into the cache on first use.
    Orders of the ordinal code columns are their sorted observed codes.
    """
    frame = pd.concat(
        [read_checked(data_file(f"ipums/{name}", data_home), _read_ipums) for name in IPUMS_FILES], ignore_index=True
    )
    frame["bintotinc"] = (frame["inctot"] > 50000).astype(np.int64)
    kinds = dict.fromkeys(IPUMS_QUASI_IDENTIFIERS, "nominal")
    kinds.update(age="numeric", hrswork2="ordinal", educrec="ordinal")
    orders = {c: tuple(np.sort(frame[c].unique()).tolist()) for c in ("hrswork2", "educrec")}
    return Dataset("ipums", frame, IPUMS_QUASI_IDENTIFIERS, "educrec", "bintotinc", kinds, orders, ("<=50K", ">50K"))


PU1_VERSIONS = ("bare", "lemm", "lemm_stop", "stop")


_PU1_MEMBER = re.compile(r"^pu1_encoded/(?P<version>[a-z_]+)/part(?P<part>\d+)/(?P<file>[^/]+\.txt)$")


def load_pu1(*, data_home=None, version: str = "bare", subject: bool = True) -> TokenCorpus:
    """The PU1 spam corpus (Androutsopoulos et al., SIGIR 2000) as binary token presence.

    1099 messages (481 spam, 618 legitimate), each a file of integer-encoded tokens (subject line
    and body); columns are the distinct tokens of the chosen version; ``folds`` are the corpus'
    parts 1..10, as the feature-selection paper (FSAC, "Email") and the corpus readme use them.

    Parameters
    ----------
    data_home : str or path-like, optional
        Where the files are looked up (default: ``PRIVNB_DATA``, then the user cache).
    version : {"bare", "lemm", "lemm_stop", "stop"}
        Lemmatiser and stop-list settings of the corpus' four versions.
    subject : bool, default True
        Whether the tokens of the "Subject:" line count. Without them ("body only") the bare version has
        exactly the 24604 tokens of Table 3 of FSAC (with them 24748; lemm 21566 / 21705, lemm_stop
        21472 / 21611, stop 24510 / 24654), so notebook 03 passes ``subject=False`` for the paper's
        experiments; the paper itself does not say which lines it read.
    """
    if version not in PU1_VERSIONS:
        raise ValueError(f"PU1 version must be one of {PU1_VERSIONS}; got {version!r}")
    spec = FILES["pu1/pu1_encoded.tar.gz"]
    path = fetch(spec, data_home)
    stat = path.stat()
    X, y, folds, tokens = read_checked(
        path, lambda p: _parse_pu1(str(p), stat.st_mtime_ns, stat.st_size, version, bool(subject))
    )
    return TokenCorpus(X.copy(), y.copy(), folds.copy(), tokens.copy(), version)


@functools.lru_cache(maxsize=4)
def _parse_pu1(path: str, mtime_ns: int, size: int, version: str, subject: bool = True):
    """Parse one version of the PU1 archive (cached per file state; callers get copies).

    ``subject=False`` drops each message's first line when it is its "Subject:" line.
    """
    spec = FILES["pu1/pu1_encoded.tar.gz"]
    with open_binary(spec, Path(path)) as handle:
        raw = gzip.decompress(handle.read())
    entries = []
    # Decompressing once up front is much faster than tarfile's seeking in a gzip stream.
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
        for member in archive:
            match = _PU1_MEMBER.match(member.name)
            if member.isfile() and match and match["version"] == version:
                text = archive.extractfile(member).read().decode("ascii")
                entries.append((int(match["part"]), match["file"], text))
    if not entries:
        raise ValueError(f"the PU1 archive {path} holds no messages for version {version!r}")
    entries.sort(key=lambda e: (e[0], e[1]))
    folds = np.array([e[0] for e in entries])
    names = [e[1] for e in entries]
    spam = np.array(["spmsg" in n for n in names])
    legit = np.array(["legit" in n for n in names])
    if not (spam ^ legit).all():
        raise ValueError("PU1 file names must contain 'spmsg' or 'legit'")
    texts = [e[2] if subject else _drop_subject(e[2]) for e in entries]
    token_lists = [np.array(t.replace("Subject:", " ").split(), dtype=np.int64) for t in texts]
    lengths = np.array([len(t) for t in token_lists])
    tokens, columns = np.unique(np.concatenate(token_lists), return_inverse=True)
    rows = np.repeat(np.arange(len(entries)), lengths)
    X = sp.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, columns)), shape=(len(entries), len(tokens)))
    X.sum_duplicates()
    X.data[:] = 1
    return X, spam.astype(np.int64), folds, tokens


def _drop_subject(text: str) -> str:
    """A PU1 message without its "Subject:" line (the corpus puts it first, then a blank line, then the body)."""
    first, _, rest = text.partition("\n")
    return rest if first.startswith("Subject:") else text


LOADERS = {"adult": load_adult, "bank": load_bank_marketing, "fars": load_fars, "ipums": load_ipums, "pu1": load_pu1}
"""The papers' data sets by the names the notebooks and sweeps use."""
