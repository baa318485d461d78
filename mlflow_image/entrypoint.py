"""Container entry point of the MLflow tracking server.

ECS injects the database and user credentials from Secrets Manager as environment variables. Before serving,
this script:

1. builds the PostgreSQL URIs of the tracking store and of the basic-auth user store (a second database,
   ``MLFLOW_AUTH_DB_NAME``, in the same Aurora cluster), retrying while an auto-paused Aurora Serverless v2 cluster
   resumes;
2. takes a PostgreSQL advisory lock (:data:`BOOTSTRAP_LOCK_KEY`, session level, on the tracking database), so that
   tasks starting together (every first deploy with two tasks, every scale-out, every rolling deploy) bootstrap one
   after the other; a task that dies releases the lock with its connection;
3. under the lock: creates the user-store database if missing ("already exists" from a concurrent creator counts as
   success); creates the tracking schema on an empty database, or runs the migrations ``mlflow db upgrade`` runs
   when the schema is older than this image's MLflow (and refuses to start on a schema newer than it: see
   "Rollback" in the README); runs the user store's migrations; creates or resets the admin user and one user per
   team (``MLFLOW_TEAM_<TEAM>_USERNAME``/``_PASSWORD``) to the injected passwords, and locks (random password)
   every ``team-*`` user whose team is gone and the retired shared client user, so neither a default password nor
   a stale one is ever accepted;
4. writes the basic-auth configuration file (mode 0600) that ``MLFLOW_AUTH_CONFIG_PATH`` points to, whose
   ``authorization_function`` is :func:`authenticate_team_request` (basic auth + the team name prefixes below);
5. replaces itself with ``mlflow server``, passing the store URI in the environment (not on the command line)
   and dropping the passwords the server does not need.

Team names (issue 21). Experiment and registered-model names are global in MLflow, so a team could pre-create the
name another team's job is about to use (403 / RESOURCE_ALREADY_EXISTS for the victim). Every name a team user
creates therefore carries its team (team names are DNS labels: no '/' and no '.', so the prefix is unambiguous):

- experiments: ``<team>/<name>`` (:data:`EXPERIMENT_SEPARATOR`; MLflow 3.17.2 accepts any non-empty experiment name
  up to its length limit, mlflow/utils/validation.py ``_validate_experiment_name``);
- registered models (and prompts, which share the endpoint): ``<team>.<name>`` (:data:`MODEL_SEPARATOR`; MLflow
  refuses '/' and ':' in model names, ``_validate_model_name``, because ``models:/<name>/<version>`` URIs split on
  '/').

The server enforces it: :func:`authenticate_team_request`, MLflow's supported extension point for authentication
(``authorization_function`` in the basic-auth ini, mlflow/server/auth/__init__.py ``get_auth_func``: a function
returning the request's ``Authorization`` or a ``Response``), authenticates with MLflow's own basic auth and then
refuses (403 ``PERMISSION_DENIED``) a create or rename of an experiment or registered model whose new name is
outside the caller's prefix. The user ``team-<team>`` is team ``<team>``; admins are exempt; other non-admin users
may not create names. Everything else (permissions per experiment/model, NO_PERMISSIONS default) is MLflow's.

Load and bad requests (issue 32). The server runs as MLflow's own basic-auth app wrapped in ``RequestGuard``
(request_guard.py; registered as the MLflow app plugin :data:`APP_NAME`, see ``mlflow_platform_server-1.0.dist-info``):

- credentials: MLflow checks the password with scrypt (~100 ms, 32 MiB) and calls the authorization function once
  per permission check, 3-5 times a request. The ini turns MLflow's credential cache on
  (``auth_cache_ttl_seconds``, mlflow/server/auth/config.py ``read_auth_config``; a revoked or changed password
  stops working within :data:`AUTH_CACHE_TTL_SECONDS` on every worker, at once on the worker that changed it and at
  every restart), :func:`authenticate_team_request` verifies once per request (``flask.g``), and at most
  :data:`PASSWORD_CHECKS_PER_WORKER` scrypt checks run at once in a worker (wrong passwords are never cached); a
  team user's generated secret is checked without scrypt (:func:`service_credential`, issue 46);
- waits (issue 46): the server's database sessions run with ``statement_timeout``/``lock_timeout``
  (:class:`Timeouts`), a request gets at most :data:`REQUEST_TIMEOUT_S` (503, "may still be applied"), and
  ``/health`` answers 503 while the backend is stalled (request_guard.py ``StallWatch``);
- bodies (request_guard.py): at most ``MAX_BODY_BYTES`` (413 before the body is read when Content-Length says so;
  artifact uploads, which MLflow streams to S3, are exempt); bodies over ``LARGE_BODY_BYTES`` share a budget of
  ``BODY_BUDGET_BYTES`` per worker (a request waits for its share; TCP holds the rest back): memory bounded;
- JSON: decoded as MLflow decodes it (mlflow/server/handlers.py ``_get_normalized_request_json``: a JSON string
  is decoded once more); anything but an object, NUL or unpaired surrogates (PostgreSQL refuses them), nesting
  deeper than ``MAX_JSON_DEPTH``, integers outside int64 and over-long params/tags (``MLFLOW_TRUNCATE_LONG_VALUES``
  off: refused, not cut) are a 400 with a clean message;
- error bodies never carry SQL, driver messages or the database host: such a body (and every 5xx body) is replaced
  by a generic message with a reference that the server log has next to the original.

Pure helpers (settings, URI, configuration text, command line) import nothing outside the standard library, so
the unit tests run them without MLflow installed; tests/test_mlflow_server_e2e.py runs the whole script against
PostgreSQL and an S3 stand-in.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib
import json
import os
import re
import secrets
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

PORT = int(os.environ.get("MLFLOW_PORT", "5000"))  # the task definition's container port; tests run several
AUTH_CONFIG_PATH = Path(os.environ.get("TMPDIR", "/tmp")) / "mlflow-auth" / "basic_auth.ini"
BOOTSTRAP_LOCK_KEY = 0x6D6C_666C_6F77_0001
"""pg_advisory_lock key ("mlflow" + 1) serializing bootstrap and migrations across tasks. Advisory locks are per
database; every task takes it on the tracking database."""
LOCK_TIMEOUT_SECONDS = 900
TEAM_USER_PREFIX = "team-"
"""Users with this prefix belong to the platform: one per team, reconciled from the injected secrets at start."""
RETIRED_USERS = ("mlflow-client",)
"""The shared client user of earlier releases: locked at every start (its experiments stay, admins reassign them)."""
EXPERIMENT_SEPARATOR = "/"
MODEL_SEPARATOR = "."
NAME_CHANGES = {
    # REST path (after /api/2.0, /ajax-api/2.0 or .../preview) -> (JSON field with the new name, what it names)
    "/mlflow/experiments/create": ("name", "experiment"),
    "/mlflow/experiments/update": ("new_name", "experiment"),
    "/mlflow/registered-models/create": ("name", "registered model"),
    "/mlflow/registered-models/rename": ("new_name", "registered model"),
}
"""The MLflow REST calls that give an experiment or registered model a name (mlflow/server/handlers.py routes)."""
LOCATION_FIELDS = {
    # REST path -> the JSON field that names a storage location
    "/mlflow/model-versions/create": "source",
    "/mlflow/experiments/create": "artifact_location",
}
"""The MLflow REST calls whose body names where artifacts are read from or written to."""
TEAM_SOURCE_SCHEMES = ("runs:/", "models:/", "mlflow-artifacts:/")
"""The only model version sources a team user may register: references MLflow resolves through the run, logged
model or proxied artifact it authorizes for the caller (what the training package registers:
``mlflow.transformers.log_model(registered_model_name=...)`` sends ``models:/<model id>``, and a ``runs:/`` URI
becomes the run's ``mlflow-artifacts:`` root; mlflow/tracking/_model_registry/fluent.py ``_register_model``). A raw
``s3://`` (or ``file:``, ``http(s):``...) source is served by ``get-artifact`` with the server's own role, which can
read every team's prefix: MLflow checks such a source against nothing (second red team, class 6)."""
APP_NAME = "platform-basic-auth"
"""``mlflow server --app-name``: MLflow's basic-auth app inside :class:`RequestGuard` (:func:`create_app`), found
through the ``mlflow.app`` entry point of ``mlflow_platform_server-1.0.dist-info`` next to this file."""
OPEN_APP_NAME = "platform"
"""The same without authentication (``MLFLOW_AUTH=none``): :func:`create_open_app`."""
AUTH_CACHE_TTL_SECONDS = 60
"""MLflow's credential cache (``auth_cache_ttl_seconds``): a password is verified at most once a minute per worker
and credential; a revoked or rotated password is refused by every worker at most this long after the change."""
AUTH_CACHE_MAX_SIZE = 1000
PASSWORD_CHECKS_PER_WORKER = 2
"""scrypt checks (32 MiB each) running at once in one worker; the others wait their turn."""
DB_STATEMENT_TIMEOUT_MS = 15_000
"""PostgreSQL ``statement_timeout`` of the server's sessions (``MLFLOW_DB_STATEMENT_TIMEOUT_MS``): a statement
running longer is cancelled and its transaction rolled back, so the request fails whole (no write lands later)."""
DB_LOCK_TIMEOUT_MS = 5_000
"""PostgreSQL ``lock_timeout`` (``MLFLOW_DB_LOCK_TIMEOUT_MS``): a statement waiting longer for a lock (an ACCESS
EXCLUSIVE lock of a migration or a VACUUM FULL) fails the same way, well before a client's own timeout."""
REQUEST_TIMEOUT_S = 60.0
"""The longest a request may take in the server (``MLFLOW_REQUEST_TIMEOUT_S``); past it the client gets 503 saying
the request may still be applied (a write can only outlive its answer through several statements, each bounded by the
two timeouts above). A backend that kept a request this long makes ``/health`` answer 503 for as long again."""
_TEAM_USERNAME = re.compile(r"MLFLOW_TEAM_([A-Z0-9_]+)_USERNAME")
# Variables only this script needs; the server process never sees them.
_BOOTSTRAP_ONLY = re.compile(
    r"MLFLOW_DB_PASSWORD|MLFLOW_AUTH_ADMIN_PASSWORD|MLFLOW_EVALUATOR_PASSWORD|MLFLOW_TEAM_[A-Z0-9_]+_(USERNAME|PASSWORD)"
)


class ConfigurationError(RuntimeError):
    """A required variable is missing or invalid; the message names it."""


def log(message: str) -> None:
    print(f"[entrypoint] {message}", file=sys.stderr, flush=True)  # request_guard.py logs with the same prefix


@dataclass(frozen=True)
class User:
    username: str
    password: str
    is_admin: bool = False


@dataclass(frozen=True)
class Settings:
    db_host: str
    db_port: int
    db_name: str
    db_username: str
    db_password: str
    artifacts_destination: str
    allowed_hosts: str
    workers: int
    auth: bool
    auth_db_name: str = "mlflow_auth"
    default_permission: str = "NO_PERMISSIONS"
    admin_username: str = ""
    admin_password: str = ""
    team_users: tuple[User, ...] = ()
    evaluator: User | None = None  # the platform's evaluator (registry_gate.py), an admin of MLflow's

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        def need(name: str) -> str:
            value = env.get(name, "")
            if not value:
                raise ConfigurationError(
                    f"environment variable {name} is missing or empty; the task definition must set it"
                )
            return value

        auth_mode = env.get("MLFLOW_AUTH", "basic-auth")
        if auth_mode not in ("basic-auth", "none"):
            raise ConfigurationError(f"MLFLOW_AUTH {auth_mode!r} must be 'basic-auth' or 'none'")
        auth = auth_mode == "basic-auth"
        destination = need("MLFLOW_ARTIFACTS_DESTINATION")
        if not destination.startswith("s3://"):
            raise ConfigurationError(f"MLFLOW_ARTIFACTS_DESTINATION {destination!r} must be an s3:// URI")
        permission = env.get("MLFLOW_AUTH_DEFAULT_PERMISSION", "NO_PERMISSIONS")
        if permission not in ("READ", "EDIT", "MANAGE", "NO_PERMISSIONS"):
            raise ConfigurationError(
                f"MLFLOW_AUTH_DEFAULT_PERMISSION {permission!r} must be READ, EDIT, MANAGE or NO_PERMISSIONS"
            )
        settings = cls(
            db_host=need("MLFLOW_DB_HOST"),
            db_port=int(env.get("MLFLOW_DB_PORT", "5432")),
            db_name=need("MLFLOW_DB_NAME"),
            db_username=need("MLFLOW_DB_USERNAME"),
            db_password=need("MLFLOW_DB_PASSWORD"),
            artifacts_destination=destination,
            allowed_hosts=need("MLFLOW_SERVER_ALLOWED_HOSTS"),
            workers=int(env.get("MLFLOW_WORKERS", "2")),
            auth=auth,
            auth_db_name=env.get("MLFLOW_AUTH_DB_NAME", "mlflow_auth"),
            default_permission=permission,
            admin_username=need("MLFLOW_AUTH_ADMIN_USERNAME") if auth else "",
            admin_password=need("MLFLOW_AUTH_ADMIN_PASSWORD") if auth else "",
            team_users=_team_users(env, need) if auth else (),
            evaluator=_evaluator_user(env) if auth else None,
        )
        if auth and len(settings.admin_password) < 12:
            raise ConfigurationError("MLFLOW_AUTH_ADMIN_PASSWORD is shorter than 12 characters, which MLflow rejects")
        if settings.auth_db_name == settings.db_name:
            raise ConfigurationError("MLFLOW_AUTH_DB_NAME must differ from MLFLOW_DB_NAME")
        return settings

    @property
    def users(self) -> tuple[User, ...]:
        """Every user the entry point owns: the admin first, then the teams, then the evaluator."""
        admin = User(self.admin_username, self.admin_password, is_admin=True)
        return (admin, *self.team_users, *((self.evaluator,) if self.evaluator else ()))


def _evaluator_user(env: Mapping[str, str]) -> User | None:
    """The platform's evaluator (``MLFLOW_EVALUATOR_USERNAME``/``_PASSWORD``, both or neither): the only non-admin
    secret allowed to write the production gate (registry_gate.py)."""
    username, password = env.get("MLFLOW_EVALUATOR_USERNAME", ""), env.get("MLFLOW_EVALUATOR_PASSWORD", "")
    if not username and not password:
        return None
    if not username or len(password) < 12 or username.startswith(TEAM_USER_PREFIX):
        raise ConfigurationError(
            f"MLFLOW_EVALUATOR_USERNAME {username!r} and MLFLOW_EVALUATOR_PASSWORD go together: a user name outside "
            f"{TEAM_USER_PREFIX!r}* and a password of at least 12 characters (the platform's evaluator secret)"
        )
    return User(username, password, is_admin=True)


def _team_users(env: Mapping[str, str], need) -> tuple[User, ...]:
    users = []
    for name in sorted(env):
        match = _TEAM_USERNAME.fullmatch(name)
        if not match:
            continue
        password_var = f"MLFLOW_TEAM_{match.group(1)}_PASSWORD"
        user = User(need(name), need(password_var))
        if not user.username.startswith(TEAM_USER_PREFIX):
            raise ConfigurationError(
                f"{name} {user.username!r} must start with {TEAM_USER_PREFIX!r}: team users are "
                f"the ones the entry point owns"
            )
        if len(user.password) < 12:
            raise ConfigurationError(f"{password_var} is shorter than 12 characters, which MLflow rejects")
        users.append(user)
    names = [u.username for u in users]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"two MLFLOW_TEAM_*_USERNAME variables name the same user: {sorted(names)}")
    return tuple(users)


