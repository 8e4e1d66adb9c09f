// Profiles of captured launches in the core (core/capture/capture_metrics.h, issue 29): what
// `capture --metrics` and the GUI's metrics share. End to end without a GPU: runCapture (in this
// process) starts the fake program (capture_fakes/fake_cuda_program.cpp) under the real injection
// library and a fake CUPTI, with its memory where the runner can map it back (FAKE_DEVICE_AT), its
// add_kernel launches saved; profileCapturedLaunches then replays them through the real runner,
// started by replayRunnerConfig's rule (--fixed-addresses), on the fake GPU and CUPTI
// (run_fakes/fake_gpu.cpp), and writes STEM.launches/ID/profile.json. Also what can go wrong: a
// capture that cannot be read, one without saved launches, a launch whose memory is gone, a runner
// that cannot start, cancel before and during; the program's output handed to the caller
// (CaptureSpec::output) and kept bounded and escaped (OutputTail).
#include "core/bounded_json.h"
#include "core/run/buffer_data.h"
#include "core/build/toolchain.h"
#include "core/capture/capture_metrics.h"
#include "core/capture/capture_run.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

using namespace lowerscope;
using namespace lowerscope::capture;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kCubin = std::string(LOWERSCOPE_SOURCE_DIR) +
                           "/tests/data/triton/cache/GVJ5JLWJO4FI5T6C3ZJORNRNHWSRSYR6A5QVSPS2G2X3LGKK4TOA/add_kernel.cubin";

// A capture of the fake program to `doc`: add_kernel's launches after the first (`count` of
// them) saved, the memory placed where the runner can map it back. The program's output goes to
// `output` when given.
CaptureOutcome captureFake(const fs::path& doc, uint64_t count, std::function<void(std::string_view)> output = {}) {
    CaptureSpec spec;
    spec.argv = {FAKE_PROGRAM, kCubin};
    spec.env = {{"LOWERSCOPE_LIBCUPTI", FAKE_CUPTI}, {"FAKE_DEVICE_AT", "5b0000000000"}};
    spec.injectionLibrary = INJECT_LIB;
    spec.outputPath = doc.string();
    spec.filter.kernelRegex = "add";
    spec.filter.skip = 1;
    spec.filter.count = count;
    spec.saveLaunches = true;
    spec.timeout = std::chrono::seconds(60);
    spec.output = std::move(output);
    return runCapture(spec);
}

// The real runner on the fake GPU, started as every replay runner is (--fixed-addresses); the
// fake kernel does add_kernel's work.
RunnerConfig fakeRunnerConfig(const std::vector<AddressRange>& hold = {}) {
    RunnerConfig c;
    c.command = {RUNNER_BIN};
    c.env = {{"LOWERSCOPE_LIBCUDA", FAKE_GPU}, {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}, {"FAKE_ADD_KERNEL", "1"}};
    c.deadline = std::chrono::seconds(30);
    c.startTimeout = c.deadline;
    c.limitRequestTime = true;
    std::string error;
    EXPECT_TRUE(replayRunnerConfig(c, error, hold)) << error;
    return c;
}

// A runner that records what it is asked and answers nothing useful.
class CountingRunner : public Runner {
public:
    int devices = 0, runs = 0;
    std::atomic<bool>* cancelOnRun = nullptr; // set on the first run (a user pressing Cancel then)
    bool device(DeviceInfo& out, RunError& error) override {
        ++devices;
        out.name = "counting";
        (void)error;
        return true;
    }
    RunOutcome run(RunRequest, const RunProgressFn& = {}, std::atomic<bool>* cancel = nullptr) override {
        ++runs;
        if (cancelOnRun) cancelOnRun->store(true);
        RunOutcome o;
        o.error.kind = cancel && cancel->load() ? RunErrorKind::Cancelled : RunErrorKind::RunnerExited;
        o.error.message = "no GPU in this test";
        return o;
    }
    void stop() override {}
};

