// `lowerscope-cli build` and `lowerscope-cli doctor`.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"

#include "core/analysis/source_files.h"
#include "core/build/build.h"
#include "core/build/json_io.h"
#include "core/build/toolchain.h"
#include "core/parse/diagnostics.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>

namespace lowerscope::cli {

namespace {

struct BuildArgs {
    CLI::App* cmd = nullptr;
    std::string file;
    BuildOptions options;
    InputFlags input;
    bool list = false;
    std::string jsonOut;
    std::string print;
    bool noCache = false;
    std::string cacheDir;
    double timeoutSec = 120;
};

struct DoctorArgs {
    std::string jsonOut;
};


std::string resourceCell(int v) { return v < 0 ? "-" : std::to_string(v); }

void printResources(const BuildResult& r) {
    std::printf("%-48s %5s %8s %7s %7s %8s %8s %9s\n", "kernel", "regs", "shared", "local", "stack", "spill_st",
                "spill_ld", "constant");
    for (const auto& k : r.kernels) {
        const Resources& s = k.resources;
        std::printf("%-48s %5s %8s %7s %7s %8s %8s %9s\n", k.name.c_str(), resourceCell(s.registers).c_str(),
                    resourceCell(s.sharedBytes).c_str(), resourceCell(s.localBytes).c_str(),
                    resourceCell(s.stackBytes).c_str(), resourceCell(s.spillStores).c_str(),
                    resourceCell(s.spillLoads).c_str(), resourceCell(s.constantBytes).c_str());
    }
}

// The embedded cubins and PTX of a container (or a Triton cache's kernels), one line each.
void printEmbedded(const BuildResult& r) {
    std::printf("%-40s %-7s %s\n", "member", "arch", "kernels");
    for (const auto& e : r.embedded) {
        std::string kernels;
        for (const auto& k : e.kernels) kernels += (kernels.empty() ? "" : " ") + k;
        // Names come from the binary: printed with control bytes escaped.
        std::printf("%-40s %-7s %s%s\n", escapeControl(e.name).c_str(), escapeControl(e.arch).c_str(),
                    kernels.empty() ? "-" : escapeControl(kernels).c_str(),
                    e.name == r.member ? "   (opened)" : "");
    }
}

int exitCodeOf(const BuildResult& r) { return r.setupError ? 2 : r.ok ? 0 : 1; }

int runBuild(const BuildArgs& a) {
    if (a.jsonOut == "-" && (!a.print.empty() || a.list)) {
        std::cerr << "lowerscope-cli build: error: --json - and --print/--list both write to stdout; pick one\n";
        return 2;
    }
    ResolvedInputs resolved;
    try {
        resolved = resolveInputs(*a.cmd, a.file, a.options, a.input);
    } catch (const std::exception& e) {
        std::cerr << "lowerscope-cli build: error: " << escapeControl(e.what()) << '\n';
        return 2;
    }
    if (resolved.project)
        for (const auto& d : resolved.project->dropped)
            std::cerr << "lowerscope-cli build: note: project flag not used: " << escapeControl(d) << '\n';
    DiscoveryOptions discovery;
    discovery.memoDir = a.cacheDir; // keep the tool-version memo next to the build cache it serves
    Toolchain tc = discoverToolchain(discovery);
    BuildControl control;
    control.useCache = !a.noCache;
    control.cacheDir = a.cacheDir;
    control.timeout = std::chrono::milliseconds(static_cast<long long>(a.timeoutSec * 1000));

    // Several architectures build in parallel (each its own tool runs and cache entry).
    std::vector<std::future<BuildResult>> jobs;
    for (const auto& in : resolved.inputs)
        jobs.push_back(std::async(std::launch::async, [&tc, in, control] { return buildInput(tc, in, control); }));
    std::vector<BuildResult> results;
    for (auto& j : jobs) results.push_back(j.get());

    int rc = 0;
    for (size_t i = 0; i < results.size(); ++i) {
        const BuildResult& r = results[i];
        const std::string label = results.size() > 1 ? " [" + resolved.inputs[i].options.arch + "]" : "";
        for (const auto& d : r.diagnostics) std::cerr << formatDiagnostic(d) << '\n';
        if (r.setupError) std::cerr << "lowerscope-cli build: error" << label << ": " << escapeControl(r.error) << '\n';
        else if (r.compileError)
            std::cerr << "lowerscope-cli build: " << escapeControl(a.file) << label << ": compilation failed\n";
        else if (!r.ok) std::cerr << "lowerscope-cli build: error" << label << ": " << escapeControl(r.error) << '\n';
        rc = std::max(rc, exitCodeOf(r));
    }

    if (!a.jsonOut.empty()) {
        std::vector<nlohmann::json> docs;
        for (size_t i = 0; i < results.size(); ++i) {
            nlohmann::json d = buildReportJson(a.file, tc, resolved.inputs[i].options, results[i]);
            if (resolved.project) d["project"] = projectJson(*resolved.project);
            // The files the code maps to, from the PTX `.file` table (the build does not analyse
            // the SASS, so no instruction counts: `inspect` has them).
            if (results[i].ok) {
                nlohmann::json files = nlohmann::json::array();
                for (const auto& f : collectSourceFiles(ptxFileTable(results[i].ptx), {}, sourceContextFor(resolved.inputs[i], tc)))
                    files.push_back(nlohmann::json{{"path", f.path},
                                                   {"resolved", f.resolved.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.resolved)},
                                                   {"kind", sourceFileKindName(f.kind)},
                                                   {"read_only", f.readOnly}});
                d["files"] = std::move(files);
            }
            docs.push_back(std::move(d));
        }
        nlohmann::json out = docs.front();
        if (docs.size() > 1) {
            // One document per architecture, in the order given.
            std::vector<std::string> archs;
            for (const auto& in : resolved.inputs) archs.push_back(in.options.arch);
            out = nlohmann::json{{"schema", "lowerscope.build-set/1"},
                                 {"source", a.file},
                                 {"archs", archs},
                                 {"ok", rc == 0},
                                 {"builds", docs}};
            if (resolved.project) out["project"] = projectJson(*resolved.project);
        }
        if (!writeJson(out, a.jsonOut)) return 2;
    }
    if (a.list && !results.front().embedded.empty()) printEmbedded(results.front());
    if (rc != 0) return rc;