@dataclass(frozen=True)
class Timeouts:
    """How long the server waits on its database and on a request (issue 46: a held lock stalled every writer)."""

    statement_ms: int = DB_STATEMENT_TIMEOUT_MS
    lock_ms: int = DB_LOCK_TIMEOUT_MS
    request_s: float = REQUEST_TIMEOUT_S

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Timeouts:
        """Every problem at once, each naming the variable, its value and the rule."""
        names = ("MLFLOW_DB_STATEMENT_TIMEOUT_MS", "MLFLOW_DB_LOCK_TIMEOUT_MS", "MLFLOW_REQUEST_TIMEOUT_S")
        values, problems = [], []
        for name, default in zip(names, (cls.statement_ms, cls.lock_ms, cls.request_s), strict=True):
            raw = env.get(name, "")
            try:
                value = float(raw) if raw else float(default)
            except ValueError:
                value = -1.0
            if not value > 0:
                problems.append(f"{name} {raw!r} must be a positive number (default {default})")
            values.append(value)
        statement, lock, request = values
        if not problems and lock > statement:
            problems.append(f"{names[1]} {lock:.0f} must not exceed {names[0]} {statement:.0f}")
        if not problems and request * 1000 <= statement:
            problems.append(f"{names[2]} {request:g} s must exceed {names[0]} ({statement / 1000:g} s)")
        if problems:
            raise ConfigurationError("; ".join(problems))
        return cls(int(statement), int(lock), request)

    def libpq_options(self) -> str:
        """libpq's ``options`` (run-time parameters sent at connection start) for the server's sessions."""
        return f"-c statement_timeout={self.statement_ms} -c lock_timeout={self.lock_ms}"


