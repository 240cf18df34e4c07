"""deploy/kubernetes/: every manifest is valid against the Kubernetes API's schemas (no cluster
runs here, so a validator reads them against the published schemas, strictly: an unknown field
fails), and they mirror docker/compose.yml: the same image for every app container, the same
commands, probes on the health URLs the app serves, one beat, a worker per queue."""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.urls import resolve

from tests.conftest import ROOT
from tests.leaderboard.operations.test_docker import settings_variables

MANIFESTS = ROOT / "deploy" / "kubernetes"
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
        for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/readyz")):
            http = container[probe]["httpGet"]
            assert http["path"] == path, (name, probe)
            assert {"name": "X-Forwarded-Proto", "value": "https"} in http["httpHeaders"]
            resolve(path)  # the app serves it


def test_nginx_is_the_front_door_to_web_and_uploads(compose):
    nginx = _container(_named("Deployment")["nginx"])
    env = {e["name"]: e["value"] for e in nginx["env"]}
    services = _named("Service")
    for name in ("web", "uploads"):
        port = services[name]["spec"]["ports"][0]["port"]
        assert env[f"NGINX_{name.upper()}"] == f"{name}:{port}"
    assert nginx["livenessProbe"]["httpGet"]["path"] == "/livez"
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
