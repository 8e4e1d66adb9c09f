#!/usr/bin/env bash
# Calibration of the advisor (issue 34): `lowerscope-cli advise --test` over every kernel of
# kernels/ and docs/examples/ that has a sidecar, on a GPU machine. Each suggestion the advisor can
# build is measured against the original (interleaved, outputs compared) and judged; this script
# gathers every test into one table (finding, predicted B/A, measured B/A with its 95 % interval,
# verdict, error = measured − predicted) and a summary: how often the predicted direction was right
# (among the significant results) and the median |error| of the predicted size.
#
# usage: bench/advise_calibration.sh BUILD_DIR [OUT_DIR]
#   MAX_TIME=S    each test's measuring loop (default 10 s)
#   ARCH=sm_XX    build architecture (default: the build options' default, sm_90)
#   SUMMARY_ONLY=1  only the table, from the records a cut-off run left
#   STATIC=1      test the static findings only (`advise --static --test`: no profile is
#                 collected first; faster, and what a machine without counter access can do)
#   DRY=1         no GPU: `advise --static --json` per kernel (the build and the launch only, 132
#                 SMs assumed) and a count of the suggestions a GPU run would test, per kernel, in
#                 OUT_DIR/advise_dry.md. The GPU run's profile can add findings (latency, bank
#                 conflicts, uncoalesced, launch overhead) and silence some (occupancy and few
#                 warps when the kernel issues in >= 80 % of cycles), so this is an estimate.
# Writes OUT_DIR/advise_calibration.md and OUT_DIR/advise_calibration.json; each kernel's record
# (sessions, reports, advice.json) stays in OUT_DIR/records/FILE-KERNEL/. Needs python3.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/advise_calibration.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-out/advise_calibration}
CLI="$BUILD/app/lowerscope-cli"
[ -x "$CLI" ] || { echo "no $CLI: build lowerscope-cli first" >&2; exit 2; }
mkdir -p "$OUT/records"
OPTS=""
[ -n "${ARCH:-}" ] && OPTS="--arch $ARCH"

if [ "${DRY:-0}" = 1 ]; then
  mkdir -p "$OUT/dry"
  for src in kernels/*.cu docs/examples/*.cu; do
    sidecar="${src%.cu}.json"
    [ -f "$sidecar" ] || continue
    for kernel in $(python3 -c 'import json,sys; print(" ".join(k["name"] for k in json.load(open(sys.argv[1]))["kernels"]))' "$sidecar"); do
      name="$(basename "${src%.cu}")-$kernel"
      "$CLI" advise "$src" --kernel "$kernel" --a "$OPTS" --static --json "$OUT/dry/$name.json" >"$OUT/dry/$name.log" 2>&1 \
        || echo "== $src $kernel: exit $? (log $OUT/dry/$name.log)"
    done
  done
  python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
rows, per = [], {}
for name in sorted(f[:-5] for f in os.listdir(os.path.join(out, "dry")) if f.endswith(".json")):
    a = json.load(open(os.path.join(out, "dry", name + ".json")))
    testable = [v for v in a["variants"] if not v.get("not_testable")]
    per[name] = len(testable)
    for v in testable:
        rows.append((name, v["finding"], v["change"], v["prediction"]["ratio"]))
with open(os.path.join(out, "advise_dry.md"), "w") as f:
    f.write("| kernel | finding | variant | predicted B/A |\n|---|---|---|---|\n")
    for k, fi, ch, r in rows:
        f.write(f"| {k} | {fi} | {ch.replace('|', chr(92) + '|')} | {r:.3f} |\n")
    kernels = sum(1 for n in per.values() if n)
    f.write(f"\n{len(rows)} testable suggestions on {kernels} of {len(per)} kernels (static: the build and the launch "
            f"only, 132 SMs assumed).\n")
    for k, n in per.items():
        f.write(f"- {k}: {n}\n")
print(open(os.path.join(out, "advise_dry.md")).read())
PY
  exit 0
fi

MODE=()
[ "${STATIC:-0}" = 1 ] && MODE=(--static)
# SUMMARY_ONLY=1: only the table, from the records already there (a run cut off by a time limit).
[ "${SUMMARY_ONLY:-0}" = 1 ] || {
# docs/examples first: the advisor's test subjects and the kernels with tunables.
for src in docs/examples/*.cu kernels/*.cu; do
  sidecar="${src%.cu}.json"
  [ -f "$sidecar" ] || continue
  for kernel in $(python3 -c 'import json,sys; print(" ".join(k["name"] for k in json.load(open(sys.argv[1]))["kernels"]))' "$sidecar"); do
    name="$(basename "${src%.cu}")-$kernel"
    dir="$OUT/records/$name"
    rm -rf "$dir"
    echo "== $src $kernel"
    "$CLI" advise "$src" --kernel "$kernel" --a "$OPTS" "${MODE[@]}" --test --out "$dir" --max-time "${MAX_TIME:-10}" \
      >"$OUT/records/$name.log" 2>&1
    echo "   exit $? ($(grep -c '^testing ' "$OUT/records/$name.log") tests; log $OUT/records/$name.log)"
  done
done
}

python3 - "$OUT" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
rows = []
for name in sorted(os.listdir(os.path.join(out, "records"))):
    p = os.path.join(out, "records", name, "advice.json")
    if not os.path.exists(p):
        continue
    a = json.load(open(p))
    for t in a.get("tests", []):
        rows.append({"kernel": name, **t})
measured = [r for r in rows if r.get("measured")]
significant = [r for r in measured if "direction_right" in r]
right = sum(1 for r in significant if r["direction_right"])
errors = [abs(r["error"]) for r in measured if r.get("outputs_agree", True)]
kernels = sorted({r["kernel"] for r in rows})
summary = {
    "kernels": len(kernels), "suggestions": len(rows), "measured": len(measured),
    "significant": len(significant),
    "direction_right_pct": 100.0 * right / len(significant) if significant else None,
    "median_abs_error": statistics.median(errors) if errors else None,
    "verdicts": {v: sum(1 for r in rows if r["verdict"] == v) for v in ("held", "failed", "inconclusive", "not_tested")},
}
json.dump({"summary": summary, "tests": rows}, open(os.path.join(out, "advise_calibration.json"), "w"), indent=1)
with open(os.path.join(out, "advise_calibration.md"), "w") as f:
    f.write("| kernel | finding | variant | predicted B/A | measured B/A [95 % CI] | verdict | error |\n|---|---|---|---|---|---|---|\n")
    for r in rows:
        m = f"{r['ratio']:.4f} [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}]" if r.get("measured") else "not measured"
        e = f"{r['error']:+.3f}" if r.get("measured") else "-"
        change = r["change"].replace("|", "\\|")
        f.write(f"| {r['kernel']} | {r['finding']} | {change} | {r['predicted']:.3f} | {m} | {r['verdict']} | {e} |\n")
    d = summary["direction_right_pct"]
    me = summary["median_abs_error"]
    f.write(f"\n{summary['kernels']} kernels, {summary['suggestions']} suggestions, {summary['measured']} measured, "
            f"{summary['significant']} significant. Predicted direction right: "
            f"{'n/a' if d is None else f'{d:.0f} %'} of the significant results. Median |measured − predicted B/A|: "
            f"{'n/a' if me is None else f'{me:.3f}'}. Verdicts: {summary['verdicts']}.\n")
print(open(os.path.join(out, "advise_calibration.md")).read())
PY
