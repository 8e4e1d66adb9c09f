// Range Profiler + profiler host: configuration, passes, decoding and evaluation.
#include "app/runner/cupti_range.h"

#include <algorithm>

namespace lowerscope::runner {

RangeProfiler::~RangeProfiler() {
    close();
}

CuptiFailure RangeProfiler::fail(CUptiResult r, const char* call, std::string& detail) {
    return cuptiCallFailure(m_cupti, r, call, detail);
}

CuptiFailure RangeProfiler::open(std::string& detail) {
    const ProfilerSupport support = initializeProfiler(m_cupti, m_device, CUPTI_PROFILER_RANGE_PROFILING);
    if (support.result != CUPTI_SUCCESS) {
        return fail(support.result, support.failedCall, detail);
    }
    const CUpti_Profiler_DeviceSupported_Params& supported = support.params;
    if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        detail = "cuptiProfilerDeviceSupported: architecture " + std::to_string(supported.architecture) +
                 ", vGPU " + std::to_string(supported.vGpu) + ", confidential compute " +
                 std::to_string(supported.confidentialCompute) + " (3 = supported)";
        return CuptiFailure::UnsupportedGpu;
    }
    auto chip = cuptiParams<CUpti_Device_GetChipName_Params>();
    chip.deviceIndex = static_cast<size_t>(m_device);
    if (CUptiResult r = m_cupti.cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiDeviceGetChipName", detail);
    }
    m_chip = chip.pChipName ? chip.pChipName : "";
    // Counter availability: CUPTI needs it to schedule metrics for chips newer than itself.
    auto avail = cuptiParams<CUpti_Profiler_GetCounterAvailability_Params>();
    avail.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerGetCounterAvailability", detail);
    }
    m_availability.assign(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = m_availability.data();
    if (CUptiResult r = m_cupti.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerGetCounterAvailability", detail);
    }
    auto host = cuptiParams<CUpti_Profiler_Host_Initialize_Params>();
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = m_chip.c_str();
    host.pCounterAvailabilityImage = m_availability.data();
    if (CUptiResult r = m_cupti.cuptiProfilerHostInitialize(&host); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerHostInitialize", detail);
    }
    m_host = host.pHostObject;
    return CuptiFailure::None;
}

MetricInfo RangeProfiler::describe(const std::string& metric) const {
    MetricInfo info;
    info.name = metric;
    if (!m_host) {
        return info;
    }
    auto p = cuptiParams<CUpti_Profiler_Host_GetMetricProperties_Params>();
    p.pHostObject = m_host;
    p.pMetricName = metric.c_str();
    if (m_cupti.cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) {
        return info;
    }
    info.valid = true;
    info.unit = p.pDimUnit ? p.pDimUnit : "";
    info.description = p.pDescription ? p.pDescription : "";
    return info;
}

CuptiFailure RangeProfiler::configure(const std::vector<std::string>& metrics, size_t maxRanges,
                                      std::string& detail, bool allowKernelReplay) {
    if (!m_host) {
        detail = "range profiler not opened";
        return CuptiFailure::Other;
    }
    m_metrics = metrics;
    m_metricPtrs.clear();
    for (const auto& m : m_metrics) {
        m_metricPtrs.push_back(m.c_str());
    }
    m_maxRanges = std::max<size_t>(maxRanges, 1);
    auto add = cuptiParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>();
    add.pHostObject = m_host;
    add.ppMetricNames = m_metricPtrs.data();
    add.numMetrics = m_metricPtrs.size();
    if (CUptiResult r = m_cupti.cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerHostConfigAddMetrics", detail);
    }
    auto size = cuptiParams<CUpti_Profiler_Host_GetConfigImageSize_Params>();
    size.pHostObject = m_host;
    if (CUptiResult r = m_cupti.cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerHostGetConfigImageSize", detail);
    }
    m_config.assign(size.configImageSize, 0);
    auto image = cuptiParams<CUpti_Profiler_Host_GetConfigImage_Params>();
    image.pHostObject = m_host;
    image.configImageSize = m_config.size();
    image.pConfigImage = m_config.data();
    if (CUptiResult r = m_cupti.cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerHostGetConfigImage", detail);
    }
    auto passes = cuptiParams<CUpti_Profiler_Host_GetNumOfPasses_Params>();
    passes.configImageSize = m_config.size();
    passes.pConfigImage = m_config.data();
    if (CUptiResult r = m_cupti.cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiProfilerHostGetNumOfPasses", detail);
    }
    m_passes = passes.numOfPasses;

    auto enable = cuptiParams<CUpti_RangeProfiler_Enable_Params>();
    enable.ctx = m_ctx;
    if (CUptiResult r = m_cupti.cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerEnable", detail);
    }
    m_object = enable.pRangeProfilerObject;
    auto dataSize = cuptiParams<CUpti_RangeProfiler_GetCounterDataSize_Params>();
    dataSize.pRangeProfilerObject = m_object;
    dataSize.pMetricNames = m_metricPtrs.data();
    dataSize.numMetrics = m_metricPtrs.size();
    dataSize.maxNumOfRanges = m_maxRanges;
    dataSize.maxNumRangeTreeNodes = static_cast<uint32_t>(m_maxRanges);
    if (CUptiResult r = m_cupti.cuptiRangeProfilerGetCounterDataSize(&dataSize); r != CUPTI_SUCCESS) {
        CuptiFailure f = fail(r, "cuptiRangeProfilerGetCounterDataSize", detail);
        close();
        return f;
    }
    m_counterData.assign(dataSize.counterDataSize, 0);
    m_kernelReplay = false;
    CuptiFailure f = resetCounterData(detail);
    if (f != CuptiFailure::None && allowKernelReplay) {
        m_kernelReplay = true;
        std::string again;
        f = resetCounterData(again);
        if (f == CuptiFailure::None) {
            detail.clear();
        }
    }
    if (f != CuptiFailure::None) {
        close();
        return f;
    }
    return CuptiFailure::None;
}

