// lowerscope.capture/1: built from the injection's events, read back untrusted (capture_document.h).
#include "core/capture/capture_document.h"

#include "core/bounded_json.h"
#include "core/build/cache.h"
#include "core/build/demangle.h"
#include "core/build/kernel_name.h"
#include "core/capture/json_text.h"
#include "core/parse/cuda_elf.h"
#include "core/run/stats.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <unordered_map>

namespace lowerscope::capture {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool isHashText(const std::string& s) {
    return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

} // namespace

std::vector<ModuleFile> describeModules(const CaptureLog& log, const std::string& folder) {
    std::vector<ModuleFile> out;
    std::unordered_map<std::string, size_t> byHash;
    for (const CapturedModule& m : log.modules) {
        if (auto it = byHash.find(m.hash); it != byHash.end()) {
            auto& pids = out[it->second].pids;
            if (std::find(pids.begin(), pids.end(), m.pid) == pids.end()) pids.push_back(m.pid);
            continue;
        }
        ModuleFile f;
        f.file = m.hash + ".cubin";
        f.hash = m.hash;
        f.bytes = m.bytes;
        f.pids.push_back(m.pid);
        std::string bytes;
        const std::string path = (fs::path(folder) / f.file).string();
        if (!readInputFile(path, kMaxCodeBytes, "a cubin", bytes, f.error)) {
            // kept with its error: the document says the module was loaded but not saved
        } else if (xxh3Hex(bytes.data(), bytes.size()) != m.hash) {
            f.error = f.file + " does not hold the cubin of that hash";
        } else if (const auto header = readElfHeader(bytes); !header || !header->isCuda()) {
            f.error = f.file + " is not a CUDA ELF";
        } else {
            f.bytes = bytes.size();
            f.arch = cudaElfArch(*header);
            f.kernels = cudaElfKernels(bytes);
        }
        byHash.emplace(m.hash, out.size());
        out.push_back(std::move(f));
    }
    return out;
}

int64_t snapshotLaunchIndex(const std::vector<const CapturedLaunch*>& ordered, const LaunchSnapshot& s,
                            const std::vector<bool>& taken) {
    int64_t nearest = -1;
    for (size_t i = 0; i < ordered.size(); ++i) {
        const CapturedLaunch& l = *ordered[i];
        if (l.pid != s.pid) continue;
        if (l.correlationId == s.correlationId) return static_cast<int64_t>(i);
        if (l.correlationId < s.correlationId && l.name == s.name && l.grid == s.grid && l.block == s.block &&
            !(i < taken.size() && taken[i]) &&
            (nearest < 0 || ordered[static_cast<size_t>(nearest)]->correlationId < l.correlationId))
            nearest = static_cast<int64_t>(i);
    }
    return nearest;
}

CaptureDocumentParts captureDocumentParts(const CaptureLog& log, const CaptureRunInfo& run,
                                          const LaunchFilterOptions& filterOptions,
                                          const std::vector<ModuleFile>& modules, const std::string& snapshotFolder) {
    // The launches in launch order, by address: copying 100,000 launches (each with its kernel's
    // name) twice took a third of the CLI's time after the program.
    std::vector<const CapturedLaunch*> launches;
    launches.reserve(log.launches.size());
    for (size_t i : log.launchOrder()) launches.push_back(&log.launches[i]);
    LaunchFilter filter(filterOptions);

    // Kernels by mangled name, in first-launch order for now.
    struct Acc {
        std::string name, demangled;
        bool matches = false; // the filter's regex
        std::vector<double> durations;
        double total = 0;
        uint64_t selected = 0;
    };
    std::vector<Acc> kernels;
    std::unordered_map<std::string, size_t> kernelIndex;
    std::vector<size_t> launchKernel(launches.size());
    std::vector<bool> launchSelected(launches.size());
    double grandTotal = 0;
    const std::string* lastName = nullptr; // launches of one kernel mostly come in runs
    size_t lastKernel = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
        const CapturedLaunch& l = *launches[i];
        if (!lastName || *lastName != l.name) {
            auto it = kernelIndex.find(l.name);
            if (it == kernelIndex.end()) {
                it = kernelIndex.emplace(l.name, kernels.size()).first;
                std::string demangled = demangle(l.name);
                const bool matches = filter.matches(l.name, demangled);
                kernels.push_back(Acc{l.name, std::move(demangled), matches, {}, 0, 0});
            }
            lastName = &l.name;
            lastKernel = it->second;
        }
        Acc& k = kernels[lastKernel];
        const double d = static_cast<double>(l.durationNs());
        k.durations.push_back(d);
        k.total += d;
        grandTotal += d;
        launchKernel[i] = lastKernel;
        launchSelected[i] = filter.next(k.matches);
        if (launchSelected[i]) ++k.selected;
    }
    // Sorted by total time, largest first; the launches refer to the sorted positions.
    std::vector<size_t> order(kernels.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (kernels[a].total != kernels[b].total) return kernels[a].total > kernels[b].total;
        return kernels[a].name < kernels[b].name;
    });
    std::vector<size_t> position(kernels.size());
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;

    json kernelsJson = json::array();
    for (size_t idx : order) {
        const Acc& k = kernels[idx];
        const SampleStats s = computeStats(k.durations);
        json mods = json::array();
        for (size_t m = 0; m < modules.size(); ++m)
            if (std::find(modules[m].kernels.begin(), modules[m].kernels.end(), k.name) != modules[m].kernels.end())
                mods.push_back(m);
        kernelsJson.push_back({{"name", k.name},
                               {"demangled", k.demangled},
                               {"count", k.durations.size()},
                               {"total_ns", k.total},
                               {"share", grandTotal > 0 ? k.total / grandTotal : 0.0},
                               {"median_ns", s.median},
                               {"ci_low_ns", s.ciLow},
                               {"ci_high_ns", s.ciHigh},
                               {"min_ns", s.min},
                               {"max_ns", s.max},
                               {"mean_ns", s.mean},
                               {"selected", k.selected},
                               {"modules", mods}});
    }

    // The snapshots of the selected launches, each tied to its launch.
    std::vector<bool> taken(launches.size());
    std::unordered_map<size_t, std::string> launchSnapshot; // by launch index (few)
    json snapshotsJson = json::array();
    json snapshotNotes = json::array();
    for (const LaunchSnapshot& snap : log.snapshots) {
        int64_t index = snapshotLaunchIndex(launches, snap, taken);
        if (index >= 0) {
            taken[static_cast<size_t>(index)] = true;
            if (static_cast<size_t>(index) >= kMaxDocumentLaunches) index = -1;
            else launchSnapshot[static_cast<size_t>(index)] = snap.id();
        }
        snapshotsJson.push_back(snapshotDocumentEntry(snap, snapshotFolder, index));
        if (!snap.error.empty())
            snapshotNotes.push_back("launch " + snap.id() + " (" + demangle(snap.name) + ") was not saved for replay: " +
                                    snap.error);
        for (const SnapshotOmitted& o : snap.omitted)
            snapshotNotes.push_back("launch " + snap.id() + ": the allocation at " + snapshotAddressText(o.address) +
                                    " (" + std::to_string(o.bytes) + " bytes) was not saved: " + o.why);
        if (index < 0)
            snapshotNotes.push_back("launch " + snap.id() + " was saved but its kernel record is missing");
    }

    json modulesJson = json::array();
    for (const ModuleFile& m : modules) {
        json entry = {{"file", m.file}, {"hash", m.hash}, {"bytes", m.bytes}, {"arch", m.arch},
                      {"kernels", m.kernels}, {"pids", m.pids}};
        if (!m.error.empty()) entry["error"] = m.error;
        modulesJson.push_back(std::move(entry));
    }

    json processes = json::array();
    json notes = json::array();
    for (const CapturedProcess& p : log.processes) {
        processes.push_back({{"pid", p.pid}, {"cupti", p.cuptiVersion}, {"error", p.error},
                             {"flushed", p.flushed}, {"dropped", p.dropped}});
        if (!p.error.empty())
            notes.push_back("process " + std::to_string(p.pid) + " was not recorded: " + p.error);
        else if (!p.flushed)
            notes.push_back("process " + std::to_string(p.pid) +
                            " ended without flushing its records (killed, _exit or a crash): its last "
                            "kernels may be missing");
        if (p.dropped > 0)
            notes.push_back("CUPTI dropped " + std::to_string(p.dropped) + " kernel records of process " +
                            std::to_string(p.pid));
    }
    if (log.processes.empty())
        notes.push_back("no process of the program initialised CUDA with the injection library (did it use "
                        "the GPU? is CUDA_INJECTION64_PATH honoured by its driver?)");
    if (launches.size() > kMaxDocumentLaunches)
        notes.push_back("the first " + std::to_string(kMaxDocumentLaunches) + " of " +
                        std::to_string(launches.size()) + " launches are listed; the statistics use all");
    if (log.skippedLines > 0)
        notes.push_back(std::to_string(log.skippedLines) + " event lines were unreadable (the first: " +
                        log.firstSkipReason + ")");
    for (const ModuleFile& m : modules)
        if (!m.error.empty()) notes.push_back("module " + m.hash + ": " + m.error);
    for (const json& n : snapshotNotes) notes.push_back(n);
    for (const Acc& k : kernels) {
        bool found = false;
        for (const ModuleFile& m : modules)
            found = found || std::find(m.kernels.begin(), m.kernels.end(), k.name) != m.kernels.end();
        if (!found)
            notes.push_back("no saved module holds " + k.demangled +
                            " (loaded before the injection, or by a library CUPTI does not report)");
    }

    json devices = json::array();
    for (const CapturedDevice& d : log.devices)
        devices.push_back({{"id", d.id}, {"name", d.name}, {"cc", std::to_string(d.ccMajor) + "." +
                                                                  std::to_string(d.ccMinor)}});
    json environment = json::object();
    for (const auto& [k, v] : run.environment) environment[k] = v;
    const size_t written = std::min(launches.size(), kMaxDocumentLaunches);
    CaptureDocumentParts doc;
    doc.head = json{{"schema", kCaptureSchema},
                    {"program", run.program},
                    {"args", run.args},
                    {"working_dir", run.workingDir},
                    {"exit",
                     {{"code", run.exitCode}, {"signal", run.signal}, {"cancelled", run.cancelled},
                      {"timed_out", run.timedOut}, {"wall_ms", run.wallMs}}},
                    {"environment", environment},
                    {"durations", run.serializedKernels ? "serialized" : "concurrent"},
                    {"filter",
                     {{"kernel", filterOptions.kernelRegex},
                      {"launch_skip", filterOptions.skip},
                      {"launch_count", filterOptions.count ? json(*filterOptions.count) : json(nullptr)}}},
                    {"processes", processes},
                    {"devices", devices},
                    {"total_gpu_ns", grandTotal},
                    {"launch_total", launches.size()},
                    {"launches_written", written},
                    {"launches", json::array()},
                    {"kernels", kernelsJson},
                    {"modules", modulesJson},
                    {"snapshots", snapshotsJson},
                    {"notes", notes}};
    doc.launches.reserve(written);
    for (size_t i = 0; i < written; ++i) {
        const auto snap = launchSnapshot.find(i);
        doc.launches.push_back({*launches[i], position[launchKernel[i]], launchSelected[i],
                                snap == launchSnapshot.end() ? std::string() : snap->second});
    }
    return doc;
}

