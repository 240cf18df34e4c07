"""The MultiWOZ 2.2 / Schema-Guided schema: services, their slots and intents.

Accepted: a JSON list of services (MultiWOZ 2.2 ``schema.json``) or one service object (as the
SGD test data writes it). Each service: ``service_name``, ``slots`` (``name``,
``is_categorical``, ``possible_values``) and optionally ``intents`` (``name``). Service, slot and
intent names are compared lower-cased and trimmed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.errors import InvalidFile
from scoring.formats import describe, load_json, quote
from scoring.multiwoz22.values import normalise_value


def name_key(text: str) -> str:
    return text.strip().lower()


@dataclass(frozen=True)
class SlotSchema:
    name: str
    categorical: bool
    #: normalised possible values (empty for non-categorical slots).
    possible_values: frozenset[str]


@dataclass(frozen=True)
class ServiceSchema:
    name: str
    slots: Mapping[str, SlotSchema]
    intents: frozenset[str]

    @property
    def has_categorical(self) -> bool:
        return any(s.categorical for s in self.slots.values())

    @property
    def has_noncategorical(self) -> bool:
        return any(not s.categorical for s in self.slots.values())


@dataclass(frozen=True)
class Schema:
    services: Mapping[str, ServiceSchema]
    sha256: str
    #: slot name -> its service, for slot names that belong to exactly one service.
    unique_slots: Mapping[str, str]

    def resolve(self, key: str) -> tuple[str, str] | None:
        """(service, slot) for a flat key: a slot name unique across the schema, or
        ``service-slot`` naming a service and one of its slots."""
        key = name_key(key)
        service = self.unique_slots.get(key)
        if service is not None:
            return service, key
        head, sep, tail = key.partition("-")
        found = self.services.get(head)
        if sep and found is not None and tail in found.slots:
            return head, tail
        return None


def _field(item: Any, key: str, kind: type, where: str, name: str) -> Any:
    if not isinstance(item, dict) or key not in item:
        raise InvalidFile(f"{name}: {where}: the field {quote(key)} is missing.")
    value = item[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidFile(f"{name}: {where}: {quote(key)} has the wrong type ({describe(value)}).")
    return value


def read_schema(data: bytes, name: str) -> Schema:
    """Read and check a schema file; raises InvalidFile with the service and slot at fault."""
    document = load_json(data, name)
    items = [document] if isinstance(document, dict) else document
    if not isinstance(items, list) or not items:
        raise InvalidFile(f"{name}: expected a JSON list of services, found {describe(document)}.")
    services: dict[str, ServiceSchema] = {}
    owners: dict[str, list[str]] = {}
    for index, item in enumerate(items):
        where = f"service {index}"
        if not isinstance(item, dict):
            raise InvalidFile(f"{name}: {where}: expected an object, found {describe(item)}.")
        service = name_key(_field(item, "service_name", str, where, name))
        if not service:
            raise InvalidFile(f"{name}: {where}: the service name is empty.")
        if service in services:
            raise InvalidFile(f"{name}: service {quote(service)} is defined twice.")
        where = f"service {quote(service)}"
        slots: dict[str, SlotSchema] = {}
        for position, slot in enumerate(_field(item, "slots", list, where, name)):
            at = f"{where}, slot {position}"
            slot_name = name_key(_field(slot, "name", str, at, name))
            categorical = _field(slot, "is_categorical", bool, at, name)
            possible = slot.get("possible_values", [])
            if not isinstance(possible, list) or not all(isinstance(v, str) for v in possible):
                raise InvalidFile(f"{name}: {at}: 'possible_values' must be a list of strings.")
            if not slot_name or slot_name in slots:
                raise InvalidFile(f"{name}: {at}: the slot name is empty or repeated.")
            values = {normalise_value(v) for v in possible}
            slots[slot_name] = SlotSchema(
                slot_name, categorical, frozenset(v for v in values if v is not None)
            )
            owners.setdefault(slot_name, []).append(service)
        intents = item.get("intents", [])
        if not isinstance(intents, list):
            raise InvalidFile(f"{name}: {where}: 'intents' must be a list.")
        intent_names = frozenset(
            name_key(_field(i, "name", str, f"{where}, intent {n}", name))
            for n, i in enumerate(intents)
        )
        services[service] = ServiceSchema(service, slots, intent_names)
    unique = {slot: owner[0] for slot, owner in owners.items() if len(owner) == 1}
    return Schema(services, hashlib.sha256(data).hexdigest(), unique)
