"""Checking and normalising raw states into ``{domain-slot: value}`` dicts, memoised."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import RawTurn, describe, paused_gc, quote
from scoring.normalise import slot_key, split_key, value_normaliser

State = dict[str, str]
#: A raw domain's (slot, value) items; its normalised (key, value) pairs (absent values
#: dropped); one normalised pair, whose value is None when absent.
Items = tuple[tuple[str, Any], ...]
Group = tuple[tuple[str, str], ...]
Pair = tuple[str, str | None]


def normalise_dialogues(
    name: str, ids: Sequence[str], dialogues: Iterable[Sequence[RawTurn]], profile: str
) -> tuple[tuple[State, ...], ...]:
    """Check and normalise the raw states of many dialogues; ``ids`` name them in messages.

    States are cumulative, so the same domain object recurs turn after turn: results are
    memoised per (domain, slot items), and a value is checked only the first time it is seen.
    """
    with paused_gc():
        return _normalise_dialogues(name, ids, dialogues, profile)


def _normalise_dialogues(
    name: str, ids: Sequence[str], dialogues: Iterable[Sequence[RawTurn]], profile: str
) -> tuple[tuple[State, ...], ...]:
    normalise = value_normaliser(profile)
    # Per raw domain name: its normalised slot groups by raw items, and its normalised
    # (key, value) pairs by raw (slot, value) item.
    memos: dict[str, tuple[dict[Items, Group], dict[tuple[str, Any], Pair]]] = {}
    result = []
    for raw_id, turns in zip(ids, dialogues, strict=True):
        states: list[State] = []
        previous: Any = None
        for index, raw in enumerate(turns):
            # A state often repeats the previous turn's: share its normalised form.
            if raw == previous and states:
                states.append(states[-1])
                continue
            previous = raw
            state: State = {}
            size = 0
            try:
                for domain, slots in raw.items():
                    memo = memos.get(domain)
                    if memo is None:
                        memo = memos[domain] = ({}, {})
                    items = tuple(slots.items())
                    hit = memo[0].get(items)
                    if hit is None:
                        hit = memo[0][items] = _normalise_domain(domain, items, normalise, memo[1])
                    size += len(items)
                    state.update(hit)
            except (AttributeError, TypeError, _BadValue):
                _explain(name, raw_id, index, raw)
                raise  # _explain always raises; this keeps type checkers informed
            if size > len(state):
                _check_unique_keys(name, raw_id, index, raw)
            states.append(state)
        result.append(tuple(states))
    return tuple(result)


class _BadValue(Exception):
    pass


def _normalise_domain(
    domain: str,
    items: Items,
    normalise: Callable[[str, str], str | None],
    memo: dict[tuple[str, Any], Pair],
) -> Group:
    out = []
    for item in items:
        hit = memo.get(item)
        if hit is None:
            slot, value = item
            if type(value) is not str:
                raise _BadValue
            key = slot_key(domain, slot)
            hit = memo[item] = (key, normalise(split_key(key)[1], value))
        if hit[1] is not None:
            out.append(hit)
    return tuple(out)  # type: ignore[arg-type]  # only the pairs with a value were kept


def _explain(name: str, raw_id: str, index: int, state: Any) -> None:
    """Raise the participant-facing error for a malformed state (the slow path)."""
    where = f"{name}: dialogue {quote(raw_id)}, turn {index + 1}"  # counted from 1
    if not isinstance(state, dict):
        raise InvalidFile(
            f"{where}: expected a state object {{domain: {{slot: value}}}}, found "
            f"{describe(state)}."
        )
    for domain, slots in state.items():
        if not isinstance(slots, dict):
            raise InvalidFile(
                f"{where}: domain {quote(domain)}: expected an object of slot values, found "
                f"{describe(slots)}."
            )
        for slot, value in slots.items():
            if not isinstance(value, str):
                raise InvalidFile(
                    f"{where}: slot {quote(domain + '-' + slot)}: the value must be a string, "
                    f"found {describe(value)}."
                )
    raise InvalidFile(f"{where}: the state cannot be read.")


def _check_unique_keys(name: str, raw_id: str, index: int, raw: RawTurn) -> None:
    """Reject a state naming one slot twice, e.g. ``bookday`` and ``day`` (only called when
    a state has fewer normalised than raw slots, which absent values also cause)."""
    seen: dict[str, str] = {}
    for domain, slots in raw.items():
        for slot in slots:
            key = slot_key(domain, slot)
            if key in seen:
                raise InvalidFile(
                    f"{name}: dialogue {quote(raw_id)}, turn {index + 1}: slot {quote(key)} is "
                    f"given twice (as {quote(seen[key])} and {quote(domain + '-' + slot)}); "
                    "give it once."
                )
            seen[key] = f"{domain}-{slot}"