CuptiFailure RangeProfiler::resetCounterData(std::string& detail) {
    auto init = cuptiParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>();
    init.pRangeProfilerObject = m_object;
    init.counterDataSize = m_counterData.size();
    init.pCounterData = m_counterData.data();
    if (CUptiResult r = m_cupti.cuptiRangeProfilerCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerCounterDataImageInitialize", detail);
    }
    auto config = cuptiParams<CUpti_RangeProfiler_SetConfig_Params>();
    config.pRangeProfilerObject = m_object;
    config.configSize = m_config.size();
    config.pConfig = m_config.data();
    config.counterDataImageSize = m_counterData.size();
    config.pCounterDataImage = m_counterData.data();
    // Automatic ranges (one per kernel, Nsight Compute's unit) with replay by the caller, who
    // restores inputs and flushes L2 between passes as a cold launch needs.
    config.range = CUPTI_AutoRange;
    config.replayMode = m_kernelReplay ? CUPTI_KernelReplay : CUPTI_UserReplay;
    config.maxRangesPerPass = m_maxRanges;
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    if (CUptiResult r = m_cupti.cuptiRangeProfilerSetConfig(&config); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerSetConfig", detail);
    }
    return CuptiFailure::None;
}

CuptiFailure RangeProfiler::beginPass(std::string& detail) {
    auto p = cuptiParams<CUpti_RangeProfiler_Start_Params>();
    p.pRangeProfilerObject = m_object;
    if (CUptiResult r = m_cupti.cuptiRangeProfilerStart(&p); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerStart", detail);
    }
    m_inPass = true;
    return CuptiFailure::None;
}

CuptiFailure RangeProfiler::endPass(bool& allDone, std::string& detail) {
    auto p = cuptiParams<CUpti_RangeProfiler_Stop_Params>();
    p.pRangeProfilerObject = m_object;
    m_inPass = false;
    if (CUptiResult r = m_cupti.cuptiRangeProfilerStop(&p); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerStop", detail);
    }
    allDone = p.isAllPassSubmitted != 0;
    return CuptiFailure::None;
}

CuptiFailure RangeProfiler::decode(std::vector<std::vector<double>>& values, std::string& detail) {
    values.clear();
    auto dec = cuptiParams<CUpti_RangeProfiler_DecodeData_Params>();
    dec.pRangeProfilerObject = m_object;
    if (CUptiResult r = m_cupti.cuptiRangeProfilerDecodeData(&dec); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerDecodeData", detail);
    }
    auto info = cuptiParams<CUpti_RangeProfiler_GetCounterDataInfo_Params>();
    info.pCounterDataImage = m_counterData.data();
    info.counterDataImageSize = m_counterData.size();
    if (CUptiResult r = m_cupti.cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
        return fail(r, "cuptiRangeProfilerGetCounterDataInfo", detail);
    }
    for (size_t i = 0; i < info.numTotalRanges; ++i) {
        std::vector<double> v(m_metricPtrs.size(), 0.0);
        auto eval = cuptiParams<CUpti_Profiler_Host_EvaluateToGpuValues_Params>();
        eval.pHostObject = m_host;
        eval.pCounterDataImage = m_counterData.data();
        eval.counterDataImageSize = m_counterData.size();
        eval.rangeIndex = i;
        eval.ppMetricNames = m_metricPtrs.data();
        eval.numMetrics = m_metricPtrs.size();
        eval.pMetricValues = v.data();
        if (CUptiResult r = m_cupti.cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
            return fail(r, "cuptiProfilerHostEvaluateToGpuValues", detail);
        }
        values.push_back(std::move(v));
    }
    if (dec.numOfRangeDropped > 0) {
        detail = std::to_string(dec.numOfRangeDropped) + " ranges dropped (more launches than " +
                 std::to_string(m_maxRanges) + " in a pass)";
    }
    return resetCounterData(detail);
}

void RangeProfiler::close() {
    if (m_object) {
        if (m_inPass) {
            auto stop = cuptiParams<CUpti_RangeProfiler_Stop_Params>();
            stop.pRangeProfilerObject = m_object;
            m_cupti.cuptiRangeProfilerStop(&stop);
            m_inPass = false;
        }
        auto p = cuptiParams<CUpti_RangeProfiler_Disable_Params>();
        p.pRangeProfilerObject = m_object;
        m_cupti.cuptiRangeProfilerDisable(&p);
        m_object = nullptr;
    }
    if (m_host) {
        auto p = cuptiParams<CUpti_Profiler_Host_Deinitialize_Params>();
        p.pHostObject = m_host;
        m_cupti.cuptiProfilerHostDeinitialize(&p);
        m_host = nullptr;
    }
}

} // namespace lowerscope::runner
