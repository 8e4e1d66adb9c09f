// Runner protocol: the messages around a request — the hello and its device, progress, errors and
// their kinds — and the message lines of every kind with the one reader of the runner's lines
// (parseRunnerMessage); each reader next to its writer.
#include "core/run/protocol.h"
#include "core/run/protocol_detail.h"

#include <algorithm>

namespace lowerscope {

using nlohmann::json;
using namespace protocol_detail;

namespace {
struct KindName {
    RunErrorKind kind;
    const char* name;
};
constexpr KindName kKindNames[] = {
    {RunErrorKind::Unknown, "unknown"},
    {RunErrorKind::NoDriver, "no_driver"},
    {RunErrorKind::NoDevice, "no_device"},
    {RunErrorKind::DriverError, "driver_error"},
    {RunErrorKind::BadRequest, "bad_request"},
    {RunErrorKind::ModuleLoad, "module_load"},
    {RunErrorKind::KernelNotFound, "kernel_not_found"},
    {RunErrorKind::LaunchError, "launch_error"},
    {RunErrorKind::OutOfMemory, "out_of_memory"},
    {RunErrorKind::KernelFault, "kernel_fault"},
    {RunErrorKind::KernelTimeout, "kernel_timeout"},
    {RunErrorKind::CudaError, "cuda_error"},
    {RunErrorKind::Throttled, "throttled"},
    {RunErrorKind::Internal, "internal"},
    {RunErrorKind::Deadline, "deadline"},
    {RunErrorKind::RunnerExited, "runner_exited"},
    {RunErrorKind::RunnerStart, "runner_start"},
    {RunErrorKind::Protocol, "protocol"},
    {RunErrorKind::Cancelled, "cancelled"},
    {RunErrorKind::BadLaunch, "bad_launch"},
    {RunErrorKind::NoCupti, "no_cupti"},
    {RunErrorKind::ProfilingUnsupported, "profiling_unsupported"},
    {RunErrorKind::ProfilingNotPermitted, "profiling_not_permitted"},
    {RunErrorKind::ProfilerBusy, "profiler_busy"},
    {RunErrorKind::CuptiError, "cupti_error"},
};
} // namespace

const char* runErrorKindName(RunErrorKind kind) {
    for (const KindName& k : kKindNames) {
        if (k.kind == kind) {
            return k.name;
        }
    }
    return "unknown";
}

RunErrorKind parseRunErrorKind(const std::string& name) {
    for (const KindName& k : kKindNames) {
        if (name == k.name) {
            return k.kind;
        }
    }
    return RunErrorKind::Unknown;
}

bool isSetupError(RunErrorKind kind) {
    switch (kind) {
    case RunErrorKind::NoDriver:
    case RunErrorKind::NoDevice:
    case RunErrorKind::DriverError:
    case RunErrorKind::RunnerStart:
    case RunErrorKind::BadRequest:
    case RunErrorKind::BadLaunch:
        return true;
    default:
        return false;
    }
}

json toJson(const DeviceInfo& v) {
    return json{{"name", v.name},
                {"compute_capability", std::to_string(v.ccMajor) + "." + std::to_string(v.ccMinor)},
                {"cc_major", v.ccMajor},
                {"cc_minor", v.ccMinor},
                {"sm_count", v.smCount},
                {"clock_mhz", v.clockMhz},
                {"memory_clock_mhz", v.memClockMhz},
                {"bus_width_bits", v.busWidthBits},
                {"l2_bytes", v.l2Bytes},
                {"total_memory_bytes", v.totalMemBytes},
                {"max_threads_per_sm", v.maxThreadsPerSm},
                {"max_shared_per_block_optin", v.maxSharedPerBlockOptin},
                {"driver_version", v.driverVersion},
                {"peak_bandwidth_gbs", v.peakBandwidthGBs},
                {"fp32_peak_gflops", v.fp32PeakGflops},
                {"copy_bandwidth_gbs", v.copyBandwidthGBs}};
}

void fromJson(const json& j, DeviceInfo& v) {
    if (!j.is_object()) {
        throw ProtocolError("device: expected an object");
    }
    v.name = getS(j, "name");
    v.ccMajor = static_cast<int>(getI(j, "cc_major", 0));
    v.ccMinor = static_cast<int>(getI(j, "cc_minor", 0));
    v.smCount = static_cast<int>(getI(j, "sm_count", 0));
    v.clockMhz = getD(j, "clock_mhz", 0);
    v.memClockMhz = getD(j, "memory_clock_mhz", 0);
    v.busWidthBits = static_cast<int>(getI(j, "bus_width_bits", 0));
    v.l2Bytes = getI(j, "l2_bytes", 0);
    v.totalMemBytes = getI(j, "total_memory_bytes", 0);
    v.maxThreadsPerSm = static_cast<int>(getI(j, "max_threads_per_sm", 0));
    v.maxSharedPerBlockOptin = static_cast<int>(getI(j, "max_shared_per_block_optin", 0));
    v.driverVersion = static_cast<int>(getI(j, "driver_version", 0));
    v.peakBandwidthGBs = getD(j, "peak_bandwidth_gbs", 0);
    v.fp32PeakGflops = getD(j, "fp32_peak_gflops", 0);
    v.copyBandwidthGBs = getD(j, "copy_bandwidth_gbs", 0);
}

json toJson(const RunError& v) {
    return json{{"kind", runErrorKindName(v.kind)},   {"message", v.message}, {"cuda_error", v.cudaError}, {"cuda_code", v.cudaCode},
                {"stage", v.stage}, {"variant", v.variant}, {"fatal", v.fatal}};
}

void fromJson(const json& j, RunError& v) {
    if (!j.is_object()) {
        throw ProtocolError("error: expected an object");
    }
    v.kind = parseRunErrorKind(getS(j, "kind", "unknown"));
    v.message = getS(j, "message");
    v.cudaError = getS(j, "cuda_error");
    v.cudaCode = static_cast<int>(getI(j, "cuda_code", 0));
    v.stage = getS(j, "stage");
    v.variant = getS(j, "variant");
    v.fatal = getB(j, "fatal", false);
}

json toJson(const RunProgress& v) {
    return json{{"id", v.id},           {"stage", v.stage}, {"variant", v.variant},
                {"samples", v.samples}, {"noise", v.noise}, {"elapsed_s", v.elapsedS}};
}

void fromJson(const json& j, RunProgress& v) {
    if (!j.is_object()) {
        throw ProtocolError("progress: expected an object");
    }
    v.id = getS(j, "id");
    v.stage = getS(j, "stage");
    v.variant = getS(j, "variant");
    v.samples = static_cast<size_t>(std::max<int64_t>(0, getI(j, "samples", 0)));
    v.noise = getD(j, "noise", 0);
    v.elapsedS = getD(j, "elapsed_s", 0);
}

// ------------------------------------------------------------------------------------ lines

namespace {
// Invalid UTF-8 (a kernel name from a binary, a driver message) is replaced, never thrown on.
std::string dumpLine(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
} // namespace

std::string hello(const DeviceInfo& device, const std::string& runnerVersion) {
    return dumpLine(
        json{{"hello", {{"protocol", kRunnerProtocolVersion}, {"runner", runnerVersion}, {"device", toJson(device)}}}});
}

std::string resultLine(const RunResult& r) { return dumpLine(json{{"result", toJson(r)}, {"id", r.id}}); }

std::string errorLine(const RunError& e, const std::string& id) {
    return dumpLine(json{{"error", toJson(e)}, {"id", id}});
}

std::string progressLine(const RunProgress& p) { return dumpLine(json{{"progress", toJson(p)}, {"id", p.id}}); }

RunnerMessage parseRunnerMessage(const std::string& line, const JsonLimits& limits) {
    json j;
    try {
        j = parseJsonBounded(line, limits);
    } catch (const JsonLimitError& e) {
        throw ProtocolError(std::string("runner sent a line over a limit: ") + e.what());
    } catch (const json::exception& e) {
        throw ProtocolError(std::string("runner sent a line that is not JSON: ") + e.what());
    }
    if (!j.is_object()) {
        throw ProtocolError("runner sent JSON that is not an object");
    }
    RunnerMessage m;
    m.id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : "";
    try {
        if (j.contains("hello")) {
            m.kind = RunnerMessage::Kind::Hello;
            const json& h = j["hello"];
            m.protocol = static_cast<int>(getI(h, "protocol", 0));
            m.runnerVersion = getS(h, "runner");
            if (h.contains("device")) {
                fromJson(h["device"], m.device);
            }
        } else if (j.contains("info")) {
            m.kind = RunnerMessage::Kind::Info;
            fromJson(need(j["info"], "device"), m.device);
        } else if (j.contains("progress")) {
            m.kind = RunnerMessage::Kind::Progress;
            fromJson(j["progress"], m.progress);
        } else if (j.contains("result")) {
            m.kind = RunnerMessage::Kind::Result;
            fromJson(j["result"], m.result);
        } else if (j.contains("error")) {
            m.kind = RunnerMessage::Kind::Error;
            fromJson(j["error"], m.error);
        } else {
            throw ProtocolError("runner sent an unknown message");
        }
    } catch (const json::exception& e) {
        throw ProtocolError(std::string("runner message malformed: ") + e.what());
    }
    return m;
}

} // namespace lowerscope
