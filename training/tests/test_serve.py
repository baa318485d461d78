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
