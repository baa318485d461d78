"""MLflow for every step: one run per job, resumed after a pod restart, system metrics, the final model registered.

The tracking server and credentials come from the pod's environment (ConfigMap ``mlflow`` and Secret
``mlflow-credentials`` in the team namespace: ``MLFLOW_TRACKING_URI``, ``MLFLOW_TRACKING_USERNAME``,
``MLFLOW_TRACKING_PASSWORD``). System metrics (CPU, memory, disk, network and, with nvidia-ml-py, GPU utilisation
and memory) are sampled by MLflow itself when ``MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING`` is true, which
:func:`start_run` sets unless the pod chose otherwise (https://mlflow.org/docs/latest/ml/tracking/system-metrics/).

Tracking outages never stop training (issue 32). Metrics and params go through :class:`TrackingQueue`: a
background thread sends them in batches (one attempt of at most :data:`ATTEMPT_TIMEOUT_S` each, then backs off up to
:data:`MAX_BACKOFF_S`), says on stderr when the server goes away, every minute while it stays away and when it is
back (then flushes what it holds), and keeps at most :data:`MAX_BUFFERED` points (the oldest are dropped, counted
and reported). A step never waits on the network. Leaving is bounded too: :func:`end_run` gives the queue
:data:`EXIT_FLUSH_S` and MLflow one attempt of :data:`ATTEMPT_TIMEOUT_S` per call (MLflow's own exit handler retries
for minutes); an uncaught exception ends the run FAILED, not FINISHED. A resumed run skips the steps the run already
has (the steps replayed from the checkpoint) and the params it already has; registering is one version per run
(:func:`register_model_dir` looks for a version of the run first).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

# MLflow limits a param value to 6000 characters (mlflow/utils/validation.py MAX_PARAM_VAL_LENGTH).
MAX_PARAM_LENGTH = 6000
MAX_BUFFERED = int(os.environ.get("LLMP_MLFLOW_MAX_BUFFERED", "100000"))
"""Metric points held while the server is away (~100 bytes each); beyond it the oldest are dropped and counted."""
ATTEMPT_TIMEOUT_S = float(os.environ.get("LLMP_MLFLOW_ATTEMPT_TIMEOUT_S", "10"))
MAX_BACKOFF_S = 30.0
EXIT_FLUSH_S = float(os.environ.get("LLMP_MLFLOW_EXIT_FLUSH_S", "30"))
START_ATTEMPTS = 3
REPORT_EVERY_S = 60.0
SPOOL_MAX_BYTES = int(os.environ.get("LLMP_MLFLOW_SPOOL_MAX_BYTES", str(64 << 20)))
"""The most a run's spool takes on the job's storage (~80 bytes a point); points beyond it are kept in memory only,
counted and reported."""
POINT_FIELDS = ("key", "value", "timestamp", "step")
UPLOAD_STALL_S = float(os.environ.get("LLMP_MLFLOW_UPLOAD_STALL_S", "120"))
"""Registration's artifact transfers: each HTTP call gives up after this long without progress (requests' read
timeout, MLFLOW_HTTP_REQUEST_TIMEOUT), a steady upload of any size is not cut."""
UPLOAD_RETRIES = 2
METRICS_PER_BATCH = 1000  # mlflow/utils/validation.py MAX_METRICS_PER_BATCH
PARAMS_PER_BATCH = 100  # MAX_PARAMS_TAGS_PER_BATCH


def warn(message: str) -> None:
    print(f"llmp-mlflow: {message}", file=sys.stderr, flush=True)


class TransientError(Exception):
    """The server is away or overloaded (connection refused, timeout, 429, 5xx): keep the batch, retry later."""


class PermanentError(Exception):
    """The server refused the batch (4xx): sending it again cannot help; it is dropped and reported."""


@contextlib.contextmanager
def bounded_http(timeout: float = ATTEMPT_TIMEOUT_S, retries: int = 0) -> Iterator[None]:
    """MLflow's own calls inside the block make ``retries`` + 1 attempts of at most ``timeout`` s each
    (``MLFLOW_HTTP_REQUEST_MAX_RETRIES``/``_TIMEOUT``, read at each call by mlflow/utils/rest_utils.py
    ``http_request``; its defaults retry for minutes)."""
    names = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": str(retries), "MLFLOW_HTTP_REQUEST_TIMEOUT": str(int(max(1, timeout)))}
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---- transports ----------------------------------------------------------------------------------------------------
class RestTransport:
    """log-batch and runs/get over MLflow's REST API, one attempt each (the queue does the retrying)."""

    def __init__(self, tracking_uri: str, timeout: float = ATTEMPT_TIMEOUT_S) -> None:
        from mlflow.utils.credentials import get_default_host_creds

        self.creds = get_default_host_creds(tracking_uri)
        self.timeout = timeout
        self.where = tracking_uri

    def _call(self, endpoint: str, method: str, **kwargs) -> dict:
        from mlflow.utils.rest_utils import http_request

        try:
            response = http_request(
                self.creds,
                endpoint,
                method,
                max_retries=0,
                backoff_factor=0,
                timeout=self.timeout,
                raise_on_status=False,
                **kwargs,
            )
        except Exception as exc:  # noqa: BLE001 - MLflow wraps connection errors and timeouts in MlflowException
            raise TransientError(_short(exc)) from None
        if response.status_code == 200:
            return response.json() if response.content else {}
        text = response.text[:300]
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientError(f"HTTP {response.status_code}: {text}")
        raise PermanentError(f"HTTP {response.status_code}: {text}")

    def send(self, run_id: str, metrics: list[dict], params: list[dict]) -> None:
        self._call(
            "/api/2.0/mlflow/runs/log-batch",
            "POST",
            json={"run_id": run_id, "metrics": metrics, "params": params, "tags": []},
        )

    def logged(self, run_id: str) -> tuple[dict[str, int], set[str]]:
        run = self._call("/api/2.0/mlflow/runs/get", "GET", params={"run_id": run_id}).get("run", {})
        data = run.get("data", {})
        # runs/get returns each metric's latest point, the one with the highest step (MLflow's latest_metrics)
        steps = {m["key"]: int(m.get("step", 0)) for m in data.get("metrics", [])}
        return steps, {p["key"] for p in data.get("params", [])}

    def history(self, run_id: str, keys: set[str]) -> set[tuple[str, int]]:
        """(key, step) of every point the run has of ``keys`` (metrics/get-history, page by page)."""
        found: set[tuple[str, int]] = set()
        for key in sorted(keys):
            token = None
            while True:
                query = {
                    "run_id": run_id,
                    "metric_key": key,
                    "max_results": 25000,
                    **({"page_token": token} if token else {}),
                }
                page = self._call("/api/2.0/mlflow/metrics/get-history", "GET", params=query)
                found |= {(key, int(m.get("step", 0))) for m in page.get("metrics", [])}
                token = page.get("next_page_token")
                if not token:
                    break
        return found


