"""``backup_challenge`` then ``restore_challenge`` into an empty database (and an empty private
storage) reproduces every board, export, archive and snapshot exactly, and every stored row
(Results whole, reported figures, reference files); a restored phase never serves a board
cached before the restore; ``verify_files`` finds missing and altered files."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone

from leaderboard.analyses.exports import archive, reader_export
from leaderboard.challenges.models import Challenge, Phase, Reference, ReferenceFile
from leaderboard.challenges.references import clear_reference_cache
from leaderboard.challenges.split import PARTS
from leaderboard.demo import dstc11, other_tasks
from leaderboard.rankings.compute import compute
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.snapshots import reveal, serialise
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result, Submission, SubmissionFile
from leaderboard.teams.models import Team
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import TeamFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def challenge() -> Challenge:
    """The demo challenge, its hidden phase closed and revealed (a snapshot exists)."""
    call_command("demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    found = Challenge.objects.get(slug=dstc11.SLUG)
    hidden = found.phases.get(slug=dstc11.HIDDEN_SLUG)
    now = timezone.now()
    Phase.objects.filter(pk=hidden.pk).update(
        opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(days=1)
    )
    hidden.refresh_from_db()
    reveal(hidden, found.organisers.first())
    return found


def _state(slug: str) -> dict:
    """Everything a reader, a team or an organiser can get out of the challenge's boards, once
    the board's worker has built them (as it does after every change, a restore included)."""
    found = Challenge.objects.get(slug=slug)
    out: dict = {"organisers": sorted(found.organisers.values_list("username", flat=True))}
    for phase in found.phases.order_by("slug"):
        phase = built(phase)
        reader = reader_export(phase, AnonymousUser())
        # when the board was built is the site's own (a restored site builds its boards
        # again): what must come back is a board built from the phase's current version
        assert reader.pop("built_at") is not None and reader["updating"] is False
        out[phase.slug] = {
            **{part: serialise(compute(phase, part)) for part in PARTS},
            "reader": reader,
            "archive": archive(phase),
        }
    # Every stored row the boards are built from, whole (ids included).
    out["rows"] = {
        "results": list(
            Result.objects.filter(submission__phase__challenge=found).order_by("pk").values()
        ),
        "reported": list(
            ReportedResult.objects.filter(phase__challenge=found).order_by("pk").values()
        ),
        "reference files": list(
            ReferenceFile.objects.filter(reference__condition__phase__challenge=found)
            .order_by("pk")
            .values("pk", "reference_id", "name", "original_name", "sha256")
        ),
    }
    # Through JSON: the comparison is of what an export would write.
    return json.loads(json.dumps(out, default=str))


def _versions(slug: str) -> dict[str, int]:
    phases = Challenge.objects.get(slug=slug).phases.all()
    return dict(phases.values_list("slug", "board_version"))


def _fresh_private_storage(settings, path: Path) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {
            "BACKEND": "leaderboard.storage.PrivateStorage",
            "OPTIONS": {"location": str(path)},
        },
    }
    clear_reference_cache()


