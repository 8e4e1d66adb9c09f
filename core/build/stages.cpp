#include "core/build/stages.h"
#include "core/untrusted.h"

#include "core/build/demangle.h"
#include "core/build/failure_kind.h"
#include "core/build/lifetime.h"
#include "core/build/option_safety.h"
#include "core/build/process.h"
#include "core/parse/cuda_elf.h"
#include "core/parse/diagnostics.h"
#include "core/parse/tool_output.h"

#include <algorithm>
#include <regex>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Through the one input rule (core/untrusted.h): regular files only, never blocking on a FIFO, the
// size checked before reading; `error` (when given) names the file and the limit.
bool readFile(const std::string& path, std::string& out, std::string* error = nullptr,
              std::size_t limit = kMaxCodeBytes, const char* what = "PTX or a cubin") {
    std::string why;
    if (readInputFile(path, limit, what, out, why)) return true;
    if (error) *error = why;
    return false;
}

CommandRecord record(const std::string& stage, const ProcessSpec& spec, const ProcessResult& r, bool keepStdout) {
    CommandRecord c;
    c.stage = stage;
    c.argv = spec.argv;
    c.exitCode = r.started() ? r.exitCode : -1;
    c.wallMs = r.wallMs;
    if (keepStdout) c.stdoutText = r.stdoutText;
    c.stderrText = r.started() ? r.stderrText : r.startError;
    return c;
}

// Fills the per-stage failure fields for a tool run that did not succeed. Returns true if it failed.
bool failedRun(BuildResult& result, const std::string& tool, const ProcessResult& r) {
    if (r.ok()) return false;
    if (r.cancelled) {
        result.cancelled = true;
        result.error = "cancelled";
    } else if (!r.started()) {
        result.error = r.startError;
        result.setupError = true;
    } else {
        std::string firstLine = r.stderrText.substr(0, r.stderrText.find('\n'));
        result.error = tool + " failed: " + r.describe() + (firstLine.empty() ? "" : ": " + firstLine);
    }
    return true;
}

ProcessSpec toolSpec(const StageContext& ctx, std::vector<std::string> argv) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.timeout = ctx.control.timeout;
    s.cancel = ctx.control.cancel;
    // The tools' own temporary files (nvcc's tmpxft_*) go into the build's folder, so they are
    // removed with it: after a kill, a cancel or a crash too (lifetime.h's watchdog).
    s.env["TMPDIR"] = ctx.tempDir + "/tmp";
    return s;
}

} // namespace

std::string archSpecificHint(const std::string& ptxasText) {
    // "Instruction 'wgmma.fence' not supported on .target 'sm_90'": a plain target whose
    // arch-specific variant ("sm_90a") has the instruction.
    static const std::regex notSupported(R"(Instruction '([^']+)' not supported on \.target '(sm_[0-9]+)')");
    std::smatch m;
    if (!std::regex_search(ptxasText, m, notSupported)) return {};
    return "'" + m[1].str() + "' needs the arch-specific target: build for " + m[2].str() + "a (--arch " + m[2].str() +
           "a), which runs only on that GPU generation";
}

namespace {

// A failed compile or assembly: the compiler's verdict on the code (compileError, cached like a
// success) or an accident of this run (a signal, a full disk, a crashed step: failure_kind.h),
// which is reported as a tool failure and never cached.
void compilerFailed(BuildResult& result, const char* tool, const ProcessResult& r, const char* what) {
    failedRun(result, tool, r);
    if (!r.started() || r.cancelled || r.timedOut) return;
    if (const std::string transient = transientFailureReason(r); !transient.empty()) {
        std::string firstLine = r.stderrText.substr(0, r.stderrText.find('\n'));
        result.error = std::string(tool) + " failed (" + transient + ", not cached): " + r.describe() +
                       (firstLine.empty() ? "" : ": " + firstLine);
        return;
    }
    result.compileError = true;
    // Instructions of an arch-specific target (wgmma, setmaxnreg, tcgen05 ...) on its plain
    // target end in hundreds of ptxas errors that never say which target would take them.
    if (const std::string hint = archSpecificHint(r.stderrText); !hint.empty()) {
        Diagnostic d;
        d.tool = tool;
        d.severity = Severity::Note;
        d.message = hint;
        result.diagnostics.insert(result.diagnostics.begin(), d);
        result.error = std::string(what) + " (" + hint + ")";
        return;
    }
    if (std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; })) {
        Diagnostic d;
        d.tool = tool;
        d.message = std::string(tool) + " " + r.describe() + (r.stderrText.empty() ? "" : ": " + r.stderrText.substr(0, 2000));
        result.diagnostics.push_back(std::move(d));
    }
    result.error = what;
}