bool disassemblerFound() { return discoverToolchain().nvdisasm.found(); }

struct CacheDir {
    test::ScratchDir dir;
    CacheDir() { ::setenv("LOWERSCOPE_CACHE_DIR", (dir.dir / "cache").c_str(), 1); }
    ~CacheDir() { ::unsetenv("LOWERSCOPE_CACHE_DIR"); }
};

} // namespace

TEST(CaptureMetrics, ReplayRunnerConfigAppendsFixedAddressesToTheCommand) {
    RunnerConfig c;
    c.command = {"ssh", "host", "lowerscope-runner"};
    std::string error;
    ASSERT_TRUE(replayRunnerConfig(c, error)) << error;
    EXPECT_EQ(c.command, (std::vector<std::string>{"ssh", "host", "lowerscope-runner", "--fixed-addresses"}));

    // No command: the default runner's, then the flag.
    ::setenv("LOWERSCOPE_RUNNER", "/opt/x/lowerscope-runner --verbose", 1);
    RunnerConfig d;
    ASSERT_TRUE(replayRunnerConfig(d, error)) << error;
    EXPECT_EQ(d.command, (std::vector<std::string>{"/opt/x/lowerscope-runner", "--verbose", "--fixed-addresses"}));

    // The captured memory's ranges to hold from the start, after the flag.
    RunnerConfig h;
    h.command = {"lowerscope-runner"};
    ASSERT_TRUE(replayRunnerConfig(h, error, {{0x7ffdd8800000, 0x7ffdd8a00000}})) << error;
    EXPECT_EQ(h.command, (std::vector<std::string>{"lowerscope-runner", "--fixed-addresses", "--hold-addresses",
                                                   "0x7ffdd8800000+2097152"}));

    // A default that cannot be split: no command, and why.
    ::setenv("LOWERSCOPE_RUNNER", "runner 'unclosed", 1);
    RunnerConfig e;
    error.clear();
    EXPECT_FALSE(replayRunnerConfig(e, error));
    EXPECT_TRUE(e.command.empty());
    EXPECT_FALSE(error.empty());
    ::unsetenv("LOWERSCOPE_RUNNER");
}

TEST(CaptureMetrics, TheProfilePathIsBesideTheSavedMemory) {
    EXPECT_EQ(capturedProfilePath("out/run.json", "12-3"), "out/run.launches/12-3/profile.json");
    EXPECT_EQ(capturedProfilePath("/a/b/app.capture.json", "1-9"), "/a/b/app.capture.launches/1-9/profile.json");
}

TEST(CaptureMetrics, ACaptureThatCannotBeReadIsSaidAndNothingRuns) {
    test::ScratchDir dir;
    CountingRunner runner;
    CapturedProfiles r = profileCapturedLaunches((dir.dir / "missing.json").string(), {}, runner);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("missing.json"), std::string::npos) << r.error;
    EXPECT_TRUE(r.launches.empty());

    // Not a capture's snapshots: a bad entry is refused, naming it.
    std::ofstream(dir.dir / "bad.json") << R"({"schema": "lowerscope.capture/1", "snapshots": [{"id": "1-2", "pid": "x"}]})";
    r = profileCapturedLaunches((dir.dir / "bad.json").string(), {}, runner);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(runner.devices + runner.runs, 0);
}

TEST(CaptureMetrics, ACaptureWithoutSavedLaunchesProfilesNothing) {
    test::ScratchDir dir;
    const fs::path doc = dir.dir / "plain.json";
    CaptureSpec spec;
    spec.argv = {FAKE_PROGRAM, kCubin};
    spec.env = {{"LOWERSCOPE_LIBCUPTI", FAKE_CUPTI}};
    spec.injectionLibrary = INJECT_LIB;
    spec.outputPath = doc.string();
    spec.output = [](std::string_view) {};
    const CaptureOutcome o = runCapture(spec);
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_GT(o.summary.launchTotal, 0u);
    CountingRunner runner;
    int stages = 0;
    const CapturedProfiles r = profileCapturedLaunches(doc.string(), {}, runner,
                                                       [&](const std::string&, const std::string&) { ++stages; });
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.launches.empty());
    EXPECT_EQ(stages, 0);
    EXPECT_EQ(runner.devices + runner.runs, 0);
}

