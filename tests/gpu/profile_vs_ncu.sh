#!/usr/bin/env bash
# GPU test gpu_profile_vs_ncu (label gpu): the runner's instructions executed per SASS instruction
# equal Nsight Compute's Source page at every offset, for saxpy and reduce_sum (the counts half of
# bench/profile_vs_ncu.sh, which also compares DRAM bytes, stall reasons and wall time).
# Exit 0 pass, 1 fail, 77 skip (no ncu, no driver or no device).
#   usage: tests/gpu/profile_vs_ncu.sh BUILD_DIR      (from the repository root)
set -uo pipefail
BUILD=${1:?usage: tests/gpu/profile_vs_ncu.sh BUILD_DIR}
command -v "${NCU:-ncu}" >/dev/null 2>&1 || { echo "SKIP: ncu not found"; exit 77; }
"$BUILD/app/lowerscope-runner" --info >/dev/null 2>&1
rc=$?
if [ "$rc" = 3 ] || [ "$rc" = 4 ]; then echo "SKIP: no CUDA driver or device"; exit 77; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ONLY='^(saxpy|reduce_sum)$' bench/profile_vs_ncu.sh "$BUILD" "$out" >"$out/log" 2>&1
python3 - "$out/profile_vs_ncu.json" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAIL: no result:", e)
    sys.exit(1)
ok = len(rows) == 2
for r in rows:
    n, same, bad = r.get("instructions_ncu", 0), r.get("instructions_identical", 0), r.get("instructions_mismatch", [])
    print(f"{r['name']}: {same} of {n} offsets identical to ncu, mismatches {bad[:5]}")
    ok = ok and n > 0 and same == n and not bad
print("profile_vs_ncu:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
