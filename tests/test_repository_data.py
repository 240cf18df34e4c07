"""The repository carries the data its tests need: the committed public files decompress to the
content tests/data/README.md records, and nothing reads data from outside the checkout."""

from __future__ import annotations

import gzip
import hashlib
import json
import re

import pytest

from tests.conftest import ROOT
from tests.fixturedata import DATA, compressed_files, fixture_bytes

# One row of the README's checksum table: file, decompressed size, SHA-256 of the content.
ROW = re.compile(r"^\| `(?P<name>[^`]+\.gz)` \| (?P<size>[\d,]+) \| `(?P<sha>[0-9a-f]{64})` \|$")
# Built in pieces so that this file does not match itself.
OUTSIDE = ("../" + "shared", "shared" + "/fixtures")
SEARCHED = ("tests", "benchmarks", "docs", "scoring", "leaderboard")


def _recorded() -> dict[str, tuple[int, str]]:
    rows = (ROW.match(line) for line in (DATA / "README.md").read_text().splitlines())
    return {m["name"]: (int(m["size"].replace(",", "")), m["sha"]) for m in rows if m is not None}


def test_every_compressed_file_is_recorded_in_the_readme():
    names = [str(path.relative_to(DATA)) for path in compressed_files()]
    assert names, "no data in tests/data"
    assert sorted(names) == sorted(_recorded())


@pytest.mark.parametrize("path", compressed_files(), ids=lambda path: str(path.relative_to(DATA)))
def test_it_decompresses_to_the_recorded_content(path):
    assert path.stat().st_size <= 2 * 1024 * 1024
    content = gzip.decompress(path.read_bytes())
    size, sha = _recorded()[str(path.relative_to(DATA))]
    assert len(content) == size
    assert hashlib.sha256(content).hexdigest() == sha


def test_the_readme_figures_of_the_data_hold():
    gold = json.loads(fixture_bytes("dstc11/test-dstc11.gold.json"))
    assert len(gold) == 1000
    assert sum(len(turns) for turns in gold.values()) == 7372
    schema = json.loads(fixture_bytes("multiwoz22/schema.json"))
    assert len(schema) == 8
    damd = json.loads(fixture_bytes("mwzeval-predictions/damd.json"))
    assert set(gold) - set(damd) == {"mul0789"}
    labes = json.loads(fixture_bytes("mwzeval-predictions/labes.json"))
    assert len(set(gold) - set(labes)) == 56


def test_the_fixtures_dir_holds_every_file_decompressed(fixtures_dir):
    for path in compressed_files():
        relative = path.relative_to(DATA).with_suffix("")
        assert (fixtures_dir / relative).read_bytes() == gzip.decompress(path.read_bytes())


def test_nothing_reads_data_from_beside_the_checkout():
    found = []
    for folder in SEARCHED:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or path.suffix in {".gz", ".pyc"}:
                continue
            text = path.read_bytes().decode("utf-8", errors="replace")
            found += [f"{path.relative_to(ROOT)}: {word}" for word in OUTSIDE if word in text]
    assert found == []
