#!/usr/bin/env bash
# Issue 29's capture measurements, on a GPU machine (numbers go to docs/PERFORMANCE.md):
#  1. overhead of `lowerscope-cli capture` without counters on a program launching 10,000 short
#     kernels: the program's whole wall time plain and under capture, 7 runs each, alternating;
#     target: median under capture <= 1.05x plain;
#  2. durations of a ~50 us kernel as the capture records them (CUPTI kernel activity, in the
#     program) against ncu's gpu__time_duration.sum for the same 20 launches: medians within 2 %;
#  3. a replayed launch (run --from-capture, cold: L2 flushed as ncu does) against the capture's own
#     duration of that kernel in the program: medians within 2 %.
#   usage: bench/capture_bench.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/capture_bench.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-out/capture_bench}
mkdir -p "$OUT/long" "$OUT/short"
OUT=$(cd "$OUT" && pwd)
CLI="$BUILD/app/lowerscope-cli"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -arch=native -o "$OUT/capture_bench" bench/capture_bench.cu || exit 1
P="$OUT/capture_bench"
now() { date +%s.%N; }
: >"$OUT/overhead.txt"
for r in 1 2 3 4 5 6 7; do
  t0=$(now); "$P" short 10000 >/dev/null; t1=$(now)
  "$CLI" capture -o "$OUT/short/c$r.json" -- "$P" short 10000 >/dev/null 2>&1; t2=$(now)
  echo "$t0 $t1 $t2" >>"$OUT/overhead.txt"
done
"$CLI" capture -o "$OUT/long/c.json" --save-launches --kernel stream_scale --launch-skip 10 --launch-count 1 \
  -- "$P" long 20 >/dev/null 2>"$OUT/long/capture.err"
"$CLI" run --from-capture "$OUT/long/c.json" --mode cold --json "$OUT/long/replay.json" --max-time 5 >/dev/null 2>"$OUT/long/replay.err"
NCU=${NCU:-ncu}
if command -v "$NCU" >/dev/null 2>&1; then
  "$NCU" --metrics gpu__time_duration.sum -k regex:stream_scale --csv --print-units base "$P" long 20 >"$OUT/long/ncu.csv" 2>/dev/null
fi
python3 - "$OUT" <<'PY'
import csv, json, os, statistics, sys
out = sys.argv[1]
rows = [list(map(float, l.split())) for l in open(os.path.join(out, "overhead.txt")) if l.strip()]
plain = [t1 - t0 for t0, t1, t2 in rows]
cap = [t2 - t1 for t0, t1, t2 in rows]
res = {"overhead": {"plain_s": plain, "capture_s": cap,
                    "ratio_median": statistics.median(cap) / statistics.median(plain)}}
# The capture's durations of stream_scale, launch by launch (GPU timestamps, ns).
d = json.load(open(os.path.join(out, "long", "c.json")))
ks = {i for i, k in enumerate(d["kernels"]) if k["name"].startswith("_Z12stream_scale")}
ours = [l["duration_ns"] / 1e3 for l in d["launches"] if l["kernel"] in ks]
res["durations"] = {"capture_us": ours}
path = os.path.join(out, "long", "ncu.csv")
if os.path.exists(path):
    recs = [r for r in csv.reader(open(path)) if r]
    hdr = next((r for r in recs if "Metric Name" in r), None)
    ncu = []
    if hdr:
        i_name, i_val = hdr.index("Metric Name"), hdr.index("Metric Value")
        ncu = [float(r[i_val].replace(",", "")) / 1e3 for r in recs[recs.index(hdr) + 1:]
               if len(r) > i_val and r[i_name] == "gpu__time_duration.sum"]
    res["durations"]["ncu_us"] = ncu
    if ours and ncu:
        res["durations"]["median_diff_pct"] = 100 * (statistics.median(ours) / statistics.median(ncu) - 1)
try:
    r = json.load(open(os.path.join(out, "long", "replay.json")))
    v = r["variants"][0] if "variants" in r else r
    samples = v.get("samples_ms") or v.get("samples") or []
    med = statistics.median(samples) * 1e3 if samples else None
    res["replay"] = {"replay_median_us": med, "program_median_us": statistics.median(ours) if ours else None,
                     "reproduced": r.get("replay", {}).get("reproduced")}
    if med and ours:
        res["replay"]["diff_pct"] = 100 * (med / statistics.median(ours) - 1)
except Exception as e:
    res["replay"] = {"error": str(e)}
json.dump(res, open(os.path.join(out, "capture_bench.json"), "w"), indent=1)
o = res["overhead"]
print(f"capture overhead, 10,000 short launches: plain median {statistics.median(plain):.3f} s, under capture "
      f"{statistics.median(cap):.3f} s: {o['ratio_median']:.3f}x (target <= 1.05x)")
du = res["durations"]
if "median_diff_pct" in du:
    print(f"durations (stream_scale, 20 launches): capture median {statistics.median(du['capture_us']):.2f} us, ncu "
          f"{statistics.median(du['ncu_us']):.2f} us: {du['median_diff_pct']:+.2f} % (target within 2 %)")
else:
    print("durations: ncu figures missing", du)
print("replay:", res["replay"])
PY
