"""Tests of privnb.data: loaders on the shared data, toy tables, sampling, file resolution, downloads."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import http.server
import io
import itertools
import os
import pickle
import tarfile
import threading
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from privnb import data as datasets
from privnb import files
from privnb.data import (
    Dataset,
    DataUnavailableError,
    anatomy_toy,
    describe_data,
    feature_selection_table1,
    loaders,
    nbc_figure1_databases,
)
from privnb.data import loaders as loaders_module
from privnb.data import sources as _fetch

SHARED = Path(os.environ.get("PRIVNB_DATA", "/nonexistent"))


def needs(*paths):
    """Skip without a data folder; with PRIVNB_DATA set, a missing file fails the test (no silent pass)."""
    return pytest.mark.skipif(
        "PRIVNB_DATA" not in os.environ, reason=f"needs {', '.join(paths)}: set PRIVNB_DATA to the shared data folder"
    )


@pytest.fixture(autouse=True)
def no_internet(monkeypatch):
    """Downloads may only reach 127.0.0.1 (the local server of these tests) or file:// URLs."""

    def opener(url):
        parsed = urllib.parse.urlparse(url)
        if parsed.scheme == "file" or parsed.hostname == "127.0.0.1":
            return urllib.request.urlopen(url, timeout=10)
        raise urllib.error.URLError(f"tests are offline ({url})")

    monkeypatch.setattr(_fetch, "_default_opener", opener)


