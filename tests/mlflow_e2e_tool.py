"""Helper of tests/test_mlflow_server_e2e.py, run by `.mlflow-venv/bin/python` (the image's MLflow), never by pytest.

Subcommands (JSON on stdout):

- ``log-runs <tracking URI> <Host header> <workdir> <team>...``: for each team, with that team's user (from the
  environment variables ``E2E_<TEAM>_USERNAME``/``_PASSWORD``, set as MLFLOW_TRACKING_USERNAME/PASSWORD the way a
  job pod gets them), create an experiment, log a run with params, metrics and an artifact, and read the artifact
  back through MLflow's client (the server hands out presigned S3 URLs); prints experiment and run ids.
- ``schema <SQLAlchemy URI>``: the tracking store's alembic revision and this MLflow's head.
- ``downgrade <SQLAlchemy URI> <steps>``: alembic-downgrade the tracking store by ``steps`` revisions (the schema an
  older MLflow release left), data kept.
- ``promotion-check <tracking URI> <Host header> <endpoint file>``: the promotion Job's check
  (llm_platform.promotion_check from this tree's training/, as the Job's init container runs it) with the user of
  ``E2E_CHECK_USERNAME``/``_PASSWORD`` as MLFLOW_TRACKING_USERNAME/PASSWORD; prints its exit status and messages.
- ``record-verdict <tracking URI> <Host header> <step file> <weights dir> <score>``: the evaluate step's verdict
  (llm_platform.evaluate ``record_verdict`` from this tree's training/, as ``llmp-evaluate`` records it after scoring)
  for the step file's gated version, the gate's metric scored ``score``, the weights judged in ``weights dir``, with
  the user of ``E2E_CHECK_USERNAME``/``_PASSWORD``; prints the verdict and the step's messages.
- ``interpreter-is-public`` (run by `make install` with the interpreter it picked): exit 0 if every user can run it.
- ``serve``: the subcommands above but ``train-steps``, one per stdin line, each answered on one stdout line, all in
  this one process (the test starts it once per module: MLflow's import is ~2.5 s of CPU); see :func:`serve`.
- ``train-steps <tracking URI> <Host header> <team> <first> <last> <step seconds> <resume file>``: a training
  loop's MLflow side (llm_platform.mlflow_utils from this tree's training/, as the sft callback uses it) with the
  team's user: starts the run (or reopens the one the resume file names, as a restarted pod does), logs a loss per
  step from ``first`` to ``last`` (printing ``step N`` as it goes, so the test can kill the server mid-run), ends
  the run; prints how long the slowest log call and the end took.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

_HOSTS: dict[str, str] = {}
"""Tracking URI -> the load balancer's Host header its requests carry (one entry per server a call named)."""


def _send_host_header(tracking_uri: str, host: str) -> None:
    """Requests to the tracking server carry the load balancer's Host header (the server's --allowed-hosts);
    presigned S3 URLs go out untouched, like from a pod. Patched once per process (``serve`` runs many calls)."""
    import requests

    if not _HOSTS:
        original = requests.Session.request

        def request(self, method, url, *args, **kwargs):
            for uri, name in _HOSTS.items():
                if str(url) == uri or str(url).startswith(uri.rstrip("/") + "/"):
                    kwargs["headers"] = {**(kwargs.get("headers") or {}), "Host": name}
                    break
            return original(self, method, url, *args, **kwargs)

        requests.Session.request = request
    _HOSTS[tracking_uri] = host


def _import_training() -> None:
    """This tree's training/ first on the path (the package the job images install)."""
    training = str(Path(__file__).resolve().parents[1] / "training")
    if training not in sys.path:
        sys.path.insert(0, training)


