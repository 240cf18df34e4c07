"""``manage.py erase (--submission ID ... | --team SLUG) --reason TEXT [--dry-run]``: the
operator's erasure of submitted data (a legal request): the submissions with their Results and
stored files, and with ``--team`` the team itself, each recorded in its challenge's audit log
with the reason. Nothing else deletes a scored run, a Result or a team with results; an
organiser withdraws or disqualifies instead, which keeps the evidence."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.submissions.models import Submission
from leaderboard.submissions.services.withdrawal import WithdrawalError, erase
from leaderboard.teams.models import Team


class Command(BaseCommand):
    help = "Erase submissions (or a team and its submissions) for good, recorded in the audit log."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--submission", type=int, action="append", help="a submission's id")
        which.add_argument("--team", help="a team's slug: the team and every submission of it")
        parser.add_argument("--reason", required=True, help="why (kept in the audit log)")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would be erased; erase nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        team = None
        if options["team"]:
            team = Team.objects.filter(slug=options["team"]).first()
            if team is None:
                raise CommandError(f"no team {options['team']!r}")
            submissions = list(team.submissions.select_related("phase", "team"))
        else:
            wanted = sorted(set(options["submission"]))
            found = Submission.objects.select_related("phase", "team").in_bulk(wanted)
            missing = [str(pk) for pk in wanted if pk not in found]
            if missing:
                raise CommandError(f"no submission {', '.join(missing)}")
            submissions = [found[pk] for pk in wanted]
        names = ", ".join(str(s.pk) for s in submissions) or "none"
        what = f"team {team.name} and its submissions ({names})" if team else f"submissions {names}"
        if options["dry_run"]:
            self.stdout.write(f"Would erase {what}.")
            return
        try:
            counts = erase(
                submissions, reason=options["reason"], team=team, actor_name="operator (erase)"
            )
        except WithdrawalError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Erased {what}: {counts['results']} result(s), {counts['files']} file(s); "
            "recorded in the audit log."
        )
