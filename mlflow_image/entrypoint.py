"""Container entry point of the MLflow tracking server.

ECS injects the database and user credentials from Secrets Manager as environment variables. Before serving,
this script:

1. builds the PostgreSQL URIs of the tracking store and of the basic-auth user store (a second database,
   ``MLFLOW_AUTH_DB_NAME``, in the same Aurora cluster; created on first start), retrying while an auto-paused
   Aurora Serverless v2 cluster resumes;
2. writes the basic-auth configuration file (mode 0600) that ``MLFLOW_AUTH_CONFIG_PATH`` points to;
3. creates or updates the admin user with the injected admin password, and the non-admin client user with the
   injected client password, so neither a default password nor a stale one is ever accepted;
4. replaces itself with ``mlflow server``, passing the store URI in the environment (not on the command line)
   and dropping the passwords the server does not need.

Pure helpers (URI, configuration text, command line) import nothing outside the standard library, so the unit
tests run them without MLflow installed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

PORT = 5000
AUTH_CONFIG_PATH = Path(os.environ.get("TMPDIR", "/tmp")) / "mlflow-auth" / "basic_auth.ini"
# Variables only this script needs; the server process never sees them.
_BOOTSTRAP_ONLY = ("MLFLOW_DB_PASSWORD", "MLFLOW_CLIENT_USERNAME", "MLFLOW_CLIENT_PASSWORD",
                   "MLFLOW_AUTH_ADMIN_PASSWORD")


class ConfigurationError(RuntimeError):
    """A required variable is missing or invalid; the message names it."""


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
    default_permission: str = "READ"
    admin_username: str = ""
    admin_password: str = ""
    client_username: str = ""
    client_password: str = ""

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
            default_permission=env.get("MLFLOW_AUTH_DEFAULT_PERMISSION", "READ"),
            admin_username=need("MLFLOW_AUTH_ADMIN_USERNAME") if auth else "",
            admin_password=need("MLFLOW_AUTH_ADMIN_PASSWORD") if auth else "",
            client_username=need("MLFLOW_CLIENT_USERNAME") if auth else "",
            client_password=need("MLFLOW_CLIENT_PASSWORD") if auth else "",
        )
        if auth:
            if settings.admin_username == settings.client_username:
                raise ConfigurationError("MLFLOW_CLIENT_USERNAME must differ from MLFLOW_AUTH_ADMIN_USERNAME: the "
                                         "client credential is the non-admin one")
            for name in ("MLFLOW_AUTH_ADMIN_PASSWORD", "MLFLOW_CLIENT_PASSWORD"):
                if len(env[name]) < 12:
                    raise ConfigurationError(f"{name} is shorter than 12 characters, which MLflow rejects")
        if settings.auth_db_name == settings.db_name:
            raise ConfigurationError("MLFLOW_AUTH_DB_NAME must differ from MLFLOW_DB_NAME")
        return settings


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
        "authorization_function = mlflow.server.auth:authenticate_request_basic_auth\n"
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
    out = {k: v for k, v in env.items() if k not in _BOOTSTRAP_ONLY}
    out["MLFLOW_BACKEND_STORE_URI"] = postgres_uri(s, s.db_name)
    if s.auth:
        out["MLFLOW_AUTH_CONFIG_PATH"] = str(AUTH_CONFIG_PATH)
    return out


def write_auth_config(s: Settings, path: Path = AUTH_CONFIG_PATH) -> Path:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(auth_config_text(s))
    return path


# ---- steps that talk to PostgreSQL and MLflow (exercised in the running task) ----------------------------------
def _connect(s: Settings, attempts: int = 30, delay: float = 5.0):
    import psycopg2

    for attempt in range(1, attempts + 1):
        try:
            return psycopg2.connect(host=s.db_host, port=s.db_port, dbname=s.db_name, user=s.db_username,
                                    password=s.db_password, sslmode="require", connect_timeout=10)
        except psycopg2.OperationalError as exc:  # an auto-paused cluster takes ~15 s to resume
            if attempt == attempts:
                raise
            print(f"[entrypoint] database not reachable yet ({exc.__class__.__name__}), retry {attempt}/{attempts}",
                  file=sys.stderr, flush=True)
            time.sleep(delay)
    raise AssertionError("unreachable")


def ensure_auth_database(s: Settings) -> None:
    """Create the user-store database once; concurrent tasks racing to create it are fine."""
    from psycopg2 import errors, sql

    conn = _connect(s)
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (s.auth_db_name,))
            if cur.fetchone() is None:
                try:
                    cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(s.auth_db_name)))
                    print(f"[entrypoint] created database {s.auth_db_name}", file=sys.stderr, flush=True)
                except errors.DuplicateDatabase:
                    pass
    finally:
        conn.close()


def ensure_user(store, username: str, password: str, *, is_admin: bool,
                conflict: type[Exception] = Exception) -> str:
    """Create ``username`` or reset its password and role to the injected values. Returns what it did.

    ``conflict`` is the error ``create_user`` raises when another task created the user a moment ago.
    """
    if not store.has_user(username, use_primary=True):
        try:
            store.create_user(username, password, is_admin=is_admin)
            return "created"
        except conflict:
            pass
    store.update_user(username, password=password, is_admin=is_admin)
    return "updated"


def bootstrap_users(s: Settings) -> None:
    from mlflow.exceptions import MlflowException
    from mlflow.server.auth.sqlalchemy_store import SqlAlchemyStore

    store = SqlAlchemyStore()
    store.init_db(postgres_uri(s, s.auth_db_name))  # also runs the user store's migrations
    for username, password, is_admin in ((s.admin_username, s.admin_password, True),
                                         (s.client_username, s.client_password, False)):
        action = ensure_user(store, username, password, is_admin=is_admin, conflict=MlflowException)
        print(f"[entrypoint] {action} {'admin' if is_admin else 'client'} user {username!r}", file=sys.stderr,
              flush=True)


def main() -> None:
    try:
        settings = Settings.from_env(os.environ)
    except ConfigurationError as exc:
        sys.exit(f"[entrypoint] {exc}")
    _connect(settings).close()  # wait for the cluster (it may be resuming from auto-pause)
    if settings.auth:
        ensure_auth_database(settings)
        write_auth_config(settings)
        bootstrap_users(settings)
    cmd = server_command(settings)
    os.execvpe(cmd[0], cmd, server_environment(settings, os.environ))


if __name__ == "__main__":
    main()
