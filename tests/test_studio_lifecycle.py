"""The Studio lifecycle script (studio_lifecycle/kube_context.sh): pins, and its behaviour with faked tools.

No network: `curl`, `aws`, `kubectl` and `jq` are small fakes on PATH that record their arguments.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from config.compute import KUBECTL_LAYER_VERSIONS

from .conftest import ROOT

SCRIPT = ROOT / "studio_lifecycle" / "kube_context.sh"
SOURCE = SCRIPT.read_text()
SHELLCHECK = shutil.which("shellcheck") or str(Path(sys.executable).with_name("shellcheck"))

needs_x86 = pytest.mark.skipif(platform.machine() != "x86_64", reason="the script installs linux/amd64 tools")


def test_script_is_shellcheck_clean() -> None:
    if not Path(SHELLCHECK).exists():
        pytest.skip("shellcheck not installed")
    proc = subprocess.run([SHELLCHECK, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout


def test_a_kubectl_is_pinned_for_every_supported_cluster_version() -> None:
    pinned = set(re.findall(r"^  (1\.\d+)\)$", SOURCE, re.M))
    assert set(KUBECTL_LAYER_VERSIONS) <= pinned
    for minor in pinned:
        block = SOURCE.split(f"  {minor})\n", 1)[1].split(";;", 1)[0]
        version = re.search(r'KUBECTL_VERSION="v(\d+\.\d+)\.\d+"', block)
        assert version and version[1] == minor, f"kubectl for {minor} must be a {minor}.x build"
        assert re.search(r'KUBECTL_SHA256="[0-9a-f]{64}"', block)


@pytest.mark.parametrize("tool", ["EKSCTL", "HELM", "JQ"])
def test_every_tool_is_pinned_with_a_sha256(tool: str) -> None:
    assert re.search(rf'^{tool}_VERSION="v?\d+\.\d+\.\d+"$', SOURCE, re.M)
    assert re.search(rf'^{tool}_SHA256="[0-9a-f]{{64}}"$', SOURCE, re.M)
    assert "latest" not in SOURCE


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def sandbox(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    fakes = tmp_path / "fakes"
    home.mkdir()
    fakes.mkdir()
    calls = tmp_path / "calls.log"
    _fake(
        fakes,
        "aws",
        f"""echo "aws $*" >> {calls}
case "$1 $2" in
  "eks update-kubeconfig") exit "${{FAKE_AWS_EKS_RC:-0}}" ;;
  "secretsmanager get-secret-value") echo '{{"username": "team-ml-research", "password": "s3cr3t w/ $pecial"}}' ;;