namespace {

// Appends one launch as one line: indented by 2, then the object as dump() writes it compactly,
// members in key order (std::map's, which the test of text() holds this to). Put together in a
// buffer first: appending piece by piece to `out` took twice as long.
void appendLaunch(std::string& out, size_t index, const DocumentLaunch& d) {
    using namespace std::string_view_literals;
    const CapturedLaunch& l = d.launch;
    char buf[1024]; // a launch: one line of under 300 characters and 20 numbers of at most 20 (a snapshot goes to `out`)
    char* p = buf;
    auto text = [&](std::string_view s) {
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    };
    auto integer = [&](std::string_view member, auto v) {
        text(member);
        p = writeJsonInteger(p, v);
    };
    auto triple = [&](std::string_view member, const std::array<int64_t, 3>& v) {
        text(member);
        text("["sv);
        p = writeJsonInteger(p, v[0]);
        text(","sv);
        p = writeJsonInteger(p, v[1]);
        text(","sv);
        p = writeJsonInteger(p, v[2]);
        text("]"sv);
    };
    triple("  {\"block\":"sv, l.block);
    triple(",\"cluster\":"sv, l.cluster);
    integer(",\"correlation\":"sv, l.correlationId);
    integer(",\"device\":"sv, l.device);
    integer(",\"duration_ns\":"sv, l.durationNs());
    integer(",\"dynamic_smem\":"sv, l.dynamicSmem);
    integer(",\"graph\":"sv, l.graphId);
    triple(",\"grid\":"sv, l.grid);
    integer(",\"id\":"sv, index + 1);
    integer(",\"kernel\":"sv, d.kernel);
    integer(",\"pid\":"sv, l.pid);
    integer(",\"registers\":"sv, l.registers);
    text(d.selected ? ",\"selected\":true"sv : ",\"selected\":false"sv);
    if (!d.snapshot.empty()) {
        text(",\"snapshot\":"sv);
        out.append(buf, p);
        p = buf;
        appendJsonString(out, d.snapshot);
    }
    integer(",\"start_ns\":"sv, l.startNs);
    integer(",\"static_smem\":"sv, l.staticSmem);
    integer(",\"stream\":"sv, l.stream);
    text("}"sv);
    out.append(buf, p);
}

} // namespace

