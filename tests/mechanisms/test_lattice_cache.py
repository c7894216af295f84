"""Tests for privnb.mechanisms._lattice_cache: lattices shared by content (clones, every k, other processes)."""

import copy

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from small_hierarchies import LETTERS, small_hierarchies

from privnb.data import Hierarchy
from privnb.mechanisms import FullDomainGeneralizer, FullDomainLattice
from privnb.mechanisms._lattice_cache import cache_dir, lattice_key, load_learned, save_learned

QI = ["num", "let"]


def frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"num": rng.integers(0, 16, n), "let": rng.choice(list("abcd"), n)})


def result(gen):
    return gen.node_, gen.minimal_nodes_.to_dict("list"), list(gen.suppressed_)


def test_clones_with_copied_hierarchies_share_one_lattice(monkeypatch):
    """scikit-learn's clone deep-copies the hierarchies; the clone's fit searches nothing again."""
    monkeypatch.setenv("PRIVNB_CACHE", "off")  # memory only
    FullDomainLattice.clear_cache()
    rows = frame()
    first = FullDomainGeneralizer(QI, 3, small_hierarchies(QI), max_suppression=0.1).fit(rows)
    assert first.n_checks_ > 0
    again = clone(first)
    assert again.hierarchies["num"] is not first.hierarchies["num"]
    again.fit(rows)
    assert again.n_checks_ == 0 and result(again) == result(first)
    rebuilt = FullDomainGeneralizer(QI, 2, small_hierarchies(QI), max_suppression=0.1).fit(rows)  # built alike, other k
    assert FullDomainLattice.of(rows, QI, rebuilt.hierarchies, 0.1) is FullDomainLattice.of(
        rows, QI, first.hierarchies, 0.1
    )


def test_memory_cache_keeps_a_few_lattices(monkeypatch):
    monkeypatch.setenv("PRIVNB_CACHE", "off")
    FullDomainLattice.clear_cache()
    h = small_hierarchies(QI)
    lattices = [FullDomainLattice.of(frame(seed=s), QI, h, 0.1) for s in range(FullDomainLattice.cache_size + 1)]
    assert FullDomainLattice.of(frame(seed=1), QI, h, 0.1) is lattices[1]
    assert FullDomainLattice.of(frame(seed=0), QI, h, 0.1) is not lattices[0]  # the least recently used went


