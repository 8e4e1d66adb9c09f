#!/usr/bin/env bash
# The runner's profiles (issue 14) against Nsight Compute for the same kernels and launches, on a
# GPU machine. Per kernel: the three profile requests through lowerscope_profile_collect (kernel
# metrics, instruction counts, stall samples), then ncu collecting the same things for one plain
# launch of the same build (`lowerscope-cli run --profile-launches 1` under ncu with the
# SourceCounters and WarpStateStats sections and the same metrics). Compares:
#   - instructions executed per SASS instruction: identical to ncu's Source page (every offset);
#   - dram__bytes_read.sum / dram__bytes_write.sum: within 2 % of ncu's;
#   - stall reasons: the top three (by samples, all samples of a reason) and their order;
#   - wall time of the three requests against ncu's wall time for the same sections: <= 0.5x.
#
# usage: [ONLY=REGEX] bench/profile_vs_ncu.sh BUILD_DIR [OUT_DIR]
# Writes OUT_DIR/profile_vs_ncu.md and OUT_DIR/profile_vs_ncu.json (plus the raw files in
# OUT_DIR/profile_raw/), prints the table.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/profile_vs_ncu.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-out}
RAW="$OUT/profile_raw"
mkdir -p "$RAW"
CLI="$BUILD/app/lowerscope-cli"
COLLECT="$BUILD/tests/gpu/lowerscope_profile_collect"
NCU=${NCU:-ncu}

# name | file | kernel | --arg values (space-separated; empty: the sidecar's)
CASES=(
  "saxpy|kernels/saxpy.cu|saxpy|"
  "reduce_sum|kernels/reduction.cu|reduce_sum|"
  "sgemm_tiled|kernels/sgemm_tiled.cu|sgemm_tiled|"
  "ffma_independent|kernels/ffma_chain.cu|ffma_independent|"
)

# ONLY=REGEX keeps the cases whose name matches (the GPU test runs two of them).
if [ -n "${ONLY:-}" ]; then
  kept=()
  for c in "${CASES[@]}"; do [[ ${c%%|*} =~ $ONLY ]] && kept+=("$c"); done
  CASES=("${kept[@]}")
fi

now() { date +%s.%N; }
for c in "${CASES[@]}"; do
  IFS='|' read -r name file kernel extra <<<"$c"
  args=(--kernel "$kernel")
  for a in $extra; do args+=(--arg "$a"); done
  # Warm the build cache so that neither side pays for nvcc.
  "$CLI" build "$file" >/dev/null 2>&1
  t0=$(now)
  "$COLLECT" "$file" "${args[@]}" --out "$RAW/${name}_ours.json" 2>"$RAW/${name}_ours.log"
  echo "$? $(now) $t0" >"$RAW/${name}_ours.time"
  metrics=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(','.join(m['name'] for m in d['collections']['kernel']['profile']['metrics']))" "$RAW/${name}_ours.json" 2>/dev/null)
  [ -n "$metrics" ] || metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  t0=$(now)
  "$NCU" --clock-control none --section SourceCounters --section WarpStateStats --metrics "$metrics" \
    -k "regex:$kernel" -f -o "$RAW/${name}_ncu" "$CLI" run "$file" "${args[@]}" --mode cold --profile-launches 1 \
    >"$RAW/${name}_ncu.log" 2>&1
  echo "$? $(now) $t0" >"$RAW/${name}_ncu.time"
  "$NCU" -i "$RAW/${name}_ncu.ncu-rep" --page source --csv --print-source sass >"$RAW/${name}_source.csv" 2>/dev/null
  "$NCU" -i "$RAW/${name}_ncu.ncu-rep" --page raw --csv --print-units base >"$RAW/${name}_raw.csv" 2>/dev/null
done

python3 - "$RAW" "$OUT" "${CASES[@]}" <<'EOF'
import csv, json, os, sys
raw, out, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
# ncu Source page column -> CUPTI stall reason (short name).
NCU_REASON = {"stall_barrier": "barrier", "stall_branch_resolving": "branch_resolving", "stall_dispatch": "dispatch_stall",
              "stall_drain": "drain", "stall_imc": "imc_miss", "stall_lg": "lg_throttle", "stall_long_sb": "long_scoreboard",
              "stall_math": "math_pipe_throttle", "stall_membar": "membar", "stall_mio": "mio_throttle", "stall_misc": "misc",
              "stall_no_inst": "no_instructions", "stall_not_selected": "not_selected", "stall_selected": "selected",
              "stall_short_sb": "short_scoreboard", "stall_sleep": "sleeping", "stall_tex": "tex_throttle", "stall_wait": "wait"}

