"""Per-dialogue statistics as a Result stores them: numpy arrays in bytes, read back with
``numpy.frombuffer``, without JSON and without copying.

A Result (``models.Result``) keeps the scorer's ``DialogueRatios`` in three columns:

- ``dialogues`` (JSON): ``{"ids": [...], "turns": [...]}``: the reference's dialogue ids in
  its order, and each dialogue's per-turn verdicts on the task's primary metric;
- ``ratios`` (bytes): every metric's per-dialogue numerators and denominators;
- ``primary_ratios`` (bytes): the same for the challenge's primary metric alone, the only
  statistics a board reads (rank groups, paired tests, robustness): a few kB per Result where
  ``ratios`` holds every metric of the task. Like the typed ranking columns (``primary``...)
  it is written when the Result is scored, and a change of the challenge's primary metric
  re-scores every submission (``challenges.admin.ChallengeAdmin.save_related``). It names its
  metric, so a Result not re-scored yet reads as having no statistics of the new primary
  metric (``primary``), never as having the old one's.

Both byte columns hold one format: a run of metrics, each written as

- its name: one byte (the name's length in bytes), the name in UTF-8;
- its numerators, then its denominators, each an array: one byte (the index of its dtype in
  ``DTYPES``), three zero bytes, the number of values (uint32), the values;

every part zero-padded to a multiple of 8 bytes, so that each array starts aligned in the
buffer and is read in place; all numbers little-endian. Each array takes the smallest of
``DTYPES`` that holds all of its values exactly: the whole numbers most metrics count (turns
right, slot errors, gold values) as unsigned or signed integers of 1, 2 or 4 bytes, anything
else (fractional scores, as fuzzy matching gives) as float64, the scorer's own numbers. A
column of 1,000 dialogues takes 1-2 kB, against about 4 kB of JSON.

Decoded arrays keep their stored dtype and are read-only views of the stored bytes: compare,
index and sum them with numpy (``numpy.sum`` widens), but do arithmetic in float64
(``numpy.asarray(column, dtype=numpy.float64)``, as ``scoring.stats`` does), since a
difference or a Python ``sum`` of uint8 values wraps around.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scoring.taskapi import DialogueRatios

#: dtype of each code, in code order. Stored data names these codes: append, never reorder.
DTYPES = tuple(np.dtype(code) for code in ("<u1", "<u2", "<u4", "<i1", "<i2", "<i4", "<f8"))
#: the integer dtypes, narrowest first, unsigned before signed of the same width
_WHOLE = tuple(sorted(DTYPES[:6], key=lambda d: (d.itemsize, d.kind != "u")))
_FLOAT = DTYPES[6]
_ARRAY = struct.Struct("<B3xI")
_ALIGN = 8

#: one metric's (numerators, denominators), as decoded: read-only arrays over the stored bytes
Pair = tuple[np.ndarray, np.ndarray]


def _padding(size: int) -> bytes:
    return b"\0" * (-size % _ALIGN)


def narrowest(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """``values`` as a 1-d array of the smallest dtype of ``DTYPES`` that holds each exactly."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.size == 0:
        return array.astype(_WHOLE[0])
    if np.isfinite(array).all() and (array == np.trunc(array)).all():
        low, high = array.min(), array.max()
        for dtype in _WHOLE:
            limits = np.iinfo(dtype)
            if limits.min <= low and high <= limits.max:
                return array.astype(dtype)
    return array


def _array(values: Sequence[float] | np.ndarray) -> bytes:
    array = narrowest(values)
    data = array.tobytes()
    return _ARRAY.pack(DTYPES.index(array.dtype), array.size) + data + _padding(len(data))


def encode(
    columns: Mapping[str, tuple[Sequence[float] | np.ndarray, Sequence[float] | np.ndarray]],
) -> bytes:
    """``{metric: (numerators, denominators)}`` in the stored format (``b""`` for none)."""
    parts = []
    for name, (numerators, denominators) in columns.items():
        label = name.encode()
        if len(label) > 255:
            raise ValueError(f"metric name too long to store: {name[:60]!r}")
        head = bytes([len(label)]) + label
        parts += [head, _padding(len(head)), _array(numerators), _array(denominators)]
    return b"".join(parts)


def _read_array(data: Any, offset: int) -> tuple[np.ndarray, int]:
    code, count = _ARRAY.unpack_from(data, offset)
    dtype = DTYPES[code]
    offset += _ARRAY.size
    array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
    size = count * dtype.itemsize
    return array, offset + size + (-size % _ALIGN)


def decode(data: bytes | memoryview | None) -> dict[str, Pair]:
    """The stored ``{metric: (numerators, denominators)}`` (empty for no data)."""
    found: dict[str, Pair] = {}
    if not data:
        return found
    end = len(data)
    offset = 0
    while offset < end:
        length = data[offset]
        name = bytes(data[offset + 1 : offset + 1 + length]).decode()
        offset += 1 + length + (-(1 + length) % _ALIGN)
        numerators, offset = _read_array(data, offset)
        denominators, offset = _read_array(data, offset)
        found[name] = (numerators, denominators)
    return found


def primary(data: bytes | memoryview | None, metric: str) -> Pair | None:
    """``metric``'s (numerators, denominators) from a Result's ``primary_ratios``; None when
    it holds another metric's (the challenge's primary metric changed and the Result is not
    re-scored yet) or none."""
    return decode(data).get(metric)


def columns(ratios: DialogueRatios, primary: str) -> dict[str, Any]:
    """The Result columns that store ``ratios``, the challenge's primary metric being
    ``primary`` (its statistics left out when the score has none)."""
    chosen = {primary: ratios.columns[primary]} if primary in ratios.columns else {}
    return {
        "dialogues": {"ids": list(ratios.ids), "turns": list(ratios.turns)},
        "ratios": encode(ratios.columns),
        "primary_ratios": encode(chosen),
    }


def loaded(
    dialogues: Mapping[str, Any] | None, data: bytes | memoryview | None
) -> DialogueRatios | None:
    """A Result's ``DialogueRatios`` from its ``dialogues`` and ``ratios`` columns (None when
    it stores none)."""
    if not dialogues or not data:
        return None
    return DialogueRatios(
        tuple(dialogues.get("ids") or ()), decode(data), tuple(dialogues.get("turns") or ())
    )