@pytest.fixture
def server(tmp_path):
    """A local HTTP server over a temporary folder; yields (folder, base URL)."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def closed_port_url():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/nothing"


# --------------------------------------------------------------------------- real data (README numbers)


@needs("adult/adult.data", "adult/adult.test")
def test_adult_rows_and_classes():
    merged = datasets.load_adult()
    assert len(merged.frame) == 45222  # 30162 + 15060 rows without '?'
    train_all = datasets.load_adult(version="train", drop_missing=False)
    assert len(train_all.frame) == 32561
    assert np.bincount(train_all.y).tolist() == [24720, 7841]
    assert train_all.frame[["workclass", "occupation", "native-country"]].isna().any(axis=1).sum() == 2399
    assert len(datasets.load_adult(version="train").frame) == 30162
    test_part = merged.frame.iloc[30162:]
    assert len(test_part) == 15060
    assert merged.target_names == ("<=50K", ">50K")
    assert merged.sensitive == "education" and merged.kinds["education"] == "ordinal"
    assert set(merged.frame["education"]) == set(loaders_module.EDUCATION_ORDER)
    assert "fnlwgt" not in merged.frame and "education-num" not in merged.frame
    assert list(merged.X.columns) == [*loaders_module.ADULT_QUASI_IDENTIFIERS, "education"]
    assert merged.y.dtype.kind == "i" and set(np.unique(merged.y)) == {0, 1}


@needs("adult/adult.data", "adult/adult.test")
def test_adult_test_labels_lose_their_period():
    full = datasets.load_adult(drop_missing=False)
    assert len(full.frame) == 32561 + 16281
    assert np.bincount(full.y[32561:]).tolist() == [12435, 3846]


@needs("bank/bank-full.csv")
def test_bank_marketing():
    bank = datasets.load_bank_marketing()
    assert len(bank.frame) == 39922
    assert bank.quasi_identifiers == ("job", "day", "month") and bank.sensitive == "age"
    assert bank.target == "housing" and bank.target_names == ("no", "yes")
    assert bank.orders["age"] == loaders_module.BANK_AGE_ORDER
    assert set(bank.frame["age"]) <= set(loaders_module.BANK_AGE_ORDER)
    assert bank.frame["age"].nunique() >= 5  # l-diversity up to 5 is possible


@needs("bank/bank-full.csv")
def test_bank_age_bins_are_wekas_equal_width_bins():
    raw = pd.read_csv(
        next(p for p in [SHARED / "bank/bank-full.csv", SHARED / "bank/bank-full.csv.gz"] if p.exists()), sep=";"
    )
    ages = raw.loc[raw["y"] == "no", "age"].to_numpy()
    edges = np.linspace(ages.min(), ages.max(), 11)  # Weka: 10 equal-width bins over the range
    expected = np.clip(np.searchsorted(edges[1:-1], ages, side="left"), 0, 9)
    got = (
        pd.Series(datasets.load_bank_marketing().frame["age"])
        .map({label: i for i, label in enumerate(loaders_module.BANK_AGE_ORDER)})
        .to_numpy()
    )
    assert (got == expected).all()


def test_bank_equal_frequency_cuts_follow_wekas_rule():
    # 10 values 1..10 in 5 bins: a cut after every second value
    assert loaders.weka_equal_frequency_cuts(np.arange(1, 11), 5).tolist() == [2.5, 4.5, 6.5, 8.5]
    # a heavy value: its bin takes it whole, the cut lands on the nearer side of the ideal size
    values = [1] * 6 + [2, 3, 4, 5]
    assert loaders.weka_equal_frequency_cuts(values, 2).tolist() == [1.5]
    with pytest.raises(ValueError, match=r"age_bins"):
        datasets.load_bank_marketing(age_bins="quantile")


#: Rows the anatomization (groups of exactly l, Xiao-Tao's bucketization) suppresses on the full 39922 rows
#: of Bank Marketing for l = 2..5, per reading of "discretized age". Equal-width: almost half at l = 5,
#: as the SVM paper reports (Appendix C.2 of MC16a); equal-frequency: only the residue N mod l, the
#: k-NN paper's "no suppression" (Section 5.2 of MC17).
BANK_SUPPRESSION = {"equal-width": [0, 1, 3910, 18422], "equal-frequency": [0, 1, 2, 2]}


@needs("bank/bank-full.csv")
@pytest.mark.parametrize("reading", sorted(BANK_SUPPRESSION))
def test_bank_age_bins_pin_the_suppression_of_each_paper(reading):
    from privnb.mechanisms import anatomize

    bank = datasets.load_bank_marketing(age_bins=reading)
    assert bank.frame["age"].nunique() == 10 and list(bank.orders["age"]) == sorted(
        bank.orders["age"], key=lambda label: int(label.split("-")[0])
    )
    got = [len(anatomize(bank.frame, "age", l, random_state=l).suppressed) for l in (2, 3, 4, 5)]
    assert got == BANK_SUPPRESSION[reading]
    if reading == "equal-frequency":
        counts = bank.frame["age"].value_counts()
        assert counts.max() < 2 * counts.min()  # about equal frequencies


@needs("fars/fars.tsv", "fars/pmlb_fars_metadata.yaml")
def test_fars():
    fars = datasets.load_fars()
    assert len(fars.frame) == 91085
    assert np.bincount(fars.y).tolist() == [20007, 42116 + 15072 + 13890]
    assert fars.sensitive == "POLICE_REPORTED_ALCOHOL_INVOLVEMENT"
    assert fars.frame[fars.sensitive].nunique() == 4
    assert len(fars.quasi_identifiers) == 28
    metadata = yaml.safe_load((SHARED / "fars/pmlb_fars_metadata.yaml").read_text())
    continuous = {f["name"] for f in metadata["features"] if f["type"] == "continuous"}
    numeric = {c for c, k in fars.kinds.items() if k == "numeric"}
    assert numeric == set(loaders_module.FARS_NUMERIC) and numeric <= continuous


@needs("pu1/pu1_encoded.tar.gz")
def test_pu1():
    corpus = datasets.load_pu1()
    assert corpus.X.shape[0] == 1099 and corpus.X.format == "csr"
    assert corpus.y.sum() == 481
    assert set(np.unique(corpus.X.data)) == {1}
    assert np.bincount(corpus.folds[corpus.y == 1], minlength=11)[1:].tolist() == [48] * 9 + [49]
    assert corpus.X.shape[1] == len(corpus.tokens) and (np.diff(corpus.tokens) > 0).all()
    assert datasets.load_pu1(version="lemm_stop").X.shape[0] == 1099
    with pytest.raises(ValueError, match=r"version"):
        datasets.load_pu1(version="stemmed")


@needs("pu1/pu1_encoded.tar.gz")
def test_pu1_subject_tokens_are_counted():
    spec = datasets.FILES["pu1/pu1_encoded.tar.gz"]
    with (
        _fetch.open_binary(spec, _fetch.fetch(spec, SHARED)) as handle,
        tarfile.open(fileobj=io.BytesIO(handle.read())) as archive,
    ):
        name = sorted(n for n in archive.getnames() if "/bare/part1/" in n and n.endswith(".txt"))[0]
        text = archive.extractfile(name).read().decode()
    corpus = datasets.load_pu1()
    expected = set(map(int, text.replace("Subject:", " ").split()))
    row = corpus.X[0].indices  # messages are sorted by part, then name
    assert set(corpus.tokens[row].tolist()) == expected


@needs(*[f"adult_hierarchies/adult_hierarchy_{a}.csv" for a in ("age", "education", "workclass")])
def test_adult_hierarchies():
    tables = datasets.load_adult_hierarchies()
    levels = {
        "age": 5,
        "education": 4,
        "marital-status": 3,
        "native-country": 3,
        "occupation": 3,
        "race": 2,
        "salary-class": 2,
        "sex": 2,
        "workclass": 3,
    }
    assert {k: v.shape[1] for k, v in tables.items()} == levels
    assert all((t.iloc[:, -1] == "*").all() for t in tables.values())
    adult = datasets.load_adult(version="train")
    for column in ("education", "marital-status", "race", "sex", "workclass", "occupation"):
        assert set(adult.frame[column]) <= set(tables[column][0])


@needs("adult/adult.data", "bank/bank-full.csv", "fars/fars.tsv", "pu1/pu1_encoded.tar.gz")
def test_describe_data_on_shared_folder():
    table = describe_data(SHARED)
    assert list(table.columns) == ["dataset", "file", "location", "sha256", "url", "problem"]
    assert len(table) == len(datasets.FILES)
    present = table[table["location"] != "missing"]
    assert (present.loc[present["dataset"] != "ipums", "sha256"] == "ok").all()
    assert set(table.loc[table["dataset"] == "ipums", "sha256"]) == {"unverified"}
    assert (describe_data(SHARED, verify=False)["sha256"] == "unverified").all()


def test_describe_data_flags_a_mismatch_and_missing_files(tmp_path):
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.data").write_text("not adult\n")
    table = describe_data(tmp_path).set_index("file")
    assert table.loc["adult/adult.data", "sha256"] == "mismatch"
    assert table.loc["adult/adult.test", "location"] == "missing"


# --------------------------------------------------------------------------- toy tables


def test_feature_selection_table1_facts():
    table = feature_selection_table1()
    assert table.shape == (6, 6) and list(table.index) == [f"u{i}" for i in range(1, 7)]
    X = table[list("abcde")].to_numpy().astype(bool)
    contains = (X[None, :, :] | ~X[:, None, :]).all(axis=2)  # contains[i, j]: row j contains row i's set
    ac = contains.sum(axis=1)
    assert ac[0] == 4 and set(np.flatnonzero(contains[0])) == {0, 1, 3, 4}
    assert ac.min() == 1 and set(np.flatnonzero(ac == 1)) == {4, 5}
    fs1 = ["".join(map(str, r)) for r in table[["a", "b", "e"]].to_numpy()]
    fs2 = ["".join(map(str, r)) for r in table[["c", "d", "e"]].to_numpy()]
    assert fs1 == ["101"] * 4 + ["111"] * 2 and fs2 == ["101", "101", "011", "101", "101", "011"]
    prediction = np.where(np.array(fs1) == "101", 1, -1)
    assert (prediction != table["class"].to_numpy()).sum() == 1  # "only 1 mistake out of 6"
    pos, neg = table["class"] == 1, table["class"] == -1
    assert sorted(np.array(fs2)[pos]) == sorted(np.array(fs2)[neg])  # FS-2: no correlation


def _bob_posterior(db):
    """Average over the worlds consistent with the views of Pr[Sal=70K | W, 40] (Section 1 of MZ09)."""
    ratios = []
    adr, age, sal = db["Adr"].to_numpy(), db["Age"].to_numpy(), db["Sal"].to_numpy()
    per_class = []
    for label in np.unique(sal):
        rows = np.flatnonzero(sal == label)
        per_class.append([(rows, perm) for perm in set(itertools.permutations(age[rows]))])
    for combo in itertools.product(*per_class):
        world_age = age.copy()
        for rows, perm in combo:
            world_age[rows] = perm
        match = (adr == "W") & (world_age == 40)
        ratios.append(((sal == "70K") & match).sum() / match.sum())
    return len(ratios), float(np.mean(ratios))


def test_nbc_figure1_databases():
    db_a, db_b = nbc_figure1_databases()
    assert len(db_a) == 7 and len(db_b) == 5
    assert list(db_a.columns) == ["Adr", "Age", "Sal"]
    assert (db_a["Sal"] == "70K").sum() / 7 == pytest.approx(5 / 7)
    worlds_a, post_a = _bob_posterior(db_a)
    worlds_b, post_b = _bob_posterior(db_b)
    assert (worlds_a, worlds_b) == (10, 6)  # d1..d10 and d'1..d'6
    assert post_a == pytest.approx((4 / 5 + 4 * 3 / 4 + 5) / 10)  # 88%
    assert post_b == pytest.approx((2 / 3 + 1 / 2 + 1 / 2 + 3) / 6)  # 78%


def test_anatomy_toy():
    toy = anatomy_toy()
    assert len(toy.frame) == 6 and np.bincount(toy.y).tolist() == [2, 4]
    assert toy.target_names == ("blue", "red")
    blue, red = toy.frame[toy.y == 0], toy.frame[toy.y == 1]
    assert blue["A_1"].max() < red["A_1"].min()  # blue on the left, separable by A_1
    assert toy.frame["A_1"].is_unique and toy.frame["A_2"].is_unique


# --------------------------------------------------------------------------- Dataset


def small_dataset(y):
    y = np.asarray(y, dtype=np.int64)
    frame = pd.DataFrame({"q": np.arange(len(y)), "s": np.arange(len(y)) % 3, "t": y})
    return Dataset("small", frame, ("q",), "s", "t", {"q": "numeric", "s": "nominal"})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=60), st.data())
def test_sample_is_stratified(y, data):
    ds = small_dataset(y)
    n = data.draw(st.integers(1, len(y)))
    seed = data.draw(st.integers(0, 2**31 - 1))
    sub = ds.sample(n, random_state=seed)
    assert len(sub.frame) == n and isinstance(sub.frame.index, pd.RangeIndex)
    for c in (0, 1):
        quota = n * (ds.y == c).sum() / len(y)
        assert np.floor(quota) <= (sub.y == c).sum() <= np.ceil(quota)
    assert set(sub.frame["q"]) <= set(ds.frame["q"]) and sub.frame["q"].is_unique
    assert (sub.frame["t"].to_numpy() == ds.frame.set_index("q").loc[sub.frame["q"], "t"].to_numpy()).all()


def test_sample_is_reproducible_and_keeps_roles():
    toy = small_dataset([0] * 30 + [1] * 10)
    a = toy.sample(8, random_state=3)
    assert a.frame.equals(toy.sample(8, random_state=3).frame)
    assert np.bincount(a.y).tolist() == [6, 2]
    assert (a.quasi_identifiers, a.sensitive, a.target, a.kinds) == (("q",), "s", "t", toy.kinds)
    assert len(toy.sample(5, random_state=0, stratify=False).frame) == 5


@pytest.mark.parametrize("n", [0, 41, 2.5, True, "3"])
def test_sample_rejects_bad_sizes(n):
    with pytest.raises(ValueError, match=r"sample size"):
        small_dataset([0] * 30 + [1] * 10).sample(n)


def test_dataset_validation():
    frame = pd.DataFrame({"q": [1, 2], "s": ["a", "b"], "t": [0, 1]})
    kinds = {"q": "numeric", "s": "ordinal"}
    with pytest.raises(ValueError, match=r"ints 0/1"):
        Dataset("d", frame.assign(t=[1, 2]), ("q",), "s", "t", kinds, {"s": ("a", "b")})
    with pytest.raises(ValueError, match=r"kinds must name"):
        Dataset("d", frame, ("q",), "s", "t", {"q": "numeric"}, {})
    with pytest.raises(ValueError, match=r"unknown kinds"):
        Dataset("d", frame, ("q",), "s", "t", {"q": "numeric", "s": "text"}, {})
    with pytest.raises(ValueError, match=r"orders"):
        Dataset("d", frame, ("q",), "s", "t", kinds, {})
    with pytest.raises(ValueError, match=r"outside its order"):
        Dataset("d", frame, ("q",), "s", "t", kinds, {"s": ("a",)})
    with pytest.raises(ValueError, match=r"lacks columns"):
        Dataset("d", frame, ("q", "z"), "s", "t", {"q": "numeric", "z": "numeric", "s": "nominal"})
    with pytest.raises(ValueError, match=r"overlap"):
        Dataset("d", frame, ("q", "s"), "s", "t", kinds, {"s": ("a", "b")})
    ok = Dataset("d", frame.set_index(pd.Index([5, 7])), ("q",), "s", "t", kinds, {"s": ("a", "b")})
    assert isinstance(ok.frame.index, pd.RangeIndex) and ok.y.tolist() == [0, 1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ok.name = "other"


# --------------------------------------------------------------------------- files: plain, gz, resolution

ADULT_LINES = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
    "2174, 0, 40, United-States, <=50K\n"
    "50, ?, 83311, Doctorate, 16, Married-civ-spouse, ?, Husband, White, Male, 0, 0, 13, ?, >50K\n"
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, "
    "0, 0, 40, United-States, >50K\n"
    "\n"
)
ADULT_TEST = "|1x3 Cross validator\n" + ADULT_LINES.replace("K\n", "K.\n")


def write(path: Path, text: str, gz: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def pin(monkeypatch, relpath: str, content: bytes) -> None:
    """Pin FILES[relpath] to the sha256 of a toy file (the loaders check every local copy)."""
    monkeypatch.setitem(datasets.FILES, relpath, dataclasses.replace(datasets.FILES[relpath], sha256=sha(content)))


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """The verification cache of each test lives in its own user cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.mark.parametrize("gz", [False, True])
def test_adult_from_plain_or_gzipped_files(tmp_path, gz, monkeypatch):
    pin(monkeypatch, "adult/adult.data", ADULT_LINES.encode())
    pin(monkeypatch, "adult/adult.test", ADULT_TEST.encode())
    write(tmp_path / "adult/adult.data", ADULT_LINES, gz)
    write(tmp_path / "adult/adult.test", ADULT_TEST, not gz)
    train = datasets.load_adult(data_home=tmp_path, version="train", drop_missing=False)
    assert len(train.frame) == 3 and train.y.tolist() == [0, 1, 1]
    assert train.frame.loc[1, ["workclass", "occupation", "native-country"]].isna().all()
    merged = datasets.load_adult(data_home=tmp_path)
    assert len(merged.frame) == 4 and merged.y.tolist() == [0, 1, 0, 1]
    with pytest.raises(ValueError, match=r"version"):
        datasets.load_adult(data_home=tmp_path, version="test")


