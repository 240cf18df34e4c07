"""Value normalisation and matching for ``multiwoz22``.

Both sides are normalised the same way: lower-cased, white space collapsed and trimmed;
``dont care``, ``don't care`` and ``do n't care`` become ``dontcare``; an empty value or
``none`` means the slot is absent. ``dontcare`` is a value like any other (MultiWOZ 2.2's schema
gives it as every optional slot's default) but is never matched fuzzily. ``unknown`` is not
special in the MultiWOZ 2.2 schema, so it is an ordinary value (matched exactly if fuzzy).

Matching (Schema-Guided DST conventions): a categorical slot is right when the prediction
equals one of the gold values; a non-categorical slot scores the best match over the listed
gold values: 1 or 0 when exact, or the rapidfuzz token-sort ratio of the (lower-cased,
punctuation-stripped) strings rounded to a whole percent, divided by 100, when fuzzy. The
rounding reproduces the reference evaluator's (fuzzywuzzy returns whole percents: 67 for
``bird dog`` vs ``bird``, where rapidfuzz returns 66.67).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz import fuzz, utils

MATCHES = ("exact", "fuzzy")
DONTCARE = "dontcare"
_WHITESPACE = re.compile(r"\s+")
_DONTCARE_FORMS = frozenset({"dont care", "don't care", "do n't care", "do not care", "dontcare"})


@lru_cache(maxsize=65536)
def normalise_value(value: str) -> str | None:
    text = _WHITESPACE.sub(" ", value.lower()).strip()
    if not text or text == "none":
        return None
    if text in _DONTCARE_FORMS:
        return DONTCARE
    return text


@lru_cache(maxsize=65536)
def fuzzy_ratio(gold: str, predicted: str) -> float:
    """Token-sort ratio on 0-1, rounded to a whole percent as the reference evaluator does."""
    ratio = fuzz.token_sort_ratio(gold, predicted, processor=utils.default_process)
    return round(ratio) / 100


def slot_score(categorical: bool, gold: Sequence[str], predicted: str, match: str) -> float:
    """The score of a predicted value against the listed gold values of an active slot."""
    if predicted in gold:
        return 1.0
    if categorical or match == "exact" or predicted == DONTCARE:
        return 0.0
    return max((fuzzy_ratio(g, predicted) for g in gold if g != DONTCARE), default=0.0)
