#!/usr/bin/env bash
# Issue 29's capture measurements, on a GPU machine (numbers go to docs/PERFORMANCE.md):
#  1. overhead of `lowerscope-cli capture` without counters on a program launching N short
#     kernels (N = 1, 10,000, 100,000; 5 runs each, plain and captured alternating): the whole
#     wall time (target at 10,000: captured <= 1.05x plain), and the program's own launch loop
#     (what each launch costs under capture, without CUDA's and CUPTI's start-up), and the
#     capture's fixed cost (N = 1);
#  2. durations of a ~35 us memory-bound kernel as the capture records them (CUPTI kernel
#     activity, in the program) against ncu's gpu__time_duration.sum for the same 20 launches,
#     both with each launch after an L2 flush on an idle GPU (`capture_bench isolated`; ncu with
#     --clock-control none and its cache flush): medians within 2 %; the same kernel back to back
#     (`long`) for comparison;
#  3. a replayed launch (run --from-capture, cold: L2 flushed as ncu does) against the capture's own
#     duration of that kernel in the program (isolated): medians within 2 %.
# LOWERSCOPE_CAPTURE_TIMING=1 makes the injection say how long its start and end took.
#   usage: bench/capture_bench.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:?usage: bench/capture_bench.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-out/capture_bench}
mkdir -p "$OUT/long" "$OUT/short" "$OUT/isolated"
OUT=$(cd "$OUT" && pwd)
CLI="$BUILD/app/lowerscope-cli"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -arch=native -o "$OUT/capture_bench" bench/capture_bench.cu || exit 1
P="$OUT/capture_bench"
now() { date +%s.%N; }
: >"$OUT/overhead.txt"
for n in 1 10000 100000; do
  for r in 1 2 3 4 5; do
    t0=$(now); "$P" short $n >"$OUT/short/plain-$n-$r.out" 2>&1; t1=$(now)
    LOWERSCOPE_CAPTURE_TIMING=1 "$CLI" capture -o "$OUT/short/c-$n-$r.json" -- "$P" short $n >"$OUT/short/capture-$n-$r.out" 2>&1; t2=$(now)
    echo "$n $r $t0 $t1 $t2" >>"$OUT/overhead.txt"
  done
done
NCU=${NCU:-ncu}
for mode in isolated long; do
  "$CLI" capture -o "$OUT/$mode/c.json" --save-launches --kernel stream_scale --launch-skip 10 --launch-count 1 \
    -- "$P" $mode 20 >/dev/null 2>"$OUT/$mode/capture.err"
  if command -v "$NCU" >/dev/null 2>&1; then
    "$NCU" --clock-control none --metrics gpu__time_duration.sum -k regex:stream_scale --csv --print-units base \
      "$P" $mode 20 >"$OUT/$mode/ncu.csv" 2>/dev/null
  fi
done
"$CLI" run --from-capture "$OUT/isolated/c.json" --mode cold --json "$OUT/isolated/replay.json" --max-time 5 \
  >"$OUT/isolated/replay.out" 2>"$OUT/isolated/replay.err"
# The same replay on CUPTI's activity timestamps (the clock the capture itself records), and the
# capture with CUPTI's serialising kernel records instead of the concurrent ones: which definition
# of a launch's duration each side uses, measured rather than assumed.
"$CLI" run --from-capture "$OUT/isolated/c.json" --mode cold --program-clock \
  --json "$OUT/isolated/replay_timestamps.json" --max-time 5 >"$OUT/isolated/replay_timestamps.out" 2>"$OUT/isolated/replay_timestamps.err"
mkdir -p "$OUT/isolated_serial"
"$CLI" capture --serialize-kernels -o "$OUT/isolated_serial/c.json" --save-launches --kernel stream_scale --launch-skip 10 \
  --launch-count 1 -- "$P" isolated 20 >"$OUT/isolated_serial/capture.out" 2>"$OUT/isolated_serial/capture.err"
"$CLI" run --from-capture "$OUT/isolated_serial/c.json" --mode cold --json "$OUT/isolated_serial/replay.json" --max-time 5 \
  >"$OUT/isolated_serial/replay.out" 2>"$OUT/isolated_serial/replay.err"
# Nsight Systems' own overhead on the same 10,000 launches, where it is installed (the issue's
# yardstick): wall time of `nsys profile --trace=cuda`, 3 runs.
: >"$OUT/nsys.txt"
if command -v nsys >/dev/null 2>&1; then
  for r in 1 2 3; do
    t0=$(now); nsys profile --trace=cuda --sample=none --cpuctxsw=none -o "$OUT/nsys-$r" --force-overwrite true \
      "$P" short 10000 >"$OUT/nsys-$r.out" 2>&1; t1=$(now)
    echo "$r $t0 $t1" >>"$OUT/nsys.txt"
  done
