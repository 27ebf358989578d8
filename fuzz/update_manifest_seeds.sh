#!/usr/bin/env bash
# Part of the Sinter project.
# Refreshes fuzz/corpus/manifest, the manifest fuzzer's seeds, from artifacts
# compiled by <build>/bin/sinterc (default: build): CUDA manifests of both
# chip families (kernels, tensor maps, persistent launches, cuBLASLt calls),
# a CPU manifest and their SHA256SUMS. Run it when the format changes.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
sinterc="${1:-$repo/build}/bin/sinterc"
out="$repo/fuzz/corpus/manifest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
rm -f "$out"/*
build() { # name source target
  "$sinterc" "$2" --target="$3" -o "$tmp/$1" --quiet
  cp "$tmp/$1/manifest.json" "$out/$1.json"
  cp "$tmp/$1/SHA256SUMS" "$out/$1.SHA256SUMS"
}
build gpt_block_sm90a "$repo/examples/gpt_block.mlir" cuda:sm_90a
build gpt_block_sm80 "$repo/examples/gpt_block.mlir" cuda:sm_80
build adamw_sm90a "$repo/examples/adamw_step.mlir" cuda:sm_90a
build reductions_sm90a "$repo/test/GPU/reductions-artifact.mlir" cuda:sm_90a
build attention_tma_sm90a "$repo/test/GPU/attention-warp-specialized.mlir" cuda:sm_90a
build mlp_cpu "$repo/test/Integration/CPU/Inputs/mlp.mlir" cpu
ls -l "$out"
