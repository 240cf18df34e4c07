"""Loaded references kept per process are bounded by the size of their files: the least
recently used go first once the kept ones' files add up to more than
``TRACKBOARD_REFERENCE_CACHE_MB``; the newest stays whatever its size."""

from __future__ import annotations

import pytest

from leaderboard.challenges import references
from leaderboard.challenges.models import Reference
from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.web import GOLD_BYTES

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


@pytest.fixture
def three(settings) -> list[Reference]:
    settings.REFERENCE_CACHE_MB = 1
    # Three versions (trailing spaces: other sha256s of the same gold), one per phase.
    phases = [
        phase_with_references(GOLD_BYTES + b" " * n, keys=("tts-verbatim",)) for n in range(3)
    ]
    references.clear_reference_cache()
    return [Reference.objects.get(condition__phase=phase) for phase in phases]


def test_the_least_recently_used_go_once_the_files_exceed_the_limit(three):
    first, second, third = three
    references.remember(first, "first", 400 * 1024)
    references.remember(second, "second", 400 * 1024)
    assert references.cached_references() == 2  # 800 KiB of files: within 1 MiB
    assert references.loaded_reference(first) == "first"  # used: now the most recent
    references.remember(third, "third", 400 * 1024)  # 1,200 KiB: the oldest use goes
    assert references.cached_references() == 2
    assert references.loaded_reference(first) == "first"
    assert references.loaded_reference(third) == "third"
    # ``second`` went: it is read back from storage and loaded again.
    assert references.loaded_reference(second) not in ("first", "second", "third")


def test_one_reference_larger_than_the_limit_is_still_kept(three):
    first, second, _ = three
    references.remember(first, "first", 100 * 1024)
    references.remember(second, "second", 2 * MB)
    assert references.cached_references() == 1
    assert references.loaded_reference(second) == "second"
