// `--cluster slurm` against a real Slurm (issue 32): a loopback cluster (tests/cluster/slurm_loopback:
// munged, slurmctld and two slurmds on 127.0.0.1, nodes n1 with feature gpu_a and n2 with gpu_b) runs
// `experiment --vary` and `compare` through sbatch job arrays with the real lowerscope-runner on the
// fake GPU (tests/core/run_fakes/fake_gpu.cpp). Checked: the documents are those of a local run; two
// GPU types land side by side, each on its own node; a group that cannot run is reported while the
// other lands; a killed job step is retried on the other node and its answer counts once; a client
// killed mid-run and started again resumes the recorded job instead of submitting again; Ctrl-C
// cancels the job (scancel). Exits 77 (ctest skip) when the Slurm packages are not installed.
#include "core/build/process.h"
#include "fake_gpu_cli.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fcntl.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace lowerscope;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path g_dir;     // this run's folder: the cluster's state and every test's outputs
std::string g_conf; // SLURM_CONF of the loopback cluster

const std::string kLoopback = std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/cluster/slurm_loopback";
const std::string kSource = std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/examples/ffma_chains.cu";

std::string readText(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

ProcessResult tool(std::vector<std::string> argv, int timeoutS = 30) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.timeout = std::chrono::seconds(timeoutS);
    return runProcess(spec);
}

