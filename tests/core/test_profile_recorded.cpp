// The profiles recorded on an H200 (tests/data/profile/, see its README) read back through the
// protocol's ProfileData, and checked against Nsight Compute's output for the same launches that
// was recorded beside them: instruction counts per SASS offset, DRAM bytes, stall-reason order.
#include "ncu_csv.h"
#include "core/run/profile_data.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace lowerscope;
using lowerscope::testutil::csvFields;
using nlohmann::json;

namespace {

std::string dataPath(const std::string& name) {
    return std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/data/profile/" + name;
}

json readJson(const std::string& name) {
    std::ifstream in(dataPath(name));
    return json::parse(in);
}


double number(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return s.empty() || s == "-" ? 0 : std::stod(s);
}

// ncu's Source page: per instruction offset (address − the function's first address), the named
// column.
std::map<uint64_t, double> ncuColumn(const std::string& file, const std::string& column) {
    std::ifstream in(dataPath(file));
    std::string line;
    std::vector<std::string> header;
    std::map<uint64_t, double> out;
    uint64_t base = 0;
    bool first = true;
    while (std::getline(in, line)) {
        auto f = csvFields(line);
        if (f.empty()) {
            continue;
        }
        if (f[0] == "Address") {
            header = f;
            continue;
        }
        if (header.empty() || f[0].rfind("0x", 0) != 0) {
            continue;
        }
        const uint64_t addr = std::stoull(f[0], nullptr, 16);
        if (first) {
            base = addr;
            first = false;
        }
        auto it = std::find(header.begin(), header.end(), column);
        if (it != header.end()) {
            out[addr - base] = number(f[static_cast<size_t>(it - header.begin())]);
        }
    }
    return out;
}

// ncu's raw metrics of the one profiled kernel.
std::map<std::string, double> ncuMetrics(const std::string& file) {
    std::ifstream in(dataPath(file));
    std::string names, units, values;
    std::getline(in, names);
    std::getline(in, units);
    std::getline(in, values);
    auto n = csvFields(names), v = csvFields(values);
    std::map<std::string, double> out;
    for (size_t i = 0; i < n.size() && i < v.size(); ++i) {
        if (n[i].find("__") != std::string::npos) {
            out[n[i]] = number(v[i]);
        }
    }
    return out;
}

ProfileData collection(const json& doc, const std::string& name) {
    ProfileData p;
    fromJson(doc.at("collections").at(name).at("profile"), p);
    return p;
}

const std::vector<std::string> kKernels = {"saxpy", "reduce_sum", "sgemm_tiled", "ffma_independent"};

TEST(ProfileRecorded, EveryCollectionReadsBackAndRoundTrips) {
    for (const auto& k : kKernels) {
        json doc = readJson("h200_" + k + ".runner.json");
        EXPECT_EQ(doc.at("schema"), "lowerscope.runner-profile/1");
        for (auto it = doc.at("collections").begin(); it != doc.at("collections").end(); ++it) {
            if (!it.value().contains("profile")) {
                // Recorded as it happened: PC sampling gave no samples for two of the kernels.
                EXPECT_EQ(it.key(), "samples") << k;
                EXPECT_NE(it.value().at("error").at("message").get<std::string>().find("no samples"),
                          std::string::npos);
                continue;
            }
            ProfileData p;
            fromJson(it.value().at("profile"), p);
            EXPECT_EQ(profileCollectionName(p.collection), it.key());
            // The stall-sample collection did not fill in the chip when these were recorded.
            EXPECT_EQ(p.chip, it.key() == "samples" ? "" : "GH100") << k << " " << it.key();
            EXPECT_EQ(p.cubinDigest.size(), 16u);
            ProfileData again;
            fromJson(toJson(p), again);
            EXPECT_EQ(again, p) << k << " " << it.key();
        }
    }
}

TEST(ProfileRecorded, InstructionCountsEqualNsightComputesPerOffset) {
    for (const auto& k : kKernels) {
        ProfileData p = collection(readJson("h200_" + k + ".runner.json"), "instructions");
        auto ncu = ncuColumn("h200_" + k + ".ncu_source.csv", "Instructions Executed");
        ASSERT_FALSE(ncu.empty()) << k;
        std::map<uint64_t, double> ours;
        for (const auto& row : p.instructions) {
            ours[row.pcOffset] = static_cast<double>(row.counts.at("smsp__sass_inst_executed"));
        }
        size_t compared = 0;
        for (const auto& [offset, count] : ncu) {
            auto it = ours.find(offset);
            // CUPTI has no record of an instruction that never ran (ncu lists it with 0).
            EXPECT_EQ(it == ours.end() ? 0.0 : it->second, count) << k << " offset " << offset;
            ++compared;
        }
        EXPECT_EQ(ours.size() <= ncu.size(), true) << k;
        EXPECT_GT(compared, 10u);
    }
}

TEST(ProfileRecorded, DramBytesReadWithinTwoPercentOfNsightCompute) {
    for (const auto& k : kKernels) {
        ProfileData p = collection(readJson("h200_" + k + ".runner.json"), "kernel");
        auto ncu = ncuMetrics("h200_" + k + ".ncu_metrics.csv");
        double ours = 0;
        for (const auto& m : p.metrics) {
            if (m.name == "dram__bytes_read.sum") {
                ours = m.value;
                EXPECT_EQ(m.unit, "byte");
            }
        }
        const double ref = ncu.at("dram__bytes_read.sum");
        ASSERT_GT(ref, 0) << k;
        if (ref > 1e6) {
            EXPECT_NEAR(ours / ref, 1.0, 0.02) << k;
        } else {
            // A few KB (the FFMA kernel reads its parameters and little else): sectors, not percent.
            EXPECT_NEAR(ours, ref, 4096) << k;
        }
    }
}

TEST(ProfileRecorded, StallReasonOrderAgreesWhereSamplesCameBack) {
    // ncu's Source page column for each CUPTI stall reason (all samples of the reason).
    const std::map<std::string, std::string> column = {{"barrier", "stall_barrier"},
                                                       {"branch_resolving", "stall_branch_resolving"},
                                                       {"dispatch_stall", "stall_dispatch"},
                                                       {"drain", "stall_drain"},
                                                       {"imc_miss", "stall_imc"},
                                                       {"lg_throttle", "stall_lg"},
                                                       {"long_scoreboard", "stall_long_sb"},
                                                       {"math_pipe_throttle", "stall_math"},
                                                       {"membar", "stall_membar"},
                                                       {"mio_throttle", "stall_mio"},
                                                       {"misc", "stall_misc"},
                                                       {"no_instructions", "stall_no_inst"},
                                                       {"not_selected", "stall_not_selected"},
                                                       {"selected", "stall_selected"},
                                                       {"short_scoreboard", "stall_short_sb"},
                                                       {"sleeping", "stall_sleep"},
                                                       {"tex_throttle", "stall_tex"},
                                                       {"wait", "stall_wait"}};
    auto top3 = [](const std::map<std::string, double>& totals) {
        std::vector<std::pair<double, std::string>> v;
        for (const auto& [r, n] : totals) {
            v.emplace_back(n, r);
        }
        std::sort(v.rbegin(), v.rend());
        std::vector<std::string> out;
        for (size_t i = 0; i < 3 && i < v.size(); ++i) {
            out.push_back(v[i].second);
        }
        return out;
    };
    for (const std::string k : {"saxpy", "reduce_sum"}) {
        ProfileData p = collection(readJson("h200_" + k + ".runner.json"), "samples");
        std::map<std::string, double> ours, ncu;
        for (const auto& row : p.instructions) {
            for (const auto& [reason, n] : row.samples) {
                if (reason.find("not_issued") == std::string::npos) {
                    ours[reason] += static_cast<double>(n);
                }
            }
        }
        for (const auto& [reason, col] : column) {
            for (const auto& [offset, n] : ncuColumn("h200_" + k + ".ncu_source.csv", col)) {
                ncu[reason] += n;
            }
        }
        EXPECT_EQ(top3(ours), top3(ncu)) << k;
        EXPECT_GT(ours["long_scoreboard"], 0) << k;
    }
}

} // namespace
