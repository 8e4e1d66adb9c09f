#!/usr/bin/env bash
# A/A test of `compare`: the same build against itself, N times per kernel, timed on shared device
# buffers (the default) and on separate ones (--separate-buffers). With no real difference, B/A
# should sit at 1 and "significant" should be rare (about 5 % of runs at a 95 % interval); a
# systematic offset, or many significant runs, is bias in the method.
#
# usage: bench/compare_bias.sh BUILD_DIR [OUT_DIR] [N]
#   MAX_TIME=S: each compare's measuring loop (default 10 s). The compare JSON names the clock both
#   sides were timed on (duration_clock): the GPU's own where CUPTI gives it, else CUDA events.
# Writes OUT_DIR/compare_bias.md (a table, one row per kernel and buffer mode) and prints it.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/compare_bias.sh BUILD_DIR [OUT_DIR] [N]}
OUT=${2:-out}
N=${3:-5}
mkdir -p "$OUT"
CLI="$BUILD/app/lowerscope-cli"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# name | file | kernel | --arg values (space-separated; empty: the sidecar's)
CASES=(
  "saxpy_16M|kernels/saxpy.cu|saxpy|"
  "reduce_sum_16M|kernels/reduction.cu|reduce_sum|"
)

{
  echo "| kernel | buffers | clock | runs | B/A per run | max abs(B/A - 1) | significant |"
  echo "|---|---|---|---|---|---|---|"
} >"$OUT/compare_bias.md"
for c in "${CASES[@]}"; do
  IFS='|' read -r name file kernel extra <<<"$c"
  args=(--kernel "$kernel" --max-time "${MAX_TIME:-10}")
  for a in $extra; do args+=(--arg "$a"); done
  # Alternate the two modes so drift over the session hits both alike.
  for i in $(seq 1 "$N"); do
    for mode in shared separate; do
      flag=(); [ "$mode" = separate ] && flag=(--separate-buffers)
      "$CLI" compare "$file" "${args[@]}" "${flag[@]}" --json "$WORK/${name}_${mode}_$i.json" \
        >"$WORK/${name}_${mode}_$i.log" 2>&1 || { echo "compare $name $mode #$i failed:"; tail -5 "$WORK/${name}_${mode}_$i.log"; }
    done
  done
  for mode in shared separate; do
    python3 - "$WORK" "$name" "$mode" "$N" >>"$OUT/compare_bias.md" <<'PY'
import json, sys, os
work, name, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ratios, sig, shared, clocks = [], 0, set(), set()
for i in range(1, n + 1):
    p = os.path.join(work, f"{name}_{mode}_{i}.json")
    if not os.path.exists(p):
        continue
    d = json.load(open(p))
    r = d["ratio"]
    ratios.append((r["b_over_a"], r["ci95"][0], r["ci95"][1]))
    sig += bool(r["significant"])
    shared.add(d.get("buffers_shared"))
    clocks.add(d["a"].get("duration_clock", "events") + ("" if d["a"].get("duration_clock") == d["b"].get("duration_clock") else " / " + d["b"].get("duration_clock", "?")))
cells = ", ".join(f"{b:.4f} [{lo:.4f}, {hi:.4f}]" for b, lo, hi in ratios)
worst = max((abs(b - 1) for b, _, _ in ratios), default=float("nan"))
print(f"| {name} | {mode} (buffers_shared={'/'.join(str(s).lower() for s in shared)}) | {', '.join(sorted(clocks))} | {len(ratios)} | {cells} | "
      f"{worst * 100:.2f} % | {sig} of {len(ratios)} |")
PY
  done
done
cat "$OUT/compare_bias.md"
