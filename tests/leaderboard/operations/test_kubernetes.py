"""deploy/kubernetes/: every manifest is valid against the Kubernetes API's schemas (no cluster
runs here, so a validator reads them against the published schemas, strictly: an unknown field
fails), and they mirror docker/compose.yml: the same image for every app container, the same
commands, probes on the health URLs the app serves, one beat, a worker per queue. The web
pools are ready on /readyz/web (never on workers or beat), nginx's probes are answered by
nginx itself (checked on a real nginx with no pool behind it), beat has compose's liveness
rule, and the readers' pool and nginx have disruption budgets."""

from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import subprocess
import time
from pathlib import Path

import kubernetes_validate
import pytest
import requests
import yaml
from django.http.request import validate_host
from django.urls import Resolver404, resolve

from leaderboard.operations.health import readyz_web
from tests.conftest import ROOT, require
from tests.leaderboard.operations.processes import DEADLINE, free_port
from tests.leaderboard.operations.test_docker import settings_variables

MANIFESTS = ROOT / "deploy" / "kubernetes"
NGINX_CONF = ROOT / "docker" / "nginx" / "nginx.conf"
#: nginx's own location, answered by nginx (docker/nginx/nginx.conf)
NGINX_LIVEZ = "/nginx/livez"
#: the oldest Kubernetes release still maintained upstream, and the newest the validator knows
VERSIONS = ("1.33.0", kubernetes_validate.latest_version())


def _documents() -> list[tuple[Path, dict]]:
    found = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        found += [(path, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return found


DOCUMENTS = _documents()


def _named(kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for _, d in DOCUMENTS if d["kind"] == kind}


def _container(workload: dict) -> dict:
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    return container


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "path,doc", DOCUMENTS, ids=[f"{p.name}:{d['metadata']['name']}" for p, d in DOCUMENTS]
)
def test_every_manifest_is_valid_for_kubernetes(path, doc, version):
    try:
        kubernetes_validate.validate(doc, version, strict=True)
    except kubernetes_validate.ValidationError as error:
        pytest.fail(f"{path.name}: {doc['kind']} {doc['metadata']['name']}: {error.message}")


def test_a_broken_manifest_is_refused():
    """The validator does refuse: a Deployment with a misspelt field and a string replica count."""
    (doc,) = (
        d for _, d in DOCUMENTS if d["kind"] == "Deployment" and d["metadata"]["name"] == "web"
    )
    broken = yaml.safe_load(yaml.safe_dump(doc))
    broken["spec"]["replica"] = broken["spec"].pop("replicas")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)
    broken = yaml.safe_load(yaml.safe_dump(doc))
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)


