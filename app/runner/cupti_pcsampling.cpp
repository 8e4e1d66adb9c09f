// PC Sampling: configuration, start/stop and parsed records.
#include "app/runner/cupti_pcsampling.h"

#include <cstdlib>
#include <cstring>

namespace lowerscope::runner {

namespace {

constexpr size_t kPcsPerRead = 8192;

CUpti_PCSamplingConfigurationInfo attribute(int type) {
    CUpti_PCSamplingConfigurationInfo a{};
    a.attributeType = type;
    return a;
}

} // namespace

PcSampler::~PcSampler() {
    end();
}

PcSampler::Options PcSampler::optionsFromEnvironment() {
    Options o;
    const char* env = std::getenv("LOWERSCOPE_PCSAMPLING");
    if (!env) {
        return o;
    }
    std::string s = env;
    if (s.rfind("continuous-always", 0) == 0) {
        o.serialized = false;
        o.startStop = false;
    } else if (s.rfind("continuous", 0) == 0) {
        o.serialized = false;
        o.startStop = true;
    } else if (s.rfind("serialized", 0) == 0) {
        o.serialized = true;
        o.startStop = true;
    }
    if (auto p = s.find("period="); p != std::string::npos) {
        o.periodLog2 = std::atoi(s.c_str() + p + 7);
    }
    return o;
}

CuptiFailure PcSampler::begin(const Options& options, std::string& detail) {
    m_options = options;
    auto fail = [&](CUptiResult r, const char* call) {
        const CuptiFailure f = cuptiCallFailure(m_cupti, r, call, detail);
        end();
        return f;
    };
    const ProfilerSupport support = initializeProfiler(m_cupti, m_device, CUPTI_PROFILER_PC_SAMPLING);
    if (support.result != CUPTI_SUCCESS) {
        return fail(support.result, support.failedCall);
    }
    if (support.params.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        detail = "cuptiProfilerDeviceSupported(PC sampling) says no";
        return CuptiFailure::UnsupportedGpu;
    }
    auto chip = cuptiParams<CUpti_Device_GetChipName_Params>();
    chip.deviceIndex = static_cast<size_t>(m_device);
    if (m_cupti.cuptiDeviceGetChipName(&chip) == CUPTI_SUCCESS && chip.pChipName) {
        m_chip = chip.pChipName;
    }
    auto en = cuptiParams<CUpti_PCSamplingContextParams>();
    en.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiPCSamplingEnable(&en); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiPCSamplingEnable");
    }
    m_enabled = true;
    size_t count = 0;
    auto num = cuptiParams<CUpti_PCSamplingGetNumStallReasonsParams>();
    num.ctx = m_ctx;
    num.numStallReasons = &count;
    if (CUptiResult r = m_cupti.cuptiPCSamplingGetNumStallReasons(&num); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiPCSamplingGetNumStallReasons");
    }
    std::vector<std::vector<char>> names(count, std::vector<char>(kStallReasonStringSize, 0));
    std::vector<char*> namePtrs(count);
    for (size_t i = 0; i < count; ++i) {
        namePtrs[i] = names[i].data();
    }
    std::vector<uint32_t> index(count);
    auto reasons = cuptiParams<CUpti_PCSamplingGetStallReasonsParams>();
    reasons.ctx = m_ctx;
    reasons.numStallReasons = count;
    reasons.stallReasonIndex = index.data();
    reasons.stallReasons = namePtrs.data();
    if (CUptiResult r = m_cupti.cuptiPCSamplingGetStallReasons(&reasons); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiPCSamplingGetStallReasons");
    }
    m_reasons.clear();
    for (size_t i = 0; i < count; ++i) {
        names[i].back() = 0;
        m_reasons[index[i]] = shortStallReason(names[i].data());
    }
    // The data buffer CUPTI fills on each read: kPcsPerRead PCs, each with room for every reason.
    m_pcs.assign(kPcsPerRead, CUpti_PCSamplingPCData{});
    m_reasonSlots.assign(kPcsPerRead * std::max<size_t>(count, 1), CUpti_PCSamplingStallReason{});
    for (size_t i = 0; i < kPcsPerRead; ++i) {
        m_pcs[i].size = sizeof(CUpti_PCSamplingPCData);
        m_pcs[i].stallReason = &m_reasonSlots[i * std::max<size_t>(count, 1)];
    }
    std::memset(&m_buffer, 0, sizeof(m_buffer));
    m_buffer.size = sizeof(CUpti_PCSamplingData);
    m_buffer.collectNumPcs = kPcsPerRead;
    m_buffer.pPcData = m_pcs.data();