// `text` with every occurrence of `from` replaced by `to`.
void replaceAll(std::string& text, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t p = 0; (p = text.find(from, p)) != std::string::npos; p += to.size()) text.replace(p, from.size(), to);
}

// A file name made of the characters nvcc's shell leaves alone ("k$(id).cu" → "k__id_.cu").
std::string safeFileName(const std::string& name) {
    std::string out;
    for (char c : name) out.push_back(isShellSafePath(std::string(1, c)) && c != '/' ? c : '_');
    if (out.empty() || out.front() == '-' || out.front() == '.') out.insert(0, "source");
    return out;
}

Resources mergeResources(const Resources* ptxas, const Resources* cuobj) {
    // ptxas -v is authoritative for what it reports (its smem excludes the 1 KiB the driver
    // reserves per block on sm_80+, which cuobjdump's SHARED includes on some archs); cuobjdump
    // fills the rest (LOCAL, CONSTANT[0] when ptxas omitted it).
    Resources r;
    if (ptxas) r = *ptxas;
    if (cuobj) {
        auto fill = [](int& dst, int src) {
            if (dst < 0) dst = src;
        };
        fill(r.registers, cuobj->registers);
        fill(r.stackBytes, cuobj->stackBytes);
        fill(r.sharedBytes, cuobj->sharedBytes);
        fill(r.constantBytes, cuobj->constantBytes);
        if (cuobj->localBytes >= 0) r.localBytes = cuobj->localBytes;
    }
    return r;
}

} // namespace

TempDir::TempDir() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    // nvcc pastes this folder into its shell command lines (-o, -keep-dir, TMPDIR): it must be
    // shell-safe itself (option_safety.h).
    if (ec || !isShellSafePath(fs::absolute(base, ec).string())) base = "/tmp";
    std::string tmpl = (base / "lowerscope-build-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    m_path = tmpl;
    fs::create_directories(m_path + "/tmp", ec);
    watchDirectory(m_path); // removed by the watchdog should this process be killed
}

TempDir::~TempDir() {
    if (m_path.empty()) return;
    std::error_code ec;
    fs::remove_all(m_path, ec);
    unwatchDirectory(m_path);
}

