#!/usr/bin/env bash
# Issue 19: the writing kernel (saxpy) reads 6-8 % longer in the runner's cold mode than under
# ncu. This runs bench/l2_state_probe.cu (saxpy after different preparations of the GPU, see its
# header) on its own (CUDA events) and under ncu with and without ncu's own cache flush, and
# prints one table: the median per preparation on each clock.
#
#   bench/l2_state_probe.sh [OUT_DIR] [LOG2_N ...]     (default: out, 22 24)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-out}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(22 24)
NCU=${NCU:-ncu}
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
exe="$OUT/l2_state_probe"
nvcc -O3 -arch=native -o "$exe" bench/l2_state_probe.cu || { echo "l2_state_probe: nvcc failed"; exit 2; }
for lg in "${SIZES[@]}"; do
  "$exe" "$lg" 200 >"$OUT/l2probe_${lg}_events.txt" 2>&1
  for cc in none all; do
    "$NCU" --cache-control "$cc" --clock-control none -k saxpy --metrics gpu__time_duration.sum --csv \
      --print-units base "$exe" "$lg" 20 >"$OUT/l2probe_${lg}_ncu_$cc.csv" 2>"$OUT/l2probe_${lg}_ncu_$cc.err"
  done
done
python3 - "$OUT" "${SIZES[@]}" <<'EOF'
import csv, io, statistics, sys
out, sizes = sys.argv[1], sys.argv[2:]
print("| n | preparation before the launch | events, standalone (us) | ncu, --cache-control none (us) | ncu, --cache-control all (us) |")
print("|---|---|---:|---:|---:|")
for lg in sizes:
    ev, order = {}, []
    for line in open(f"{out}/l2probe_{lg}_events.txt"):
        if line.startswith("# "):
            order = line.split("round:")[1].split()
        elif "median" in line:
            f = line.split()
            ev[f[0]] = float(f[2])
    ncu = {}
    for cc in ("none", "all"):
        text = open(f"{out}/l2probe_{lg}_ncu_{cc}.csv").read()
        rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):]))
                if r.get("Metric Name") == "gpu__time_duration.sum"]
        vals = [float(r["Metric Value"].replace(",", "")) / 1e3 for r in rows]  # ns -> us
        per = {n: [] for n in order}
        for i, v in enumerate(vals[2 * len(order):]):  # two warm-up rounds
            per[order[i % len(order)]].append(v)
        ncu[cc] = {n: statistics.median(v) if v else float("nan") for n, v in per.items()}
    for n in order:
        print(f"| 2^{lg} | {n} | {ev.get(n, float('nan')):.2f} | {ncu['none'][n]:.2f} | {ncu['all'][n]:.2f} |")
EOF
