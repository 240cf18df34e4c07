"""The ``trackboard`` command: log in, list challenges, submit (and wait for the scores),
follow submissions, read leaderboards and results.

Exit codes: 0 success (for ``submit --wait``: scored), 1 failure (the submission failed or was
cancelled, or the server refused the request), 2 invalid input (a file the scorer rejects, or
wrong arguments).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trackboard_cli import __version__, config
from trackboard_cli.client import ApiError, Client
from trackboard_cli.validate import check_file

OK, FAILED, INVALID = 0, 1, 2
FINAL = {"scored", "failed", "cancelled", "invalid"}


class Usage(Exception):
    """Wrong arguments; the message says what is wrong (exit code 2)."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except Usage as exc:
        print(f"trackboard: {exc}", file=sys.stderr)
        return INVALID
    except (ApiError, config.ConfigError) as exc:
        print(f"trackboard: {exc}", file=sys.stderr)
        if isinstance(exc, ApiError) and exc.code == "invalid" and exc.details:
            for field, messages in exc.details.items():
                print(f"  {field}: {' '.join(map(str, messages))}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        print("trackboard: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trackboard", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"trackboard {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    login = commands.add_parser("login", help="store the site's URL and your API token")
    login.add_argument("--url", required=True, help="the site, e.g. https://trackboard.example")
    login.add_argument("--token", help="an API token from your profile page (else asked for)")
    login.set_defaults(handler=cmd_login)

    challenges = commands.add_parser("challenges", help="list the challenges and their phases")
    challenges.add_argument("--json", action="store_true", help="print the API's JSON")
    challenges.set_defaults(handler=cmd_challenges)

    submit = commands.add_parser("submit", help="check and upload prediction files")
    submit.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    submit.add_argument(
        "--file",
        action="append",
        required=True,
        metavar="CONDITION=PATH",
        help="a prediction file for one condition (repeat for each condition)",
    )
    submit.add_argument("--method", default="", help="method name shown on the leaderboard")
    submit.add_argument("--description", default="", help="a description of the method")
    submit.add_argument("--paper-url", default="", help="a paper or code URL")
    submit.add_argument("--team", default="", help="team slug (when you are in several)")
    submit.add_argument("--wait", action="store_true", help="wait until it is scored")
    submit.add_argument("--interval", type=float, default=2.0, help="seconds between checks")
    submit.add_argument("--timeout", type=float, default=3600.0, help="give up waiting after")
    submit.set_defaults(handler=cmd_submit)

    status = commands.add_parser("status", help="your recent submissions, or one of them")
    status.add_argument("id", nargs="?", type=int, metavar="ID")
    status.add_argument("--json", action="store_true", help="print the API's JSON")
    status.set_defaults(handler=cmd_status)

    board = commands.add_parser("leaderboard", help="a phase's ranking")
    board.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    board.add_argument("--condition", help="one condition's ranking (default: the overview)")
    board.add_argument("--json", action="store_true", help="print JSON")
    board.set_defaults(handler=cmd_leaderboard)

    results = commands.add_parser("results", help="one submission's scores")
    results.add_argument("id", type=int, metavar="ID")
    results.add_argument("--json", action="store_true", help="print the API's JSON")
    results.set_defaults(handler=cmd_results)
    return parser


# --- helpers -------------------------------------------------------------------------------


def _client() -> Client:
    settings = config.load()
    return Client(settings.url, settings.token)


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print(line.rstrip())


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _ci(interval: Sequence[float | None] | None) -> str:
    if not interval or interval[0] is None or interval[1] is None:
        return ""
    return f"[{interval[0]:.2f}, {interval[1]:.2f}]"


def _resolve_phase(client: Client, text: str) -> dict[str, Any]:
    """``{"id", "challenge", "phase"}`` for a phase id or ``challenge-slug/phase-slug``."""
    if text.isdigit():
        return {"id": int(text), "challenge": None, "phase": None}
    challenge_slug, _, phase_slug = text.partition("/")
    if not challenge_slug or not phase_slug:
        raise Usage(f"PHASE must be a phase id or challenge-slug/phase-slug, not {text!r}")
    challenge = client.get(f"challenges/{challenge_slug}/")
    for phase in challenge["phases"]:
        if phase["slug"] == phase_slug:
            return {"id": phase["id"], "challenge": challenge, "phase": phase}
    known = ", ".join(p["slug"] for p in challenge["phases"]) or "none"
    raise Usage(f"challenge {challenge_slug!r} has no phase {phase_slug!r} (phases: {known})")


# --- commands ------------------------------------------------------------------------------


def cmd_login(args: argparse.Namespace) -> int:
    token = args.token
    if not token:
        token = (
            getpass.getpass("API token (from your profile page): ")
            if sys.stdin.isatty()
            else sys.stdin.readline()
        )
    token = token.strip()
    if not token:
        raise Usage("no token given")
    url = args.url.rstrip("/")
    teams = list(Client(url, token).get_all("teams/mine/"))  # checks the URL and the token
    path = config.save(config.Config(url=url, token=token))
    names = ", ".join(t["name"] for t in teams) or "no team yet"
    print(f"Logged in to {url} (teams: {names}). Token saved in {path}.")
    return OK


def cmd_challenges(args: argparse.Namespace) -> int:
    challenges = list(_client().get_all("challenges/"))
    if args.json:
        _print_json(challenges)
        return OK
    rows = []
    for challenge in challenges:
        for phase in challenge["phases"] or [{}]:
            rows.append(
                [
                    challenge["slug"],
                    challenge["title"],
                    phase.get("id", ""),
                    f"{challenge['slug']}/{phase['slug']}" if phase else "",
                    phase.get("state", ""),
                    (phase.get("closes_at") or "")[:16].replace("T", " "),
                ]
            )
    if not rows:
        print("No challenges yet.")
        return OK
    _table(["CHALLENGE", "TITLE", "PHASE", "PATH", "STATE", "CLOSES (UTC)"], rows)
    return OK


def _parse_files(specs: Sequence[str]) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for spec in specs:
        key, sep, path = spec.partition("=")
        if not sep or not key or not path:
            raise Usage(f"--file takes CONDITION=PATH, e.g. tts-verbatim=run.json (got {spec!r})")
        if key in files:
            raise Usage(f"condition {key!r} is given twice")
        files[key] = Path(path)
    return files


def cmd_submit(args: argparse.Namespace) -> int:
    files = _parse_files(args.file)
    client = _client()
    target = _resolve_phase(client, args.phase)
    profile = (target["challenge"] or {}).get("scoring", {}).get("profile", "default")
    invalid = False
    for key, path in files.items():
        try:
            found = check_file(path, profile)
        except ValueError as exc:  # scoring.ScoringError: the server's own message
            print(f"{key}: {exc}", file=sys.stderr)
            invalid = True
        else:
            print(f"{key}: {path.name} looks valid ({found}).")
    if invalid:
        print("Nothing was uploaded; fix the files above.", file=sys.stderr)
        return INVALID
    fields = {
        "method_name": args.method or "trackboard CLI",
        "method_description": args.description,
        "url": args.paper_url,
        "team": args.team,
    }
    try:
        submission = client.post_multipart(f"phases/{target['id']}/submissions/", fields, files)
    except ApiError as exc:
        if exc.code != "submission_rejected":
            raise
        print(f"trackboard: {exc}", file=sys.stderr)
        for key, message in (exc.details.get("conditions") or {}).items():
            print(f"{key}: {message}", file=sys.stderr)
        return INVALID
    print(f"Submission {submission['id']} received ({submission['status']}).")
    if not args.wait:
        print(f"Follow it with: trackboard status {submission['id']}")
        return OK
    return _wait(client, submission, args.interval, args.timeout)


def _wait(client: Client, submission: dict[str, Any], interval: float, timeout: float) -> int:
    """Print each change of status until the submission is final; plain lines, no TUI."""
    started = time.monotonic()
    shown = ""
    hiccup = False
    while True:
        status = submission["status"]
        line = status + (f" (attempt {submission['attempts']})" if status == "scoring" else "")
        if line != shown:
            print(f"[{time.monotonic() - started:6.1f} s] submission {submission['id']}: {line}")
            sys.stdout.flush()
            shown = line
        if status in FINAL:
            break
        if time.monotonic() - started > timeout:
            print(f"Still {status} after {timeout:.0f} s; check later with trackboard status.")
            return FAILED
        time.sleep(interval)
        try:
            submission = client.get(f"submissions/{submission['id']}/")
        except ApiError as error:
            # A refusal (4xx) is final; a server or network hiccup while watching is not: the
            # submission is safely queued on the server, so keep watching until the timeout.
            if 0 < error.status < 500:
                raise
            if not hiccup:
                print(f"(the server did not answer: {error}; still watching)", file=sys.stderr)
                hiccup = True
    if status != "scored":
        if submission.get("error"):
            print(submission["error"], file=sys.stderr)
        return INVALID if status == "invalid" else FAILED
    _print_results(submission)
    return OK


def _print_results(submission: dict[str, Any]) -> None:
    if not submission.get("results_visible"):
        print("Scored. The results of this phase are hidden until the organisers reveal them.")
        return
    rows = [
        [key, _num(r["jga"]), _ci(r["jga_ci"]), _num(r["ser"]), _ci(r["ser_ci"])]
        for key, r in submission["results"].items()
    ]
    _table(["CONDITION", "JGA", "95% CI", "SER", "95% CI"], rows)
    signatures = {r["signature"] for r in submission["results"].values()}
    for signature in sorted(signatures):
        print(f"signature: {signature}")


def cmd_status(args: argparse.Namespace) -> int:
    client = _client()
    if args.id is not None:
        submission = client.get(f"submissions/{args.id}/")
        if args.json:
            _print_json(submission)
            return OK
        print(f"Submission {submission['id']}: {submission['status']}")
        print(f"  phase: {submission['phase']['challenge']}/{submission['phase']['slug']}")
        print(f"  team: {submission['team']['name']}; method: {submission['method_name']}")
        print(f"  attempts: {submission['attempts']}; created: {submission['created_at']}")
        if submission["error"]:
            print(f"  error: {submission['error']}")
        if submission["status"] == "scored":
            _print_results(submission)
        return OK
    page = client.get("submissions/", {"page_size": 20})
    if args.json:
        _print_json(page["results"])
        return OK
    rows = [
        [
            s["id"],
            f"{s['phase']['challenge']}/{s['phase']['slug']}",
            s["team"]["name"],
            s["method_name"],
            s["status"],
            s["created_at"][:16].replace("T", " "),
        ]
        for s in page["results"]
    ]
    if not rows:
        print("No submissions yet.")
        return OK
    _table(["ID", "PHASE", "TEAM", "METHOD", "STATUS", "CREATED (UTC)"], rows)
    return OK


def cmd_leaderboard(args: argparse.Namespace) -> int:
    client = _client()
    target = _resolve_phase(client, args.phase)
    params = {"condition": args.condition, "page_size": 200}
    first = client.get(f"phases/{target['id']}/leaderboard/", params)
    rows = list(first["results"])
    page = first
    while page.get("next"):
        page = client.get(page["next"])
        rows.extend(page["results"])
    if args.json:
        _print_json(
            {
                "phase": first["phase"],
                "primary_metric": first["primary_metric"],
                "condition": first["condition"],
                "conditions": [c["key"] for c in first["conditions"]],
                "results": rows,
            }
        )
        return OK
    title = first["condition"] or "overview (mean over conditions)"
    print(f"{first['phase']['challenge']}/{first['phase']['slug']}: {title}")
    if not rows:
        print("No scored submissions yet.")
        return OK
    table = [
        [r["rank"], r["team"]["name"], r["method_name"], _num(r["jga"]), _num(r["ser"])]
        for r in rows
    ]
    _table(["RANK", "TEAM", "METHOD", "JGA", "SER"], table)
    return OK


def cmd_results(args: argparse.Namespace) -> int:
    submission = _client().get(f"submissions/{args.id}/")
    if args.json:
        _print_json(submission)
        return OK
    print(f"Submission {submission['id']} ({submission['method_name']}): {submission['status']}")
    if submission["status"] != "scored":
        if submission["error"]:
            print(submission["error"])
        return OK if submission["status"] not in {"failed", "invalid"} else FAILED
    _print_results(submission)
    return OK


if __name__ == "__main__":
    sys.exit(main())
