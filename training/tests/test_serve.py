"""llm_platform.serve: the OpenAI-compatible CPU server on the tiny model (in process, through FastAPI's TestClient),
and its command line as a real process bound to 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_platform import serve
from tiny import build_model, corpus_of, medical_rows

pytestmark = pytest.mark.e2e  # trains/serves the tiny model or starts processes (docs/testing.md "Tiers")

NAME = "ml-research.medical-sft"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    return build_model(tmp_path_factory.mktemp("serve") / "merged", corpus_of(medical_rows(8)))


@pytest.fixture(scope="module")
def client(model_dir):
    from fastapi.testclient import TestClient

    engine = serve.Engine(str(model_dir))
    with TestClient(serve.create_app(engine, NAME)) as c:
        c.engine = engine
        yield c


def chat(client, **body):
    body = {
        "model": NAME,
        "messages": [{"role": "user", "content": "a patient has pain linked to the heart"}],
        "max_tokens": 5,
        "temperature": 0,
        **body,
    }
    return client.post("/v1/chat/completions", json=body)


def test_models_lists_the_served_name(client) -> None:
    r = client.get("/v1/models")
    assert r.status_code == 200
    assert [(m["id"], m["object"]) for m in r.json()["data"]] == [(NAME, "model")]


def test_chat_completion_shape_and_usage(client) -> None:
    r = chat(client)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["object"] == "chat.completion" and out["model"] == NAME and out["id"].startswith("chatcmpl-")
    assert isinstance(out["created"], int)
    choice = out["choices"][0]
    assert choice["message"]["role"] == "assistant" and isinstance(choice["message"]["content"], str)
    usage = out["usage"]
    prompt = client.engine.prompt_ids([{"role": "user", "content": "a patient has pain linked to the heart"}])
    assert usage["prompt_tokens"] == prompt.shape[1]  # the chat template's rendering, not the raw text
    assert 1 <= usage["completion_tokens"] <= 5
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert choice["finish_reason"] == ("length" if usage["completion_tokens"] == 5 else "stop")


def test_temperature_zero_is_greedy_and_repeatable(client) -> None:
    first, second = chat(client).json(), chat(client).json()
    assert first["choices"][0]["message"] == second["choices"][0]["message"]
    sampled = [
        chat(client, temperature=1.5, seed=s, max_tokens=8).json()["choices"][0]["message"]["content"] for s in (1, 1)
    ]
    assert sampled[0] == sampled[1]  # the same seed samples the same tokens


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "user"}]}, "messages"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 10_000}, "max_tokens"),
        ({"temperature": "hot"}, "temperature"),
        ({"temperature": 3}, "temperature"),
        ({"stream": True}, "stream"),
        ({"n": 2}, "n"),
    ],
)
def test_bad_requests_get_400_in_openai_shape(client, body, param) -> None:
    r = chat(client, **body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param and error["message"]


def test_body_that_is_not_json_gets_400(client) -> None:
    r = client.post("/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]["message"]


def test_unknown_model_gets_404_model_not_found(client) -> None:
    r = chat(client, model="ml-research.other")
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "model_not_found" and "ml-research.other" in r.json()["error"]["message"]


def test_unknown_path_gets_404_in_openai_shape(client) -> None:
    r = client.get("/v1/nothing")
    assert r.status_code == 404 and set(r.json()["error"]) == {"message", "type", "param", "code"}


def test_health_and_metrics(client) -> None:
    assert client.get("/health").status_code == 200
    text = client.get("/metrics").text
    for gauge in ("sglang:num_running_reqs", "sglang:num_queue_reqs"):
        assert f"# TYPE {gauge} gauge" in text
        assert f'{gauge}{{model_name="{NAME}"}} 0.0' in text  # idle between requests


def test_a_model_without_chat_template_is_refused(model_dir, tmp_path) -> None:
    import shutil

    copy = Path(shutil.copytree(model_dir, tmp_path / "plain"))
    config = copy / "tokenizer_config.json"
    config.write_text(config.read_text().replace('"chat_template"', '"unused_template"'))
    (copy / "chat_template.jinja").unlink(missing_ok=True)
    with pytest.raises(ValueError, match="no chat template"):
        serve.Engine(str(copy))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_command_line_serves_on_127_0_0_1(model_dir) -> None:
    import httpx

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(Path(serve.__file__).resolve().parents[1]), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llm_platform.serve",
            "--model-path",
            str(model_dir),
            "--served-model-name",
            NAME,
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read()
        listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
        assert [line.split()[3] for line in listening.splitlines()] == [f"127.0.0.1:{port}"], listening
        r = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            timeout=30,
            json={"model": NAME, "messages": [{"role": "user", "content": "heart"}], "max_tokens": 3},
        )
        assert r.status_code == 200 and r.json()["usage"]["completion_tokens"] >= 1
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


# --- bad input: every one a 4xx in OpenAI's error shape, never a 500 ----------------------------------------------


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"seed": 2**64}, "seed"),
        ({"seed": -(2**63) - 1}, "seed"),
        ({"stop": ""}, "stop"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"stop": 3}, "stop"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}, "messages"),
        ({"messages": [{"role": "user", "content": None}]}, "messages"),
    ],
)
def test_more_bad_requests_get_400_in_openai_shape(client, body, param) -> None:
    r = chat(client, **body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == param and r.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),  # past Python's recursion limit
        (
            f'{{"model": "{NAME}", "messages": [{{"role": "user", "content": "\\ud800"}}]}}'.encode(),
            "not valid Unicode",
        ),  # a lone surrogate, legal JSON escape, not text
        (b'{"model": "\xff\xfe"}', "not JSON"),  # not UTF-8
    ],
)
def test_unreadable_bodies_get_400_in_openai_shape(client, raw, words) -> None:
    r = client.post("/v1/chat/completions", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]["message"]


def test_a_body_over_the_cap_gets_413_announced_or_streamed(client) -> None:
    big = b" " * (serve.MAX_BODY_BYTES + 1)
    r = client.post("/v1/chat/completions", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and str(serve.MAX_BODY_BYTES) in r.json()["error"]["message"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(serve.MAX_BODY_BYTES // 65536 + 2):
            yield b" " * 65536

    r = client.post("/v1/chat/completions", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413, r.text


def test_max_completion_tokens_null_leaves_max_tokens_in_force(client) -> None:
    r = chat(client, max_tokens=4, max_completion_tokens=None, temperature=1.0, seed=3)
    assert r.status_code == 200, r.text
    assert 1 <= r.json()["usage"]["completion_tokens"] <= 4
    r = chat(client, max_tokens=50, max_completion_tokens=2, temperature=1.0, seed=3)
    assert r.json()["usage"]["completion_tokens"] <= 2  # max_completion_tokens wins when both are given


def test_stop_ends_the_text_before_the_stop_string(client) -> None:
    free = chat(client, max_tokens=30).json()["choices"][0]["message"]["content"]
    words = free.split()
    assert len(words) >= 2, free
    stop = words[1]
    out = chat(client, max_tokens=30, stop=[stop]).json()
    assert out["choices"][0]["message"]["content"] == free[: free.index(stop)].strip()
    assert out["choices"][0]["finish_reason"] == "stop"
    assert out["usage"]["completion_tokens"] < 30 or len(free.split()) < 30


def test_list_of_text_parts_is_the_joined_string(client) -> None:
    text = "a patient has pain linked to the heart"
    parts = [{"type": "text", "text": text[:10]}, {"type": "text", "text": text[10:]}]
    as_parts = chat(client, messages=[{"role": "user", "content": parts}]).json()
    as_string = chat(client, messages=[{"role": "user", "content": text}]).json()
    assert as_parts["choices"][0]["message"] == as_string["choices"][0]["message"]
    assert as_parts["usage"] == as_string["usage"]


# --- a real HTTP server (uvicorn in a thread, 127.0.0.1): disconnects and load ---------------------------------------


class HeldEngine(serve.Engine):
    """The real engine, except that while ``hold`` is set each generated token waits (at most 60 s) for its
    request to be cancelled: a generation that lasts exactly until its client has gone."""

    hold = False
    generated: list[int]

    def _generate(self, ids, max_new_tokens, temperature, top_p, seed, until):
        held = self.hold

        def criterion(input_ids, scores, **kwargs):
            if held:
                until.cancel.wait(60)
            return until(input_ids, scores, **kwargs)

        new = super()._generate(ids, max_new_tokens, temperature, top_p, seed, criterion)
        self.generated.append(len(new))
        return new


@pytest.fixture(scope="module")
def live(model_dir):
    import threading

    import uvicorn

    engine = HeldEngine(str(model_dir))
    engine.generated = []
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(serve.create_app(engine, NAME), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait(lambda: server.started, "the server to start")
    yield engine, port
    server.should_exit = True
    thread.join(timeout=30)


def _wait(condition, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"waited {limit} s for {what}"
        time.sleep(0.05)


def _open_request(port: int, max_tokens: int) -> socket.socket:
    import json

    body = json.dumps(
        {"model": NAME, "messages": [{"role": "user", "content": "heart"}], "max_tokens": max_tokens}
    ).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


def test_departed_clients_stop_their_generation_and_leave_the_queue(live) -> None:
    import httpx

    engine, port = live
    engine.hold, before = True, len(engine.generated)
    aborted = engine.counts[serve.ABORTED_COUNTER]
    running = _open_request(port, 100)
    _wait(lambda: engine.counts[serve.RUNNING_GAUGE] == 1, "the first request to generate")
    queued = _open_request(port, 100)
    _wait(lambda: engine.counts[serve.QUEUE_GAUGE] == 1, "the second request to queue")
    queued.close()
    running.close()
    _wait(lambda: engine.counts[serve.ABORTED_COUNTER] == aborted + 2, "both departed requests to be aborted")
    engine.hold = False
    assert engine.generated[before:] == [1]  # the running one stopped at its next token, the queued one never ran
    r = httpx.post(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        timeout=60,
        json={"model": NAME, "messages": [{"role": "user", "content": "heart"}], "max_tokens": 3},
    )
    assert r.status_code == 200 and len(engine.generated) == before + 2


def test_bounded_load_every_request_answered_and_the_gauges_return_to_zero(live) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    engine, port = live
    clients = 16

    def one(i: int) -> httpx.Response:
        return httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            timeout=120,
            json={"model": NAME, "messages": [{"role": "user", "content": f"case {i}"}], "max_tokens": 4},
        )

    with ThreadPoolExecutor(clients) as pool:
        answers = list(pool.map(one, range(clients)))
    assert [r.status_code for r in answers] == [200] * clients
    assert all(1 <= r.json()["usage"]["completion_tokens"] <= 4 for r in answers)
    assert engine.counts[serve.RUNNING_GAUGE] == engine.counts[serve.QUEUE_GAUGE] == 0
    big = httpx.post(
        f"http://127.0.0.1:{port}/v1/chat/completions", timeout=60, content=b" " * (16 << 20)
    )  # the report's 16 MB body
    assert big.status_code == 413 and big.json()["error"]["type"] == "invalid_request_error"