def test_resolution_order(tmp_path, monkeypatch):
    spec = _fetch.FileSpec("demo", "demo/file.txt", None, None)
    arg, env, cache = tmp_path / "arg", tmp_path / "env", tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    cache_home = _fetch.user_cache_dir()
    assert cache_home == cache / "privnb"
    for home in (arg, env, cache_home):
        write(home / spec.path, home.name)
    monkeypatch.setenv("PRIVNB_DATA", str(env))
    assert _fetch.fetch(spec, arg).read_text() == "arg"
    assert _fetch.fetch(spec).read_text() == "env"
    (env / spec.path).unlink()
    assert _fetch.fetch(spec).read_text() == "privnb"  # falls back to the user cache
    monkeypatch.delenv("PRIVNB_DATA")
    assert _fetch.fetch(spec).read_text() == "privnb"
    with pytest.raises(DataUnavailableError):  # data_home is the only place looked at
        _fetch.fetch(spec, tmp_path / "empty")


def test_plain_copy_wins_over_gzipped(tmp_path):
    spec = _fetch.FileSpec("demo", "demo/file.txt", None, None)
    write(tmp_path / spec.path, "plain")
    write(tmp_path / spec.path, "gz", gz=True)
    assert _fetch.fetch(spec, tmp_path).name == "file.txt"