// The program's stdout and stderr reach the caller, not the terminal, in the order written.
TEST(CaptureMetrics, TheProgramsOutputGoesToTheCallback) {
    test::ScratchDir dir;
    std::string seen;
    const CaptureOutcome o = captureFake(dir.dir / "run.json", 1, [&](std::string_view b) { seen.append(b); });
    ASSERT_TRUE(o.ok) << o.error;
    // The fake program says how it ran on stdout (as test_capture_cli reads it from the CLI's).
    EXPECT_NE(seen.find("address randomisation off"), std::string::npos) << seen;

    // A shell script: stdout and stderr interleaved as written, stdin empty, a large output read
    // to the end without blocking the program.
    const fs::path script = dir.dir / "talk.sh";
    std::ofstream(script) << "#!/bin/sh\necho one\necho two >&2\nread x || echo stdin-empty\n"
                             "head -c 3000000 /dev/zero | tr '\\0' 'a'\necho\necho last\n";
    fs::permissions(script, fs::perms::owner_all);
    CaptureSpec spec;
    spec.argv = {script.string()};
    spec.injectionLibrary = INJECT_LIB; // loaded by nothing: no CUDA here
    spec.outputPath = (dir.dir / "talk.json").string();
    spec.timeout = std::chrono::seconds(60);
    std::string all;
    OutputTail tail(10, 4096);
    spec.output = [&](std::string_view b) {
        all.append(b);
        tail.append(b);
    };
    const CaptureOutcome t = runCapture(spec);
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_EQ(t.run.exitCode, 0);
    EXPECT_EQ(all.rfind("one\ntwo\nstdin-empty\n", 0), 0u) << all.substr(0, 100);
    EXPECT_EQ(all.size(), std::string("one\ntwo\nstdin-empty\n").size() + 3000000 + 1 + 5);
    EXPECT_EQ(all.substr(all.size() - 6), "\nlast\n");
    EXPECT_EQ(tail.receivedBytes(), all.size());
    const std::string shown = tail.text();
    EXPECT_LE(shown.size(), 4096u + 10);
    EXPECT_EQ(shown.substr(shown.size() - 5), "\nlast") << shown.substr(shown.size() - 40);
}

TEST(CaptureMetrics, OutputTailIsBoundedAndEscaped) {
    OutputTail t(3, 1024);
    t.append("a\nb\nc\n");
    EXPECT_EQ(t.text(), "a\nb\nc");
    t.append("d\ne");
    EXPECT_EQ(t.text(), "c\nd\ne"); // three lines kept, then the unfinished one
    EXPECT_EQ(t.droppedLines(), 2u);

    // Control bytes and invalid UTF-8 as \xNN, tab and valid UTF-8 kept; an escape sequence meant
    // for a terminal is shown, not obeyed.
    OutputTail e(10, 1024);
    e.append("\x1b[31mred\x1b[0m\tok \xc3\xa9 \xff\x07\n");
    EXPECT_EQ(e.text(), "\\x1b[31mred\\x1b[0m\tok \xc3\xa9 \\xff\\x07");

    // "\r\n" ends a line, even split between two reads; a lone '\r' starts the line over.
    OutputTail r(10, 1024);
    r.append("10%\r20%\r");
    r.append("\nnext\r");
    r.append("x");
    EXPECT_EQ(r.text(), "20%\nx");

    // A UTF-8 character split between two reads is whole.
    OutputTail u(10, 1024);
    u.append("\xc3");
    u.append("\xa9\n");
    EXPECT_EQ(u.text(), "\xc3\xa9");

    // Bytes: old lines go first; a line that never ends is cut at the limit.
    OutputTail b(1000, 1024);
    for (int i = 0; i < 100; ++i) b.append(std::string(99, char('a' + i % 26)) + "\n");
    EXPECT_LE(b.text().size(), 1024u);
    EXPECT_EQ(b.text().substr(b.text().size() - 99), std::string(99, char('a' + 99 % 26)));
    EXPECT_EQ(b.receivedBytes(), 10000u);
    OutputTail l(10, 1024);
    l.append(std::string(100000, 'z'));
    EXPECT_LE(l.text().size(), 1024u * 2);
    l.append("\nend\n");
    EXPECT_EQ(l.text().substr(l.text().size() - 4), "\nend");
}

