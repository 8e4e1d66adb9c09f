// SASS Metrics: configuration, patching and per-instruction records.
#include "app/runner/cupti_sass.h"

#include <algorithm>
#include <cstdlib>

namespace lowerscope::runner {

SassCounters::~SassCounters() {
    end();
}

CuptiFailure SassCounters::begin(const std::vector<std::string>& metrics, std::vector<std::string>& unknown,
                                 std::string& detail) {
    auto fail = [&](CUptiResult r, const char* call) {
        const CuptiFailure f = cuptiCallFailure(m_cupti, r, call, detail);
        end();
        return f;
    };
    const ProfilerSupport support = initializeProfiler(m_cupti, m_device, CUPTI_PROFILER_SASS_METRICS);
    if (support.result != CUPTI_SUCCESS) {
        return fail(support.result, support.failedCall);
    }
    if (support.params.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        detail = "cuptiProfilerDeviceSupported(SASS metrics) says no";
        return CuptiFailure::UnsupportedGpu;
    }
    auto chip = cuptiParams<CUpti_Device_GetChipName_Params>();
    chip.deviceIndex = static_cast<size_t>(m_device);
    if (CUptiResult r = m_cupti.cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiDeviceGetChipName");
    }
    m_chip = chip.pChipName ? chip.pChipName : "";
    std::vector<CUpti_SassMetrics_Config> config;
    m_names.clear();
    for (const auto& name : metrics) {
        auto p = cuptiParams<CUpti_SassMetrics_GetProperties_Params>();
        p.pChipName = m_chip.c_str();
        p.pMetricName = name.c_str();
        if (m_cupti.cuptiSassMetricsGetProperties(&p) != CUPTI_SUCCESS) {
            unknown.push_back(name);
            continue;
        }
        // GPU granularity: one value per instruction (the sum over SMs), which is what the
        // per-instruction columns need.
        config.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
        m_names[p.metric.metricId] = name;
    }
    if (config.empty()) {
        detail = "none of the SASS metrics is known on " + m_chip;
        return CuptiFailure::UnsupportedGpu;
    }
    auto set = cuptiParams<CUpti_SassMetricsSetConfig_Params>();
    set.numOfMetricConfig = config.size();
    set.pConfigs = config.data();
    set.deviceIndex = static_cast<uint32_t>(m_device);
    if (CUptiResult r = m_cupti.cuptiSassMetricsSetConfig(&set); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiSassMetricsSetConfig");
    }
    m_configured = true;
    auto enable = cuptiParams<CUpti_SassMetricsEnable_Params>();
    enable.ctx = m_ctx;
    // Lazy: only functions launched while enabled are patched (a module may hold many).
    // LOWERSCOPE_SASS_EAGER=1 patches every loaded function at once (a diagnostic: a replayed
    // launch got no records at all on an H100, issue 29).
    const char* eager = std::getenv("LOWERSCOPE_SASS_EAGER");
    enable.enableLazyPatching = eager && *eager == '1' ? 0 : 1;
    if (CUptiResult r = m_cupti.cuptiSassMetricsEnable(&enable); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiSassMetricsEnable");
    }
    m_enabled = true;
    return CuptiFailure::None;
}

CuptiFailure SassCounters::collect(std::map<std::string, std::vector<InstructionProfile>>& byFunction,
                                   uint64_t& crc, std::string& detail) {
    auto props = cuptiParams<CUpti_SassMetricsGetDataProperties_Params>();
    props.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiSassMetricsGetDataProperties(&props); r != CUPTI_SUCCESS) {
        detail = "cuptiSassMetricsGetDataProperties: " + cuptiErrorName(m_cupti, r);
        return classifyCuptiError(r);
    }
    const size_t records = props.numOfPatchedInstructionRecords;
    const size_t instances = props.numOfInstances;
    if (records == 0 || instances == 0) {
        detail = "CUPTI returned no SASS metric records";
        return CuptiFailure::Other;
    }
    std::vector<CUpti_SassMetrics_Data> data(records);
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
    for (size_t i = 0; i < records; ++i) {
        data[i] = {};
        data[i].structSize = sizeof(CUpti_SassMetrics_Data);
        data[i].pInstanceValues = &values[i * instances];
    }
    auto flush = cuptiParams<CUpti_SassMetricsFlushData_Params>();
    flush.ctx = m_ctx;
    flush.numOfPatchedInstructionRecords = records;
    flush.numOfInstances = instances;
    flush.pMetricsData = data.data();
    if (CUptiResult r = m_cupti.cuptiSassMetricsFlushData(&flush); r != CUPTI_SUCCESS) {
        detail = "cuptiSassMetricsFlushData: " + cuptiErrorName(m_cupti, r);
        return classifyCuptiError(r);
    }
    // A record carries one instruction and, per instance, a (metric, value) pair; with GPU
    // granularity CUPTI returns one record per instruction and metric. Sum them up.
    std::map<std::string, std::map<uint64_t, InstructionProfile>> merged;
    for (const auto& d : data) {
        const std::string fn = d.functionName ? d.functionName : "";
        InstructionProfile& ip = merged[fn][d.pcOffset];
        ip.pcOffset = d.pcOffset;
        crc = d.cubinCrc;
        for (size_t k = 0; k < instances; ++k) {
            const auto& v = d.pInstanceValues[k];
            auto it = m_names.find(v.metricId);
            if (it != m_names.end()) {
                ip.counts[it->second] += v.value;
            }
        }
    }
    for (auto& [fn, rows] : merged) {
        auto& out = byFunction[fn];
        for (auto& [pc, row] : rows) {
            out.push_back(std::move(row));
        }
    }
    return CuptiFailure::None;
}

void SassCounters::end() {
    if (m_enabled) {
        auto p = cuptiParams<CUpti_SassMetricsDisable_Params>();
        p.ctx = m_ctx;
        m_cupti.cuptiSassMetricsDisable(&p);
        m_enabled = false;
    }
    if (m_configured) {
        auto p = cuptiParams<CUpti_SassMetricsUnsetConfig_Params>();
        p.deviceIndex = static_cast<uint32_t>(m_device);
        m_cupti.cuptiSassMetricsUnsetConfig(&p);
        m_configured = false;
    }
}

} // namespace lowerscope::runner