std::string CaptureDocumentParts::text() const {
    std::string out = head.dump(1, ' ', false, json::error_handler_t::replace);
    if (!launches.empty()) {
        // The head's top-level member: only those start a line with one space (a dumped string
        // holds no line break).
        constexpr std::string_view kEmpty = "\n \"launches\": []";
        const size_t at = out.find(kEmpty);
        if (at == std::string::npos) throw std::logic_error("the capture document's head has no empty launches list");
        const size_t list = at + kEmpty.size() - 2;
        std::string rest = out.substr(list + 2);
        out.resize(list);
        out.reserve(out.size() + rest.size() + launches.size() * 300);
        out += "[\n";
        for (size_t i = 0; i < launches.size(); ++i) {
            if (i > 0) out += ",\n";
            appendLaunch(out, i, launches[i]);
        }
        out += "\n ]";
        out += rest;
    }
    out += '\n';
    return out;
}

json captureDocument(const CaptureLog& log, const CaptureRunInfo& run, const LaunchFilterOptions& filterOptions,
                     const std::vector<ModuleFile>& modules, const std::string& snapshotFolder) {
    return json::parse(captureDocumentParts(log, run, filterOptions, modules, snapshotFolder).text());
}

// ---------------------------------------------------------------------------- reading back

namespace {

std::optional<double> nonNegative(const json& j, const char* key) {
    const auto v = jsonFiniteNumber(j, key);
    if (!v || *v < 0) return std::nullopt;
    return v;
}

constexpr size_t kMaxNameBytes = 64 * 1024;

} // namespace