def test_disk_cache_serves_a_new_process_the_same_results(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    FullDomainLattice.clear_cache()
    rows, h = frame(200, seed=3), small_hierarchies(QI)
    fitted = {k: FullDomainGeneralizer(QI, k, h, max_suppression=0.05).fit(rows) for k in (2, 3)}
    assert list((tmp_path / "privnb-lattices").glob("*.npz"))
    FullDomainLattice.clear_cache()  # as a new kernel: nothing in memory
    for k in (2, 3):
        gen = FullDomainGeneralizer(QI, k, copy.deepcopy(h), max_suppression=0.05).fit(rows)
        assert gen.n_checks_ == 0 and result(gen) == result(fitted[k])
    FullDomainLattice.clear_cache()
    seeded = FullDomainGeneralizer(QI, 5, h, max_suppression=0.05).fit(rows)  # a new k, seeded from disk
    monkeypatch.setenv("PRIVNB_CACHE", "off")
    FullDomainLattice.clear_cache()
    assert result(seeded) == result(FullDomainGeneralizer(QI, 5, h, max_suppression=0.05).fit(rows))


def test_an_unreadable_cache_file_is_ignored_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    FullDomainLattice.clear_cache()
    rows, h = frame(), small_hierarchies(QI)
    expected = result(FullDomainGeneralizer(QI, 2, h).fit(rows))
    lattice = FullDomainLattice.of(rows, QI, h, 0.02)
    path = cache_dir() / f"{lattice.key}.npz"
    path.write_bytes(b"not a zip file")
    assert load_learned(lattice.key, lattice.heights) == ({}, {})
    FullDomainLattice.clear_cache()
    gen = FullDomainGeneralizer(QI, 2, h).fit(rows)
    assert gen.n_checks_ > 0 and result(gen) == expected
    assert 2 in load_learned(lattice.key, lattice.heights)[0]
    assert load_learned(lattice.key, [2, 2]) == ({}, {})  # a file for another lattice shape


def test_disk_cache_keeps_at_most_max_files(tmp_path, monkeypatch):
    import privnb.mechanisms._lattice_cache as lattice_cache

    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    monkeypatch.setattr(lattice_cache, "MAX_FILES", 2)
    FullDomainLattice.clear_cache()
    for seed in range(4):
        FullDomainGeneralizer(QI, 2, small_hierarchies(QI), max_suppression=0.1).fit(frame(seed=seed))
    assert len(list((tmp_path / "privnb-lattices").glob("*.npz"))) == 2


def key_of(rows, h, max_suppression=0.02):
    raw = [pd.factorize(rows[a])[0] for a in QI]
    uniques = [np.asarray(pd.factorize(rows[a])[1]) for a in QI]
    return lattice_key(raw, uniques, [h[a] for a in QI], max_suppression)


def test_key_covers_rows_hierarchies_and_suppression():
    rows, h = frame(), small_hierarchies(QI)
    key = key_of(rows, h)
    assert key == key_of(rows.copy(), copy.deepcopy(h)) == key_of(rows, small_hierarchies(QI))
    changed = rows.copy()
    changed.loc[5, "num"] = (changed.loc[5, "num"] + 1) % 16
    regrouped = LETTERS.copy()
    regrouped.iloc[1, 1], regrouped.iloc[2, 1] = "cd", "ab"  # b and c swap groups
    renamed = small_hierarchies(QI)
    renamed["num"].name = "other"  # a name is for messages only
    assert key_of(changed, h) != key
    assert key_of(rows.iloc[::-1].reset_index(drop=True), h) != key  # row order: other entries per row
    assert key_of(rows, small_hierarchies(QI, letters=regrouped)) != key
    assert key_of(rows, {**h, "num": Hierarchy.intervals(0, 16, width=4, name="num")}) != key
    assert key_of(rows, h, 0.05) != key
    assert key_of(rows, renamed) == key


frames = st.integers(1, 40).flatmap(
    lambda n: st.builds(
        lambda num, let: pd.DataFrame({"num": num, "let": let}),
        st.lists(st.integers(0, 15), min_size=n, max_size=n),
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
    )
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(frames, st.permutations([1, 2, 3, 5]), st.sampled_from([0.0, 0.2]))
def test_searches_seeded_from_disk_match_fresh_ones(tmp_path, monkeypatch, rows, ks, max_suppression):
    """Each fit in a 'new process' (memory cleared) starts from what the disk holds; results never change."""
    folder = tmp_path / str(abs(hash((tuple(ks), max_suppression, rows.to_json()))))
    h = small_hierarchies(QI)
    for k in ks:
        got = []
        for where in (str(folder), "off"):
            monkeypatch.setenv("PRIVNB_CACHE", where)
            FullDomainLattice.clear_cache()
            try:
                got.append(result(FullDomainGeneralizer(QI, k, h, max_suppression=max_suppression).fit(rows)))
            except ValueError as error:
                got.append(str(error))
        assert got[0] == got[1]


@pytest.mark.parametrize("value", ["no", "disabled", "false", "0", "OFF", " None "])
def test_cache_off_values_make_no_folder(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRIVNB_CACHE", value)
    FullDomainLattice.clear_cache()
    assert cache_dir() is None
    FullDomainGeneralizer(QI, 2, small_hierarchies(QI), max_suppression=0.1).fit(frame())
    assert list(tmp_path.iterdir()) == []


def test_cache_never_touches_the_users_files(tmp_path, monkeypatch):
    """PRIVNB_CACHE naming a folder of the user's own .npz files: the cache writes and prunes only its subfolder."""
    import privnb.mechanisms._lattice_cache as lattice_cache

    own = {tmp_path / f"{i:040x}.npz": f"user file {i}".encode() for i in range(30)}
    own[tmp_path / "notes.npz"] = b"mine"
    for path, content in own.items():
        path.write_bytes(content)
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    monkeypatch.setattr(lattice_cache, "MAX_FILES", 2)
    FullDomainLattice.clear_cache()
    for seed in range(4):
        FullDomainGeneralizer(QI, 2, small_hierarchies(QI), max_suppression=0.1).fit(frame(seed=seed))
    assert {p: p.read_bytes() for p in tmp_path.glob("*.npz")} == own
    assert cache_dir() == tmp_path / "privnb-lattices" and (cache_dir() / "CACHEDIR.TAG").is_file()
    assert len(list(cache_dir().glob("*.npz"))) == 2


def test_a_subfolder_privnb_did_not_create_is_left_alone(tmp_path, monkeypatch):
    theirs = tmp_path / "privnb-lattices"
    theirs.mkdir()
    (theirs / f"{0:040x}.npz").write_bytes(b"theirs")
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    FullDomainLattice.clear_cache()
    FullDomainGeneralizer(QI, 2, small_hierarchies(QI), max_suppression=0.1).fit(frame())
    assert [p.name for p in theirs.iterdir()] == [f"{0:040x}.npz"]


def fresh(k, rows, h, max_suppression, monkeypatch):
    monkeypatch.setenv("PRIVNB_CACHE", "off")
    FullDomainLattice.clear_cache()
    return result(FullDomainGeneralizer(QI, k, h, max_suppression=max_suppression).fit(rows))


def test_a_foreign_entry_under_this_key_is_ignored(tmp_path, monkeypatch):
    """Another table's valid entry renamed to this table's key: its stored key differs, it is not read."""
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path))
    FullDomainLattice.clear_cache()
    h = small_hierarchies(QI)
    other, rows = frame(200, seed=1), frame(200, seed=2)
    FullDomainGeneralizer(QI, 2, h, max_suppression=0.05).fit(other)
    source = FullDomainLattice.of(other, QI, h, 0.05)
    target = FullDomainLattice.of(rows, QI, h, 0.05)
    (cache_dir() / f"{target.key}.npz").write_bytes((cache_dir() / f"{source.key}.npz").read_bytes())
    assert load_learned(target.key, target.heights) == ({}, {})
    path = cache_dir() / f"{source.key}.npz"
    with np.load(path) as f:
        arrays = dict(f)
    arrays["caps"] = arrays["caps"] + 0  # the same content, one summary's count edited, the digest left
    arrays["groups"][0, 0] += 1
    np.savez(path.with_suffix(""), **arrays)
    assert load_learned(source.key, source.heights) == ({}, {})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frames, st.sampled_from([2, 3, 5]), st.sampled_from([0.0, 0.1]), st.booleans())
