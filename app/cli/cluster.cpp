// `--cluster slurm` for compare and experiment --vary (cluster.h).
#include "app/cli/cluster.h"

#include "app/cli/compare_run.h"
#include "core/build/lifetime.h"
#include "core/run/address_ranges.h"
#include "core/build/process.h"
#include "core/untrusted.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <regex>
#include <set>

namespace lowerscope::cli {

namespace {

constexpr int kUsage = 2;

// Every value below reaches sbatch's argv as one `--flag=VALUE` word (never a shell), and the
// batch script only through shellQuote; still, only what Slurm's own syntax needs is let through.
void check(const std::string& flag, const std::string& value, const char* pattern, const char* what) {
    if (value.empty()) return;
    if (!std::regex_match(value, std::regex(pattern)))
        throw CliFailure{kUsage, flag + " '" + escapeControl(value.substr(0, 80)) + "' is not " + what};
}

} // namespace

void addClusterFlags(CLI::App& cmd, ClusterArgs& c) {
    cmd.add_option("--cluster", c.cluster,
                   "measure on a cluster: 'slurm' submits one job array (sbatch) whose elements run lowerscope-runner "
                   "(--runner: its command on the node); builds stay here")
        ->check(CLI::IsMember({"slurm"}))
        ->type_name("slurm");
    cmd.add_option("--partition", c.partition, "with --cluster: sbatch --partition")->type_name("P");
    cmd.add_option("--gres", c.gres, "with --cluster: sbatch --gres, e.g. gpu:1")->type_name("GRES");
    cmd.add_option("--constraint", c.constraint, "with --cluster: sbatch --constraint (node features)")
        ->type_name("FEATURE");
    cmd.add_option("--account", c.account, "with --cluster: sbatch --account")->type_name("A");
    cmd.add_option("--time", c.timeLimit, "with --cluster: sbatch --time, e.g. 10 or 0:30:00")->type_name("T");
    cmd.add_option("--max-tasks", c.maxTasks, "with --cluster: array elements running at once (default: no limit)")
        ->check(CLI::Range(0, 10000))
        ->type_name("N");
    cmd.add_option("--max-attempts", c.maxAttempts,
                   "with --cluster: tries per group; a group whose node failed, was preempted or timed out is "
                   "retried on another node (default 3)")
        ->check(CLI::Range(1, 20))
        ->type_name("N");
    cmd.add_option("--on", c.on,
                   "with --cluster: GPU types (node features), comma-separated: the whole measurement runs once per "
                   "type and the report puts them side by side")
        ->type_name("T1,T2");
    cmd.add_option("--repeat", c.repeat, "with --cluster: run the whole measurement R times per type (default 1)")
        ->check(CLI::Range(1, 64))
        ->type_name("R");
    cmd.add_option("--cluster-dir", c.dir,
                   "with --cluster: the state folder (batch scripts, answers, job ids; the nodes must be able to "
                   "write it); default: the output's name + .slurm. Run again with the same folder to resume")
        ->type_name("DIR");
    cmd.add_option("--cluster-poll", c.pollS, "with --cluster: squeue interval, seconds (default 0.5)")
        ->check(CLI::Range(0.05, 60.0))
        ->type_name("S");
}

std::vector<ClusterGroup> clusterGroups(const ClusterArgs& c) {
    check("--partition", c.partition, "[A-Za-z0-9_.,-]{1,128}", "a partition name (list)");
    check("--account", c.account, "[A-Za-z0-9_.-]{1,64}", "an account name");
    check("--gres", c.gres, "[A-Za-z0-9_.:,-]{1,128}", "a gres list such as gpu:1 or gpu:a100:2");
    check("--constraint", c.constraint, "[A-Za-z0-9_.:&|,*\\[\\]()-]{1,200}", "a constraint expression");
    check("--time", c.timeLimit, "[0-9]{1,6}([-:][0-9]{1,2}){0,3}", "a Slurm time (minutes, M:S, H:M:S, D-H...)");
    std::vector<std::string> types;
    if (!c.on.empty()) {
        std::set<std::string> seen;
        size_t start = 0;
        for (size_t i = 0; i <= c.on.size(); ++i) {
            if (i < c.on.size() && c.on[i] != ',') continue;
            std::string t = c.on.substr(start, i - start);
            start = i + 1;
            t.erase(0, t.find_first_not_of(' '));
            t.erase(t.find_last_not_of(' ') + 1);
            check("--on", t.empty() ? std::string(" ") : t, "[A-Za-z0-9_.-]{1,64}", "a node feature name");
            if (!seen.insert(t).second) throw CliFailure{kUsage, "--on names '" + t + "' twice"};
            types.push_back(t);
        }
        if (types.size() > 16) throw CliFailure{kUsage, "--on: at most 16 GPU types"};
    }
    if (types.empty()) types.push_back("");
    std::vector<ClusterGroup> groups;
    for (const auto& t : types)
        for (int r = 1; r <= c.repeat; ++r) {
            ClusterGroup g{t, r, t};
            if (c.repeat > 1) g.label += (t.empty() ? "" : "-") + std::string("r") + std::to_string(r);
            groups.push_back(g);
        }
    return groups;
}

std::string clusterStateDir(const ClusterArgs& c, const std::string& output) {
    const std::string d = !c.dir.empty() ? c.dir : output.empty() || output == "-" ? "" : output + ".slurm";
    if (d.empty())
        throw CliFailure{kUsage, "--cluster needs somewhere to keep its state: give --json OUT (state in OUT.slurm) "
                                 "or --cluster-dir DIR"};
    return std::filesystem::absolute(d).lexically_normal().string();
}

std::vector<ClusterRecord> measureOnCluster(const std::vector<PreparedSide>& sides, const LaunchArgs& a,
                                            const std::string& stateDir, const std::vector<MemoryRegion>& regions) {
    const ClusterArgs& c = a.cluster;
    const std::vector<ClusterGroup> groups = clusterGroups(c);
    SlurmOptions o;
    o.partition = c.partition;
    o.gres = c.gres;
    o.account = c.account;
    o.timeLimit = c.timeLimit;
    o.maxTasks = c.maxTasks;
    o.maxAttempts = c.maxAttempts;
    o.stateDir = stateDir;
    o.poll = std::chrono::milliseconds(static_cast<long long>(c.pollS * 1000));
    if (!a.runner.empty()) {
        try {
            o.nodeCommand = splitShellWords(a.runner);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{kUsage, std::string("--runner: ") + e.what()};
        }
    }
    if (!regions.empty()) {
        if (o.nodeCommand.empty()) o.nodeCommand = {"lowerscope-runner"};
        o.nodeCommand.push_back("--fixed-addresses");
        o.nodeCommand.push_back("--hold-addresses");
        o.nodeCommand.push_back(formatAddressRanges(regionAddressRanges(regions)));
    }
    MeasureSettings settings = measureSettingsOf(a);
    if (!regions.empty()) {
        settings.regions = regions;
        settings.returnOutputs = true; // the replay's memory is checked against the program's
    }
    RunRequest request = measureRequest(sides, settings);
    // On the node no client watches for silence: the runner's own watchdog stops a hung kernel.
    request.kernelTimeoutS = std::max(1.0, a.timeoutS);
    std::vector<SlurmTask> tasks;
    for (const auto& g : groups) {
        SlurmTask t;
        t.request = request;
        if (!g.type.empty()) t.constraint = c.constraint.empty() ? g.type : "(" + c.constraint + ")&" + g.type;
        t.label = g.label.empty() ? "all" : g.label;
        t.key = "r" + std::to_string(g.repetition);
        tasks.push_back(std::move(t));
    }
    o.constraint = c.constraint;
    const size_t n = tasks.size();
    auto progress = [&](size_t i, const SlurmTaskStatus& s) {
        std::string line = "slurm: [" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " +
                           escapeControl(tasks[i].label) + ": " + slurmTaskStateName(s.state);
        if (!s.jobId.empty()) line += " (job " + s.jobId + (s.node.empty() ? "" : " on " + escapeControl(s.node)) + ")";
        if (s.attempts > 1) line += ", attempt " + std::to_string(s.attempts);
        if (s.resumed) line += ", resumed";
        if (!s.message.empty() && s.state != SlurmTaskState::Done)
            line += ": " + escapeControl(s.message.substr(0, 300));
        std::fprintf(stderr, "%s\n", line.c_str());
    };
    std::vector<SlurmTaskStatus> statuses;
    const std::vector<RunOutcome> outcomes = runSlurmTasks(tasks, o, progress, nullptr, &statuses);
    std::vector<ClusterRecord> out;
    for (size_t i = 0; i < groups.size(); ++i) {
        ClusterRecord r;
        r.group = groups[i];
        r.record.atol = settings.atol;
        r.record.rtol = settings.rtol;
        for (const PreparedSide& s : sides) r.record.launches.push_back(s.launch);
        if (i < outcomes.size() && outcomes[i].ok) {
            r.record.result = outcomes[i].result;
            // An answer is untrusted: it must have one variant per side (checkResult checked it).
            if (r.record.result.variants.size() != sides.size())
                r.record.error = RunError{RunErrorKind::Protocol, "the answer has the wrong number of variants", "", 0,
                                          "", "", true};
        } else {
            r.record.error = i < outcomes.size() ? outcomes[i].error
                                                 : RunError{RunErrorKind::RunnerStart, "no outcome", "", 0, "", "", true};
            if (interruptSignal()) r.record.error->kind = RunErrorKind::Cancelled;
        }
        if (i < statuses.size()) r.status = statuses[i];
        out.push_back(std::move(r));
    }
    return out;
}

std::string clusterColumnsMarkdown(const std::vector<ClusterRecord>& groups, const std::vector<std::string>& extraRowNames,
                                   const std::vector<std::vector<std::string>>& extraRows) {
    std::vector<const ClusterRecord*> landed;
    std::string failed;
    for (const auto& g : groups) {
        if (!g.record.error) {
            landed.push_back(&g);
        } else {
            failed += "- group **" + escapeControl(g.group.label.empty() ? "all" : g.group.label) + "** failed" +
                      (g.status.jobId.empty() ? "" : " (last job " + g.status.jobId + ")") + ": " +
                      escapeControl(g.record.error->message.substr(0, 400)) + "\n";
        }
    }
    auto cell = [](std::string s) {
        s = escapeControl(s.substr(0, 120));
        for (auto& ch : s)
            if (ch == '|') ch = '/';
        return s;
    };
    std::string md = "| |";
    std::string rule = "|---|";
    for (const auto* g : landed) {
        md += " " + cell(g->group.label.empty() ? "all" : g->group.label) + " |";
        rule += "---|";
    }
    md += "\n" + rule + "\n";
    auto row = [&](const std::string& name, const std::function<std::string(const ClusterRecord&)>& f) {
        md += "| " + name + " |";
        for (const auto* g : landed) md += " " + cell(f(*g)) + " |";
        md += "\n";
    };
    char buf[64];
    row("device", [](const ClusterRecord& g) { return g.record.result.device.name; });
    row("SM clock, rated / measured (MHz)", [&](const ClusterRecord& g) {
        std::snprintf(buf, sizeof buf, "%.0f / %.0f", g.record.result.device.clockMhz, meanClockMhz(g.record, 0));
        return std::string(buf);
    });
    row("driver", [&](const ClusterRecord& g) {
        const int v = g.record.result.device.driverVersion;
        std::snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
        return std::string(buf);
    });
    row("node (job)", [](const ClusterRecord& g) {
        return g.status.node + " (" + g.status.jobId + (g.status.attempts > 1 ? ", attempt " + std::to_string(g.status.attempts) : "") + ")";
    });
    for (size_t r = 0; r < extraRowNames.size(); ++r) {
        md += "| " + cell(extraRowNames[r]) + " |";
        for (size_t gi = 0; gi < groups.size(); ++gi) {
            if (groups[gi].record.error) continue;
            md += " " + cell(r < extraRows.size() && gi < extraRows[r].size() ? extraRows[r][gi] : "") + " |";
        }
        md += "\n";
    }
    if (!failed.empty()) md += "\n" + failed;
    return md;
}

} // namespace lowerscope::cli