// The flags that keep a measurement short on the fake GPU.
std::vector<std::string> quick() { return {"--min-samples", "5", "--min-time", "0", "--max-time", "5"}; }

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// The CLI started in the background (the same command line runCliOnFakeGpu makes), stdout and
// stderr into files.
struct Background {
    pid_t pid = -1;
    fs::path err;
    Background(const std::vector<std::string>& args, const fs::path& cache, const fs::path& errFile,
               const std::map<std::string, std::string>& env) {
        err = errFile;
        std::vector<std::string> argv = {LOWERSCOPE_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), {"--runner", RUNNER_BIN});
        std::vector<std::string> envs;
        std::map<std::string, std::string> all = {{"LOWERSCOPE_CACHE_DIR", cache.string()},
                                                  {"LOWERSCOPE_LIBCUDA", FAKE_GPU},
                                                  {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}};
        for (const auto& [k, v] : env) all[k] = v;
        for (char** e = environ; *e; ++e) {
            const std::string s = *e;
            if (!all.count(s.substr(0, s.find('=')))) envs.push_back(s);
        }
        for (const auto& [k, v] : all) envs.push_back(k + "=" + v);
        std::vector<char*> cargv, cenv;
        for (auto& s : argv) cargv.push_back(s.data());
        cargv.push_back(nullptr);
        for (auto& s : envs) cenv.push_back(s.data());
        cenv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    // The exit status (or 128 + signal), waiting at most `seconds`; -1 when it is still running.
    int wait(int seconds) {
        for (int i = 0; i < seconds * 20; ++i) {
            int st = 0;
            if (::waitpid(pid, &st, WNOHANG) == pid) {
                pid = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return -1;
    }
    ~Background() {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
};

// The task state files of a state folder (lowerscope.slurm-task/1).
std::vector<json> taskStates(const fs::path& stateDir) {
    std::vector<json> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(stateDir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("task-", 0) == 0 && e.path().extension() == ".json") {
            try {
                out.push_back(json::parse(readText(e.path())));
            } catch (...) {
            }
        }
    }
    return out;
}

// Waits until `pred` holds (polling every 50 ms), at most `seconds`.
template <typename F>
bool waitFor(F pred, int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

// The Slurm job ids (%A) and array ids (%i) of every job this cluster knows, with their state.
std::string queue() { return tool({"squeue", "-h", "-r", "--states=all", "-o", "%A|%i|%T|%N"}).stdoutText; }

} // namespace

// One group: the documents are those of a local run (OUT.series.json, .md, .svg), measured on a node.
TEST(SlurmCluster, SeriesOnOneGroupWritesTheLocalDocuments) {
    const fs::path out = g_dir / "one";
    const ProcessResult r = testutil::runCliOnFakeGpu(
        cat({"experiment", kSource, "--vary", "--arg iters=16,64,256", "--cluster", "slurm", "--gres", "gpu:1",
             "--cluster-poll", "0.2", "-o", out.string()},
            quick()),
        g_dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const json doc = json::parse(readText(out.string() + ".series.json"));
    EXPECT_EQ(doc["schema"], "lowerscope.series/1");
    ASSERT_EQ(doc["points"].size(), 3u);
    for (const auto& p : doc["points"]) EXPECT_GE(p["samples"].size(), 5u);
    EXPECT_TRUE(fs::exists(out.string() + ".md"));
    EXPECT_TRUE(fs::exists(out.string() + ".svg"));
    // Progress per task: queued, running and done, with the job id.
    EXPECT_NE(r.stderrText.find(": queued (job "), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find(": done (job "), std::string::npos) << r.stderrText;
    const auto states = taskStates(out.string() + ".slurm");
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0]["attempts"].size(), 1u);
    EXPECT_EQ(states[0]["answer"], 0);
}

// --on gpu_a,gpu_b: the whole series once per GPU type, each on the node that has the feature, and
// the report with both side by side. A type no node has is a failed group; the others land.
TEST(SlurmCluster, TwoGpuTypesSideBySideAndAFailedGroup) {
    const fs::path out = g_dir / "types";
    const ProcessResult r = testutil::runCliOnFakeGpu(
        cat({"experiment", kSource, "--vary", "--arg iters=16,64", "--cluster", "slurm", "--on", "gpu_a,gpu_b",
             "--cluster-poll", "0.2", "-o", out.string()},
            quick()),
        g_dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    for (const char* t : {"gpu_a", "gpu_b"}) {
        const json doc = json::parse(readText(out.string() + "." + t + ".series.json"));
        ASSERT_EQ(doc["points"].size(), 2u) << t;
    }
    const std::string md = readText(out.string() + ".md");
    EXPECT_NE(md.find("| | gpu_a | gpu_b |"), std::string::npos) << md;
    EXPECT_NE(md.find("| device |"), std::string::npos) << md;
    EXPECT_NE(md.find("| driver |"), std::string::npos) << md;
    // gpu_a is n1's feature, gpu_b n2's (slurm_loopback).
    EXPECT_NE(md.find("n1 ("), std::string::npos) << md;
    EXPECT_NE(md.find("n2 ("), std::string::npos) << md;
    EXPECT_TRUE(fs::exists(out.string() + ".svg"));

    const fs::path bad = g_dir / "badtype";
    const ProcessResult f = testutil::runCliOnFakeGpu(
        cat({"experiment", kSource, "--vary", "--arg iters=16,64", "--cluster", "slurm", "--on", "gpu_a,no_such_gpu",
             "--cluster-poll", "0.2", "-o", bad.string()},
            quick()),
        g_dir / "cache");
    EXPECT_EQ(f.exitCode, 1) << f.stderrText;
    EXPECT_TRUE(fs::exists(bad.string() + ".gpu_a.series.json")) << f.stderrText;
    EXPECT_FALSE(fs::exists(bad.string() + ".no_such_gpu.series.json"));
    EXPECT_NE(readText(bad.string() + ".md").find("group **no_such_gpu** failed"), std::string::npos);
}

// compare through the cluster: one group gives the local compare document; --repeat 2 gives two
// groups, each a compare document of its own, and the index.
TEST(SlurmCluster, CompareLandsTheLocalDocument) {
    const fs::path out = g_dir / "cmp.json";
    const ProcessResult r = testutil::runCliOnFakeGpu(
        cat({"compare", kSource, "--arg", "iters=64", "--cluster", "slurm", "--cluster-poll", "0.2", "--json",
             out.string()},
            quick()),
        g_dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const json doc = json::parse(readText(out));
    EXPECT_EQ(doc["schema"], "lowerscope.compare/1") << doc.dump().substr(0, 400);
    EXPECT_TRUE(doc.contains("a") && doc.contains("b"));
    EXPECT_NE(r.stdoutText.find("B/A = "), std::string::npos) << r.stdoutText;

    const fs::path rep = g_dir / "cmp2.json";
    const ProcessResult r2 = testutil::runCliOnFakeGpu(
        cat({"compare", kSource, "--arg", "iters=64", "--cluster", "slurm", "--repeat", "2", "--cluster-poll", "0.2",
             "--json", rep.string()},
            quick()),
        g_dir / "cache");
    ASSERT_EQ(r2.exitCode, 0) << r2.stderrText;
    const json index = json::parse(readText(rep));
    EXPECT_EQ(index["schema"], "lowerscope.cluster-compare/1");
    ASSERT_EQ(index["groups"].size(), 2u);
    for (const char* g : {"r1", "r2"}) {
        const json d = json::parse(readText(rep.string() + "." + g + ".json"));
        EXPECT_EQ(d["schema"], "lowerscope.compare/1");
    }
    // Bad values never reach sbatch.
    const ProcessResult bad = testutil::runCliOnFakeGpu(
        {"compare", kSource, "--cluster", "slurm", "--partition", "gpu --wrap=id", "--json", rep.string()},
        g_dir / "cache");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("is not a partition name"), std::string::npos) << bad.stderrText;
}

#ifdef FAKE_PROGRAM
// run --from-capture --cluster slurm (issue 32 with issue 29's replay): a launch the capture saved
// (the capture tests' fake program, its memory where a runner can map it back) is replayed in a job
// array element, by the node's runner started with --fixed-addresses, and the replay reproduces
// the program's memory (the fake GPU runs add_kernel as the program does).
TEST(SlurmCluster, AReplayOfACapturedLaunchRunsOnANode) {
    const fs::path doc = g_dir / "capture" / "run.json";
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI, "capture", "-o", doc.string(), "--kernel", "add", "--launch-skip", "1",
                 "--launch-count", "1", "--save-launches", "--", FAKE_PROGRAM,
                 std::string(LOWERSCOPE_SOURCE_DIR) +
                     "/tests/data/triton/cache/GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin"};
    spec.env = {{"LOWERSCOPE_LIBCUPTI", FAKE_CUPTI}, {"LOWERSCOPE_INJECT", INJECT_LIB}, {"FAKE_DEVICE_AT", "5c0000000000"}};
    spec.timeout = std::chrono::seconds(60);
    const ProcessResult c = runProcess(spec);
    ASSERT_EQ(c.exitCode, 0) << c.stdoutText << c.stderrText;
    const fs::path out = g_dir / "replay.json";
    const ProcessResult r = testutil::runCliOnFakeGpu(
        cat({"run", "--from-capture", doc.string(), "--cluster", "slurm", "--cluster-poll", "0.2", "--json", out.string()},
            quick()),
        g_dir / "cache", {{"FAKE_ADD_KERNEL", "1"}});
    ASSERT_EQ(r.exitCode, 0) << r.stdoutText << r.stderrText;
    const json d = json::parse(readText(out));
    EXPECT_EQ(d["schema"], "lowerscope.run/1");
    EXPECT_EQ(d["replay"]["reproduced"], true) << d["replay"].dump();
    EXPECT_NE(r.stdoutText.find("the replay reproduces the program's result"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stderrText.find("slurm: [1/1]"), std::string::npos) << r.stderrText;
}
#endif

// A task's job step is killed while it runs: the task is retried on the other node (--exclude),
// and the answer of the retry is the one that counts.
TEST(SlurmCluster, AKilledStepIsRetriedOnTheOtherNode) {
    const fs::path out = g_dir / "retry";
    Background cli(cat({"experiment", kSource, "--vary", "--arg iters=16,64", "--cluster", "slurm",
                        "--cluster-poll", "0.2", "-o", out.string()},
                       {"--mode", "cold", "--min-samples", "40", "--min-time", "0", "--max-time", "30"}),
                   // 50 ms a launch: the step runs for seconds, so a loaded machine still finds
                   // and kills it before it ends (at 20 ms one run of five lost that race).
                   g_dir / "cache", g_dir / "retry.err", {{"FAKE_KERNEL_SLEEP_US", "50000"}});
    ASSERT_GT(cli.pid, 0);
    // The running element's step 0 (the runner under srun).
    std::string step;
    ASSERT_TRUE(waitFor(
        [&] {
            const std::string steps = tool({"squeue", "-h", "-s", "-o", "%i"}).stdoutText;
            std::istringstream in(steps);
            std::string line;
            while (std::getline(in, line))
                if (line.size() > 2 && line.compare(line.size() - 2, 2, ".0") == 0) step = line;
            return !step.empty();
        },
        60))
        << queue();
    const ProcessResult k = tool({"scancel", "--signal=KILL", step});
    ASSERT_TRUE(k.ok()) << k.stderrText;
    const int rc = cli.wait(120);
    const std::string err = readText(cli.err);
    ASSERT_EQ(rc, 0) << err;
    EXPECT_NE(err.find("attempt 2"), std::string::npos) << err;
    const auto states = taskStates(out.string() + ".slurm");
    ASSERT_EQ(states.size(), 1u);
    const json& s = states[0];
    ASSERT_EQ(s["attempts"].size(), 2u) << s.dump();
    EXPECT_TRUE(s["attempts"][0]["failed"].get<bool>());
    EXPECT_EQ(s["answer"], 1);
    EXPECT_NE(s["attempts"][0]["node"], s["attempts"][1]["node"]) << s.dump();
    const json doc = json::parse(readText(out.string() + ".series.json"));
    for (const auto& p : doc["points"]) EXPECT_GE(p["samples"].size(), 40u);
}

// The client is killed while its job runs; started again on the same output it tracks the recorded
// job (no second submission) and writes the documents.
TEST(SlurmCluster, AKilledClientResumesFromTheRecordedJob) {
    const fs::path out = g_dir / "resume";
    const auto args = cat({"experiment", kSource, "--vary", "--arg iters=16,64", "--cluster", "slurm",
                           "--cluster-poll", "0.2", "-o", out.string()},
                          {"--mode", "cold", "--min-samples", "40", "--min-time", "0", "--max-time", "30"});
    std::string job;
    {
        Background first(args, g_dir / "cache", g_dir / "resume1.err", {{"FAKE_KERNEL_SLEEP_US", "20000"}});
        ASSERT_GT(first.pid, 0);
        ASSERT_TRUE(waitFor(
            [&] {
                const auto st = taskStates(out.string() + ".slurm");
                if (st.size() != 1 || st[0]["attempts"].empty()) return false;
                job = st[0]["attempts"][0]["job"].get<std::string>();
                return true;
            },
            60));
        ::kill(first.pid, SIGKILL);
        EXPECT_EQ(first.wait(10), 128 + SIGKILL);
    }
    const ProcessResult r = testutil::runCliOnFakeGpu(args, g_dir / "cache", {{"FAKE_KERNEL_SLEEP_US", "20000"}});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stderrText.find("resumed"), std::string::npos) << r.stderrText;
    const auto states = taskStates(out.string() + ".slurm");
    ASSERT_EQ(states.size(), 1u);
    ASSERT_EQ(states[0]["attempts"].size(), 1u) << "submitted again: " << states[0].dump();
    EXPECT_EQ(states[0]["attempts"][0]["job"], job);
    EXPECT_EQ(states[0]["answer"], 0);
    EXPECT_TRUE(fs::exists(out.string() + ".series.json"));
    // A third run finds the answer recorded and submits nothing.
    const std::string before = queue();
    const ProcessResult again = testutil::runCliOnFakeGpu(args, g_dir / "cache");
    ASSERT_EQ(again.exitCode, 0) << again.stderrText;
    EXPECT_EQ(taskStates(out.string() + ".slurm")[0]["attempts"].size(), 1u);
    EXPECT_EQ(again.stderrText.find("queued"), std::string::npos) << again.stderrText;
}

// Ctrl-C: the client cancels its job (scancel) and exits 130.
TEST(SlurmCluster, InterruptCancelsTheJob) {
    const fs::path out = g_dir / "cancel";
    Background cli(cat({"experiment", kSource, "--vary", "--arg iters=16,64", "--cluster", "slurm",
                        "--cluster-poll", "0.2", "-o", out.string()},
                       {"--mode", "cold", "--min-samples", "400", "--min-time", "0", "--max-time", "60"}),
                   g_dir / "cache", g_dir / "cancel.err", {{"FAKE_KERNEL_SLEEP_US", "20000"}});
    ASSERT_GT(cli.pid, 0);
    std::string job;
    ASSERT_TRUE(waitFor(
        [&] {
            const auto st = taskStates(out.string() + ".slurm");
            if (st.size() != 1 || st[0]["attempts"].empty()) return false;
            job = st[0]["attempts"][0]["job"].get<std::string>();
            return queue().find("|" + job + "|RUNNING") != std::string::npos;
        },
        60))
        << queue();
    ::kill(cli.pid, SIGINT);
    EXPECT_EQ(cli.wait(30), 130) << readText(cli.err);
    EXPECT_TRUE(waitFor([&] { return queue().find("|" + job + "|CANCELLED") != std::string::npos; }, 20)) << queue();
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    g_dir = fs::temp_directory_path() / ("lowerscope-slurm-" + std::to_string(::getpid()));
    fs::create_directories(g_dir);
    const ProcessResult start = tool({kLoopback, "start", (g_dir / "cluster").string(), "2"}, 120);
    if (start.exitCode == 77) {
        std::cout << "Slurm is not installed (Debian: slurmctld slurmd munge slurm-client): skipped\n"
                  << start.stderrText;
        fs::remove_all(g_dir);
        return 77;
    }
    if (!start.ok()) {
        std::cerr << "the loopback cluster did not start: " << start.describe() << "\n" << start.stderrText;
        tool({kLoopback, "stop", (g_dir / "cluster").string()});
        return 1;
    }
    g_conf = (g_dir / "cluster" / "slurm.conf").string();
    ::setenv("SLURM_CONF", g_conf.c_str(), 1);
    const int rc = RUN_ALL_TESTS();
    const ProcessResult stop = tool({kLoopback, "stop", (g_dir / "cluster").string()});
    if (!stop.ok()) std::cerr << "stopping the cluster: " << stop.stderrText;
    if (rc == 0) fs::remove_all(g_dir);
    return rc;
}
