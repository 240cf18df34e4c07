"""``/api/`` and ``/api/v1/`` answer with an index a newcomer can follow: the schema, Swagger
UI, Redoc and the main collections, each link working."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/", "/api/v1/"])
def test_the_api_root_is_an_index_of_working_links(client, path):
    response = client.get(path)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    index = response.json()
    assert index["schema"] == "http://testserver/api/v1/schema/"
    assert index["docs"] == {
        "swagger": "http://testserver/api/v1/docs/",
        "redoc": "http://testserver/api/v1/redoc/",
    }
    assert index["collections"]["challenges"] == "http://testserver/api/v1/challenges/"
    assert "TRACKBOARD_TOKEN" in index["cli"]
    for url in [index["schema"], *index["docs"].values(), index["collections"]["challenges"]]:
        assert client.get(url).status_code == 200, url
    # the signed-in collections answer 401/403 to an anonymous reader, in the API's shape
    answer = client.get(index["collections"]["submissions"])
    assert answer.status_code in (401, 403) and "error" in answer.json()


def test_redocs_script_is_served_without_its_remote_logo(client):
    response = client.get("/api/v1/redoc/redoc.standalone.js")
    script = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200 and b"Redoc" in script
    assert b"cdn.redoc.ly" not in script
    page = client.get("/api/v1/redoc/").text
    assert "fonts.googleapis" not in page and "<script>" not in page
