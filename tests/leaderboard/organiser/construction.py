"""A hidden test phase with a public/private split, three teams and numbers fixed by hand.

The split rule (README, "Public and private split"): a dialogue is public when the first eight
bytes of ``sha256("<seed>:<id>")``, as a fraction of 2**64, are below the phase's fraction. It
is recomputed here from that sentence, not imported, to pick 4 public and 3 private ids.

Every user turn carries one gold slot (``hotel-area``); a wrong turn predicts another value (a
substitution). Public part: 4 dialogues x 1 turn. Private part: 3 dialogues of 2, 2 and 3
turns = 7 turns. So public JGAs are multiples of 25, private ones multiples of 100/7, and
whole-reference ones multiples of 100/11: no private or whole-reference number can be mistaken
for a public one. Private gold values are ``zanzibarquay``, a string no prediction contains.

=========  ==============  ================  ========================
submission public correct  private correct   notes
=========  ==============  ================  ========================
A1         4/4 = 100.00    1/7 = 14.29       team A's only run
B1         2/4 =  50.00    6/7 = 85.71       B selects it as final
B2         3/4 =  75.00    2/7 = 28.57       B's best public
C1         1/4 =  25.00    3/7 = 42.86       C's best public (default final)
C2         0/4 =   0.00    5/7 = 71.43
=========  ==============  ================  ========================

Public board: A 100, B 75, C 25. Private board (final selections): B 85.71, C 42.86, A 14.29.
"""

from __future__ import annotations

import hashlib
import json

SEED, FRACTION = 7, 0.5
PRIVATE_VALUE = "zanzibarquay"
PRIVATE_TURNS = (2, 2, 3)


def _public(dialogue_id: str) -> bool:
    digest = hashlib.sha256(f"{SEED}:{dialogue_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < FRACTION


def _ids() -> tuple[list[str], list[str]]:
    public: list[str] = []
    private: list[str] = []
    n = 0
    while len(public) < 4 or len(private) < 3:
        name = f"mul{n:04d}"
        n += 1
        if _public(name):
            if len(public) < 4:
                public.append(name)
        elif len(private) < 3:
            private.append(name)
    return public, private


PUBLIC_IDS, PRIVATE_IDS = _ids()


def gold() -> dict:
    data = {d: [{"hotel": {"area": "north"}}] for d in PUBLIC_IDS}
    for d, turns in zip(PRIVATE_IDS, PRIVATE_TURNS, strict=True):
        data[d] = [{"hotel": {"area": PRIVATE_VALUE}} for _ in range(turns)]
    return data


GOLD_BYTES = json.dumps(gold()).encode()


def prediction(public_right: int, private_right: int) -> dict:
    """The first ``public_right`` public turns and ``private_right`` private turns right."""
    out: dict = {}
    for i, d in enumerate(PUBLIC_IDS):
        out[d] = [{"hotel": {"area": "north" if i < public_right else "south"}}]
    k = 0
    for d, turns in zip(PRIVATE_IDS, PRIVATE_TURNS, strict=True):
        out[d] = []
        for _ in range(turns):
            wrong = {"hotel": {"area": "east"}}
            out[d].append(wrong if k >= private_right else None)
            k += 1
    # "right" private turns predict the gold value without the test writing it: copy gold.
    g = gold()
    for d in PRIVATE_IDS:
        out[d] = [t if t is not None else g[d][n] for n, t in enumerate(out[d])]
    return out


RUNS = {"A1": (4, 1), "B1": (2, 6), "B2": (3, 2), "C1": (1, 3), "C2": (0, 5)}


def private_strings() -> set[str]:
    """Renderings (2 decimals rounded and truncated) of every private-part and whole-reference
    figure a submission here can have: k/7 and k/11 of 100 for 0 < k < n."""
    out: set[str] = set()
    for n in (7, 11):
        for k in range(1, n):
            value = 100 * k / n
            out.add(f"{value:.2f}")
            out.add(f"{value:.3f}"[:-1])
    return out


def shown(value: float) -> str:
    return f"{value:.2f}"
