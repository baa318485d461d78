#!/usr/bin/env bash
# MFU of the SFT recipe on one GPU: the shipped recipe as it was (baseline), the fast path, the fast path + QLoRA.
#
#   tools/gpu_bench.sh fetch                 # here, with PyPI: the wheels the GPU machine lacks -> .gpu-wheels/
#   tools/gpu_bench.sh run                   # on one H100, from the repository root: prints the table (<= 6 min)
#   tools/gpu_bench.sh run --cpu             # any machine with the training venv: the same harness, tiny shape
#
# The GPU machine has torch (CUDA), transformers, accelerate, PyYAML and no internet. `fetch` downloads the image
# lock's versions of what the SFT step needs on top (images/sft/requirements.lock: transformers, tokenizers, peft,
# liger-kernel, bitsandbytes; ~58 MiB, under the 64 MiB a device run may carry) into the git-ignored .gpu-wheels/,
# hash-checked against the lock. `run` installs them into /tmp/llmp-site (never into the machine's Python) and runs
#
#   python -m llm_platform.bench --shape llama-3.1-8b --config training/configs/sft.yaml --steps 8 --variant ...
#
# which builds a random-initialised Llama-3.1-8B, writes synthetic medical-length rows and runs the real SFT step
# (torchrun, one process per recipe) for each variant. No MLflow: the step's own meter gives MFU and tokens/s.
# The QLoRA row is skipped when bitsandbytes is not there. Docs: docs/training.md ("Benchmarking a recipe").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHEELS="${GPU_BENCH_WHEELS:-$ROOT/.gpu-wheels}"
SITE="${GPU_BENCH_SITE:-/tmp/llmp-site}"
PYTHON="${PYTHON:-python3}"
PACKAGES=(transformers tokenizers peft liger-kernel bitsandbytes)

# The shipped recipe before the fast path (training/configs/sft.yaml until this change): right-padded batches of 2,
# accumulation 4, LoRA dropout 0.1, sdpa, activation checkpointing on, no fused kernels. Measured 0.099 MFU.
BASELINE="baseline:sharding=fsdp,packing=false,liger_kernel=false,attn_implementation=sdpa,lora_dropout=0.1,gradient_checkpointing=true,per_device_train_batch_size=2,gradient_accumulation_steps=4"

fetch() {
  mkdir -p "$WHEELS"
  local reqs="$WHEELS/requirements.txt"
  : > "$reqs"
  for p in "${PACKAGES[@]}"; do
    # the lock's pin with its hashes, for the image's platform (CPython 3.12, manylinux x86_64)
    awk -v p="$p" '
      tolower($0) ~ "^"p"==" {on=1}
      on {print} on && !/\\$/ {exit}' "$ROOT/images/sft/requirements.lock" >> "$reqs"
  done
  "$PYTHON" -m pip download --no-deps --only-binary=:all: --require-hashes --python-version 3.12 \
    --implementation cp --abi cp312 --abi abi3 --abi none --platform manylinux_2_34_x86_64 \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$WHEELS" -r "$reqs"
  du -sh "$WHEELS"
}

install_wheels() {
  if ! ls "$WHEELS"/*.whl >/dev/null 2>&1; then
    echo "gpu_bench: no wheels in $WHEELS (run 'tools/gpu_bench.sh fetch' where PyPI is reachable); using what is installed" >&2
    return
  fi
  rm -rf "$SITE"
  "$PYTHON" -m pip install -q --no-index --no-deps --target "$SITE" "$WHEELS"/*.whl
  export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
}

run() {
  local cpu=0
  [[ "${1:-}" == "--cpu" ]] && cpu=1
  install_wheels
  export PYTHONPATH="$ROOT/training${PYTHONPATH:+:$PYTHONPATH}"
  export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
  local out="${GPU_BENCH_OUT:-/tmp/llmp-gpu-bench}"
  mkdir -p "$out"
  local args=(--config "$ROOT/training/configs/sft.yaml" --work "$out/work" --json "$out/bench.json"
              --instance-type p5.48xlarge)
  local variants=(--variant "$BASELINE" --variant "fast:")
  if [[ $cpu == 1 ]]; then
    # tiny shape, short rows: checks the harness and every code path the GPU run takes, not the figures
    args+=(--shape tiny --cpu --steps 3 --warmup 1 --rows 48)
    variants=(--variant "$BASELINE,max_seq_length=256" --variant "fast:max_seq_length=256,max_tokens_per_step=1024")
  else
    # 6 minutes in all: ~40 s to build and save the 8B model, then at most 110 s per recipe; a recipe that could
    # not finish inside the budget is skipped (its row says so) rather than losing the whole table
    args+=(--shape llama-3.1-8b --steps 8 --warmup 2 --rows 512 --variant-timeout 140 --budget 400)
    # flex attention: the packed rows' per-example mask as a block-sparse BlockMask (compiled once, in the warm-up)
    variants+=(--variant "fast-flex:attn_implementation=flex_attention")
    if "$PYTHON" -c "import bitsandbytes" 2>/dev/null; then
      variants+=(--variant "fast-qlora:load_in_4bit=true")
    else
      echo "gpu_bench: bitsandbytes not installed: no QLoRA row" >&2
    fi
    # the fast path forced onto FSDP (what sharding: auto picks when the unsharded step does not fit one GPU): runs
    # with Liger's fused loss off (it crashed under FSDP2 on the first H100 run), and shows FSDP's cost
    variants+=(--variant "fast-fsdp:sharding=fsdp")
  fi
  "$PYTHON" -c "import torch, transformers, peft; print('gpu_bench: torch', torch.__version__, 'transformers',
transformers.__version__, 'peft', peft.__version__, 'cuda', torch.cuda.is_available())" >&2
  "$PYTHON" -c "import liger_kernel" 2>/dev/null || echo "gpu_bench: liger-kernel not installed (the fast path runs unfused)" >&2
  ( cd "$ROOT/training" && time "$PYTHON" -m llm_platform.bench "${args[@]}" "${variants[@]}" )
}

case "${1:-}" in
  fetch) fetch ;;
  run) shift; run "$@" ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
esac
