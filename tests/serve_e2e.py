"""The registered model of the e2e fine-tune, served and called with OpenAI's own client (issue 34).

Collected in tests/test_pipeline_e2e.py (imported there), so it runs on that module's ``pipeline`` fixture: the
tiny model fine-tuned for real, registered in the platform's MLflow server, and judged by the evaluate step's gate
(``llmft.evaluation`` tag, ``evaluated`` alias). Here: the ``evaluated`` alias resolved through MLflow's REST API to
its version and the version's run, the run's merged-weights directory served by ``python -m llm_platform.serve``
(llmft.local.serve_command) on 127.0.0.1 as ``<team>.<name>``, then the official ``openai`` client (pinned in
training/requirements-test.lock, run with the training virtualenv) lists the model, completes a chat, and gets a
404 in OpenAI's error shape for another model name; /health and /metrics (the scrape contract's gauges) answer.
The server is stopped by its PID.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from k8s_charts.serving import DEMAND_METRICS, HEALTH_PATH, METRICS_PATH
from llmft.local import serve_command, stop, wait_healthy

EVALUATION_TAG, EVALUATION_PASSED, EVALUATED_ALIAS = "llmft.evaluation", "passed", "evaluated"

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


def merged_dir_of(mlflow: Any, name: str, alias: str) -> tuple[dict[str, Any], Path]:
    """(the model version the alias points at, the merged-weights directory its run wrote)."""
    version = mlflow.get("/api/2.0/mlflow/registered-models/alias", name=name, alias=alias)["model_version"]
    run = mlflow.get("/api/2.0/mlflow/runs/get", run_id=version["run_id"])["run"]
    params = {p["key"]: p["value"] for p in run["data"]["params"]}
    merged = params.get("script.merged_output_dir")
    if merged in (None, "", "None"):
        merged = str(Path(params["training.output_dir"]) / "merged")  # llm_platform.sft's default
    return version, Path(merged)


def test_the_evaluated_model_serves_the_openai_api(pipeline) -> None:
    from .test_pipeline_e2e import TEAM, TRAIN_PYTHON

    name = f"{TEAM}.medical-sft"
    version, merged = merged_dir_of(pipeline["mlflow"], name, EVALUATED_ALIAS)
    tags = {t["key"]: t["value"] for t in version.get("tags", [])}
    print("evaluated version:", json.dumps({k: version.get(k) for k in ("name", "version", "run_id", "source")}),
          "tags:", json.dumps(tags), "merged:", merged)
    assert version["version"] == "1" and tags[EVALUATION_TAG] == EVALUATION_PASSED
    assert (merged / "config.json").is_file() and merged.is_relative_to(pipeline["fsx"])

    port = _free_port()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "training"), "TOKENIZERS_PARALLELISM": "false"}
    server = subprocess.Popen(serve_command(merged, name, port, str(TRAIN_PYTHON)), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_healthy(server, port, timeout=120), server.stderr.read() if server.poll() is not None else ""
        base = f"http://127.0.0.1:{port}"
        proc = subprocess.run([str(TRAIN_PYTHON), "-c", CLIENT, base, name, HEALTH_PATH, METRICS_PATH], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr[-4000:]
        out = json.loads(proc.stdout.splitlines()[-1])
    finally:
        stop(server)
    assert server.returncode is not None
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
