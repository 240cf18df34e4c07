"""Synthetic MultiWOZ-2.2-like data from a seed (for the demo and tests; no real data copied).

``make_schema()`` is a three-service schema; ``make_gold`` writes dialogues in the
``sgd-dialogues`` format with cumulative states, intents, requested slots and, for some
non-categorical values, a second acceptable spelling; ``make_prediction`` perturbs a gold.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

_CATEGORICAL = {
    "hotel": {"hotel-area": ["north", "south", "centre"], "hotel-stars": ["2", "3", "4"]},
    "restaurant": {"restaurant-pricerange": ["cheap", "moderate", "expensive"]},
    "train": {"train-day": ["monday", "friday", "sunday"]},
}
_FREE = {
    "hotel": {"hotel-name": ["acorn guest house", "the lensfield", "alpha milton"]},
    "restaurant": {"restaurant-food": ["thai", "indian", "modern european"]},
    "train": {"train-leaveat": ["08:15", "17:45", "21:00"]},
}
_ALTERNATIVE = {"acorn guest house": "the acorn", "the lensfield": "lensfield hotel"}


def make_schema() -> list[dict[str, Any]]:
    services = []
    for service in _CATEGORICAL:
        slots = [
            {"name": n, "is_categorical": True, "possible_values": v}
            for n, v in _CATEGORICAL[service].items()
        ]
        slots += [
            {"name": n, "is_categorical": False, "possible_values": []} for n in _FREE[service]
        ]
        services.append(
            {"service_name": service, "slots": slots, "intents": [{"name": f"find_{service}"}]}
        )
    return services


def make_gold(n_dialogues: int = 40, seed: int = 2022) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    dialogues = []
    for n in range(n_dialogues):
        services = rng.sample(sorted(_CATEGORICAL), rng.choice([1, 2]))
        state: dict[str, dict[str, list[str]]] = {s: {} for s in services}
        turns = []
        for t in range(rng.randint(2, 6)):
            active = services[0] if t < 2 or len(services) == 1 else services[1]
            slots = {**_CATEGORICAL[active], **_FREE[active]}
            for slot in rng.sample(sorted(slots), rng.randint(0, 2)):
                value = rng.choice(slots[slot])
                state[active][slot] = [value] + (
                    [_ALTERNATIVE[value]] if value in _ALTERNATIVE else []
                )
            frames = [
                {
                    "service": s,
                    "state": {
                        "active_intent": f"find_{s}" if s == active else "NONE",
                        "requested_slots": [rng.choice(sorted(slots))]
                        if s == active and rng.random() < 0.3
                        else [],
                        "slot_values": copy.deepcopy(state[s]),
                    },
                }
                for s in services
            ]
            turns.append({"turn_id": str(2 * t), "speaker": "USER", "frames": frames})
            turns.append({"turn_id": str(2 * t + 1), "speaker": "SYSTEM", "frames": []})
        dialogues.append({"dialogue_id": f"SYN{n:04d}.json", "services": services, "turns": turns})
    return dialogues


def make_prediction(
    gold: list[dict[str, Any]], error_rate: float, seed: int, flat: bool = False
) -> Any:
    """A system output: each gold value replaced or dropped with ``error_rate``; with ``flat``
    the ``flat-states`` form ``{dialogue_id: [{slot: value}]}``."""
    rng = random.Random(seed)
    prediction = copy.deepcopy(gold)
    for dialogue in prediction:
        for turn in dialogue["turns"]:
            for frame in turn["frames"]:
                values = frame["state"]["slot_values"]
                for slot in list(values):
                    roll = rng.random()
                    if roll < error_rate / 2:
                        del values[slot]
                    elif roll < error_rate:
                        service = frame["service"]
                        choices = {**_CATEGORICAL[service], **_FREE[service]}[slot]
                        values[slot] = [rng.choice(choices)]
                    else:
                        values[slot] = [rng.choice(values[slot])]
    if not flat:
        return prediction
    return {
        d["dialogue_id"]: [
            {k: v for f in turn["frames"] for k, v in f["state"]["slot_values"].items()}
            for turn in d["turns"]
            if turn["speaker"] == "USER"
        ]
        for d in prediction
    }


def write_example(folder: Path, seed: int = 7) -> tuple[Path, Path, Path]:
    """Write ``schema.json``, ``gold.json`` and ``prediction.json``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = make_gold(seed=seed)
    paths = (folder / "schema.json", folder / "gold.json", folder / "prediction.json")
    for path, content in zip(
        paths, (make_schema(), gold, make_prediction(gold, 0.15, seed + 1)), strict=True
    ):
        path.write_text(json.dumps(content, indent=1), encoding="utf-8")
    return paths
