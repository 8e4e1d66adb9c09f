// The join of recorded H200 profiles (tests/data/profile/h200_<kernel>.runner.json) onto the golden
// SASS listings of the same kernels (tests/data/sm_90), checked against Nsight Compute's Source page
// for the same build and launch (h200_<kernel>.ncu_source.csv): every profiled offset lands on the
// instruction ncu shows at that address (same opcode) with ncu's instructions executed; per-line
// sums add up to the kernel; a profile of another build or function is refused (issue 14 item 2).
#include "ncu_csv.h"
#include "analysis_util.h"
#include "core/run/profile_document.h"
#include "core/run/profile_join.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <cmath>
#include <sstream>

using namespace lowerscope;
using namespace lowerscope::testutil;

namespace {

struct Recorded {
    ProfileData instructions, samples;
};

Recorded loadRecorded(const std::string& kernel) {
    auto j = nlohmann::json::parse(readFile(dataDir() / "profile" / ("h200_" + kernel + ".runner.json")));
    Recorded r;
    fromJson(j.at("collections").at("instructions").at("profile"), r.instructions);
    // sgemm_tiled and ffma_independent got no PC samples in that recording (README there): their
    // samples collection is an error, and the join works from the counts alone.
    const auto& samples = j.at("collections").at("samples");
    if (samples.contains("profile")) {
        fromJson(samples.at("profile"), r.samples);
    }
    return r;
}


struct NcuRow {
    uint64_t offset = 0;
    std::string opcode; // first token after an optional guard, e.g. "LDG.E"
    uint64_t executed = 0;
};

std::vector<NcuRow> loadNcuSource(const std::string& kernel) {
    std::istringstream in(readFile(dataDir() / "profile" / ("h200_" + kernel + ".ncu_source.csv")));
    std::string line;
    std::vector<std::string> header;
    std::vector<NcuRow> rows;
    uint64_t first = 0;
    while (std::getline(in, line)) {
        auto f = csvFields(line);
        if (!f.empty() && f[0] == "Address") {
            header = f;
            continue;
        }
        if (header.empty() || f.size() < header.size()) {
            continue;
        }
        auto col = [&](const char* name) {
            auto it = std::find(header.begin(), header.end(), name);
            return it == header.end() ? std::string() : f[static_cast<size_t>(it - header.begin())];
        };
        const uint64_t address = std::stoull(col("Address"), nullptr, 16);
        if (rows.empty()) {
            first = address;
        }
        std::istringstream text(col("Source"));
        std::string op;
        text >> op;
        if (!op.empty() && op[0] == '@') {
            text >> op;
        }
        rows.push_back({address - first, op, std::stoull(col("Instructions Executed"))});
    }
    return rows;
}

const SassFunction& functionNamed(const SassListing& l, const std::string& mangled) {
    for (const auto& f : l.functions) {
        if (f.name == mangled) {
            return f;
        }
    }
    throw std::runtime_error("no function " + mangled);
}

class ProfileJoinRecorded : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(ProfileJoinRecorded, CountsLandOnNcusInstructionsAndLinesAddUp) {
    const auto& [golden, kernel] = GetParam();
    const Recorded r = loadRecorded(kernel);
    const SassListing listing = loadGolden("sm_90", golden);
    const SassFunction& f = functionNamed(listing, r.instructions.function);
    const ProfileJoin join = joinProfiles(f, {&r.instructions, &r.samples});
    EXPECT_TRUE(join.unmatchedOffsets.empty()) << join.unmatchedOffsets.size() << " offsets without an instruction";
    ASSERT_EQ(join.rows.size(), f.instructions.size());

    const auto ncu = loadNcuSource(kernel);
    ASSERT_EQ(ncu.size(), f.instructions.size()) << "ncu lists every instruction of the function";
    uint64_t ncuTotal = 0;
    for (const NcuRow& n : ncu) {
        const int i = f.indexOf(static_cast<uint32_t>(n.offset));
        ASSERT_GE(i, 0) << "no instruction at offset " << n.offset;
        const auto& ins = f.instructions[static_cast<size_t>(i)];
        EXPECT_EQ(ins.opcode, n.opcode) << "offset " << n.offset;
        EXPECT_EQ(join.rows[static_cast<size_t>(i)].totals.count("smsp__sass_inst_executed"), n.executed)
            << "offset " << n.offset << " " << ins.text;
        ncuTotal += n.executed;
    }
    EXPECT_EQ(join.kernel.count("smsp__sass_inst_executed"), ncuTotal);
    EXPECT_GT(ncuTotal, 0u);