class ClientTransport:
    """The same through MlflowClient, for stores that are not a server (a file store in tests)."""

    where = "the local MLflow store"

    def send(self, run_id: str, metrics: list[dict], params: list[dict]) -> None:
        from mlflow import MlflowClient
        from mlflow.entities import Metric, Param
        from mlflow.exceptions import MlflowException

        try:
            MlflowClient().log_batch(
                run_id,
                metrics=[Metric(m["key"], m["value"], m["timestamp"], m["step"]) for m in metrics],
                params=[Param(p["key"], p["value"]) for p in params],
                synchronous=True,
            )
        except MlflowException as exc:
            raise PermanentError(_short(exc)) from None
        except OSError as exc:
            raise TransientError(_short(exc)) from None

    def logged(self, run_id: str) -> tuple[dict[str, int], set[str]]:
        from mlflow import MlflowClient

        run = MlflowClient().get_run(run_id)
        return {m.key: m.step for m in run.data._metric_objs}, set(run.data.params)

    def history(self, run_id: str, keys: set[str]) -> set[tuple[str, int]]:
        from mlflow import MlflowClient

        return {(key, m.step) for key in keys for m in MlflowClient().get_metric_history(run_id, key)}


def transport_for(tracking_uri: str):
    return RestTransport(tracking_uri) if tracking_uri.startswith(("http://", "https://")) else ClientTransport()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{exc.__class__.__name__}: {text[:300]}"