    for (size_t i = 0; i < results.size(); ++i) {
        const BuildResult& r = results[i];
        if (results.size() > 1 && (!a.print.empty() || a.jsonOut.empty())) std::printf("== %s\n", r.arch.c_str());
        if (a.print == "ptx") {
            std::cout << r.ptx;
        } else if (a.print == "sass") {
            for (const auto& k : r.kernels) std::cout << k.sass;
        } else if (a.print == "resources") {
            printResources(r);
        } else if (a.jsonOut.empty() && !a.list) {
            auto total = r.timingsMs.count("total") ? r.timingsMs.at("total") : 0.0;
            std::string what = r.member.empty() ? "" : " (" + r.member + ")";
            std::printf("built %s%s for %s: %zu kernel(s), %.0f ms%s\n", escapeControl(a.file).c_str(),
                        escapeControl(what).c_str(),
                        r.arch.empty() ? "?" : r.arch.c_str(), r.kernels.size(), total, r.cacheHit ? " (cache hit)" : "");
            printResources(r);
        }
    }
    std::cout.flush();
    return rc;
}

int runDoctor(const DoctorArgs& a) {
    Toolchain tc = discoverToolchain();
    std::vector<std::string> problems = tc.problems();
    if (!a.jsonOut.empty()) {
        nlohmann::json j{{"schema", "lowerscope.doctor/1"}, {"toolchain", tc}, {"cache_dir", cacheDirectory()}};
        if (!writeJson(j, a.jsonOut)) return 2;
    }
    if (a.jsonOut != "-") {
        for (const ToolInfo* t : {&tc.nvcc, &tc.ptxas, &tc.nvdisasm, &tc.cuobjdump}) {
            if (t->found())
                std::printf("%-10s %-10s %-8s %s\n", t->name.c_str(), t->version.empty() ? "?" : t->version.c_str(),
                            t->origin.c_str(), t->path.c_str());
            else
                std::printf("%-10s NOT FOUND  %s\n", t->name.c_str(), t->note.c_str());
        }
        std::string archs;
        for (const auto& s : tc.gpuArchs) archs += (archs.empty() ? "" : " ") + s;
        std::printf("archs      %s\n", archs.empty() ? "(unknown: nvcc not found or did not answer)" : archs.c_str());
        std::printf("cache      %s\n", cacheDirectory().c_str());
        if (problems.empty()) std::printf("ok: every tool found\n");
    }
    for (const auto& p : problems) std::cerr << "problem: " << p << '\n';
    std::cout.flush();
    return problems.empty() ? 0 : 2;
}

} // namespace

