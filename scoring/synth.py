"""Synthetic DSTC11-like data, generated from a seed: for examples, demos and tests.

The dialogues imitate MultiWOZ's shape (cumulative states over a few domains, booking slots
with a ``book`` prefix, clock times in ``h:mm am`` form) so that every normalisation rule is
exercised; no real data is copied.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ONTOLOGY: dict[str, dict[str, tuple[str, ...]]] = {
    "hotel": {
        "area": ("north", "south", "east", "west", "centre"),
        "pricerange": ("cheap", "moderate", "expensive"),
        "stars": ("2", "3", "4", "5"),
        "bookday": ("monday", "friday", "saturday"),
        "bookpeople": ("1", "2", "4", "6"),
        "name": ("acorn guest house", "the lensfield hotel", "a and b guest house"),
    },
    "restaurant": {
        "food": ("italian", "chinese", "indian", "modern european"),
        "area": ("north", "centre", "south"),
        "booktime": ("6:15 pm", "12:30 pm", "7:00 pm", "11:45 am"),
        "bookpeople": ("2", "3", "5"),
        "name": ("pizza hut fenditton", "the golden curry", "nandos"),
    },
    "train": {
        "departure": ("cambridge", "london kings cross", "norwich", "ely"),
        "destination": ("cambridge", "stansted airport", "peterborough"),
        "day": ("tuesday", "thursday", "sunday"),
        "leaveat": ("9:30 am", "1:15 pm", "5:45 pm", "dontcare"),
        "arriveby": ("10:00 am", "3:30 pm", "8:00 pm"),
    },
    "taxi": {
        "departure": ("saint johns college", "the cambridge punter", "queens college"),
        "destination": ("pizza hut fenditton", "the junction", "kings college"),
        "leaveat": ("0:47 am", "2:30 pm", "11:00 am"),
    },
    "attraction": {
        "type": ("museum", "college", "theatre", "park"),
        "area": ("centre", "west", "east"),
        "name": ("fitzwilliam museum", "the cambridge corn exchange"),
    },
}

Gold = dict[str, list[dict[str, dict[str, str]]]]


def make_gold(n_dialogues: int = 60, seed: int = 7) -> Gold:
    """A reference of ``n_dialogues`` dialogues with cumulative states, one per user turn."""
    rng = random.Random(seed)
    gold: Gold = {}
    prefixes = ("sng", "pmul", "mul")
    for number in range(n_dialogues):
        dialogue_id = f"{prefixes[number % 3]}{1000 + number:04d}"
        domains = rng.sample(sorted(ONTOLOGY), k=rng.choice((1, 1, 2, 3)))
        state: dict[str, dict[str, str]] = {}
        turns = []
        for _ in range(rng.randint(3, 9)):
            domain = rng.choice(domains)
            slot = rng.choice(sorted(ONTOLOGY[domain]))
            if rng.random() < 0.8:
                state.setdefault(domain, {})[slot] = rng.choice(ONTOLOGY[domain][slot])
            turns.append({d: dict(s) for d, s in state.items()})
        gold[dialogue_id] = turns
    return gold


def make_prediction(gold: Gold, error_rate: float, seed: int) -> Gold:
    """A system output: the gold with substitutions, deletions and insertions at ``error_rate``.

    Errors persist to later turns as a real tracker's do; surface variants (upper case,
    ``bookday`` written ``day``, 24-hour clock) that normalisation forgives are mixed in.
    """
    rng = random.Random(seed)
    prediction: Gold = {}
    for dialogue_id, turns in gold.items():
        carried: dict[tuple[str, str], str | None] = {}
        predicted = []
        for turn in turns:
            out: dict[str, dict[str, str]] = {}
            for domain, slots in turn.items():
                for slot, value in slots.items():
                    if (domain, slot) not in carried and rng.random() < error_rate:
                        wrong = rng.choice(ONTOLOGY[domain][slot])
                        carried[(domain, slot)] = None if rng.random() < 0.4 else wrong
                    value = carried.get((domain, slot), value) or ""
                    if not value:
                        continue
                    name = slot[4:] if slot.startswith("book") and rng.random() < 0.5 else slot
                    out.setdefault(domain, {})[name] = (
                        value.upper() if rng.random() < 0.1 else value
                    )
            if rng.random() < error_rate / 3:
                domain = rng.choice(sorted(ONTOLOGY))
                slot = rng.choice(sorted(ONTOLOGY[domain]))
                out.setdefault(domain, {}).setdefault(slot, rng.choice(ONTOLOGY[domain][slot]))
            predicted.append(out)
        prediction[dialogue_id] = predicted
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
