"""Cross-team error analysis: which slots and domains the teams get wrong, per condition.

The entries are the rows of a board (the live public one or a published snapshot, whose
frozen rows name the submissions): per condition, each entry's Result there. From the
per-slot and per-domain counts the scorer stores (``breakdown["details"]``; the ``dstc11``
task has them), per condition:

- a slot's errors are its substitutions, deletions and insertions summed over the entries,
  and its **share** is that over the entries' errors on every slot of the reference (slots the
  reference never holds are left out: their names come from predictions);
- its **error rate** is those errors over its reference values summed over the entries, in
  percent, for the slot's move from condition to condition;
- a domain's errors are its wrong turns summed over the entries, and its share is that over
  the wrong turns of every domain.

Only these totals are shown: no gold value, no dialogue, no team's own counts. The scorer
keeps these counts on the whole reference only, so on a phase with a split they cannot be
restricted to the part a board ranks (see ``may_see``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access
from leaderboard.rankings.board import Leaderboard, counted


@dataclass(frozen=True)
class Share:
    name: str
    errors: int
    #: percent of the condition's errors
    share: float
    #: percent of the reference values (slots) or turns (domains) that were wrong
    rate: float


@dataclass(frozen=True)
class ConditionErrors:
    key: str
    label: str
    entries: int
    slots: tuple[Share, ...]
    domains: tuple[Share, ...]


@dataclass(frozen=True)
class Analysis:
    conditions: tuple[ConditionErrors, ...]
    #: slot -> its error rate per condition key, slots by their rate on the first condition
    rates: dict[str, dict[str, float]] = field(default_factory=dict)


def may_see(phase: Phase, user: object) -> bool:
    """Whether ``user`` may have the analysis of a board they may see: organisers always,
    readers on a phase without a split. The counts are on the whole reference: on a split
    phase they would mix in the part the board does not rank, private figures before the
    reveal, and after it the figures of runs no board publishes (the totals minus the
    published parts give them away)."""
    return access(phase, user).organiser or not phase.has_split


def _ranked(items: dict[str, tuple[int, int]]) -> tuple[Share, ...]:
    total = sum(errors for errors, _ in items.values())
    shares = [
        Share(
            name,
            errors,
            100.0 * errors / total if total else 0.0,
            100.0 * errors / base if base else 0.0,
        )
        for name, (errors, base) in items.items()
    ]
    return tuple(sorted(shares, key=lambda s: (-s.errors, s.name)))


def analyse(phase: Phase, board: Leaderboard) -> Analysis:
    out: list[ConditionErrors] = []
    for condition in board.conditions:
        ids = [r.submission_id for r in condition.rows]
        details = [
            (breakdown or {}).get("details") or {}
            for breakdown in counted(phase, only=ids)
            .filter(condition_id=condition.condition_id)
            .values_list("breakdown", flat=True)
        ]
        slots: dict[str, tuple[int, int]] = {}
        domains: dict[str, tuple[int, int]] = {}
        for found in details:
            for name, counts in (found.get("per_slot") or {}).items():
                if not counts.get("n_ref"):
                    continue
                errors = int(counts.get("sub", 0) + counts.get("del", 0) + counts.get("ins", 0))
                before = slots.get(name, (0, 0))
                slots[name] = (before[0] + errors, before[1] + int(counts["n_ref"]))
            for name, counts in (found.get("per_domain") or {}).items():
                wrong = int(counts.get("turns", 0) - counts.get("correct", 0))
                before = domains.get(name, (0, 0))
                domains[name] = (before[0] + wrong, before[1] + int(counts.get("turns", 0)))
        out.append(
            ConditionErrors(
                condition.key,
                condition.label,
                len(details),
                _ranked(slots),
                _ranked(domains),
            )
        )
    rates: dict[str, dict[str, float]] = {}
    for c in out:
        for s in c.slots:
            rates.setdefault(s.name, {})[c.key] = s.rate
    first = out[0].key if out else ""
    ordered = sorted(rates, key=lambda n: (-rates[n].get(first, 0.0), n))
    return Analysis(tuple(out), {n: rates[n] for n in ordered})