bool readCaptureDocument(const json& doc, CaptureSummary& out, std::string& error) {
    out = CaptureSummary{};
    if (!doc.is_object() || jsonString(doc, "schema") != kCaptureSchema) {
        const std::string schema = doc.is_object() ? jsonString(doc, "schema") : "";
        error = schema.rfind("lowerscope.capture/", 0) == 0
                    ? "the capture document is of a newer version (" + boundedText(schema, 60) +
                          ") than this Lowerscope reads (lowerscope.capture/1)"
                    : "not a Lowerscope capture document (schema lowerscope.capture/1)";
        return false;
    }
    out.program = boundedText(jsonString(doc, "program"), 4096);
    if (const auto a = doc.find("args"); a != doc.end() && a->is_array())
        for (const json& s : *a)
            if (s.is_string() && out.args.size() < 1000) out.args.push_back(boundedText(s.get<std::string>(), 4096));
    if (const auto e = doc.find("exit"); e != doc.end() && e->is_object()) {
        out.exitCode = static_cast<int>(std::clamp(jsonFiniteNumber(*e, "code").value_or(0), -1e6, 1e6));
        out.signal = static_cast<int>(std::clamp(jsonFiniteNumber(*e, "signal").value_or(0), 0.0, 1e3));
        const auto c = e->find("cancelled");
        out.cancelled = c != e->end() && c->is_boolean() && c->get<bool>();
    }
    out.serializedKernels = jsonString(doc, "durations") == "serialized";
    out.totalGpuNs = nonNegative(doc, "total_gpu_ns").value_or(0);
    out.launchTotal = static_cast<uint64_t>(std::min(nonNegative(doc, "launch_total").value_or(0), 1e18));
    if (const auto d = doc.find("devices"); d != doc.end() && d->is_array())
        for (const json& dev : *d)
            if (dev.is_object() && out.devices.size() < 64)
                out.devices.push_back(boundedText(jsonString(dev, "name"), 256) + " (compute capability " +
                                      boundedText(jsonString(dev, "cc"), 16) + ")");
    if (const auto n = doc.find("notes"); n != doc.end() && n->is_array())
        for (const json& s : *n)
            if (s.is_string() && out.notes.size() < 1000) out.notes.push_back(boundedText(s.get<std::string>(), 4096));

    const auto mods = doc.find("modules");
    if (mods == doc.end() || !mods->is_array()) {
        error = "the capture document has no modules list";
        return false;
    }
    for (const json& m : *mods) {
        CaptureModuleRow row;
        if (!m.is_object()) {
            error = "a module of the capture document is not an object";
            return false;
        }
        row.hash = jsonString(m, "hash");
        row.file = jsonString(m, "file");
        if (!isHashText(row.hash) || row.file != row.hash + ".cubin") {
            error = "module " + std::to_string(out.modules.size()) +
                    " of the capture document does not name its cubin as HASH.cubin (32 hex digits)";
            return false;
        }
        row.arch = boundedText(jsonString(m, "arch"), 32);
        row.bytes = static_cast<uint64_t>(std::min(nonNegative(m, "bytes").value_or(0), 1e15));
        if (const auto k = m.find("kernels"); k != m.end() && k->is_array())
            for (const json& s : *k)
                if (s.is_string() && s.get_ref<const std::string&>().size() <= kMaxNameBytes)
                    row.kernels.push_back(s.get<std::string>());
        out.modules.push_back(std::move(row));
    }
    const auto ks = doc.find("kernels");
    if (ks == doc.end() || !ks->is_array()) {
        error = "the capture document has no kernels list";
        return false;
    }
    for (const json& k : *ks) {
        CaptureKernelRow row;
        if (!k.is_object()) {
            error = "a kernel of the capture document is not an object";
            return false;
        }
        row.name = jsonString(k, "name");
        if (row.name.empty() || row.name.size() > kMaxNameBytes) {
            error = "kernel " + std::to_string(out.kernels.size()) + " of the capture document has no usable name";
            return false;
        }
        row.demangled = jsonString(k, "demangled");
        if (row.demangled.empty() || row.demangled.size() > kMaxDemangledBytes + 64) row.demangled = row.name;
        const auto count = nonNegative(k, "count");
        const auto total = nonNegative(k, "total_ns");
        if (!count || !total) {
            error = "kernel " + std::to_string(out.kernels.size()) + " of the capture document lacks count or total_ns";
            return false;
        }
        row.count = static_cast<uint64_t>(std::min(*count, 1e18));
        row.totalNs = *total;
        row.share = std::clamp(jsonFiniteNumber(k, "share").value_or(0), 0.0, 1.0);
        row.medianNs = nonNegative(k, "median_ns").value_or(0);
        row.ciLowNs = nonNegative(k, "ci_low_ns").value_or(0);
        row.ciHighNs = nonNegative(k, "ci_high_ns").value_or(0);
        row.minNs = nonNegative(k, "min_ns").value_or(0);
        row.maxNs = nonNegative(k, "max_ns").value_or(0);
        row.selected = static_cast<uint64_t>(std::min(nonNegative(k, "selected").value_or(0), 1e18));
        if (const auto m = k.find("modules"); m != k.end() && m->is_array()) {
            for (const json& i : *m) {
                if (!i.is_number_unsigned() || i.get<uint64_t>() >= out.modules.size()) {
                    error = "kernel " + std::to_string(out.kernels.size()) +
                            " of the capture document names a module that is not in its list";
                    return false;
                }
                row.modules.push_back(static_cast<size_t>(i.get<uint64_t>()));
            }
        }
        out.kernels.push_back(std::move(row));
    }
    if (const auto ls = doc.find("launches"); ls != doc.end()) {
        if (!ls->is_array()) {
            error = "the capture document's launches are not a list";
            return false;
        }
        for (const json& l : *ls) {
            const auto k = l.is_object() ? l.find("kernel") : l.end();
            if (!l.is_object() || k == l.end() || !k->is_number_unsigned() || k->get<uint64_t>() >= out.kernels.size()) {
                error = "a launch of the capture document names a kernel that is not in its list";
                return false;
            }
        }
    }
    return true;
}