def bounded_uri(uri: str, timeouts: Timeouts) -> str:
    """``uri`` (a :func:`postgres_uri`) whose sessions run with ``timeouts`` (SQLAlchemy hands the query's
    ``options`` to psycopg2.connect, libpq's ``options`` connection parameter)."""
    return f"{uri}&options={quote(timeouts.libpq_options(), safe='')}"


def team_of(username: str) -> str | None:
    """The team of a platform team user (``team-<team>``), else None."""
    return username[len(TEAM_USER_PREFIX) :] if username.startswith(TEAM_USER_PREFIX) else None


def team_prefix(team: str, kind: str) -> str:
    return f"{team}{EXPERIMENT_SEPARATOR if kind == 'experiment' else MODEL_SEPARATOR}"


def name_refusal(username: str, is_admin: bool, method: str, path: str, body: Mapping | None) -> str | None:
    """Why the request may not name an experiment or registered model as it asks (None: it may). Pure: the unit
    tests call it directly; :func:`authenticate_team_request` calls it for every authenticated request."""
    if is_admin or method != "POST":
        return None
    change = next((v for k, v in NAME_CHANGES.items() if path.endswith(k)), None)
    if change is None:
        return None
    field, kind = change
    name = (body or {}).get(field)
    if not isinstance(name, str):
        return None  # MLflow itself refuses a missing or malformed name
    team = team_of(username)
    if team is None:
        return f"user {username!r} belongs to no team and may not name a {kind}; ask an MLflow admin"
    prefix = team_prefix(team, kind)
    if not name.startswith(prefix) or len(name) == len(prefix):
        return (
            f"{kind} names of team {team} start with {prefix!r} (e.g. {prefix}my-{kind.split()[-1]}); "
            f"{name!r} is outside the team's prefix"
        )
    return None


