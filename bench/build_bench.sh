#!/usr/bin/env bash
# Build pipeline benchmark: `lowerscope-cli build` on a cold cache vs the bare tool commands it wraps
# run one after another by a shell script, and a cache hit. Numbers go to docs/PERFORMANCE.md
# ("Build pipeline").
#
#   bench/build_bench.sh [--cli PATH] [--runs N] [--arch sm_XX] [KERNEL.cu ...]
#
# For each kernel (default: kernels/*.cu) and each of N rounds (default 5), interleaved so that
# background load hits every variant alike:
#   cold    lowerscope-cli build K --json OUT with an empty --cache-dir (builds and fills the cache)
#   serial  the exact argv the CLI recorded in its JSON "commands", replayed serially by a shell
#           script (nvcc -cubin -keep; nvdisasm -c -hex -gi -gp; cuobjdump -res-usage), outputs to
#           files
#   naive   what one would type without the pipeline's shortcuts, serially: nvcc -ptx; nvcc -cubin
#           -Xptxas -v; nvdisasm -gi; nvdisasm -gi -gp; nvdisasm -lrm count (live registers, which
#           the pipeline now computes itself); cuobjdump -res-usage
#   hit     the same CLI build again (cache hit), JSON written
# Reports the median wall time of each (ms) and cold/serial (target <= 1.05: no measurable overhead). Needs python3 (to read the JSON).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
cli=""
runs=5
arch=sm_90
kernels=()
while [ $# -gt 0 ]; do
    case "$1" in
    --cli) cli=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    -h | --help) sed -n 2,20p "$0"; exit 0 ;;
    *) kernels+=("$1"); shift ;;
    esac
done
[ -n "$cli" ] || cli=$(newest_cli "$here")
[ -x "$cli" ] || { echo "build_bench: no lowerscope-cli found; pass --cli PATH" >&2; exit 2; }
[ ${#kernels[@]} -gt 0 ] || kernels=("$here"/kernels/*.cu)

work=$(mktemp -d "${TMPDIR:-/tmp}/lowerscope-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

now_ms() { date +%s%N | awk '{printf "%.1f", $1 / 1e6}'; }
time_ms() { # runs "$@" quietly, prints "wall_ms cpu_ms" (cpu = user+sys of it and its children)
    local t0 t1 cpu
    t0=$(date +%s%N)
    /usr/bin/time -o "$work/cpu.txt" -f "%U %S" "$@" >/dev/null 2>&1 ||
        { echo "build_bench: command failed: $*" >&2; exit 1; }
    t1=$(date +%s%N)
    cpu=$(awk '{printf "%.0f", ($1 + $2) * 1000}' "$work/cpu.txt")
    awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { printf "%.1f/%s", (b - a) / 1e6, c }'
}
wall() { tr ' ' '\n' | cut -d/ -f1 | tr '\n' ' '; }
cpu() { tr ' ' '\n' | grep -v '^$' | cut -d/ -f2 | tr '\n' ' '; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'; }

echo "# build_bench: $(nproc) CPU(s), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cli: $cli, arch $arch, $runs rounds, median wall ms"
printf "%-20s %9s %9s %7s %9s %7s %7s %9s %9s %7s\n" kernel cold serial ratio naive ratio hit cold_cpu serial_cpu hit_cpu

for k in "${kernels[@]}"; do
    name=$(basename "$k")
    # The exact commands the CLI runs, from its own record, rewritten to a bench folder.
    "$cli" build "$k" --arch "$arch" --no-cache --json "$work/ref.json" >/dev/null 2>&1 ||
        { echo "build_bench: $name does not build" >&2; exit 1; }
    python3 - "$work/ref.json" "$work" <<'EOF'
import json, os, shlex, sys
ref = json.load(open(sys.argv[1]))
work = sys.argv[2]
cmds = ref["commands"]
cubin_cmd = cmds[0]["argv"]
tmp = os.path.dirname(cubin_cmd[cubin_cmd.index("-o") + 1])  # the CLI's private temp dir
out = os.path.join(work, "t")
def rewrite(argv):
    return [a.replace(tmp, out) for a in argv]
with open(os.path.join(work, "serial.sh"), "w") as f:
    f.write("set -e\nrm -rf %s\nmkdir -p %s/keep\n" % (shlex.quote(out), shlex.quote(out)))
    for i, c in enumerate(cmds):
        f.write("%s > %s/out%d.txt 2>&1\n" % (shlex.join(rewrite(c["argv"])), shlex.quote(out), i))
nvcc = cubin_cmd[0]
src = cubin_cmd[-1]
opts = cubin_cmd[1:cubin_cmd.index("-cubin")]
cubin = os.path.join(out, "k.cubin")
tools = {os.path.basename(c["argv"][0]): c["argv"][0] for c in cmds}
naive = [
    [nvcc] + opts + ["-ptx", "-o", os.path.join(out, "k.ptx"), src],
    [nvcc] + opts + ["-cubin", "-Xptxas", "-v", "-o", cubin, src],
    [tools["nvdisasm"], "-c", "-hex", "-gi", cubin],
    [tools["nvdisasm"], "-c", "-hex", "-gi", "-gp", cubin],
    [tools["nvdisasm"], "-c", "-lrm", "count", cubin],
]
if "cuobjdump" in tools:
    naive.append([tools["cuobjdump"], "-res-usage", cubin])
with open(os.path.join(work, "naive.sh"), "w") as f:
    f.write("set -e\nrm -rf %s\nmkdir -p %s\n" % (shlex.quote(out), shlex.quote(out)))
    for i, c in enumerate(naive):
        f.write("%s > %s/out%d.txt 2>&1\n" % (shlex.join(c), shlex.quote(out), i))
EOF
    cold=() serial=() naive=() hit=()
    for ((i = 0; i < runs; i++)); do
        rm -rf "$work/cache"
        cold+=("$(time_ms "$cli" build "$k" --arch "$arch" --cache-dir "$work/cache" --json "$work/out.json")")
        serial+=("$(time_ms bash "$work/serial.sh")")
        naive+=("$(time_ms bash "$work/naive.sh")")
        hit+=("$(time_ms "$cli" build "$k" --arch "$arch" --cache-dir "$work/cache" --json "$work/out.json")")
        grep -q '"cache_hit": true' "$work/out.json" || { echo "build_bench: expected a cache hit" >&2; exit 1; }
    done
    c=$(echo "${cold[*]}" | wall | median)
    s=$(echo "${serial[*]}" | wall | median)
    n=$(echo "${naive[*]}" | wall | median)
    h=$(echo "${hit[*]}" | wall | median)
    printf "%-20s %9s %9s %7s %9s %7s %7s %9s %9s %7s\n" "$name" "$c" "$s" "$(awk -v a="$c" -v b="$s" 'BEGIN{printf "%.2f", a/b}')" \
        "$n" "$(awk -v a="$c" -v b="$n" 'BEGIN{printf "%.2f", a/b}')" "$h" \
        "$(echo "${cold[*]}" | cpu | median)" "$(echo "${serial[*]}" | cpu | median)" "$(echo "${hit[*]}" | cpu | median)"
done
echo "# ratio = cold / serial (target <= 1.05) and cold / naive; hit target <= 50 ms; *_cpu = user+sys ms"
echo "# load now $(cut -d' ' -f1-3 /proc/loadavg)"