TEST(CaptureMetrics, CancelBeforeStartingProfilesNothingAndSaysSo) {
    test::ScratchDir dir;
    const fs::path doc = dir.dir / "out" / "run.json";
    const CaptureOutcome o = captureFake(doc, 2, [](std::string_view) {});
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.snapshots.size(), 2u);
    CountingRunner runner;
    std::atomic<bool> cancel{true};
    std::vector<std::string> done;
    const CapturedProfiles r = profileCapturedLaunches(
        doc.string(), {}, runner, [](const std::string&, const std::string&) { ADD_FAILURE() << "a stage ran"; },
        &cancel, [&](const CapturedProfile& p) { done.push_back(p.launch); });
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(done, (std::vector<std::string>{o.snapshots[0].id(), o.snapshots[1].id()}));
    for (const CapturedProfile& p : r.launches) {
        EXPECT_TRUE(p.cancelled);
        EXPECT_FALSE(p.collected);
        EXPECT_EQ(p.exitCode, 1);
        EXPECT_TRUE(p.document.empty());
        EXPECT_FALSE(fs::exists(capturedProfilePath(doc.string(), p.launch)));
    }
    EXPECT_EQ(runner.devices + runner.runs, 0);
}

// A launch whose saved memory is gone cannot be replayed: said for that launch, and the next one
// is still profiled (here by a runner that cannot run anything: its errors per collection).
TEST(CaptureMetrics, EachLaunchSaysWhatWentWrongAndTheNextIsTried) {
    if (!disassemblerFound()) GTEST_SKIP() << "nvdisasm not found (scripts/bootstrap)";
    CacheDir cache;
    test::ScratchDir dir;
    const fs::path doc = dir.dir / "out" / "run.json";
    const CaptureOutcome o = captureFake(doc, 2, [](std::string_view) {});
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.snapshots.size(), 2u);
    const fs::path gone = doc.parent_path() / o.snapshots[0].regions.at(0).before;
    ASSERT_TRUE(fs::remove(gone)) << gone;

    RunnerConfig c;
    c.command = {(dir.dir / "no-such-runner").string()};
    std::string error;
    ASSERT_TRUE(replayRunnerConfig(c, error));
    ProcessRunner runner(c);
    ProfileCollectOptions options;
    options.collections = {ProfileCollection::Kernel, ProfileCollection::Samples};
    std::vector<std::string> stages;
    const CapturedProfiles r = profileCapturedLaunches(
        doc.string(), options, runner,
        [&](const std::string& launch, const std::string& stage) { stages.push_back(launch + " " + stage); });
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.launches.size(), 2u);
    const CapturedProfile& first = r.launches[0];
    EXPECT_EQ(first.exitCode, 2);
    EXPECT_FALSE(first.collected);
    ASSERT_EQ(first.errors.size(), 1u);
    EXPECT_NE(first.errors[0].find(gone.filename().string()), std::string::npos) << first.errors[0];
    EXPECT_TRUE(first.document.empty());

    const CapturedProfile& second = r.launches[1];
    EXPECT_EQ(second.kernel, "add_kernel");
    EXPECT_TRUE(second.collected);
    EXPECT_EQ(second.exitCode, 2); // the runner cannot start: profiling is not available
    ASSERT_EQ(second.errors.size(), 2u);
    EXPECT_EQ(second.errors[0].rfind("kernel: ", 0), 0u) << second.errors[0];
    EXPECT_EQ(second.errors[1].rfind("samples: ", 0), 0u) << second.errors[1];
    EXPECT_NE(second.errors[0].find("no-such-runner"), std::string::npos) << second.errors[0];
    // What came back (nothing) is still written, with why.
    ASSERT_EQ(second.document, capturedProfilePath(doc.string(), second.launch));
    std::string why;
    const auto written = readJsonFileBounded(second.document, why);
    ASSERT_TRUE(written) << why;
    EXPECT_FALSE((*written)["collections"]["kernel"]["ok"].get<bool>());
    EXPECT_EQ((*written)["captured_launch"]["launch"], second.launch);
    // The runner never started: no collection was begun, only the two launches prepared.
    EXPECT_EQ(stages, (std::vector<std::string>{first.launch + " prepare", second.launch + " prepare"}));
}