# ---- the spool -----------------------------------------------------------------------------------------------------
class Spool:
    """The metric points of one run on the job's own storage (``<output_dir>/mlflow-spool-<run id>.jsonl``, one JSON
    point a line, written before the point is queued) and the lines the server has acknowledged
    (``....jsonl.acked``, ``first last`` ranges). A process killed during an outage leaves its unacknowledged points
    there; the next process of the same run (the resumed job, or a later run of the same job) sends them with their
    original timestamps, without the (key, step) points the server already has. At most ``max_bytes``: beyond, points
    are only in memory, counted (:attr:`unspooled`)."""

    def __init__(self, path: str | Path, *, max_bytes: int = SPOOL_MAX_BYTES) -> None:
        self.path = Path(path)
        self.acks = self.path.with_name(self.path.name + ".acked")
        self.max_bytes = max_bytes
        self.lines = self.size = self.unspooled = 0
        self.fh = self.ack_fh = None

    def load(self) -> tuple[list[dict], set[tuple[str, int]]]:
        """(the points not acknowledged yet, each with its ``_line``; every (key, step) the spool holds)."""
        if not self.path.is_file():
            return [], set()
        raw = self.path.read_bytes()
        if raw and not raw.endswith(b"\n"):  # a write cut by the kill: end that line, so no point is glued to it
            with self.path.open("ab") as fh:
                fh.write(b"\n")
            raw += b"\n"
        self.size = len(raw)
        done = self._acknowledged()
        pending, seen = [], set()
        for number, line in enumerate(raw.split(b"\n")[:-1]):
            self.lines = number + 1
            try:
                point = json.loads(line)
                point = {
                    "key": str(point["key"]),
                    "value": float(point["value"]),
                    "timestamp": int(point["timestamp"]),
                    "step": int(point["step"]),
                }
            except (ValueError, KeyError, TypeError):
                continue
            seen.add((point["key"], point["step"]))
            if number not in done:
                pending.append({**point, "_line": number})
        return pending, seen

    def _acknowledged(self) -> set[int]:
        done: set[int] = set()
        if self.acks.is_file():
            for line in self.acks.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    first, last = (int(x) for x in line.split())
                    done.update(range(first, last + 1))
        return done

    def append(self, point: dict) -> int | None:
        """Write ``point``; its line number, or None past the bound."""
        text = json.dumps({k: point[k] for k in POINT_FIELDS}) + "\n"
        if self.size + len(text) > self.max_bytes:
            self.unspooled += 1
            return None
        if self.fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fh = self.path.open("a", encoding="utf-8")
        self.fh.write(text)
        self.fh.flush()  # in the OS's hands: it survives the process
        self.size += len(text)
        self.lines += 1
        return self.lines - 1

    def ack(self, lines: list[int]) -> None:
        """Record ``lines`` as acknowledged (sent, already on the server, or refused by it)."""
        if not lines:
            return
        if self.ack_fh is None:
            self.ack_fh = self.acks.open("a", encoding="utf-8")
        ordered, ranges = sorted(lines), []
        for n in ordered:
            if ranges and n == ranges[-1][1] + 1:
                ranges[-1][1] = n
            else:
                ranges.append([n, n])
        self.ack_fh.write("".join(f"{a} {b}\n" for a, b in ranges))
        self.ack_fh.flush()

    def close(self) -> None:
        for fh in (self.fh, self.ack_fh):
            if fh is not None:
                with contextlib.suppress(OSError):
                    fh.close()
        self.fh = self.ack_fh = None


