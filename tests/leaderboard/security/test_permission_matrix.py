"""Every URL of the project (walked from Django's resolver) answered for eight actors: the
expected status class per URL name and actor is in EXPECTED below.

A URL name missing from EXPECTED fails the test: add its row when you add a page. Codes are
status classes per actor in ACTORS order: "2" success, "3" redirect (to the log-in page for an
anonymous visitor), "4" refused or not found (401/403/404/405), "S" anything but a server error.
GET is used everywhere; POST-only views answer 405 (CSRF and POST are tested separately).
"""

from __future__ import annotations

import pytest

from tests.leaderboard.security.conftest import ACTORS
from tests.leaderboard.security.urlwalk import all_routes, url_for

pytestmark = pytest.mark.django_db

#                 anon outsider other member owner other_org org super
PUBLIC = "22222222"
LOGIN_REQUIRED = "32222222"
POST_ONLY = "34444444"
TEAM_ONLY = "44422444"  # another team's submission is a 404, even to a superuser on pages
TEAM_OR_ORGANISER = "44422424"

EXPECTED: dict[str, str] = {
    "livez": PUBLIC,
    "healthz": PUBLIC,
    "readyz": PUBLIC,
    "readyz-web": PUBLIC,
    # off until the operator sets a metrics token (then a bearer token, not a role)
    "metrics": "44444444",
    # a signed-in user is sent on
    "account_login": "23333333",
    # GET asks (a button); a POST logs out
    "account_logout": LOGIN_REQUIRED,
    # a signed-in user is sent on
    "account_signup": "23333333",
    "account_change_password": LOGIN_REQUIRED,
    # every actor has a password: sent to change it
    "account_set_password": "33333333",
    # the mail's link; the walk's made-up one says it does not work
    "account_confirm_email": PUBLIC,
    # log-in by mailed code is off: sent away
    "account_confirm_login_code": "33333333",
    "account_confirm_reauthentication_code": "33333333",
    # the account's address: add a new one, send the link again
    "account_email": LOGIN_REQUIRED,
    "account_email_verification_sent": PUBLIC,
    "account_inactive": PUBLIC,
    # the password asked again
    "account_reauthenticate": LOGIN_REQUIRED,
    "account_request_reauthentication_code": "32222223",
    "account_reset_password": PUBLIC,
    "account_reset_password_done": PUBLIC,
    # an invalid link says so
    "account_reset_password_from_key": PUBLIC,
    "account_reset_password_from_key_done": PUBLIC,
    # linking identity providers
    "socialaccount_connections": LOGIN_REQUIRED,
    "socialaccount_login_cancelled": PUBLIC,
    # an error page (no sign-in under way)
    "socialaccount_login_error": "44444444",
    # only within a provider's sign-up: sent away
    "socialaccount_signup": "33333333",
    # identity providers the operator did not configure: not found
    "github_login": "44444444",
    "github_callback": "44444444",
    "orcid_login": "44444444",
    "orcid_callback": "44444444",
    "openid_connect_login": "44444444",
    "openid_connect_callback": "44444444",
    "accounts:profile": LOGIN_REQUIRED,
    "accounts:mail": POST_ONLY,
    "accounts:token-create": POST_ONLY,
    "accounts:token-revoke": POST_ONLY,
    "accounts:token-renew": POST_ONLY,
    # the download of one's own data (a button: POST), and the deletion page (its form posts)
    "accounts:export": POST_ONLY,
    "accounts:delete": LOGIN_REQUIRED,
    "challenges:list": PUBLIC,
    "challenges:detail": PUBLIC,
    "challenges:register": POST_ONLY,
    # what a participant starts from: a condition's sample (empty states), a file published
    # with the phase; a reference file only when the task marks it public (none here)
    "challenges:sample": PUBLIC,
    "challenges:phase_file": PUBLIC,
    "challenges:reference_file": "44444444",
    "rankings:leaderboard": PUBLIC,
    "rankings:embed": PUBLIC,
    # Exports carry what each reader may see (this phase's results are public).
    "rankings:export-json": PUBLIC,
    "rankings:export-csv": PUBLIC,
    # paper tables of the public board (the snapshot's once there is one)
    "rankings:table": PUBLIC,
    # two entries of the public board compared (the page's form without a pair)
    "rankings:pairwise": PUBLIC,
    "rankings:robustness": PUBLIC,
    "rankings:errors": PUBLIC,
    "rankings:archive": "34444424",  # log-in required; the challenge's organisers only
    # The phase has not been revealed: the page says nothing is published yet, and no
    # snapshot exists.
    "rankings:snapshots": PUBLIC,
    "rankings:snapshot": "44444444",
    # the preview (GET) and its confirmation (POST): the challenge's organisers only
    "rankings:reveal": "34444424",
    "challenges:organise": "34444424",
    "challenges:decide": "34444444",
    # the list of organisers and its add/remove form: the challenge's organisers only
    "challenges:co_organisers": "34444424",
    "challenges:rescore": "34444444",
    # withdrawing a run, disqualifying a team: the challenge's organisers only
    "challenges:withdrawals": "34444424",
    # posting and deleting an announcement (POST only); reading them: anyone, as the page
    "challenges:announce": POST_ONLY,
    "challenges:delete_announcement": POST_ONLY,
    "challenges:announcements_feed": PUBLIC,
    # a reference version's impact: its organisers, and superusers sent there by the admin
    "challenges:review_reference": "34444422",
    # the challenge's organisers only (a superuser not listed on it too gets a 404)
    "challenges:submission_files": "34444424",
    "challenges:phase_files": "34444424",
    "submissions:final": "34444444",
    "submissions:public": POST_ONLY,  # choosing the run the public board shows
    "submissions:submit": LOGIN_REQUIRED,  # shows how to take part when not eligible
    "submissions:mine": LOGIN_REQUIRED,
    # The team and the challenge's organisers; others (a superuser too) get a 404 on pages.
    "submissions:detail": "34422424",
    # editing a run's method: its team's members only (the organisers use the admin)
    "submissions:edit": "34422444",
    "submissions:compare": "34422424",
    # The team's own per-turn correctness: the same readers as its result page.
    "submissions:correctness": "34422424",
    "submissions:status": "34422424",
    "submissions:cancel": POST_ONLY,
    "teams:mine": LOGIN_REQUIRED,
    "teams:create": LOGIN_REQUIRED,
    "teams:join": LOGIN_REQUIRED,
    "teams:join_link": LOGIN_REQUIRED,
    "teams:detail": PUBLIC,
    "teams:leave": POST_ONLY,
    "teams:regenerate": POST_ONLY,
    "teams:anonymous": POST_ONLY,
    "teams:rename": POST_ONLY,
    "teams:list_members": POST_ONLY,
    # the API's index (at /api/ and /api/v1/) and Redoc's script without its remote logo
    "api-root": PUBLIC,
    "api:index": PUBLIC,
    "api:redoc-bundle": PUBLIC,
    "api:challenges": PUBLIC,
    "api:challenge": PUBLIC,
    "api:announcements": PUBLIC,
    "api:sample": PUBLIC,
    "api:leaderboard": PUBLIC,
    "api:leaderboard-csv": PUBLIC,
    "api:table": PUBLIC,
    # without two entries of the board the request is invalid (400), for everyone alike
    "api:pairwise": "44444444",
    "api:robustness": PUBLIC,
    "api:errors": PUBLIC,
    # the shake-up of a published snapshot; the phase has none yet, so it is 404 for everyone
    "api:shakeup": "44444444",
    "api:submit": "44444444",  # POST only; anonymous is 401/403
    "api:history": "42222222",  # a signed-in user's own teams only (empty without one)
    "api:submissions": "42222222",
    "api:submission": "44422424",
    "api:cancel": "44444444",
    "api:teams-mine": "42222222",
    # creating, joining and leaving a team, registering one: POST only (405 to a GET)
    "api:teams": "44444444",
    "api:team-join": "44444444",
    "api:team-leave": "44444444",
    # a team's invite code and link: its members only (a superuser too gets a 404)
    "api:team-invite": TEAM_ONLY,
    "api:register": "44444444",
    # the signed-in user's own teams' registrations for the challenge
    "api:registrations": "42222222",
    "api:me-export": "42222222",
    "api:organise-submissions": "44444424",
    "api:organise-results": "44444424",
    "api:organise-archive": "44444424",
    "api:organise-snapshots": "44444424",
    "api:organise-files": "44444424",
    "api:organise-audit": "44444424",
    "api:schema": PUBLIC,
    "api:docs": PUBLIC,
    "api:redoc": PUBLIC,
    "api:not-found": "44444444",
    # allauth.mfa (accounts/2fa/): the overview for anyone signed in; adding or removing a
    # factor and making recovery codes ask for the password again first (a redirect); the
    # organisers and the superuser have an authenticator app (the organiser rule), so theirs
    # is removable (after the password) and the others' is not found
    "mfa_index": LOGIN_REQUIRED,
    "mfa_authenticate": "33333333",  # only during a log-in that asks for the code
    "mfa_reauthenticate": "33333222",  # with a factor to confirm with; else sent on
    "mfa_activate_totp": "33333333",  # the password again; with an app already: its removal
    "mfa_deactivate_totp": "34444333",
    "mfa_view_recovery_codes": "34444444",  # nobody here has made recovery codes
    "mfa_download_recovery_codes": "34444444",
    "mfa_generate_recovery_codes": "33333333",
    "mfa_list_webauthn": LOGIN_REQUIRED,
    "mfa_add_webauthn": "33333333",
    "mfa_reauthenticate_webauthn": "33333333",
    "mfa_remove_webauthn": "33333333",
    "mfa_edit_webauthn": "33333333",
}
#: Staff only: everyone else is sent to the admin log-in; the superuser gets anything but a
#: server error (some admin actions are switched off and answer 403).
ADMIN = "3333333S"
#: The admin's log-in is allauth's (the anonymous visitor is sent there); signed in without
#: staff status it is refused (no way round to the admin), the superuser is sent to the index.
ADMIN_SPECIAL = {"admin:login": "34444443"}
#: Query strings some pages need to show their content (formatted with the submission's pk).
QUERY = {"submissions:compare": "?with={pk}"}