// Cancel while a collection runs: the runner is told (it stops), the rest of that launch's
// collections and the launches after it are recorded as cancelled.
TEST(CaptureMetrics, CancelDuringACollectionStopsTheRest) {
    if (!disassemblerFound()) GTEST_SKIP() << "nvdisasm not found (scripts/bootstrap)";
    CacheDir cache;
    test::ScratchDir dir;
    const fs::path doc = dir.dir / "out" / "run.json";
    const CaptureOutcome o = captureFake(doc, 2, [](std::string_view) {});
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.snapshots.size(), 2u);
    std::atomic<bool> cancel{false};
    CountingRunner runner;
    runner.cancelOnRun = &cancel;
    const CapturedProfiles r = profileCapturedLaunches(doc.string(), {}, runner, {}, &cancel);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(runner.runs, 1); // the first collection only
    EXPECT_TRUE(r.launches[0].collected);
    EXPECT_TRUE(r.launches[0].cancelled);
    EXPECT_NE(r.launches[0].exitCode, 0);
    ASSERT_EQ(r.launches[0].errors.size(), 3u);
    EXPECT_NE(r.launches[0].errors[1].find("cancelled"), std::string::npos) << r.launches[0].errors[1];
    EXPECT_FALSE(r.launches[1].collected);
    EXPECT_TRUE(r.launches[1].cancelled);
    EXPECT_FALSE(fs::exists(capturedProfilePath(doc.string(), r.launches[1].launch)));
}