    // Every sample the profile holds is on some row, and lines add up to the kernel.
    uint64_t recordedSamples = 0;
    for (const auto& rec : r.samples.instructions) {
        ProfileTotals t;
        t.samples = rec.samples;
        recordedSamples += t.sampleTotal();
    }
    EXPECT_EQ(join.kernel.sampleTotal(), recordedSamples);
    for (auto attribution : {InlineAttribution::CallSite, InlineAttribution::Callee}) {
        const ProfileJoin byLine = joinProfiles(f, {&r.instructions, &r.samples}, attribution);
        uint64_t lines = 0, withoutLine = 0;
        int instructions = 0;
        for (const auto& l : byLine.sourceLines) {
            lines += l.totals.count("smsp__sass_inst_executed");
            instructions += l.instructions;
            EXPECT_FALSE(l.file.empty());
        }
        for (size_t i = 0; i < f.instructions.size(); ++i) {
            if (!f.instructions[i].source.valid()) {
                withoutLine += byLine.rows[i].totals.count("smsp__sass_inst_executed");
            }
        }
        EXPECT_EQ(lines + withoutLine, ncuTotal);
        EXPECT_LE(instructions, static_cast<int>(f.instructions.size()));
        EXPECT_FALSE(byLine.sourceLines.empty()) << "the golden build has -lineinfo";
        uint64_t ptx = 0;
        for (const auto& l : byLine.ptxLines) {
            ptx += l.totals.count("smsp__sass_inst_executed");
            EXPECT_TRUE(l.file.empty());
        }
        EXPECT_LE(ptx, ncuTotal);
        EXPECT_FALSE(byLine.ptxLines.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(H200, ProfileJoinRecorded,
                         ::testing::Values(std::make_pair("saxpy", "saxpy"), std::make_pair("reduction", "reduce_sum"),
                                           std::make_pair("sgemm_tiled", "sgemm_tiled"),
                                           std::make_pair("ffma_chain", "ffma_independent")),
                         [](const auto& info) { return info.param.second; });

TEST(ProfileJoin, AnotherBuildOrFunctionIsRefused) {
    ProfileData p;
    p.collection = ProfileCollection::Instructions;
    p.cubinDigest = "c26dd0ee46f5dc0e";
    p.function = "_Z5saxpyifPKfPf";
    EXPECT_FALSE(profileMismatch(p, "c26dd0ee46f5dc0e", "_Z5saxpyifPKfPf"));
    auto other = profileMismatch(p, "0123456789abcdef", "_Z5saxpyifPKfPf");
    ASSERT_TRUE(other);
    EXPECT_NE(other->find("another build"), std::string::npos) << *other;
    auto fn = profileMismatch(p, "c26dd0ee46f5dc0e", "_Z3foov");
    ASSERT_TRUE(fn);
    EXPECT_NE(fn->find("_Z3foov"), std::string::npos) << *fn;
    p.cubinDigest.clear();
    EXPECT_TRUE(profileMismatch(p, "c26dd0ee46f5dc0e", "_Z5saxpyifPKfPf"));
}

TEST(ProfileJoin, OffsetsWithoutAnInstructionAreReportedNotDropped) {
    SassFunction f;
    f.name = "k";
    f.instructions.resize(2);
    f.instructions[0].address = 0;
    f.instructions[1].address = 16;
    ProfileData p;
    p.collection = ProfileCollection::Instructions;
    p.instructions = {{0, {{"smsp__sass_inst_executed", 5}}, {}}, {8, {{"smsp__sass_inst_executed", 7}}, {}},
                      {16, {{"smsp__sass_inst_executed", 3}}, {}}};
    ProfileJoin j = joinProfiles(f, {&p});
    EXPECT_EQ(j.unmatchedOffsets, std::vector<uint64_t>{8});
    EXPECT_EQ(j.rows[0].totals.count("smsp__sass_inst_executed"), 5u);
    EXPECT_EQ(j.rows[1].totals.count("smsp__sass_inst_executed"), 3u);
    EXPECT_EQ(j.kernel.count("smsp__sass_inst_executed"), 8u);
    // A kernel-metrics profile carries no rows and is ignored.
    ProfileData k;
    k.collection = ProfileCollection::Kernel;
    k.instructions = {{0, {{"smsp__sass_inst_executed", 100}}, {}}};
    EXPECT_EQ(joinProfiles(f, {&k}).kernel.count("smsp__sass_inst_executed"), 0u);
}

TEST(ProfileJoin, NotIssuedSubsetsAreNotCountedTwice) {
    ProfileTotals t;
    t.samples = {{"long_scoreboard", 10}, {"long_scoreboard_not_issued", 8}, {"selected", 3}};
    EXPECT_EQ(t.sampleTotal(), 13u);
    // Most first, the subsets left out; ties in name order.
    t.samples["wait"] = 3;
    EXPECT_EQ(stallReasons(t), (std::vector<std::pair<std::string, uint64_t>>{
                                   {"long_scoreboard", 10}, {"selected", 3}, {"wait", 3}}));
}

TEST(ProfileJoin, CountsAreFormattedForReading) {
    EXPECT_EQ(formatCount(9000), "9000");
    EXPECT_EQ(formatCount(524288), "524.3k");
    EXPECT_EQ(formatCount(138412032), "138.41M");
    EXPECT_EQ(formatCount(1234567890), "1.23G");
}

} // namespace

// lowerscope.profile/1 read back (core/run/profile_document.h): the H200 document kept beside the
// FFMA write-up, and what an untrusted document may not do.
TEST(ProfileDocument, TheRecordedDocumentReadsBack) {
    const std::string text =
        readFile(std::filesystem::path(LOWERSCOPE_SOURCE_DIR) / "docs/examples/ffma_chain.ffma_independent.profile.json");
    const ProfileDocument d = readProfileDocument(text);
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(d.kernel, "_Z16ffma_independentPfiff");
    EXPECT_EQ(d.cubinDigest, j["cubin_digest"].get<std::string>());
    EXPECT_EQ(d.metrics.size(), j["metrics"].size());
    size_t profiled = 0;
    uint64_t executed = 0;
    for (const auto& r : j["instructions"]) {
        profiled += r["profiled"].get<bool>() ? 1 : 0;
        executed += r["counts"].value("smsp__sass_inst_executed", uint64_t{0});
    }
    EXPECT_EQ(d.rows.instructions.size(), profiled);
    uint64_t sum = 0;
    for (const auto& r : d.rows.instructions) sum += r.counts.count("smsp__sass_inst_executed") ? r.counts.at("smsp__sass_inst_executed") : 0;
    EXPECT_EQ(sum, executed);
    EXPECT_EQ(sum, j["kernel_totals"]["counts"]["smsp__sass_inst_executed"].get<uint64_t>());
    // Shown on another build, the refusal says which build the profile was taken for (issue 35
    // item 6).
    EXPECT_EQ(d.arch, j["arch"].get<std::string>());
    SassFunction other;
    const auto why = profileDocumentMismatch(d, "0123456789abcdef", other, d.kernel);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("taken on a build for " + d.arch), std::string::npos) << *why;
    if (j.contains("build_options"))
        EXPECT_NE(why->find(j["build_options"].get<std::string>()), std::string::npos) << *why;
}

TEST(ProfileDocument, UntrustedDocumentsAreRefusedWithTheReason) {
    auto error = [](const std::string& text) {
        try {
            readProfileDocument(text);
        } catch (const ProfileDocumentError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error("not json").find("not a readable JSON document"), std::string::npos);
    EXPECT_NE(error(R"({"schema": "lowerscope.profile/2"})").find("newer profile document"), std::string::npos);
    EXPECT_NE(error(R"({"schema": "lowerscope.run/1"})").find("not a Lowerscope profile"), std::string::npos);
    const std::string deep = error(std::string(100, '[') + std::string(100, ']'));
    EXPECT_NE(deep.find("too deep"), std::string::npos) << deep;
    EXPECT_NE(deep.find("32"), std::string::npos) << deep;
    EXPECT_NE(error(std::string(33, '[') + std::string(33, ']')).find("too deep"), std::string::npos);
    EXPECT_NE(error(R"({"schema": "lowerscope.profile/1", "kernel": "k", "cubin_digest": "d", "instructions": 3})")
                  .find("instructions: missing or of the wrong type"),
              std::string::npos);
    EXPECT_NE(error(R"({"schema": "lowerscope.profile/1", "kernel": "k", "cubin_digest": "d",
                        "instructions": [{"address": 0, "counts": {"smsp__sass_inst_executed": -5}}]})")
                  .find("not a count"),
              std::string::npos);
    EXPECT_NE(error(R"({"schema": "lowerscope.profile/1", "kernel": "k", "cubin_digest": "d",
                        "instructions": [{"address": -16}]})")
                  .find("instructions[0].address: missing or of the wrong type"),
              std::string::npos);
}

// Issue 35 item 5: values no counter can produce are flagged at the reader's side.
TEST(ProfileMetrics, ImpossibleValuesAreFlagged) {
    EXPECT_FALSE(metricRangeProblem(ProfileMetric{"lts__t_sector_hit_rate.pct", 54.7, "percent"}));
    EXPECT_FALSE(metricRangeProblem(ProfileMetric{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 100.2, ""}));
    EXPECT_TRUE(metricRangeProblem(ProfileMetric{"lts__t_sector_hit_rate.pct", 297.5, "percent"}));
    EXPECT_TRUE(metricRangeProblem(ProfileMetric{"x.pct", 131.0, ""}));
    EXPECT_TRUE(metricRangeProblem(ProfileMetric{"dram__bytes_read.sum", -1, "byte"}));
    EXPECT_TRUE(metricRangeProblem(ProfileMetric{"gpu__time_duration.sum", std::nan(""), "nanosecond"}));
    EXPECT_FALSE(metricRangeProblem(ProfileMetric{"dram__bytes_read.sum", 1e12, "byte"}));
}