    std::vector<CUpti_PCSamplingConfigurationInfo> attrs;
    auto mode = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE);
    mode.attributeData.mode = options.serialized ? CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED
                                                 : CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    attrs.push_back(mode);
    auto startStop = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL);
    startStop.attributeData.u32 = options.startStop ? 1 : 0;
    attrs.push_back(startStop);
    auto format = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT);
    format.attributeData.mode = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    attrs.push_back(format);
    auto buffer = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER);
    buffer.attributeData.buffer = &m_buffer;
    attrs.push_back(buffer);
    if (options.hardwareBufferBytes) {
        auto hw = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE);
        hw.attributeData.size = options.hardwareBufferBytes;
        attrs.push_back(hw);
    }
    if (options.periodLog2 >= 5 && options.periodLog2 <= 31) {
        auto period = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD);
        period.attributeData.u32 = static_cast<uint32_t>(options.periodLog2);
        attrs.push_back(period);
    }
    auto set = cuptiParams<CUpti_PCSamplingConfigurationInfoParams>();
    set.ctx = m_ctx;
    set.numAttributes = attrs.size();
    set.pPCSamplingConfigurationInfo = attrs.data();
    if (CUptiResult r = m_cupti.cuptiPCSamplingSetConfigurationAttribute(&set); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiPCSamplingSetConfigurationAttribute");
    }
    // CUPTI's workers decode the hardware buffer every 100 ms by default, and the launches wait
    // for their samples (profile_procedure.cpp): on an H100 the samples collection of saxpy took
    // 0.55 s, most of it waiting. Every kWorkerSleepMs instead; a CUPTI too old for the attribute
    // refuses it alone (its own call) and keeps the default.
    auto sleepSpan = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN);
    sleepSpan.attributeData.u32 = kWorkerSleepMs;
    auto setSleep = cuptiParams<CUpti_PCSamplingConfigurationInfoParams>();
    setSleep.ctx = m_ctx;
    setSleep.numAttributes = 1;
    setSleep.pPCSamplingConfigurationInfo = &sleepSpan;
    m_workerSleepMs = m_cupti.cuptiPCSamplingSetConfigurationAttribute(&setSleep) == CUPTI_SUCCESS ? kWorkerSleepMs : 100;
    auto query = attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD);
    auto get = cuptiParams<CUpti_PCSamplingConfigurationInfoParams>();
    get.ctx = m_ctx;
    get.numAttributes = 1;
    get.pPCSamplingConfigurationInfo = &query;
    if (m_cupti.cuptiPCSamplingGetConfigurationAttribute(&get) == CUPTI_SUCCESS) {
        m_periodLog2 = static_cast<int>(query.attributeData.u32);
    }
    return CuptiFailure::None;
}

CuptiFailure PcSampler::start(std::string& detail) {
    if (!m_options.startStop || m_running) {
        return CuptiFailure::None;
    }
    auto p = cuptiParams<CUpti_PCSamplingContextParams>();
    p.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiPCSamplingStart(&p); r != CUPTI_SUCCESS) {
        detail = "cuptiPCSamplingStart: " + cuptiErrorName(m_cupti, r);
        return classifyCuptiError(r);
    }
    m_running = true;
    return CuptiFailure::None;
}

CuptiFailure PcSampler::stop(std::string& detail) {
    if (!m_running) {
        return CuptiFailure::None;
    }
    m_running = false;
    auto p = cuptiParams<CUpti_PCSamplingContextParams>();
    p.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiPCSamplingStop(&p); r != CUPTI_SUCCESS) {
        detail = "cuptiPCSamplingStop: " + cuptiErrorName(m_cupti, r);
        return classifyCuptiError(r);
    }
    return CuptiFailure::None;
}

CuptiFailure PcSampler::collect(std::map<std::string, std::vector<InstructionProfile>>& byFunction,
                                uint64_t& crc, uint64_t& totalSamples, uint64_t& droppedSamples,
                                std::string& detail) {
    std::map<std::string, std::map<uint64_t, InstructionProfile>> merged;
    for (int round = 0; round < 1000; ++round) {
        auto get = cuptiParams<CUpti_PCSamplingGetDataParams>();
        get.ctx = m_ctx;
        get.pcSamplingData = &m_buffer;
        m_buffer.totalNumPcs = 0;
        m_buffer.remainingNumPcs = 0;
        if (CUptiResult r = m_cupti.cuptiPCSamplingGetData(&get); r != CUPTI_SUCCESS) {
            detail = "cuptiPCSamplingGetData: " + cuptiErrorName(m_cupti, r);
            return classifyCuptiError(r) == CuptiFailure::None ? CuptiFailure::Other : classifyCuptiError(r);
        }
        totalSamples += m_buffer.totalSamples;
        droppedSamples += m_buffer.droppedSamples;
        addRows(merged, crc);
        if (m_buffer.remainingNumPcs == 0) {
            break;
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

void PcSampler::addRows(std::map<std::string, std::map<uint64_t, InstructionProfile>>& merged,
                        uint64_t& crc) {
    for (size_t i = 0; i < m_buffer.totalNumPcs && i < kPcsPerRead; ++i) {
        const CUpti_PCSamplingPCData& pc = m_pcs[i];
        const std::string fn = pc.functionName ? pc.functionName : "";
        InstructionProfile& ip = merged[fn][pc.pcOffset];
        ip.pcOffset = pc.pcOffset;
        crc = pc.cubinCrc;
        for (size_t k = 0; k < pc.stallReasonCount; ++k) {
            const auto& s = pc.stallReason[k];
            if (s.samples == 0) {
                continue;
            }
            auto it = m_reasons.find(s.pcSamplingStallReasonIndex);
            ip.samples[it != m_reasons.end() ? it->second : std::to_string(s.pcSamplingStallReasonIndex)] +=
                s.samples;
        }
    }
}

void PcSampler::parseBuffer(std::map<std::string, std::vector<InstructionProfile>>& byFunction) {
    std::map<std::string, std::map<uint64_t, InstructionProfile>> merged;
    uint64_t crc = 0;
    addRows(merged, crc);
    m_buffer.totalNumPcs = 0;
    for (auto& [fn, rows] : merged) {
        for (auto& [pc, row] : rows) {
            byFunction[fn].push_back(std::move(row));
        }
    }
}

void PcSampler::end() {
    if (m_running) {
        std::string ignored;
        stop(ignored);
    }
    if (m_enabled) {
        m_buffer.totalNumPcs = 0;
        m_buffer.remainingNumPcs = 0;
        auto p = cuptiParams<CUpti_PCSamplingContextParams>();
        p.ctx = m_ctx;
        m_cupti.cuptiPCSamplingDisable(&p);
        m_enabled = false;
    }
}

} // namespace lowerscope::runner