def location_refusal(username: str, is_admin: bool, method: str, path: str, body: Mapping | None) -> str | None:
    """Why the request may not name the storage location it asks for (None: it may): a team user's model version
    ``source`` must be one of :data:`TEAM_SOURCE_SCHEMES`, and only admins choose an experiment's
    ``artifact_location`` (the server's default puts it under its proxied artifact root)."""
    if is_admin or method != "POST":
        return None
    field = next((f for k, f in LOCATION_FIELDS.items() if path.endswith(k)), None)
    if field is None:
        return None
    value = (body or {}).get(field)
    if value is None or value == "":
        return None
    if field == "artifact_location":
        return (
            "only MLflow admins set an experiment's artifact_location: leave it out and the server stores the "
            "experiment's artifacts under its own artifact root"
        )
    if not isinstance(value, str) or not value.startswith(TEAM_SOURCE_SCHEMES):
        return (
            f"a model version's source must be a {', '.join(TEAM_SOURCE_SCHEMES)} URI of the team's own run or "
            f"model (mlflow.register_model('runs:/<run id>/model', ...)); {str(value)[:80]!r} names storage "
            f"directly"
        )
    return None


_VERIFY_SLOTS = threading.BoundedSemaphore(PASSWORD_CHECKS_PER_WORKER)
_VERIFY_LOCKS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_VERIFY_LOCKS_GUARD = threading.Lock()
_VERIFY_KEY = os.urandom(32)