def test_everything_is_in_one_namespace_and_every_app_container_runs_one_image():
    assert set(_named("Namespace")) == {"trackboard"}
    # every app container (nginx has its own image, built on the app's)
    workloads = [
        w
        for w in [*_named("Deployment").values(), *_named("Job").values()]
        if w["metadata"]["name"] != "nginx"
    ]
    images = {_container(w)["image"] for w in workloads}
    assert len(images) == 1
    for _, doc in DOCUMENTS:
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == "trackboard", doc["metadata"]["name"]
    for workload in workloads:
        sources = _container(workload)["envFrom"]
        assert {"configMapRef": {"name": "trackboard"}} in sources
        assert {"secretRef": {"name": "trackboard"}} in sources
        assert workload["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == 10001


def test_the_settings_they_set_are_settings_the_app_reads():
    known = settings_variables() | {"WEB_CONCURRENCY", "WEB_THREADS"}  # read by gunicorn.py
    names = set(_named("ConfigMap")["trackboard"]["data"])
    names |= set(_named("Secret")["trackboard"]["stringData"])
    render = (ROOT / "docker" / "nginx" / "render").read_text()
    for name, workload in _named("Deployment").items():
        env = {e["name"] for e in _container(workload).get("env", [])}
        if name == "nginx":  # read by docker/nginx/render
            assert [v for v in env if not re.search(rf"\${{?{v}\b", render)] == []
        else:
            names |= env
    assert sorted(names - known) == []


def test_web_and_uploads_run_compose_s_server_with_probes_on_the_health_urls(compose):
    for name in ("web", "uploads"):
        container = _container(_named("Deployment")[name])
        assert container["command"] == compose["services"][name]["command"]
        assert _named("Service")[name]["spec"]["ports"][0]["targetPort"] == "http"
        for probe, path in (
            ("livenessProbe", "/livez"),
            ("readinessProbe", "/readyz/web"),
            ("startupProbe", "/livez"),
        ):
            http = container[probe]["httpGet"]
            assert http["path"] == path, (name, probe)
            assert {"name": "X-Forwarded-Proto", "value": "https"} in http["httpHeaders"]
            resolve(path)  # the app serves it


def test_web_and_uploads_are_ready_when_they_can_serve_not_when_workers_or_beat_run():
    """/readyz fails while workers are down or beat is being replaced: as a readiness probe it
    would take every web pod out of the Service (the whole site 502). /healthz fails with
    Redis. The web pools' readiness is /readyz/web: the database and migrations."""
    for name in ("web", "uploads"):
        path = _container(_named("Deployment")[name])["readinessProbe"]["httpGet"]["path"]
        assert path not in {"/readyz", "/healthz"}, name
        assert resolve(path).func is readyz_web, name


def test_the_web_probes_name_a_host_the_app_allows():
    """The kubelet's Host is the pod's IP, which ALLOWED_HOSTS refuses (400): each probe of
    web and uploads names a host of the ConfigMap's ALLOWED_HOSTS."""
    allowed = _named("ConfigMap")["trackboard"]["data"]["ALLOWED_HOSTS"].split(",")
    allowed = [host.strip() for host in allowed if host.strip()]
    for name in ("web", "uploads"):
        container = _container(_named("Deployment")[name])
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            headers = {h["name"]: h["value"] for h in container[probe]["httpGet"]["httpHeaders"]}
            assert validate_host(headers["Host"], allowed), (name, probe, headers)
    assert not validate_host("10.0.0.7", allowed)  # the pod's IP (the kubelet's default)


def test_the_config_trusts_the_ingress_and_nginx_as_proxies():
    assert _named("ConfigMap")["trackboard"]["data"]["TRACKBOARD_TRUSTED_PROXIES"] == "2"


def test_nginx_is_the_front_door_to_web_and_uploads(compose):
    nginx = _container(_named("Deployment")["nginx"])
    env = {e["name"]: e["value"] for e in nginx["env"]}
    services = _named("Service")
    for name in ("web", "uploads"):
        port = services[name]["spec"]["ports"][0]["port"]
        assert env[f"NGINX_{name.upper()}"] == f"{name}:{port}"
    for probe in ("livenessProbe", "readinessProbe"):
        assert nginx[probe]["httpGet"]["path"] == NGINX_LIVEZ, probe
    assert services["nginx"]["spec"]["ports"][0]["targetPort"] == "http"
    # the variables compose gives nginx, and the listen port of its image
    assert set(compose["services"]["nginx"]["environment"]) <= {
        *env,
        "TRACKBOARD_MAX_REQUEST_BYTES",
    }
    dockerfile = (ROOT / "docker" / "nginx.Dockerfile").read_text()
    assert f"NGINX_LISTEN={nginx['ports'][0]['containerPort']}" in dockerfile


def test_one_beat_a_worker_per_queue_and_the_migration_as_a_job(compose):
    deployments = _named("Deployment")
    beat = deployments["beat"]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"] == {"type": "Recreate"}
    assert _container(beat)["command"][:4] == compose["services"]["beat"]["command"][:4]
    config = _named("ConfigMap")["trackboard"]["data"]
    queues = {
        config[key]
        for key in (
            "TRACKBOARD_QUEUE",
            "TRACKBOARD_RESCORE_QUEUE",
            "TRACKBOARD_BOARD_QUEUE",
            "TRACKBOARD_MAIL_QUEUE",
        )
    }
    read = set()
    for name, deployment in deployments.items():
        command = _container(deployment).get("command", [])
        if command[:4] == ["celery", "-A", "leaderboard", "worker"]:
            read.add(command[command.index("-Q") + 1])
            assert "exec" in _container(deployment)["livenessProbe"], name
    assert read == queues
    (job,) = _named("Job").values()
    assert _container(job)["command"] == compose["services"]["migrate"]["command"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"


def test_nginx_s_probes_are_answered_by_nginx_itself(compose):
    """The location exists in nginx.conf as an exact match that returns 200 (never proxied,
    never cached), the app serves no such path, and compose's health check and the image's use
    it too."""
    block = re.search(rf"location = {re.escape(NGINX_LIVEZ)} {{(.*?)}}", NGINX_CONF.read_text(),
                      re.S)  # fmt: skip
    assert block, f"no exact location {NGINX_LIVEZ} in nginx.conf"
    body = block.group(1)
    assert re.search(r"^\s*return 200\b", body, re.M)
    assert "proxy_pass" not in body and "proxy_cache" not in body
    with pytest.raises(Resolver404):
        resolve(NGINX_LIVEZ)
    check = compose["services"]["nginx"]["healthcheck"]["test"]
    assert check[-1] == f"http://127.0.0.1:8080{NGINX_LIVEZ}"
    dockerfile = (ROOT / "docker" / "nginx.Dockerfile").read_text()
    (healthcheck,) = re.findall(r"^HEALTHCHECK .*\n.*$", dockerfile, re.M)
    assert f"127.0.0.1:8080{NGINX_LIVEZ}" in healthcheck


def test_nginx_s_own_location_answers_with_no_pool_behind_it(tmp_path):
    """A real nginx on this file, web and uploads on ports where nothing listens: the app's
    /livez through it is a 502, nginx's own location a 200 it does not log."""
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    require("nginx", nginx is not None, "apt-get install nginx")
    assert nginx is not None
    port, state = free_port(), tmp_path / "state"
    state.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "NGINX_LISTEN": f"127.0.0.1:{port}",
        "NGINX_WEB": f"127.0.0.1:{free_port()}",
        "NGINX_UPLOADS": f"127.0.0.1:{free_port()}",
        "NGINX_STATIC_ROOT": str(tmp_path / "static"),
        "NGINX_STATE": str(state),
        "NGINX_ACCESS_LOG": str(tmp_path / "access.log"),
    }
    conf = state / "nginx.conf"
    subprocess.run([str(ROOT / "docker" / "nginx" / "render"), str(NGINX_CONF), str(conf)],
                   env=env, check=True, timeout=30)  # fmt: skip
    # Started by root, nginx would run its workers as nobody (as in scripts/serve)
    settings = "daemon off;"
    if os.getuid() == 0:
        user, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
        settings += f" user {user} {group};"
    argv = [nginx, "-e", "stderr", "-p", str(state), "-c", str(conf), "-g", settings]
    with open(tmp_path / "error.log", "wb") as errors:
        process = subprocess.Popen(argv, stderr=errors)
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                own = requests.get(f"http://127.0.0.1:{port}{NGINX_LIVEZ}", timeout=2)
                break
            except requests.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail((tmp_path / "error.log").read_text(errors="replace"))
                time.sleep(0.1)
        assert own.status_code == 200 and own.text == "ok\n"
        assert own.headers["Cache-Control"] == "no-store"
        assert requests.get(f"http://127.0.0.1:{port}/livez", timeout=10).status_code == 502
    finally:
        process.terminate()
        process.wait(timeout=30)
    log = (tmp_path / "access.log").read_text()
    assert '"GET /livez HTTP' in log and NGINX_LIVEZ not in log


def test_beat_is_live_while_its_schedule_file_is_fresh_as_in_compose(compose):
    """The same rule as compose's health check, on the file beat's --schedule names, which
    sits on a writable volume (the root file system is read-only)."""
    beat = _container(_named("Deployment")["beat"])
    probe = beat["livenessProbe"]
    command = probe["exec"]["command"]
    assert command == compose["services"]["beat"]["healthcheck"]["test"][1:]
    (schedule,) = [a.split("=", 1)[1] for a in beat["command"] if a.startswith("--schedule=")]
    assert f"glob.glob('{schedule}*')" in command[-1] and "> 600" in command[-1]
    assert beat["securityContext"]["readOnlyRootFilesystem"] is True
    mounts = [m["mountPath"].rstrip("/") + "/" for m in beat["volumeMounts"]]
    assert any(schedule.startswith(m) for m in mounts), mounts
    # a file is written within seconds of the start: the first check comes later than that
    assert probe["initialDelaySeconds"] >= 30 and probe["failureThreshold"] >= 2


def _selected(budget: dict) -> list[dict]:
    labels = budget["spec"]["selector"]["matchLabels"]
    return [
        d
        for d in _named("Deployment").values()
        if labels.items() <= d["spec"]["template"]["metadata"]["labels"].items()
    ]


def test_the_readers_pool_and_nginx_have_disruption_budgets_that_never_block_a_drain():
    budgets = _named("PodDisruptionBudget")
    covered = set()
    for name, budget in budgets.items():
        assert budget["apiVersion"] == "policy/v1"
        assert budget["metadata"]["labels"]["app.kubernetes.io/part-of"] == "trackboard"
        selected = _selected(budget)
        assert len(selected) == 1, name
        (deployment,) = selected
        assert (
            budget["spec"]["selector"]["matchLabels"]
            == deployment["spec"]["selector"]["matchLabels"]
        )
        spec = budget["spec"]
        # at least one pod may always go: a drain never waits for ever
        if "minAvailable" in spec:
            assert spec["minAvailable"] < deployment["spec"]["replicas"], name
        else:
            assert spec["maxUnavailable"] >= 1, name
        covered.add(deployment["metadata"]["name"])
    assert {"web", "nginx"} <= covered
