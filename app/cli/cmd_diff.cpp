// `lowerscope-cli diff`: two builds compared kernel by kernel without a GPU: the aligned SASS diff,
// resource deltas and the instruction-mix change of every kernel both have. A and B may be two
// files of any input kind (two versions of a library, a .cu and its Triton twin), or one file built
// two ways (--a "--arch sm_80" --b "--arch sm_90"). Exit: 0 compared, 1 a build failed, 2 usage
// error or missing tool.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"

#include "core/analysis/diff.h"
#include "core/analysis/lowering.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/parse/diagnostics.h"
#include "core/untrusted.h"

#include <algorithm>
#include <future>
#include <iostream>
#include <memory>
#include <optional>

namespace lowerscope::cli {

namespace {

struct DiffArgs {
    std::string fileA, fileB;
    std::string optsA, optsB;
    std::string memberA, memberB;
    std::string project;
    std::string kernel;
    std::string jsonOut;
    bool opcodesOnly = false;
    bool noCache = false;
};

// The build input of one side: its options from the option string (over the project's, when
// given); without --arch a PTX keeps its .target and a binary its first cubin.
BuildInput sideInput(const std::string& file, const std::string& opts, const std::string& member,
                     const std::optional<BuildOptions>& base) {
    BuildInput in = describeInput(file, parseBuildOptionString(opts, base ? &*base : nullptr));
    in.member = member;
    if (in.kind != InputKind::CudaSource && opts.find("--arch") == std::string::npos && !base) in.options.arch.clear();
    return in;
}

nlohmann::json deltasJson(const std::vector<ResourceDelta>& deltas) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : deltas)
        out.push_back({{"name", d.name},
                       {"a", d.a < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.a)},
                       {"b", d.b < 0 ? nlohmann::json(nullptr) : nlohmann::json(d.b)}});
    return out;
}

