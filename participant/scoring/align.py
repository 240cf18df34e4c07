"""Aligning a prediction's dialogues and turns with a reference's (shared by the newer tasks).

The rules are the ``dstc11`` task's: unknown dialogue ids and extra turns always make the file
invalid; missing dialogues or turns do too under ``missing="reject"``, and are scored as empty
states under ``missing="empty"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from scoring.errors import IncompleteFile, MismatchedFile, ScoringError, listing
from scoring.formats import quote

MISSING_POLICIES = ("reject", "empty")
T = TypeVar("T")


@dataclass(frozen=True)
class Aligned(Generic[T]):
    #: per reference dialogue (reference order), the predicted turns.
    turns: tuple[tuple[T, ...], ...]
    missing_dialogues: int
    missing_turns: int


def align(
    name: str,
    gold: Mapping[str, tuple[object, ...]],
    gold_ids: Mapping[str, str],
    pred: Mapping[str, tuple[T, ...]],
    pred_ids: Mapping[str, str],
    missing: str,
    empty: T,
) -> Aligned[T]:
    """Check ``pred`` against ``gold`` (both keyed by canonical dialogue id) and align it."""
    if missing not in MISSING_POLICIES:
        raise ScoringError(
            f"unknown missing-turn policy {missing!r}; choose one of: "
            + ", ".join(MISSING_POLICIES)
        )
    unknown = [pred_ids.get(k, k) for k in pred if k not in gold]
    if unknown:
        raise MismatchedFile(
            f"{name}: {len(unknown)} dialogue id(s) are not in the reference: {listing(unknown)}.",
            problems=unknown,
        )
    extra: list[str] = []
    short: list[str] = []
    absent: list[str] = []
    missing_turns = 0
    result: list[tuple[T, ...]] = []
    for key, gold_turns in gold.items():
        n = len(gold_turns)
        turns = pred.get(key)
        if turns is None:
            absent.append(gold_ids.get(key, key))
            missing_turns += n
            result.append((empty,) * n)
            continue
        shown = pred_ids.get(key, key)
        # Turns are counted from 1 in every message, as in the CSV and the charts.
        if len(turns) > n:
            extra.append(
                f"dialogue {quote(shown)} has {len(turns)} user turns, the reference has {n} "
                f"({_span(n + 1, len(turns))} extra)"
            )
        elif len(turns) < n:
            short.append(
                f"dialogue {quote(shown)} has {len(turns)} user turns, the reference has {n} "
                f"({_span(len(turns) + 1, n)} missing)"
            )
            missing_turns += n - len(turns)
            turns = turns + (empty,) * (n - len(turns))
        result.append(turns)
    if extra:
        raise MismatchedFile(
            f"{name}: " + "; ".join(extra[:20]) + _more(extra) + ".", problems=extra
        )
    if missing == "reject" and (absent or short):
        parts = []
        if absent:
            parts.append(
                f"{len(absent)} dialogue(s) of the reference are missing: {listing(absent, 100)}"
            )
        parts.extend(short[:20])
        raise IncompleteFile(
            f"{name}: " + "; ".join(parts) + _more(short) + ".", problems=absent + short
        )
    return Aligned(tuple(result), len(absent), missing_turns)


def _span(first: int, last: int) -> str:
    """``turn 4 is`` or ``turns 3 to 5 are`` (user turns counted from 1)."""
    return f"turn {first} is" if first == last else f"turns {first} to {last} are"


def _more(items: list[str]) -> str:
    return f" (and {len(items) - 20} more)" if len(items) > 20 else ""