@example(pd.DataFrame({"num": [0, 0], "let": ["a", "a"]}), 2, 0.0, True)  # a lying summary: discernibility 0, not 4
def test_a_wrong_but_valid_entry_never_changes_a_release(tmp_path, monkeypatch, rows, k, max_suppression, claim):
    """An entry written with privnb's own digest but lying (every node anonymous with nothing suppressed, or
    none anonymous) is caught on the rows before the release: the result is the fresh search's."""
    h = small_hierarchies(QI)
    try:
        expected = fresh(k, rows, h, max_suppression, monkeypatch)
    except ValueError as error:
        expected = str(error)
    monkeypatch.setenv("PRIVNB_CACHE", str(tmp_path / str(abs(hash((rows.to_json(), k, max_suppression, claim))))))
    FullDomainLattice.clear_cache()
    lattice = FullDomainLattice.of(rows, QI, h, max_suppression)
    size = int(np.prod(lattice.heights))
    lie = {kk: np.full(size, claim) for kk in (1, 2, 3, 5, 8)}
    nodes = [tuple(int(c) for c in np.unravel_index(i, lattice.heights)) for i in range(size)]
    save_learned(lattice.key, lattice.heights, lie, {n: (16, np.zeros(16), 0.0) for n in nodes})
    FullDomainLattice.clear_cache()
    try:
        got = result(FullDomainGeneralizer(QI, k, h, max_suppression=max_suppression).fit(rows))
    except ValueError as error:
        got = str(error)
    assert got == expected