# --------------------------------------------------------------------------- downloads


def test_download_verifies_and_writes(server, tmp_path):
    root, base = server
    payload = b"a,b\n1,2\n"
    (root / "file.csv").write_bytes(payload)
    spec = _fetch.FileSpec("demo", "demo/file.csv", f"{base}/file.csv", sha(payload))
    home = tmp_path / "home"
    path = _fetch.fetch(spec, home)
    assert path == home / "demo/file.csv" and path.read_bytes() == payload
    assert sorted(p.name for p in (home / "demo").iterdir()) == ["file.csv"]  # no temp left
    assert _fetch.fetch(spec, home) == path  # found, not downloaded


def test_download_of_gzip_payload_is_stored_gzipped_and_checked_uncompressed(server, tmp_path):
    root, base = server
    content = b"x\ty\n1\t2\n"
    (root / "t.tsv.gz").write_bytes(gzip.compress(content))
    spec = _fetch.FileSpec("demo", "demo/t.tsv", f"{base}/t.tsv.gz", sha(content))
    path = _fetch.fetch(spec, tmp_path)
    assert path.name == "t.tsv.gz" and gzip.decompress(path.read_bytes()) == content
    table = describe_data(tmp_path)
    assert "missing" in set(table["location"])


def test_download_extracts_a_zip_member(server, tmp_path):
    root, base = server
    content = b'"age";"y"\n30;"no"\n'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bank-full.csv", content)
        archive.writestr("bank.csv", b"other")
    (root / "bank.zip").write_bytes(buffer.getvalue())
    spec = _fetch.FileSpec("demo", "demo/bank-full.csv", f"{base}/bank.zip", sha(content), member="bank-full.csv")
    assert _fetch.fetch(spec, tmp_path).read_bytes() == content
    missing = dataclasses.replace(spec, path="demo/other.csv", member="nope.csv")
    with pytest.raises(DataUnavailableError, match=r"nope.csv"):
        _fetch.fetch(missing, tmp_path)