def number(text):
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None

def wall(path):
    try:
        rc, t1, t0 = open(path).read().split()
        return int(rc), float(t1) - float(t0)
    except Exception:
        return None, None

def source_rows(path):
    """The first kernel's rows of ncu's Source page: (offset, row dict)."""
    rows, header, base = [], None, None
    with open(path) as f:
        for rec in csv.reader(f):
            if not rec:
                continue
            if rec[0] == "Kernel Name":
                if header is not None:
                    break  # one kernel only
                continue
            if rec[0] == "Address" or rec[0] == "# Address":
                header = rec
                continue
            if header and rec[0].startswith("0x"):
                addr = int(rec[0], 16)
                base = addr if base is None else base
                rows.append((addr - base, dict(zip(header, rec))))
    return rows

def raw_metrics(path):
    with open(path) as f:
        recs = [r for r in csv.reader(f) if r]
    if len(recs) < 3:
        return {}
    names, values = recs[0], recs[2]
    return {n: number(v) for n, v in zip(names, values)}

results, table = [], []
for c in cases:
    name, file, kernel, extra = c.split("|")
    rec = {"name": name, "file": file, "kernel": kernel}
    try:
        ours = json.load(open(os.path.join(raw, f"{name}_ours.json")))
    except Exception as e:
        rec["error"] = f"no runner profile: {e}"
        results.append(rec)
        continue
    cols = ours.get("collections", {})
    rec["ours_wall_s"] = ours.get("total_wall_s")
    rec["ours_wall_by_collection_s"] = {k: v.get("wall_s") for k, v in cols.items()}
    rec["errors"] = {k: v["error"]["message"] for k, v in cols.items() if "error" in v}
    rc, ncu_wall = wall(os.path.join(raw, f"{name}_ncu.time"))
    rec["ncu_wall_s"], rec["ncu_rc"] = ncu_wall, rc
    src = source_rows(os.path.join(raw, f"{name}_source.csv")) if os.path.exists(os.path.join(raw, f"{name}_source.csv")) else []
    # Instruction counts.
    inst = {}
    if "instructions" in cols and "profile" in cols["instructions"]:
        for row in cols["instructions"]["profile"]["instructions"]:
            inst[row["pc_offset"]] = row.get("counts", {}).get("smsp__sass_inst_executed", 0)
    ncu_inst = {off: number(r.get("Instructions Executed")) for off, r in src}
    same = sum(1 for off, v in ncu_inst.items() if v is not None and inst.get(off, 0 if v == 0 else None) == v)
    rec["instructions_ncu"] = len(ncu_inst)
    rec["instructions_identical"] = same
    rec["instructions_mismatch"] = [(off, inst.get(off), v) for off, v in ncu_inst.items()
                                    if v is not None and inst.get(off, 0 if v == 0 else None) != v][:10]
    # DRAM bytes.
    km = {}
    if "kernel" in cols and "profile" in cols["kernel"]:
        km = {m["name"]: m["value"] for m in cols["kernel"]["profile"]["metrics"]}
    nm = raw_metrics(os.path.join(raw, f"{name}_raw.csv")) if os.path.exists(os.path.join(raw, f"{name}_raw.csv")) else {}
    for m in ("dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"):
        o, n = km.get(m), nm.get(m)
        rec[m] = {"ours": o, "ncu": n, "diff_pct": (100.0 * (o / n - 1) if o is not None and n else None)}
    rec["metrics_ours"] = km
    rec["metrics_ncu"] = {k: v for k, v in nm.items() if k in km}
    # Stall reasons: all samples of each reason (ours: the reason without _not_issued).
    ours_r, ours_r_all = {}, {}
    if "samples" in cols and "profile" in cols["samples"]:
        for row in cols["samples"]["profile"]["instructions"]:
            for r, k in row.get("samples", {}).items():
                if r.endswith("_not_issued"):
                    ours_r_all[r[:-len("_not_issued")]] = ours_r_all.get(r[:-len("_not_issued")], 0) + k
                else:
                    ours_r[r] = ours_r.get(r, 0) + k
                    ours_r_all[r] = ours_r_all.get(r, 0) + k
    ncu_r = {}
    for off, r in src:
        for col, reason in NCU_REASON.items():
            v = number(r.get(col))
            if v:
                ncu_r[reason] = ncu_r.get(reason, 0) + v
    top = lambda d: [k for k, _ in sorted(d.items(), key=lambda x: -x[1])[:3]]
    rec["stall_top3_ours"] = top(ours_r)
    rec["stall_top3_ours_with_not_issued"] = top(ours_r_all)
    rec["stall_top3_ncu"] = top(ncu_r)
    rec["stall_samples_ours"] = sum(ours_r.values())
    rec["stall_samples_ncu"] = sum(ncu_r.values())
    rec["stall_share_ours"] = {k: v / max(1, sum(ours_r.values())) for k, v in ours_r.items()}
    rec["stall_share_ncu"] = {k: v / max(1, sum(ncu_r.values())) for k, v in ncu_r.items()}
    results.append(rec)

