#!/usr/bin/env bash
# Issue 29's two open replay questions, on a GPU machine, with the real replay path:
#  1. addresses: tests/gpu/replay_program's bump_through_table launch (a pointer stored in device
#     memory: it replays only at the original addresses) captured once, then replayed with the
#     runner as lowerscope starts it (holding the captured ranges), without the holds
#     (LOWERSCOPE_REPLAY_HOLD=0), and under the capture's injection (CUPTI kernel activity
#     enabled at cuInit, as in the captured program), with and without the holds;
#  2. the replayed launch's missing SASS metric records: the same `profile --metrics instructions`
#     of a built kernel with the runner started plainly and with --fixed-addresses (the replay
#     runner's mode), and the replayed launch's other collections (kernel, samples).
#   usage: bench/replay_probe.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/replay_probe.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-out/replay_probe}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CLI="$BUILD/app/lowerscope-cli"
RUNNER="$BUILD/app/lowerscope-runner"
INJ="$BUILD/app/liblowerscope_inject.so"
EV="$OUT/events"; mkdir -p "$EV"
"$NVCC" -O2 -lineinfo -arch=native -o "$OUT/replay_program" tests/gpu/replay_program.cu || exit 1
"$CLI" capture --save-launches --kernel bump_through_table --launch-count 1 -o "$OUT/table/c.json" \
  -- "$OUT/replay_program" >"$OUT/capture.log" 2>&1
python3 -c "
import json
d=json.load(open('$OUT/table/c.json'))
for s in d['snapshots']:
    for r in s['regions']: print('captured region', r['address'], r['bytes'], 'pointers', r['pointers'])
"
show() { grep -iE "asked for|relocated|reproduce|differ|cannot|error|FAIL" "$1" | head -8; }
for mode in hold nohold inject inject-nohold; do
  echo "== replay, runner: $mode"
  env=()
  case $mode in *nohold) env+=(LOWERSCOPE_REPLAY_HOLD=0) ;; esac
  case $mode in inject*) env+=("LOWERSCOPE_RUNNER=env CUDA_INJECTION64_PATH=$INJ LOWERSCOPE_CAPTURE_EVENTS=$EV $RUNNER") ;; esac
  env "${env[@]}" "$CLI" run --from-capture "$OUT/table/c.json" --max-time 1 --json "$OUT/run-$mode.json" >"$OUT/run-$mode.log" 2>&1
  echo "exit $?"; show "$OUT/run-$mode.log"
done
echo "== profile --metrics instructions of a built kernel: plain runner, then --fixed-addresses"
"$CLI" profile kernels/reduction.cu --metrics instructions --json "$OUT/prof-plain.json" >"$OUT/prof-plain.log" 2>&1
echo "plain exit $?"; grep -iE "instructions|fail" "$OUT/prof-plain.log" | head -3
LOWERSCOPE_RUNNER="$RUNNER --fixed-addresses" "$CLI" profile kernels/reduction.cu --metrics instructions \
  --json "$OUT/prof-fixed.json" >"$OUT/prof-fixed.log" 2>&1
echo "fixed exit $?"; grep -iE "instructions|fail" "$OUT/prof-fixed.log" | head -3
echo "== the same with CUDA_MODULE_LOADING=EAGER"
CUDA_MODULE_LOADING=EAGER "$CLI" profile kernels/reduction.cu --metrics instructions --json "$OUT/prof-eager.json" >"$OUT/prof-eager.log" 2>&1
echo "eager exit $?"; grep -iE "instructions|fail" "$OUT/prof-eager.log" | head -3
echo "== the replayed launch's collections one by one"
for m in kernel samples instructions; do
  "$CLI" capture --save-launches --kernel bump_through_table --launch-count 1 --metrics $m -o "$OUT/m-$m/c.json" \
    -- "$OUT/replay_program" >"$OUT/m-$m.log" 2>&1
  echo "$m exit $?"; grep -iE "FAILED|failed|error|profile of" "$OUT/m-$m.log" | head -3
done
