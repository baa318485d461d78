"""The registered model of the e2e fine-tune, served and called with OpenAI's own client (issue 34).

Collected in tests/test_pipeline_e2e.py (imported there), so it runs on that module's ``pipeline`` fixture: the
tiny model fine-tuned for real, registered in the platform's MLflow server (tagged with its directory), and judged
by the evaluate step's gate (``llmft.evaluation`` tag, ``evaluated`` alias). Here: ``llmft run --local`` of the serve
example resolves the alias in MLflow and serves that version's directory with ``python -m llm_platform.serve`` on
127.0.0.1 as ``<team>.<name>``, then the official ``openai`` client (pinned in
training/requirements-test.lock, run with the training virtualenv) lists the model, completes a chat, and gets a
404 in OpenAI's error shape for another model name; /health and /metrics (the scrape contract's gauges) answer.
The server is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from llm_platform import weights_digest

from k8s_charts.serving import (
    DEMAND_METRICS,
    EVALUATED_ALIAS,
    EVALUATION_DIGEST_TAG,
    EVALUATION_PASSED,
    EVALUATION_TAG,
    HEALTH_PATH,
    METRICS_PATH,
    MODEL_DIR_TAG,
)
from llmft.local import stop, wait_healthy

ROOT = Path(__file__).resolve().parents[1]


CLIENT = """
import json, sys
import httpx, openai
base, name = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base + "/v1", api_key="local", max_retries=0)
out = {"models": [m.id for m in client.models.list().data]}
messages = [{"role": "user", "content": "Case 1: a patient has fever linked to the lung. What is the next step?"}]
completion = client.chat.completions.create(model=name, messages=messages, max_tokens=16, temperature=0)
out["request"] = {"model": name, "messages": messages, "max_tokens": 16, "temperature": 0}
out["completion"] = completion.model_dump()
try:
    client.chat.completions.create(model="ml-research.no-such-model", messages=messages, max_tokens=2)
    out["unknown"] = None
except openai.NotFoundError as exc:
    out["unknown"] = {"status": exc.status_code, "body": exc.response.json()}
out["health"] = httpx.get(base + sys.argv[3]).status_code
out["metrics"] = httpx.get(base + sys.argv[4]).text
print(json.dumps(out))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_evaluated_model_serves_the_openai_api(pipeline) -> None:
    """``llmft run --local examples/jobs/07-serve-medical.yaml``: the spec's alias resolved in the platform's MLflow
    (llmft.registry.MlflowRegistry, the team's own user), the version's ``llmft.model_dir`` tag (set by the SFT step
    as the pods see it, /fsx/...) mapped to the local /fsx, served, and called with OpenAI's client."""
    from .test_pipeline_e2e import TEAM

    name = f"{TEAM}.medical-sft"
    _check_evaluated_version(pipeline, name)
    out = _serve_and_call(pipeline, name)
    _check_openai_answers(out, name)


def _check_evaluated_version(pipeline, name: str) -> None:
    """The alias names version 1, evaluated as passed, whose model_dir tag is a /fsx path with the model in it."""
    version = pipeline["mlflow"].get("/api/2.0/mlflow/registered-models/alias", name=name, alias=EVALUATED_ALIAS)[
        "model_version"
    ]
    tags = {t["key"]: t["value"] for t in version.get("tags", [])}
    print(
        "evaluated version:",
        json.dumps({k: version.get(k) for k in ("name", "version", "run_id", "source")}),
        "tags:",
        json.dumps(tags),
    )
    assert version["version"] == "1" and tags[EVALUATION_TAG] == EVALUATION_PASSED
    # the evaluator pinned the judged weights: the local server verifies them before it loads (llmft passes the digest)
    merged = pipeline["fsx"] / tags[MODEL_DIR_TAG].removeprefix("/fsx/")
    assert tags[EVALUATION_DIGEST_TAG] == weights_digest.digest(merged)
    assert tags[MODEL_DIR_TAG].startswith("/fsx/")  # the cluster's path, not this machine's
    assert (pipeline["fsx"] / tags[MODEL_DIR_TAG].removeprefix("/fsx/") / "config.json").is_file()


def _start_serving(pipeline, *, env: dict[str, str], port: int) -> subprocess.Popen:
    """`llmft run --local` of the serve example on ``port``, started and not waited for."""
    from .test_pipeline_e2e import EXAMPLES, TRAIN_PYTHON

    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llmft",
            "run",
            "--local",
            str(EXAMPLES / "07-serve-medical.yaml"),
            "--env",
            "dev",
            "--fsx",
            str(pipeline["fsx"]),
            "--python",
            str(TRAIN_PYTHON),
            "--port",
            str(port),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _serve_and_call(pipeline, name: str) -> dict:
    """Serve the model, run the OpenAI client against it (in the module's training interpreter, tests/train_python.py:
    one process start fewer), stop the server: the client's findings."""
    port = _free_port()
    env = {**pipeline["env"], "HOME": os.environ.get("HOME", "/tmp")}
    llmft = _start_serving(pipeline, env=env, port=port)
    try:
        assert wait_healthy(llmft, port, timeout=180), llmft.stderr.read() if llmft.poll() is not None else ""
        base = f"http://127.0.0.1:{port}"
        printed = pipeline["train_python"].run(CLIENT, base, name, HEALTH_PATH, METRICS_PATH, timeout=120)
        out = json.loads(printed.splitlines()[-1])
    finally:
        llmft.send_signal(signal.SIGINT)  # llmft stops its server by PID (llmft.local.run_serve)
        try:
            llmft.wait(timeout=30)
        except subprocess.TimeoutExpired:
            stop(llmft)
    assert llmft.returncode is not None
    return out


def _check_openai_answers(out: dict, name: str) -> None:
    """The models list, the chat completion, the unknown-model error, health and the demand metrics are OpenAI's."""
    print("request:", json.dumps(out["request"]), "\nresponse:", json.dumps(out["completion"]))
    assert name in out["models"]
    completion = out["completion"]
    assert completion["object"] == "chat.completion" and completion["model"] == name
    message = completion["choices"][0]["message"]
    assert message["role"] == "assistant" and message["content"].strip()
    usage = completion["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert out["unknown"]["status"] == 404
    assert out["unknown"]["body"]["error"]["code"] == "model_not_found"
    assert set(out["unknown"]["body"]["error"]) >= {"message", "type", "code"}
    assert out["health"] == 200
    for gauge in DEMAND_METRICS:
        assert f"# TYPE {gauge} gauge" in out["metrics"]