# ---- the queue -----------------------------------------------------------------------------------------------------
class TrackingQueue:
    """Metrics and params of one run, sent by a background thread (see the module docstring)."""

    def __init__(
        self,
        run_id: str,
        transport,
        *,
        resumed: bool = False,
        max_buffered: int = MAX_BUFFERED,
        max_backoff: float = MAX_BACKOFF_S,
        report_every: float = REPORT_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
        spool: Spool | None = None,
    ) -> None:
        self.run_id, self.transport = run_id, transport
        self.spool = spool
        replay, self.seen = spool.load() if spool is not None else ([], set())
        self.to_check = {p["key"] for p in replay}  # keys whose replayed points are checked against the server
        self.max_buffered, self.max_backoff, self.report_every = max_buffered, max_backoff, report_every
        self.clock = clock
        self.metrics: collections.deque[dict] = collections.deque({**p, "_replay": True} for p in replay)
        self.params: dict[str, str] = {}
        self.known: tuple[dict[str, int], set[str]] | None = None if resumed else ({}, set())
        self.cond = threading.Condition()
        self.closed = False
        self.sending = False
        self.down_since: float | None = None
        self.last_report = 0.0
        self.sent = self.dropped = self.replayed = self.refused = 0
        if replay:
            warn(
                f"{len(replay)} metric points of run {run_id} not acknowledged before the last process ended: "
                f"sending them"
            )
        self.flush_failed_at: float | None = None  # monotonic time a flush last ran out of time
        self.thread = threading.Thread(target=self._run, name="llmp-mlflow", daemon=True)
        self.thread.start()

    # called by training: never blocks on the network
    def log_metrics(self, metrics: Mapping[str, float], step: int | None, timestamp_ms: int | None = None) -> None:
        ts = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
        with self.cond:
            for key, value in metrics.items():
                point = {"key": key, "value": float(value), "timestamp": ts, "step": int(step or 0)}
                if (key, point["step"]) in self.seen:  # a step the last process logged, replayed from a checkpoint
                    self.replayed += 1
                    continue
                if self.spool is not None:
                    point["_line"] = self.spool.append(point)
                self.metrics.append(point)
            overflow = len(self.metrics) - self.max_buffered
            if overflow > 0:
                for _ in range(overflow):
                    self.metrics.popleft()
                if self.dropped == 0:
                    warn(
                        f"more than {self.max_buffered} metric points waiting for {self.transport.where}: dropping "
                        f"the oldest (the count is reported when the server is back and at the end)"
                    )
                self.dropped += overflow
            self.cond.notify()

    def log_params(self, params: Mapping[str, str]) -> None:
        with self.cond:
            self.params.update(params)
            self.cond.notify()

    @property
    def pending(self) -> int:
        return len(self.metrics) + len(self.params)

    def flush(self, timeout: float) -> bool:
        """Wait until everything is sent (True) or ``timeout`` s have passed (False)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            self.cond.notify()
            while self.pending or self.sending:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.flush_failed_at = time.monotonic()
                    return False
                self.cond.wait(min(left, 0.2))
        return True

    def close(self, timeout: float = EXIT_FLUSH_S) -> bool:
        """Flush for at most ``timeout`` s, stop the thread, report what could not be sent. Returns whether all
        was sent."""
        flushed = self.flush(timeout)
        with self.cond:
            self.closed = True
            left = self.pending
            self.cond.notify_all()
        if not flushed:
            warn(
                f"{left} metric points and params could not be sent to {self.transport.where} within "
                f"{timeout:.0f} s and are lost ({self.summary()})"
            )
        elif self.dropped or self.refused:
            warn(f"done: {self.summary()}")
        if self.spool is not None:
            self.spool.close()
        return flushed

    def summary(self) -> str:
        parts = [f"{self.sent} sent"]
        if self.dropped:
            kept = f"; still in the spool {self.spool.path}, sent by the job's next run" if self.spool else ""
            parts.append(
                f"{self.dropped} dropped from memory while the server was away (buffer of {self.max_buffered}{kept})"
            )
        if self.spool is not None and self.spool.unspooled:
            parts.append(f"{self.spool.unspooled} not spooled (spool full at {self.spool.max_bytes} bytes)")
        if self.refused:
            parts.append(f"{self.refused} refused by the server")
        if self.replayed:
            parts.append(f"{self.replayed} skipped as already logged (steps replayed after resuming)")
        return ", ".join(parts)

    # the background thread
    def _take(self) -> tuple[list[dict], list[dict]]:
        metrics = [self.metrics[i] for i in range(min(METRICS_PER_BATCH, len(self.metrics)))]
        keys = list(self.params)[:PARAMS_PER_BATCH]
        params = [{"key": k, "value": self.params[k]} for k in keys]
        return metrics, params

    def _filter_known(self, on_server: set[tuple[str, int]]) -> None:
        """Drop what the server has: a live point at or below the run's latest step of its key (a step replayed from
        a checkpoint), a spooled point whose (key, step) the server holds (it arrived before the kill)."""
        steps, params = self.known
        kept, gone = collections.deque(), []
        for m in self.metrics:
            if (m["key"], m["step"]) in on_server if m.get("_replay") else m["step"] <= steps.get(m["key"], -1):
                gone.append(m)
            else:
                kept.append(m)
        self.replayed += len(gone)
        self.metrics = kept
        self._ack(gone)
        for key in [k for k in self.params if k in params]:
            del self.params[key]

    def _ack(self, points: list[dict]) -> None:
        if self.spool is not None:
            self.spool.ack([p["_line"] for p in points if p.get("_line") is not None])

    def _know(self) -> set[tuple[str, int]]:
        """What the server has (once, on the first send of a resumed run): its latest step per key and params, and
        the (key, step) points of the keys the spool replays."""
        on_server: set[tuple[str, int]] = set()
        try:
            if self.known is None:
                self.known = self.transport.logged(self.run_id)
            if self.to_check:
                on_server = self.transport.history(self.run_id, self.to_check)
                self.to_check = set()
        except PermanentError as exc:
            warn(f"cannot read what run {self.run_id} already has ({exc}); replayed steps may repeat")
            self.known, self.to_check = self.known or ({}, set()), set()
        return on_server

    def _run(self) -> None:
        backoff = 1.0
        while True:
            with self.cond:
                while not self.pending and not self.closed:
                    self.cond.wait()
                if self.closed:
                    return
                self.sending = True
            metrics, params = [], []
            try:
                if self.known is None or self.to_check:
                    on_server = self._know()
                    with self.cond:
                        self._filter_known(on_server)
                with self.cond:
                    metrics, params = self._take()
                if metrics or params:
                    self.transport.send(self.run_id, [{k: m[k] for k in POINT_FIELDS} for m in metrics], params)
                    self._sent(metrics, params)
                self._up()
                backoff = 1.0
            except PermanentError as exc:
                with self.cond:
                    self.refused += len(metrics) + len(params)
                    self._remove(metrics, params)
                    self._ack(metrics)
                warn(
                    f"{self.transport.where} refused {len(metrics)} metric points and {len(params)} params, which "
                    f"are dropped: {exc}"
                )
                self._up()
            except Exception as exc:  # noqa: BLE001 - TransientError and anything unexpected: keep, retry later
                self._down(exc)
                with self.cond:
                    self.sending = False
                    self.cond.notify_all()
                    self.cond.wait(backoff)  # close() and flush() wake it: one more attempt, then they decide
                backoff = min(self.max_backoff, backoff * 2)
                continue
            finally:
                with self.cond:
                    self.sending = False
                    self.cond.notify_all()

    def _remove(self, metrics: list[dict], params: list[dict]) -> None:
        """Remove a batch taken by :meth:`_take` (the oldest points; some may have been dropped meanwhile)."""
        taken = {id(m) for m in metrics}
        while self.metrics and id(self.metrics[0]) in taken:
            self.metrics.popleft()
        for p in params:
            if self.params.get(p["key"]) == p["value"]:
                del self.params[p["key"]]

    def _sent(self, metrics: list[dict], params: list[dict]) -> None:
        with self.cond:
            self._remove(metrics, params)
            self._ack(metrics)
            self.sent += len(metrics) + len(params)

    def _down(self, exc: BaseException) -> None:
        now = self.clock()
        if self.down_since is None:
            self.down_since = self.last_report = now
            warn(
                f"cannot reach {self.transport.where} ({_short(exc)}); training continues, metrics are kept (up "
                f"to {self.max_buffered} points) and sent when it is back"
            )
        elif now - self.last_report >= self.report_every:
            self.last_report = now
            warn(
                f"{self.transport.where} unreachable for {now - self.down_since:.0f} s ({_short(exc)}); "
                f"{len(self.metrics)} metric points waiting, {self.dropped} dropped"
            )

    def _up(self) -> None:
        if self.down_since is not None:
            warn(
                f"{self.transport.where} is back after {self.clock() - self.down_since:.0f} s; sending what was "
                f"kept ({len(self.metrics)} metric points left, {self.dropped} dropped)"
            )
            self.down_since = None


_QUEUE: TrackingQueue | None = None
_EXIT_HOOKED = False
_CRASHED: list[BaseException] = []


def tracking_queue() -> TrackingQueue | None:
    return _QUEUE


# ---- the run -------------------------------------------------------------------------------------------------------
def start_run(*, experiment: str, run_name: str, resume_file: str | Path | None = None) -> str | None:
    """Start (or, when ``resume_file`` names an earlier run of this job, reopen) the MLflow run; returns its id, or
    None when the server cannot be reached in :data:`START_ATTEMPTS` short attempts (training goes on untracked,
    and says so)."""
    import mlflow

    global _QUEUE
    os.environ.setdefault("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    if mlflow.active_run():
        return mlflow.active_run().info.run_id
    if _QUEUE is not None:  # an earlier attempt in this process (a test's crash and restart)
        _QUEUE.close(EXIT_FLUSH_S)
        _QUEUE = None
    run_id = None
    if resume_file and Path(resume_file).is_file():
        run_id = Path(resume_file).read_text().strip() or None
    run = None
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            with bounded_http():
                mlflow.set_experiment(experiment)
                run = (
                    mlflow.start_run(run_id=run_id, log_system_metrics=_system_metrics())
                    if run_id
                    else mlflow.start_run(run_name=run_name, log_system_metrics=_system_metrics())
                )
            break
        except Exception as exc:  # noqa: BLE001 - an unreachable server must not stop the job
            if attempt == START_ATTEMPTS:
                warn(
                    f"cannot start the MLflow run ({_short(exc)}) after {attempt} attempts; TRAINING CONTINUES "
                    f"WITHOUT TRACKING (no metrics, no params, no registration for this attempt)"
                )
                return None
            time.sleep(min(10, 2**attempt))
    if not run_id and resume_file:
        Path(resume_file).parent.mkdir(parents=True, exist_ok=True)
        Path(resume_file).write_text(run.info.run_id)
    spool = Spool(Path(resume_file).parent / f"mlflow-spool-{run.info.run_id}.jsonl") if resume_file else None
    _QUEUE = TrackingQueue(run.info.run_id, transport_for(mlflow.get_tracking_uri()), resumed=bool(run_id), spool=spool)
    _hook_exit()
    return run.info.run_id


def _hook_exit() -> None:
    """An uncaught exception ends the run FAILED; leaving the process flushes and ends the run within a bounded
    time. Registered after MLflow's own exit handler, so it runs first (atexit is last in, first out) and leaves
    MLflow's nothing to do."""
    global _EXIT_HOOKED
    if _EXIT_HOOKED:
        return
    _EXIT_HOOKED = True
    previous = sys.excepthook

    def excepthook(kind, value, tb):
        _CRASHED.append(value)
        previous(kind, value, tb)

    sys.excepthook = excepthook
    atexit.register(lambda: end_run(status="FAILED" if _CRASHED else "FINISHED"))


