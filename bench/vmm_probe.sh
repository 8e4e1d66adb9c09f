#!/usr/bin/env bash
# Issue 29's address question, on a GPU machine: does cuMemAddressReserve give a replay the
# addresses a captured program's allocations had? bench/vmm_probe.cu in separate processes, all
# without address-space randomisation (as `capture --save-launches` and the replay runner run):
#   plain / injected: where cuMemAlloc puts 1, 64 and 8 MiB in a plain process, and in one started
#     as `capture` starts a program (the injection enabling CUPTI's kernel activity at cuInit);
#   asking for the injected addresses: in a plain process, with the filler walk, and in a process
#     under the injection; asking for the plain addresses (the control).
#   usage: bench/vmm_probe.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/vmm_probe.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-out/vmm_probe}
mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -o "$OUT/vmm_probe" bench/vmm_probe.cu -lcuda || exit 1
P="$OUT/vmm_probe"
INJ="$BUILD/app/liblowerscope_inject.so"
EV="$OUT/events"; mkdir -p "$EV"
injected() { CUDA_INJECTION64_PATH="$INJ" LOWERSCOPE_CAPTURE_EVENTS="$EV" "$@"; }
ranges() { awk '/^alloc/ {printf "%s:%s ", $2, $3}' "$1"; }
echo "== plain alloc"; setarch -R "$P" alloc 1 64 8 | tee "$OUT/plain.txt"
echo "== plain alloc again"; setarch -R "$P" alloc 1 64 8
echo "== injected alloc"; injected setarch -R "$P" alloc 1 64 8 | tee "$OUT/injected.txt"
I=$(ranges "$OUT/injected.txt"); PL=$(ranges "$OUT/plain.txt")
echo "== plain process asks for the injected addresses"; setarch -R "$P" reserve $I
echo "== plain process walks to the injected addresses"; setarch -R "$P" walk $I
echo "== injected process asks for the injected addresses"; injected setarch -R "$P" reserve $I
echo "== plain process holds the injected ranges, then asks for them"; setarch -R "$P" holdreserve $I
echo "== plain process holds a window around the injected ranges, then asks for them"; setarch -R "$P" holdwide $I
echo "== plain process asks for the plain addresses"; setarch -R "$P" reserve $PL
echo "== injected process asks for the plain addresses"; injected setarch -R "$P" reserve $PL
echo "== injected process walks to the plain addresses"; injected setarch -R "$P" walk $PL
# The runtime API's program (capture_bench isolated 1) under capture, then the replay runner's
# view: what the capture recorded against what the runner got (its stderr says).
if [ -x "$BUILD/app/lowerscope-cli" ]; then
  "$NVCC" -O2 -arch=native -o "$OUT/capture_bench" bench/capture_bench.cu || exit 1
  "$BUILD/app/lowerscope-cli" capture -o "$OUT/c.json" --save-launches --kernel stream_scale --launch-count 1 \
    -- "$OUT/capture_bench" isolated 2 >/dev/null 2>"$OUT/capture.err"
  echo "== captured regions"; python3 -c "
import json,sys
d=json.load(open('$OUT/c.json'))
for s in d.get('snapshots', []):
    for r in s.get('regions', []): print('region', r)
" 2>&1 | head
  echo "== replay (runner's stderr)"
  "$BUILD/app/lowerscope-cli" run --from-capture "$OUT/c.json" --mode cold --max-time 1 2>&1 | grep -iE "asked|gave|replay|error" | head
  echo "== replay with the runner under the injection"
  LOWERSCOPE_RUNNER="env CUDA_INJECTION64_PATH=$INJ LOWERSCOPE_CAPTURE_EVENTS=$EV $BUILD/app/lowerscope-runner" "$BUILD/app/lowerscope-cli" run --from-capture "$OUT/c.json" --mode cold --max-time 1 2>&1 | grep -iE "asked|gave|replay|error" | head
fi
# A replayed launch's instruction counts (CUPTI SASS metrics): lazily patched (the default) and
# with every function patched at enable (LOWERSCOPE_SASS_EAGER=1).
if [ -x "$BUILD/app/lowerscope-cli" ]; then
  for eager in 0 1; do
    echo "== capture --metrics instructions, LOWERSCOPE_SASS_EAGER=$eager"
    LOWERSCOPE_SASS_EAGER=$eager "$BUILD/app/lowerscope-cli" capture --save-launches --kernel stream_scale --launch-count 1 \
      --metrics instructions -o "$OUT/m$eager/c.json" -- "$OUT/capture_bench" isolated 2 2>&1 | tail -5
    ls "$OUT"/m$eager/c.launches/*/ 2>/dev/null | head
  done
fi
