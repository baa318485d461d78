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

Pure helpers (settings, URI, configuration text, command line) import nothing outside the standard library, so
the unit tests run them without MLflow installed; tests/test_mlflow_server_e2e.py runs the whole script against
PostgreSQL and an S3 stand-in.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import sys
import time
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
_TEAM_USERNAME = re.compile(r"MLFLOW_TEAM_([A-Z0-9_]+)_USERNAME")
# Variables only this script needs; the server process never sees them.
_BOOTSTRAP_ONLY = re.compile(r"MLFLOW_DB_PASSWORD|MLFLOW_AUTH_ADMIN_PASSWORD|MLFLOW_TEAM_[A-Z0-9_]+_(USERNAME|PASSWORD)")


class ConfigurationError(RuntimeError):
    """A required variable is missing or invalid; the message names it."""


def log(message: str) -> None:
    print(f"[entrypoint] {message}", file=sys.stderr, flush=True)


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

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        def need(name: str) -> str:
            value = env.get(name, "")
            if not value:
                raise ConfigurationError(f"environment variable {name} is missing or empty; the task definition "
                                         f"must set it")
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
            raise ConfigurationError(f"MLFLOW_AUTH_DEFAULT_PERMISSION {permission!r} must be READ, EDIT, MANAGE or "
                                     f"NO_PERMISSIONS")
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
        )
        if auth and len(settings.admin_password) < 12:
            raise ConfigurationError("MLFLOW_AUTH_ADMIN_PASSWORD is shorter than 12 characters, which MLflow rejects")
        if settings.auth_db_name == settings.db_name:
            raise ConfigurationError("MLFLOW_AUTH_DB_NAME must differ from MLFLOW_DB_NAME")
        return settings

    @property
    def users(self) -> tuple[User, ...]:
        """Every user the entry point owns: the admin first, then the teams."""
        return (User(self.admin_username, self.admin_password, is_admin=True), *self.team_users)


def _team_users(env: Mapping[str, str], need) -> tuple[User, ...]:
    users = []
    for name in sorted(env):
        match = _TEAM_USERNAME.fullmatch(name)
        if not match:
            continue
        password_var = f"MLFLOW_TEAM_{match.group(1)}_PASSWORD"
        user = User(need(name), need(password_var))
        if not user.username.startswith(TEAM_USER_PREFIX):
            raise ConfigurationError(f"{name} {user.username!r} must start with {TEAM_USER_PREFIX!r}: team users are "
                                     f"the ones the entry point owns")
        if len(user.password) < 12:
            raise ConfigurationError(f"{password_var} is shorter than 12 characters, which MLflow rejects")
        users.append(user)
    names = [u.username for u in users]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"two MLFLOW_TEAM_*_USERNAME variables name the same user: {sorted(names)}")
    return tuple(users)


def team_of(username: str) -> str | None:
    """The team of a platform team user (``team-<team>``), else None."""
    return username[len(TEAM_USER_PREFIX):] if username.startswith(TEAM_USER_PREFIX) else None


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
        return (f"{kind} names of team {team} start with {prefix!r} (e.g. {prefix}my-{kind.split()[-1]}); "
                f"{name!r} is outside the team's prefix")
    return None


def authenticate_team_request():
    """``authorization_function`` of the server: MLflow's basic auth, then :func:`name_refusal` (403)."""
    from flask import jsonify, make_response, request
    from mlflow.server import auth
    from werkzeug.datastructures import Authorization

    result = auth.authenticate_request_basic_auth()
    if not isinstance(result, Authorization) or request.method != "POST" or \
            not any(request.path.endswith(k) for k in NAME_CHANGES):
        return result
    user = auth.store.get_user(result.username)
    refusal = name_refusal(result.username, bool(user.is_admin), request.method, request.path,
                           request.get_json(force=True, silent=True))
    if refusal is None:
        return result
    return make_response(jsonify(error_code="PERMISSION_DENIED", message=refusal), 403)


AUTHORIZATION_FUNCTION = f"{Path(__file__).stem}:{authenticate_team_request.__name__}"
"""What the ini names; the server finds this module on PYTHONPATH (:func:`server_environment`)."""


