#pragma once
// `--cluster slurm ...` (issue 32): compare and experiment --vary measured on a Slurm cluster
// (core/run/slurm.h). Builds stay local; every group is one runner request carried in the job
// array's batch script. A group is a GPU type (`--on` features, else one) × a repetition
// (`--repeat`): the points that are compared with each other (A and B, every point of a series)
// are always in one request, measured interleaved on one GPU, as locally.
#include "core/run/measurement.h"
#include "core/run/slurm.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace lowerscope::cli {

struct LaunchArgs;

struct ClusterArgs {
    std::string cluster;            // "" = measure locally; "slurm"
    std::string partition, gres, constraint, account, timeLimit;
    int maxTasks = 0;               // array elements at once (0 = no limit)
    int maxAttempts = 3;            // per group: the first try and the retries
    std::string on;                 // --on 'h100,a100': one group per type (its --constraint)
    int repeat = 1;                 // --repeat R: R groups per type
    std::string dir;                // --cluster-dir: the state folder ("" = next to the output)
    double pollS = 0.5;             // --cluster-poll: squeue interval
};

// The flags above (compare and experiment).
void addClusterFlags(CLI::App& cmd, ClusterArgs& c);

struct ClusterGroup {
    std::string type;   // the --on feature ("" = none)
    int repetition = 1; // 1-based
    std::string label;  // "h100", "h100-r2", "r2", "" (one group)
};

// The groups the flags ask for, after checking every value that reaches sbatch's argv (a plain
// name, a time, a gres or a constraint expression). Throws CliFailure (2).
std::vector<ClusterGroup> clusterGroups(const ClusterArgs& c);

// The state folder: --cluster-dir, else `output` + ".slurm" (absolute). Throws CliFailure (2) when
// both are empty.
std::string clusterStateDir(const ClusterArgs& c, const std::string& output);

struct ClusterRecord {
    ClusterGroup group;
    MeasurementRecord record; // error set when the group failed (or was cancelled)
    SlurmTaskStatus status;   // job id, node, attempts, resumed
};

// Measures `sides` once per group on the cluster, interleaved in one request each, with the
// launch flags' settings; per-task progress lines go to stderr. Never throws for a group's failure
// (its record's error says why); throws CliFailure (2) for bad flags.
// `regions` (a replayed captured launch, core/capture/replay.h) go into every request, and the
// node's runner then runs with --fixed-addresses.
std::vector<ClusterRecord> measureOnCluster(const std::vector<PreparedSide>& sides, const LaunchArgs& a,
                                            const std::string& stateDir, const std::vector<MemoryRegion>& regions = {});

// "device, SM clock, driver, node, job" rows of a side-by-side Markdown table, one column per
// landed group (the header row included), and a line per failed group.
std::string clusterColumnsMarkdown(const std::vector<ClusterRecord>& groups, const std::vector<std::string>& extraRowNames,
                                   const std::vector<std::vector<std::string>>& extraRows);

} // namespace lowerscope::cli