bool compileCuda(StageContext& ctx, const std::string& sourcePath, const BuildOptions& options, CompiledCubin& out) {
    BuildResult& result = ctx.result;
    std::error_code ec;
    // nvcc hands its input's path to the shell it runs its steps through (in double quotes, where
    // $ and ` are live): a path with anything but safe characters is built from a copy with a safe
    // name. `#line` keeps the real path in diagnostics, line info and __FILE__, and the real folder
    // comes first on the include path through a safe-named link, so "..." includes still resolve;
    // what still names the link or the copy is mapped back below.
    std::string nvccSource = sourcePath;
    BuildOptions nvccOptions = options;
    std::vector<std::pair<std::string, std::string>> pathMap; // temp prefix -> real
    if (!isShellSafePath(sourcePath)) {
        const fs::path real(sourcePath);
        std::string text;
        if (!readFile(sourcePath, text, &result.error, kMaxSourceBytes, "a source file")) {
            result.setupError = true;
            return false;
        }
        fs::create_directories(ctx.tempDir + "/in", ec);
        nvccSource = ctx.tempDir + "/in/" + safeFileName(real.filename().string());
        const std::string link = ctx.tempDir + "/srcdir";
        fs::create_directory_symlink(fs::absolute(real.parent_path(), ec), link, ec);
        nvccOptions.includeDirs.insert(nvccOptions.includeDirs.begin(), link);
        // A quote or backslash in the name would survive into PTX's `.file` directive unescaped,
        // which ptxas then refuses: such names (and control bytes) get no #line, and the mapping
        // below names the real path instead of the copy.
        const bool lineDirective = std::none_of(sourcePath.begin(), sourcePath.end(), [](char c) {
            return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\';
        });
        std::ofstream copy(nvccSource, std::ios::binary | std::ios::trunc);
        if (lineDirective) copy << "#line 1 \"" << sourcePath << "\"\n";
        copy << text;
        copy.flush();
        if (!copy) {
            result.error = "cannot write " + nvccSource;
            result.setupError = true;
            return false;
        }
        pathMap = {{link + "/", real.parent_path().string() + "/"}, {nvccSource, sourcePath}};
    }
    const std::string stem = fs::path(nvccSource).stem().string();
    const std::string keepDir = ctx.tempDir + "/keep";
    out.cubinPath = ctx.tempDir + "/" + stem + ".cubin";
    fs::create_directories(keepDir, ec);

    // One nvcc run produces both artifacts: -keep leaves the PTX that ptxas assembled (byte-identical
    // to `nvcc -ptx` with the same options, and the PTX that `nvdisasm -gp` line numbers refer to),
    // so the front end does not run twice. Measured in docs/PERFORMANCE.md ("Build pipeline").
    ProcessSpec compile = toolSpec(ctx, {ctx.toolchain.nvcc.path});
    for (auto& a : toNvccArgs(nvccOptions)) compile.argv.push_back(std::move(a));
    for (const char* a : {"-cubin", "-Xptxas", "-v", "-keep", "-keep-dir"}) compile.argv.push_back(a);
    compile.argv.push_back(keepDir);
    compile.argv.push_back("-o");
    compile.argv.push_back(out.cubinPath);
    compile.argv.push_back(nvccSource);
    auto tCompile = Clock::now();
    ProcessResult cr = runProcess(compile);
    result.timingsMs["compile"] = msSince(tCompile);
    result.commands.push_back(record("cubin", compile, cr, false));
    result.diagnostics = parseDiagnostics(cr.stderrText, "nvcc");
    // ptxas names its input by the temporary path: name it after the module instead (line numbers
    // refer to BuildResult::ptx).
    for (auto& d : result.diagnostics)
        if (d.tool == "ptxas" && !d.file.empty() && d.file.rfind(ctx.tempDir, 0) == 0)
            d.file = fs::path(d.file).filename().string();
    {
        std::string ptxPath = keepDir + "/" + stem + ".ptx";
        if (!fs::exists(ptxPath, ec)) {
            // Extra nvcc flags can change the name (several -gencode targets): take any .ptx.
            for (const auto& e : fs::directory_iterator(keepDir, ec))
                if (e.path().extension() == ".ptx") {
                    ptxPath = e.path().string();
                    break;
                }
        }
        readFile(ptxPath, result.ptx);
    }
    for (const auto& [from, to] : pathMap) {
        for (auto& d : result.diagnostics) replaceAll(d.file, from, to);
        replaceAll(result.ptx, from, to);
    }
    ctx.pathMap.insert(ctx.pathMap.end(), pathMap.begin(), pathMap.end());
    if (!cr.ok()) {
        compilerFailed(result, "nvcc", cr, "compilation failed");
        return false;
    }
    std::string cubin;
    if (!readFile(out.cubinPath, cubin)) {
        result.error = "nvcc succeeded but wrote no cubin (" + out.cubinPath + ")";
        return false;
    }
    result.cubin.assign(cubin.begin(), cubin.end());
    out.ptxasReport = parsePtxasVerbose(cr.stderrText);
    return true;
}

void applyPathMap(StageContext& ctx) {
    for (const auto& [from, to] : ctx.pathMap)
        for (auto& k : ctx.result.kernels)
            for (std::string* text : {&k.ptx, &k.sass, &k.sassPtxLines}) replaceAll(*text, from, to);
}