def _system_metrics() -> bool:
    return os.environ.get("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "").lower() in ("1", "true", "yes")


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = str(value)[:MAX_PARAM_LENGTH]
    return out


def log_params_flat(data: Mapping[str, Any]) -> None:
    """Log nested settings as dotted params, in the background. Params are immutable in MLflow, so on a resumed
    run only the ones not logged yet are sent (a resumed run has the same settings)."""
    if _QUEUE is not None:
        _QUEUE.log_params(flatten(data))


def log_metrics(metrics: Mapping[str, float], step: int | None = None) -> None:
    """Queue metrics for the background sender; returns at once."""
    if _QUEUE is not None:  # None: no run (start_run said why); the metrics are not recorded
        _QUEUE.log_metrics({k: float(v) for k, v in metrics.items()}, step)


class ResumedLossCallback:
    """Makes a resumed run's ``train_loss`` the mean loss of all its steps (register it before the callback that
    logs). transformers' Trainer divides the loss summed since the resume by *all* steps (``_finalize_training``:
    ``_total_loss_scalar / global_step``): a job resumed at step N reports too low a loss. The steps before N are
    in the checkpoint's ``log_history`` (each ``loss`` the mean over its logging window)."""

    def __init__(self) -> None:
        self.start_step = 0
        self.before = 0.0
        self.train_loss: float | None = None

    def __getattr__(self, name):  # every other TrainerCallback event is a no-op
        if name.startswith("on_"):
            return lambda *a, **k: None
        raise AttributeError(name)

    def on_train_begin(self, args, state, control, **kw):
        self.start_step = state.global_step
        self.before = loss_sum_until(state.log_history, self.start_step)

    def on_log(self, args, state, control, logs=None, **kw):
        if logs is None or "train_loss" not in logs or not state.global_step:
            return
        if self.start_step:
            logs["train_loss"] = logs["train_loss"] + self.before / state.global_step
            if state.log_history and "train_loss" in state.log_history[-1]:
                state.log_history[-1]["train_loss"] = logs["train_loss"]
        self.train_loss = logs["train_loss"]


def loss_sum_until(log_history: list[dict], step: int) -> float:
    """Sum of the per-step training losses of steps 1..``step`` from a Trainer's ``log_history`` (each ``loss`` is
    the mean over the steps since the previous one; steps after the last logged one count at its mean)."""
    total, previous, last = 0.0, 0, None
    for entry in log_history:
        if "loss" in entry and "step" in entry and entry["step"] <= step:
            total += entry["loss"] * (entry["step"] - previous)
            previous, last = entry["step"], entry["loss"]
    if last is not None and previous < step:
        total += last * (step - previous)
    return total


def log_artifact(path: str | Path, *, attempts: int = 3, pause: float = 0.5) -> None:
    """Upload ``path`` to the active run once the queued metrics are sent. MLflow's file store (the local chain's,
    docs/jobs.md) finds the run by reading every metric file of it, and a file the background sender or the system
    metrics monitor is writing at that moment reads as malformed (MLflow 3.17.2 ``FileStore._get_metric_from_file``:
    "Metric '...' is malformed. No data found."): the queue is flushed first, and that one error, a read racing a
    write, is tried again a few times."""
    import mlflow

    if _QUEUE is not None:
        _QUEUE.flush(EXIT_FLUSH_S)
    for attempt in range(attempts):
        try:
            mlflow.log_artifact(str(path))
            return
        except ValueError as exc:
            if "is malformed" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(pause)


def register_model_dir(model_dir: str | Path, *, name: str, artifact_path: str = "model") -> Any:
    """Log a Hugging Face model directory with the MLflow transformers flavour and register it as ``name``, tagged
    :data:`MODEL_DIR_TAG` -- one idempotent unit per run: a restart after registering (the job resumes at its last
    step and finishes again) finds the version of its run, completes its tag if a kill came between the two, and
    returns it."""
    import mlflow
    from mlflow import MlflowClient

    from llm_platform.paths import as_pods_see_it

    run = mlflow.active_run()
    if run is None:
        warn(f"no MLflow run (the server was unreachable at the start): {model_dir} is NOT registered as {name!r}")
        return None
    if _QUEUE is not None and not _QUEUE.flush(EXIT_FLUSH_S) and _QUEUE.down_since is not None:
        warn(
            f"{_QUEUE.transport.where} is unreachable: {model_dir} is NOT registered as {name!r}. Run the job "
            f"again (it resumes at its last step and registers once) or register the directory by hand"
        )
        return None
    try:
        with bounded_http(timeout=60, retries=3):
            existing = MlflowClient().search_model_versions(f"name='{name}' and run_id='{run.info.run_id}'")
    except Exception as exc:  # noqa: BLE001 - as above: training is done, the model is on disk
        warn(
            f"cannot reach MLflow to register ({_short(exc)}): {model_dir} is NOT registered as {name!r}. Run the "
            f"job again (it resumes at its last step and registers once) or register the directory by hand"
        )
        return None
    if existing:
        version = existing[0]
        warn(
            f"{name!r} version {version.version} is already registered from this run "
            f"({run.info.run_id}); not registering again"
        )
        if (version.tags or {}).get(MODEL_DIR_TAG) != as_pods_see_it(model_dir):  # a kill between the two steps
            tag_model_dir(name, version.version, model_dir)
        return version
    size = sum(p.stat().st_size for p in Path(model_dir).rglob("*") if p.is_file())
    warn(
        f"uploading {size / 2**20:.0f} MiB of {model_dir} to register {name!r} (a transfer that stalls for "
        f"{UPLOAD_STALL_S:.0f} s is retried {UPLOAD_RETRIES} times, then given up)"
    )
    try:
        with bounded_http(timeout=UPLOAD_STALL_S, retries=UPLOAD_RETRIES):
            info = mlflow.transformers.log_model(
                transformers_model=str(model_dir),
                name=artifact_path,
                task="text-generation",
                registered_model_name=name,
                pip_requirements=serving_requirements(),
            )
    except Exception as exc:  # noqa: BLE001 - training is done and the model is on disk: say so loudly, no hang
        warn(
            f"REGISTRATION FAILED: uploading {model_dir} for {name!r} did not complete ({_short(exc)}). The model is "
            f"NOT registered. Run the job again (it resumes at its last step, trains nothing and registers once) or "
            f"register the directory by hand"
        )
        return None
    tag_model_dir(name, getattr(info, "registered_model_version", None), model_dir)
    return info


MODEL_DIR_TAG = "llmft.model_dir"
"""Tag of a registered version naming the directory its weights were registered from, as the job's pods see it (the
team's /fsx): what a serve job loads (llmft/registry.py; the same name as k8s_charts/serving.py MODEL_DIR_TAG, which
the training package cannot import; tests/test_serve.py checks they agree)."""


def tag_model_dir(name: str, version: int | str | None, model_dir: str | Path) -> None:
    """Tag ``name`` version ``version`` with :data:`MODEL_DIR_TAG`; a failure is a warning (the model is
    registered; a serve job then says which tag is missing)."""
    if version is None:
        return
    from mlflow import MlflowClient

    from llm_platform.paths import as_pods_see_it

    try:
        with bounded_http(timeout=60, retries=3):
            MlflowClient().set_model_version_tag(name, str(version), MODEL_DIR_TAG, as_pods_see_it(model_dir))
    except Exception as exc:  # noqa: BLE001 - training is done and registered; serving names the missing tag
        warn(
            f"{name!r} version {version} is registered but not tagged {MODEL_DIR_TAG}={model_dir} "
            f"({_short(exc)}): tag it by hand to serve it"
        )


def serving_requirements() -> list[str]:
    """What loading the registered model needs, from the versions installed here. Given explicitly: MLflow's
    inference of requirements imports every optional package it knows of (torchvision, ...) and can fail."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for package in ("torch", "transformers", "tokenizers", "safetensors", "accelerate"):
        try:
            out.append(f"{package}=={version(package).split('+')[0]}")  # no local label such as +cpu / +cu128
        except PackageNotFoundError:
            continue
    return out


def end_run(status: str = "FINISHED", flush_timeout: float = EXIT_FLUSH_S) -> None:
    """Flush the queue (at most ``flush_timeout`` s), record one last system-metrics sample
    (:func:`flush_system_metrics`) and end the active run with ``status``, each MLflow call one bounded attempt:
    with the server gone this returns in about ``flush_timeout`` + 2 x :data:`ATTEMPT_TIMEOUT_S` s."""
    import mlflow

    global _QUEUE
    queue, _QUEUE = _QUEUE, None
    reachable = True
    if queue is not None:
        if queue.flush_failed_at is not None and time.monotonic() - queue.flush_failed_at < REPORT_EVERY_S:
            flush_timeout = min(flush_timeout, 5.0)  # it just waited in vain (before registering): do not again
        reachable = queue.close(flush_timeout) and queue.down_since is None
    run = mlflow.active_run()
    if not run:
        return
    with bounded_http():
        if reachable:
            flush_system_metrics(run.info.run_id)
        _stop_system_metrics(run.info.run_id)
        try:
            mlflow.end_run(status=status)
        except Exception as exc:  # noqa: BLE001 - the run stays RUNNING on the server; a restart reopens it
            warn(f"could not end MLflow run {run.info.run_id} as {status} ({_short(exc)})")
            with contextlib.suppress(Exception):
                while mlflow.active_run():  # MLflow popped it before its call failed; be sure
                    mlflow.end_run()


def _stop_system_metrics(run_id: str, timeout: float = 2.0) -> None:
    """Stop MLflow's system-metrics monitor without waiting on a publish that retries for minutes: ``finish()``
    joins the monitor's thread, so it runs in a helper thread given ``timeout`` s."""
    from mlflow.tracking import fluent

    monitor = getattr(fluent, "run_id_to_system_metrics_monitor", {}).pop(run_id, None)
    if monitor is not None:
        helper = threading.Thread(target=monitor.finish, daemon=True)
        helper.start()
        helper.join(timeout)


def flush_system_metrics(run_id: str) -> bool:
    """Publish the system metrics sampled so far, plus one sample taken now, for ``run_id``.

    MLflow's monitor (mlflow 3.17.2 ``system_metrics/system_metrics_monitor.py``) samples at once, then publishes
    only after ``MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL`` (10 s) and drops what it holds when the run ends
    (``finish()`` stops the loop without publishing). A step shorter than the interval (evaluation of a small set,
    a resumed run that only merges) would record no ``system/*`` metric at all. Returns whether a sample was
    published; a monitor without these methods (another MLflow) is left alone."""
    from mlflow.tracking import fluent

    monitor = getattr(fluent, "run_id_to_system_metrics_monitor", {}).get(run_id)
    collect, aggregate = getattr(monitor, "collect_metrics", None), getattr(monitor, "aggregate_metrics", None)
    publish = getattr(monitor, "publish_metrics", None)
    if not (collect and aggregate and publish):
        return False
    try:
        collect()
        publish(aggregate())
    except Exception:  # noqa: BLE001 - system metrics are best effort, never a reason to fail a job
        return False
    return True