_RECENTLY_VERIFIED: dict[tuple[str, bytes], float] = {}
"""Credentials verified in this worker less than half a cache TTL ago (monotonic expiry): MLflow's cache holds
them, so their requests skip the lock and the scrypt slots. Bounded like MLflow's cache."""


def _credential_key(username: str, password: str) -> tuple[str, bytes]:
    return username, hmac.new(_VERIFY_KEY, password.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()


def _verify_lock(key: tuple[str, bytes]) -> threading.Lock:
    """One lock per credential: concurrent first requests with the same credential run one scrypt check and the
    others then find it in MLflow's cache; different credentials (a wrong password too) do not wait on each other."""
    with _VERIFY_LOCKS_GUARD:
        lock = _VERIFY_LOCKS.get(key)
        if lock is None:
            lock = _VERIFY_LOCKS[key] = threading.Lock()
        return lock


def _verified(key: tuple[str, bytes]) -> None:
    now = time.monotonic()
    with _VERIFY_LOCKS_GUARD:
        if len(_RECENTLY_VERIFIED) >= AUTH_CACHE_MAX_SIZE:
            for k in [k for k, until in _RECENTLY_VERIFIED.items() if until <= now] or list(_RECENTLY_VERIFIED):
                del _RECENTLY_VERIFIED[k]
        _RECENTLY_VERIFIED[key] = now + AUTH_CACHE_TTL_SECONDS / 2


def _recently_verified(key: tuple[str, bytes]) -> bool:
    until = _RECENTLY_VERIFIED.get(key)
    return until is not None and until > time.monotonic()


SERVICE_CREDENTIALS_PATH = AUTH_CONFIG_PATH.with_name("service_users.json")
"""Written at bootstrap (mode 0600, next to the ini): for each team user -- a service user whose password is a
generated secret injected from Secrets Manager -- a salted SHA-256 of that password and the password hash the user
store held then (issue 46: the first request of each credential queued behind the scrypt slots)."""


def service_verifiers(users: tuple[User, ...], stored_hashes: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """The verifier file's content for ``users`` (team users only: a human's password is no generated secret, and
    a fast hash of it would be open to guessing)."""
    out = {}
    for user in users:
        if user.is_admin or team_of(user.username) is None or user.username not in stored_hashes:
            continue
        salt = secrets.token_hex(16)
        digest = hashlib.sha256(bytes.fromhex(salt) + user.password.encode("utf-8")).hexdigest()
        out[user.username] = {"salt": salt, "sha256": digest, "stored_hash": stored_hashes[user.username]}
    return out


_SERVICE: dict[str, dict[str, str]] | None = None


def _service_entry(username: str, path: Path = SERVICE_CREDENTIALS_PATH) -> dict[str, str] | None:
    global _SERVICE
    if _SERVICE is None:
        try:
            _SERVICE = json.loads(path.read_text())
        except (OSError, ValueError):
            _SERVICE = {}
        log(f"service credentials: {len(_SERVICE)} team user(s) checked without scrypt in worker {os.getpid()}")
    return _SERVICE.get(username)


def service_credential(auth, username: str, password: str, entry: Mapping[str, str] | None) -> bool:
    """Whether ``username``/``password`` is a team user's current credential, checked without scrypt: the salted
    SHA-256 of :data:`SERVICE_CREDENTIALS_PATH` matches, and the user store still holds the password hash it held at
    bootstrap (one indexed SELECT: a password changed or a user deleted since is never accepted this way). A match
    goes into MLflow's own credential cache (``auth._USER_AUTH_CACHE``, MLflow 3.17.2), whose TTL and invalidation
    then apply as to any credential; without that cache (another MLflow) this answers False and scrypt decides."""
    cache, lock, cache_key = (
        getattr(auth, n, None) for n in ("_USER_AUTH_CACHE", "_USER_AUTH_CACHE_LOCK", "_auth_cache_key")
    )
    if entry is None or cache is None or lock is None or cache_key is None:
        return False
    try:
        digest = hashlib.sha256(bytes.fromhex(entry["salt"]) + password.encode("utf-8")).hexdigest()
    except (KeyError, ValueError, UnicodeEncodeError):
        return False
    if not hmac.compare_digest(digest, entry.get("sha256", "")):
        return False
    try:
        with auth.store.ManagedSessionMaker() as session:
            if auth.store._get_user(session, username).password_hash != entry.get("stored_hash"):
                return False
        user = auth.store.get_user(username)
    except Exception:  # noqa: BLE001 - a deleted user, an unreachable store: scrypt decides (and refuses)
        return False
    with lock:
        cache[cache_key(username, password)] = user
    return True


def authenticate_team_request():
    """``authorization_function`` of the server: MLflow's basic auth, then :func:`name_refusal` (403).

    MLflow calls it for every permission check of a request (``sender_is_admin``, the validators): the answer is
    kept in ``flask.g`` for the rest of the request, and MLflow's credential cache (ini ``auth_cache_ttl_seconds``)
    spares the scrypt check for :data:`AUTH_CACHE_TTL_SECONDS`."""
    from flask import g, has_app_context, jsonify, make_response, request
    from mlflow.server import auth
    from werkzeug.datastructures import Authorization

    memo = g.get("platform_auth") if has_app_context() else None
    if memo is not None:
        return memo
    credentials = request.authorization
    if credentials is None or credentials.username is None or credentials.password is None:
        return auth.authenticate_request_basic_auth()  # MLflow's 401 (or its token handling)
    key = _credential_key(credentials.username, credentials.password)
    if _recently_verified(key):
        result = auth.authenticate_request_basic_auth()  # a hit in MLflow's credential cache
    elif service_credential(auth, credentials.username, credentials.password, _service_entry(credentials.username)):
        _verified(key)
        result = auth.authenticate_request_basic_auth()  # a team user's secret, checked without scrypt: cached
    else:
        with _verify_lock(key), _VERIFY_SLOTS:
            result = auth.authenticate_request_basic_auth()
        if isinstance(result, Authorization):
            _verified(key)
    if (
        isinstance(result, Authorization)
        and request.method == "POST"
        and any(request.path.endswith(k) for k in (*NAME_CHANGES, *LOCATION_FIELDS))
    ):
        user = auth.store.get_user(result.username)
        guard = _beside("request_guard")
        try:
            body = guard.decode_body(request.get_data(cache=True))
        except guard.BadRequest as exc:
            return make_response(jsonify(error_code="INVALID_PARAMETER_VALUE", message=str(exc)), 400)
        admin = bool(user.is_admin)
        refusal = name_refusal(result.username, admin, request.method, request.path, body) or location_refusal(
            result.username, admin, request.method, request.path, body
        )
        if refusal is not None:
            result = make_response(jsonify(error_code="PERMISSION_DENIED", message=refusal), 403)
    if isinstance(result, Authorization) and _registry_gate().concerns(request.path, result.username):
        refusal = _registry_gate().check_request(
            request, result.username, bool(auth.store.get_user(result.username).is_admin)
        )
        if refusal is not None:  # the production gate (issue 40): only the platform's evaluator writes it
            result = make_response(jsonify(error_code="PERMISSION_DENIED", message=refusal), 403)
    if has_app_context() and isinstance(result, Authorization):
        g.platform_auth = result
    return result


def _beside(module: str):
    """A module of the image beside this file (on the server's PYTHONPATH; the folder is added here when this file
    is loaded by its path, as the unit tests do): ``request_guard``, ``registry_gate``."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.append(here)
    return importlib.import_module(module)


def _registry_gate():
    """registry_gate.py: the production gate's rules (issue 40)."""
    return _beside("registry_gate")


def create_app():
    """The app ``mlflow server --app-name`` :data:`APP_NAME` serves: MLflow's basic-auth app (its ``create_app``,
    the ``basic-auth`` entry point) inside ``RequestGuard`` (request_guard.py). The database host is one of the words
    no error body may contain."""
    from mlflow.server.auth import create_app as mlflow_auth_app

    return _beside("request_guard").RequestGuard(
        mlflow_auth_app(), hidden=_database_hosts(os.environ), request_timeout=Timeouts.from_env(os.environ).request_s
    )


def create_open_app():
    """:func:`create_app` without authentication (``MLFLOW_AUTH=none``): MLflow's FastAPI app, guarded."""
    from mlflow.server.fastapi_app import app

    return _beside("request_guard").RequestGuard(
        app, hidden=_database_hosts(os.environ), request_timeout=Timeouts.from_env(os.environ).request_s
    )


def _database_hosts(env: Mapping[str, str]) -> tuple[str, ...]:
    from urllib.parse import urlsplit

    hosts = {env.get("MLFLOW_DB_HOST", "")}
    with contextlib.suppress(ValueError):
        hosts.add(urlsplit(env.get("MLFLOW_BACKEND_STORE_URI", "")).hostname or "")
    return tuple(sorted(h for h in hosts if h))


AUTHORIZATION_FUNCTION = f"{Path(__file__).stem}:{authenticate_team_request.__name__}"
"""What the ini names; the server finds this module on PYTHONPATH (:func:`server_environment`)."""


def postgres_uri(s: Settings, database: str) -> str:
    """SQLAlchemy URI of ``database`` on the cluster, TLS required, credentials percent-encoded."""
    user, password = quote(s.db_username, safe=""), quote(s.db_password, safe="")
    return f"postgresql+psycopg2://{user}:{password}@{s.db_host}:{s.db_port}/{quote(database, safe='')}?sslmode=require"


def auth_config_text(s: Settings, timeouts: Timeouts | None = None) -> str:
    """The basic-auth ini file. ``configparser`` interpolates ``%``, so percent-encoded URIs are escaped. The user
    store's sessions run with ``timeouts`` (default :class:`Timeouts`' defaults)."""
    uri = bounded_uri(postgres_uri(s, s.auth_db_name), timeouts or Timeouts()).replace("%", "%%")
    return (
        "[mlflow]\n"
        f"default_permission = {s.default_permission}\n"
        f"database_uri = {uri}\n"
        f"admin_username = {s.admin_username}\n"
        f"authorization_function = {AUTHORIZATION_FUNCTION}\n"
        "grant_default_workspace_access = false\n"
        f"auth_cache_ttl_seconds = {AUTH_CACHE_TTL_SECONDS}\n"
        f"auth_cache_max_size = {AUTH_CACHE_MAX_SIZE}\n"
    )


def server_command(s: Settings) -> list[str]:
    """``mlflow server`` arguments. The backend store URI travels in MLFLOW_BACKEND_STORE_URI instead."""
    cmd = [
        "mlflow",
        "server",
        "--host",
        "0.0.0.0",  # noqa: S104 - inside the task's network namespace; the security group limits it
        "--port",
        str(PORT),
        "--workers",
        str(s.workers),
        "--serve-artifacts",
        "--artifacts-destination",
        s.artifacts_destination,
        "--allowed-hosts",
        s.allowed_hosts,
    ]
    cmd += ["--app-name", APP_NAME if s.auth else OPEN_APP_NAME]
    return cmd


def server_environment(s: Settings, env: Mapping[str, str]) -> dict[str, str]:
    out = {k: v for k, v in env.items() if not _BOOTSTRAP_ONLY.fullmatch(k)}
    out["MLFLOW_BACKEND_STORE_URI"] = bounded_uri(postgres_uri(s, s.db_name), Timeouts.from_env(env))
    out["MLFLOW_TRUNCATE_LONG_VALUES"] = "false"  # an over-long param or tag is a 400, never silently cut
    if s.auth:
        out["MLFLOW_AUTH_CONFIG_PATH"] = str(AUTH_CONFIG_PATH)
    # /app in the image: this module (the app factories, authenticate_team_request) and its mlflow.app entry points
    here = str(Path(__file__).resolve().parent)
    out["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    return out


def write_auth_config(s: Settings, path: Path = AUTH_CONFIG_PATH) -> Path:
    return write_private(path, auth_config_text(s, Timeouts.from_env(os.environ)))


def write_private(path: Path, text: str) -> Path:
    """``text`` into ``path``, readable by this user only (its directory too)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


# ---- steps that talk to PostgreSQL and MLflow (tests/test_mlflow_server_e2e.py runs them for real) -------------
def _connect(s: Settings, database: str | None = None, attempts: int = 30, delay: float = 5.0):
    import psycopg2

    for attempt in range(1, attempts + 1):
        try:
            return psycopg2.connect(
                host=s.db_host,
                port=s.db_port,
                dbname=database or s.db_name,
                user=s.db_username,
                password=s.db_password,
                sslmode="require",
                connect_timeout=10,
            )
        except psycopg2.OperationalError as exc:  # an auto-paused cluster takes ~15 s to resume
            if attempt == attempts:
                raise
            log(f"database not reachable yet ({exc.__class__.__name__}), retry {attempt}/{attempts}")
            time.sleep(delay)
    raise AssertionError("unreachable")


@contextlib.contextmanager
def bootstrap_lock(s: Settings, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the session-level advisory lock :data:`BOOTSTRAP_LOCK_KEY` on the tracking database.

    PostgreSQL releases it when the session ends, so a task killed during bootstrap never blocks the others.
    """
    conn = _connect(s)
    conn.autocommit = True
    try:
        deadline = time.monotonic() + timeout
        waited = False
        with conn.cursor() as cur:
            while True:
                cur.execute("SELECT pg_try_advisory_lock(%s)", (BOOTSTRAP_LOCK_KEY,))
                if cur.fetchone()[0]:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"another task held the bootstrap lock for more than {timeout:.0f} s")
                if not waited:
                    log("another task is bootstrapping; waiting for the bootstrap lock")
                    waited = True
                time.sleep(0.5)
        log("bootstrap lock taken" + (" after waiting" if waited else ""))
        yield
    finally:
        conn.close()  # ends the session, which releases the lock


def ensure_auth_database(s: Settings) -> None:
    """Create the user-store database once; "already exists" (a concurrent creator) is success."""
    from psycopg2 import errors, sql

    conn = _connect(s)
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (s.auth_db_name,))
            if cur.fetchone() is None:
                try:
                    cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(s.auth_db_name)))
                    log(f"created database {s.auth_db_name}")
                except (errors.DuplicateDatabase, errors.UniqueViolation):
                    log(f"database {s.auth_db_name} was created by another task")
    finally:
        conn.close()


