"""`python -m llm_platform.serve --model-path DIR --served-model-name NAME`: a registered model served on this machine.

The CPU stand-in for the cluster's engine. On the cluster a ``type: serve`` job runs SGLang
(``python3 -m sglang.launch_server``, ``sglang==0.5.21``); here transformers generates on the CPU behind the same
HTTP surface, so a client, a test or the platform's scrape contract can be tried without a GPU:

* ``GET /v1/models`` and ``POST /v1/chat/completions`` in the shapes of OpenAI's API reference
  (https://platform.openai.com/docs/api-reference/chat/create: ``id``, ``object: chat.completion``, ``created``,
  ``model``, ``choices[].message{role, content}``, ``choices[].finish_reason`` ``stop``/``length``,
  ``usage{prompt_tokens, completion_tokens, total_tokens}``; https://platform.openai.com/docs/api-reference/models/list);
  errors in OpenAI's error object (``{"error": {"message", "type", "param", "code"}}``): 400 for a request it cannot
  serve, 404 for a model name it does not serve;
* ``GET /health``: 200 once the model is loaded (SGLang's ``/health``, ``sglang/srt/entrypoints/http_server.py``);
* ``GET /metrics``: Prometheus text with SGLang's demand gauges ``sglang:num_running_reqs`` (requests generating)
  and ``sglang:num_queue_reqs`` (requests waiting), labelled ``model_name`` as SGLang labels them
  (``sglang/srt/observability/metrics_collector.py`` at 0.5.21).

The messages go through the model's own chat template (``content`` a string or OpenAI's list of text parts);
``temperature`` 0 is greedy decoding, above 0 sampling (with ``top_p`` and an optional ``seed``, a signed 64-bit
integer as vLLM takes it); ``max_completion_tokens`` (or, when it is absent or null, ``max_tokens``) defaults to what
is left of the model's context; ``stop`` (a string or up to 4) ends the generation and is cut from the text. One
request generates at a time (the others wait: ``num_queue_reqs``); a request whose client disconnects stops at the
next token, or never starts if it was still waiting, as vLLM and SGLang abort it. Every bad input is a 4xx in
OpenAI's error shape: a body above ``--max-body-bytes`` 413, JSON that cannot be read (bad syntax or UTF-8, nesting
too deep), a lone surrogate, an out-of-range ``seed``, ``stream: true``, ``n`` > 1 400. It binds 127.0.0.1 unless
told otherwise.
"""

import argparse
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from llm_platform import weights_digest

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 30000  # SGLang's default --port (sglang/srt/server_args.py)
RUNNING_GAUGE = "sglang:num_running_reqs"
QUEUE_GAUGE = "sglang:num_queue_reqs"
ABORTED_COUNTER = "aborted"  # requests whose client left before the answer (kept by the engine, not exported)
MAX_BODY_BYTES = 1 << 20  # a request body above this gets 413 (--max-body-bytes)
MAX_STOP = 4  # OpenAI's `stop`: "Up to 4 sequences"
# vLLM's `seed` bounds (a signed 64-bit integer, vllm/entrypoints/openai/protocol.py: torch.iinfo(torch.long))
SEED_RANGE = (-(2**63), 2**63 - 1)


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end-of-turn token) or "length" (max_tokens reached)


class ServingError(Exception):
    """A request the server answers with OpenAI's error object."""

    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param

    def body(self) -> dict[str, Any]:
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}


class _Until:
    """transformers' stopping criterion of one generation: the client has gone (``cancel``) or the new text holds
    one of the ``stop`` strings (``StoppingCriteria.__call__(input_ids, scores) -> BoolTensor`` of the batch)."""

    def __init__(self, engine: "Engine", start: int, stop: list[str] | None, cancel: threading.Event) -> None:
        self.engine, self.start, self.stop, self.cancel = engine, start, stop or [], cancel

    def __call__(self, input_ids, scores, **kwargs):
        done = self.cancel.is_set()
        if not done and self.stop:
            text = self.engine.tokenizer.decode(input_ids[0, self.start :], skip_special_tokens=True)
            done = any(s in text for s in self.stop)
        return self.engine.torch.full((input_ids.shape[0],), done, dtype=self.engine.torch.bool)