bool assemblePtx(StageContext& ctx, const std::string& ptxPath, const std::string& arch, const BuildOptions& options,
                 CompiledCubin& out) {
    BuildResult& result = ctx.result;
    out.cubinPath = ctx.tempDir + "/" + fs::path(ptxPath).stem().string() + ".cubin";
    ProcessSpec assemble = toolSpec(ctx, {ctx.toolchain.ptxas.path});
    for (auto& a : toPtxasArgs(options, arch)) assemble.argv.push_back(std::move(a));
    for (const char* a : {"-v", "-o"}) assemble.argv.push_back(a);
    assemble.argv.push_back(out.cubinPath);
    assemble.argv.push_back(ptxPath);
    if (!readFile(ptxPath, result.ptx, &result.error, kMaxCodeBytes, "PTX")) {
        result.setupError = true;
        return false;
    }
    auto t0 = Clock::now();
    ProcessResult r = runProcess(assemble);
    result.timingsMs["assemble"] = msSince(t0);
    result.commands.push_back(record("cubin", assemble, r, false));
    result.diagnostics = parseDiagnostics(r.stderrText, "ptxas");
    if (!r.ok()) {
        compilerFailed(result, "ptxas", r, "assembly failed");
        if (result.compileError) {
            // PTX from a newer toolkit (Triton ships its own): say so rather than "failed".
            for (const auto& d : result.diagnostics)
                if (d.message.find("Unsupported .version") != std::string::npos)
                    result.error = "ptxas " + ctx.toolchain.ptxas.version + " cannot assemble this PTX (" + d.message +
                                   "): a newer CUDA toolkit's ptxas can";
        }
        return false;
    }
    std::string cubin;
    if (!readFile(out.cubinPath, cubin)) {
        result.error = "ptxas succeeded but wrote no cubin (" + out.cubinPath + ")";
        return false;
    }
    result.cubin.assign(cubin.begin(), cubin.end());
    out.ptxasReport = parsePtxasVerbose(r.stderrText);
    return true;
}

bool loadCubin(StageContext& ctx, const std::string& bytes, CompiledCubin& out) {
    BuildResult& result = ctx.result;
    std::string why;
    std::optional<ElfHeader> header = readElfHeader(bytes, &why);
    if (!header || !header->isCuda()) {
        result.error = header ? "not a CUDA ELF (e_machine " + std::to_string(header->machine) + ")" : why;
        result.setupError = true;
        return false;
    }
    result.arch = cudaElfArch(*header);
    if (auto section = elfSection(bytes, ".nv_debug_ptx_txt")) result.ptx = ptxFromDebugSection(*section);
    out.cubinPath = ctx.tempDir + "/input.cubin";
    std::ofstream f(out.cubinPath, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
        result.error = "cannot write " + out.cubinPath;
        result.setupError = true;
        return false;
    }
    result.cubin.assign(bytes.begin(), bytes.end());
    return true;
}

namespace {

// A member name cuobjdump may write as a file: no separators, no leading dot, plain characters.
bool plainMemberName(const std::string& n) {
    if (n.empty() || n.size() > 255 || n[0] == '.') return false;
    return std::all_of(n.begin(), n.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '+';
    });
}

// "sm_90" from "saxpy.sm_90.cubin" / "k.1.sm_90a.ptx"; "" when the name carries none.
std::string archFromMemberName(const std::string& n) {
    const size_t p = n.rfind(".sm_");
    if (p == std::string::npos) return {};
    const size_t e = n.find('.', p + 1);
    return n.substr(p + 1, e == std::string::npos ? std::string::npos : e - p - 1);
}

const char* machineName(uint16_t m) {
    switch (m) {
    case 3: return "x86 (32-bit)";
    case 20: return "PowerPC";
    case 21: return "PowerPC 64";
    case 40: return "ARM (32-bit)";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return nullptr;
    }
}

} // namespace

