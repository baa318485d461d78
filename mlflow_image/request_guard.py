"""The ASGI guard around the MLflow tracking server's app (issue 32, issue 46; :func:`entrypoint.create_app` wraps
MLflow's app in :class:`RequestGuard`): request bodies capped and checked before MLflow buffers and parses them
(JSON as MLflow decodes it, values PostgreSQL and MLflow's protobufs can store), a request timeout, ``/health``
answering 503 while the backend is stalled, and error bodies without internals (SQL, driver messages, the database
host) but with a reference the server log has next to the original. Standard library only: the unit tests run it
without MLflow installed."""

from __future__ import annotations

import json
import re
import sys
import time
import uuid


def log(message: str) -> None:
    print(f"[entrypoint] {message}", file=sys.stderr, flush=True)


MAX_BODY_BYTES = 8 * 1024 * 1024
"""Largest request body (artifact uploads excepted). A log-batch is at most 1 MB (mlflow/utils/validation.py
``MAX_BATCH_LOG_REQUEST_SIZE``); a dataset schema 1 MiB."""
LARGE_BODY_BYTES = 64 * 1024
BODY_BUDGET_BYTES = 32 * 1024 * 1024
"""Bytes of bodies over LARGE_BODY_BYTES held at once per worker (buffered, parsed, handled); with MAX_BODY_BYTES,
what bounds the memory requests take."""
MAX_JSON_DEPTH = 64
INT64 = (-(2**63), 2**63 - 1)
INT64_FIELDS = frozenset(
    {
        "step",
        "timestamp",
        "start_time",
        "end_time",
        "max_results",
        "request_time",
        "execution_time",
        "creation_timestamp",
        "last_update_timestamp",
        "version",
    }
)
"""Fields MLflow's protobufs declare int64 that the JSON may carry as strings (proto3 JSON mapping)."""
UNBUFFERED_PATH_MARKERS = ("/mlflow-artifacts/artifacts/",)
"""Artifact uploads and downloads: streamed by MLflow (mlflow/server/artifact_router.py), neither capped nor parsed."""
NON_JSON_TYPES = (
    "multipart/",
    "application/x-www-form-urlencoded",
    "application/x-protobuf",
    "application/octet-stream",
)
INTERNALS = re.compile(
    r"\[SQL:|\(Background on this error|psycopg|sqlalchemy|sqlite3|\b(INSERT INTO|SELECT .* FROM|"
    r"UPDATE .* SET|DELETE FROM)\b|connection to server|Traceback \(most recent",
    re.I | re.S,
)


class BadRequest(ValueError):
    """A request body or query the server refuses with 400; the message is safe to return."""


