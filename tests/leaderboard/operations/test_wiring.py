"""Every way of running the site is wired from the declaration of background work
(``leaderboard.background``): ``scripts/run``, ``scripts/serve``, ``docker/compose.yml`` and
``deploy/kubernetes/`` each run Celery workers that, together, consume every queue the site
sends to under that deployment's own settings, and each trusts exactly the proxies in front of
the app. Read from the files themselves, as an operator would run them; a deployment that drops
a queue (the mail's, say) fails, naming the deployment and the queue nobody takes."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import pytest
import yaml

from leaderboard import background
from tests.conftest import ROOT

#: What each deployment puts in front of the app, and so how many proxies it must trust (each
#: appends the address it received the connection from to X-Forwarded-For):
#: scripts/run: none (the development server answers the client itself); scripts/serve: nginx;
#: compose: the host's HTTPS proxy and nginx (docs/operators.md); Kubernetes: the ingress and
#: nginx.
PROXIES = {"scripts/run": 0, "scripts/serve": 1, "compose": 2, "kubernetes": 2}

QUEUE_SETTINGS = {
    "TRACKBOARD_QUEUE": "CELERY_TASK_DEFAULT_QUEUE",
    "TRACKBOARD_RESCORE_QUEUE": "CELERY_RESCORE_QUEUE",
    "TRACKBOARD_BOARD_QUEUE": "CELERY_BOARD_QUEUE",
    "TRACKBOARD_MAIL_QUEUE": "CELERY_MAIL_QUEUE",
}
DEFAULTS = {
    "CELERY_TASK_DEFAULT_QUEUE": "trackboard",
    "CELERY_RESCORE_QUEUE": "",
    "CELERY_BOARD_QUEUE": "",
    "CELERY_MAIL_QUEUE": "",
}


@dataclass
class Deployment:
    name: str
    #: the environment the site's processes get (only the variables this test reads)
    env: dict[str, str]
    #: each Celery worker's arguments after ``worker``
    workers: list[list[str]]


def _defaults(text: str) -> str:
    """``${NAME:-default}`` and ``${NAME-default}`` as their defaults; ``${NAME}`` and
    ``$NAME`` as empty: the deployment as it runs with nothing set."""
    text = re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}", r"\1", text)
    return re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "", text)


def _worker_arguments(argv: list[str]) -> list[str] | None:
    """The arguments after ``celery ... worker`` (None: not a Celery worker)."""
    names = [part.rsplit("/", 1)[-1] for part in argv]
    if "celery" not in names or "worker" not in names[names.index("celery") :]:
        return None
    return argv[names.index("worker", names.index("celery")) + 1 :]


def _shell_commands(text: str) -> Iterator[list[str]]:
    """Each logical line of a shell script or configuration (continuations joined), split as
    the shell splits it, with variables at their defaults."""
    for line in re.sub(r"\\\n", " ", text).splitlines():
        line = line.split("=", 1)[1] if line.lstrip().startswith("command=") else line
        try:
            yield shlex.split(_defaults(line), comments=True)
        except ValueError:
            continue


def _script(name: str) -> Deployment:
    text = (ROOT / name).read_text()
    workers = [
        args for argv in _shell_commands(text) if (args := _worker_arguments(argv)) is not None
    ]
    env = dict(re.findall(r'(TRACKBOARD_[A-Z_]+)="?\$\{TRACKBOARD_[A-Z_]+:-([^}"]*)\}', text))
    return Deployment(name, env, workers)


def _compose() -> Deployment:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    example = (ROOT / "docker" / ".env.example").read_text()
    env = dict(re.findall(r"^([A-Z][A-Z0-9_]*)=(.*)$", example, re.MULTILINE))
    workers = []
    for service in compose["services"].values():
        command = service.get("command")
        if isinstance(command, list):
            args = _worker_arguments([_defaults(part) for part in command])
            if args is not None:
                workers.append(args)
    return Deployment("compose", env, workers)


def _kubernetes() -> Deployment:
    env: dict[str, str] = {}
    workers = []
    for path in sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if not doc:
                continue
            if doc["kind"] == "ConfigMap" and doc["metadata"]["name"] == "trackboard":
                env.update({k: str(v) for k, v in doc["data"].items()})
            if doc["kind"] in {"Deployment", "StatefulSet", "DaemonSet"}:
                for container in doc["spec"]["template"]["spec"]["containers"]:
                    argv = [*container.get("command", []), *container.get("args", [])]
                    args = _worker_arguments(argv)
                    if args is not None:
                        workers.append(args)
    return Deployment("kubernetes", env, workers)


def _option(args: list[str], short: str, long: str) -> list[str] | None:
    """The comma-separated names of option ``-X``/``--exclude-queues`` (None: not given)."""
    found: list[str] | None = None
    for i, part in enumerate(args):
        value = None
        if part in (short, long) and i + 1 < len(args):
            value = args[i + 1]
        elif part.startswith(long + "="):
            value = part.split("=", 1)[1]
        elif part.startswith(short) and len(part) > len(short) and not part.startswith("--"):
            value = part[len(short) :]
        if value is not None:
            found = [*(found or []), *(name for name in value.split(",") if name)]
    return found


def consumed(args: list[str], declared: list[str]) -> set[str]:
    """The queues a worker started with ``args`` consumes: those of ``-Q``, else every
    declared queue but those of ``-X``."""
    chosen = _option(args, "-Q", "--queues")
    if chosen is not None:
        return set(chosen)
    return set(declared) - set(_option(args, "-X", "--exclude-queues") or [])


def problems(deployment: Deployment, settings: object) -> list[str]:
    """What is wrong with ``deployment``'s wiring: each declared queue no worker consumes,
    and a trusted-proxies setting other than the proxies in front of it."""
    values = {**DEFAULTS}
    for variable, name in QUEUE_SETTINGS.items():
        if deployment.env.get(variable):
            values[name] = deployment.env[variable]
    for name, value in values.items():
        setattr(settings, name, value)
    declared = background.queues()
    taken = set().union(*(consumed(args, declared) for args in deployment.workers))
    found = [
        f"{deployment.name}: no worker consumes the queue {queue!r}"
        for queue in declared
        if queue not in taken
    ]
    trusted = int(deployment.env.get("TRACKBOARD_TRUSTED_PROXIES") or 0)
    if trusted != PROXIES[deployment.name]:
        found.append(
            f"{deployment.name}: trusts {trusted} proxies (TRACKBOARD_TRUSTED_PROXIES), "
            f"has {PROXIES[deployment.name]} in front of the app"
        )
    return found


DEPLOYMENTS: Mapping[str, object] = {
    "scripts/run": lambda: _script("scripts/run"),
    "scripts/serve": lambda: _script("scripts/serve"),
    "compose": _compose,
    "kubernetes": _kubernetes,
}


@pytest.mark.parametrize("name", list(DEPLOYMENTS))
def test_every_deployment_consumes_every_declared_queue_and_trusts_its_proxies(name, settings):
    deployment = DEPLOYMENTS[name]()  # type: ignore[operator]
    assert deployment.workers, f"{name}: no Celery worker found"
    assert problems(deployment, settings) == []


def test_the_declaration_names_four_queues_and_routes_every_mail_to_the_mail_one(settings):
    settings.CELERY_TASK_DEFAULT_QUEUE = "q"
    settings.CELERY_RESCORE_QUEUE = "q-rescore"
    settings.CELERY_BOARD_QUEUE = "q-boards"
    settings.CELERY_MAIL_QUEUE = ""
    assert background.queues() == ["q", "q-rescore", "q-boards", "q-mail"]
    mail = {
        background.NOTIFY_TEAM,
        background.SEND_ACCOUNT_MAIL,
        background.MAIL_PENDING,
        background.MAIL_DECISION,
        background.MAIL_ANNOUNCEMENT,
        background.MAIL_ANNOUNCEMENT_TO,
    }
    for name in background.declared():
        assert (background.queue_of(name) == "q-mail") == (name in mail), name
    settings.CELERY_RESCORE_QUEUE = settings.CELERY_BOARD_QUEUE = ""
    assert background.queues() == ["q", "q-mail"]  # unset: on the scoring queue


def test_the_check_fails_on_a_deployment_that_drops_the_mail_queue(settings):
    """The test above can fail: compose without its mail worker, a Kubernetes worker that
    names only the scoring queue, scripts/run's worker told to take one queue, and a
    deployment that trusts no proxy behind nginx."""
    compose = _compose()
    compose.workers = [args for args in compose.workers if "--hostname=mail@%h" not in args]
    assert problems(compose, settings) == [
        "compose: no worker consumes the queue 'trackboard-mail'"
    ]
    kubernetes = _kubernetes()
    kubernetes.workers = [["-Q", "trackboard"]]
    assert problems(kubernetes, settings) == [
        f"kubernetes: no worker consumes the queue {queue!r}"
        for queue in ("trackboard-rescore", "trackboard-boards", "trackboard-mail")
    ]
    run = _script("scripts/run")
    run.workers = [[*args, "--queues", "trackboard"] for args in run.workers]
    assert problems(run, settings) == [
        "scripts/run: no worker consumes the queue 'trackboard-mail'"
    ]
    serve = _script("scripts/serve")
    serve.env["TRACKBOARD_TRUSTED_PROXIES"] = "0"
    assert problems(serve, settings) == [
        "scripts/serve: trusts 0 proxies (TRACKBOARD_TRUSTED_PROXIES), has 1 in front of the app"
    ]


def test_a_worker_started_without_queues_consumes_every_declared_one(settings):
    """What the deployments rely on: Celery's worker consumes ``task_queues`` when it is
    given no -Q, and leaderboard/celery.py sets them, and beat's schedule, from the
    declaration when a process first reads its configuration."""
    from celery import Celery

    from leaderboard import celery

    settings.CELERY_TASK_DEFAULT_QUEUE = "q"
    settings.CELERY_BOARD_QUEUE = "q-boards"
    fresh = Celery("wiring", set_as_current=False)
    fresh.on_after_configure.connect(celery._configure)
    assert [queue.name for queue in fresh.conf.task_queues] == ["q", "q-boards", "q-mail"]
    assert {entry["task"] for entry in fresh.conf.beat_schedule.values()} == {
        name for name, task in background.declared().items() if task.periodic
    }
