#!/usr/bin/env bash
# The exact commands behind the issue-15 experiments in this folder, as run on the H200 (from the
# repository root, with a GPU, its driver, CUPTI and, for the cross-checks, Nsight Compute).
#   usage: docs/examples/reproduce.sh EXPERIMENT...     EXPERIMENT: sparse gemm graphs options crosscheck
# CLI=path/to/lowerscope-cli (default: the newest build), DEST=folder for the results (default
# docs/examples: the recorded files are replaced by yours; point DEST elsewhere to keep them).
# Hypotheses are quoted from HYPOTHESES.md, which was written before any of these ran.
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${CLI:-$(ls -t build*/app/lowerscope-cli 2>/dev/null | head -1)}
[ -x "$CLI" ] || { echo "no lowerscope-cli: build it or set CLI=" >&2; exit 2; }
DEST=${DEST:-docs/examples}
NCU=${NCU:-ncu}
mkdir -p "$DEST"
T=(--min-samples 20 --min-time 0.3 --max-time 20)
run() { echo "+ $*" >&2; "$@"; echo "rc=$? $*" >>"$DEST/reproduce.log"; }

# Experiment 3: sparse-skip vs dense, sparsity 0..100 %, random vs blocked per warp.
sparse() {
  local S="--arg sparsity=0,0.25,0.5,0.75,0.9,0.95,0.99,1"
  local blocked="x=f32[n]:random(seed=5, run=32)"
  for k in act_dense act_skip; do
    run "$CLI" experiment docs/examples/sparse_skip.cu --kernel "$k" --vary "$S" "${T[@]}" \
      --profile --profile-metrics kernel --out "$DEST/sparse_${k#act_}_random" \
      --title "$k, inactive elements at random" \
      --hypothesis "H3b: a warp runs the work when any of its 32 lanes needs it (probability 1 - s^32): act_skip is no faster than act_dense until s is about 0.9."
    run "$CLI" experiment docs/examples/sparse_skip.cu --kernel "$k" --arg "$blocked" --vary "$S" "${T[@]}" \
      --profile --profile-metrics kernel --out "$DEST/sparse_${k#act_}_blocked" \
      --title "$k, inactive elements blocked per warp (run=32)" \
      --hypothesis "H3a: whole warps skip, time ~ (1 - s) x dense + a small constant; act_skip wins from about s = 5 %."
  done
  # Divergence per line at s = 0.5: thread instructions per executed instruction on every SASS row.
  run "$CLI" profile docs/examples/sparse_skip.cu --kernel act_skip --arg sparsity=0.5 --metrics kernel,instructions \
    --json "$DEST/sparse_skip_random_s50.profile.json"
  run "$CLI" profile docs/examples/sparse_skip.cu --kernel act_skip --arg sparsity=0.5 --arg "$blocked" \
    --metrics kernel,instructions --json "$DEST/sparse_skip_blocked_s50.profile.json"
}

# Experiment 1: GEMM + bias + ReLU, fused epilogue vs three kernels, M = N = K = 512 .. 4096.
gemm() {
  local sizes="512,1024,2048,4096"
  for k in gemm_bias_relu_fused gemm_plain; do
    run "$CLI" experiment kernels/gemm_epilogue.cu --kernel "$k" --arg N=M --arg K=M --vary "--arg M=$sizes" \
      --min-samples 10 --min-time 0.3 --max-time 30 --profile --profile-metrics kernel,samples \
      --out "$DEST/gemm_${k}" --title "$k, M = N = K"
  done
  run "$CLI" experiment kernels/gemm_epilogue.cu --kernel add_bias --arg N=M --vary "--arg M=$sizes" "${T[@]}" \
    --profile --profile-metrics kernel --out "$DEST/gemm_add_bias" --title "add_bias over C (M × M)"
  run "$CLI" experiment kernels/gemm_epilogue.cu --kernel relu_inplace \
    --vary "--arg count=262144,1048576,4194304,16777216" "${T[@]}" \
    --profile --profile-metrics kernel --out "$DEST/gemm_relu_inplace" --title "relu_inplace over C (M × M)"
}