def decode_body(raw: bytes) -> dict | None:
    """The request's JSON object, decoded as MLflow decodes it (mlflow/server/handlers.py
    ``_get_normalized_request_json``: a body that is a JSON string is decoded a second time), or None for an empty
    body. Anything else is a :class:`BadRequest`: MLflow would crash on it (HTTP 500) or, for the team-prefix check,
    a body MLflow reads as an object must never be read differently here."""
    if not raw.strip():
        return None
    try:
        value = json.loads(raw)
        if isinstance(value, str):
            value = json.loads(value)
    except RecursionError:
        raise BadRequest(f"the request body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise BadRequest("the request body is not UTF-8") from None
    except ValueError as exc:
        raise BadRequest(
            f"the request body is not valid JSON ({exc.__class__.__name__} at character {getattr(exc, 'pos', '?')})"
        ) from None
    if not isinstance(value, dict):
        raise BadRequest(f"the request body must be a JSON object, not {_json_kind(value)}")
    check_values(value)
    return value


def _json_kind(value) -> str:
    return {
        list: "an array",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def check_values(value, where: str = "body") -> None:
    """Refuse (:class:`BadRequest`) what PostgreSQL or MLflow's protobufs cannot store and MLflow would answer with
    a 500 or store wrongly: NUL and unpaired surrogates in any string, nesting deeper than :data:`MAX_JSON_DEPTH`,
    integers outside int64 (MLflow stored step 2**63 as 0), numeric strings outside int64 in int64 fields."""
    stack = [(value, where, 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise BadRequest(f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, dict):
            for key, child in item.items():
                _check_string(key, f"{path} key")
                child_path = f"{path}.{key}" if len(path) < 200 else path
                if key in INT64_FIELDS and isinstance(child, str) and re.fullmatch(r"-?\d+", child.strip()):
                    _check_int(int(child), child_path)
                stack.append((child, child_path, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
        elif isinstance(item, str):
            _check_string(item, path)
        elif isinstance(item, int) and not isinstance(item, bool):
            _check_int(item, path)


def _check_string(text: str, where: str) -> None:
    if "\x00" in text:
        raise BadRequest(f"{_short(where)} contains a NUL character, which MLflow cannot store")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"{_short(where)} contains an unpaired UTF-16 surrogate, which is not valid text") from None


def _check_int(number: int, where: str) -> None:
    if not INT64[0] <= number <= INT64[1]:
        raise BadRequest(
            f"{_short(where)} is outside the 64-bit integer range MLflow stores ({INT64[0]} to {INT64[1]})"
        )


def _short(where: str) -> str:
    return where if len(where) <= 120 else where[:117] + "..."


class RequestGuard:
    """ASGI middleware around MLflow's app (:func:`create_app`): caps and checks request bodies before MLflow
    buffers and parses them, and keeps internals (SQL, driver messages, the database host) out of error bodies.

    Starlette hands the Flask app the whole body at once (mlflow/server/fastapi_app.py ``_EfficientWSGIResponder``):
    without a cap a 128 MB body took 623 MiB of a 2 GiB task."""

    def __init__(
        self,
        app,
        *,
        max_body: int = MAX_BODY_BYTES,
        large_body: int = LARGE_BODY_BYTES,
        budget: int = BODY_BUDGET_BYTES,
        hidden: tuple[str, ...] = (),
        request_timeout: float,
    ) -> None:
        self.app, self.max_body, self.large_body = app, max_body, large_body
        self.budget = self.free = max(budget, max_body)
        self._freed = None  # asyncio.Condition, made in the server's event loop
        self.hidden = tuple(h for h in hidden if h)
        self.stall = StallWatch(request_timeout)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["method"] in ("GET", "HEAD") and scope["path"].endswith("/health"):
            stalled = self.stall.reason()
            if stalled:  # the load balancer's health check: a backend that keeps requests waiting is unhealthy
                return await _refuse(send, 503, stalled, code="TEMPORARILY_UNAVAILABLE")
            return await self.app(scope, receive, send)
        if any(m in scope["path"] for m in UNBUFFERED_PATH_MARKERS):  # artifacts: streamed, as long as they take
            return await self.app(scope, receive, _clean_errors(send, self.hidden, self.stall))
        return await self.stall.bounded(scope, send, lambda bounded_send: self._guarded(scope, receive, bounded_send))

    async def _guarded(self, scope, receive, send):
        path = scope["path"]
        if "\x00" in path or b"%00" in scope.get("query_string", b"") or b"\x00" in scope.get("query_string", b""):
            return await _refuse(send, 400, "the request path or query contains a NUL character")
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        try:
            length = int(declared) if declared is not None else None
        except ValueError:
            return await _refuse(send, 400, "the Content-Length header is not a number")
        if length is not None and length > self.max_body:
            return await _refuse(
                send,
                413,
                f"the request body ({length} bytes) is larger than the {self.max_body} bytes this server accepts",
            )
        if length == 0 or (length is None and b"chunked" not in headers.get(b"transfer-encoding", b"")):
            return await self.app(scope, receive, _clean_errors(send, self.hidden, self.stall))
        share = self.max_body if length is None else length
        if share <= self.large_body:
            return await self._buffered(scope, receive, send, headers)
        import asyncio

        if self._freed is None:
            self._freed = asyncio.Condition()
        async with self._freed:
            await self._freed.wait_for(lambda: self.free >= share)
            self.free -= share
        try:
            return await self._buffered(scope, receive, send, headers)
        finally:
            async with self._freed:
                self.free += share
                self._freed.notify_all()

    async def _buffered(self, scope, receive, send, headers):
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return await _refuse(
                    send, 413, f"the request body is larger than the {self.max_body} bytes this server accepts"
                )
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        del chunks
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        if body.strip() and not content_type.startswith(NON_JSON_TYPES):
            try:
                decode_body(body)
            except BadRequest as exc:
                return await _refuse(send, 400, str(exc))
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()  # http.disconnect, when the client goes away
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, _clean_errors(send, self.hidden, self.stall))


async def _refuse(send, status: int, message: str, code: str = "INVALID_PARAMETER_VALUE") -> None:
    if status == 413:
        code = "RESOURCE_LIMIT_EXCEEDED"
    body = json.dumps({"error_code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def clean_error_body(status: int, body: bytes, hidden: tuple[str, ...] = ()) -> tuple[bytes, str | None]:
    """An error body fit for a client: unchanged, or (every 5xx, and a 4xx that names SQL, the driver or a hidden
    word such as the database host) a generic one with a reference. Returns (body, reference or None)."""
    text = body.decode("utf-8", "replace")
    leaks = bool(INTERNALS.search(text)) or any(h in text for h in hidden)
    if status < 500 and not leaks:
        return body, None
    try:
        code = json.loads(text).get("error_code") or "INTERNAL_ERROR"
        code = code if re.fullmatch(r"[A-Z_]{1,64}", str(code)) else "INTERNAL_ERROR"
    except (ValueError, AttributeError):
        code = "INTERNAL_ERROR"
    reference = uuid.uuid4().hex[:12]
    what = (
        "the tracking database is unavailable; retry later"
        if status == 503
        else "the server failed to handle the request"
        if status >= 500
        else "the request was refused by the tracking store"
    )
    message = f"{what} (reference {reference}; the server log has the details)"
    return json.dumps({"error_code": code, "message": message}).encode(), reference


BACKEND_STALLS = re.compile(r"lock timeout|statement timeout|canceling statement|LockNotAvailable|QueryCanceled", re.I)
"""How PostgreSQL's lock_timeout / statement_timeout show in an error (psycopg2 ``LockNotAvailable``,
``QueryCanceled``: "canceling statement due to lock timeout")."""


class StallWatch:
    """The request timeout of one worker and what ``/health`` reports: a request that ran past the timeout (answered
    503 by :meth:`bounded`) or failed on PostgreSQL's lock or statement timeout makes the backend *stalled* for one
    timeout's length; so does a request still waiting after half of it."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.inflight: dict[object, float] = {}
        self.last: tuple[float, str] | None = None

    def saw(self, what: str) -> None:
        self.last = (time.monotonic(), what)

    def reason(self) -> str | None:
        now = time.monotonic()
        waiting = [t for t in self.inflight.values() if now - t > self.timeout / 2]
        if waiting:
            return (
                f"the tracking store is stalled: {len(waiting)} request(s) waiting for more than {self.timeout / 2:g} s"
            )
        if self.last is not None and now - self.last[0] < self.timeout:
            return f"the tracking store is stalled: {self.last[1]} {now - self.last[0]:.0f} s ago"
        return None

    async def bounded(self, scope, send, handle):
        """``handle(send)`` within the timeout; past it the client gets 503 (if nothing was sent yet) saying the
        request may still be applied, and what the handler sends later is dropped."""
        import asyncio

        state = {"started": False, "closed": False}

        async def tracked(message):
            if state["closed"]:
                return None
            state["started"] = state["started"] or message["type"] == "http.response.start"
            return await send(message)

        token = object()
        self.inflight[token] = time.monotonic()
        try:
            return await asyncio.wait_for(handle(tracked), self.timeout)
        except asyncio.TimeoutError:
            state["closed"] = True
            self.saw(f"a request ran past the {self.timeout:g} s request timeout")
            log(f"{scope['method']} {scope['path']} ran past the {self.timeout:g} s request timeout: answered 503")
            if not state["started"]:
                await _refuse(
                    send,
                    503,
                    f"the request did not complete within {self.timeout:g} s (the tracking database is slow or "
                    f"blocked) and may still be applied: read before repeating a create; logging the same metrics, "
                    f"params or tags again is harmless",
                    code="TEMPORARILY_UNAVAILABLE",
                )
            return None
        finally:
            self.inflight.pop(token, None)


def _clean_errors(send, hidden: tuple[str, ...], stall: StallWatch | None = None):
    """Wrap ``send``: error responses (status >= 400) are held until complete and passed through
    :func:`clean_error_body`; everything else streams through untouched. An error from PostgreSQL's lock or
    statement timeout is reported to ``stall``."""
    start: dict | None = None
    chunks: list[bytes] = []

    async def wrapped(message):
        nonlocal start
        if message["type"] == "http.response.start" and message.get("status", 200) >= 400:
            start = message
            return None
        if start is None or message["type"] != "http.response.body":
            return await send(message)
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return None
        original = b"".join(chunks)
        if stall is not None and BACKEND_STALLS.search(original.decode("utf-8", "replace")):
            stall.saw("a statement ran past PostgreSQL's lock or statement timeout")
        body, reference = clean_error_body(start["status"], original, hidden)
        if reference:
            log(
                f"error {reference} (HTTP {start['status']}) hidden from the client: "
                f"{original.decode('utf-8', 'replace')[:4000]}"
            )
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        if reference:
            headers = [(k, v) if k.lower() != b"content-type" else (k, b"application/json") for k, v in headers]
        await send({**start, "headers": headers})
        return await send({"type": "http.response.body", "body": body})

    return wrapped
