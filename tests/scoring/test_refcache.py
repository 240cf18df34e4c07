"""The command line's reference cache: same numbers from it, and nothing trusted blindly."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import cli, refcache
from scoring.dstc11 import command
from scoring.synth import make_gold, make_prediction

# Independent figures: the published table in the fixtures' README (augpt, default profile).
AUGPT = {"jga": 17.93, "ser": 45.40, "sub": 12706, "del": 4171, "ins": 2121}


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ref"))


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    gold = make_gold(30, seed=11)
    gold_path = tmp_path / "gold.json"
    gold_path.write_text(json.dumps(gold))
    pred_path = tmp_path / "run.json"
    pred_path.write_text(json.dumps(make_prediction(gold, 0.4, seed=12)))
    return gold_path, pred_path


def _score_json(gold: Path, pred: Path, *extra: str) -> dict[str, object]:
    run = _cli("score", "--gold", str(gold), "--pred", str(pred), "--json", *extra)
    assert run.returncode == 0, run.stderr
    result: dict[str, object] = json.loads(run.stdout)
    return result


def test_the_published_numbers_hold_on_the_first_run_and_from_the_cache(
    fixtures_dir: Path, reference_cache: Path
) -> None:
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    pred = fixtures_dir / "mwzeval-predictions" / "augpt.json"
    first = _score_json(gold, pred)
    assert refcache.load(reference_cache, refcache.key(gold.read_bytes(), "default")) is not None
    second = _score_json(gold, pred)
    assert first == second
    for name, value in AUGPT.items():
        assert first[name] == pytest.approx(value, abs=0.005), name


def test_a_cached_reference_is_used_and_scores_exactly_alike(
    files: tuple[Path, Path], reference_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    gold, pred = files
    argv = ["score", "--gold", str(gold), "--pred", str(pred), "--json"]
    for profile in ("default", "strict"):
        name = refcache.key(gold.read_bytes(), profile)
        assert cli.main([*argv, "--profile", profile, "--no-cache"]) == 0
        uncached = json.loads(capsys.readouterr().out)
        assert refcache.load(reference_cache, name) is None
        assert cli.main([*argv, "--profile", profile]) == 0  # reads the gold, keeps it
        assert json.loads(capsys.readouterr().out) == uncached
        assert refcache.load(reference_cache, name) is not None

        def refuse(*args: object) -> None:
            raise AssertionError("the gold was read again instead of taken from the cache")

        with monkeypatch.context() as patch:
            patch.setattr(command, "read_reference", refuse)
            assert cli.main([*argv, "--profile", profile]) == 0
        assert json.loads(capsys.readouterr().out) == uncached


def test_no_cache_and_an_empty_folder_setting_keep_nothing(
    files: tuple[Path, Path], reference_cache: Path
) -> None:
    gold, pred = files
    _score_json(gold, pred, "--no-cache")
    assert _entries(reference_cache) == []
    run = _cli("score", "--gold", str(gold), "--pred", str(pred), env={"TRACKBOARD_CACHE_DIR": ""})
    assert run.returncode == 0
    assert _entries(reference_cache) == []


def test_a_damaged_entry_is_ignored_and_replaced(
    files: tuple[Path, Path], reference_cache: Path
) -> None:
    gold, pred = files
    expected = _score_json(gold, pred, "--no-cache")
    _score_json(gold, pred)
    entry = reference_cache / f"{refcache.key(gold.read_bytes(), 'default')}.ref"
    data = bytearray(entry.read_bytes())
    data[-10] ^= 0xFF
    entry.write_bytes(bytes(data))
    assert _score_json(gold, pred) == expected
    assert refcache.load(reference_cache, entry.stem) is not None  # rewritten whole


class _Shell:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch owned",))


def test_an_entry_naming_other_code_is_refused_without_running_it(
    files: tuple[Path, Path], reference_cache: Path, tmp_path: Path
) -> None:
    gold, pred = files
    expected = _score_json(gold, pred, "--no-cache")
    name = refcache.key(gold.read_bytes(), "default")
    assert name is not None
    payload = pickle.dumps(_Shell())
    entry = reference_cache / f"{name}.ref"
    entry.write_bytes(refcache._MAGIC + hashlib.sha256(payload).digest() + payload)
    command = ["score", "--gold", str(gold), "--pred", str(pred), "--json"]
    run = subprocess.run(
        [sys.executable, "-m", "scoring", *command],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == expected
    assert not (tmp_path / "owned").exists()


def test_an_unusable_folder_only_means_no_cache(files: tuple[Path, Path], tmp_path: Path) -> None:
    gold, pred = files
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    run = _cli(
        "score",
        "--gold",
        str(gold),
        "--pred",
        str(pred),
        env={"TRACKBOARD_CACHE_DIR": str(blocker)},
    )
    assert run.returncode == 0, run.stderr
    assert "JGA" in run.stdout


def test_the_key_depends_on_the_gold_the_profile_and_the_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gold = b'{"d1": [{"hotel": {"area": "north"}}]}'
    base = refcache.key(gold, "default")
    assert base == refcache.key(gold, "default")
    assert base != refcache.key(gold, "strict")
    assert base != refcache.key(gold.replace(b"north", b"south"), "default")
    monkeypatch.setattr(refcache, "__version__", "99.0")
    assert base != refcache.key(gold, "default")


def test_only_the_most_recently_used_entries_are_kept(tmp_path: Path) -> None:
    for index in range(refcache.KEEP + 3):
        refcache.store(tmp_path, f"entry{index:02d}", b"payload")
        os.utime(tmp_path / f"entry{index:02d}.ref", (index, index))
    refcache._prune(tmp_path)
    kept = [path.stem for path in _entries(tmp_path)]
    assert kept == [f"entry{index:02d}" for index in range(3, refcache.KEEP + 3)]