fi
python3 - "$OUT" <<'PY'
import csv, glob, json, os, re, statistics, sys
out = sys.argv[1]
med = statistics.median
def loop_ms(path):
    m = re.search(r"([0-9.]+) ms launch loop", open(path, errors="replace").read()) if os.path.exists(path) else None
    return float(m.group(1)) if m else None
rows = [l.split() for l in open(os.path.join(out, "overhead.txt")) if l.strip()]
res = {"overhead": {}}
for n in sorted({int(r[0]) for r in rows}):
    rs = [r for r in rows if int(r[0]) == n]
    plain = [float(r[3]) - float(r[2]) for r in rs]
    cap = [float(r[4]) - float(r[3]) for r in rs]
    lp = [loop_ms(os.path.join(out, "short", f"plain-{n}-{r[1]}.out")) for r in rs]
    lc = [loop_ms(os.path.join(out, "short", f"capture-{n}-{r[1]}.out")) for r in rs]
    prog = []  # the program's own wall under capture, as the capture document records it
    for r in rs:
        try:
            prog.append(json.load(open(os.path.join(out, "short", f"c-{n}-{r[1]}.json")))["exit"]["wall_ms"] / 1e3)
        except Exception:
            pass
    timing = []
    for r in rs:
        p = os.path.join(out, "short", f"capture-{n}-{r[1]}.out")
        if os.path.exists(p):
            timing += [l.strip() for l in open(p, errors="replace") if "lowerscope-inject: timing" in l or "capture: timing" in l]
    e = {"plain_s": plain, "capture_s": cap, "ratio_median": med(cap) / med(plain),
         "program_under_capture_s": prog, "loop_plain_ms": lp, "loop_capture_ms": lc, "injection_timing": timing[:6]}
    if all(v is not None for v in lp + lc) and lp:
        e["loop_ratio_median"] = med(lc) / med(lp)
        e["per_launch_us"] = (med(lc) - med(lp)) * 1e3 / n
    res["overhead"][str(n)] = e
def ncu_us(path):
    if not os.path.exists(path):
        return []
    recs = [r for r in csv.reader(open(path)) if r]
    hdr = next((r for r in recs if "Metric Name" in r), None)
    if not hdr:
        return []
    i_name, i_val = hdr.index("Metric Name"), hdr.index("Metric Value")
    return [float(r[i_val].replace(",", "")) / 1e3 for r in recs[recs.index(hdr) + 1:]
            if len(r) > i_val and r[i_name] == "gpu__time_duration.sum"]
res["durations"] = {}
for mode in ("isolated", "long"):
    try:
        d = json.load(open(os.path.join(out, mode, "c.json")))
        ks = {i for i, k in enumerate(d["kernels"]) if k["name"].startswith("_Z12stream_scale")}
        ours = [l["duration_ns"] / 1e3 for l in d["launches"] if l["kernel"] in ks]
    except Exception as ex:
        res["durations"][mode] = {"error": str(ex)}
        continue
    ncu = ncu_us(os.path.join(out, mode, "ncu.csv"))
    e = {"capture_us": ours, "ncu_us": ncu}
    if ours and ncu:
        e["median_diff_pct"] = 100 * (med(ours) / med(ncu) - 1)
    res["durations"][mode] = e
try:
    r = json.load(open(os.path.join(out, "isolated", "replay.json")))
    v = r["variants"][0] if "variants" in r else r
    samples = v.get("samples_ms") or v.get("samples") or []
    m = med(samples) * 1e3 if samples else None
    ours = res["durations"].get("isolated", {}).get("capture_us") or []
    res["replay"] = {"replay_median_us": m, "program_median_us": med(ours) if ours else None,
                     "reproduced": r.get("replay", {}).get("reproduced")}
    if m and ours:
        res["replay"]["diff_pct"] = 100 * (m / med(ours) - 1)
except Exception as ex:
    res["replay"] = {"error": str(ex)}
def clocks(path):
    try:
        r = json.load(open(path))
        v = r["variants"][0] if "variants" in r else r
        return {k: med(x) * 1e3 for k, x in (v.get("samples_by_clock") or {}).items() if x}
    except Exception as ex:
        return {"error": str(ex)}
