"""Trackboard settings: environment variables only, with safe defaults for the embedded mode.

Embedded mode (no variable set): SQLite in ``var/``, Celery on kombu's filesystem transport in
``var/broker/``, private files in ``var/private/``, e-mail printed to the console.
``DATABASE_URL=postgres://...`` switches to Postgres (psycopg 3); ``REDIS_URL=redis://...``
switches the Celery broker and Django's cache to Redis; ``TRACKBOARD_PRODUCTION=true`` is the
production switch (see "security" at the end).

Each setting is written once, in its final form. The readers in ``leaderboard/env.py`` raise
``ImproperlyConfigured`` naming the variable on a value they cannot read: a typo in a deployment
stops the process at start-up instead of falling back silently to a default. Importing this
module creates nothing on disk; the folders are made where they are used (SQLite's by the
operations app, the file broker's by leaderboard/celery.py, beat's by leaderboard/beat.py).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from leaderboard.env import (
    database_from_url,
    env_account_rate,
    env_bool,
    env_client,
    env_float,
    env_int,
    env_list,
    env_path,
    env_rate,
    env_site_url,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
#: Where the site's templates/ and static/ folders are: the checkout, or (Trackboard installed
#: from its wheel, as in the image) the folder they were copied to.
PROJECT_DIR = env_path("TRACKBOARD_PROJECT_DIR", BASE_DIR)

# --- core ---------------------------------------------------------------------------------
#: The production switch: HTTPS-only cookies, HSTS and the HTTPS redirect ("security" below).
#: It refuses to start with DEBUG on, or without a SECRET_KEY of at least 50 characters, or with
#: the examples' placeholder in it.
PRODUCTION = env_bool("TRACKBOARD_PRODUCTION", False)
DEBUG = env_bool("DEBUG", False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("TRACKBOARD_PRODUCTION=true requires DEBUG=false")
if PRODUCTION and len(env_str("SECRET_KEY", "")) < 50:
    raise ImproperlyConfigured(
        "TRACKBOARD_PRODUCTION=true requires SECRET_KEY (at least 50 random characters)"
    )
#: The examples' placeholder (deploy/kubernetes/secret.example.yaml, docker/.env.example): a
#: copy filled in but for its key would sign every session with a key anyone can read.
PLACEHOLDER_SECRET = "change-me"
if PRODUCTION and PLACEHOLDER_SECRET in env_str("SECRET_KEY", "").lower():
    raise ImproperlyConfigured(
        f"SECRET_KEY still holds the examples' placeholder ({PLACEHOLDER_SECRET!r}): replace it "
        "with at least 50 random characters of your own, e.g. the output of "
        'python -c "import secrets; print(secrets.token_urlsafe(50))"'
    )
#: Outside production a missing key means the embedded mode's fixed development key.
SECRET_KEY = (
    env_str("SECRET_KEY", "") or "trackboard-insecure-development-key-do-not-use-in-production"
)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
#: The embedded mode's data (SQLite, file broker, private files) and beat's schedule.
VAR_DIR = env_path("TRACKBOARD_VAR_DIR", BASE_DIR / "var")

INSTALLED_APPS = [
    # the admin, whose every write is in the audit log (``challenges.admin_trail``)
    "leaderboard.adminsite.AuditedAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # allauth.mfa's list of security keys says "2 days ago" with it
    "django.contrib.humanize",
    "leaderboard.challenges",
    "leaderboard.teams",
    "leaderboard.submissions",
    "leaderboard.rankings",
    "leaderboard.analyses",
    "leaderboard.organisers",
    # Accounts: sign-up, the confirmation of addresses, log-in, password reset and change;
    # sign-in through identity providers ("identity providers" below); the second factor
    # (TOTP, recovery codes, WebAuthn) that organisers and staff must have
    # (``challenges.factors``); before the accounts app, whose admin module replaces some of
    # their admin pages.
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.github",
    "allauth.socialaccount.providers.orcid",
    "allauth.socialaccount.providers.openid_connect",
    "leaderboard.accounts",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI and Redoc as static files from a package: the docs page needs no CDN.
    "drf_spectacular_sidecar",
    "leaderboard.api",
    "leaderboard.operations",
    "leaderboard.demo",
    # Failed log-ins, counted in the database ("auth" below).
    "axes",
]

MIDDLEWARE = [
    # First: the request's id (X-Request-ID) is on every log line of the request and on every
    # answer, even one a later middleware refuses (leaderboard/requestids.py).
    "leaderboard.requestids.RequestIdMiddleware",
    # The requests' counts and latencies by view and status, for /metrics.
    "leaderboard.operations.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads the body: a declared body over MAX_REQUEST_BYTES gets 413.
    "leaderboard.security.RequestSizeLimitMiddleware",
    # A NUL in the query string gets 400 before a view hands it to the database.
    "leaderboard.security.QueryStringMiddleware",
    # Outside whitenoise, so static files carry the policy too.
    "leaderboard.security.ContentSecurityPolicyMiddleware",
    # Serves static files (our CSS/JS and the vendored plotly.js) in every mode, straight from
    # the finders unless TRACKBOARD_STATIC_MANIFEST: no CDN.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # allauth's log-in in stages (the password, then the code of the second factor).
    "allauth.account.middleware.AccountMiddleware",
    # Last: turns a log-in refused by django-axes into the 429 of security.login_locked_out.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "leaderboard.urls"
WSGI_APPLICATION = "leaderboard.wsgi.application"
ASGI_APPLICATION = "leaderboard.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [PROJECT_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -----------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {
        "default": database_from_url(
            DATABASE_URL,
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
            test_name=env_str("DATABASE_TEST_NAME", ""),
        )
    }
else:
    # The operations app creates the folder (leaderboard/operations/apps.py).
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "trackboard.sqlite3",
            # The web process and the worker share the file: wait for a lock rather than fail.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache --------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL", "")
CACHE_PREFIX = env_str("TRACKBOARD_CACHE_PREFIX", "trackboard")
#: Seconds a cache read or write waits for Redis before it counts as a miss.
CACHE_TIMEOUT_SECONDS = env_float("TRACKBOARD_CACHE_TIMEOUT", 0.5, minimum=0.01)
#: ``Cache-Control`` of boards that anonymous readers may see (public or revealed phases):
#: a shared cache keeps them this long, then may serve them stale this long while it asks again.
LEADERBOARD_MAX_AGE = env_int("TRACKBOARD_LEADERBOARD_MAX_AGE", 5, minimum=0)
LEADERBOARD_STALE_SECONDS = env_int("TRACKBOARD_LEADERBOARD_STALE_SECONDS", 30, minimum=0)

if REDIS_URL:
    # The cache only ever holds what can be rebuilt (boards, rendered pages, throttle counts):
    # while Redis is down, reads miss and writes are dropped, with the error logged, so pages
    # are built from the database and throttles let requests through instead of failing them.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CACHE_PREFIX,
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": CACHE_TIMEOUT_SECONDS,
                "SOCKET_TIMEOUT": CACHE_TIMEOUT_SECONDS,
            },
        }
    }
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    DJANGO_REDIS_LOGGER = "leaderboard.cache"
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "KEY_PREFIX": CACHE_PREFIX,
        }
    }
#: Loaded references a process keeps, bounded by the size of their files (the parsed form is
#: larger: see ``challenges.references``); the least recently used go first.
REFERENCE_CACHE_MB = env_int("TRACKBOARD_REFERENCE_CACHE_MB", 64, minimum=1)
#: Seconds a rendered board response (a page's tables, an API answer) stays in the cache,
#: kept under the version of the board it shows: a new board is a new entry.
LEADERBOARD_CACHE_SECONDS = env_int("TRACKBOARD_LEADERBOARD_CACHE_SECONDS", 300, minimum=0)

# --- storage ------------------------------------------------------------------------------
STATIC_URL = "static/"
#: Filled by collectstatic. Until then whitenoise only warns that the folder is missing.
STATIC_ROOT = env_path("STATIC_ROOT", VAR_DIR / "static")
#: Our own small, hand-written CSS and JS (no front-end framework, no CDN), and plotly.js's
#: basic partial bundle in static/vendor/ (its README says where it comes from).
STATICFILES_DIRS = [PROJECT_DIR / "static"]
#: After ``collectstatic`` (the Docker image runs it at build time): serve hashed, compressed
#: files from STATIC_ROOT only. Off by default: tests and the embedded mode use the finders.
STATIC_MANIFEST = env_bool("TRACKBOARD_STATIC_MANIFEST", False)
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
#: collectstatic keeps only the hashed names (the pages link nothing else) and compresses no
#: source map (only a developer's tools fetch them): half the files and a fifth of the bytes
#: to compress, so building the image's static files takes seconds, not minutes.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
MEDIA_URL = "media/"
MEDIA_ROOT = env_path("MEDIA_ROOT", VAR_DIR / "media")
#: References and prediction files. Deliberately outside MEDIA_ROOT: no URL serves this tree.
PRIVATE_STORAGE_ROOT = env_path("TRACKBOARD_PRIVATE_ROOT", VAR_DIR / "private")
#: ``local`` (PRIVATE_STORAGE_ROOT on disk) or ``s3`` (any S3-compatible object store via
#: django-storages, the ``s3`` extra): private objects, no public or signed URLs.
PRIVATE_STORAGE = env_str("TRACKBOARD_PRIVATE_STORAGE", "local").strip().lower()
if PRIVATE_STORAGE == "local":
    _private_storage: dict[str, object] = {
        "BACKEND": "leaderboard.storage.PrivateStorage",
        "OPTIONS": {"location": str(PRIVATE_STORAGE_ROOT)},
    }
elif PRIVATE_STORAGE == "s3":
    _bucket = env_str("TRACKBOARD_S3_BUCKET", "")
    if not _bucket:
        raise ImproperlyConfigured("TRACKBOARD_PRIVATE_STORAGE=s3 needs TRACKBOARD_S3_BUCKET")
    # Credentials: boto3's own AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or an instance role).
    _private_storage = {
        "BACKEND": "leaderboard.operations.s3.PrivateS3Storage",
        "OPTIONS": {
            "bucket_name": _bucket,
            "endpoint_url": env_str("TRACKBOARD_S3_ENDPOINT_URL", "") or None,
            "region_name": env_str("TRACKBOARD_S3_REGION", "") or None,
            "location": env_str("TRACKBOARD_S3_PREFIX", ""),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
else:
    raise ImproperlyConfigured(
        f"TRACKBOARD_PRIVATE_STORAGE={PRIVATE_STORAGE!r} must be local or s3"
    )
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
    "private": _private_storage,
}
#: Largest accepted prediction file, in bytes.
MAX_UPLOAD_BYTES = env_int("TRACKBOARD_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# --- e-mail -------------------------------------------------------------------------------
#: The SMTP server; with EMAIL_HOST set, mail goes to it (else to the console, for development).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
#: STARTTLS on a plain connection (usually port 587), or TLS from the start (usually 465).
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true; pick one")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = EMAIL_HOST or "localhost"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "trackboard@localhost")
#: Seconds an SMTP connection may wait for the mail server; the notification task retries after.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
#: The site's public address: links in e-mail are absolute, built on it.
SITE_URL = env_site_url("TRACKBOARD_SITE_URL", "http://localhost:8000")

# --- auth, i18n ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
#: django-axes first: a locked-out address or account is refused before the password is checked;
#: then django-allauth's, which checks a password by username or e-mail address (it is Django's
#: own ModelBackend underneath).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
#: The second factor (allauth.mfa): required of those who hold secrets (organisers, staff,
#: superusers: ``challenges.factors``), optional for everyone else. WebAuthn (a security key
#: or passkey) works only over HTTPS, or on localhost while DEBUG is on.
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_TOTP_ISSUER = "Trackboard"
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "challenges:list"
LOGOUT_REDIRECT_URL = "challenges:list"

# --- accounts (django-allauth) ------------------------------------------------------------
# Sign-up asks a username, an e-mail address and a password (twice); a log-in takes the
# username or the address. The new account is signed in at once and mailed a link confirming
# its address (a button on the page it opens: a mail scanner following links confirms nothing);
# until then it may look around and join a team, not create or register one nor submit
# (``teams.services.address_confirmed`` reads allauth's verified EmailAddress).
ACCOUNT_ADAPTER = "leaderboard.accounts.adapter.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "leaderboard.accounts.adapter.SocialAccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
# One address per account: a new one replaces the old once its link is opened.
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_FORMS = {
    "signup": "leaderboard.accounts.forms.AccountSignupForm",
    "add_email": "leaderboard.accounts.forms.AddressForm",
}
# Changing the address or the password asks for the password again.
ACCOUNT_REAUTHENTICATION_REQUIRED = True
# Sessions last SESSION_COOKIE_AGE whether the browser closes or not (no "remember me" box).
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
# A reset asked for an unknown address mails nobody; the page answers the same either way.
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = ""
ACCOUNT_SIGNUP_REDIRECT_URL = "accounts:profile"
ACCOUNT_EMAIL_CONFIRMATION_AUTHENTICATED_REDIRECT_URL = "teams:mine"
#: Days a confirmation link works.
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 3
# Limits of the account pages that create accounts or send mail, each from the environment;
# a limited request answers 429 (templates/429.html). Log-ins are django-axes' business
# ("security" below): allauth's own limits on them are off, so one lock rules.
ACCOUNT_RATE_LIMITS = {
    "signup": env_account_rate("TRACKBOARD_THROTTLE_SIGNUP_IP", "10/hour", "ip"),
    "reset_password": ",".join(
        [
            env_account_rate("TRACKBOARD_THROTTLE_RESET_IP", "5/hour", "ip"),
            env_account_rate("TRACKBOARD_THROTTLE_RESET_ACCOUNT", "5/hour", "key"),
        ]
    ),
    "confirm_email": env_account_rate("TRACKBOARD_THROTTLE_CONFIRM_USER", "5/hour", "key"),
    "login": None,
    "login_failed": None,
}

# --- identity providers (django-allauth) -----------------------------------------------------
# Sign-in through ORCID, GitHub and any one OpenID Connect provider, each offered when its
# client id and secret are set (docs/operators.md, "Identity providers": the callback URL each
# needs registered); none set: no button shows and nothing changes. They live here, never in
# the database. An address the provider says it verified counts as confirmed; a sign-in whose
# verified address is an existing account's signs into that account and links the provider
# to it (one person, one account); an address the provider did not verify is never used to
# find an account, stays unconfirmed and is mailed the usual link.
SOCIALACCOUNT_PROVIDERS: dict[str, dict[str, object]] = {}
#: Where the log-in page's provider buttons send the browser (a form's redirect), which the
#: Content-Security-Policy's form-action must allow ("security" below).
PROVIDER_ORIGINS: list[str] = []
_orcid = env_client("TRACKBOARD_ORCID_CLIENT_ID", "TRACKBOARD_ORCID_SECRET")
#: ORCID's sandbox (sandbox.orcid.org) instead of orcid.org, to try the set-up first.
ORCID_DOMAIN = "sandbox.orcid.org" if env_bool("TRACKBOARD_ORCID_SANDBOX", False) else "orcid.org"
if _orcid:
    SOCIALACCOUNT_PROVIDERS["orcid"] = {
        "APPS": [{"client_id": _orcid[0], "secret": _orcid[1]}],
        "BASE_DOMAIN": ORCID_DOMAIN,
        "MEMBER_API": False,
    }
    PROVIDER_ORIGINS.append(f"https://{ORCID_DOMAIN}")
_github = env_client("TRACKBOARD_GITHUB_CLIENT_ID", "TRACKBOARD_GITHUB_SECRET")
if _github:
    SOCIALACCOUNT_PROVIDERS["github"] = {
        "APPS": [{"client_id": _github[0], "secret": _github[1]}],
        # the addresses and whether GitHub verified them
        "SCOPE": ["read:user", "user:email"],
    }
    PROVIDER_ORIGINS.append("https://github.com")
_oidc = env_client("TRACKBOARD_OIDC_CLIENT_ID", "TRACKBOARD_OIDC_SECRET")
if _oidc:
    _issuer = env_str("TRACKBOARD_OIDC_ISSUER", "").strip().rstrip("/")
    if not _issuer.startswith(("https://", "http://")):
        raise ImproperlyConfigured(
            "OpenID Connect sign-in needs TRACKBOARD_OIDC_ISSUER, the provider's issuer URL "
            "(https://..., where /.well-known/openid-configuration is found)"
        )
    SOCIALACCOUNT_PROVIDERS["openid_connect"] = {
        "APPS": [
            {
                "provider_id": "oidc",
                "name": env_str("TRACKBOARD_OIDC_NAME", "").strip() or "OpenID Connect",
                "client_id": _oidc[0],
                "secret": _oidc[1],
                "settings": {"server_url": _issuer},
            }
        ],
    }
    PROVIDER_ORIGINS.append("{0.scheme}://{0.netloc}".format(urlsplit(_issuer)))
SOCIALACCOUNT_EMAIL_AUTHENTICATION = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_QUERY_EMAIL = True
# The provider's tokens are not kept: the site only signs people in.
SOCIALACCOUNT_STORE_TOKENS = False
LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- clients behind proxies ----------------------------------------------------------------
#: Reverse proxies in front of the web server that append the client's address to
#: X-Forwarded-For (1 behind the HTTPS proxy of docs/operators.md). The client is the address
#: that many entries from the right; 0 means REMOTE_ADDR and the header is ignored, so a client
#: can never pick its own address. It drives every per-address limit: the log-in limit and the
#: API's throttles (DRF's NUM_PROXIES), through leaderboard.addresses.client_address.
TRUSTED_PROXIES = env_int("TRACKBOARD_TRUSTED_PROXIES", 0, minimum=0)

# --- REST API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "leaderboard.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Signed in; and a token only within its scope (leaderboard/api/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "leaderboard.api.scopes.TokenScope",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        # DRF's JSON parser, answering a too-deeply nested body with 400, not a server error.
        "leaderboard.security.JSONParser",
        "rest_framework.parsers.MultiPartParser",
        "rest_framework.parsers.FormParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "leaderboard.api.pagination.Pagination",
    "PAGE_SIZE": env_int("TRACKBOARD_API_PAGE_SIZE", 50, minimum=1),
    # The per-address throttles find the client as the log-in limit does ("security" below).
    "NUM_PROXIES": TRUSTED_PROXIES,
    "EXCEPTION_HANDLER": "leaderboard.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "leaderboard.api.schema.AutoSchema",
    # Per user and per IP address; each can be set from the environment.
    "DEFAULT_THROTTLE_RATES": {
        "submit-user": env_rate("TRACKBOARD_THROTTLE_SUBMIT_USER", "30/hour"),
        "submit-ip": env_rate("TRACKBOARD_THROTTLE_SUBMIT_IP", "60/hour"),
        "token-user": env_rate("TRACKBOARD_THROTTLE_TOKEN_USER", "10/hour"),
        "token-ip": env_rate("TRACKBOARD_THROTTLE_TOKEN_IP", "20/hour"),
        "auth-failure-ip": env_rate("TRACKBOARD_THROTTLE_AUTH_FAILURE_IP", "20/min"),
        # Uploads the scorer refused (they cost a parse and are never charged), web and API.
        "rejected-ip": env_rate("TRACKBOARD_REJECTED_UPLOADS_IP", "30/hour"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Trackboard API",
    "DESCRIPTION": "Challenges, leaderboards and submissions of a Trackboard site.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "SubmissionStatusEnum": "leaderboard.submissions.models.Submission.Status",
        "ParticipationStatusEnum": "leaderboard.teams.models.Participation.Status",
    },
}
#: Access tokens a user may hold at once.
API_MAX_TOKENS_PER_USER = env_int("TRACKBOARD_API_MAX_TOKENS", 20, minimum=1)

# --- Celery -------------------------------------------------------------------------------
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        # An unacknowledged message (worker killed mid-task) is redelivered after this long;
        # the lease reaper usually re-queues the submission much sooner.
        "visibility_timeout": env_int("TRACKBOARD_VISIBILITY_TIMEOUT", 3600, minimum=1),
    }
else:
    # kombu's filesystem transport; leaderboard/celery.py creates the folders before use.
    _broker = VAR_DIR / "broker"
    # a host named, though the transport ignores it: else kombu warns in every process
    CELERY_BROKER_URL = "filesystem://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker / "out"),
        "data_folder_out": str(_broker / "out"),
        "processed_folder": str(_broker / "processed"),
        "control_folder": str(_broker / "control"),
        "store_processed": False,
        # How often the worker looks for a new message (kombu's default is every second):
        # a scored run reaches the board within a fraction of a second, as with Redis.
        "polling_interval": 0.1,
    }
# Results live in our own tables; Celery's result backend would only duplicate them.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
#: The queues and what goes to each are declared in ``leaderboard.background``; their names:
#: new submissions and the periodic tasks.
CELERY_TASK_DEFAULT_QUEUE = env_str("TRACKBOARD_QUEUE", "trackboard")
#: Re-scores (an organiser's, or after a new reference version) go here when set, for a worker
#: of their own (``celery worker -Q <name>``), so new submissions are never queued behind them;
#: empty: the same queue as new submissions.
CELERY_RESCORE_QUEUE = env_str("TRACKBOARD_RESCORE_QUEUE", "")
#: The boards' builds (``rankings.builds``) go here when set, for a worker of their own;
#: empty: the same queue as new submissions.
CELERY_BOARD_QUEUE = env_str("TRACKBOARD_BOARD_QUEUE", "")
#: Every mail task (a submission's outcome, password resets, address confirmations,
#: registrations and their decisions) goes here, for a worker of its own
#: (``celery worker -Q <name>``), so a slow or hung mail server never holds a scoring process;
#: empty: the default queue's name with ``-mail`` (``trackboard-mail``).
CELERY_MAIL_QUEUE = env_str("TRACKBOARD_MAIL_QUEUE", "")
#: the bearer token a Prometheus scrape of /metrics sends; empty: /metrics is off (404)
TRACKBOARD_METRICS_TOKEN = env_str("TRACKBOARD_METRICS_TOKEN", "")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_TIME_LIMIT = env_int("TRACKBOARD_TASK_TIME_LIMIT", 600, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("TRACKBOARD_TASK_SOFT_TIME_LIMIT", 540, minimum=1)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
#: Seconds between two runs of the periodic tasks (the lease reaper, the boards' re-sends,
#: the scheduler's heartbeat: ``leaderboard.background``).
REAPER_INTERVAL = env_float("TRACKBOARD_REAPER_INTERVAL", 15.0, minimum=1.0)
#: Celery's file-backed scheduler, creating the folder of its schedule file first.
CELERY_BEAT_SCHEDULER = "leaderboard.beat:PersistentScheduler"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- scoring ------------------------------------------------------------------------------
#: How long a claim on a submission lasts; the scoring process renews it every third of it
#: while it scores (``leaderboard/leases.py``), so past it the claimant is gone and any
#: delivery, or the reaper, takes the row over.
SCORING_LEASE_SECONDS = env_int("TRACKBOARD_SCORING_LEASE_SECONDS", 60, minimum=3)
#: How long a queued submission may wait unclaimed before its task is sent again (a message
#: lost with a broker outage); duplicates are harmless, only one delivery can claim the row.
SCORING_RESEND_AFTER_SECONDS = env_int("TRACKBOARD_SCORING_RESEND_AFTER_SECONDS", 30, minimum=1)
#: Scoring runs (claims) before a submission is marked failed; a run stopped by a fault of
#: the site gives its attempt back, so these count processes that died while scoring.
SCORING_MAX_ATTEMPTS = env_int("TRACKBOARD_SCORING_MAX_ATTEMPTS", 3, minimum=1)
#: How long the faults of the site (database, broker, storage) are retried, from the first.
SCORING_RETRY_FOR_SECONDS = env_int("TRACKBOARD_SCORING_RETRY_FOR_SECONDS", 3600, minimum=1)
#: The longest pause between two such retries (they double from 2 s, with jitter).
SCORING_RETRY_MAX_DELAY = env_int("TRACKBOARD_SCORING_RETRY_MAX_DELAY", 60, minimum=1)

# --- logs ---------------------------------------------------------------------------------
#: ``text`` (default) or ``json``: one JSON object per line (leaderboard/operations/logs.py).
#: Every line logged while a request or a task is served carries its id (``request_id``,
#: leaderboard/requestids.py).
LOG_FORMAT = env_str("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r} must be text or json")
LOGGING_CONFIG = "leaderboard.operations.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "text": {"()": "leaderboard.requestids.TextFormatter"},
        "json": {"()": "leaderboard.operations.logs.JsonFormatter"},
    },
    "filters": {"request_id": {"()": "leaderboard.requestids.RequestIdFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # django-axes says its version at each process's start (four times as scripts/run
    # starts); its warnings about log-ins still come through
    "loggers": {"axes.apps": {"level": "WARNING"}},
}

# --- security -----------------------------------------------------------------------------
# The production switch (top of this file) turns on HTTPS-only cookies, HSTS and the HTTPS
# redirect; behind a TLS-terminating proxy set TRACKBOARD_PROXY_SSL_HEADER=X-Forwarded-Proto.
# `manage.py check --deploy` is clean with it (tests/leaderboard/security/
# test_production_settings.py). Headers that cost nothing (nosniff, frame deny, referrer
# policy, CSP) are sent in every mode, so the browser tests run the pages under the production
# policy.
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("TRACKBOARD_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("TRACKBOARD_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("TRACKBOARD_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("TRACKBOARD_HSTS_PRELOAD", True)
    _proxy_header = env_str("TRACKBOARD_PROXY_SSL_HEADER", "")
    if _proxy_header:
        SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
#: Our JS, CSS and plotly.js come from 'self'; chart data sits in json_script blocks (JSON,
#: never executed); no inline script anywhere. plotly.js writes inline styles, hence
#: style-src 'unsafe-inline' (styles only). Swagger UI's start-up script is a separate file.
#: Forms post to the site and, through the log-in page's buttons, to the identity providers.
CONTENT_SECURITY_POLICY = env_str(
    "TRACKBOARD_CSP",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action "
    + " ".join(["'self'", *PROVIDER_ORIGINS])
    + "; frame-ancestors 'none'",
)
#: The Redoc page (API reference, no user content) runs its search in a worker made from a blob.
CONTENT_SECURITY_POLICY_OVERRIDES = {
    "/api/v1/redoc/": CONTENT_SECURITY_POLICY + "; worker-src 'self' blob:",
}
#: Largest request body (all files and fields of one upload); larger declared bodies get 413
#: before Django reads them. Default: four prediction files of the largest size, plus 1 MiB.
MAX_REQUEST_BYTES = env_int(
    "TRACKBOARD_MAX_REQUEST_BYTES", 4 * MAX_UPLOAD_BYTES + 1024 * 1024, minimum=1
)
#: Failed log-ins allowed per (username, client address) and per client address within the
#: window, then 429.
LOGIN_FAILURE_LIMIT = env_int("TRACKBOARD_LOGIN_FAILURE_LIMIT", 10, minimum=1)
LOGIN_FAILURE_WINDOW_SECONDS = env_int("TRACKBOARD_LOGIN_FAILURE_WINDOW", 900, minimum=1)
# django-axes counts failures in its own tables on every form that authenticates (the site's
# log-in, the admin's) and, past the limit, refuses an account at the address its failures
# came from, and an address that failed for any accounts, until the window has passed since
# the last failure. Never an account everywhere: a stranger's wrong passwords cannot lock its
# owner out from another address. The address is addresses.client_address. A refused attempt
# is not counted (it would push the end of the window on), and a completed password reset
# clears the account's failures (accounts.views).
AXES_FAILURE_LIMIT = "leaderboard.security.login_failure_limit"
AXES_COOLOFF_TIME = "leaderboard.security.login_cool_off"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "leaderboard.addresses.client_address"
AXES_LOCKOUT_CALLABLE = "leaderboard.security.login_locked_out"
AXES_USERNAME_CALLABLE = "leaderboard.security.login_username"
# Successful log-ins are Django's business; only failures are recorded.
AXES_DISABLE_ACCESS_LOG = True
#: Uploads the scorer refused that one team may send in a window (they cost a parse and are
#: never charged); past it, uploads are refused until the oldest leaves the window. The
#: per-address limit is the API throttle rate "rejected-ip" (TRACKBOARD_REJECTED_UPLOADS_IP).
REJECTED_UPLOADS_PER_TEAM = env_rate("TRACKBOARD_REJECTED_UPLOADS_TEAM", "20/hour")
#: Characters of a scorer message kept per condition in a stored error (a message quoting a
#: hostile file is cut, never echoed whole).
MAX_ERROR_CHARS = 2000
