// One profile of one launch, collected and joined (profile_collect.h).
#include "core/run/profile_collect.h"

#include "core/run/buffer_data.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace lowerscope {

namespace {

using nlohmann::json;

// Failures that say profiling is not available here, as opposed to the kernel failing.
bool profilingUnavailable(RunErrorKind k) {
    return isSetupError(k) || k == RunErrorKind::NoCupti || k == RunErrorKind::ProfilingUnsupported ||
           k == RunErrorKind::ProfilingNotPermitted || k == RunErrorKind::ProfilerBusy;
}

json totalsJson(const ProfileTotals& t) {
    return json{{"counts", t.counts}, {"samples", t.samples}, {"sample_total", t.sampleTotal()}};
}

json linesJson(const std::vector<ProfiledLine>& lines, bool withFile) {
    json out = json::array();
    for (const auto& l : lines) {
        json j = totalsJson(l.totals);
        if (withFile) j["file"] = l.file;
        j["line"] = l.line;
        j["instructions"] = l.instructions;
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace

bool parseProfileCollections(const std::string& list, std::vector<ProfileCollection>& out,
                             std::string& error) {
    out.clear();
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        auto c = parseProfileCollection(item);
        if (!c || *c == ProfileCollection::None) {
            error = "unknown collection '" + item + "' (kernel, instructions, samples)";
            return false;
        }
        if (std::find(out.begin(), out.end(), *c) == out.end()) out.push_back(*c);
    }
    if (out.empty()) {
        error = "no collection named (kernel, instructions, samples)";
        return false;
    }
    return true;
}

namespace {
constexpr int kDefaultPeriodLog2 = 11; // CUPTI's PC sampling period on Hopper when none is set
} // namespace

ProfileCollectResult collectProfile(Runner& runner, const ProfileTarget& t,
                                    const ProfileCollectOptions& options,
                                    const std::function<void(const std::string&)>& stage,
                                    std::atomic<bool>* cancel) {
    ProfileCollectResult out;
    const std::vector<uint8_t>& cubin = t.variant.cubin;
    const std::string digest = digestHex(cubin.data(), cubin.size());
    json doc{{"schema", "lowerscope.profile/1"},
             {"file", t.file},
             {"kernel", t.mangled},
             {"signature", t.signature},
             {"arch", t.arch},
             {"build_options", t.buildOptions},
             {"cubin_digest", digest},
             {"code_digest", t.sass ? sassCodeDigest(*t.sass) : std::string()},
             {"launch", {{"grid", t.variant.grid}, {"block", t.variant.block}, {"args", t.args}}},
             {"collections", json::object()},
             {"metrics", json::array()}};
    auto fail = [&](const std::string& name, const RunError& e, int code) {
        doc["collections"][name] = {{"ok", false}, {"error", toJson(e)}};
        out.errors.push_back(name + ": " + runErrorKindName(e.kind) + ": " + e.message);
        out.exitCode = std::max(out.exitCode, code);
    };

    DeviceInfo device;
    RunError startError;
    if (!runner.device(device, startError)) {
        for (ProfileCollection c : options.collections) fail(profileCollectionName(c), startError, 2);
        out.document = std::move(doc);
        return out;
    }
    doc["device"] = toJson(device);

    // Instruction counts as a runner's first collection came back empty on an H100 (CUDA 13.0,
    // driver 580: "CUPTI returned no SASS metric records", lazily or eagerly patched, modules
    // loaded eagerly or lazily), while the same request right after a kernel-metrics request in
    // the same runner counted every instruction (bench/profile_vs_ncu.sh, every kernel). Until the
    // cause is known, a count asked for without kernel metrics before it is preceded by the
    // cheapest kernel-metrics request (one metric, one pass), whose answer is not kept.
    const auto firstOf = [&](ProfileCollection c) {
        return std::find(options.collections.begin(), options.collections.end(), c);
    };
    if (firstOf(ProfileCollection::Instructions) != options.collections.end() &&
        firstOf(ProfileCollection::Kernel) > firstOf(ProfileCollection::Instructions)) {
        RunRequest warm;
        warm.profile = ProfileCollection::Kernel;
        warm.profileMetrics = {"gpu__time_duration.sum"};
        warm.variants.push_back(t.variant);
        warm.regions = t.regions;
        if (stage) stage("kernel");
        runner.run(warm, {}, cancel); // a failure here is the count's to report
    }

    std::vector<ProfileData> got;
    for (ProfileCollection c : options.collections) {
        const std::string name = profileCollectionName(c);
        if (cancel && cancel->load()) {
            fail(name, RunError{RunErrorKind::Cancelled, "cancelled before it started", "", 0, "", "", false},
                 1);
            continue;
        }
        if (stage) stage(name);
        RunRequest req;
        req.profile = c;
        if (c == ProfileCollection::Kernel) req.profileMetrics = options.kernelMetrics;
        req.variants.push_back(t.variant);
        req.regions = t.regions;
        RunOutcome o = runner.run(req, {}, cancel);
        // A long launch overflows PC sampling's hardware buffer at CUPTI's default period (a 17 ms
        // GEMM on an H200 at 2^11 cycles: CUPTI_ERROR_OUT_OF_MEMORY, no samples at all). Sample 8x
        // more sparsely and try again, twice at most; the document says which period was used.
        std::string retried;
        for (int attempt = 0;
             c == ProfileCollection::Samples && attempt < 2 && !o.ok &&
             o.error.message.find("OUT_OF_MEMORY") != std::string::npos && !(cancel && cancel->load());
             ++attempt) {
            req.profileSamplePeriodLog2 =
                (req.profileSamplePeriodLog2 ? req.profileSamplePeriodLog2 : kDefaultPeriodLog2) + 3;
            retried = "the hardware sample buffer overflowed at the default period; sampled every 2^" +
                      std::to_string(req.profileSamplePeriodLog2) + " cycles instead";
            if (stage) stage(name);
            o = runner.run(req, {}, cancel);
        }
        if (!o.ok || o.result.variants.empty() || !o.result.variants[0].profile) {
            RunError e = o.error;
            if (o.ok) {
                e.kind = RunErrorKind::Protocol;
                e.message = "the runner answered without a profile";
            }
            fail(name, e, profilingUnavailable(e.kind) ? 2 : 1);
            continue;
        }
        ProfileData p = *o.result.variants[0].profile;
        if (auto why = profileMismatch(p, digest, t.mangled)) {
            fail(name, RunError{RunErrorKind::Protocol, "refused: " + *why, "", 0, "", "", false}, 1);
            continue;
        }
        if (!retried.empty()) p.note = p.note.empty() ? retried : p.note + "; " + retried;
        doc["collections"][name] = {{"ok", true},
                                    {"collect_ms", p.collectMs},
                                    {"launches", p.launches},
                                    {"passes", p.passes},
                                    {"note", p.note},
                                    {"chip", p.chip}};
        got.push_back(std::move(p));
    }

    std::vector<const ProfileData*> rows;
    for (const auto& p : got) {
        if (p.collection == ProfileCollection::Kernel) {
            out.metrics = p.metrics;
            for (const auto& m : p.metrics) doc["metrics"].push_back(toJson(m));
            doc["invalid_metrics"] = p.invalidMetrics;
        } else {
            rows.push_back(&p);
        }
        if (p.collection == ProfileCollection::Samples) {
            doc["samples"] = {{"total", p.totalSamples},
                              {"dropped", p.droppedSamples},
                              {"period_log2", p.samplingPeriodLog2}};
        }
    }
    static const SassFunction kNoCode;
    const SassFunction& sass = t.sass ? *t.sass : kNoCode;
    out.join = joinProfiles(sass, rows, InlineAttribution::CallSite);
    if (!out.join.unmatchedOffsets.empty()) {
        // The digest matched, so this is a runner (or CUPTI) answer that does not fit the code.
        out.errors.push_back(std::to_string(out.join.unmatchedOffsets.size()) +
                             " profiled offsets have no instruction in this build (left out)");
        doc["unmatched_offsets"] = out.join.unmatchedOffsets;
        out.exitCode = std::max(out.exitCode, 1);
    }
    json instructions = json::array();
    for (size_t i = 0; i < sass.instructions.size(); ++i) {
        const SassInstruction& ins = sass.instructions[i];
        const ProfiledRow& row = out.join.rows[i];
        json j{{"address", ins.address},   {"opcode", ins.opcode},        {"ptx_line", ins.ptxLine},
               {"profiled", row.profiled}, {"counts", row.totals.counts}, {"samples", row.totals.samples}};
        if (ins.source.valid()) {
            j["file"] = ins.source.file;
            j["line"] = ins.source.line;
        }
        instructions.push_back(std::move(j));
    }
    doc["instructions"] = std::move(instructions);
    doc["kernel_totals"] = totalsJson(out.join.kernel);
    doc["ptx_lines"] = linesJson(out.join.ptxLines, false);
    doc["lines"] = linesJson(out.join.sourceLines, true);
    doc["callee_lines"] = linesJson(joinProfiles(sass, rows, InlineAttribution::Callee).sourceLines, true);
    out.document = std::move(doc);
    return out;
}

json profileMetricDeltas(const json& a, const json& b) {
    json out = json::array();
    auto metrics = [](const json& d) {
        std::vector<std::pair<std::string, const json*>> v;
        if (auto m = d.find("metrics"); m != d.end() && m->is_array())
            for (const auto& x : *m)
                if (x.is_object() && x.contains("name") && x["name"].is_string() && x.contains("value") &&
                    x["value"].is_number())
                    v.emplace_back(x["name"].get<std::string>(), &x);
        return v;
    };
    const auto ma = metrics(a), mb = metrics(b);
    for (const auto& [name, xa] : ma) {
        auto it = std::find_if(mb.begin(), mb.end(), [&](const auto& p) { return p.first == name; });
        if (it == mb.end()) continue;
        const double va = (*xa)["value"].get<double>(), vb = (*it->second)["value"].get<double>();
        json d{{"name", name},
               {"unit", xa->value("unit", std::string())},
               {"a", va},
               {"b", vb},
               {"delta", vb - va}};
        d["ratio"] = va != 0 ? json(vb / va) : json(nullptr);
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<ProfileRowDelta> profileRowDeltas(const SassDiff& diff, const ProfileJoin& a,
                                              const ProfileJoin& b) {
    std::vector<ProfileRowDelta> out;
    auto at = [](const ProfileJoin& j, int i) -> const ProfileTotals* {
        return i >= 0 && static_cast<size_t>(i) < j.rows.size() ? &j.rows[i].totals : nullptr;
    };
    for (size_t r = 0; r < diff.rows.size(); ++r) {
        const DiffRow& d = diff.rows[r];
        ProfileRowDelta x;
        x.row = static_cast<int>(r);
        x.a = d.a;
        x.b = d.b;
        x.status = d.status;
        if (const ProfileTotals* t = at(a, d.a)) {
            x.executedA = t->count("smsp__sass_inst_executed");
            x.samplesA = t->sampleTotal();
        }
        if (const ProfileTotals* t = at(b, d.b)) {
            x.executedB = t->count("smsp__sass_inst_executed");
            x.samplesB = t->sampleTotal();
        }
        if (x.executedA || x.executedB || x.samplesA || x.samplesB) out.push_back(x);
    }
    return out;
}

json profileRowDeltasJson(const std::vector<ProfileRowDelta>& rows, const SassFunction& a,
                          const SassFunction& b) {
    json out = json::array();
    auto side = [](const SassFunction& f, int i) {
        return i >= 0 && static_cast<size_t>(i) < f.instructions.size() ? &f.instructions[i] : nullptr;
    };
    for (const auto& r : rows) {
        json j{{"row", r.row},
               {"status", diffStatusName(r.status)},
               {"executed_a", r.executedA},
               {"executed_b", r.executedB},
               {"executed_delta", static_cast<int64_t>(r.executedB) - static_cast<int64_t>(r.executedA)},
               {"samples_a", r.samplesA},
               {"samples_b", r.samplesB},
               {"samples_delta", static_cast<int64_t>(r.samplesB) - static_cast<int64_t>(r.samplesA)}};
        if (const SassInstruction* i = side(a, r.a)) {
            j["address_a"] = i->address;
            j["opcode_a"] = i->opcode;
        }
        if (const SassInstruction* i = side(b, r.b)) {
            j["address_b"] = i->address;
            j["opcode_b"] = i->opcode;
        }
        out.push_back(std::move(j));
    }
    return out;
}


} // namespace lowerscope
