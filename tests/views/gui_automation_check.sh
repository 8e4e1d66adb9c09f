#!/bin/sh
# The GUI's scripted run as the README's screenshots use it (issue 12): --kernel picks a template
# instantiation by its name with template arguments, --frame sets the attribution, --select-sass
# clicks a SASS row whose callee line is in a header, and --dump-state shows where that landed.
# Usage: gui_automation_check.sh LOWERSCOPE LOWERSCOPE_CLI SOURCE_DIR WORK_DIR
set -eu
gui=$1 cli=$2 src=$3 work=$4
mkdir -p "$work"
cu="$src/tests/data/src/header_family.cu"
# An FFMA written on header_family_math.cuh:7, in scaled_gemm<16>: its address from the CLI.
addr=$("$cli" inspect "$cu" --kernel 'scaled_gemm<16>' --line header_family_math.cuh:7 --frame callee |
    sed -n 's|^ */\*\([0-9a-f]*\)\*/ *FFMA.*|\1|p' | head -1)
[ -n "$addr" ] || { echo "no FFMA on header_family_math.cuh:7 in scaled_gemm<16>"; exit 1; }
QT_QPA_PLATFORM=offscreen "$gui" "$cu" --kernel 'scaled_gemm< 16 >' --frame callee --select-sass "0x$addr" \
    --dump-state "$work/state.json" --quit-after-build
state=$(cat "$work/state.json")
echo "$state" | grep -q '"kernel": "void scaled_gemm<16>(' || { echo "wrong kernel: $state"; exit 1; }
echo "$state" | grep -q '"attribution": "callee"' || { echo "wrong attribution: $state"; exit 1; }
echo "$state" | grep -q "SASS $addr ← header_family_math.cuh:7" || { echo "selection not on math.cuh:7: $state"; exit 1; }
# A name no kernel has is reported; the run still completes.
QT_QPA_PLATFORM=offscreen "$gui" "$cu" --kernel 'scaled_gemm<32>' --quit-after-build 2>"$work/err.txt" || true
grep -q "no kernel named 'scaled_gemm<32>'" "$work/err.txt" || { echo "no error for an unknown kernel"; cat "$work/err.txt"; exit 1; }
# A header line selected from the command line is what --dump-state reports (issue 30 item 4: it
# wrote selectedLine 0 and no source lines although the pane showed the selection).
QT_QPA_PLATFORM=offscreen "$gui" "$cu" --kernel 'scaled_gemm<16>' --frame callee --select-line header_family_math.cuh:7 \
    --dump-state "$work/state2.json" --quit-after-build
python3 - "$work/state2.json" <<'PY' || { echo "header selection not in the dumped state: $(cat "$work/state2.json")"; exit 1; }
import json, sys
s = json.load(open(sys.argv[1]))
assert s["selectedLine"] == 7, s["selectedLine"]
assert s["selectedFile"].endswith("header_family_math.cuh"), s["selectedFile"]
assert 7 in s["highlighted"]["sourceLines"], s["highlighted"]["sourceLines"]
assert s["highlighted"]["sourceFile"].endswith("header_family_math.cuh"), s["highlighted"]["sourceFile"]
PY
echo "ok: scaled_gemm<16>, callee, SASS $addr on header_family_math.cuh:7; --select-line of a header line dumped"
