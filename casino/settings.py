"""Punto settings: one module, driven by environment variables.

Without ``DATABASE_URL`` / ``REDIS_URL`` the project runs on the embedded default:
SQLite, the in-memory channel layer and Celery in eager mode.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from casino.beat import BEAT_SCHEDULE as CASINO_BEAT_SCHEDULE
from kernel.encryption import keys_check
from partners.beat import BEAT_SCHEDULE as PARTNERS_BEAT_SCHEDULE
from wagering.beat import BEAT_SCHEDULE as WAGERING_BEAT_SCHEDULE

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# PRODUCTION=1: https behind a proxy, secure cookies, HSTS, a real SECRET_KEY (see docs/security.md).
# Off by default: the local run (scripts/run.sh) serves plain http on 127.0.0.1.
PRODUCTION = env.bool("PRODUCTION", default=False)
DEVELOPMENT_SECRET_KEY = "punto-insecure-development-key-change-me-in-production-0123456789"
SECRET_KEY = env.str("SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
if PRODUCTION and (SECRET_KEY == DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured("PRODUCTION needs its own SECRET_KEY of at least 50 random characters")
# Encryption at rest (kernel.encryption): comma-separated Fernet keys, the first encrypts. Without it the
# embedded default makes a key in var/encryption.key on first use; PRODUCTION refuses to start without it.
ENCRYPTION_KEYS = env.list("ENCRYPTION_KEY", default=[])
ENCRYPTION_KEY_FILE = BASE_DIR / "var" / "encryption.key"
if PRODUCTION and not ENCRYPTION_KEYS:
    raise ImproperlyConfigured(
        "PRODUCTION needs ENCRYPTION_KEY: the key(s) the shoes' and webhooks' secrets are encrypted with"
    )
keys_check(ENCRYPTION_KEYS)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "casino.apps.StaffAdminConfig",  # django.contrib.admin, its site asking staff for a TOTP code
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "casino.apps.CasinoConfig",
    "tables",
    "wagering",
    "partners",
    "roadmaps",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "kernel.security.LaunchedSessionMiddleware",  # before sessions: it sees the cookies they set
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # the player's language: the menu's choice, else the browser's
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "casino.sign_in.two_factor.StaffSessionMiddleware",  # unverified staff are anonymous; staff idle expiry
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "kernel.security.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into its 429 page
]

ROOT_URLCONF = "casino.urls"
ASGI_APPLICATION = "casino.asgi.application"
# Threads per web process running Django's synchronous HTTP handling (kernel.http); each may hold
# one pooled database connection while it serves a request.
WEB_THREADS = env.int("WEB_THREADS", default=4)
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "casino.players.header.header_wallet",
            ],
        },
    },
]

# --- Database: PostgreSQL through psycopg 3 when DATABASE_URL is set, else SQLite.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
# On PostgreSQL the platform connects as a runtime role (DATABASE_URL), which cannot alter the tables
# nor disable their triggers, and `manage.py migrate` alone as the tables' owner (DATABASE_MIGRATE_URL, read
# by kernel.database_roles when migrate asks, never here: no serving process holds the owner's password),
# which then grants the runtime role its rights. SQLite has one file and no roles: None.
DATABASE_RUNTIME = None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several threads (web, table loop) share the file: wait for the lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 30, "transaction_mode": "IMMEDIATE"})
else:
    DATABASE_RUNTIME = {key: DATABASES["default"][key] for key in ("USER", "PASSWORD", "HOST", "PORT")}
    # Sessions start in UTC (TIME_ZONE): Django then sends no SET TimeZone each time it takes a connection.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("options", "-c TimeZone=UTC")
    if env.int("DATABASE_POOL_MAX_SIZE", default=16):
        # Under ASGI every request runs its sync code in a thread of its own, so a persistent
        # connection would never be reused (and each thread would keep one open): pool them per process.
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=2),
            "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=16),
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
    else:  # DATABASE_POOL_MAX_SIZE=0: a connection per thread, kept CONN_MAX_AGE seconds
        DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"]["ATOMIC_REQUESTS"] = False
USING_POSTGRES = DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql")
# The hot paths' statements (kernel.raw_rows.prepared_cursor) are prepared on their pooled connection: PostgreSQL
# then parses and plans a bet's statements once a connection, not once a bet. Django's other queries bind on the
# client and are never prepared. DATABASE_PREPARED=0 behind a pooler that cannot keep a connection's prepared
# statements (PgBouncer in transaction mode before 1.22).
DATABASE_PREPARED = USING_POSTGRES and env.bool("DATABASE_PREPARED", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: Celery broker and the Channels layer when REDIS_URL is set.
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Pub/sub: an event is one PUBLISH, and each web process hands it to its sockets' queues.
            # The list-based core layer made every socket take a receive lock per event (1.8 times the
            # CPU for 1,000 sockets, bench/fanout.py), and its 5 s BZPOPMIN raced redis-py's 5 s socket
            # timeout, closing sockets. Pub/sub channels ignore the database number: the prefix has it.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"asgi.{urlsplit(REDIS_URL).path.strip('/') or 0}."},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task taken by a worker that dies whole (SIGKILL, lost host) stays unacknowledged on Redis until this
# timeout, then is delivered again. It must exceed the longest countdown (webhook retries: 37.5 min), or
# waiting tasks are delivered twice; a resolved coup left unsettled meanwhile is re-sent by the table loop
# after 30 s (casino.lifecycle.loop). A pool child that dies is requeued at once (CELERY_TASK_REJECT_ON_WORKER_LOST).
# A task taken by a worker that died whole goes back to the queue once unacknowledged for the visibility
# timeout: kombu looks for such tasks every 10 s (its default since 5.7 would be only every 10th look).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=60 * 60),
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
# A queue per kind of work, each with workers of its own (Procfile: worker, webhooks, wallet, reports), so a
# partner's slow webhook receiver or a long report never delays a settlement. Every task is routed;
# one left out would go to the reports queue, never to settlement's. The queues are declared (not
# created on first use) so that every process knows all four: a purge empties them all.
CELERY_TASK_QUEUES = [Queue("settlement"), Queue("webhooks"), Queue("wallet"), Queue("reports")]
CELERY_TASK_ROUTES = {
    "wagering.tasks.coup_settle": {"queue": "settlement"},
    "wagering.tasks.webhook_delivery_send": {"queue": "webhooks"},
    "partners.tasks.wallet_transaction_send": {"queue": "wallet"},
    "partners.tasks.wallet_transactions_resend": {"queue": "wallet"},
    "partners.tasks.reconciliation_report_build": {"queue": "reports"},
    "wagering.tasks.table_day_report_build": {"queue": "reports"},
    "wagering.tasks.shoe_report_build": {"queue": "reports"},
    "wagering.tasks.day_reports_build": {"queue": "reports"},
    "wagering.tasks.bet_requests_prune": {"queue": "reports"},
    "casino.tasks.ledger_roots_seal": {"queue": "reports"},
    "casino.tasks.play_sessions_ended_tell": {"queue": "webhooks"},
    "casino.tasks.rng_idle_shoes_close": {"queue": "settlement"},
}
CELERY_TASK_DEFAULT_QUEUE = "reports"
# Every task has limits (wagering.tasks sets tighter ones per task): past the soft limit the task gets
# SoftTimeLimitExceeded (its transaction rolls back), past the hard one its pool child is killed.
# Enforced by the prefork pool (the Procfile's workers), not by the solo pool.
CELERY_TASK_SOFT_TIME_LIMIT = 120
CELERY_TASK_TIME_LIMIT = 150
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {**WAGERING_BEAT_SCHEDULE, **PARTNERS_BEAT_SCHEDULE, **CASINO_BEAT_SCHEDULE}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in lock-out (django-axes): SIGN_IN_FAILURE_LIMIT failures for one username (from any addresses),
# or from one address (over any usernames), lock that username, or that address, out for
# SIGN_IN_LOCKOUT_MINUTES. A success forgets that username's failures from that address only
# (casino.sign_in.two_factor.sign_in_failures_reset). REMOTE_ADDR is the client's address: behind the proxy,
# uvicorn --proxy-headers (Procfile) puts the forwarded address there.
# The one that knows groups (User.with_perm): Django's ModelBackend, a signed-in player's row kept in the cache
# (casino/sign_in/session_users.py) for up to SESSION_USER_CACHE_SECONDS; every save of a user forgets it. A
# session names the backend that signed it in: ModelBackend stays listed last so that sessions signed in before
# the player's row was kept (they name it) stay signed in, read from the database each time, until they end.
PERMISSION_BACKEND = "casino.sign_in.session_users.SessionUserBackend"
SESSION_USER_CACHE_SECONDS = env.int("SESSION_USER_CACHE_SECONDS", default=30)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    PERMISSION_BACKEND,
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("SIGN_IN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("SIGN_IN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = False
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
AXES_LOCKOUT_CALLABLE = "kernel.security.sign_in_locked_out"
AXES_VERBOSE = False
# Staff sign in with a TOTP code too (casino/sign_in/two_factor.py); their sessions end after this many idle minutes.
OTP_TOTP_ISSUER = "Punto"
STAFF_SESSION_IDLE_MINUTES = env.int("STAFF_SESSION_IDLE_MINUTES", default=30)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Players' languages (docs/ui.md, Languages): English and Simplified Chinese, chosen from the browser or the
# header's menu; translations in locale/ (templates and the JavaScript catalogue, /jsi18n/).
LANGUAGE_CODE = "en"
# A squeezable card left alone on the player's page turns over by itself after this long (docs/ui.md, Squeeze).
SQUEEZE_TURN_SECONDS = env.float("SQUEEZE_TURN_SECONDS", default=2.5)
# Tables dealt on demand (issue 30): a player's private shoe nobody has dealt from for this long is finished and
# revealed (casino.lifecycle.tasks.rng_idle_shoes_close, every 5 minutes).
RNG_SHOE_IDLE_MINUTES = env.int("RNG_SHOE_IDLE_MINUTES", default=30)
if not 0.5 <= SQUEEZE_TURN_SECONDS <= 30:
    raise ImproperlyConfigured("SQUEEZE_TURN_SECONDS must be between 0.5 and 30")
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["casino.formats"]  # amounts grouped by thousands in Chinese too (1,016.00)
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- HTTP security. Headers everywhere; https-only cookies, HSTS and the redirect in PRODUCTION.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the proxy's health check speaks plain http
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = PRODUCTION
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = PRODUCTION
# The proxy in front sets X-Forwarded-Proto (and overwrites a client's); only trusted in PRODUCTION.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if PRODUCTION else None
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = True  # the pages hand the token to static/js/api.js in a <meta>, never the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# No inline script or style anywhere (the API docs' Swagger UI is served from here: drf-spectacular-sidecar).
# A dealer table's video URL may be http:// (not only https://) where this is on: development and tests.
VIDEO_URL_ALLOW_HTTP = env.bool("VIDEO_URL_ALLOW_HTTP", default=DEBUG)
# The demo's test streams (manage.py serve --demo-video) are written here, one folder per table; /video/ serves them.
DEMO_VIDEO_ROOT = Path(env.str("DEMO_VIDEO_ROOT", default=str(BASE_DIR / "var" / "demo-video")))
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
# Request bodies: the biggest legitimate one (an admin form) is a few kB.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # The partner API (partners/api): Bearer API keys, JSON only, errors as {"error": {code, message, details}}.
    "DEFAULT_AUTHENTICATION_CLASSES": ["partners.api.authentication.PartnerKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["partners.api.permissions.IsActivePartner"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["partners.api.parsers.StrictJSONParser"],
    "EXCEPTION_HANDLER": "partners.api.exceptions.partner_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["partners.api.throttling.PartnerRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"partner": env.str("PARTNER_API_RATE", default="600/min")},
    "DEFAULT_PAGINATION_CLASS": "partners.api.pagination.PartnerPagination",
    "PAGE_SIZE": 50,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
# Sockets one signed-in user, or one anonymous address, may hold at once (0: no limit); counted in the cache
# below, so across processes with Redis (kernel/sockets.py): the lobby's one and table pages beside it.
WS_MAX_CONNECTIONS_PER_USER = env.int("WS_MAX_CONNECTIONS_PER_USER", default=10)
WS_MAX_CONNECTIONS_PER_ADDRESS = env.int("WS_MAX_CONNECTIONS_PER_ADDRESS", default=20)
# The cache shared by every process (the API's rate limits, the sockets' counts): Redis when there is one.
# A Redis that stops answering (a partition drops packets silently) fails a cache call within these seconds
# instead of holding the request until TCP gives up, minutes later.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "kernel.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 2.0},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Sessions read from that cache, written through to the database (which a cache miss falls back on): a signed-in
# request reads no session row. Signing out removes both copies; an expiry (a staff session's idle end) is
# checked on the cached copy's own date (kernel/sessions.py).
SESSION_ENGINE = "kernel.sessions"
# The partner API's keys, their partners and the players, read once every this many seconds in each web process:
# a key revoked or a partner disabled is refused within them (at once in the process that changed it).
PARTNER_API_CACHE_SECONDS = env.float("PARTNER_API_CACHE_SECONDS", default=5.0)
# Webhooks go to public https addresses only; development and tests may post to loopback http.
WEBHOOK_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", default=False)
# Partners' seamless wallets (partners.seamless): a bet waits this long for the debit, then is refused.
SEAMLESS_WALLET_DEADLINE_SECONDS = env.float("SEAMLESS_WALLET_DEADLINE_SECONDS", default=2.0)
# The house cashier's currency (ISO 4217, two decimal places); each partner has its own.
HOUSE_CURRENCY = env.str("HOUSE_CURRENCY", default="EUR")
# A game launch's URL is valid this long, once.
LAUNCH_TOKEN_SECONDS = 60
# Bet requests committed in groups per table by a thread of each web process (casino.players.intake); off, each
# request is carried out in its own thread and transaction. On with the real components (REDIS_URL).
BET_INTAKE_GROUP_COMMIT = env.bool("BET_INTAKE_GROUP_COMMIT", default=bool(REDIS_URL))
# A bet request's record (its request_id's answer) is kept this long, then forgotten (wagering.tasks).
BET_REQUEST_RETENTION_HOURS = env.int("BET_REQUEST_RETENTION_HOURS", default=48)
# Player protection (wagering.protection, docs/responsible-gaming.md): the zone whose calendar days, weeks (from
# Monday) and months the deposit and loss limits count in; the market's reality check for players who chose
# none (minutes; 0: none); how long a looser limit waits before it applies.
PLAYER_PROTECTION_TIME_ZONE = env.str("PLAYER_PROTECTION_TIME_ZONE", default=TIME_ZONE)
PLAYER_REALITY_CHECK_MINUTES = env.int("PLAYER_REALITY_CHECK_MINUTES", default=60)
PLAYER_LIMIT_COOLING_OFF_HOURS = env.int("PLAYER_LIMIT_COOLING_OFF_HOURS", default=24)
# /metrics (Prometheus) answers staff, and a scraper sending "Authorization: Bearer <METRICS_TOKEN>".
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
SPECTACULAR_SETTINGS = {
    "TITLE": "Punto partner API",
    "DESCRIPTION": "Live baccarat (punto banco) tables for partners.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "CoupStateEnum": "tables.models.Coup.State",
        "BetStateEnum": "wagering.models.Bet.State",
        "ShoeStateEnum": "tables.models.Shoe.State",
        "TableStateEnum": "partners.api.serializers.TABLE_STATES",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"axes": {"level": "WARNING"}},  # a line per sign-in otherwise; lock-outs are warnings
}
