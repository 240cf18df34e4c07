"""The public/private split of a phase's reference dialogues.

A dialogue is public when ``sha256("<seed>:<dialogue id>")``, read as a fraction in [0, 1)
from its first eight bytes, is below the phase's ``split_fraction``. The decision depends on
that dialogue alone, so adding or removing dialogues (a new reference version) never moves
another one, and anyone with the seed can recompute it. Ids are the scorer's normalised ids
as the scorer reports them (``Result.dialogues["ids"]``, ``submissions.ratios``).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from scoring.taskapi import DialogueRatios

PUBLIC, PRIVATE = "public", "private"
PARTS = (PUBLIC, PRIVATE)


def share(seed: int, dialogue_id: str) -> float:
    """The dialogue's position in [0, 1) for ``seed``."""
    digest = hashlib.sha256(f"{seed}:{dialogue_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def is_public(seed: int, fraction: float, dialogue_id: str) -> bool:
    return share(seed, dialogue_id) < fraction


def part_of(phase: Any, dialogue_id: str) -> str:
    """``"public"`` or ``"private"``: where ``dialogue_id`` falls in ``phase``'s split."""
    public = is_public(phase.split_seed, phase.split_fraction, dialogue_id)
    return PUBLIC if public else PRIVATE


def part_ratios(phase: Any, part: str, ratios: DialogueRatios) -> DialogueRatios:
    """The per-dialogue statistics of the dialogues that fall in ``part`` of the split (each
    column as an array)."""
    keep = [i for i, dialogue_id in enumerate(ratios.ids) if part_of(phase, dialogue_id) == part]
    at = np.asarray(keep, dtype=np.intp)
    return DialogueRatios(
        tuple(ratios.ids[i] for i in keep),
        {m: (np.asarray(n)[at], np.asarray(d)[at]) for m, (n, d) in ratios.columns.items()},
        tuple(ratios.turns[i] for i in keep) if ratios.turns else (),
    )
