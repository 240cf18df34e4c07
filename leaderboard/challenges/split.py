"""The public/private split of a phase's reference dialogues.

A dialogue is public when ``sha256("<seed>:<dialogue id>")``, read as a fraction in [0, 1)
from its first eight bytes, is below the phase's ``split_fraction``. The decision depends on
that dialogue alone, so adding or removing dialogues (a new reference version) never moves
another one, and anyone with the seed can recompute it. Ids are the scorer's normalised ids
(lower case, no ``.json``), as stored in ``Result.breakdown["per_dialogue"]``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

PUBLIC, PRIVATE = "public", "private"


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


def select(phase: Any, part: str, dialogues: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-dialogue entries (``{"id": ..., ...}``) that fall in ``part`` of the split."""
    return [d for d in dialogues if part_of(phase, str(d["id"])) == part]
