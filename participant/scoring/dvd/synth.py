"""Synthetic DVD-DST-like data from a seed (for the demo and tests; no real data copied).

States are token sequences (``<frameN> <frameM> <objK> SIZE large ...``); about a third of the
turns have no temporal segment (spatial-only questions).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

VALUES = {
    "size": ["small", "medium", "large"],
    "color": ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"],
    "material": ["rubber", "metal"],
    "shape": ["cube", "sphere", "cylinder", "cone"],
}

State = tuple[tuple[int, int] | None, dict[int, dict[str, str]]]


def render(segment: tuple[int, int] | None, objects: dict[int, dict[str, str]]) -> str:
    tokens = [f"<frame{segment[0]}>", f"<frame{segment[1]}>"] if segment else []
    for obj, slots in objects.items():
        tokens.append(f"<obj{obj}>")
        for slot, value in slots.items():
            tokens += [slot.upper(), value]
    return " ".join(tokens)


def _gold_states(rng: random.Random) -> list[State]:
    objects: dict[int, dict[str, str]] = {}
    states: list[State] = []
    for _ in range(rng.randint(3, 8)):
        obj = rng.randint(0, 9)
        slots = objects.setdefault(obj, {})
        for slot in rng.sample(sorted(VALUES), rng.randint(1, 2)):
            slots[slot] = rng.choice(VALUES[slot])
        segment = None
        if rng.random() < 0.66:
            start = rng.randrange(0, 250, 5)
            segment = (start, start + rng.randrange(10, 120, 5))
        states.append((segment, {k: dict(v) for k, v in objects.items()}))
    return states


def make_gold(n_dialogues: int = 40, seed: int = 2022) -> dict[str, list[str]]:
    rng = random.Random(seed)
    return {f"dvd{n:05d}": [render(*s) for s in _gold_states(rng)] for n in range(n_dialogues)}


def make_prediction(
    gold: dict[str, list[str]], error_rate: float, seed: int
) -> dict[str, list[str]]:
    """Perturb a gold: wrong attribute values, dropped objects and shifted segments."""
    from scoring.dvd.data import parse_tokens

    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for dialogue_id, states in gold.items():
        rendered = []
        for text in states:
            state = parse_tokens(text, dialogue_id)
            objects = {o: dict(s) for o, s in state.objects.items()}
            for obj in list(objects):
                roll = rng.random()
                if roll < error_rate / 3:
                    del objects[obj]
                elif roll < error_rate:
                    slot = rng.choice(sorted(objects[obj]) or ["size"])
                    objects[obj][slot] = rng.choice(VALUES[slot])
            segment = state.segment
            if segment is not None and rng.random() < error_rate * 2:
                shift = rng.randint(-40, 40)
                segment = (
                    max(0, segment[0] + shift),
                    max(0, segment[0] + shift) + segment[1] - segment[0],
                )
            rendered.append(render(segment, objects))
        out[dialogue_id] = rendered
    return out


def write_example(folder: Path, seed: int = 7) -> tuple[Path, Path]:
    """Write ``gold.json`` and ``prediction.json``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = make_gold(seed=seed)
    gold_path, pred_path = folder / "gold.json", folder / "prediction.json"
    gold_path.write_text(json.dumps(gold, indent=1), encoding="utf-8")
    pred_path.write_text(json.dumps(make_prediction(gold, 0.15, seed + 1)), encoding="utf-8")
    return gold_path, pred_path