// Writes `j` to `path` ('-' = stdout). False (with a message on stderr) when the file cannot be written.
bool writeJson(const nlohmann::json& j, const std::string& path) {
    std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (path == "-") {
        std::cout << text << '\n';
        std::cout.flush();
        return static_cast<bool>(std::cout);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text << '\n';
    out.flush();
    if (!out) {
        std::cerr << "lowerscope-cli: error: cannot write " << path << '\n';
        return false;
    }
    return true;
}

void registerBuildCommands(CLI::App& app, int& exitCode) {
    auto buildArgs = std::make_shared<BuildArgs>();
    CLI::App* build = app.add_subcommand(
        "build", "Build a .cu, .ptx, cubin, fatbin, object, library or program, or a Triton cache folder, to PTX, "
                 "cubin and SASS; report resources and diagnostics. --arch sm_80,sm_90 builds several.\n"
                 "Exit: 0 built, 1 compile error (or a tool failed), 2 usage error or missing tool.");
    buildArgs->cmd = build;
    build->add_option("file", buildArgs->file, "what to open (docs/INPUTS.md)")->required()->type_name("FILE");
    addBuildOptionFlags(*build, buildArgs->options);
    addInputFlags(*build, buildArgs->input);
    build->add_flag("--list", buildArgs->list, "binaries, Triton caches: list the embedded cubins/PTX (or kernels)");
    build->add_option("--json", buildArgs->jsonOut, "write the lowerscope.build/1 JSON document to OUT ('-' = stdout)")
        ->type_name("OUT");
    build->add_option("--print", buildArgs->print, "print ptx (module), sass (per kernel) or resources to stdout")
        ->check(CLI::IsMember({"ptx", "sass", "resources"}));
    build->add_flag("--no-cache", buildArgs->noCache, "neither read nor write the build cache");
    build->add_option("--cache-dir", buildArgs->cacheDir, "cache directory (default $LOWERSCOPE_CACHE_DIR, "
                                                          "$XDG_CACHE_HOME/lowerscope or ~/.cache/lowerscope)")
        ->type_name("DIR");
    build->add_option("--timeout", buildArgs->timeoutSec, "per tool run, seconds (default 120)")
        ->check(CLI::PositiveNumber)
        ->type_name("SEC");
    build->callback([buildArgs, &exitCode] { exitCode = runBuild(*buildArgs); });

    auto doctorArgs = std::make_shared<DoctorArgs>();
    CLI::App* doctor = app.add_subcommand(
        "doctor", "Show where nvcc, ptxas, nvdisasm and cuobjdump are, their versions and the GPU "
                  "architectures nvcc supports. Exit 2 when a tool is missing (with how to get it).");
    doctor->add_option("--json", doctorArgs->jsonOut, "also write the result as JSON to OUT ('-' = stdout only)")
        ->type_name("OUT");
    doctor->callback([doctorArgs, &exitCode] { exitCode = runDoctor(*doctorArgs); });
}

} // namespace lowerscope::cli
