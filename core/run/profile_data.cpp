// Profile results of the runner: names, default metric sets and JSON.
#include "core/run/profile_data.h"

#include <cmath>
#include <cstdio>

namespace lowerscope {

using nlohmann::json;

bool profileEndsRunner(ProfileCollection c) {
    return c == ProfileCollection::Instructions || c == ProfileCollection::Samples;
}

std::string profileCollectionName(ProfileCollection c) {
    switch (c) {
    case ProfileCollection::Kernel:
        return "kernel";
    case ProfileCollection::Instructions:
        return "instructions";
    case ProfileCollection::Samples:
        return "samples";
    case ProfileCollection::None:
        break;
    }
    return "";
}

std::optional<ProfileCollection> parseProfileCollection(const std::string& name) {
    for (ProfileCollection c : {ProfileCollection::None, ProfileCollection::Kernel,
                                ProfileCollection::Instructions, ProfileCollection::Samples}) {
        if (profileCollectionName(c) == name) {
            return c;
        }
    }
    return std::nullopt;
}

const ProfileMetric* findMetric(const std::vector<ProfileMetric>& metrics, const std::string& name) {
    for (const auto& m : metrics)
        if (m.name == name) return &m;
    return nullptr;
}

bool isPercentMetric(const ProfileMetric& m) {
    return m.unit == "percent" || (m.name.size() > 4 && m.name.compare(m.name.size() - 4, 4, ".pct") == 0);
}

std::optional<std::string> metricRangeProblem(const ProfileMetric& m) {
    if (!std::isfinite(m.value)) return std::string("not a finite number");
    if (m.value < 0) return "negative (" + std::to_string(m.value) + "), impossible for a count, size, time or rate";
    // A hair above 100 is rounding of the counters; well above is a measurement that cannot be.
    if (isPercentMetric(m) && m.value > 100.5) {
        char text[96];
        std::snprintf(text, sizeof text, "%.1f %% is above 100 %%", m.value);
        return std::string(text) + ": its parts were likely counted in different replay passes over too little "
                                   "traffic; not shown as a value";
    }
    return std::nullopt;
}

const std::vector<std::string>& defaultKernelMetrics() {
    // Names as Nsight Compute prints them; each was evaluated on an H200 (GH100) with CUPTI 13.0.
    static const std::vector<std::string> names = {
        "gpu__time_duration.sum",                                           // duration, ns
        "dram__bytes_read.sum",                                             // DRAM bytes read
        "dram__bytes_write.sum",                                            // DRAM bytes written
        "lts__t_sector_hit_rate.pct",                                       // L2 hit rate
        "lts__t_bytes.sum",                                                 // L2 bytes
        "l1tex__t_sector_hit_rate.pct",                                     // L1 hit rate
        "l1tex__t_bytes.sum",                                               // L1 bytes
        "sm__warps_active.avg.pct_of_peak_sustained_active",                // achieved occupancy
        "smsp__issue_active.avg.pct_of_peak_sustained_active",              // issue-slot utilisation
        "sm__inst_executed.avg.per_cycle_active",                           // IPC per SM
        "smsp__inst_executed.sum",                                          // warp instructions
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",                 // SM throughput, % of peak
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", // memory throughput, % of peak
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",               // DRAM throughput, % of peak
        "smsp__sass_average_branch_targets_threads_uniform.pct",            // branch efficiency
        "smsp__thread_inst_executed_per_inst_executed.ratio",               // threads per instruction (of 32)
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",               // shared bank conflicts
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "sm__cycles_elapsed.avg.per_second", // SM clock during the kernel
    };
    return names;
}

const std::vector<std::string>& defaultInstructionMetrics() {
    static const std::vector<std::string> names = {
        "smsp__sass_inst_executed",                        // warp instructions executed
        "smsp__sass_thread_inst_executed",                 // thread instructions executed
        "smsp__sass_thread_inst_executed_pred_on",         // ... with the predicate true
        "smsp__sass_inst_executed_op_global_ld",           // global load requests
        "smsp__sass_inst_executed_op_global_st",           // global store requests
        "smsp__sass_sectors_mem_global",                   // global sectors accessed
        "smsp__sass_sectors_mem_global_ideal",             // ... if perfectly coalesced
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", // shared wavefronts (bank conflicts add)
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
        "smsp__sass_branch_targets_threads_divergent", // divergent branch targets
    };
    return names;
}

std::string shortStallReason(const std::string& name) {
    static const std::string prefix = "smsp__pcsamp_warps_issue_stalled_";
    return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

json toJson(const ProfileMetric& v) {
    return json{{"name", v.name}, {"value", v.value}, {"unit", v.unit}};
}

json toJson(const InstructionProfile& v) {
    json j{{"pc_offset", v.pcOffset}};
    if (!v.counts.empty()) {
        j["counts"] = v.counts;
    }
    if (!v.samples.empty()) {
        j["samples"] = v.samples;
    }
    return j;
}

json toJson(const ProfileData& v) {
    json metrics = json::array();
    for (const auto& m : v.metrics) {
        metrics.push_back(toJson(m));
    }
    json instructions = json::array();
    for (const auto& i : v.instructions) {
        instructions.push_back(toJson(i));
    }
    return json{{"collection", profileCollectionName(v.collection)},
                {"chip", v.chip},
                {"function", v.function},
                {"cubin_crc", v.cubinCrc},
                {"cubin_digest", v.cubinDigest},
                {"launches", v.launches},
                {"passes", v.passes},
                {"collect_ms", v.collectMs},
                {"metrics", metrics},
                {"invalid_metrics", v.invalidMetrics},
                {"instructions", instructions},
                {"total_samples", v.totalSamples},
                {"dropped_samples", v.droppedSamples},
                {"sampling_period_log2", v.samplingPeriodLog2},
                {"note", v.note}};
}

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
    throw ProfileFormatError("profile field '" + key + "': " + what);
}

const json* find(const json& j, const char* key) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string str(const json& j, const char* key) {
    const json* v = find(j, key);
    if (!v) {
        return "";
    }
    if (!v->is_string()) {
        bad(key, "expected a string");
    }
    return v->get<std::string>();
}

double num(const json& j, const char* key) {
    const json* v = find(j, key);
    if (!v) {
        return 0;
    }
    if (!v->is_number()) {
        bad(key, "expected a number");
    }
    return v->get<double>();
}

uint64_t count(const json& v, const std::string& key) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
        bad(key, "expected a non-negative integer");
    }
    return v.get<uint64_t>();
}