bool extractEmbedded(StageContext& ctx, const std::string& path, std::map<std::string, std::string>& files) {
    BuildResult& result = ctx.result;
    const Toolchain& tc = ctx.toolchain;
    auto fail = [&](std::string message) {
        result.error = std::move(message);
        result.setupError = true;
        return false;
    };
    const std::string shown = fs::path(path).filename().string();
    // What the file is, for the messages: a host ELF without section headers cannot be searched.
    const std::string head = readInputHead(path, 64);
    std::string elfWhat;
    if (auto h = readElfHeader(head)) {
        const char* m = machineName(h->machine);
        elfWhat = std::string(" (an ELF file for ") + (m ? m : "machine " + std::to_string(h->machine)) + ")";
        if (h->is64 && h->littleEndian && head.size() >= 64 && head[0x3c] == 0 && head[0x3d] == 0)
            return fail(shown + elfWhat + " has no section headers (stripped with sstrip, or damaged): its embedded "
                                          "CUDA code cannot be found");
    }

    const std::string dir = ctx.tempDir + "/embedded";
    std::error_code ec;
    fs::create_directories(dir, ec);
    ProcessSpec list = toolSpec(ctx, {tc.cuobjdump.path, "-lelf", "-lptx", path});
    ProcessResult lr = runProcess(list);
    result.commands.push_back(record("list-embedded", list, lr, true));
    if (lr.cancelled) {
        failedRun(result, "cuobjdump", lr);
        return false;
    }
    const std::string said = lr.stderrText + lr.stdoutText;
    if (said.find("does not contain device code") != std::string::npos)
        return fail(shown + elfWhat + " contains no CUDA device code (a host-only binary, or its .nv_fatbin section "
                                      "was stripped)");
    if (!lr.ok()) {
        std::string firstLine = lr.started() ? lr.stderrText.substr(0, lr.stderrText.find('\n')) : lr.startError;
        return fail("cuobjdump cannot read " + shown + ": " + (firstLine.empty() ? lr.describe() : firstLine));
    }
    // "ELF file    1: saxpy.sm_90.cubin" / "PTX file    1: saxpy.sm_90.ptx"
    std::istringstream lines(lr.stdoutText);
    std::string line;
    while (std::getline(lines, line)) {
        const bool elf = line.rfind("ELF file", 0) == 0, ptx = line.rfind("PTX file", 0) == 0;
        if (!elf && !ptx) continue;
        const size_t colon = line.find(": ");
        if (colon == std::string::npos) continue;
        std::string name = line.substr(colon + 2);
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
        if (!plainMemberName(name))
            return fail(shown + " names an embedded file '" + name.substr(0, 200) +
                        "' that is not a plain file name; nothing was extracted");
        // A shared library built by nvcc lists every cubin twice under one name (the fatbin and
        // its registration copy); `-xelf all` writes one file per name, so one entry per name.
        if (std::any_of(result.embedded.begin(), result.embedded.end(),
                        [&](const EmbeddedCode& c) { return c.name == name && c.isPtx == ptx; }))
            continue;
        EmbeddedCode code;
        code.name = name;
        code.isPtx = ptx;
        code.arch = archFromMemberName(name);
        result.embedded.push_back(std::move(code));
    }
    if (result.embedded.empty())
        return fail(shown + elfWhat + " contains no CUDA device code (cuobjdump lists no cubin or PTX)");

    ProcessSpec extract = toolSpec(ctx, {tc.cuobjdump.path, "-xelf", "all", "-xptx", "all", path});
    extract.workingDir = dir;
    ProcessResult xr = runProcess(extract);
    result.commands.push_back(record("extract", extract, xr, false));
    if (failedRun(result, "cuobjdump", xr)) return false;
    bool anyKernel = false;
    for (auto& code : result.embedded) {
        const fs::path file = fs::path(dir) / code.name;
        std::string bytes;
        if (!fs::is_regular_file(file, ec) || !readFile(file.string(), bytes)) continue;
        files[code.name] = file.string();
        if (code.isPtx) {
            for (const auto& e : ptxEntries(bytes)) code.kernels.push_back(e.mangled);
        } else {
            code.kernels = cudaElfKernels(bytes);
            if (auto h = readElfHeader(bytes); h && code.arch.empty()) code.arch = cudaElfArch(*h);
        }
        anyKernel |= !code.kernels.empty();
    }
    if (!anyKernel)
        return fail(shown + " embeds CUDA code but no kernel (only device functions or link stubs)");
    return true;
}

