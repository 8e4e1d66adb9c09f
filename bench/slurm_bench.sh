#!/usr/bin/env bash
# The Slurm back end on a loopback cluster (issue 32; tests/cluster/slurm_loopback), with the real
# lowerscope-runner on the fake GPU (tests/core/run_fakes/fake_gpu.cpp) whose user kernels take a
# fixed wall time in cold mode (FAKE_KERNEL_SLEEP_US; they sleep, so several fake GPUs share one host's CPUs as
# real GPUs would).
#
#   1. Scheduling overhead per task: a small compare (A/A, 5 samples) measured locally and through
#      the cluster (one task: sbatch → squeue polling → answer read back), RUNS times each; the
#      difference of the medians is the overhead of one task from submit to result gathered.
#   2. A 64-point series (`--vary "--arg iters=1,...,64"`) with a fixed kernel time, as 4 groups
#      (`--repeat 4`: the whole series 4 times, each interleaved on one GPU), on clusters of 1, 2
#      and 4 nodes: the wall time of the whole command, build excluded (the build cache is warm).
#
# usage: bench/slurm_bench.sh BUILD_DIR [RUNS]
#   KERNEL_US: the fake kernel's wall time (default 5000), SAMPLES: samples per point (default 10),
#   POLL: the client's squeue interval in seconds (default 0.2).
# Prints a Markdown table. Needs the Debian packages slurmctld slurmd munge slurm-client.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/slurm_bench.sh BUILD_DIR [RUNS]}
RUNS=${2:-5}
KERNEL_US=${KERNEL_US:-5000}
SAMPLES=${SAMPLES:-10}
POLL=${POLL:-0.2}
CLI="$BUILD/app/lowerscope-cli"
RUNNER="$BUILD/app/lowerscope-runner"
FAKE="$BUILD/tests/core/liblowerscope_fake_gpu.so"
for f in "$CLI" "$RUNNER" "$FAKE"; do [ -e "$f" ] || { echo "missing $f (build lowerscope-cli lowerscope-runner lowerscope_fake_gpu)" >&2; exit 2; }; done
WORK=$(mktemp -d)
cluster="$WORK/cluster"
stop_cluster() { tests/cluster/slurm_loopback stop "$cluster" >/dev/null 2>&1 || true; }
trap 'stop_cluster; rm -rf "$WORK"' EXIT
export LOWERSCOPE_CACHE_DIR="$WORK/cache" LOWERSCOPE_LIBCUDA="$FAKE" LOWERSCOPE_LIBCUPTI="$FAKE"
SRC=docs/examples/ffma_chains.cu

start_cluster() { # NODES
    stop_cluster
    rm -rf "$cluster"
    local line
    line=$(tests/cluster/slurm_loopback start "$cluster" "$1")
    export SLURM_CONF=${line#export SLURM_CONF=}
}
now() { date +%s.%N; }
calc() { awk "BEGIN { print $* }"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
quick=(--min-samples 5 --min-time 0 --max-time 5 --runner "$RUNNER")

# 1. overhead per task
start_cluster 2
"$CLI" compare "$SRC" --arg iters=64 "${quick[@]}" --json "$WORK/warm.json" >/dev/null 2>&1 # the build cache
: >"$WORK/local" ; : >"$WORK/slurm"
for i in $(seq "$RUNS"); do
    t0=$(now); "$CLI" compare "$SRC" --arg iters=64 "${quick[@]}" --json "$WORK/l$i.json" >/dev/null 2>&1; t1=$(now)
    calc "$t1 - $t0" >>"$WORK/local"
    t0=$(now)
    "$CLI" compare "$SRC" --arg iters=64 "${quick[@]}" --cluster slurm --cluster-poll "$POLL" --json "$WORK/s$i.json" \
        >/dev/null 2>"$WORK/s$i.err" || { cat "$WORK/s$i.err" >&2; exit 1; }
    t1=$(now)
    calc "$t1 - $t0" >>"$WORK/slurm"
done
local_s=$(median <"$WORK/local")
slurm_s=$(median <"$WORK/slurm")
# 16 tasks at once on 2 nodes: the overhead shared by a batch.
t0=$(now)
"$CLI" compare "$SRC" --arg iters=64 "${quick[@]}" --cluster slurm --cluster-poll "$POLL" --repeat 16 \
    --json "$WORK/r16.json" >/dev/null 2>"$WORK/r16.err" || { cat "$WORK/r16.err" >&2; exit 1; }
t1=$(now)
batch_s=$(calc "$t1 - $t0")

# 2. a 64-point series, 4 groups, on 1, 2 and 4 nodes
values=$(seq -s, 1 64)
series=(experiment "$SRC" --vary "--arg iters=$values" --mode cold --min-samples "$SAMPLES" --min-time 0 --max-time 60
    --runner "$RUNNER" --cluster slurm --cluster-poll "$POLL" --repeat 4)
declare -A wall
for n in 1 2 4; do
    start_cluster "$n"
    rm -rf "$WORK/series$n"*
    t0=$(now)
    FAKE_KERNEL_SLEEP_US=$KERNEL_US "$CLI" "${series[@]}" -o "$WORK/series$n" >/dev/null 2>"$WORK/series$n.err" ||
        { cat "$WORK/series$n.err" >&2; exit 1; }
    t1=$(now)
    wall[$n]=$(calc "$t1 - $t0")
done
# The same series once, locally (one group, no cluster): what one group costs on its own.
t0=$(now)
FAKE_KERNEL_SLEEP_US=$KERNEL_US "$CLI" experiment "$SRC" --vary "--arg iters=$values" --mode cold --min-samples "$SAMPLES" \
    --min-time 0 --max-time 60 --runner "$RUNNER" -o "$WORK/local64" >/dev/null 2>&1
t1=$(now)
local64=$(calc "$t1 - $t0")

printf '| what | seconds |\n|---|---|\n'
printf '| compare A/A, local (median of %d) | %.2f |\n' "$RUNS" "$local_s"
printf '| same through the loopback Slurm, 1 task (median of %d) | %.2f |\n' "$RUNS" "$slurm_s"
printf '| **overhead per task, submit → gathered** | **%.2f** |\n' "$(calc "$slurm_s - $local_s")"
printf '| 16 tasks (`--repeat 16`) on 2 nodes, whole command | %.2f |\n' "$batch_s"
printf '| 64-point series, kernel %d µs, %d samples/point, one group, local | %.2f |\n' "$KERNEL_US" "$SAMPLES" "$local64"
for n in 1 2 4; do
    printf '| same series × 4 groups (`--repeat 4`), %d node(s) | %.2f |\n' "$n" "${wall[$n]}"
done
printf '| **speed-up, 4 nodes vs 1** | **%.2f×** |\n' "$(calc "${wall[1]} / ${wall[4]}")"