def log_runs(tracking_uri: str, host: str, workdir: str, teams: list[str]) -> dict:
    _send_host_header(tracking_uri, host)
    import mlflow
    from mlflow import MlflowClient

    out = {}
    for team in teams:
        key = team.upper().replace("-", "_")
        os.environ["MLFLOW_TRACKING_USERNAME"] = os.environ[f"E2E_{key}_USERNAME"]
        os.environ["MLFLOW_TRACKING_PASSWORD"] = os.environ[f"E2E_{key}_PASSWORD"]
        mlflow.set_tracking_uri(tracking_uri)
        experiment_id = mlflow.create_experiment(f"{team}/e2e")
        artifact = Path(workdir) / f"{team}-metrics.txt"
        artifact.write_text(f"evaluation report of {team}\n")
        with mlflow.start_run(experiment_id=experiment_id) as run:
            mlflow.log_params({"lora_r": 8, "team": team})
            for step, loss in enumerate((2.0, 1.5, 1.2)):
                mlflow.log_metric("loss", loss, step=step)
            mlflow.log_artifact(str(artifact), artifact_path="reports")
        client = MlflowClient(tracking_uri)
        fetched = client.get_run(run.info.run_id)
        downloaded = Path(
            client.download_artifacts(
                run.info.run_id, f"reports/{artifact.name}", dst_path=str(Path(workdir) / f"download-{team}")
            )
        )
        out[team] = {
            "experiment_id": experiment_id,
            "run_id": run.info.run_id,
            "params": fetched.data.params,
            "loss": [m.value for m in client.get_metric_history(run.info.run_id, "loss")],
            "artifact_read_back": downloaded.read_text(),
            "artifact_written": artifact.read_text(),
        }
    return out


def train_steps(
    tracking_uri: str, host: str, team: str, first: int, last: int, step_seconds: float, resume_file: str
) -> dict:
    import time

    _send_host_header(tracking_uri, host)
    _import_training()
    import mlflow
    from llm_platform import mlflow_utils

    key = team.upper().replace("-", "_")
    os.environ["MLFLOW_TRACKING_USERNAME"] = os.environ[f"E2E_{key}_USERNAME"]
    os.environ["MLFLOW_TRACKING_PASSWORD"] = os.environ[f"E2E_{key}_PASSWORD"]
    mlflow.set_tracking_uri(tracking_uri)
    started = time.monotonic()
    run_id = mlflow_utils.start_run(experiment=f"{team}/steps", run_name="steps", resume_file=resume_file)
    slowest = 0.0
    for step in range(first, last + 1):
        time.sleep(step_seconds)  # the step's compute
        t0 = time.monotonic()
        mlflow_utils.log_metrics({"loss": 5.0 - step / 100}, step=step)
        slowest = max(slowest, time.monotonic() - t0)
        print(f"step {step}", flush=True)
    t0 = time.monotonic()
    mlflow_utils.end_run()
    return {
        "run_id": run_id,
        "steps": last - first + 1,
        "slowest_log_s": slowest,
        "end_s": time.monotonic() - t0,
        "total_s": time.monotonic() - started,
    }


