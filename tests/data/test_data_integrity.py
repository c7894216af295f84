"""Data that is what it claims to be: local copies are checked against their pinned sha256 (once per file
state), the matching one of a plain and a gzipped copy is used, damage is an error naming the file, and an
unpinned download that is an HTML page is never cached."""

import dataclasses
import gzip
import json
import os
import shutil
import stat
import time
import urllib.request
from pathlib import Path

import pytest
from test_datasets import ADULT_LINES, ADULT_TEST, pin, write  # tests/ is on sys.path under pytest

from privnb import __main__ as cli
from privnb import data as datasets
from privnb.data import DataUnavailableError, describe_data, sources
from privnb.data.sources import DataIntegrityError

SHARED = Path(os.environ.get("PRIVNB_DATA", "/nonexistent"))


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setattr(sources, "_default_opener", lambda url: (_ for _ in ()).throw(OSError(f"offline ({url})")))


@pytest.fixture
def adult_home(tmp_path, monkeypatch):
    home = tmp_path / "data"
    pin(monkeypatch, "adult/adult.data", ADULT_LINES.encode())
    pin(monkeypatch, "adult/adult.test", ADULT_TEST.encode())
    write(home / "adult/adult.data", ADULT_LINES, gz=True)
    write(home / "adult/adult.test", ADULT_TEST, gz=True)
    monkeypatch.setenv("PRIVNB_DATA", str(home))
    return home


@pytest.mark.parametrize("damage", ["emptied", "edited"])
def test_an_emptied_or_edited_file_is_an_error_not_a_silent_load(adult_home, damage):
    path = adult_home / "adult/adult.data.gz"
    text = "" if damage == "emptied" else ADULT_LINES.replace("39", "93")
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(DataIntegrityError, match=r"adult\.data\.gz does not match the pinned sha256.*delete"):
        datasets.load_adult()


def test_verification_is_cached_by_path_size_and_mtime(adult_home, monkeypatch):
    calls = []
    real = sources.content_sha256
    monkeypatch.setattr(sources, "content_sha256", lambda spec, path: calls.append(path) or real(spec, path))
    datasets.load_adult()
    datasets.load_adult()
    assert len(calls) == 2  # adult.data and adult.test, hashed once
    assert (sources.user_cache_dir() / "verified.json").exists()
    path = adult_home / "adult/adult.test.gz"
    path.write_bytes(gzip.compress(ADULT_TEST.replace("|1x3", "|1x4").encode()))
    os.utime(path, ns=(1, 1))
    with pytest.raises(DataIntegrityError, match=r"adult.test"):
        datasets.load_adult()


@pytest.mark.parametrize(
    "how", ["edited in place, mtime restored (touch -r, cp -p)", "replaced, mtime kept (rsync -t)"]
)
def test_an_edit_of_the_same_size_with_its_mtime_restored_is_caught(adult_home, how):
    (adult_home / "adult/adult.test.gz").unlink()
    path = write(adult_home / "adult/adult.test", ADULT_TEST)
    datasets.load_adult()  # verified and remembered
    before = path.stat()
    time.sleep(0.05)  # past the file system's clock tick, so that the edit gets a ctime of its own
    edited = ADULT_TEST.replace("|1x3", "|1x4")
    assert len(edited) == len(ADULT_TEST) and edited != ADULT_TEST
    if how.startswith("edited"):
        path.write_text(edited)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        fresh = write(adult_home / "adult/.adult.test.tmp", edited)
        os.utime(fresh, ns=(before.st_atime_ns, before.st_mtime_ns))
        os.replace(fresh, path)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(DataIntegrityError, match=r"adult\.test does not match the pinned sha256"):
        datasets.load_adult()


def test_malformed_cache_entries_are_ignored(adult_home):
    cache = sources.user_cache_dir() / "verified.json"
    cache.parent.mkdir(parents=True)
    data, test = (str((adult_home / f"adult/adult.{n}.gz").resolve()) for n in ("data", "test"))
    size = (adult_home / "adult/adult.data.gz").stat()
    cache.write_text(json.dumps({data: [size.st_size, size.st_mtime_ns], test: "junk", "x": [1, 2, 3, 4, 5]}))
    assert len(datasets.load_adult().frame) == 4  # a two-field entry raised IndexError
    entries = json.loads(cache.read_text())
    assert entries[data][-1] == datasets.FILES["adult/adult.data"].sha256 and len(entries[data]) == 5