bool disassembleCubin(StageContext& ctx, const std::string& cubinPath, bool haveCompilerReport, Disassembly& out) {
    BuildResult& result = ctx.result;
    const Toolchain& tc = ctx.toolchain;
    // Independent readers of the same cubin, in parallel. `-gi` text is derived from the `-gi -gp`
    // run (see stripPtxLineComments). Live register counts are computed in the core
    // (core/analysis/liveness.h): `nvdisasm -lrm count` grows much faster than linearly with the
    // kernel (tens of seconds on a 30,000-instruction kernel) and refuses kernels that use 255
    // registers, so it is not run.
    std::vector<ProcessSpec> specs;
    std::vector<std::string> stages;
    auto addSpec = [&](const std::string& stage, std::vector<std::string> argv) {
        specs.push_back(toolSpec(ctx, std::move(argv)));
        stages.push_back(stage);
    };
    addSpec("sass-ptx-lines", {tc.nvdisasm.path, "-c", "-hex", "-gi", "-gp", cubinPath});
    if (tc.cuobjdump.found()) addSpec("res-usage", {tc.cuobjdump.path, "-res-usage", cubinPath});
    auto tDis = Clock::now();
    std::vector<ProcessResult> dr = runProcessesParallel(specs);
    result.timingsMs["disassemble"] = msSince(tDis);
    for (size_t i = 0; i < specs.size(); ++i)
        result.commands.push_back(record(stages[i], specs[i], dr[i], stages[i] == "res-usage"));
    // The main listing is the build's product: without it there is nothing to show. The other
    // runs are auxiliary: when one fails or times out the build still succeeds, with a warning
    // naming what is missing (those fields stay absent: -1 counts, null in JSON).
    if (failedRun(result, fs::path(specs[0].argv[0]).filename().string(), dr[0])) return false;
    for (size_t i = 1; i < specs.size(); ++i) {
        const ProcessResult& r = dr[i];
        if (r.ok()) continue;
        if (r.cancelled) {
            failedRun(result, stages[i], r);
            return false;
        }
        const std::string what = haveCompilerReport ? "resources come from ptxas -v only (local memory is missing)"
                                                    : "resource usage is missing";
        const std::string firstLine = r.started() ? r.stderrText.substr(0, r.stderrText.find('\n')) : r.startError;
        Diagnostic d;
        d.severity = Severity::Warning;
        d.tool = "lowerscope";
        d.message = fs::path(specs[i].argv[0]).filename().string() + " (" + stages[i] + ") " + r.describe() +
                    (firstLine.empty() ? "" : " (" + firstLine.substr(0, 300) + ")") + ": " + what;
        result.diagnostics.push_back(std::move(d));
    }
    if (!tc.cuobjdump.found()) {
        Diagnostic d;
        d.severity = Severity::Remark;
        d.tool = "lowerscope";
        d.message = haveCompilerReport ? "cuobjdump not found: resources come from ptxas -v only"
                                       : "cuobjdump not found: resource usage is missing";
        result.diagnostics.push_back(std::move(d));
    }
    auto tParse = Clock::now();
    out.sassPtxLines = splitNvdisasmFunctions(dr[0].stdoutText);
    if (specs.size() > 1 && dr[1].ok()) out.resUsage = parseCuobjdumpResUsage(dr[1].stdoutText);
    out.anyPtxLines = dr[0].stdoutText.find("//## File \".nv_debug_ptx_txt\"") != std::string::npos;
    out.entries = nvdisasmEntries(dr[0].stdoutText);
    result.timingsMs["parse"] = msSince(tParse);
    return true;
}

void collectKernels(BuildResult& result, const Disassembly& dis, const std::map<std::string, Resources>& ptxasReport) {
    auto tParse = Clock::now();
    std::vector<PtxEntry> entries = ptxEntries(result.ptx);
    if (entries.empty()) {
        // A cubin without its PTX: the kernels are those the disassembly marks as entries.
        for (const auto& name : dis.entries) entries.push_back(PtxEntry{name, {}, 0, 0});
    }
    for (const auto& entry : entries) {
        KernelArtifacts k;
        k.mangled = entry.mangled;
        k.name = demangle(entry.mangled);
        k.ptx = entry.text;
        k.ptxFirstLine = entry.firstLine;
        if (auto it = dis.sassPtxLines.find(entry.mangled); it != dis.sassPtxLines.end()) {
            k.sass = stripPtxLineComments(it->second);
            if (dis.anyPtxLines) k.sassPtxLines = it->second;
        }
        auto p = ptxasReport.find(entry.mangled);
        auto c = dis.resUsage.find(entry.mangled);
        k.resources = mergeResources(p == ptxasReport.end() ? nullptr : &p->second,
                                     c == dis.resUsage.end() ? nullptr : &c->second);
        result.kernels.push_back(std::move(k));
    }
    result.timingsMs["parse"] += msSince(tParse);
}

} // namespace lowerscope