def postgres_uri(s: Settings, database: str) -> str:
    """SQLAlchemy URI of ``database`` on the cluster, TLS required, credentials percent-encoded."""
    user, password = quote(s.db_username, safe=""), quote(s.db_password, safe="")
    return f"postgresql+psycopg2://{user}:{password}@{s.db_host}:{s.db_port}/{quote(database, safe='')}" \
           f"?sslmode=require"


def auth_config_text(s: Settings) -> str:
    """The basic-auth ini file. ``configparser`` interpolates ``%``, so percent-encoded URIs are escaped."""
    uri = postgres_uri(s, s.auth_db_name).replace("%", "%%")
    return (
        "[mlflow]\n"
        f"default_permission = {s.default_permission}\n"
        f"database_uri = {uri}\n"
        f"admin_username = {s.admin_username}\n"
        f"authorization_function = {AUTHORIZATION_FUNCTION}\n"
        "grant_default_workspace_access = false\n"
    )


def server_command(s: Settings) -> list[str]:
    """``mlflow server`` arguments. The backend store URI travels in MLFLOW_BACKEND_STORE_URI instead."""
    cmd = [
        "mlflow", "server",
        "--host", "0.0.0.0",  # noqa: S104 - inside the task's network namespace; the security group limits it
        "--port", str(PORT),
        "--workers", str(s.workers),
        "--serve-artifacts",
        "--artifacts-destination", s.artifacts_destination,
        "--allowed-hosts", s.allowed_hosts,
    ]
    if s.auth:
        cmd += ["--app-name", "basic-auth"]
    return cmd


def server_environment(s: Settings, env: Mapping[str, str]) -> dict[str, str]:
    out = {k: v for k, v in env.items() if not _BOOTSTRAP_ONLY.fullmatch(k)}
    out["MLFLOW_BACKEND_STORE_URI"] = postgres_uri(s, s.db_name)
    if s.auth:
        out["MLFLOW_AUTH_CONFIG_PATH"] = str(AUTH_CONFIG_PATH)
        here = str(Path(__file__).resolve().parent)  # /app in the image: authenticate_team_request's module
        out["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    return out


def write_auth_config(s: Settings, path: Path = AUTH_CONFIG_PATH) -> Path:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(auth_config_text(s))
    return path


# ---- steps that talk to PostgreSQL and MLflow (tests/test_mlflow_server_e2e.py runs them for real) -------------
def _connect(s: Settings, database: str | None = None, attempts: int = 30, delay: float = 5.0):
    import psycopg2

    for attempt in range(1, attempts + 1):
        try:
            return psycopg2.connect(host=s.db_host, port=s.db_port, dbname=database or s.db_name,
                                    user=s.db_username, password=s.db_password, sslmode="require",
                                    connect_timeout=10)
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
            raise RuntimeError(f"the tracking schema is at revision {current}, which this image's MLflow does not "
                               f"know (its newest is {head}): a newer MLflow upgraded it. Roll back by restoring the "
                               f"database from before that upgrade (README, 'Upgrading MLflow')")
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
    return sorted(n for n in existing
                  if n not in keep and (n.startswith(TEAM_USER_PREFIX) or n in RETIRED_USERS))


def reconcile_users(s: Settings) -> None:
    from mlflow.exceptions import MlflowException
    from mlflow.server.auth.sqlalchemy_store import SqlAlchemyStore

    store = SqlAlchemyStore()
    store.init_db(postgres_uri(s, s.auth_db_name))  # also runs the user store's migrations
    for user in s.users:
        action = ensure_user(store, user, conflict=MlflowException)
        log(f"{action} {'admin' if user.is_admin else 'team'} user {user.username!r}")
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
    except ConfigurationError as exc:
        sys.exit(f"[entrypoint] {exc}")
    bootstrap(settings)
    if settings.auth:
        write_auth_config(settings)
    cmd = server_command(settings)
    os.execvpe(cmd[0], cmd, server_environment(settings, os.environ))


if __name__ == "__main__":
    main()