def migrate_tracking_store(uri: str) -> str:
    """Bring the tracking store's schema to this MLflow's head, as ``mlflow db upgrade`` does (mlflow/db.py: an empty
    database gets MLflow's initial tables plus every migration, any other the migrations). Returns what it did.

    A revision this MLflow does not know means a newer image upgraded the database: refuse to start rather than
    serve on a schema the code does not understand (rollback: README, "Upgrading MLflow").
    """
    import sqlalchemy
    from alembic.script import ScriptDirectory
    from mlflow.store.db import utils as db_utils

    engine = sqlalchemy.create_engine(uri, poolclass=sqlalchemy.pool.NullPool)
    try:
        if db_utils._is_empty_database(engine):
            db_utils._initialize_tables(engine)
            return f"created the tracking schema at {db_utils._get_schema_version(engine)}"
        current, head = db_utils._get_schema_version(engine), db_utils._get_latest_schema_revision()
        if current == head:
            return f"tracking schema at {head}"
        script = ScriptDirectory.from_config(db_utils._get_alembic_config(""))
        if current is not None and current not in {rev.revision for rev in script.walk_revisions()}:
            raise RuntimeError(
                f"the tracking schema is at revision {current}, which this image's MLflow does not "
                f"know (its newest is {head}): a newer MLflow upgraded it. Roll back by restoring the "
                f"database from before that upgrade (README, 'Upgrading MLflow')"
            )
        log(f"tracking schema at {current}, upgrading to {head} (mlflow db upgrade)")
        db_utils._upgrade_db(engine)
        return f"upgraded the tracking schema from {current} to {db_utils._get_schema_version(engine)}"
    finally:
        engine.dispose()


