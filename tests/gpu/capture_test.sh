#!/usr/bin/env bash
# GPU test gpu_capture (label gpu): `lowerscope-cli capture` on two real programs —
#   * tests/gpu/capture_program.cu, a C++ program with its own host setup (runtime API): the kernel
#     table lists scale ×5 and add_one ×3 with positive durations, add_one's launches carry their
#     64 bytes of dynamic shared memory, the cubin is saved and opens with `inspect CAPTURE
#     --kernel scale` (SASS, and source lines through its line info);
#   * tests/gpu/capture_ctypes.py, `python3` calling a PTX kernel through ctypes on libcuda: fill ×4,
#     its JIT-compiled cubin saved and opened with inspect.
# Exit 0 pass, 1 fail, 77 skip (no driver or device, or no nvcc).
#   usage: tests/gpu/capture_test.sh BUILD_DIR      (from the repository root)
set -uo pipefail
BUILD=${1:?usage: tests/gpu/capture_test.sh BUILD_DIR}
CLI="$BUILD/app/lowerscope-cli"
"$BUILD/app/lowerscope-runner" --info >/dev/null 2>&1
rc=$?
if [ "$rc" = 3 ] || [ "$rc" = 4 ]; then echo "SKIP: no CUDA driver or device"; exit 77; fi
NVCC=${LOWERSCOPE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

"$NVCC" -O2 -lineinfo -arch=native -o "$out/capture_program" tests/gpu/capture_program.cu || {
    echo "FAIL: nvcc could not build capture_program"; exit 1; }

echo "== capture of a C++ program"
"$CLI" capture -o "$out/cpp/capture.json" -- "$out/capture_program" || { echo "FAIL: capture exited $?"; fail=1; }
python3 - "$out/cpp/capture.json" <<'PY' || fail=1
import json, os, sys
d = json.load(open(sys.argv[1]))
folder = os.path.dirname(sys.argv[1])
k = {x["demangled"]: x for x in d["kernels"]}
print("kernels:", {n: x["count"] for n, x in k.items()})
ok = True
def want(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
want(k.get("scale(float*, float, int)", {}).get("count") == 5, "scale launched 5 times")
want(k.get("add_one(float*, int)", {}).get("count") == 3, "add_one launched 3 times")
want(all(x["median_ns"] > 0 and x["total_ns"] > 0 for x in d["kernels"]), "positive durations")
want(abs(sum(x["share"] for x in d["kernels"]) - 1) < 1e-6, "shares add up to 1")
want([x["total_ns"] for x in d["kernels"]] == sorted((x["total_ns"] for x in d["kernels"]), reverse=True),
     "sorted by total")
add = [l for l in d["launches"] if d["kernels"][l["kernel"]]["demangled"].startswith("add_one")]
want(len(add) == 3 and all(l["dynamic_smem"] == 64 and l["block"] == [128, 1, 1] for l in add),
     "add_one launches with 64 B of dynamic shared memory, blocks of 128")
want(d["devices"] and d["devices"][0]["name"], "the device is named")
mods = [m for m in d["modules"] if "_Z5scalePffi" in m["kernels"]]
want(len(mods) == 1 and os.path.isfile(os.path.join(folder, mods[0]["file"])), "scale's cubin saved")
want(d["exit"]["code"] == 0 and all(p["flushed"] for p in d["processes"]), "exit 0, records flushed")
sys.exit(0 if ok else 1)
PY
"$CLI" inspect "$out/cpp/capture.json" --kernel scale --json "$out/cpp/scale.json" || { echo "FAIL: inspect of the capture"; fail=1; }
python3 - "$out/cpp/scale.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernels"][0]
ok = k["mangled"] == "_Z5scalePffi" and len(k["sass"]["instructions"]) > 0
lines = [l for l in k["lines"] if l["file"].endswith("capture_program.cu")]
print(f"inspect: {len(k['sass']['instructions'])} SASS instructions, {len(lines)} source lines of capture_program.cu")
ok = ok and len(lines) > 0
print("inspect of the C++ capture:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY

echo "== capture of python3 calling a kernel through ctypes"
"$CLI" capture -o "$out/py/capture.json" -- python3 tests/gpu/capture_ctypes.py || { echo "FAIL: capture exited $?"; fail=1; }
python3 - "$out/py/capture.json" <<'PY' || fail=1
import json, os, sys
d = json.load(open(sys.argv[1]))
k = {x["name"]: x for x in d["kernels"]}
print("kernels:", {n: x["count"] for n, x in k.items()})
ok = k.get("fill", {}).get("count") == 4 and k["fill"]["modules"] != []
ok = ok and d["program"] == "python3"
print("python capture:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
"$CLI" inspect "$out/py/capture.json" --kernel fill --json "$out/py/fill.json" 2>"$out/py/inspect.err" || {
    echo "FAIL: inspect of the python capture"; cat "$out/py/inspect.err"; fail=1; }
grep -q '"fill"' "$out/py/fill.json" 2>/dev/null || { echo "FAIL: fill not in the inspect document"; fail=1; }

[ "$fail" = 0 ] && echo "gpu_capture: PASS" || echo "gpu_capture: FAIL"
exit $fail