# Experiment 5: compile options on sgemm_tiled (the -O and -maxrregcount series are recorded in
# sgemm_ptxas_opt.md and sgemm_maxrregcount.md).
options() {
  run "$CLI" experiment kernels/sgemm_tiled.cu --a "" --b "--fast-math" --min-samples 30 --min-time 1 --max-time 20 \
    --json "$DEST/sgemm_fast_math.compare.json" --out "$DEST/sgemm_fast_math" \
    --title "sgemm_tiled: default vs --use_fast_math" \
    --hypothesis "H5c: on sgemm_tiled (only FFMAs) --use_fast_math changes no instruction and no time (within 0.5 %)."
  run "$CLI" experiment kernels/sgemm_tiled.cu --a "" --b "--extra-device-vectorization" --min-samples 30 --min-time 1 \
    --max-time 20 --json "$DEST/sgemm_vectorization.compare.json" --out "$DEST/sgemm_vectorization" \
    --title "sgemm_tiled: default vs --extra-device-vectorization" \
    --hypothesis "H5d: no change to sgemm_tiled's SASS or time."
  # sm_80 code on the H200: the compute_80 PTX that an sm_80 build embeds, assembled for sm_90 by
  # ptxas (what the driver's JIT does when a binary carries only compute_80 PTX), against native sm_90.
  local ptx="$DEST/sgemm_tiled.compute_80.ptx"
  run nvcc -ptx -arch=compute_80 -lineinfo kernels/sgemm_tiled.cu -o "$ptx"
  cp kernels/sgemm_tiled.json "${ptx%.ptx}.json" # the same launch for B (its sidecar)
  run "$CLI" experiment kernels/sgemm_tiled.cu --file-b "$ptx" --b "--arch sm_90" --min-samples 30 --min-time 1 \
    --max-time 20 --json "$DEST/sgemm_compute80.compare.json" --out "$DEST/sgemm_compute80" \
    --title "sgemm_tiled: native sm_90 vs compute_80 PTX assembled for sm_90" \
    --hypothesis "H5e: a build for compute_80 (PTX JIT-compiled for sm_90) and a native sm_90 build give SASS that differs by at most a few instructions and times within 1 %."
}

# Experiment 4: CUDA Graph break-even, a path of N = 1, 4, 16, 64 small kernels (graph_path.cu, a
# few microseconds each) from the stream vs captured, instantiated, uploaded and replayed R times.
graphs() {
  run "$CLI" experiment docs/examples/graph_path.cu --graph-break-even 1,4,16,64 "${T[@]}" \
    --out "$DEST/graph_break_even" --title "CUDA Graph break-even: a path of N small kernels" \
    --hypothesis "H4a: per kernel, a stream launch costs about 3-5 us of wall time and a graph node about 1 us, and instantiate costs about 6 us + 1.5-3 us per node; the graph pays off after R* = instantiate / (N x (stream - graph)) replays: about 3-4 replays for N = 1, and 1-2 replays for N >= 4. H4b: the prediction from the measured costs matches the measured break-even within one replay for every N."
}

# One number per experiment against Nsight Compute (same build, one cold launch under ncu).
crosscheck() {
  ncu_raw() { # NAME FILE KERNEL METRICS ARGS...   (BUILD="build flags" before the call)
    local name=$1 file=$2 kernel=$3 metrics=$4
    shift 4
    local args=(${BUILD:-})
    for a in "$@"; do args+=(--arg "$a"); done
    run "$NCU" --clock-control none --metrics "$metrics" -k "regex:^$kernel\$" --csv --page raw --print-units base \
      "$CLI" run "$file" --kernel "$kernel" "${args[@]}" --mode cold --profile-launches 1 --timeout 120 \
      >"$DEST/ncu_$name.csv"
  }
  ncu_raw gemm_add_bias_2048 kernels/gemm_epilogue.cu add_bias dram__bytes_read.sum,dram__bytes_write.sum M=2048 N=M
  ncu_raw gemm_fused_2048 kernels/gemm_epilogue.cu gemm_bias_relu_fused dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active M=2048 N=M K=M
  ncu_raw sparse_skip_random_s50 docs/examples/sparse_skip.cu act_skip \
    smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct sparsity=0.5
  ncu_raw ffma_dependent kernels/ffma_chain.cu ffma_dependent smsp__issue_active.avg.pct_of_peak_sustained_active
  BUILD="--maxrregcount 32" ncu_raw sgemm_maxrreg32 kernels/sgemm_tiled.cu sgemm_tiled \
    sm__warps_active.avg.pct_of_peak_sustained_active
  # Experiment 4: one path_step launch, L2 flushed before each: Lowerscope's cold median against
  # ncu's gpu__time_duration over 20 plain launches.
  run "$CLI" run docs/examples/graph_path.cu --kernel path_step --mode cold "${T[@]}" \
    --json "$DEST/graph_path_step_cold.run.json" >/dev/null
  run "$NCU" --clock-control none --metrics gpu__time_duration.sum -k 'regex:^path_step$' --csv --page raw \
    --print-units base "$CLI" run docs/examples/graph_path.cu --kernel path_step --profile-launches 20 \
    --timeout 120 >"$DEST/ncu_graph_path_step.csv"
}

[ $# -gt 0 ] || { sed -n 2,7p "$0"; exit 2; }
for e in "$@"; do "$e"; done