def _expected(name: str) -> str:
    if name in ADMIN_SPECIAL:
        return ADMIN_SPECIAL[name]
    if name.startswith("admin:"):
        return ADMIN
    return EXPECTED[name]


#: django-allauth's former addresses of its provider pages, unnamed: each sends to its new one.
LEGACY = {
    ":<unnamed social/connections/>": ("/accounts/social/connections/", "/accounts/3rdparty/"),
    ":<unnamed social/login/cancelled/>": (
        "/accounts/social/login/cancelled/",
        "/accounts/3rdparty/login/cancelled/",
    ),
    ":<unnamed social/login/error/>": (
        "/accounts/social/login/error/",
        "/accounts/3rdparty/login/error/",
    ),
    ":<unnamed social/signup/>": ("/accounts/social/signup/", "/accounts/3rdparty/signup/"),
}


def test_every_url_name_has_an_expectation():
    unknown = [r.name for r in all_routes() if not r.name.startswith("admin:")]
    unknown = [name for name in unknown if name not in LEGACY]
    unknown = [name for name in unknown if name not in EXPECTED]
    assert not unknown, (
        f"URL name(s) {unknown} have no row in EXPECTED of {__file__}: add one with the status "
        "class each actor should get, so the new page's permissions are tested."
    )


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_allauths_former_addresses_send_to_the_new_ones(client, name):
    old, new = LEGACY[name]
    response = client.get(old)
    assert (response.status_code, response["Location"]) == (301, new)


def _matches(code: str, status: int) -> bool:
    if code == "S":
        return status < 500
    return str(status)[0] == code


def test_every_url_answers_each_actor_as_expected(world):
    mismatches = []
    values = world.kwargs()
    # The admin's unnamed catch-all (a 404 or a log-in redirect) has no URL to reverse.
    routes = [
        r
        for r in all_routes()
        if r.name in EXPECTED or (r.name.startswith("admin:") and "<unnamed" not in r.name)
    ]
    clients = {actor: world.client(actor) for actor in ACTORS}
    for route in routes:
        url = url_for(route, values) + QUERY.get(route.name, "").format(pk=world.submission.pk)
        for actor, code in zip(ACTORS, _expected(route.name), strict=True):
            status = clients[actor].get(url, HTTP_ACCEPT="text/html,application/json").status_code
            if not _matches(code, status):
                mismatches.append(f"{route.name} {url} as {actor}: {status}, expected {code}xx")
    assert not mismatches, "\n".join(mismatches)