def promotion_check(tracking_uri: str, host: str, endpoint: str) -> dict:
    import contextlib
    import io

    _send_host_header(tracking_uri, host)
    _import_training()
    from llm_platform import promotion_check as check

    os.environ["MLFLOW_TRACKING_URI"] = tracking_uri
    os.environ["MLFLOW_TRACKING_USERNAME"] = os.environ["E2E_CHECK_USERNAME"]
    os.environ["MLFLOW_TRACKING_PASSWORD"] = os.environ["E2E_CHECK_PASSWORD"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = check.main(["--endpoint", endpoint])
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def record_verdict(tracking_uri: str, host: str, step_file: str, weights: str, score: float) -> dict:
    import contextlib
    import io

    import yaml

    _send_host_header(tracking_uri, host)
    _import_training()
    from llm_platform import evaluate

    os.environ["MLFLOW_TRACKING_URI"] = tracking_uri
    os.environ["MLFLOW_TRACKING_USERNAME"] = os.environ["E2E_CHECK_USERNAME"]
    os.environ["MLFLOW_TRACKING_PASSWORD"] = os.environ["E2E_CHECK_PASSWORD"]
    step = yaml.safe_load(Path(step_file).read_text())
    cfg = evaluate.EvaluateConfig(**{**step, "finetuned_model_path": weights})
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        verdict = evaluate.record_verdict(cfg, {cfg.gate["metric"]: score}, run_id="platform-evaluation")
    return {"verdict": verdict, "stderr": err.getvalue()}


def _engine(uri: str):
    import sqlalchemy

    return sqlalchemy.create_engine(uri, poolclass=sqlalchemy.pool.NullPool)


def schema(uri: str) -> dict:
    from mlflow.store.db import utils

    engine = _engine(uri)
    try:
        return {"current": utils._get_schema_version(engine), "head": utils._get_latest_schema_revision()}
    finally:
        engine.dispose()


def downgrade(uri: str, steps: int) -> dict:
    from alembic import command
    from mlflow.store.db import utils

    engine = _engine(uri)
    try:
        config = utils._get_alembic_config(uri)
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, f"-{steps}")
        return {"current": utils._get_schema_version(engine), "head": utils._get_latest_schema_revision()}
    finally:
        engine.dispose()


def interpreter_is_public() -> bool:
    """Whether every user can run this interpreter: its installation readable and every parent directory
    traversable by others (a pyenv under a 0700 home is not)."""
    import stat

    prefix = Path(sys.base_prefix).resolve()
    for directory in (prefix, *prefix.parents):
        if not directory.stat().st_mode & stat.S_IXOTH:
            return False
    return bool(prefix.stat().st_mode & stat.S_IROTH)


def run(command: str, args: list[str]) -> dict:
    """One subcommand's result (every subcommand but ``interpreter-is-public`` and ``serve``)."""
    if command == "log-runs":
        return log_runs(args[0], args[1], args[2], args[3:])
    if command == "train-steps":
        return train_steps(args[0], args[1], args[2], int(args[3]), int(args[4]), float(args[5]), args[6])
    if command == "promotion-check":
        return promotion_check(args[0], args[1], args[2])
    if command == "record-verdict":
        return record_verdict(args[0], args[1], args[2], args[3], float(args[4]))
    if command == "schema":
        return schema(args[0])
    if command == "downgrade":
        return downgrade(args[0], int(args[1]))
    raise SystemExit(f"unknown command {command!r}")


def serve() -> None:
    """Run one request per stdin line (``{"args": [command, ...], "env": {...}}``) and answer each with one stdout
    line (``{"result": ...}`` or ``{"error": traceback}``): the test's calls share this process, so MLflow is
    imported once, not once per call. Each call runs with the process's environment plus its ``env`` and leaves
    neither them nor a tracking URI behind (MLflow reads credentials and retries from the environment per request:
    mlflow/utils/credentials.py ``get_default_host_creds``); what a call prints goes to stderr. ``train-steps``, a
    job that tests kill, is never served here."""
    import contextlib
    import traceback

    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        saved = dict(os.environ)
        os.environ.update(request.get("env", {}))
        try:
            if request["args"][0] == "train-steps":
                raise SystemExit("train-steps is a job of its own: run it as a process")
            with contextlib.redirect_stdout(sys.stderr):
                answer = {"result": run(request["args"][0], request["args"][1:])}
        except BaseException:  # noqa: BLE001 - SystemExit too: the answer carries it, the next call still runs
            answer = {"error": traceback.format_exc()}
        finally:
            if "mlflow" in sys.modules:
                sys.modules["mlflow"].set_tracking_uri(None)  # log-runs sets it; the next call reads its env
            os.environ.clear()
            os.environ.update(saved)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main(argv: list[str]) -> None:
    command, args = argv[0], argv[1:]
    if command == "interpreter-is-public":
        raise SystemExit(0 if interpreter_is_public() else 1)
    if command == "serve":
        serve()
        return
    print(json.dumps(run(command, args)))


if __name__ == "__main__":
    main(sys.argv[1:])
