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

The messages go through the model's own chat template; ``temperature`` 0 is greedy decoding, above 0 sampling
(with ``top_p`` and an optional ``seed``); ``max_tokens`` (or ``max_completion_tokens``) defaults to what is left of
the model's context. One request generates at a time (the others wait: ``num_queue_reqs``); ``stream: true`` and
``n`` > 1 are refused with 400. It binds 127.0.0.1 unless told otherwise.
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
        self.counts = {RUNNING_GAUGE: 0, QUEUE_GAUGE: 0}
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
    ) -> Completion:
        ids = self.prompt_ids(messages)
        budget = self.context - ids.shape[1]
        if max_tokens is not None and max_tokens > budget:
            raise ServingError(
                400,
                f"max_tokens {max_tokens} + the prompt's {ids.shape[1]} tokens exceed the "
                f"model's context of {self.context}",
                param="max_tokens",
            )
        self._count(QUEUE_GAUGE, 1)
        with self.lock:
            self._count(QUEUE_GAUGE, -1)
            self._count(RUNNING_GAUGE, 1)
            try:
                new = self._generate(ids, max_tokens or budget, temperature, top_p, seed)
            finally:
                self._count(RUNNING_GAUGE, -1)
        eos = self.tokenizer.eos_token_id
        stopped = bool(len(new)) and int(new[-1]) == eos
        return Completion(
            text=self.tokenizer.decode(new, skip_special_tokens=True).strip(),
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=len(new),
            finish_reason="stop" if stopped or len(new) < (max_tokens or budget) else "length",
        )

    def _generate(self, ids, max_new_tokens: int, temperature: float, top_p: float, seed: int | None):
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
    messages = body.get("messages")
    if (
        not isinstance(messages, list)
        or not messages
        or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in messages
        )
    ):
        raise ServingError(
            400, "messages must be a non-empty list of {role, content} objects with string content", param="messages"
        )
    if body.get("stream"):
        raise ServingError(400, "stream: true is not supported by the local server", param="stream")
    if body.get("n", 1) != 1:
        raise ServingError(400, "n must be 1", param="n")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    temperature, top_p, seed = body.get("temperature", 1.0), body.get("top_p", 1.0), body.get("seed")
    checks = [
        ("max_tokens", max_tokens is None or (type(max_tokens) is int and max_tokens >= 1), "an integer >= 1"),
        ("temperature", _number(temperature) and 0 <= temperature <= 2, "a number from 0 to 2"),
        ("top_p", _number(top_p) and 0 < top_p <= 1, "a number in (0, 1]"),
        ("seed", seed is None or type(seed) is int, "an integer"),
    ]
    for name, ok, wanted in checks:
        if not ok:
            raise ServingError(400, f"{name} must be {wanted}", param=name)
    return {
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "max_tokens": max_tokens,
        "temperature": float(temperature),
        "top_p": float(top_p),
        "seed": seed,
    }


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


def create_app(engine: Engine, served_name: str):
    """The FastAPI application serving ``engine`` as ``served_name``. (No ``from __future__ import annotations`` in
    this module: FastAPI reads the handlers' annotations, ``Request``, as objects.)"""
    import json

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
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            raise ServingError(400, f"the request body is not JSON: {exc}") from exc
        args = chat_request(body, served_name)
        from starlette.concurrency import run_in_threadpool

        result = await run_in_threadpool(lambda: engine.complete(**args))
        return JSONResponse(chat_response(result, served_name))

    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_platform.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-path", required=True, help="a Hugging Face model directory (e.g. merged weights)")
    parser.add_argument("--served-model-name", help="the model name clients send (default: --model-path)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--log-level", default="warning", help="uvicorn's log level (default warning)")
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
    uvicorn.run(create_app(engine, name), host=args.host, port=args.port, log_level=args.log_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