class Engine:
    """The model and its tokenizer, one generation at a time, with the demand counters /metrics reports."""

    def __init__(self, model_path: str) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        if not self.tokenizer.chat_template:
            raise ValueError(f"{model_path} has no chat template (tokenizer_config.json): chat completions need one")
        self.model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32).eval()
        self.context = int(getattr(self.model.config, "max_position_embeddings", 0) or 4096)
        self.lock = threading.Lock()
        self.counts = {RUNNING_GAUGE: 0, QUEUE_GAUGE: 0, ABORTED_COUNTER: 0}
        self.counts_lock = threading.Lock()

    def _count(self, gauge: str, delta: int) -> None:
        with self.counts_lock:
            self.counts[gauge] += delta

    def prompt_ids(self, messages: list[dict[str, str]]):
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"]
        if ids.shape[1] >= self.context:
            raise ServingError(
                400,
                f"the prompt is {ids.shape[1]} tokens; the model's context is {self.context}",
                code="context_length_exceeded",
                param="messages",
            )
        return ids

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int | None,
        temperature: float,
        top_p: float,
        seed: int | None,
        stop: list[str] | None = None,
        cancel: threading.Event | None = None,
    ) -> Completion:
        """One generation. ``stop``: strings that end it (the text is cut before the first one, OpenAI's rule);
        ``cancel``: set when the client has gone, which ends the generation at the next token (or skips it while
        it still waits for its turn), as vLLM and SGLang abort a request whose client disconnected."""
        ids = self.prompt_ids(messages)
        budget = self.context - ids.shape[1]
        if max_tokens is not None and max_tokens > budget:
            raise ServingError(
                400,
                f"max_tokens {max_tokens} + the prompt's {ids.shape[1]} tokens exceed the "
                f"model's context of {self.context}",
                param="max_tokens",
            )
        limit = max_tokens or budget
        cancel = cancel or threading.Event()
        self._count(QUEUE_GAUGE, 1)
        with self.lock:
            self._count(QUEUE_GAUGE, -1)
            if cancel.is_set():
                self._count(ABORTED_COUNTER, 1)
                return Completion("", int(ids.shape[1]), 0, "abort")
            self._count(RUNNING_GAUGE, 1)
            try:
                new = self._generate(ids, limit, temperature, top_p, seed, _Until(self, ids.shape[1], stop, cancel))
            finally:
                self._count(RUNNING_GAUGE, -1)
        if cancel.is_set():
            self._count(ABORTED_COUNTER, 1)
        return self._completion(new, int(ids.shape[1]), limit, stop or [])

    def _completion(self, new: list[int], prompt_tokens: int, limit: int, stop: list[str]) -> Completion:
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        cuts = [text.index(s) for s in stop if s in text]
        eos = self.tokenizer.eos_token_id
        ended = bool(cuts) or (bool(new) and int(new[-1]) == eos) or len(new) < limit
        return Completion(
            text=(text[: min(cuts)] if cuts else text).strip(),
            prompt_tokens=prompt_tokens,
            completion_tokens=len(new),
            finish_reason="stop" if ended else "length",
        )

    def _generate(self, ids, max_new_tokens: int, temperature: float, top_p: float, seed: int | None, until):
        from transformers import StoppingCriteriaList

        sampling = (
            {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature > 0 else {"do_sample": False}
        )
        if seed is not None:
            self.torch.manual_seed(seed)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with self.torch.no_grad():
            out = self.model.generate(
                ids,
                attention_mask=self.torch.ones_like(ids),
                max_new_tokens=max_new_tokens,
                pad_token_id=pad,
                eos_token_id=self.tokenizer.eos_token_id,
                stopping_criteria=StoppingCriteriaList([until]),
                **sampling,
            )
        return out[0, ids.shape[1] :].tolist()

    def metrics(self, served_name: str) -> str:
        """Prometheus text exposition of the two demand gauges."""
        helps = {
            RUNNING_GAUGE: "The number of running requests.",
            QUEUE_GAUGE: "The number of requests in the waiting queue.",
        }
        with self.counts_lock:
            counts = dict(self.counts)
        lines = []
        for gauge, text in helps.items():
            lines += [
                f"# HELP {gauge} {text}",
                f"# TYPE {gauge} gauge",
                f'{gauge}{{model_name="{served_name}"}} {float(counts[gauge])}',
            ]
        return "\n".join(lines) + "\n"


def chat_request(body: Any, served_name: str) -> dict[str, Any]:
    """The generation arguments of a chat completion request body; :class:`ServingError` when it is not one."""
    if not isinstance(body, dict):
        raise ServingError(400, "the request body must be a JSON object")
    if body.get("model") != served_name:
        raise ServingError(
            404,
            f"The model `{body.get('model')}` does not exist (this server serves `{served_name}`).",
            code="model_not_found",
            param="model",
        )
    messages = _messages(body.get("messages"))
    if body.get("stream"):
        raise ServingError(400, "stream: true is not supported by the local server", param="stream")
    if body.get("n", 1) != 1:
        raise ServingError(400, "n must be 1", param="n")
    # max_completion_tokens replaces the deprecated max_tokens; a null one leaves max_tokens in force (vLLM:
    # `max_tokens = request.max_completion_tokens or request.max_tokens`).
    max_tokens = body.get("max_completion_tokens")
    max_tokens = body.get("max_tokens") if max_tokens is None else max_tokens
    temperature, top_p, seed = body.get("temperature", 1.0), body.get("top_p", 1.0), body.get("seed")
    temperature = 1.0 if temperature is None else temperature
    top_p = 1.0 if top_p is None else top_p
    checks = [
        ("max_tokens", max_tokens is None or (type(max_tokens) is int and max_tokens >= 1), "an integer >= 1"),
        ("temperature", _number(temperature) and 0 <= temperature <= 2, "a number from 0 to 2"),
        ("top_p", _number(top_p) and 0 < top_p <= 1, "a number in (0, 1]"),
        (
            "seed",
            seed is None or (type(seed) is int and SEED_RANGE[0] <= seed <= SEED_RANGE[1]),
            f"an integer from {SEED_RANGE[0]} to {SEED_RANGE[1]}",
        ),
    ]
    for name, ok, wanted in checks:
        if not ok:
            raise ServingError(400, f"{name} must be {wanted}", param=name)
    return {
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "top_p": float(top_p),
        "seed": seed,
        "stop": _stop(body.get("stop")),
    }


def _messages(messages: Any) -> list[dict[str, str]]:
    """``messages`` as {role, content} with string content: OpenAI's list-of-parts content (``[{"type": "text",
    "text": ...}]``) is joined; any other part type, a missing field or text that is not Unicode is refused."""
    wanted = "messages must be a non-empty list of {role, content} objects; content a string or a list of text parts"
    if not isinstance(messages, list) or not messages:
        raise ServingError(400, wanted, param="messages")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ServingError(400, f"{wanted} (messages[{i}])", param="messages")
        content = m.get("content")
        if isinstance(content, list):
            if not all(
                isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content
            ):
                raise ServingError(
                    400, f"messages[{i}].content: only parts of type text are supported here", param="messages"
                )
            content = "".join(p["text"] for p in content)
        if not isinstance(content, str):
            raise ServingError(400, f"{wanted} (messages[{i}])", param="messages")
        out.append(
            {"role": _text(m["role"], f"messages[{i}].role"), "content": _text(content, f"messages[{i}].content")}
        )
    return out


def _stop(stop: Any) -> list[str]:
    """OpenAI's ``stop``: null, a string or a list of up to four non-empty strings."""
    stops = [stop] if isinstance(stop, str) else [] if stop is None else stop
    if not isinstance(stops, list) or len(stops) > MAX_STOP or not all(isinstance(x, str) and x for x in stops):
        raise ServingError(400, f"stop must be a non-empty string or a list of up to {MAX_STOP} of them", param="stop")
    return [_text(x, "stop") for x in stops]


def _text(value: str, where: str) -> str:
    """``value`` when it encodes as UTF-8 (a JSON string may hold a lone surrogate such as "\\ud800")."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ServingError(400, f"{where} is not valid Unicode text: {exc.reason} at {exc.start}", param=where) from exc
    return value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def chat_response(result: Completion, served_name: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": served_name,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": result.text},
                "finish_reason": result.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "total_tokens": result.prompt_tokens + result.completion_tokens,
        },
    }


async def read_body(request, limit: int) -> bytes:
    """The request body, refused with 413 past ``limit`` bytes (announced by Content-Length or counted as it
    arrives), so that a huge body costs neither the time to parse it nor the memory to hold it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ServingError(413, f"the request body is {declared} bytes; this server takes at most {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServingError(413, f"the request body exceeds {limit} bytes, the most this server takes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(raw: bytes) -> Any:
    """The JSON of a request body; 400 for anything that is not (bad syntax, bad UTF-8, nesting too deep)."""
    import json

    try:
        return json.loads(raw)
    except RecursionError as exc:
        raise ServingError(400, "the request body is not JSON this server can read: nested too deeply") from exc
    except ValueError as exc:
        raise ServingError(400, f"the request body is not JSON: {exc}") from exc


async def until_disconnect(request, cancel: threading.Event) -> None:
    """Set ``cancel`` when the client goes away (ASGI's ``http.disconnect``, once the body has been read)."""
    while not cancel.is_set():
        if (await request.receive())["type"] == "http.disconnect":
            cancel.set()


async def generate(request, engine: Engine, args: dict[str, Any]) -> Completion:
    """``engine.complete`` in a worker thread, cancelled when the client disconnects before it ends."""
    import asyncio

    from starlette.concurrency import run_in_threadpool

    cancel = threading.Event()
    watcher = asyncio.create_task(until_disconnect(request, cancel))
    try:
        return await run_in_threadpool(lambda: engine.complete(**args, cancel=cancel))
    finally:
        watcher.cancel()


def create_app(engine: Engine, served_name: str, *, max_body_bytes: int = MAX_BODY_BYTES):
    """The FastAPI application serving ``engine`` as ``served_name``; bodies above ``max_body_bytes`` get 413.
    (No ``from __future__ import annotations`` in this module: FastAPI reads the handlers' annotations,
    ``Request``, as objects.)"""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse, Response
    from starlette.exceptions import HTTPException

    app = FastAPI(title=f"llm_platform.serve: {served_name}")
    started = int(time.time())

    @app.exception_handler(ServingError)
    async def serving_error(_: Request, exc: ServingError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(ServingError(exc.status_code, str(exc.detail)).body(), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def server_error(_: Request, exc: Exception) -> JSONResponse:
        print(f"llm_platform.serve: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        error = ServingError(500, f"the server failed on this request ({type(exc).__name__}); see its log")
        return JSONResponse(error.body(), status_code=500)

    @app.get("/health")
    def health() -> Response:
        return Response(status_code=200)

    @app.get("/metrics")
    def metrics() -> PlainTextResponse:
        return PlainTextResponse(engine.metrics(served_name), media_type="text/plain; version=0.0.4")

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": served_name, "object": "model", "created": started, "owned_by": "llmft"}],
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        args = chat_request(parse_json(await read_body(request, max_body_bytes)), served_name)
        result = await generate(request, engine, args)
        return JSONResponse(chat_response(result, served_name))

    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_platform.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-path", required=True, help="a Hugging Face model directory (e.g. merged weights)")
    parser.add_argument("--served-model-name", help="the model name clients send (default: --model-path)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--log-level", default="warning", help="uvicorn's log level (default warning)")
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"the largest request body taken; larger ones get 413 (default {MAX_BODY_BYTES})",
    )
    parser.add_argument("--weights-digest", help="serve only if the directory has this digest (weights_digest.py)")
    args = parser.parse_args(argv)
    if args.weights_digest is not None and weights_digest.main(
        ["--verify", args.model_path, "--digest", args.weights_digest]
    ):
        return 1  # the evaluated weights changed (issue 40): refused before anything is loaded
    import uvicorn

    name = args.served_model_name or args.model_path
    engine = Engine(args.model_path)
    print(f"llm_platform.serve: {name} on http://{args.host}:{args.port}/v1", file=sys.stderr, flush=True)
    uvicorn.run(
        create_app(engine, name, max_body_bytes=args.max_body_bytes),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