int runDiff(const DiffArgs& a) {
    std::optional<BuildOptions> base;
    BuildInput inA, inB;
    try {
        if (!a.project.empty()) base = projectOptions(a.project, a.fileA).options;
        inA = sideInput(a.fileA, a.optsA, a.memberA, base);
        inB = sideInput(a.fileB.empty() ? a.fileA : a.fileB, a.optsB, a.memberB, base);
    } catch (const std::exception& e) {
        std::cerr << "lowerscope-cli diff: error: " << escapeControl(e.what()) << '\n';
        return 2;
    }
    const Toolchain tc = discoverToolchain();
    BuildControl control;
    control.useCache = !a.noCache;
    auto jobA = std::async(std::launch::async, [&] { return buildInput(tc, inA, control); });
    const BuildResult rb = buildInput(tc, inB, control);
    const BuildResult ra = jobA.get();
    int rc = 0;
    for (const auto* side : {&ra, &rb}) {
        const char* name = side == &ra ? "A" : "B";
        for (const auto& d : side->diagnostics)
            if (d.severity == Severity::Error) std::cerr << name << ": " << escapeControl(formatDiagnostic(d)) << '\n';
        if (!side->ok) {
            std::cerr << "lowerscope-cli diff: " << name << ": " << escapeControl(side->error) << '\n';
            rc = std::max(rc, side->setupError ? 2 : 1);
        }
    }
    if (rc) return rc;

    const LoweringModel ma = buildLoweringModel(ra), mb = buildLoweringModel(rb);
    DiffOptions options;
    options.mode = a.opcodesOnly ? DiffMode::Opcode : DiffMode::Full;
    options.naming = RegisterNaming::PerAnchor;
    nlohmann::json kernels = nlohmann::json::array();
    std::vector<std::string> onlyA, onlyB;
    for (const auto& ka : ma.kernels) {
        if (!a.kernel.empty() && !ma.kernel(a.kernel)) break;
        if (!a.kernel.empty() && ma.kernel(a.kernel) != &ka) continue;
        const KernelModel* kb = mb.kernel(ka.mangled);
        if (!kb) {
            onlyA.push_back(ka.mangled);
            continue;
        }
        const SassDiff d = diffSass(ka.sass, kb->sass, options);
        if (a.jsonOut != "-")
            std::cout << "== " << escapeControl(ka.name) << ": " << d.summary.instructionsA << " → " << d.summary.instructionsB
                  << " instructions, " << d.summary.equal << " equal, " << d.summary.changed << " changed, "
                  << d.summary.removed << " removed, " << d.summary.added << " added\n";
        if (a.jsonOut != "-") std::cout << formatDiffExcerpt(d, ka.sass, kb->sass);
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : d.rows)
            rows.push_back({{"a", r.a < 0 ? nlohmann::json(nullptr) : nlohmann::json(ka.sass.instructions[size_t(r.a)].address)},
                            {"b", r.b < 0 ? nlohmann::json(nullptr) : nlohmann::json(kb->sass.instructions[size_t(r.b)].address)},
                            {"status", diffStatusName(r.status)},
                            {"file", r.source.file},
                            {"line", r.source.line}});
        kernels.push_back({{"name", ka.name},
                           {"mangled", ka.mangled},
                           {"summary",
                            {{"instructions_a", d.summary.instructionsA},
                             {"instructions_b", d.summary.instructionsB},
                             {"equal", d.summary.equal},
                             {"changed", d.summary.changed},
                             {"added", d.summary.added},
                             {"removed", d.summary.removed}}},
                           {"resources", deltasJson(resourceDeltas(ka.resources, kb->resources, ra.arch))},
                           {"rows", rows}});
    }
    for (const auto& kb : mb.kernels)
        if (!ma.kernel(kb.mangled)) onlyB.push_back(kb.mangled);
    if (kernels.empty()) {
        std::cerr << "lowerscope-cli diff: error: no kernel in both A and B"
                  << (a.kernel.empty() ? "" : " named '" + a.kernel + "'") << '\n';
        return 2;
    }
    if (!onlyA.empty() || !onlyB.empty())
        std::cerr << "lowerscope-cli diff: note: " << onlyA.size() << " kernel(s) only in A, " << onlyB.size()
                  << " only in B\n";
    if (!a.jsonOut.empty()) {
        auto side = [](const BuildInput& in, const BuildResult& r) {
            return nlohmann::json{{"path", in.path}, {"kind", r.inputKind}, {"arch", r.arch}, {"member", r.member}};
        };
        nlohmann::json doc{{"schema", "lowerscope.diff/1"}, {"a", side(inA, ra)},   {"b", side(inB, rb)},
                           {"kernels", kernels},           {"only_a", onlyA},       {"only_b", onlyB}};
        if (!writeJson(doc, a.jsonOut)) return 2;
    }
    std::cout.flush();
    return 0;
}

} // namespace

void registerDiffCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<DiffArgs>();
    CLI::App* cmd = app.add_subcommand(
        "diff", "Compare two builds kernel by kernel without a GPU: aligned SASS diff, resource deltas. A and B are "
                "two files of any input kind (two versions of a library), or one file built two ways (--a/--b).\n"
                "Exit: 0 compared, 1 a build failed, 2 usage error or missing tool.");
    cmd->add_option("file_a", args->fileA, "A: what to open (docs/INPUTS.md)")->required()->type_name("A");
    cmd->add_option("file_b", args->fileB, "B (default: A's file)")->type_name("B");
    cmd->add_option("--a", args->optsA, "build options of A, e.g. \"--arch sm_80\"")->type_name("OPTS");
    cmd->add_option("--b", args->optsB, "build options of B, e.g. \"--arch sm_90\"")->type_name("OPTS");
    cmd->add_option("--member-a", args->memberA, "A's embedded cubin/PTX (binaries) or kernel (Triton cache)");
    cmd->add_option("--member-b", args->memberB, "B's embedded cubin/PTX (binaries) or kernel (Triton cache)");
    addProjectBaseFlag(*cmd, args->project);
    cmd->add_option("--kernel", args->kernel, "only this kernel (mangled, demangled or bare name)")->type_name("NAME");
    cmd->add_flag("--opcodes", args->opcodesOnly, "compare opcodes only (ignore operands)");
    cmd->add_option("--json", args->jsonOut, "write the lowerscope.diff/1 document to OUT ('-' = stdout)")
        ->type_name("OUT");
    cmd->add_flag("--no-cache", args->noCache, "neither read nor write the build cache");
    cmd->callback([args, &exitCode] { exitCode = runDiff(*args); });
}

} // namespace lowerscope::cli
