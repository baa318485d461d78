"""Tracking outages (issue 32): logging never blocks a step nor crashes training, says so on stderr, flushes when the
server is back, drops with a count beyond its buffer; leaving is bounded; a resumed run skips replayed steps; the
resumed train_loss is the mean over all steps. A stand-in server (stdlib HTTP, MLflow's two REST calls the queue
makes) is started, stopped and restarted on the same port; nothing here needs a real MLflow server."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from llm_platform import mlflow_utils
from llm_platform.mlflow_utils import PermanentError, RestTransport, TrackingQueue, TransientError


class FakeServer:
    """runs/log-batch and runs/get of one MLflow server, in memory; start/stop keep the port."""

    def __init__(self) -> None:
        self.metrics: list[dict] = []
        self.params: dict[str, str] = {}
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.httpd: ThreadingHTTPServer | None = None
        self.status = 200

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _reply(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if fake.status != 200:
                    return self._reply(fake.status, {"error_code": "X", "message": "refused"})
                fake.metrics += body["metrics"]
                fake.params.update({p["key"]: p["value"] for p in body["params"]})
                self._reply(200, {})

            def do_GET(self):
                from urllib.parse import parse_qs, urlparse

                url = urlparse(self.path)
                if url.path.endswith("/metrics/get-history"):
                    key = parse_qs(url.query)["metric_key"][0]
                    return self._reply(200, {"metrics": [m for m in fake.metrics if m["key"] == key]})
                latest: dict[str, dict] = {}
                for m in fake.metrics:
                    if m["key"] not in latest or m["step"] >= latest[m["key"]]["step"]:
                        latest[m["key"]] = m
                self._reply(
                    200,
                    {
                        "run": {
                            "data": {
                                "metrics": list(latest.values()),
                                "params": [{"key": k, "value": v} for k, v in fake.params.items()],
                            }
                        }
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.allow_reuse_address = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd = None


@pytest.fixture
def server():
    fake = FakeServer()
    fake.start()
    yield fake
    if fake.httpd:
        fake.stop()


def _steps(fake: FakeServer, key: str = "loss") -> list[int]:
    return [m["step"] for m in fake.metrics if m["key"] == key]


def _wait(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("not within the time")


def test_outage_never_blocks_a_step_warns_and_flushes_when_back(server, capsys) -> None:
    queue = TrackingQueue("run1", RestTransport(server.uri, timeout=2), max_backoff=0.2, report_every=0.3)
    queue.log_metrics({"loss": 4.0}, step=1)
    _wait(lambda: _steps(server) == [1])
    server.stop()  # kill -9 of the tracking server, for the client
    slowest = 0.0
    for step in range(2, 40):
        t0 = time.perf_counter()
        queue.log_metrics({"loss": 4.0 - step / 100}, step=step)
        slowest = max(slowest, time.perf_counter() - t0)
        time.sleep(0.02)  # a training step
    assert slowest < 0.5, f"a log call took {slowest:.3f} s (one attempt alone is up to 2 s)"
    err = capsys.readouterr().err
    assert "cannot reach http://127.0.0.1" in err and "training continues" in err, err
    assert "unreachable for" in err, "it keeps saying so while the server is away"
    server.start()  # back on the same address
    assert queue.flush(10)
    assert _steps(server) == list(range(1, 40)), "every step once, in order"
    assert "is back after" in capsys.readouterr().err
    assert queue.close(1)


def test_server_never_back_exit_is_bounded_and_says_what_was_lost(capsys) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"  # nothing listens there once closed
    queue = TrackingQueue("run1", RestTransport(dead, timeout=1), max_backoff=0.2)
    for step in range(1, 11):
        queue.log_metrics({"loss": 1.0, "learning_rate": 0.1}, step=step)
    t0 = time.perf_counter()
    assert queue.close(timeout=1.0) is False
    assert time.perf_counter() - t0 < 3.0
    err = capsys.readouterr().err
    assert "20 metric points and params could not be sent" in err and "are lost" in err, err


def test_bounded_buffer_drops_the_oldest_and_counts(server, capsys) -> None:
    server.stop()
    queue = TrackingQueue("run1", RestTransport(server.uri, timeout=1), max_buffered=5, max_backoff=0.1)
    for step in range(1, 13):
        queue.log_metrics({"loss": 1.0}, step=step)
    assert queue.dropped == 7
    assert "dropping the oldest" in capsys.readouterr().err
    server.start()
    assert queue.flush(10)
    assert _steps(server) == [8, 9, 10, 11, 12]
    queue.close(1)
    assert "7 dropped" in capsys.readouterr().err


def test_resumed_run_skips_replayed_steps_and_logged_params(server) -> None:
    first = TrackingQueue("run1", RestTransport(server.uri))
    first.log_params({"lora_r": "8"})
    for step in range(1, 7):  # logged up to step 6, checkpoint at 4, then kill -9
        first.log_metrics({"loss": 5.0 - step / 10}, step=step)
    assert first.close(5)
    resumed = TrackingQueue("run1", RestTransport(server.uri), resumed=True)
    resumed.log_params({"lora_r": "8", "data.train_examples": "18"})
    for step in range(5, 9):  # the restarted job replays 5 and 6
        resumed.log_metrics({"loss": 5.0 - step / 10}, step=step)
    assert resumed.close(5)
    assert _steps(server) == list(range(1, 9))
    assert resumed.replayed == 2
    assert server.params == {"lora_r": "8", "data.train_examples": "18"}


def test_refused_batch_is_dropped_and_reported_not_retried(server, capsys) -> None:
    server.status = 400
    queue = TrackingQueue("run1", RestTransport(server.uri))
    queue.log_metrics({"loss": 1.0}, step=1)
    assert queue.flush(5)
    assert queue.refused == 1 and "refused 1 metric points" in capsys.readouterr().err
    queue.close(1)


def test_rest_transport_classifies_failures(server) -> None:
    transport = RestTransport(server.uri, timeout=1)
    server.status = 503
    with pytest.raises(TransientError):
        transport.send("r", [], [])
    server.status = 403
    with pytest.raises(PermanentError):
        transport.send("r", [], [])


def test_start_run_without_a_server_is_bounded_and_training_goes_on(monkeypatch, tmp_path, capsys) -> None:
    import mlflow

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setattr(mlflow_utils, "START_ATTEMPTS", 2)
    monkeypatch.setattr(mlflow_utils.time, "sleep", lambda s: None)
    mlflow.set_tracking_uri(dead)
    try:
        t0 = time.perf_counter()
        assert mlflow_utils.start_run(experiment="x", run_name="y", resume_file=tmp_path / "id") is None
        assert time.perf_counter() - t0 < 20
        assert "TRAINING CONTINUES WITHOUT TRACKING" in capsys.readouterr().err
        mlflow_utils.log_metrics({"loss": 1.0}, step=1)  # a no-op, not an error
        mlflow_utils.end_run()
    finally:
        mlflow.set_tracking_uri(None)


def test_loss_sum_until_weights_each_logging_window() -> None:
    history = [
        {"loss": 4.0, "step": 2},
        {"loss": 3.0, "step": 4},
        {"eval_loss": 9.0, "step": 4},
        {"loss": 2.0, "step": 6},
    ]
    assert mlflow_utils.loss_sum_until(history, 4) == 4.0 * 2 + 3.0 * 2
    assert mlflow_utils.loss_sum_until(history, 5) == 4.0 * 2 + 3.0 * 2 + 3.0  # an unlogged step at the last mean
    assert mlflow_utils.loss_sum_until(history, 0) == 0.0


def test_resumed_loss_callback_corrects_train_loss() -> None:
    class State:
        global_step = 4
        log_history = [
            {"loss": 4.0, "step": 1},
            {"loss": 4.0, "step": 2},
            {"loss": 4.0, "step": 3},
            {"loss": 4.0, "step": 4},
        ]

    fix = mlflow_utils.ResumedLossCallback()
    state = State()
    fix.on_train_begin(None, state, None)
    state.global_step = 8
    # the Trainer: losses of steps 5..8 (2.0 each) summed, divided by all 8 steps
    logs = {"train_loss": 4 * 2.0 / 8}
    state.log_history = [*state.log_history, {"train_loss": logs["train_loss"], "step": 8}]
    fix.on_log(None, state, None, logs=logs)
    assert logs["train_loss"] == pytest.approx(3.0) == fix.train_loss
    assert state.log_history[-1]["train_loss"] == pytest.approx(3.0)


CRASHING_JOB = """
import sys
from llm_platform import mlflow_utils
mlflow_utils.start_run(experiment="crash", run_name="crash", resume_file=sys.argv[1])
mlflow_utils.log_metrics({"loss": 1.5}, step=1)
raise RuntimeError("simulated CUDA error")
"""


def test_a_crashed_job_ends_its_run_failed(tmp_path) -> None:
    """An uncaught exception: the run ends FAILED (MLflow's own exit handler would say FINISHED), metrics kept."""
    import os
    import subprocess
    import sys

    from mlflow import MlflowClient

    store = (tmp_path / "mlruns").as_uri()
    env = {
        **os.environ,
        "MLFLOW_TRACKING_URI": store,
        "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING": "false",
        "PYTHONPATH": os.pathsep.join([str(Path(mlflow_utils.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_JOB, str(tmp_path / "run_id")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1 and "simulated CUDA error" in proc.stderr
    run = MlflowClient(store).get_run((tmp_path / "run_id").read_text())
    assert run.info.status == "FAILED"
    assert run.data.metrics == {"loss": 1.5}


# --- durable metrics: a kill during an outage loses nothing ---------------------------------------------------------
SPOOLING_JOB = """
import os, signal, sys, time
from llm_platform.mlflow_utils import RestTransport, Spool, TrackingQueue
uri, spool = sys.argv[1], sys.argv[2]
queue = TrackingQueue("run1", RestTransport(uri, timeout=1), max_backoff=0.2, spool=Spool(spool))
for step in range(1, 13):
    queue.log_metrics({"loss": 5.0 - step / 100}, step=step)
assert queue.flush(30)
print("12 sent", flush=True)
sys.stdin.readline()  # the server is killed now
for step in range(13, 31):
    queue.log_metrics({"loss": 5.0 - step / 100}, step=step)
print("30 logged", flush=True)
time.sleep(120)  # killed (SIGKILL) here, before the server is back
"""


def test_points_of_a_job_killed_during_an_outage_are_sent_by_the_resumed_run_once(server, tmp_path) -> None:
    """The report's case: the server goes away at step 12, the job is killed at step 30 (checkpoint at 20); the
    resumed run replays steps 21-30 and trains to 60. Every step is on the server exactly once."""
    import os
    import signal
    import subprocess
    import sys

    spool = tmp_path / "mlflow-spool-run1.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(mlflow_utils.__file__).parents[1])}
    job = subprocess.Popen(
        [sys.executable, "-c", SPOOLING_JOB, server.uri, str(spool)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert job.stdout.readline().strip() == "12 sent"
        server.stop()
        job.stdin.write("\n")
        job.stdin.flush()
        assert job.stdout.readline().strip() == "30 logged"
    finally:
        os.kill(job.pid, signal.SIGKILL)
        job.wait(timeout=30)
    assert _steps(server) == list(range(1, 13))
    server.start()
    resumed = TrackingQueue("run1", RestTransport(server.uri), resumed=True, spool=mlflow_utils.Spool(spool))
    for step in range(21, 61):  # resumed from checkpoint-20: 21-30 again, then on to 60
        resumed.log_metrics({"loss": 5.0 - step / 100}, step=step)
    assert resumed.close(30)
    assert sorted(_steps(server)) == list(range(1, 61))
    assert resumed.replayed == 10  # the live replays of 21-30: the spooled points of those steps were sent
    # and a later process of the same run finds nothing left to send
    again = TrackingQueue("run1", RestTransport(server.uri), resumed=True, spool=mlflow_utils.Spool(spool))
    assert len(again.metrics) == 0
    again.close(1)


def test_spooled_points_the_server_already_has_are_not_sent_again(server, tmp_path) -> None:
    spool = mlflow_utils.Spool(tmp_path / "spool.jsonl")
    first = TrackingQueue("run1", RestTransport(server.uri), spool=spool)
    for step in range(1, 6):
        first.log_metrics({"loss": 1.0}, step=step)
    assert first.flush(10)
    first.close(1)
    spool.acks.unlink()  # sent, but the acknowledgement never reached the disk (a kill right after the send)
    resumed = TrackingQueue("run1", RestTransport(server.uri), resumed=True, spool=mlflow_utils.Spool(spool.path))
    assert resumed.close(10)
    assert sorted(_steps(server)) == [1, 2, 3, 4, 5]


def test_the_spool_is_bounded_and_counts_what_it_could_not_keep(server, tmp_path, capsys) -> None:
    spool = mlflow_utils.Spool(tmp_path / "spool.jsonl", max_bytes=400)
    queue = TrackingQueue("run1", RestTransport(server.uri), spool=spool)
    for step in range(1, 21):
        queue.log_metrics({"loss": 1.0}, step=step)
    assert queue.flush(10)
    assert spool.path.stat().st_size <= 400 and spool.unspooled > 0
    assert f"{spool.unspooled} not spooled" in queue.summary()
    queue.close(1)
    assert sorted(_steps(server)) == list(range(1, 21))  # in memory they were all sent


def test_a_torn_last_line_is_skipped_and_ended(tmp_path) -> None:
    path = tmp_path / "spool.jsonl"
    path.write_text('{"key": "loss", "value": 1.0, "timestamp": 1, "step": 1}\n{"key": "lo')
    spool = mlflow_utils.Spool(path)
    pending, seen = spool.load()
    assert [p["step"] for p in pending] == [1] and seen == {("loss", 1)}
    assert spool.append({"key": "loss", "value": 2.0, "timestamp": 2, "step": 2}) == 2
    spool.close()
    assert [p["step"] for p in mlflow_utils.Spool(path).load()[0]] == [1, 2]


def test_a_stalled_registration_upload_is_bounded_and_loud(monkeypatch, tmp_path, capsys) -> None:
    """log_model runs inside bounded HTTP settings (a stalled transfer gives up), and a failure says the model is
    not registered and how to finish, instead of hanging or raising."""
    import mlflow

    seen = {}

    def stalled_upload(**kwargs):
        seen["timeout"] = os.environ.get("MLFLOW_HTTP_REQUEST_TIMEOUT")
        seen["retries"] = os.environ.get("MLFLOW_HTTP_REQUEST_MAX_RETRIES")
        raise TimeoutError("Read timed out. (read timeout=120)")

    model = tmp_path / "merged"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"x" * 1024)
    monkeypatch.setattr(mlflow, "active_run", lambda: type("R", (), {"info": type("I", (), {"run_id": "r1"})})())

    class NoVersions:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def search_model_versions(self, query):
            return []

    monkeypatch.setattr(mlflow, "MlflowClient", NoVersions)
    import importlib

    monkeypatch.setattr(importlib.import_module("mlflow.transformers"), "log_model", stalled_upload)
    monkeypatch.setattr(mlflow_utils, "_QUEUE", None)
    assert mlflow_utils.register_model_dir(model, name="team.model") is None
    assert seen == {"timeout": str(int(mlflow_utils.UPLOAD_STALL_S)), "retries": str(mlflow_utils.UPLOAD_RETRIES)}
    err = capsys.readouterr().err
    assert "REGISTRATION FAILED" in err and "NOT registered" in err and "Read timed out" in err


def test_an_artifact_is_uploaded_after_the_queued_metrics_and_a_racing_read_is_tried_again(monkeypatch) -> None:
    """The local file store finds a run by reading all its metric files; one the sender is writing reads as malformed
    (the local chain's evaluate step failed on it once): the queue is flushed before the upload, and that error alone
    is tried again."""
    import mlflow

    events: list[str] = []

    class Queue:
        def flush(self, timeout: float) -> bool:
            events.append("flush")
            return True

    failures = iter([ValueError("Metric 'delta/rouge2' is malformed. No data found.")])

    def upload(path: str) -> None:
        events.append(f"upload {Path(path).name}")
        error = next(failures, None)
        if error is not None:
            raise error

    monkeypatch.setattr(mlflow_utils, "_QUEUE", Queue())
    monkeypatch.setattr(mlflow, "log_artifact", upload)
    mlflow_utils.log_artifact(Path("predictions.json"), pause=0)
    assert events == ["flush", "upload predictions.json", "upload predictions.json"]

    def broken(path: str) -> None:
        raise ValueError("another problem")

    monkeypatch.setattr(mlflow, "log_artifact", broken)
    with pytest.raises(ValueError, match="another problem"):  # only the racing read is tried again
        mlflow_utils.log_artifact(Path("predictions.json"), pause=0)