uint64_t countAt(const json& j, const char* key) {
    const json* v = find(j, key);
    return v ? count(*v, key) : 0;
}

std::map<std::string, uint64_t> countMap(const json& j, const char* key) {
    std::map<std::string, uint64_t> out;
    const json* v = find(j, key);
    if (!v) {
        return out;
    }
    if (!v->is_object()) {
        bad(key, "expected an object of counts");
    }
    for (auto it = v->begin(); it != v->end(); ++it) {
        out[it.key()] = count(it.value(), std::string(key) + "." + it.key());
    }
    return out;
}

} // namespace

void fromJson(const json& j, ProfileMetric& v) {
    if (!j.is_object()) {
        bad("metrics[]", "expected an object");
    }
    v.name = str(j, "name");
    if (v.name.empty()) {
        bad("metrics[].name", "missing");
    }
    v.value = num(j, "value");
    v.unit = str(j, "unit");
}

void fromJson(const json& j, InstructionProfile& v) {
    if (!j.is_object()) {
        bad("instructions[]", "expected an object");
    }
    const json* pc = find(j, "pc_offset");
    if (!pc) {
        bad("instructions[].pc_offset", "missing");
    }
    v.pcOffset = count(*pc, "instructions[].pc_offset");
    v.counts = countMap(j, "counts");
    v.samples = countMap(j, "samples");
}

void fromJson(const json& j, ProfileData& v) {
    if (!j.is_object()) {
        bad("profile", "expected an object");
    }
    auto c = parseProfileCollection(str(j, "collection"));
    if (!c || *c == ProfileCollection::None) {
        bad("collection", "expected kernel, instructions or samples");
    }
    v.collection = *c;
    v.chip = str(j, "chip");
    v.function = str(j, "function");
    v.cubinCrc = countAt(j, "cubin_crc");
    v.cubinDigest = str(j, "cubin_digest");
    v.launches = static_cast<int>(countAt(j, "launches"));
    v.passes = static_cast<int>(countAt(j, "passes"));
    v.collectMs = num(j, "collect_ms");
    v.metrics.clear();
    v.instructions.clear();
    v.invalidMetrics.clear();
    if (const json* m = find(j, "metrics")) {
        if (!m->is_array()) {
            bad("metrics", "expected an array");
        }
        for (const auto& x : *m) {
            fromJson(x, v.metrics.emplace_back());
        }
    }
    if (const json* m = find(j, "invalid_metrics")) {
        if (!m->is_array()) {
            bad("invalid_metrics", "expected an array");
        }
        for (const auto& x : *m) {
            if (!x.is_string()) {
                bad("invalid_metrics", "expected strings");
            }
            v.invalidMetrics.push_back(x.get<std::string>());
        }
    }
    if (const json* m = find(j, "instructions")) {
        if (!m->is_array()) {
            bad("instructions", "expected an array");
        }
        for (const auto& x : *m) {
            fromJson(x, v.instructions.emplace_back());
        }
    }
    v.totalSamples = countAt(j, "total_samples");
    v.droppedSamples = countAt(j, "dropped_samples");
    v.samplingPeriodLog2 = static_cast<int>(countAt(j, "sampling_period_log2"));
    v.note = str(j, "note");
}

} // namespace lowerscope
