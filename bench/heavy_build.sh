#!/usr/bin/env bash
# The issue-12 build target on one heavy kernel: a generated single kernel of more than 30,000 SASS
# instructions (scripts/gen-heavy-kernel), `lowerscope-cli build` on a cold cache against the two
# tool runs it cannot avoid, run one after the other:
#   nvcc <the CLI's own nvcc options> -cubin   and   nvdisasm -c -hex -gi -gp
# Target: cold ≤ 1.1 × tools. Numbers go to docs/PERFORMANCE.md ("Heavy kernel").
#
#   bench/heavy_build.sh [--cli PATH] [--before-cli PATH] [--lrm] [--runs N] [--arch sm_XX] [--steps N]
#
# Each round (default 3) runs, in this order so that background load hits them alike:
#   cold    lowerscope-cli build K --json OUT with an empty --cache-dir
#   tools   nvcc -cubin with the options the CLI recorded (nvcc_args), then nvdisasm -c -hex -gi -gp
#   before  (with --before-cli) another CLI build, e.g. one that still runs nvdisasm -lrm count
#   lrm     (with --lrm) `nvdisasm -c -lrm count` on the same cubin: the run the build made before
#           issue 12 moved liveness into the core (a failure, e.g. on 255 registers, is reported)
# and prints each median wall time and cold/tools. The kernel is generated into a temporary folder
# and removed afterwards. Needs python3 (the generator, reading the JSON).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
cli=""
before=""
lrm=0
runs=3
arch=sm_90
steps=3200
while [ $# -gt 0 ]; do
    case "$1" in
    --cli) cli=$2; shift 2 ;;
    --before-cli) before=$2; shift 2 ;;
    --lrm) lrm=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h | --help) sed -n 2,19p "$0"; exit 0 ;;
    *) echo "heavy_build: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$cli" ] || cli=$(newest_cli "$here")
[ -x "$cli" ] || { echo "heavy_build: no lowerscope-cli found; pass --cli PATH" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "heavy_build: --before-cli $before is not executable" >&2; exit 2; }

nvcc=${LOWERSCOPE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
nvdisasm=${LOWERSCOPE_NVDISASM:-}
if [ -z "$nvdisasm" ]; then
    if [ -x "$here/.tools/bin/nvdisasm" ]; then nvdisasm=$here/.tools/bin/nvdisasm; else nvdisasm=$(command -v nvdisasm); fi
fi
[ -x "$nvcc" ] && [ -x "$nvdisasm" ] || { echo "heavy_build: nvcc or nvdisasm not found" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernel=$tmp/heavy.cu
python3 "$here/scripts/gen-heavy-kernel" --steps "$steps" -o "$kernel"

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

cold_times=() tools_times=() before_times=() lrm_times=()
have_args=0
for r in $(seq 1 "$runs"); do
    # cold: a fresh cache folder each round.
    rm -rf "$tmp/cache" "$tmp/cold.json"
    t0=$(now)
    "$cli" build "$kernel" --arch "$arch" --cache-dir "$tmp/cache" --timeout 1200 --json "$tmp/cold.json" > /dev/null
    t1=$(now)
    cold_times+=("$(elapsed "$t0" "$t1")")
    if [ "$have_args" = 0 ]; then
        # The CLI's own nvcc options (without the pipeline's -cubin/-keep/-Xptxas -v additions),
        # one per line (none contains a newline).
        python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["nvcc_args"]))' "$tmp/cold.json" > "$tmp/nvcc_args"
        have_args=1
        instructions=$(python3 - "$tmp/cold.json" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
print(sum(len(re.findall(r'^\s*/\*[0-9a-f]{4,}\*/', k.get("sass", ""), re.M)) for k in d["kernels"]))
EOF
)
    fi
    # tools: the same nvcc options, then the one listing, serially.
    mapfile -t args < "$tmp/nvcc_args"
    t0=$(now)
    "$nvcc" "${args[@]}" -cubin "$kernel" -o "$tmp/tools.cubin"
    "$nvdisasm" -c -hex -gi -gp "$tmp/tools.cubin" > "$tmp/tools.sass"
    t1=$(now)
    tools_times+=("$(elapsed "$t0" "$t1")")
    if [ "$lrm" = 1 ]; then
        t0=$(now)
        if ! "$nvdisasm" -c -lrm count "$tmp/tools.cubin" > /dev/null 2> "$tmp/lrm.err"; then
            echo "nvdisasm -lrm count failed: $(head -c 200 "$tmp/lrm.err")"
        fi
        t1=$(now)
        lrm_times+=("$(elapsed "$t0" "$t1")")
    fi
    if [ -n "$before" ]; then
        rm -rf "$tmp/cache-before"
        t0=$(now)
        "$before" build "$kernel" --arch "$arch" --cache-dir "$tmp/cache-before" --timeout 1200 > /dev/null
        t1=$(now)
        before_times+=("$(elapsed "$t0" "$t1")")
    fi
    extra=""
    [ "$lrm" = 1 ] && extra=", lrm ${lrm_times[-1]} s"
    echo "round $r: cold ${cold_times[-1]} s, tools ${tools_times[-1]} s${extra}${before:+, before ${before_times[-1]:-} s}"
done

cold=$(printf '%s\n' "${cold_times[@]}" | median)
tools=$(printf '%s\n' "${tools_times[@]}" | median)
echo "kernel: $steps steps, $instructions SASS instructions ($arch)"
echo "median cold lowerscope-cli build: $cold s"
echo "median nvcc -cubin + nvdisasm -c -hex -gi -gp: $tools s"
echo "cold / tools: $(echo "scale=3; $cold / $tools" | bc)  (target ≤ 1.1)"
if [ "$lrm" = 1 ]; then
    l=$(printf '%s\n' "${lrm_times[@]}" | median)
    echo "median nvdisasm -c -lrm count on the same cubin: $l s (the build before issue 12 ran it beside the listing: it took between the cold figure and $(echo "$cold + $l" | bc) s, $(echo "scale=2; ($cold + $l) / $tools" | bc) × tools)"
fi
if [ -n "$before" ]; then
    b=$(printf '%s\n' "${before_times[@]}" | median)
    echo "median cold build with $before: $b s ($(echo "scale=2; $b / $tools" | bc) × tools)"
fi