res["replay_clocks_us"] = {"default": clocks(os.path.join(out, "isolated", "replay.json")),
                           "program_clock": clocks(os.path.join(out, "isolated", "replay_timestamps.json")),
                           "serialized_capture": clocks(os.path.join(out, "isolated_serial", "replay.json"))}
# Replay against the program on the same clock: the replay's median against the median of the 20
# launches in the program (and the replay document's own comparison with the saved launch).
def like_for_like(replay_path, clock, program_us):
    try:
        r = json.load(open(replay_path))
        v = r["variants"][0] if "variants" in r else r
        m = med(v["samples_by_clock"][clock]) * 1e3
        return {"clock": clock, "replay_median_us": m, "program_median_us": med(program_us),
                "diff_pct": 100 * (m / med(program_us) - 1), "saved_launch": r.get("replay", {}).get("program")}
    except Exception as ex:
        return {"error": repr(ex)}
try:
    d = json.load(open(os.path.join(out, "isolated_serial", "c.json")))
    ks = {i for i, k in enumerate(d["kernels"]) if k["name"].startswith("_Z12stream_scale")}
    ser = [l["duration_ns"] / 1e3 for l in d["launches"] if l["kernel"] in ks]
    res["durations"]["isolated_serial"] = {"capture_us": ser, "ncu_us": res["durations"].get("isolated", {}).get("ncu_us", [])}
    if ser and res["durations"]["isolated_serial"]["ncu_us"]:
        res["durations"]["isolated_serial"]["median_diff_pct"] = 100 * (med(ser) / med(res["durations"]["isolated_serial"]["ncu_us"]) - 1)
except Exception as ex:
    res["durations"]["isolated_serial"] = {"error": str(ex)}
res["replay_like_for_like"] = {
    "concurrent records, replay --program-clock": like_for_like(os.path.join(out, "isolated", "replay_timestamps.json"),
        "kernel_timestamps", res["durations"].get("isolated", {}).get("capture_us") or [0]),
    "serialized records, replay default": like_for_like(os.path.join(out, "isolated_serial", "replay.json"),
        "gpu_time_duration", res["durations"].get("isolated_serial", {}).get("capture_us") or [0])}
ns = [l.split() for l in open(os.path.join(out, "nsys.txt")) if l.strip()] if os.path.exists(os.path.join(out, "nsys.txt")) else []
if ns:
    res["nsys_10000_s"] = [float(r[2]) - float(r[1]) for r in ns]
json.dump(res, open(os.path.join(out, "capture_bench.json"), "w"), indent=1)
for n, e in res["overhead"].items():
    line = (f"capture overhead, {int(n):,} short launches: wall plain {med(e['plain_s']):.3f} s, captured "
            f"{med(e['capture_s']):.3f} s: {e['ratio_median']:.3f}x")
    if "loop_ratio_median" in e:
        line += (f"; launch loop {med(e['loop_plain_ms']):.1f} ms plain, {med(e['loop_capture_ms']):.1f} ms captured "
                 f"({e['loop_ratio_median']:.3f}x, {e['per_launch_us']:+.2f} us per launch)")
    print(line + (" (target <= 1.05x)" if n == "10000" else ""))
    for t in e["injection_timing"][:3]:
        print("  " + t)
for mode, du in res["durations"].items():
    if "median_diff_pct" in du:
        print(f"durations ({mode}, stream_scale, 20 launches): capture median {med(du['capture_us']):.2f} us, ncu "
              f"{med(du['ncu_us']):.2f} us: {du['median_diff_pct']:+.2f} %" + (" (target within 2 %)" if mode == "isolated" else ""))
    else:
        print(f"durations ({mode}): figures missing", {k: v for k, v in du.items() if k != "capture_us"})
print("replay (isolated launch 11, cold) against the program:", res["replay"], "(target within 2 %)")
print("replay clocks (median us):", res["replay_clocks_us"])
for k, v in res["replay_like_for_like"].items():
    if "diff_pct" in v:
        print(f"replay against the program, same clock ({k}): replay {v['replay_median_us']:.2f} us, program "
              f"{v['program_median_us']:.2f} us: {v['diff_pct']:+.2f} % (target within 2 %)")
    else:
        print(f"replay against the program ({k}):", v)
if "nsys_10000_s" in res:
    print(f"nsys profile --trace=cuda, 10,000 short launches: {med(res['nsys_10000_s']):.3f} s "
          f"({med(res['nsys_10000_s']) / med(res['overhead']['10000']['plain_s']):.2f}x plain)")
else:
    print("nsys: not installed here")
PY