def ensure_user(store, user: User, conflict: type[Exception] = Exception) -> str:
    """Create ``user`` or reset its password and role to the injected values. Returns what it did.

    ``conflict`` is the error ``create_user`` raises when the user exists already (created a moment ago).
    """
    if not store.has_user(user.username, use_primary=True):
        try:
            store.create_user(user.username, user.password, is_admin=user.is_admin)
            return "created"
        except conflict:
            pass
    store.update_user(user.username, password=user.password, is_admin=user.is_admin)
    return "updated"


def users_to_lock(existing: list[str], wanted: tuple[User, ...]) -> list[str]:
    """Platform-owned users (``team-*``, the retired shared client) that no injected secret names any more."""
    keep = {u.username for u in wanted}
    return sorted(n for n in existing if n not in keep and (n.startswith(TEAM_USER_PREFIX) or n in RETIRED_USERS))


def reconcile_users(s: Settings) -> None:
    from mlflow.exceptions import MlflowException
    from mlflow.server.auth.sqlalchemy_store import SqlAlchemyStore

    store = SqlAlchemyStore()
    store.init_db(postgres_uri(s, s.auth_db_name))  # also runs the user store's migrations
    for user in s.users:
        action = ensure_user(store, user, conflict=MlflowException)
        log(f"{action} {'admin' if user.is_admin else 'team'} user {user.username!r}")
    with store.ManagedSessionMaker() as session:
        stored = {u.username: store._get_user(session, u.username).password_hash for u in s.team_users}
    write_private(SERVICE_CREDENTIALS_PATH, json.dumps(service_verifiers(s.users, stored)))
    for username in users_to_lock([u.username for u in store.list_users()], s.users):
        # Locked, not deleted: its permissions and experiments stay for an admin to reassign or to re-enable.
        store.update_user(username, password=secrets.token_urlsafe(48), is_admin=False)
        log(f"locked user {username!r} (no secret names it any more)")


def bootstrap(s: Settings) -> None:
    """Everything that writes to the database before serving, one task at a time."""
    _connect(s).close()  # wait for the cluster (it may be resuming from auto-pause)
    with bootstrap_lock(s):
        if s.auth:
            ensure_auth_database(s)
        log(migrate_tracking_store(postgres_uri(s, s.db_name)))
        if s.auth:
            reconcile_users(s)


def main() -> None:
    try:
        settings = Settings.from_env(os.environ)
        Timeouts.from_env(os.environ)
    except ConfigurationError as exc:
        sys.exit(f"[entrypoint] {exc}")
    bootstrap(settings)
    if settings.auth:
        write_auth_config(settings)
    cmd = server_command(settings)
    os.execvpe(cmd[0], cmd, server_environment(settings, os.environ))


if __name__ == "__main__":
    main()
