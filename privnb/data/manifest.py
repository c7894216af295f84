"""The data files: each file's dataset, relative path, canonical address and pinned sha256 (``FILES``),
their resolution (``data_file``), the reading of a file with damage reported (``read_checked``), and
:func:`describe_data`, which says where each file resolves and whether its checksum matches.
"""

from __future__ import annotations

import tarfile
import zlib

import pandas as pd

from privnb.data.sources import (
    DataIntegrityError,
    FileSpec,
    candidates,
    checked_sha256,
    fetch,
    looks_wrong,
    search_dirs,
)

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"


_ARX = "https://raw.githubusercontent.com/arx-deidentifier/arx/aacd487fb77b3af7970d5d6fa1b2f6cca1182b64/data"


#: Pinned sha256 of ARX's Adult hierarchy file of each attribute.
HIERARCHY_SHA = {
    "age": "463f35372e8b1ad31fc624eb73c5da9297878a044ae5d61038eaf7b431ac55ca",
    "education": "f22e5ee519c28b05538d4e5ddea0fbee5f0017fefb3abab3fa02272325bf9ce5",
    "marital-status": "3e7ba2c4a5cd4fec059b4e3a2c57fce6e7c34a20daee1e624990ddd7beba85e5",
    "native-country": "696d3b53973311c096b33f98bb56e526016910b1a1cd5a1e904cb799d1077023",
    "occupation": "16dc420d5d7f8ab4d1e6144eb1d19ab8314ef42523fe8c4ee202372db1c98126",
    "race": "df11abf41fa0669455adc9c9f9fa88663afa0cee8327684ecca861cd32dc4209",
    "salary-class": "404895b3fcfb615813efab7ae0d2c50c8b127cec651f9b37d44a648646f86345",
    "sex": "537d23f7b6969b916b5a5490eb1b32c273fefdc62ca050a7a813e23bbf3b78b2",
    "workclass": "106f420349bf0071dbb25371795a78799edf24a64c3424619d563c3990ee8d02",
}


#: The IPUMS files (UCI's ipums-mld), read together by ``load_ipums``.
IPUMS_FILES = ("ipums.la.97", "ipums.la.98", "ipums.la.99")


FILES: dict[str, FileSpec] = {
    spec.path: spec
    for spec in [
        FileSpec(
            "adult",
            "adult/adult.data",
            f"{_UCI}/adult/adult.data",
            "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
        ),
        FileSpec(
            "adult",
            "adult/adult.test",
            f"{_UCI}/adult/adult.test",
            "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        ),
        *[
            FileSpec(
                "adult_hierarchies",
                f"adult_hierarchies/adult_hierarchy_{attr}.csv",
                f"{_ARX}/adult_hierarchy_{attr}.csv",
                sha,
            )
            for attr, sha in HIERARCHY_SHA.items()
        ],
        FileSpec(
            "bank",
            "bank/bank-full.csv",
            f"{_UCI}/00222/bank.zip",
            "d1513ec63b385506f7cfce9f2c5caa9fe99e7ba4e8c3fa264b3aaf0f849ed32d",
            member="bank-full.csv",
        ),
        FileSpec(
            "fars",
            "fars/fars.tsv",
            "https://github.com/EpistasisLab/pmlb/raw/253138e2aa4098734fb9154ec3570fbcad5f4197/"
            "datasets/fars/fars.tsv.gz",
            "6142db15b50dd2af73f125affe378c076b1fa2843e3572afde31decb8e30a20a",
        ),
        # The shared copy repacks the corpus' pu1_encoded folder; no address serves this exact archive.
        FileSpec(
            "pu1", "pu1/pu1_encoded.tar.gz", None, "bca9fee86291174c68c2993c899ef876954bb6ad683d174afcbbd4f7b2351317"
        ),
        # UCI publishes no checksum for these and no verified copy was available: unverified.
        *[FileSpec("ipums", f"ipums/{name}", f"{_UCI}/ipums-mld/{name}.gz", None) for name in IPUMS_FILES],
    ]
}


def data_file(relpath: str, data_home):
    """Path of a verified copy of the data file ``relpath`` (found or downloaded, as :func:`fetch`).

    Parameters
    ----------
    relpath : str
        The file's path relative to a data home, a key of :data:`FILES` (``"adult/adult.data"``).
    data_home : str, path-like or None
        The only folder looked in and downloaded into; None: ``PRIVNB_DATA``, then the user cache.
    """
    return fetch(FILES[relpath], data_home)


def read_checked(path, read):
    """``read(path)``, with a damaged file or bytes of another format reported as a DataIntegrityError naming it.

    Parameters
    ----------
    path : path-like
        The data file, as :func:`data_file` gives it.
    read : callable
        ``read(path)`` parses the file; its OSError, EOFError, zlib, UnicodeDecodeError, pandas parser and
        tarfile errors become the DataIntegrityError.

    Returns
    -------
    object
        What ``read(path)`` returns.
    """
    try:
        return read(path)
    except (
        OSError,
        EOFError,
        zlib.error,
        UnicodeDecodeError,
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        tarfile.TarError,
    ) as error:
        raise DataIntegrityError(
            f"data file {path} cannot be read ({type(error).__name__}: {error}); delete it "
            "and copy or download it again"
        ) from None


def describe_data(data_home=None, *, verify: bool = True) -> pd.DataFrame:
    """One row per data file: where it resolves and whether its checksum matches.

    Nothing is downloaded.

    Parameters
    ----------
    data_home : path-like, optional
        As for the loaders; default ``PRIVNB_DATA`` then the user cache.
    verify : bool
        Hash the uncompressed content of each file found (a few seconds in all).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, file, location, sha256, url, problem``: location is the path found or "missing"
        (with a plain and a gzipped copy, the one whose checksum matches); sha256 is "ok", "mismatch",
        "damaged" (a truncated or corrupt gzip, or not the expected format) or "unverified" (not checked, no
        pinned checksum, or missing); problem says what is wrong and what to do. Hashes are remembered by
        path, size, mtime, ctime and inode in the user cache, so each file is hashed once until it changes.
    """
    dirs, _ = search_dirs(data_home)
    rows = []
    for spec in FILES.values():
        found = candidates(spec, dirs)
        status, problem, where = "unverified", "", found[0] if found else None
        if found and verify:
            for path in found:
                try:
                    if spec.sha256 is None:
                        why = looks_wrong(spec, path)
                        state = "damaged" if why else "unverified"
                        why = f"{path}: {why}" if why else ""
                    else:
                        got = checked_sha256(spec, path)
                        state = "ok" if got == spec.sha256 else "mismatch"
                        why = "" if state == "ok" else f"{path}: sha256 {got}, expected {spec.sha256}"
                except DataIntegrityError as error:
                    state, why = "damaged", str(error)
                if path is found[0] or state in ("ok", "unverified"):
                    status, problem, where = state, why, path
                if state in ("ok", "unverified"):
                    break
        rows.append(
            {
                "dataset": spec.dataset,
                "file": spec.path,
                "location": str(where) if where is not None else "missing",
                "sha256": status,
                "url": spec.url or "",
                "problem": problem,
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "file", "location", "sha256", "url", "problem"])