def test_checksum_mismatch_leaves_nothing(server, tmp_path):
    root, base = server
    (root / "file.csv").write_bytes(b"tampered\n")
    spec = _fetch.FileSpec("demo", "demo/file.csv", f"{base}/file.csv", sha(b"original\n"))
    with pytest.raises(DataUnavailableError) as info:
        _fetch.fetch(spec, tmp_path / "home")
    message = str(info.value)
    assert "demo/file.csv" in message and spec.url in message and "PRIVNB_DATA" in message
    assert "sha256" in message
    home = tmp_path / "home"
    assert not home.exists() or not any(home.rglob("*"))


def test_offline_error_names_file_url_and_variable(tmp_path, monkeypatch):
    url = closed_port_url()
    spec = _fetch.FileSpec("demo", "demo/file.csv", url, "0" * 64)
    with pytest.raises(DataUnavailableError) as info:
        _fetch.fetch(spec, tmp_path)
    assert isinstance(info.value, RuntimeError)
    assert all(s in str(info.value) for s in ("demo/file.csv", url, "PRIVNB_DATA"))
    assert not any(tmp_path.rglob("*"))
    no_url = _fetch.FileSpec("demo", "demo/file.csv", None, None)
    with pytest.raises(DataUnavailableError, match=r"no download address"):
        _fetch.fetch(no_url, tmp_path)


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", broken_replace)
    with pytest.raises(OSError, match=r"disk full"):
        files.write_bytes(tmp_path / "f.bin", b"data")
    assert not any(tmp_path.iterdir())