esac
""",
    )
    _fake(fakes, "kubectl", f'echo "kubectl $*" >> {calls}\n')
    _fake(fakes, "jq", "exec python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[2][1:]])' \"$@\"\n")
    env = {
        "HOME": str(home),
        "PATH": f"{fakes}:/usr/bin:/bin",
        "PLATFORM_REGION": "us-east-1",
        "PLATFORM_CLUSTER_NAME": "llmft-dev-eks",
        "PLATFORM_NAMESPACE": "ml-research",
        "PLATFORM_KUBERNETES_VERSION": "1.34",
        "MLFLOW_URI": "https://mlflow.example.com",
        "MLFLOW_CREDENTIALS_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:team-ml-research",
    }
    return {"home": home, "fakes": fakes, "calls": calls, "env": env}


def run(sandbox: dict, curl_body: str, **extra: str) -> subprocess.CompletedProcess:
    _fake(sandbox["fakes"], "curl", curl_body)
    return subprocess.run(
        ["bash", str(SCRIPT)], env={**sandbox["env"], **extra}, capture_output=True, text=True, check=False, timeout=60
    )


def calls(sandbox: dict) -> list[str]:
    path: Path = sandbox["calls"]
    return path.read_text().splitlines() if path.exists() else []


CURL_TAMPERED = """out=""; url=""
while [ $# -gt 0 ]; do case "$1" in --output) out="$2"; shift 2 ;; http*) url="$1"; shift ;; *) shift ;; esac; done
printf 'not the real binary' > "$out"
"""
CURL_OFFLINE = 'echo "curl: (6) Could not resolve host" >&2; exit 6\n'


@needs_x86
def test_a_checksum_mismatch_stops_the_app_and_installs_nothing(sandbox: dict) -> None:
    proc = run(sandbox, CURL_TAMPERED)
    assert proc.returncode == 1
    assert "checksum mismatch for https://dl.k8s.io/release/v1.34.1/bin/linux/amd64/kubectl" in proc.stderr
    assert "refusing to install it" in proc.stderr
    bin_dir = sandbox["home"] / ".local" / "bin"
    assert not any(bin_dir.iterdir())
    assert not any("update-kubeconfig" in c for c in calls(sandbox))


@needs_x86
def test_offline_start_still_configures_the_kube_context_and_mlflow(sandbox: dict) -> None:
    proc = run(sandbox, CURL_OFFLINE)
    assert proc.returncode == 0, proc.stderr
    assert "download failed: https://dl.k8s.io/release/v1.34.1/bin/linux/amd64/kubectl" in proc.stderr
    log = calls(sandbox)
    assert "aws eks update-kubeconfig --region us-east-1 --name llmft-dev-eks --alias llmft-dev-eks" in log
    assert "kubectl config set-context --current --namespace ml-research" in log
    home: Path = sandbox["home"]
    env_file = (home / ".platform_env").read_text()
    assert "export MLFLOW_TRACKING_URI=https://mlflow.example.com" in env_file
    assert "export PLATFORM_NAMESPACE=ml-research" in env_file
    assert any(
        c.startswith(
            "aws secretsmanager get-secret-value --region us-east-1 --secret-id "
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:team-ml-research"
        )
        for c in log
    )
    # Terminals: the team's MLflow user as environment variables, from a file only the user can read.
    assert stat.S_IMODE((home / ".platform_env").stat().st_mode) == 0o600
    shell = subprocess.run(
        ["bash", "-c", f". {home / '.platform_env'} && env"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    ).stdout.splitlines()
    assert "MLFLOW_TRACKING_USERNAME=team-ml-research" in shell
    assert "MLFLOW_TRACKING_PASSWORD=s3cr3t w/ $pecial" in shell
    assert not (home / ".mlflow" / "credentials").exists(), "no credentials file of the retired shared user"
    # Notebook kernels: the same three variables.
    startup = home / ".ipython" / "profile_default" / "startup" / "00-platform-mlflow.py"
    assert stat.S_IMODE(startup.stat().st_mode) == 0o600
    names = ("MLFLOW_TRACKING_URI", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD")
    saved = {n: os.environ.pop(n, None) for n in names}
    try:
        exec(compile(startup.read_text(), str(startup), "exec"), {})  # noqa: S102 - our own generated file
        assert [os.environ.get(n) for n in names] == [
            "https://mlflow.example.com",
            "team-ml-research",
            "s3cr3t w/ $pecial",
        ]
    finally:
        for n, v in saved.items():
            os.environ.pop(n, None)
            if v is not None:
                os.environ[n] = v


@needs_x86
def test_files_a_user_writes_are_group_writable(sandbox: dict, tmp_path: Path) -> None:
    """Terminals and kernels get umask 0002, so a file written in the team tree is writable by the team's jobs
    (same group through the tree's setgid; k8s_charts/team_storage.py)."""
    assert run(sandbox, CURL_OFFLINE).returncode == 0
    home: Path = sandbox["home"]
    shell = subprocess.run(["bash", "-c", f". {home}/.platform_env && touch {tmp_path}/from-shell"], check=True)
    assert shell.returncode == 0
    startup = home / ".ipython" / "profile_default" / "startup" / "00-platform-umask.py"
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"exec(open({str(startup)!r}).read()); open({str(tmp_path)!r} + '/from-kernel', 'w').close()",
        ],
        check=True,
    )
    for name in ("from-shell", "from-kernel"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o664


@needs_x86
def test_a_second_start_is_idempotent(sandbox: dict) -> None:
    run(sandbox, CURL_OFFLINE)
    run(sandbox, CURL_OFFLINE)
    bashrc = (sandbox["home"] / ".bashrc").read_text()
    assert bashrc.count(".platform_env") == 2  # one guarded source line: test + source


@needs_x86
def test_verified_archives_are_not_downloaded_again(sandbox: dict) -> None:
    bin_dir = sandbox["home"] / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    for tool, var in (("helm", "HELM_SHA256"), ("eksctl", "EKSCTL_SHA256")):
        (bin_dir / tool).write_text("#!/bin/sh\n")
        (bin_dir / tool).chmod(0o755)
        (bin_dir / f".{tool}.sha256").write_text(re.search(rf'^{var}="([0-9a-f]+)"', SOURCE, re.M)[1] + "\n")
    curl_log = sandbox["home"] / "curl.log"
    proc = run(sandbox, f'echo "$@" >> {curl_log}; exit 6\n')
    assert proc.returncode == 0
    urls = curl_log.read_text()
    assert "kubectl" in urls and "jq-linux-amd64" in urls
    assert "helm" not in urls and "eksctl" not in urls
    assert "helm: pinned build already installed" in proc.stdout


def test_cluster_unreachable_only_warns(sandbox: dict) -> None:
    proc = run(sandbox, CURL_OFFLINE, FAKE_AWS_EKS_RC="255")
    assert proc.returncode == 0
    assert "aws eks update-kubeconfig failed for cluster llmft-dev-eks" in proc.stderr


def test_missing_settings_fail_loudly(sandbox: dict) -> None:
    env = dict(sandbox["env"])
    del env["PLATFORM_NAMESPACE"]
    proc = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "PLATFORM_NAMESPACE: set by the Studio stack" in proc.stderr


def test_unpinned_kubernetes_version_fails(sandbox: dict) -> None:
    proc = run(sandbox, CURL_OFFLINE, PLATFORM_KUBERNETES_VERSION="1.99")
    assert proc.returncode == 1 and "no kubectl pinned for Kubernetes 1.99" in proc.stderr


def test_llmft_is_installed_from_the_stack_asset_once(sandbox: dict, tmp_path: Path) -> None:
    """With PLATFORM_CLI_S3_URI the script fetches the CLI asset, installs it into its own virtualenv and puts an
    `llmft` wrapper on PATH that runs in the environment the stack named; a second start reuses it."""
    import zipfile

    bundle = tmp_path / "asset.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("requirements-cli.txt", "# nothing to install in the sandbox\n")
        zf.writestr("llmft/__init__.py", "")
        zf.writestr("llmft/__main__.py", "import os, sys; print('llmft', os.environ['LLMFT_ENV'], *sys.argv[1:])\n")
    _fake(
        sandbox["fakes"],
        "aws",
        f"""echo "aws $*" >> {sandbox["calls"]}
case "$1 $2" in
  "s3 cp") cp {bundle} "${{@: -1}}" ;;
  "secretsmanager get-secret-value") echo '{{"username": "client", "password": "s3cr3t"}}' ;;
esac
""",
    )
    uri = "s3://cdk-assets-bucket/0123abcd.zip"
    _fake(sandbox["fakes"], "curl", CURL_OFFLINE)
    proc = subprocess.run(
        ["bash", str(SCRIPT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**sandbox["env"], "PLATFORM_CLI_S3_URI": uri, "PLATFORM_ENV": "prod"},
    )  # a real venv
    assert proc.returncode == 0, proc.stderr
    wrapper = sandbox["home"] / ".local" / "bin" / "llmft"
    assert wrapper.exists() and "llmft: installed into" in proc.stdout
    done = subprocess.run(
        [str(wrapper), "submit", "job.yaml"], capture_output=True, text=True, check=False, env=sandbox["env"]
    )
    assert done.stdout.strip() == "llmft prod submit job.yaml", done.stderr
    assert (sandbox["home"] / ".local/share/llmft/0123abcd/.installed").exists()
    again = run(sandbox, CURL_OFFLINE, PLATFORM_CLI_S3_URI=uri, PLATFORM_ENV="prod")
    assert "llmft: already installed" in again.stdout
    assert len([c for c in calls(sandbox) if c.startswith(f"aws s3 cp --quiet {uri} ")]) == 1


def test_llmft_install_failure_only_warns(sandbox: dict) -> None:
    proc = run(sandbox, CURL_OFFLINE, PLATFORM_CLI_S3_URI="s3://bucket/missing.zip")  # fake aws copies nothing
    assert proc.returncode == 0 and "llmft could not be installed" in proc.stderr
    assert not (sandbox["home"] / ".local" / "bin" / "llmft").exists()
