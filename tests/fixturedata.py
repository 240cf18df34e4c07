"""The public fixture data committed in ``tests/data`` (gzip-compressed; see its README.md).

Tests get the decompressed files through the ``fixtures_dir`` fixture of ``tests/conftest.py``;
code that is not a pytest test (benchmarks, scripts) reads one file with :func:`fixture_bytes`
or writes them out with :func:`extract_all`.
"""

from __future__ import annotations

import gzip
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def compressed_files() -> list[Path]:
    """Every ``.gz`` file under ``tests/data``, in a stable order."""
    return sorted(DATA.rglob("*.gz"))


def fixture_bytes(relative: str) -> bytes:
    """The decompressed content of one file, named as in the README without ``.gz``, e.g.
    ``fixture_bytes("dstc11/test-dstc11.gold.json")``."""
    return gzip.decompress((DATA / f"{relative}.gz").read_bytes())


def extract_all(folder: Path) -> Path:
    """Decompress every file into ``folder`` with the same layout (names without ``.gz``);
    return ``folder``."""
    for source in compressed_files():
        target = folder / source.relative_to(DATA).with_suffix("")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(gzip.decompress(source.read_bytes()))
    return folder