def test_injectable_opener_with_file_url(tmp_path):
    source = tmp_path / "src.txt"
    source.write_bytes(b"hello\n")
    spec = _fetch.FileSpec("demo", "demo/src.txt", source.as_uri(), sha(b"hello\n"))
    seen = []

    def opener(url):
        seen.append(url)
        return urllib.request.urlopen(url)

    path = _fetch.download(spec, [tmp_path / "home"], tmp_path / "home", opener)
    assert seen == [source.as_uri()] and path.read_bytes() == b"hello\n"


def test_loader_downloads_into_data_home(server, tmp_path, monkeypatch):
    root, base = server
    (root / "adult.data").write_text(ADULT_LINES)
    spec = dataclasses.replace(
        datasets.FILES["adult/adult.data"], url=f"{base}/adult.data", sha256=sha(ADULT_LINES.encode())
    )
    monkeypatch.setitem(datasets.FILES, "adult/adult.data", spec)
    home = tmp_path / "home"
    adult = datasets.load_adult(data_home=home, version="train")
    assert len(adult.frame) == 2 and (home / "adult/adult.data").read_text() == ADULT_LINES


def test_loader_without_data_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PRIVNB_DATA", str(tmp_path / "empty"))
    with pytest.raises(DataUnavailableError, match=r"ipums.la.97.*ipums-mld/ipums.la.97.gz.*PRIVNB_DATA"):
        datasets.load_ipums()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("ipums*"))