bool readCaptureFile(const std::string& path, CaptureSummary& out, std::string& error) {
    std::string text;
    if (!readInputFile(path, kMaxDocumentBytes, "a capture document", text, error)) return false;
    const auto doc = parseJsonBounded(text, error);
    if (!doc) {
        error = escapeControl(path) + ": " + error;
        return false;
    }
    if (!readCaptureDocument(*doc, out, error)) {
        error = escapeControl(path) + ": " + error;
        return false;
    }
    return true;
}

bool looksLikeCaptureDocument(const std::string& path) {
    const std::string head = readInputHead(path, 4096);
    const size_t brace = head.find_first_not_of(" \t\r\n");
    if (brace == std::string::npos || head[brace] != '{') return false;
    if (head.find("\"lowerscope.capture/") != std::string::npos) return true;
    // The document is written with sorted keys, so "schema" comes after the launches and the
    // environment: past the head of a capture with more than a few launches. Look at the whole
    // (bounded) text of a JSON input.
    std::string text, error;
    return readInputFile(path, kMaxDocumentBytes, "a capture document", text, error) &&
           text.find("\"lowerscope.capture/") != std::string::npos;
}

bool captureKernelCubin(const std::string& documentPath, const CaptureSummary& summary, const std::string& query,
                        std::string& cubinPath, size_t& kernelIndex, std::string& error) {
    if (summary.kernels.empty()) {
        error = "the capture recorded no kernel launches";
        return false;
    }
    if (query.empty()) {
        if (summary.kernels.size() != 1) {
            error = "the capture holds " + std::to_string(summary.kernels.size()) +
                    " kernels: name one with --kernel (lowerscope-cli capture printed the table)";
            return false;
        }
        kernelIndex = 0;
    } else {
        std::vector<KernelName> names;
        for (const auto& k : summary.kernels) names.push_back({k.name, k.demangled});
        const int i = findKernel(names, query, &error);
        if (i < 0) return false;
        kernelIndex = static_cast<size_t>(i);
    }
    const CaptureKernelRow& k = summary.kernels[kernelIndex];
    if (k.modules.empty()) {
        error = "the capture saved no module that holds " + escapeControl(k.demangled) +
                " (it was loaded before the injection could see it, or CUPTI did not report it)";
        return false;
    }
    const CaptureModuleRow& m = summary.modules[k.modules.front()];
    const std::string folder = fs::path(documentPath).parent_path().empty()
                                   ? std::string(".")
                                   : fs::path(documentPath).parent_path().string();
    std::string resolved;
    if (!resolveDocumentPath(m.file, {folder}, "the capture's cubin", resolved, error)) return false;
    std::string bytes;
    if (!readInputFile(resolved, kMaxCodeBytes, "a cubin", bytes, error)) return false;
    if (xxh3Hex(bytes.data(), bytes.size()) != m.hash) {
        error = escapeControl(m.file) + " does not hold the cubin the capture recorded (its hash differs)";
        return false;
    }
    cubinPath = resolved;
    return true;
}