# Transactional: ``flush`` empties the tables and the restore writes into them for real, with
# their commits and deferred constraint checks, as on a new site.
@pytest.mark.django_db(transaction=True)
def test_backup_then_restore_into_an_empty_database_reproduces_the_leaderboard(
    challenge, settings, tmp_path
):
    before = _state(challenge.slug)
    versions = _versions(challenge.slug)
    assert before[dstc11.HIDDEN_SLUG]["reader"]["final"] is not None  # the snapshot is there
    # the rows carry the one Result shape and the reported figure's metrics
    (result, *_) = before["rows"]["results"]
    fields = {"metrics", "intervals", "part_metrics", "breakdown", "dialogues", "ratios"}
    assert fields | {"primary_ratios"} <= set(result)
    assert before["rows"]["reported"][0]["metrics"] == {"jga": 45.0}
    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115

    # A new site: empty database, empty private storage, empty cache.
    call_command("flush", interactive=False, verbosity=0)
    cache.clear()
    _fresh_private_storage(settings, tmp_path / "new-private")
    assert not Challenge.objects.exists() and not get_user_model().objects.exists()

    call_command("restore_challenge", str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert _state(challenge.slug) == before
    # every board version moved on: a board cached before the restore is never read again
    restored = _versions(challenge.slug)
    assert restored.keys() == versions.keys()
    assert all(restored[slug] > versions[slug] for slug in versions)
    call_command("verify_files", stdout=open("/dev/null", "w"))  # noqa: SIM115
    # New rows get fresh keys after the restored ones (sequences were moved past them).
    phase = Challenge.objects.get(slug=challenge.slug).phases.first()
    team = TeamFactory()
    Submission.objects.create(team=team, phase=phase, method_name="after the restore")
    # Restored members can sign in with their own passwords.
    assert get_user_model().objects.get(username="alice").check_password(dstc11.PASSWORD)
    # Restored teams are compared by their names' keys like any other.
    assert Team.objects.get(name="Team Alpha").name_key == "team alpha"


def test_restore_refuses_an_existing_slug_and_writes_nothing(challenge, tmp_path):
    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    counts = (Submission.objects.count(), Team.objects.count(), Reference.objects.count())
    with pytest.raises(CommandError, match="already exists"):
        call_command("restore_challenge", str(out))
    assert (Submission.objects.count(), Team.objects.count(), Reference.objects.count()) == counts


def test_restore_beside_other_data_moves_taken_keys_and_keeps_the_rankings(
    challenge, settings, tmp_path
):
    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    rankings = {
        phase.slug: [
            [(row.team_name, row.cells) for row in board.rows]
            for board in compute(phase, "public").conditions
        ]
        for phase in challenge.phases.all()
    }
    # Another site that already holds the demo under another slug: every key is taken.
    Challenge.objects.filter(pk=challenge.pk).update(slug="older")
    teams = Team.objects.count()
    call_command("restore_challenge", str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    restored = Challenge.objects.get(slug=challenge.slug)
    assert restored.pk != challenge.pk
    assert Team.objects.count() == teams  # the same teams (by slug), not copies
    for phase in restored.phases.all():
        boards = compute(phase, "public").conditions
        assert [[(r.team_name, r.cells) for r in b.rows] for b in boards] == rankings[phase.slug]


def test_a_backup_of_an_unknown_challenge_is_refused(tmp_path):
    with pytest.raises(CommandError, match="no challenge"):
        call_command("backup_challenge", "nope", str(tmp_path / "x.zip"))


def test_verify_files_lists_missing_and_altered_files_and_exits_1(challenge, settings, capsys):
    call_command("verify_files")
    assert "match their sha256" in capsys.readouterr().out

    root = Path(settings.STORAGES["private"]["OPTIONS"]["location"])
    altered = SubmissionFile.objects.order_by("pk").first()
    (root / altered.file.name).write_bytes(b"{}")
    gone = Reference.objects.order_by("pk").first()
    (root / gone.file.name).unlink()
    # the MultiWOZ 2.2 demo's test phase's
    schema = ReferenceFile.objects.get(name="schema", reference__condition__phase__slug="test")
    (root / schema.file.name).write_bytes(b"[]")

    with pytest.raises(CommandError) as failure:
        call_command("verify_files")
    assert failure.value.returncode == 1
    listing = capsys.readouterr().out
    assert f"submission file {altered.pk} ({altered.file.name}): sha256 mismatch" in listing
    assert f"reference {gone.pk} ({gone.file.name}): missing" in listing
    assert f"reference file {schema.pk} ({schema.file.name}): sha256 mismatch" in listing
    assert "3 of" in str(failure.value)


def test_a_backup_whose_file_was_altered_is_refused_and_leaves_nothing_behind(
    challenge, settings, tmp_path
):
    import zipfile

    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(out) as source, zipfile.ZipFile(tampered, "w") as sink:
        names = [n for n in source.namelist() if n.startswith("files/submissions/")]
        for item in source.namelist():
            data = source.read(item)
            sink.writestr(item, b"{}" if item == names[-1] else data)
    Challenge.objects.filter(pk=challenge.pk).update(slug="older")
    private = Path(settings.STORAGES["private"]["OPTIONS"]["location"])
    before = sorted(p for p in private.rglob("*") if p.is_file())

    with pytest.raises(CommandError, match="does not match its sha256"):
        call_command("restore_challenge", str(tampered))
    assert not Challenge.objects.filter(slug=challenge.slug).exists()
    assert sorted(p for p in private.rglob("*") if p.is_file()) == before


@pytest.mark.django_db(transaction=True)
def test_a_task_with_reference_files_comes_back_whole_and_scores_again(settings, tmp_path):
    """The MultiWOZ 2.2 demo's reference has a schema (required) and training values (JGA on
    seen and unseen turns): both travel with the backup, and re-scoring the restored
    submissions gives back exactly the stored Results."""
    call_command("demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    slug = other_tasks.MULTIWOZ_SLUG
    before = _state(slug)
    names = sorted(f["name"] for f in before["rows"]["reference files"])
    # the test phase's schema and training values, the Development phase's schema
    assert names == ["schema", "schema", "training_values"]
    assert all(r["metrics"]["jga_seen"] is not None for r in before["rows"]["results"])
    out = tmp_path / "multiwoz22.zip"
    call_command("backup_challenge", slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115

    call_command("flush", interactive=False, verbosity=0)
    cache.clear()
    _fresh_private_storage(settings, tmp_path / "new-private")
    call_command("restore_challenge", str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert _state(slug) == before
    # the test phase's 1 gold + 2 extra files + 3 predictions, the Development phase's gold and
    # schema, all where their rows say
    call_command("verify_files", stdout=(listing := io.StringIO()))
    assert "8 stored files match their sha256" in listing.getvalue()

    call_command("rescore", "--challenge", slug, "--now", stdout=open("/dev/null", "w"))  # noqa: SIM115
    rescored = list(Result.objects.filter(current=True).order_by("submission_id"))
    kept = {r["submission_id"]: r for r in before["rows"]["results"]}
    assert len(rescored) == len(kept) == 3
    for row in rescored:
        old = kept[row.submission_id]
        assert row.signature == old["signature"]
        assert row.metrics == pytest.approx(old["metrics"])
        assert row.dialogues == old["dialogues"]


def test_a_challenge_deleted_and_restored_on_the_same_site_shows_the_restored_board(
    challenge, tmp_path
):
    """Boards are cached under the phase's version: the restored phase (same id, free again)
    must not pick up a board cached for the deleted one."""
    phase = challenge.phases.get(slug="test")
    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    backed_up = serialise(compute(phase, "public"))
    # After the backup: a newly shown reported figure, added as the admin adds it (a change of
    # the phase's boards), then built and read once (so decoded and cached).
    ReportedResult.objects.create(
        phase=phase, condition=phase.conditions.first(), label="Added after the backup",
        metrics={"jga": 12.5}, source="a later paper", shown=True,
    )  # fmt: skip
    Phase.changed(phase.pk)
    later = leaderboard(Phase.objects.get(pk=phase.pk))
    assert sorted(r["label"] for r in later.reported) == [
        "Added after the backup",
        "Published system (synthetic example)",
    ]
    # Removed from the site (Results first: they protect the references they were scored on).
    Result.objects.filter(submission__phase__challenge=challenge).delete()
    Challenge.objects.filter(pk=challenge.pk).delete()
    call_command("restore_challenge", str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    restored = Phase.objects.get(pk=phase.pk)  # the id was free again: kept
    board = leaderboard(restored)
    assert [r["label"] for r in board.reported] == ["Published system (synthetic example)"]
    assert serialise(board) == backed_up


#: per-dialogue statistics as a version-2 backup holds them: JSON lists in ``dialogues``
OLD_DIALOGUES = {
    "ids": ["d1", "d2", "d3"],
    "columns": {"jga": [[1, 0, 3], [2, 4, 3]], "ser": [[0.5, 2, 0], [4, 4, 1]]},
    "turns": ["10", "0000", "111"],
}


def test_a_version_2_backup_restores_its_per_dialogue_lists_as_stored_arrays(challenge, tmp_path):
    out = tmp_path / "dstc11.zip"
    call_command("backup_challenge", challenge.slug, str(out), stdout=open("/dev/null", "w"))  # noqa: SIM115
    with zipfile.ZipFile(out) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        files = {name: archive.read(name) for name in archive.namelist() if name != "manifest.json"}
    manifest["version"] = 2
    for row in manifest["tables"]["submissions.result"]:
        del row["ratios"], row["primary_ratios"]
        row["dialogues"] = OLD_DIALOGUES
    old = tmp_path / "version-2.zip"
    with zipfile.ZipFile(old, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        for name, data in files.items():
            archive.writestr(name, data)
    Result.objects.filter(submission__phase__challenge=challenge).delete()
    Challenge.objects.filter(pk=challenge.pk).delete()

    call_command("restore_challenge", str(old), stdout=open("/dev/null", "w"))  # noqa: SIM115
    restored = Result.objects.filter(submission__phase__challenge__slug=challenge.slug)
    assert restored.count() == len(manifest["tables"]["submissions.result"]) > 0
    for row in restored:
        assert row.dialogues == {"ids": ["d1", "d2", "d3"], "turns": ["10", "0000", "111"]}
        columns = {m: (n.tolist(), d.tolist()) for m, (n, d) in ratios.decode(row.ratios).items()}
        assert columns == {"jga": ([1, 0, 3], [2, 4, 3]), "ser": ([0.5, 2, 0], [4, 4, 1])}
        # the demo challenge ranks JGA
        (numerators, denominators) = ratios.primary(row.primary_ratios, "jga")
        assert (numerators.tolist(), denominators.tolist()) == ([1, 0, 3], [2, 4, 3])
