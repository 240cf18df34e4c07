"""The ``trackboard`` command: log in, list challenges, submit (and wait for the scores),
follow submissions, read leaderboards and results.

Exit codes: 0 success (for ``submit --wait``: scored), 1 failure (the submission failed or was
cancelled, or the server refused the request), 2 invalid input (a file the scorer rejects,
wrong arguments, or a phase, submission or condition that does not exist).

With --json every outcome is one JSON object on standard output: the answer, or
{"error": {"code", "message", "details"}, "status", "exit_code"} (the API's error as the site
sent it, or the command's own in the same shape).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import secrets
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from scoring import ScoringError
from trackboard_cli import __version__, config
from trackboard_cli.client import ApiError, Client
from trackboard_cli.validate import check_file, local_task

OK, FAILED, INVALID = 0, 1, 2
#: seconds before the first retry of an upload (then twice that); TRACKBOARD_RETRY_PAUSE
RETRY_PAUSE = float(os.environ.get("TRACKBOARD_RETRY_PAUSE", "2"))
FINAL = {"scored", "failed", "cancelled", "invalid"}


class Usage(Exception):
    """Invalid input (exit code 2); the message says what is wrong, ``code`` and ``details``
    say it to a script (``--json``) in the API's error shape."""

    def __init__(self, message: str, *, code: str = "usage", details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.details = details or {}


class _Parser(argparse.ArgumentParser):
    """Wrong arguments raise :class:`Usage` instead of ending the process, so that ``--json``
    gets its JSON error for them too."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise Usage(f"{message} (see: {self.prog} --help)")


def _error(
    as_json: bool, message: str, code: str, details: Any, status: int, exit_code: int
) -> int:
    """Say a failure on standard error and, with ``--json``, as one JSON object on standard
    output: the scripts read the reasons (a refused upload's per-condition messages) there."""
    print(f"trackboard: {message}", file=sys.stderr)
    if as_json:
        error = {"code": code, "message": message, "details": details or {}}
        _print_json({"error": error, "status": status or None, "exit_code": exit_code})
    return exit_code


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in words
    parser = _parser()
    _complete(parser)
    args: argparse.Namespace | None = None
    try:
        args = parser.parse_args(words)
        as_json = bool(getattr(args, "json", False))
        code = int(args.handler(args))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader stopped early (``| head``): end quietly. Python would report the unwritten
        # output again when it flushes at exit, so standard output now goes nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return FAILED
    except Usage as exc:
        return _error(as_json, str(exc), exc.code, exc.details, 0, INVALID)
    except config.ConfigError as exc:
        return _error(as_json, str(exc), "not_logged_in", {}, 0, FAILED)
    except ApiError as exc:
        if exc.code == "invalid" and exc.details:
            for field, messages in exc.details.items():
                print(f"  {field}: {' '.join(map(str, messages))}", file=sys.stderr)
        for key, message in (exc.details.get("conditions") or {}).items():
            print(f"{key}: {message}", file=sys.stderr)
        # A refused upload (nothing charged) is invalid input.
        invalid = exc.code == "submission_rejected"
        error_code = exc.code or ("unreachable" if not exc.status else "error")
        hint = _new_token_hint(exc, args)
        details = {**exc.details, "hint": hint} if hint else exc.details
        exit_code = _error(
            as_json, str(exc), error_code, details, exc.status, INVALID if invalid else FAILED
        )
        if hint:
            print(hint, file=sys.stderr)
        return exit_code
    except KeyboardInterrupt:
        return _error(as_json, "interrupted", "interrupted", {}, 0, 130)


#: The API's codes for a token that has expired (401) or may not do what was asked (403).
TOKEN_CODES = ("token_expired", "token_scope")


def _new_token_hint(exc: ApiError, args: argparse.Namespace | None) -> str:
    """After the site's message for an expired or too narrow token (which says where to renew
    it or make another), how to give this command the new one; empty for any other error."""
    if exc.code not in TOKEN_CODES:
        return ""
    url = str(getattr(args, "url", None) or "")  # ``login`` names the site
    try:
        url = url or config.load(getattr(args, "token", None) or "").url
    except config.ConfigError:
        url = "URL"
    renewed = "A renewed token keeps its key: just run the command again. " * (
        exc.code == "token_expired"
    )
    return (
        f"{renewed}To use a new token, run 'trackboard login --url {url}' and paste it "
        f"(or set {config.TOKEN_VARIABLE}, or pass --token)."
    )


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request (``trackboard completion``'s script sets
    ``_ARGCOMPLETE``) and end; any other run does not even import the library."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    argcomplete.autocomplete(parser)


#: the API's message for a path that names nothing (its own 404s say more, and are kept)
BARE_NOT_FOUND = "Not found."


@contextlib.contextmanager
def _naming(what: str, hint: str = "") -> Iterator[None]:
    """Turn the API's bare "Not found." into invalid input that names what was not found
    (exit code 2: the user named it); a 404 with the site's own message (a board this reader
    may not see) stays the site's refusal."""
    try:
        yield
    except ApiError as exc:
        if exc.status != 404 or str(exc) != BARE_NOT_FOUND:
            raise
        raise Usage(
            f"There is no {what} on this site{hint}.", code="not_found", details=exc.details
        ) from None


def _parser() -> argparse.ArgumentParser:
    # the module's first paragraph, as plain text (no reStructuredText literals)
    description = __doc__.split("\n\n")[0].replace("``", "")
    parser = _Parser(prog="trackboard", description=description)
    version = f"trackboard {__version__}"
    parser.add_argument("--version", action="version", version=version)
    # Every command that talks to the site takes it, after the command's name.
    common = _Parser(add_help=False)
    common.add_argument("--version", action="version", version=version)
    common.add_argument(
        "--allow-insecure-http",
        action="store_true",
        help="send the API token over plain http to a machine other than this one (only on a "
        "network you trust; also TRACKBOARD_ALLOW_INSECURE_HTTP=1)",
    )
    # ... and every command that sends the token takes another one.
    token = _Parser(add_help=False)
    token.add_argument(
        "--token",
        help="the API token to use this once (default: TRACKBOARD_TOKEN, else the one "
        "trackboard login stored)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, *, login: bool = False, **kwargs: Any) -> argparse.ArgumentParser:
        parents = [common] if login else [common, token]
        return commands.add_parser(name, parents=parents, description=kwargs["help"], **kwargs)

    login = command("login", login=True, help="store the site's URL and your API token")
    login.add_argument("--url", required=True, help="the site, e.g. https://trackboard.example")
    login.add_argument("--token", help="an API token from your profile page (else asked for)")
    login.add_argument("--json", action="store_true", help="print the site, teams and file as JSON")
    login.set_defaults(handler=cmd_login)

    challenges = command("challenges", help="list the challenges and their phases")
    challenges.add_argument("--json", action="store_true", help="print the API's JSON")
    challenges.set_defaults(handler=cmd_challenges)

    sample = command("sample", help="download each condition's sample submission (empty states)")
    sample.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    sample.add_argument("--condition", help="one condition's sample (default: every condition)")
    sample.add_argument(
        "--output-dir", default=".", metavar="DIR", help="where to write the files (default: .)"
    )
    sample.add_argument("--json", action="store_true", help="print what was written as JSON")
    sample.set_defaults(handler=cmd_sample)

    submit = command("submit", help="check and upload prediction files")
    submit.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    submit.add_argument(
        "--file",
        action="append",
        required=True,
        metavar="CONDITION=PATH",
        help="a prediction file for one condition (repeat for each condition)",
    )
    submit.add_argument(
        "--method",
        default="",
        help="method name shown on the leaderboard (default: the first file's name, said so)",
    )
    submit.add_argument("--description", default="", help="a description of the method")
    submit.add_argument("--paper-url", default="", help="a paper or code URL")
    submit.add_argument("--team", default="", help="team slug (when you are in several)")
    submit.add_argument(
        "--fact",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="what the challenge asks about your system, e.g. --fact asr=Whisper "
        "(repeat for each; the challenge's submit page lists what it asks)",
    )
    submit.add_argument("--wait", action="store_true", help="wait until it is scored")
    submit.add_argument(
        "--interval",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="with --wait: seconds between checks (default: 2)",
    )
    submit.add_argument(
        "--timeout",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="with --wait: give up waiting after this long (default: 3600)",
    )
    submit.add_argument(
        "--json",
        action="store_true",
        help="print the submission as JSON (progress goes to standard error)",
    )
    submit.set_defaults(handler=cmd_submit)

    status = command("status", help="your recent submissions, or one of them")
    status.add_argument(
        "id", nargs="?", type=int, metavar="ID", help="one submission (default: the 20 latest)"
    )
    status.add_argument("--json", action="store_true", help="print the API's JSON")
    status.set_defaults(handler=cmd_status)

    board = command("leaderboard", help="a phase's ranking")
    board.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    board.add_argument("--condition", help="one condition's ranking (default: the overview)")
    board.add_argument("--json", action="store_true", help="print JSON")
    board.set_defaults(handler=cmd_leaderboard)

    table = command("table", help="a phase's results as a LaTeX or Markdown table")
    table.add_argument("phase", metavar="PHASE", help="phase id, or challenge-slug/phase-slug")
    table.add_argument(
        "--format", choices=("latex", "markdown"), default="latex", help="default: latex"
    )
    table.add_argument(
        "--board",
        choices=("public", "final"),
        help="the live public board or the published snapshot (default: the snapshot once "
        "published, else the public board)",
    )
    table.add_argument("--snapshot", type=int, metavar="N", help="a published snapshot's number")
    table.add_argument("--conditions", help="condition keys, comma-separated (default: all)")
    table.add_argument(
        "--metrics", help="metric names, comma-separated (default: the primary and the next)"
    )
    table.add_argument(
        "--rank-intervals",
        action="store_true",
        help="start each condition with the rank and its 95%% interval",
    )
    table.add_argument("--json", action="store_true", help="print the API's JSON")
    table.add_argument(
        "--per-condition",
        action="store_true",
        help="each condition's column is the team's best there (default: one line per "
        "system, the team's overview submission on every condition)",
    )
    table.set_defaults(handler=cmd_table)

    results = command("results", help="one submission's scores")
    results.add_argument("id", type=int, metavar="ID", help="the submission's id")
    results.add_argument("--json", action="store_true", help="print the API's JSON")
    results.set_defaults(handler=cmd_results)

    team = command("team", help="create, join, leave and show your teams")
    team_commands = team.add_subparsers(
        dest="team_command",
        required=True,
        metavar="ACTION",
        help="create, join, leave, show or invite",
    )

    def team_command(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        found = team_commands.add_parser(name, parents=[common, token], **kwargs)
        found.add_argument("--json", action="store_true", help="print the API's JSON")
        return found

    create = team_command("create", help="create a team (you become its owner)")
    create.add_argument("name", metavar="NAME", help="the team's name, as the boards show it")
    create.set_defaults(handler=cmd_team_create)
    join = team_command("join", help="join a team with the invite code a member shared")
    join.add_argument("slug", metavar="SLUG", help="the team's slug")
    join.add_argument("code", metavar="CODE", help="its invite code")
    join.set_defaults(handler=cmd_team_join)
    leave = team_command("leave", help="leave one of your teams")
    leave.add_argument("slug", metavar="SLUG", help="the team's slug")
    leave.set_defaults(handler=cmd_team_leave)
    show = team_command("show", help="your teams and their registrations")
    show.set_defaults(handler=cmd_team_show)
    invite = team_command("invite", help="a team's invite code and link, to share")
    invite.add_argument("slug", metavar="SLUG", help="the team's slug")
    invite.add_argument(
        "--new", action="store_true", help="replace the code (owners; the old one stops working)"
    )
    invite.set_defaults(handler=cmd_team_invite)

    register = command("register", help="register a team for a challenge, or see its state")
    register.add_argument("challenge", metavar="CHALLENGE", help="the challenge's slug")
    register.add_argument("--team", default="", help="team slug (needed to register)")
    register.add_argument(
        "--state", action="store_true", help="only show your teams' registrations"
    )
    register.add_argument("--json", action="store_true", help="print the API's JSON")
    register.set_defaults(handler=cmd_register)

    completion = command("completion", login=True, help="print a shell's completion script")
    completion.add_argument("shell", choices=("bash", "zsh"), help="the shell: bash or zsh")
    completion.add_argument("--json", action="store_true", help='print {"shell", "script"} as JSON')
    completion.set_defaults(handler=cmd_completion)
    return parser


# --- helpers -------------------------------------------------------------------------------


def _client(args: argparse.Namespace) -> Client:
    settings = config.load(args.token or "")
    return Client(settings.url, settings.token, allow_http=args.allow_insecure_http)


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print(line.rstrip())


def _num(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "-"


def _ci(interval: Any) -> str:
    if not isinstance(interval, list | tuple) or len(interval) != 2:
        return ""
    low, high = interval
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return ""
    return f"[{low:.2f}, {high:.2f}]"


def _phase_path(submission: dict[str, Any]) -> str:
    phase = submission.get("phase") or {}
    return f"{phase.get('challenge', '?')}/{phase.get('slug', '?')}"


def _find_phase(client: Client, phase_id: int) -> tuple[str, dict[str, Any]]:
    """(challenge slug, phase) of the phase with this id, from the list of challenges."""
    for challenge in client.get_all("challenges/"):
        for phase in challenge.get("phases") or []:
            if phase.get("id") == phase_id:
                return challenge["slug"], phase
    raise Usage(
        f"there is no phase {phase_id} on this site (see: trackboard challenges)", code="not_found"
    )


def _resolve_phase(client: Client, text: str, *, challenge: bool = True) -> dict[str, Any]:
    """``{"id", "challenge", "phase"}`` for a phase id or ``challenge-slug/phase-slug``; the
    challenge (with its ``scoring`` block) is fetched unless ``challenge`` is false."""
    if text.isascii() and text.isdigit():
        if not challenge:
            return {"id": int(text), "challenge": None, "phase": None}
        slug, phase = _find_phase(client, int(text))
        with _naming(f"challenge {slug!r}"):
            found = client.get(f"challenges/{slug}/")
        # the challenge's own entry of the phase carries its conditions
        detail = [p for p in found.get("phases") or [] if p.get("id") == int(text)]
        return {"id": int(text), "challenge": found, "phase": detail[0] if detail else phase}
    challenge_slug, _, phase_slug = text.partition("/")
    if not challenge_slug or not phase_slug:
        raise Usage(f"PHASE must be a phase id or challenge-slug/phase-slug, not {text!r}")
    with _naming(f"challenge {challenge_slug!r}", " (see: trackboard challenges)"):
        found = client.get(f"challenges/{challenge_slug}/")
    for phase in found.get("phases") or []:
        if phase.get("slug") == phase_slug:
            return {"id": phase["id"], "challenge": found, "phase": phase}
    known = ", ".join(p.get("slug", "?") for p in found.get("phases") or []) or "none"
    raise Usage(
        f"challenge {challenge_slug!r} has no phase {phase_slug!r} (phases: {known})",
        code="not_found",
    )


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
    # checks the URL and the token (and that it may go there)
    teams = list(Client(url, token, allow_http=args.allow_insecure_http).get_all("teams/mine/"))
    path = config.save(config.Config(url=url, token=token))
    if args.json:
        _print_json({"url": url, "teams": teams, "config": str(path)})
        return OK
    names = ", ".join(t["name"] for t in teams) or "no team yet"
    print(f"Logged in to {url} (teams: {names}). Token saved in {path}.")
    return OK


def cmd_challenges(args: argparse.Namespace) -> int:
    challenges = list(_client(args).get_all("challenges/"))
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


def cmd_sample(args: argparse.Namespace) -> int:
    client = _client(args)
    found = _resolve_phase(client, args.phase)
    conditions = found["phase"].get("conditions") or []
    if args.condition:
        conditions = [c for c in conditions if c.get("key") == args.condition]
        if not conditions:
            known = ", ".join(c.get("key", "?") for c in found["phase"].get("conditions") or [])
            raise Usage(
                f"the phase has no condition {args.condition!r} (conditions: {known})",
                code="not_found",
            )
    folder = Path(args.output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"{found['challenge']['slug']}-{found['phase']['slug']}"
    written = []
    for condition in conditions:
        data = client.download(condition["sample"])
        path = folder / f"{prefix}-{condition['key']}-sample.json"
        path.write_bytes(data)
        written.append({"condition": condition["key"], "path": str(path), "bytes": len(data)})
    if args.json:
        _print_json(written)
        return OK
    for row in written:
        print(f"{row['condition']}: {row['path']} ({row['bytes']:,} bytes)")
    print(
        "Each file lists every dialogue and user turn with an empty state: fill in your "
        "states, then upload with: trackboard submit "
        + args.phase
        + " "
        + " ".join(f"--file {r['condition']}={r['path']}" for r in written)
        + " --method NAME"
    )
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


def _parse_facts(specs: Sequence[str]) -> dict[str, str]:
    """``--fact KEY=VALUE`` options as the upload's ``fact.KEY`` fields (the site checks
    them)."""
    facts: dict[str, str] = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise Usage(f"--fact takes KEY=VALUE, e.g. asr=Whisper (got {spec!r})")
        if key.strip() in facts:
            raise Usage(f"fact {key.strip()!r} is given twice")
        facts[key.strip()] = value.strip()
    return facts


def _checker(challenge: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    """(task, options) to check files with, from the challenge's ``scoring`` block; None (and
    a note) when this installation cannot check them as the server does."""
    block = challenge.get("scoring") or {}
    task, options = block.get("task"), block.get("options") or {}
    try:
        local_task(str(task), options)
    except ScoringError as exc:
        print(
            f"trackboard: the files are not checked here ({exc}); the server checks them.",
            file=sys.stderr,
        )
        return None
    return str(task), options


def _invalid_files(
    files: dict[str, Path], checker: tuple[str, dict[str, str]] | None
) -> dict[str, str]:
    """Check each file with the challenge's task (``_checker``); report each verdict and
    return the invalid files' messages by condition. Without a checker only readability is
    checked."""
    invalid: dict[str, str] = {}
    for key, path in files.items():
        if checker is None:
            if not path.is_file():
                invalid[key] = f"{path}: no such file."
                print(f"{key}: {invalid[key]}", file=sys.stderr)
            continue
        try:
            found = check_file(path, *checker)
        except ScoringError as exc:  # the server's own message
            invalid[key] = str(exc)
            print(f"{key}: {exc}", file=sys.stderr)
        else:
            print(f"{key}: {path.name} looks valid ({found}).")
    return invalid


def _condition_problems(files: dict[str, Path], phase: dict[str, Any]) -> list[str]:
    """What is wrong with the files' condition keys for ``phase``: keys it does not have, and
    conditions left out when it needs every one. Nothing when the site does not list them."""
    if "conditions" not in phase:
        return []
    keys = [str(c.get("key")) for c in phase.get("conditions") or []]
    known = ", ".join(keys) or "none"
    problems = [
        f"the phase has no condition {key!r} (its conditions: {known})"
        for key in files
        if key not in keys
    ]
    missing = [key for key in keys if key not in files]
    if missing and not phase.get("allow_partial"):
        problems.append(
            "the phase needs a file for every condition; missing: "
            + ", ".join(f"--file {key}=PATH" for key in missing)
        )
    return problems


def method_name(args: argparse.Namespace, files: dict[str, Path]) -> str:
    """``--method``, or else the first file's name without its extension, said aloud: the
    leaderboard shows it, so it must never be a name the participant did not choose unseen."""
    if args.method.strip():
        return str(args.method).strip()
    name = next(iter(files.values())).stem
    print(
        f"trackboard: no --method given; the method is named {name!r} after the file "
        f"(the leaderboard shows it). Pass --method NAME to choose it.",
        file=sys.stderr,
    )
    return name


def cmd_submit(args: argparse.Namespace) -> int:
    """With ``--json`` the progress goes to standard error and standard output gets the
    submission as the API last returned it (after ``--wait``: scored, failed ...)."""
    if not args.json:
        return _submit(args)[0]
    with contextlib.redirect_stdout(sys.stderr):
        code, submission = _submit(args)
    _print_json(submission)
    return code


def _submit(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    files = _parse_files(args.file)
    facts = _parse_facts(args.fact)
    client = _client(args)
    target = _resolve_phase(client, args.phase)
    problems = _condition_problems(files, target["phase"] or {})
    for problem in problems:
        print(f"trackboard: {problem}", file=sys.stderr)
    invalid = {} if problems else _invalid_files(files, _checker(target["challenge"]))
    if problems or invalid:
        raise Usage(
            "Nothing was uploaded; fix the files above.",
            code="invalid_files",
            details={"problems": problems, "conditions": invalid},
        )
    fields = {
        "method_name": method_name(args, files),
        "method_description": args.description,
        "url": args.paper_url,
        "team": args.team,
        **{f"fact.{key}": value for key, value in facts.items()},
    }
    try:
        with _naming(f"phase {args.phase}"):
            submission = _upload(client, f"phases/{target['id']}/submissions/", fields, files)
    except OSError as exc:  # a file that could not be read after all
        raise Usage(f"cannot read {exc.filename}: {exc.strerror}", code="invalid_files") from None
    print(f"Submission {submission['id']} received ({submission['status']}).")
    if not args.wait:
        print(f"Follow it with: trackboard status {submission['id']}")
        return OK, submission
    return _wait(client, submission, args.interval, args.timeout)


#: statuses (0: no answer at all) after which the upload is sent again, with the same key
RETRIED = (0, 502, 503, 504)
UPLOAD_ATTEMPTS = 3


def _upload(
    client: Client, path: str, fields: dict[str, str], files: dict[str, Path]
) -> dict[str, Any]:
    """POST the upload, and again (up to three times in all) when no answer came back or the
    site was briefly unavailable. Every attempt carries the same idempotency key, so an upload
    the site stored before its reply was lost is answered with the stored submission, not
    stored twice."""
    key = secrets.token_hex(16)
    for attempt in range(1, UPLOAD_ATTEMPTS + 1):
        try:
            answer: dict[str, Any] = client.post_multipart(path, fields, files, key)
            return answer
        except ApiError as exc:
            if exc.status not in RETRIED or attempt == UPLOAD_ATTEMPTS:
                raise
            print(f"trackboard: {exc} Sending the upload again (same key).", file=sys.stderr)
            time.sleep(RETRY_PAUSE * attempt)
    raise AssertionError("unreachable")


def _wait(
    client: Client, submission: dict[str, Any], interval: float, timeout: float
) -> tuple[int, dict[str, Any]]:
    """Print each change of status until the submission is final; plain lines, no TUI."""
    started = time.monotonic()
    shown = ""
    hiccup = False
    while True:
        status = str(submission.get("status", "?"))
        attempt = f" (attempt {submission.get('attempts', '?')})" if status == "scoring" else ""
        line = status + attempt
        if line != shown:
            print(f"[{time.monotonic() - started:6.1f} s] submission {submission['id']}: {line}")
            sys.stdout.flush()
            shown = line
        if status in FINAL:
            break
        if time.monotonic() - started > timeout:
            print(f"Still {status} after {timeout:.0f} s; check later with trackboard status.")
            return FAILED, submission
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
        if status == "invalid":
            print(
                f"trackboard: submission {submission['id']} was not accepted: the scorer "
                "refused a file. It does not count against your quota.",
                file=sys.stderr,
            )
        if submission.get("error"):
            print(submission["error"], file=sys.stderr)
        return (INVALID if status == "invalid" else FAILED), submission
    _print_results(submission)
    return OK, submission


def _metric(result: dict[str, Any], name: str) -> dict[str, Any]:
    found = (result.get("metrics") or {}).get(name)
    return found if isinstance(found, dict) else {}


def _print_results(submission: dict[str, Any]) -> None:
    """Every metric of the task per condition, with its interval where it has one, as far as
    the server shows them: everything, the public part of the split only, or nothing."""
    results = {k: r for k, r in (submission.get("results") or {}).items() if isinstance(r, dict)}
    if not submission.get("results_visible"):
        print("Scored. The results of this phase are hidden until the organisers reveal them.")
        return
    if not results:
        print("Scored. No results on the current references yet.")
        return
    labels = {m.get("name"): m.get("label") for m in submission.get("metrics") or []}
    names: list[str] = []
    for result in results.values():
        names += [name for name in result.get("metrics") or {} if name not in names]
    with_ci = {n for n in names if any(_metric(r, n).get("ci") for r in results.values())}
    level = submission.get("ci_level")
    ci_header = f"{level * 100:g}% CI" if isinstance(level, int | float) else "CI"
    # A split phase whose every number may be seen: the whole reference and each part, named.
    split = any(isinstance(r.get("parts"), dict) for r in results.values())
    header = ["CONDITION", *(["PART"] if split else [])]
    for name in names:
        header += [labels.get(name) or name, *([ci_header] if name in with_ci else [])]
    rows = []
    for key, result in results.items():
        parts = found if isinstance(found := result.get("parts"), dict) else {}
        shown = [("whole", result.get("metrics") or {})] + [
            (part, parts[part]) for part in ("public", "private") if split and part in parts
        ]
        for part, metrics in shown:
            row = [key, *([part] if split else [])]
            for name in names:
                metric = found if isinstance(found := metrics.get(name), dict) else {}
                row.append(_num(metric.get("value")))
                if name in with_ci:
                    row.append(_ci(metric.get("ci")))
            rows.append(row)
    if any(r.get("part") == "public" for r in results.values()):
        print("Public part of the split only; the rest is hidden until the organisers reveal it.")
    _table(header, rows)
    if split:
        print(
            "PART: whole = the whole reference; public = the part the live leaderboard ranks; "
            "private = the part the final ranking ranks."
        )
    for signature in sorted({str(r["signature"]) for r in results.values() if r.get("signature")}):
        print(f"signature: {signature}")


def cmd_status(args: argparse.Namespace) -> int:
    client = _client(args)
    if args.id is not None:
        with _naming(f"submission {args.id} of your teams"):
            submission = client.get(f"submissions/{args.id}/")
        if args.json:
            _print_json(submission)
            return OK
        team = (submission.get("team") or {}).get("name", "?")
        print(f"Submission {submission.get('id', args.id)}: {submission.get('status', '?')}")
        print(f"  phase: {_phase_path(submission)}")
        print(f"  team: {team}; method: {submission.get('method_name', '')}")
        print(
            f"  attempts: {submission.get('attempts', '?')}; "
            f"created: {submission.get('created_at', '?')}"
        )
        if submission.get("error"):
            print(f"  error: {submission['error']}")
        if submission.get("status") == "scored":
            _print_results(submission)
        return OK
    page = client.get("submissions/", {"page_size": 20})
    if args.json:
        _print_json(page.get("results") or [])
        return OK
    rows = [
        [
            s.get("id", "?"),
            _phase_path(s),
            (s.get("team") or {}).get("name", "?"),
            s.get("method_name", ""),
            s.get("status", "?"),
            str(s.get("created_at") or "")[:16].replace("T", " "),
        ]
        for s in page.get("results") or []
    ]
    if not rows:
        print("No submissions yet.")
        return OK
    _table(["ID", "PHASE", "TEAM", "METHOD", "STATUS", "CREATED (UTC)"], rows)
    return OK


def cmd_leaderboard(args: argparse.Namespace) -> int:
    client = _client(args)
    target = _resolve_phase(client, args.phase, challenge=False)
    params = {"condition": args.condition, "page_size": 200}
    with _naming(f"phase {args.phase}"):
        first = client.get(f"phases/{target['id']}/leaderboard/", params)
    rows = list(first.get("results") or [])
    page = first
    while page.get("next"):
        page = client.get(page["next"])
        rows.extend(page.get("results") or [])
    metrics = [m for m in first.get("metrics") or [] if isinstance(m, dict) and m.get("name")]
    if args.json:
        _print_json(
            {
                "phase": first.get("phase"),
                "primary_metric": first.get("primary_metric"),
                "part": first.get("part"),
                "metrics": metrics,
                "condition": first.get("condition"),
                "conditions": [c.get("key") for c in first.get("conditions") or []],
                "ladder": first.get("ladder"),
                "detectable_difference": first.get("detectable_difference"),
                "results": rows,
            }
        )
        return OK
    condition = first.get("condition")
    title = condition or "overview (mean over conditions)"
    phase = first.get("phase") or {}
    print(f"{phase.get('challenge', '?')}/{phase.get('slug', '?')}: {title}")
    if first.get("part") == "public":
        print("Ranked on the public part of the split.")
    if first.get("ladder"):
        print("Scores as the Ladder shows them (they move only on a significant improvement).")
    if not rows:
        print("No scored submissions yet.")
        return OK
    # A condition's board: every column, each with its interval, and the rank groups; the
    # overview: the means of the first two.
    shown = metrics if condition else metrics[:2]
    values_of = [((r.get("metrics") or {}) if condition else (r.get("means") or {})) for r in rows]
    with_ci = {
        m["name"]
        for m in shown
        if any(
            isinstance(v.get(m["name"]), dict) and _ci(v[m["name"]].get("ci")) for v in values_of
        )
    }
    grouped = bool(condition) and any(row.get("group") for row in rows)
    table = []
    for row, values in zip(rows, values_of, strict=True):
        cells = []
        for metric in shown:
            value = values.get(metric["name"])
            found = value if isinstance(value, dict) else {"value": value}
            cells.append(_num(found.get("value")))
            if metric["name"] in with_ci:
                cells.append(_ci(found.get("ci")))
        team = (row.get("team") or {}).get("name", "?")
        scored = row.get("submissions")
        group = [row.get("group") or "-"] if grouped else []
        table.append(
            [row.get("rank", "?"), _rank_interval(row.get("rank_interval")), *group, team,
             row.get("method_name", ""), *cells, "" if scored is None else scored]
        )  # fmt: skip
    labels: list[str] = []
    for metric in shown:
        labels += [
            metric.get("label") or metric["name"],
            *(["95% CI"] * (metric["name"] in with_ci)),
        ]
    group_header = ["GROUP"] if grouped else []
    _table(["RANK", "95% RANKS", *group_header, "TEAM", "METHOD", *labels, "SCORED"], table)
    if any(row.get("rank_interval") for row in rows):
        print("95% ranks: where the entry ranks in 95% of resamples of the dialogues.")
    if grouped:
        print("GROUP: the ranks of the entries it is statistically tied with (rank groups).")
    primary = next((m for m in metrics if m.get("primary")), metrics[0] if metrics else {})
    label = primary.get("label") or primary.get("name") or "primary metric"
    for key, found in (first.get("detectable_difference") or {}).items():
        if not isinstance(found, dict):
            continue
        where = f"{key}: " if not condition else ""
        if isinstance(found.get("value"), int | float):
            print(
                f"{where}differences under {found['value']:.2f} {label} points are not "
                "resolvable on this test set (80% power, two-sided 0.05)."
            )
        elif found.get("note"):
            print(f"{where}{found['note']}")
    return OK


def _rank_interval(interval: Any) -> str:
    """``2-5`` (``3`` for a single rank) from the API's ``rank_interval``."""
    if not isinstance(interval, list | tuple) or len(interval) != 2:
        return "-"
    low, high = interval
    if not isinstance(low, int) or not isinstance(high, int):
        return "-"
    return str(low) if low == high else f"{low}-{high}"


def cmd_table(args: argparse.Namespace) -> int:
    client = _client(args)
    target = _resolve_phase(client, args.phase, challenge=False)
    params = {
        "as": args.format,
        "board": args.board,
        "snapshot": args.snapshot,
        "conditions": args.conditions,
        "metrics": args.metrics,
        "rank_intervals": "yes" if args.rank_intervals else None,
        "view": "per-condition" if args.per_condition else None,
    }
    with _naming(f"phase {args.phase}"):
        found = client.get(f"phases/{target['id']}/table/", params)
    if args.json:
        _print_json(found)
        return OK
    sys.stdout.write(str(found.get("table") or ""))
    return OK


def cmd_results(args: argparse.Namespace) -> int:
    with _naming(f"submission {args.id} of your teams"):
        submission = _client(args).get(f"submissions/{args.id}/")
    if args.json:
        _print_json(submission)
        return OK
    status = submission.get("status", "?")
    method = submission.get("method_name", "")
    print(f"Submission {submission.get('id', args.id)} ({method}): {status}")
    if status != "scored":
        if submission.get("error"):
            print(submission["error"])
        return OK if status not in {"failed", "invalid"} else FAILED
    _print_results(submission)
    return OK


# --- teams and registration ----------------------------------------------------------------


def _registrations_line(team: dict[str, Any]) -> str:
    found = [f"{p.get('challenge', '?')} ({p.get('status', '?')})" for p in team["participations"]]
    return ", ".join(found) or "not registered for any challenge"


def cmd_team_create(args: argparse.Namespace) -> int:
    team = _client(args).post("teams/", {"name": args.name})
    if args.json:
        _print_json(team)
        return OK
    print(f"Created {team['name']} (slug {team['slug']}); you are its owner.")
    print(f"Invite teammates with the code from: trackboard team invite {team['slug']}")
    print(f"Register it with: trackboard register CHALLENGE --team {team['slug']}")
    return OK


def cmd_team_join(args: argparse.Namespace) -> int:
    team = _client(args).post(f"teams/{args.slug}/join/", {"invite_code": args.code})
    if args.json:
        _print_json(team)
        return OK
    print(f"You are in {team['name']} ({team['role']}); {_registrations_line(team)}.")
    return OK


def cmd_team_leave(args: argparse.Namespace) -> int:
    _client(args).post(f"teams/{args.slug}/leave/")
    if args.json:
        _print_json({"team": args.slug, "left": True})
        return OK
    print(f"You left {args.slug}.")
    return OK


def cmd_team_show(args: argparse.Namespace) -> int:
    teams = list(_client(args).get_all("teams/mine/"))
    if args.json:
        _print_json(teams)
        return OK
    if not teams:
        print("You are in no team yet; create one with: trackboard team create NAME")
        return OK
    rows = [[t["slug"], t["name"], t["role"], _registrations_line(t)] for t in teams]
    _table(["TEAM", "NAME", "ROLE", "REGISTERED FOR"], rows)
    return OK


def cmd_team_invite(args: argparse.Namespace) -> int:
    client = _client(args)
    path = f"teams/{args.slug}/invite/"
    invite = client.post(path) if args.new else client.get(path)
    if args.json:
        _print_json(invite)
        return OK
    print(f"Invite code of {invite['team']['name']}: {invite['invite_code']}")
    print(f"Link: {invite['invite_url']}")
    code = invite["invite_code"]
    # "--" ends the options: a code made before codes were letters and digits may start with "-"
    separator = "-- " if code.startswith("-") else ""
    print(f"Or, from the command line: trackboard team join {args.slug} {separator}{code}")
    return OK


#: What a registration's state means, as the command says it.
STATES = {
    "approved": "approved: its members may submit",
    "pending": "pending: an organiser will approve it",
    "rejected": "declined by the organisers",
    "unregistered": "not registered",
}


def cmd_register(args: argparse.Namespace) -> int:
    """Register ``--team`` for the challenge and print the registration's state; with
    ``--state`` (or without ``--team``) print every team's state only."""
    if not args.state and not args.team:
        raise Usage("name the team to register with --team SLUG (or pass --state)")
    client = _client(args)
    if args.state:
        rows = client.get(f"challenges/{args.challenge}/registrations/")
        if args.json:
            _print_json(rows)
            return OK
        if not rows:
            print("You are in no team yet; create one with: trackboard team create NAME")
            return OK
        wanted = [r for r in rows if not args.team or r["team"]["slug"] == args.team]
        _table(
            ["TEAM", "NAME", "REGISTRATION"],
            [[r["team"]["slug"], r["team"]["name"], STATES.get(r["status"], r["status"])]
             for r in wanted],
        )  # fmt: skip
        return OK
    registration = client.post(f"challenges/{args.challenge}/register/", {"team": args.team})
    if args.json:
        _print_json(registration)
        return OK
    status = registration["status"]
    print(
        f"{registration['team']['name']} is registered for {args.challenge} "
        f"({STATES.get(status, status)})."
    )
    return OK


def cmd_completion(args: argparse.Namespace) -> int:
    """The script that makes the shell complete ``trackboard``'s commands and options: it asks
    the command itself, so it always knows this version's options."""
    import argcomplete

    script = argcomplete.shellcode(["trackboard"], shell=args.shell)
    if args.json:
        _print_json({"shell": args.shell, "script": script})
        return OK
    sys.stdout.write(script)
    return OK


if __name__ == "__main__":
    sys.exit(main())