std::string kernelTableText(const CaptureSummary& s, size_t maxRows) {
    auto us = [](double ns) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f", ns / 1000.0);
        return std::string(b);
    };
    auto pad = [](const std::string& t, size_t w, bool left = false) {
        if (t.size() >= w) return t;
        return left ? t + std::string(w - t.size(), ' ') : std::string(w - t.size(), ' ') + t;
    };
    std::string out = s.serializedKernels
                          ? "GPU durations: CUPTI's serialising kernel records (each kernel ran alone; comparable with "
                            "Nsight Compute's gpu__time_duration)\n"
                          : "GPU durations: CUPTI's kernel records (first block starts to last block ends, as Nsight "
                            "Systems shows; about 1 us shorter than Nsight Compute's gpu__time_duration, which "
                            "--serialize-kernels matches)\n";
    out += pad("Time %", 7) + "  " + pad("Total (us)", 12) + "  " + pad("Launches", 8) + "  " +
                      pad("Median (us)", 11) + "  " + pad("95% CI (us)", 23) + "  " + pad("Min (us)", 10) + "  " +
                      pad("Max (us)", 10) + "  Kernel\n";
    size_t rows = 0;
    for (const CaptureKernelRow& k : s.kernels) {
        if (rows++ == maxRows) {
            out += "  ... " + std::to_string(s.kernels.size() - maxRows) + " more kernels in the document\n";
            break;
        }
        char share[16];
        std::snprintf(share, sizeof share, "%.1f", k.share * 100.0);
        out += pad(share, 7) + "  " + pad(us(k.totalNs), 12) + "  " + pad(std::to_string(k.count), 8) + "  " +
               pad(us(k.medianNs), 11) + "  " + pad("[" + us(k.ciLowNs) + ", " + us(k.ciHighNs) + "]", 23) + "  " +
               pad(us(k.minNs), 10) + "  " + pad(us(k.maxNs), 10) + "  " +
               escapeControl(boundedText(kernelNameWithArgs(k.demangled), 120)) + "\n";
    }
    return out;
}

} // namespace lowerscope::capture