// Capture → profile end to end: every collection comes back from the replay on the fake GPU and
// is joined onto the captured cubin's SASS; the document is keyed to the captured cubin.
TEST(CaptureMetrics, SavedLaunchesAreProfiledOnTheirReplay) {
    if (!disassemblerFound()) GTEST_SKIP() << "nvdisasm not found (scripts/bootstrap)";
    CacheDir cache;
    test::ScratchDir dir;
    const fs::path doc = dir.dir / "out" / "run.json";
    const CaptureOutcome o = captureFake(doc, 1, [](std::string_view) {});
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.snapshots.size(), 1u);
    const std::string id = o.snapshots[0].id();

    // The runner holds the saved memory's ranges from its start, as `capture --metrics` starts it.
    std::vector<AddressRange> hold;
    std::string holdError;
    ASSERT_TRUE(captureAddressRanges(doc.string(), hold, holdError)) << holdError;
    EXPECT_EQ(hold, snapshotAddressRanges(o.snapshots));
    ASSERT_FALSE(hold.empty());
    ProcessRunner runner(fakeRunnerConfig(hold));
    std::vector<std::string> stages;
    int done = 0;
    const CapturedProfiles r = profileCapturedLaunches(
        doc.string(), ProfileCollectOptions{}, runner,
        [&](const std::string& launch, const std::string& stage) { stages.push_back(launch + " " + stage); }, nullptr,
        [&](const CapturedProfile& p) {
            ++done;
            EXPECT_EQ(p.launch, id);
        });
    runner.stop();
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_EQ(done, 1);
    const CapturedProfile& p = r.launches[0];
    std::string errors;
    for (const auto& e : p.errors) errors += e + "\n";
    EXPECT_EQ(p.exitCode, 0) << errors;
    EXPECT_TRUE(p.collected);
    EXPECT_FALSE(p.cancelled);
    EXPECT_EQ(stages, (std::vector<std::string>{id + " prepare", id + " kernel", id + " instructions", id + " samples"}));
    ASSERT_EQ(p.document, capturedProfilePath(doc.string(), id));
    std::string why;
    const auto d = readJsonFileBounded(p.document, why);
    ASSERT_TRUE(d) << why;
    EXPECT_EQ((*d)["schema"], "lowerscope.profile/1");
    EXPECT_EQ((*d)["kernel"], "add_kernel");
    EXPECT_EQ((*d)["build_options"], "(captured)");
    for (const char* c : {"kernel", "instructions", "samples"})
        EXPECT_TRUE((*d)["collections"][c]["ok"].get<bool>()) << c << ": " << (*d)["collections"][c].dump();
    EXPECT_EQ((*d)["captured_launch"]["launch"], id);
    EXPECT_EQ((*d)["captured_launch"]["capture"], doc.string());
    // Keyed to the captured cubin as it is saved beside the capture: what the GUI opens.
    std::ifstream in(kCubin, std::ios::binary);
    const std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ((*d)["cubin_digest"], digestHex(cubin.data(), cubin.size()));
    // What the CLI prints from: the join has the kernel's rows, with counts on them.
    EXPECT_FALSE(p.profile.join.rows.empty());
    EXPECT_FALSE(p.profile.metrics.empty());
}

// Instruction counts asked for without kernel metrics before them are preceded by one cheap
// kernel-metrics request in the same runner (profile_collect.cpp: on an H100 a count as the
// runner's first collection came back empty); with kernel metrics first, nothing is added.
namespace {
class RecordingRunner : public Runner {
public:
    std::vector<RunRequest> asked;
    bool device(DeviceInfo& out, RunError&) override {
        out.name = "recording";
        return true;
    }
    RunOutcome run(RunRequest req, const RunProgressFn& = {}, std::atomic<bool>* = nullptr) override {
        asked.push_back(std::move(req));
        RunOutcome o;
        o.error.kind = RunErrorKind::RunnerExited;
        o.error.message = "no GPU in this test";
        return o;
    }
    void stop() override {}
};
} // namespace

TEST(ProfileCollect, AnInstructionCountAloneIsPrecededByOneKernelMetric) {
    ProfileTarget t;
    t.variant.kernel = "k";
    t.variant.cubin = {1, 2, 3};
    t.mangled = "k";
    const auto kinds = [](const RecordingRunner& r) {
        std::vector<ProfileCollection> out;
        for (const RunRequest& q : r.asked) out.push_back(q.profile);
        return out;
    };
    {
        RecordingRunner r;
        ProfileCollectOptions o;
        o.collections = {ProfileCollection::Instructions};
        collectProfile(r, t, o);
        EXPECT_EQ(kinds(r), (std::vector<ProfileCollection>{ProfileCollection::Kernel, ProfileCollection::Instructions}));
        ASSERT_FALSE(r.asked.empty());
        EXPECT_EQ(r.asked[0].profileMetrics, (std::vector<std::string>{"gpu__time_duration.sum"}));
    }
    for (const auto& list : {std::vector<ProfileCollection>{ProfileCollection::Kernel, ProfileCollection::Instructions},
                             std::vector<ProfileCollection>{ProfileCollection::Samples}}) {
        RecordingRunner r;
        ProfileCollectOptions o;
        o.collections = list;
        collectProfile(r, t, o);
        EXPECT_EQ(kinds(r), list);
    }
}