def test_the_verified_cache_keeps_the_most_recent_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "VERIFIED_LIMIT", 2, raising=False)
    spec = datasets.FILES["adult/adult.data"]
    paths = [write(tmp_path / name, name) for name in ("a", "b", "c")]
    for path in [*paths, paths[0]]:
        sources.checked_sha256(spec, path)
    entries = json.loads((sources.user_cache_dir() / "verified.json").read_text())
    assert list(entries) == [str(paths[2].resolve()), str(paths[0].resolve())]


def test_a_read_only_data_folder_and_cache_still_work(adult_home, tmp_path):
    cache = sources.user_cache_dir()
    cache.mkdir(parents=True)
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    for folder in (adult_home / "adult", cache):
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert len(datasets.load_adult().frame) == 4
    finally:
        for folder in (adult_home / "adult", cache):
            folder.chmod(0o755)


def test_of_a_plain_and_a_gzipped_copy_the_matching_one_is_used(adult_home):
    (adult_home / "adult/adult.data").write_text(ADULT_LINES + "1, x\n")  # a damaged plain copy
    with pytest.warns(UserWarning, match=r"using .*adult\.data\.gz.*adult/adult\.data does not match"):
        path = sources.fetch(datasets.FILES["adult/adult.data"])
    assert path.name == "adult.data.gz"
    table = describe_data(adult_home)
    row = table[table["file"] == "adult/adult.data"].iloc[0]
    assert row["sha256"] == "ok" and row["location"].endswith("adult.data.gz")


@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_a_damaged_gzip_is_an_error_naming_the_file(adult_home, damage, capsys):
    path = adult_home / "adult/adult.data.gz"
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2] if damage == "truncated" else raw[:12] + b"\xff" * (len(raw) - 12))
    with pytest.raises(DataIntegrityError, match=r"adult\.data\.gz is damaged"):
        datasets.load_adult()
    assert cli.main(["data", "--data-home", str(adult_home)]) == 1  # reported, not a crash
    out, err = capsys.readouterr()
    assert "damaged" in out and "adult.data.gz is damaged" in err


def test_bytes_of_another_format_in_an_unpinned_file_are_an_error(tmp_path):
    for name in ("ipums.la.97", "ipums.la.98", "ipums.la.99"):
        write(tmp_path / "ipums" / name, "<!DOCTYPE html><html>not found</html>\n")
    with pytest.raises(DataIntegrityError, match=r"ipums\.la\.97 is not ipums/ipums.la.97: it is an HTML"):
        datasets.load_ipums(data_home=tmp_path)
    (tmp_path / "ipums" / "ipums.la.97").write_bytes(gzip.compress(b"1,2\n")[:10])
    (tmp_path / "ipums" / "ipums.la.97").rename(tmp_path / "ipums" / "ipums.la.97.gz")
    with pytest.raises(DataIntegrityError, match=r"ipums\.la\.97\.gz"):
        datasets.load_ipums(data_home=tmp_path)


def test_an_html_download_without_a_checksum_is_never_cached(tmp_path, monkeypatch):
    page = tmp_path / "page.html"
    page.write_bytes(b"\n<!DOCTYPE html>\n<html><body>Dataset moved</body></html>\n")
    spec = dataclasses.replace(datasets.FILES["ipums/ipums.la.97"], url=page.as_uri())
    monkeypatch.setenv("PRIVNB_DATA", str(tmp_path / "empty"))
    with pytest.raises(DataUnavailableError, match=r"HTML"):
        sources.fetch(spec, opener=urllib.request.urlopen)
    assert not list(sources.user_cache_dir().rglob("ipums*"))
    # one cached earlier (before this check) is not served: it is dropped and fetched again
    write(sources.user_cache_dir() / "ipums" / "ipums.la.97", "<html>old</html>")
    with pytest.raises(DataUnavailableError):
        sources.fetch(spec, opener=urllib.request.urlopen)
    assert not (sources.user_cache_dir() / "ipums" / "ipums.la.97").exists()


@pytest.mark.skipif(not (SHARED / "adult").is_dir(), reason="needs PRIVNB_DATA with adult")
def test_a_copy_of_the_shared_adult_with_an_emptied_file_fails(tmp_path):
    home = tmp_path / "copy"
    shutil.copytree(SHARED / "adult", home / "adult")
    (home / "adult/adult.data.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(DataIntegrityError, match=r"adult.data.gz"):
        datasets.load_adult(data_home=home)
