#!/usr/bin/env bash
# One question about the capture's cost in the program (docs/PERFORMANCE.md, "Capture and
# replay"): does CUPTI's pre-allocation of device buffers at context creation account for part of
# it? 10,000 short launches (bench/capture_bench.cu), 7 rounds of: plain, captured, captured with
# LOWERSCOPE_CAPTURE_LEAN=1 (one 1 MiB device buffer pre-allocated instead of three of ~3 MB);
# wall time of each and the program's own wall under capture (the document's exit.wall_ms).
#   usage: bench/capture_lean_probe.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/capture_lean_probe.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-out/capture_lean}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CLI="$BUILD/app/lowerscope-cli"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -arch=native -o "$OUT/capture_bench" bench/capture_bench.cu || exit 1
P="$OUT/capture_bench"
now() { date +%s.%N; }
: >"$OUT/rounds.txt"
for r in 1 2 3 4 5 6 7; do
  t0=$(now); "$P" short 10000 >/dev/null 2>&1; t1=$(now)
  "$CLI" capture -o "$OUT/d-$r.json" -- "$P" short 10000 >/dev/null 2>&1; t2=$(now)
  LOWERSCOPE_CAPTURE_LEAN=1 "$CLI" capture -o "$OUT/l-$r.json" -- "$P" short 10000 >/dev/null 2>&1; t3=$(now)
  echo "$r $t0 $t1 $t2 $t3" >>"$OUT/rounds.txt"
done
python3 - "$OUT" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
med = statistics.median
rows = [l.split() for l in open(os.path.join(out, "rounds.txt")) if l.strip()]
plain = [float(r[2]) - float(r[1]) for r in rows]
dflt = [float(r[3]) - float(r[2]) for r in rows]
lean = [float(r[4]) - float(r[3]) for r in rows]
def prog(prefix):
    v = []
    for r in rows:
        try:
            d = json.load(open(os.path.join(out, f"{prefix}-{r[0]}.json")))
            v.append(d["exit"]["wall_ms"] / 1e3)
        except Exception:
            pass
    return v
pd, pl = prog("d"), prog("l")
print(f"10,000 short launches, medians of {len(rows)}: plain {med(plain):.3f} s; captured {med(dflt):.3f} s "
      f"({med(dflt) / med(plain):.3f}x, program {med(pd):.3f} s); lean {med(lean):.3f} s "
      f"({med(lean) / med(plain):.3f}x, program {med(pl):.3f} s)")
json.dump({"plain_s": plain, "captured_s": dflt, "lean_s": lean, "program_captured_s": pd, "program_lean_s": pl},
          open(os.path.join(out, "lean.json"), "w"), indent=1)
PY