def f(x, p=2):
    return "-" if x is None else f"{x:.{p}f}"
table.append("Runner: lowerscope_profile_collect (three profile requests: kernel metrics by Range Profiler with "
             "one replayed cold launch per pass, instruction counts by SASS Metrics, stall samples by PC Sampling). "
             "ncu: --clock-control none, SourceCounters + WarpStateStats + the same metrics, one launch.")
table.append("")
table.append("| kernel | instructions identical | DRAM read (ours / ncu) | DRAM write (ours / ncu) | duration ns (ours / ncu) | stall top 3 (ours) | stall top 3 (ncu) | wall s (ours / ncu) |")
table.append("|---|---|---|---|---|---|---|---|")
ok_inst = ok_dram = ok_stall = ok_wall = True
for r in results:
    if "error" in r:
        table.append(f"| {r['kernel']} | {r['error']} | | | | | | |")
        ok_inst = ok_dram = ok_stall = ok_wall = False
        continue
    def pair(m):
        x = r[m]
        return f"{f(x['ours'], 0)} / {f(x['ncu'], 0)} ({'+' if (x['diff_pct'] or 0) >= 0 else ''}{f(x['diff_pct'])}%)"
    ratio = r["ours_wall_s"] / r["ncu_wall_s"] if r.get("ncu_wall_s") and r.get("ours_wall_s") else None
    table.append(f"| {r['kernel']} | {r['instructions_identical']} of {r['instructions_ncu']} | {pair('dram__bytes_read.sum')} | "
                 f"{pair('dram__bytes_write.sum')} | {pair('gpu__time_duration.sum')} | {', '.join(r['stall_top3_ours'])} | "
                 f"{', '.join(r['stall_top3_ncu'])} | {f(r['ours_wall_s'])} / {f(r['ncu_wall_s'])} ({f(ratio)}x) |")
    ok_inst &= r["instructions_ncu"] > 0 and r["instructions_identical"] == r["instructions_ncu"]
    for m in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
        d = r[m]["diff_pct"]
        ok_dram &= d is not None and abs(d) <= 2
    ok_stall &= r["stall_top3_ours"] == r["stall_top3_ncu"]
    ok_wall &= ratio is not None and ratio <= 0.5
    if r["errors"]:
        table.append(f"|  | errors: {r['errors']} | | | | | | |")
table.append("")
table.append(f"Targets: instruction counts identical: {'met' if ok_inst else 'NOT met'}; DRAM bytes within 2 %: "
             f"{'met' if ok_dram else 'NOT met'}; stall top-3 and order agree: {'met' if ok_stall else 'NOT met'}; "
             f"wall time <= 0.5x ncu: {'met' if ok_wall else 'NOT met'}.")
text = "\n".join(table)
print(text)
open(os.path.join(out, "profile_vs_ncu.md"), "w").write(text + "\n")
json.dump(results, open(os.path.join(out, "profile_vs_ncu.json"), "w"), indent=1)
EOF
