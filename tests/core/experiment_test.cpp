// End-to-end: `lowerscope-cli experiment --from-json` on compare documents measured on a GPU
// (tests/data/run/*.compare.json, H200, see docs/examples/): the session it saves loads back with
// the measurement and a card filled from the numbers, and the report carries the verdict.
#include "core/build/process.h"
#include "core/experiment/report.h"
#include "core/experiment/experiment_session.h"
#include "core/run/measurement.h"
#include "core/build/toolchain.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;

namespace {

// Runs the CLI in the source tree: the documents name their kernels relative to it.
ProcessResult cli(std::vector<std::string> args, const fs::path& cache) {
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.workingDir = LOWERSCOPE_SOURCE_DIR;
    spec.env = {{"LOWERSCOPE_CACHE_DIR", cache.string()}};
    spec.timeout = std::chrono::seconds(300);
    return runProcess(spec);
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path data(const char* name) { return fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data/run" / name; }

} // namespace

TEST(Experiment, FromJsonWritesSessionAndReport) {
    ScratchDir s;
    const std::string out = (s.dir / "ffma").string();
    ProcessResult r = cli({"experiment", "--from-json", data("compare.json").string(), "--out", out, "--no-diff",
                           "--hypothesis", "independent chains hide the FFMA latency"},
                          s.dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.describe() << "\n" << r.stderrText;

    const ExperimentSession session = loadSession(out + ".lowerscope");
    EXPECT_EQ(session.source.name, "kernels/ffma_chain.cu");
    EXPECT_NE(session.source.text.find("ffma_dependent"), std::string::npos);
    EXPECT_EQ(session.a.kernel, "ffma_dependent");
    ASSERT_TRUE(session.hasB);
    EXPECT_EQ(session.b.kernel, "ffma_independent");
    EXPECT_EQ(session.launch.block, std::vector<std::string>{"32"});  // from the sidecar
    ASSERT_EQ(session.measurements.size(), 1u);
    EXPECT_EQ(session.card.hypothesis, "independent chains hide the FFMA latency");

    // The card's result is the document's own numbers and verdict.
    const nlohmann::json doc = nlohmann::json::parse(readFile(data("compare.json")));
    const std::string verdict = doc["ratio"]["verdict"].get<std::string>();
    EXPECT_NE(session.card.result.find("verdict: " + verdict), std::string::npos) << session.card.result;
    const TimingVerdict v = timingVerdict(readMeasurement(session.measurements[0]).result);
    ASSERT_TRUE(v.valid);
    EXPECT_NE(session.card.result.find(v.sentence), std::string::npos);
    EXPECT_NE(session.card.measurement.find(doc["a"]["device"]["name"].get<std::string>()), std::string::npos);

    const std::string md = readFile(out + ".md");
    EXPECT_NE(md.find("**Verdict:** " + v.sentence), std::string::npos);
    EXPECT_NE(md.find("independent chains hide the FFMA latency"), std::string::npos);
    EXPECT_EQ(md.find("](/"), std::string::npos);  // no absolute links
    EXPECT_EQ(md.find("## SASS diff"), std::string::npos); // --no-diff
}

TEST(Experiment, FromJsonWithSassDiff) {
    if (!discoverToolchain().nvcc.found() || !discoverToolchain().nvdisasm.found()) GTEST_SKIP() << "no nvcc/nvdisasm";
    ScratchDir s;
    const std::string out = (s.dir / "fm").string();
    ProcessResult r = cli({"experiment", "--from-json", data("fast_math.compare.json").string(), "--out", out},
                          s.dir / "cache");
    ASSERT_EQ(r.exitCode, 0) << r.describe() << "\n" << r.stderrText;
    const ExperimentSession session = loadSession(out + ".lowerscope");
    EXPECT_TRUE(session.b.options.fastMath);
    EXPECT_FALSE(session.a.options.fastMath);
    const std::string md = readFile(out + ".md");
    EXPECT_NE(md.find("## SASS diff"), std::string::npos);
    EXPECT_NE(md.find("MUFU"), std::string::npos);  // fast math's approximations appear in B
    // Line info names the file as the session does, never this machine's absolute path.
    EXPECT_NE(md.find("| kernels/fast_math.cu:"), std::string::npos);
    EXPECT_EQ(md.find(LOWERSCOPE_SOURCE_DIR), std::string::npos);
    EXPECT_NE(md.find("**Verdict:**"), std::string::npos);
}

TEST(Experiment, BadInputIsAUsageError) {
    ScratchDir s;
    const fs::path bad = s.dir / "run.json";
    std::ofstream(bad) << R"({"schema": "lowerscope.run/1"})";
    ProcessResult r = cli({"experiment", "--from-json", bad.string(), "--out", (s.dir / "x").string()}, s.dir / "cache");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("not a lowerscope.compare/1"), std::string::npos) << r.stderrText;
    std::ofstream(bad) << R"({"schema": "lowerscope.compare/1", "a": {"file": 3}, "b": {}, "ratio": {}, "tolerance": {}})";
    r = cli({"experiment", "--from-json", bad.string(), "--out", (s.dir / "x").string()}, s.dir / "cache");
    EXPECT_EQ(r.exitCode, 2) << r.stderrText;
    EXPECT_FALSE(fs::exists(s.dir / "x.lowerscope"));
    r = cli({"experiment", "--out", (s.dir / "x").string()}, s.dir / "cache");
    EXPECT_EQ(r.exitCode, 2);
}
