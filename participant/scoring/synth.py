"""Synthetic DSTC11-like data, generated from a seed: for the example, the demo and tests.

The dialogues imitate spoken MultiWOZ's shape (one cumulative state per user turn,
``{dialog_id: [{domain: {slot: value}}]}``, booking slots with a ``book`` prefix, clock times
written several ways) so that every normalisation rule is exercised; no real data is copied.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

Gold = dict[str, list[dict[str, dict[str, str]]]]

PLACES = [
    "Pizza Hut Fenditton",
    "Kiev Restaurant",
    "Nandos",
    "Sala Thong",
    "La Margherita",
    "Dojo Noodle Bar",
    "Lan Hong House",
    "Little Seoul",
    "The Junction",
    "Old Schools",
    "All Saints Church",
    "Scott Polar Museum",
    "Funky Fun House",
    "Christ's College",
]
HOTELS = [
    "Cambridge Belfry",
    "University Arms Hotel",
    "El Shaddia Guesthouse",
    "Rosa's Bed & Breakfast",
    "Acorn Guest House",
    "Hamilton Lodge",
]
STATIONS = ["Cambridge", "London Liverpool Street", "Ely", "Norwich", "Stevenage", "Peterborough"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
AREAS = ["centre", "north", "south", "east", "west"]
PRICES = ["cheap", "moderate", "expensive"]
PEOPLE = [str(n) for n in range(1, 9)]


def _time(rng: random.Random) -> str:
    """A clock time as spoken-MultiWOZ gold writes it: ``h:mm am`` / ``h:mm pm``."""
    hour = rng.randint(7, 21)
    minutes = rng.choice(["00", "15", "30", "45"])
    return f"{(hour - 1) % 12 + 1}:{minutes} {'am' if hour < 12 else 'pm'}"


Values = list[str] | Callable[[random.Random], str]

ONTOLOGY: dict[str, dict[str, Values]] = {
    "restaurant": {
        "food": ["indian", "chinese", "italian", "british", "european", "thai"],
        "area": AREAS,
        "pricerange": PRICES,
        "name": PLACES[:8],
        "bookday": DAYS,
        "bookpeople": PEOPLE,
        "booktime": _time,
    },
    "hotel": {
        "area": AREAS,
        "pricerange": PRICES,
        "type": ["hotel", "guesthouse"],
        "stars": ["2", "3", "4", "5"],
        "parking": ["yes", "no"],
        "internet": ["yes", "no"],
        "name": HOTELS,
        "bookday": DAYS,
        "bookpeople": PEOPLE,
        "bookstay": [str(n) for n in range(1, 6)],
    },
    "train": {
        "departure": STATIONS,
        "destination": STATIONS,
        "day": DAYS,
        "leaveat": _time,
        "arriveby": _time,
        "bookpeople": PEOPLE,
    },
    "taxi": {"departure": PLACES, "destination": PLACES, "leaveat": _time, "arriveby": _time},
    "attraction": {
        "type": ["museum", "college", "theatre", "park", "architecture"],
        "area": AREAS,
        "name": PLACES[9:],
    },
}
_PREFIX = {"restaurant": "sng", "hotel": "sng", "train": "mul", "taxi": "pmul", "attraction": "mul"}


def _value(rng: random.Random, domain: str, slot: str) -> str:
    choices = ONTOLOGY[domain][slot]
    return choices(rng) if callable(choices) else rng.choice(choices)


def make_gold(n_dialogues: int = 60, seed: int = 2022) -> Gold:
    """A reference: cumulative states over one or two domains, 3 to 9 user turns each."""
    rng = random.Random(seed)
    gold: Gold = {}
    for n in range(n_dialogues):
        domains = rng.sample(sorted(ONTOLOGY), rng.choice([1, 1, 2]))
        dialog_id = f"{_PREFIX[domains[0]]}{1000 + n * 7:04d}"
        state: dict[str, dict[str, str]] = {}
        turns = []
        for t in range(rng.randint(3, 9)):
            domain = domains[0] if t < 3 or len(domains) == 1 else domains[1]
            for slot in rng.sample(sorted(ONTOLOGY[domain]), rng.randint(0, 2)):
                state.setdefault(domain, {})[slot] = _value(rng, domain, slot)
            turns.append({d: dict(s) for d, s in state.items()})
        gold[dialog_id] = turns
    return gold


def _surface(rng: random.Random, slot: str, value: str) -> tuple[str, str]:
    """A way of writing (slot, value) that normalisation forgives, as real systems vary."""
    roll = rng.random()
    if roll < 0.3 and slot.startswith("book"):
        return slot[4:], value  # "day" for "bookday"
    if roll < 0.4:
        return slot, value.upper()
    return slot, value


def _bare(slot: str) -> str:
    return slot[4:] if slot.startswith("book") else slot


def make_prediction(gold: Gold, error_rate: float, seed: int) -> Gold:
    """A system output: each gold slot dropped or mis-valued with ``error_rate``, plus a few
    inserted slots. Errors persist over the rest of the dialogue, as a tracker's would."""
    rng = random.Random(seed)
    prediction: Gold = {}
    for dialog_id, turns in gold.items():
        decided: dict[tuple[str, str], str | None] = {}
        out = []
        for state in turns:
            predicted: dict[str, dict[str, str]] = {}
            for domain, slots in state.items():
                for slot, value in slots.items():
                    key = (domain, slot)
                    if key not in decided:
                        roll = rng.random()
                        if roll < error_rate / 2:
                            decided[key] = None
                        elif roll < error_rate:
                            decided[key] = _value(rng, domain, slot)
                        else:
                            decided[key] = value
                    chosen = decided[key]
                    if chosen is not None:
                        name, text = _surface(rng, slot, chosen)
                        predicted.setdefault(domain, {})[name] = text
                if rng.random() < error_rate / 4:
                    extra = rng.choice(sorted(ONTOLOGY[domain]))
                    written = predicted.setdefault(domain, {})
                    if extra not in slots and _bare(extra) not in map(_bare, written):
                        written[extra] = _value(rng, domain, extra)
            out.append(predicted)
        prediction[dialog_id] = out
    return prediction


def write_example(folder: Path, seed: int = 7) -> tuple[Path, Path]:
    """Write ``gold.json`` and ``prediction.json`` into ``folder``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = make_gold(seed=seed)
    gold_path = folder / "gold.json"
    pred_path = folder / "prediction.json"
    gold_path.write_text(json.dumps(gold, indent=1), encoding="utf-8")
    pred_path.write_text(json.dumps(make_prediction(gold, 0.15, seed + 1)), encoding="utf-8")
    return gold_path, pred_path
