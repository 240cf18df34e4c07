"""The command line's cache of checked, normalised ``dstc11`` references.

A participant scores run after run against the same gold file. The first run reads, checks and
normalises the gold (for the DSTC11 test set, more than the rest of the run together) and
keeps the compact result (:meth:`scoring.dstc11.Reference.compact`); later runs load it instead.
It also keeps the bootstrap's resample counts for the reference's number of dialogues (see
:mod:`scoring.resample`), so that a later run computes its intervals without numpy.

An entry is found by a digest of everything its content depends on: the gold file's bytes, the
normalisation profile, the library version, the Python version and the source of the modules
that read and normalise files, so an edited checkout never reuses an entry made by other code.
An entry holds a digest of its payload, and is read by an unpickler that builds nothing but the
few types a reference is made of; anything unexpected (a damaged, foreign or unreadable entry,
an unwritable folder) is a miss, never an error: the run then reads the gold as usual.

The folder is ``$TRACKBOARD_CACHE_DIR`` if set (empty: no cache), else
``$XDG_CACHE_HOME/trackboard/references`` or ``~/.cache/trackboard/references``. It keeps the
:data:`KEEP` most recently used entries. The server does not use it: a worker keeps its
references in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from scoring.version import __version__

#: entries kept in the folder (a DSTC11 test reference takes about 0.5 MB).
KEEP = 16
_MAGIC = b"trackboard-reference-1\n"
_SUFFIX = ".ref"

#: The modules whose code decides what a cached reference contains.
_SOURCES = ("formats", "normalise", "refcache", "dstc11/model", "dstc11/states")

#: The only globals an entry may name: the reference's own classes and frozenset.
_ALLOWED = {
    ("scoring.dstc11.model", "Reference"),
    ("scoring.dstc11.model", "GoldFacts"),
    ("scoring.formats", "ParsedFile"),
    ("builtins", "frozenset"),
}


def folder() -> Path | None:
    """Where entries live, or None when caching is turned off (``TRACKBOARD_CACHE_DIR=``)."""
    configured = os.environ.get("TRACKBOARD_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trackboard" / "references"


def key(gold: bytes, profile: str) -> str | None:
    """The entry's name for this gold file and profile; None if the code cannot be read (then
    nothing is cached)."""
    digest = hashlib.sha256(_MAGIC)
    for part in (__version__, sys.version, profile, hashlib.sha256(gold).hexdigest()):
        digest.update(part.encode() + b"\0")
    package = Path(__file__).parent
    try:
        for name in _SOURCES:
            digest.update((package / f"{name}.py").read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def draws_key(n: int, n_boot: int, seed: int) -> str | None:
    """The entry's name for the bootstrap's resample counts of ``n`` dialogues (see
    :mod:`scoring.resample`): they depend on numpy's generator, so its version is part of it;
    None if that or the code cannot be read."""
    digest = hashlib.sha256(_MAGIC + b"draws\0")
    for part in (__version__, sys.version, str(n), str(n_boot), str(seed)):
        digest.update(part.encode() + b"\0")
    package = Path(__file__).parent
    try:
        from importlib.util import find_spec

        spec = find_spec("numpy")
        if spec is None or spec.origin is None:
            return None
        digest.update(Path(spec.origin).with_name("version.py").read_bytes() + b"\0")
        for name in ("stats", "resample"):
            digest.update((package / f"{name}.py").read_bytes() + b"\0")
    except (OSError, ImportError, ValueError):
        return None
    return digest.hexdigest()


def load_draws(where: Path | None, name: str | None, n: int, n_boot: int, seed: int) -> Any:
    """The cached :class:`scoring.resample.Draws` called ``name``, or None."""
    payload = read(where, name)
    if payload is None:
        return None
    from scoring.resample import Draws

    try:
        return Draws(n, n_boot, seed, payload)
    except ValueError:
        return None


def dumps(reference: Any) -> bytes:
    """A compact reference as the bytes an entry stores."""
    return pickle.dumps(reference, protocol=pickle.HIGHEST_PROTOCOL)


def loads(payload: bytes) -> Any:
    """The reference in ``payload``; raises pickle.UnpicklingError for anything else."""
    return _Unpickler(io.BytesIO(payload)).load()


def load(where: Path | None, name: str | None) -> Any:
    """The cached reference called ``name``, or None (no entry, or one that cannot be used)."""
    payload = read(where, name)
    if payload is None:
        return None
    try:
        return loads(payload)
    except Exception:  # a damaged or foreign entry is a miss, whatever it raises
        return None


def has(where: Path, name: str) -> bool:
    """Whether an entry called ``name`` exists (not whether it is whole)."""
    return (where / (name + _SUFFIX)).exists()


def read(where: Path | None, name: str | None) -> bytes | None:
    """The payload of the entry called ``name`` if it is there whole, else None."""
    if where is None or name is None:
        return None
    path = where / (name + _SUFFIX)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    if (
        data[: len(_MAGIC)] != _MAGIC
        or hashlib.sha256(data[head:]).digest() != data[len(_MAGIC) : head]
    ):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: kept longest
    return data[head:]


def store(where: Path | None, name: str | None, payload: bytes) -> None:
    """Write an entry (atomically) and drop the least recently used beyond :data:`KEEP`;
    a folder that cannot be written is left alone."""
    if where is None or name is None:
        return
    import tempfile

    try:
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=where, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, where / (name + _SUFFIX))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        _prune(where)
    except OSError:
        return


def _prune(where: Path) -> None:
    entries = []
    for path in where.glob("*" + _SUFFIX):
        with contextlib.suppress(OSError):
            entries.append((path.stat().st_mtime, path))
    entries.sort(reverse=True)
    for _, path in entries[KEEP:]:
        with contextlib.suppress(OSError):
            path.unlink()


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"an entry may not name {module}.{name}")
        return super().find_class(module, name)
