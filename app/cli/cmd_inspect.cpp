// `lowerscope-cli inspect`: build a .cu file and write its lowering model (PTX, SASS, dependencies,
// CFG, per-line aggregates, the files the code maps to) as `lowerscope.inspect/2` JSON; with
// --line [FILE:]N also print that line's PTX and SASS, attributed per --frame.
// Exit: 0 ok, 1 compile error (or a tool failed), 2 usage error or missing tool.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"

#include "core/analysis/inspect.h"
#include "core/capture/capture_document.h"
#include "core/analysis/lowering.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/parse/diagnostics.h"
#include "core/untrusted.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace lowerscope::cli {

namespace {

struct InspectArgs {
    CLI::App* cmd = nullptr;
    std::string file;
    BuildOptions options;
    InputFlags input;
    std::string kernel;
    std::string line;            // "N" or "FILE:N"
    std::string frame = "any";   // call-site | callee | any
    std::string jsonOut;
    bool noCache = false;
};

int runInspect(const InspectArgs& given) {
    InspectArgs a = given;
    // A capture document (lowerscope-cli capture): the kernel's cubin saved next to it is what opens.
    if (capture::looksLikeCaptureDocument(a.file)) {
        std::string error, cubin;
        size_t index = 0;
        capture::CaptureSummary summary;
        if (!capture::readCaptureFile(a.file, summary, error) ||
            !capture::captureKernelCubin(a.file, summary, a.kernel, cubin, index, error)) {
            std::cerr << "lowerscope-cli inspect: error: " << escapeControl(error) << '\n';
            return 2;
        }
        std::cerr << "lowerscope-cli inspect: note: " << escapeControl(summary.kernels[index].demangled)
                  << " from the capture: its cubin " << escapeControl(cubin) << '\n';
        a.file = cubin;
        a.kernel = summary.kernels[index].name;
    }
    if (a.jsonOut.empty() && a.line.empty()) {
        std::cerr << "lowerscope-cli inspect: error: nothing to do: give --json OUT and/or --line [FILE:]N\n";
        return 2;
    }
    const std::optional<InlineAttribution> frame = parseAttribution(a.frame);
    if (!frame) {
        std::cerr << "lowerscope-cli inspect: error: --frame is call-site, callee or any, not '" << escapeControl(a.frame)
                  << "'\n";
        return 2;
    }
    if (a.jsonOut == "-" && !a.line.empty()) {
        std::cerr << "lowerscope-cli inspect: error: --json - and --line both write to stdout; pick one\n";
        return 2;
    }
    ResolvedInputs resolved;
    try {
        resolved = resolveInputs(*a.cmd, a.file, a.options, a.input);
    } catch (const std::exception& e) {
        std::cerr << "lowerscope-cli inspect: error: " << escapeControl(e.what()) << '\n';
        return 2;
    }
    if (resolved.inputs.size() > 1)
        std::cerr << "lowerscope-cli inspect: note: inspecting " << resolved.inputs.front().options.arch
                  << " (the first of the architectures)\n";
    const Toolchain tc = discoverToolchain();
    BuildControl control;
    control.useCache = !a.noCache;
    const BuildResult r = buildInput(tc, resolved.inputs.front(), control);
    for (const auto& d : r.diagnostics) std::cerr << formatDiagnostic(d) << '\n';
    if (r.setupError) {
        std::cerr << "lowerscope-cli inspect: error: " << escapeControl(r.error) << '\n';
        return 2;
    }
    if (r.compileError) {
        std::cerr << "lowerscope-cli inspect: " << escapeControl(a.file) << ": compilation failed\n";
        return 1;
    }
    if (!r.ok) {
        std::cerr << "lowerscope-cli inspect: error: " << escapeControl(r.error) << '\n';
        return 1;
    }

    const LoweringModel model = buildLoweringModel(r, sourceContextFor(resolved.inputs.front(), tc));
    if (std::string why; !a.kernel.empty() && !model.kernel(a.kernel, &why)) {
        std::cerr << "lowerscope-cli inspect: error: " << escapeControl(why) << '\n';
        return 2;
    }
    InspectOptions o;
    o.sourceFile = a.file;
    o.kernel = a.kernel;
    o.frame = *frame;
    if (!a.line.empty()) {
        std::string error;
        if (!resolveLineQuery(model, a.line, o.queryFile, o.line, error)) {
            std::cerr << "lowerscope-cli inspect: error: " << escapeControl(error) << '\n';
            return 2;
        }
    }
    if (!a.jsonOut.empty()) {
        const std::string text = inspectJson(model, o).dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (a.jsonOut == "-") {
            std::cout << text << '\n';
        } else {
            std::ofstream out(a.jsonOut, std::ios::binary | std::ios::trunc);
            out << text << '\n';
            out.flush();
            if (!out) {
                std::cerr << "lowerscope-cli inspect: error: cannot write " << a.jsonOut << '\n';
                return 2;
            }
        }
    }
    if (o.line > 0) std::cout << lineReport(model, o);
    std::cout.flush();
    return 0;
}

} // namespace

void registerInspectCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<InspectArgs>();
    CLI::App* cmd = app.add_subcommand(
        "inspect", "Build a .cu file and write its lowering model (PTX, SASS with control codes, def/use, "
                   "dependencies, CFG, per-line aggregates, the files the code maps to) as lowerscope.inspect/2 "
                   "JSON; --line [FILE:]N also prints that source line's PTX and SASS.\n"
                   "Exit: 0 ok, 1 compile error (or a tool failed), 2 usage error or missing tool.");
    args->cmd = cmd;
    cmd->add_option("file", args->file,
                    "what to open: .cu, .ptx, cubin, binary, Triton folder (docs/INPUTS.md), or a capture document "
                    "(lowerscope-cli capture; --kernel picks the kernel whose saved cubin opens)")
        ->required()
        ->type_name("FILE");
    addBuildOptionFlags(*cmd, args->options);
    addInputFlags(*cmd, args->input);
    cmd->add_option("--kernel", args->kernel, "only this kernel (mangled, demangled or bare name)")->type_name("NAME");
    cmd->add_option("--line", args->line,
                    "source line to show (PTX and SASS printed to stdout): N in the built file, or FILE:N in "
                    "any file the code maps to (a path, or its file name when that is unique)")
        ->type_name("[FILE:]N");
    cmd->add_option("--frame", args->frame,
                    "which instructions belong to the line: those inlined at it (call-site), those written on "
                    "it (callee), or those whose inline chain passes through it at any depth (any; default)")
        ->type_name("call-site|callee|any");
    cmd->add_option("--json", args->jsonOut, "write the lowerscope.inspect/2 document to OUT ('-' = stdout)")
        ->type_name("OUT");
    cmd->add_flag("--no-cache", args->noCache, "neither read nor write the build cache");
    cmd->callback([args, &exitCode] { exitCode = runInspect(*args); });
}

} // namespace lowerscope::cli