# --------------------------------------------------------------------------- IPUMS format


def ipums_line(**values):
    fields = dict.fromkeys(loaders_module.IPUMS_COLUMNS, 0)
    fields.update(values)
    return ",".join(str(fields[c]) for c in loaders_module.IPUMS_COLUMNS) + "\n"


def test_ipums_parses_the_uci_format(tmp_path):
    lines = {
        "ipums.la.97": [
            ipums_line(year=70, age=35, sex=1, educrec=7, inctot=12000, hrswork2=5),
            ipums_line(year=70, age=52, sex=2, educrec=9, inctot=50001, hrswork2=6),
        ],
        "ipums.la.98": [ipums_line(year=80, age=41, raceg=2, educrec=8, inctot=50000, classwkg=2)],
        "ipums.la.99": [ipums_line(year=90, age=29, migplac5=6, vetstat=1, educrec=3, inctot=75000)],
    }
    for i, (name, rows) in enumerate(lines.items()):
        write(tmp_path / "ipums" / name, "".join(rows), gz=bool(i % 2))
    ipums = datasets.load_ipums(data_home=tmp_path)
    assert len(ipums.frame) == 4
    assert ipums.y.tolist() == [0, 1, 0, 1]  # inctot > 50000
    assert ipums.frame["age"].tolist() == [35, 52, 41, 29]
    assert ipums.sensitive == "educrec" and ipums.quasi_identifiers == loaders_module.IPUMS_QUASI_IDENTIFIERS
    assert ipums.orders["educrec"] == (3, 7, 8, 9)
    assert ipums.kinds["age"] == "numeric" and ipums.kinds["raceg"] == "nominal"
    assert len(loaders_module.IPUMS_COLUMNS) == 61


def test_ipums_rejects_a_wrong_layout(tmp_path):
    for name in ("ipums.la.97", "ipums.la.98", "ipums.la.99"):
        write(tmp_path / "ipums" / name, "1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match=r"61 comma-separated"):
        datasets.load_ipums(data_home=tmp_path)


# --------------------------------------------------------------------------- PU1 format


def write_pu1(home: Path, messages: dict[str, str]) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in messages.items():
            info = tarfile.TarInfo(f"pu1_encoded/{name}")
            data = text.encode()
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    (home / "pu1").mkdir(parents=True, exist_ok=True)
    (home / "pu1" / "pu1_encoded.tar.gz").write_bytes(buffer.getvalue())


def test_pu1_parses_a_tiny_archive(tmp_path, monkeypatch):
    write_pu1(
        tmp_path,
        {
            "bare/part1/3legit1.txt": "Subject: 5 7\n\n7 9 9 11\n",
            "bare/part2/1spmsg2.txt": "Subject: 11\n\n2\n",
            "bare/part1/2spmsg1.txt": "Subject:\n\n5\n",
            "stop/part1/3legit1.txt": "Subject: 1\n\n1\n",
        },
    )
    pin(monkeypatch, "pu1/pu1_encoded.tar.gz", (tmp_path / "pu1" / "pu1_encoded.tar.gz").read_bytes())
    corpus = datasets.load_pu1(data_home=tmp_path)
    assert corpus.tokens.tolist() == [2, 5, 7, 9, 11]
    assert corpus.X.toarray().tolist() == [
        [0, 1, 0, 0, 0],  # part1/2spmsg1
        [0, 1, 1, 1, 1],  # part1/3legit1 (subject + body, binary)
        [1, 0, 0, 0, 1],
    ]  # part2/1spmsg2
    assert corpus.y.tolist() == [1, 0, 1] and corpus.folds.tolist() == [1, 1, 2]
    corpus.X.data[:] = 0  # callers get copies of the cache
    assert datasets.load_pu1(data_home=tmp_path).X.sum() == 7
    with pytest.raises(ValueError, match=r"no messages"):
        datasets.load_pu1(data_home=tmp_path, version="lemm")


def test_datasets_pickle():
    toy = anatomy_toy()
    copy = pickle.loads(pickle.dumps(toy))
    assert copy.frame.equals(toy.frame) and copy.kinds == toy.kinds
