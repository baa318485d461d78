#!/usr/bin/env bash
# SageMaker HyperPod (EKS orchestrator) on-create lifecycle script: runs once as root on every new node.
#
# Moves containerd's image/snapshot store and kubelet's pod state off the small root volume onto the secondary
# EBS volume HyperPod mounts at /opt/sagemaker (size: ebs_volume_size_gb in config/<env>.yaml). Training images
# are tens of GB; on the root volume they trigger disk-pressure evictions.
#
# The move uses bind mounts recorded in /etc/fstab, so the services keep their default paths and the layout
# survives reboots. The script is idempotent: a second run finds the bind mounts in place and changes nothing.
set -euo pipefail

# Overridable for the sandbox test (tests/test_lifecycle_scripts.py); HyperPod runs the script without them.
readonly STATE_VOLUME="${STATE_VOLUME:-/opt/sagemaker}"
readonly LOG_DIR="${LOG_DIR:-/var/log/provision}"
readonly FSTAB="${FSTAB:-/etc/fstab}"
# HyperPod may start the script before the secondary EBS volume is mounted. AWS's reference script
# (aws-samples/awsome-distributed-training 1.architectures/7.sagemaker-hyperpod-eks/LifecycleScripts/base-config/
# on_create_main.sh) polls for it (12 x 5 s) and then carries on; we poll longer and fail the node if it never comes,
# so HyperPod reports the lifecycle failure instead of running GPU jobs on a root volume that fills up.
readonly VOLUME_WAIT_SECONDS="${VOLUME_WAIT_SECONDS:-300}"
readonly VOLUME_POLL_SECONDS="${VOLUME_POLL_SECONDS:-5}"
readonly SERVICES=(kubelet containerd)
read -r -a STATE_DIRS <<< "${STATE_DIRS:-/var/lib/containerd /var/lib/kubelet}"
readonly STATE_DIRS

mkdir -p "${LOG_DIR}"
exec > >(tee -a "${LOG_DIR}/on_create.log") 2>&1

log() {
  printf '%s on_create: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"
}

is_bind_mounted() {
  local dir="$1"
  findmnt --noheadings --target "${dir}" --output TARGET | grep -qx "${dir}"
}

active_services() {
  local svc
  for svc in "${SERVICES[@]}"; do
    if systemctl is-active --quiet "${svc}"; then
      printf '%s\n' "${svc}"
    fi
  done
}

relocate() {
  local dir="$1"
  local target="${STATE_VOLUME}${dir}"
  if is_bind_mounted "${dir}"; then
    log "${dir} is already a mount point; leaving it"
    return 0
  fi
  mkdir -p "${target}" "${dir}"
  if [[ -n "$(ls -A "${dir}")" ]]; then
    log "copying existing ${dir} to ${target}"
    cp -a "${dir}/." "${target}/"
  fi
  if ! grep -qs "^${target} ${dir} " "${FSTAB}"; then
    printf '%s %s none bind,nofail 0 0\n' "${target}" "${dir}" >> "${FSTAB}"
  fi
  mount --bind "${target}" "${dir}"
  log "${dir} now lives on ${STATE_VOLUME}"
}

wait_for_volume() {
  local attempts=$(( (VOLUME_WAIT_SECONDS + VOLUME_POLL_SECONDS - 1) / VOLUME_POLL_SECONDS ))
  local attempt
  for ((attempt = 1; attempt <= attempts; attempt++)); do
    if mountpoint -q "${STATE_VOLUME}"; then
      log "${STATE_VOLUME} is mounted"
      return 0
    fi
    log "waiting for ${STATE_VOLUME} to be mounted (${attempt}/${attempts})"
    sleep "${VOLUME_POLL_SECONDS}"
  done
  if mountpoint -q "${STATE_VOLUME}"; then
    return 0
  fi
  log "ERROR: ${STATE_VOLUME} was never mounted within ${VOLUME_WAIT_SECONDS}s; failing so HyperPod replaces the node"
  exit 1
}

main() {
  log "starting (state volume ${STATE_VOLUME})"
  wait_for_volume

  local running=()
  mapfile -t running < <(active_services)
  local svc
  for svc in "${running[@]}"; do
    log "stopping ${svc}"
    systemctl stop "${svc}"
  done

  local dir
  for dir in "${STATE_DIRS[@]}"; do
    relocate "${dir}"
  done

  # Start in reverse order: containerd before kubelet.
  local i
  for ((i = ${#running[@]} - 1; i >= 0; i--)); do
    log "starting ${running[i]}"
    systemctl start "${running[i]}"
  done
  log "done"
}

main "$@"
