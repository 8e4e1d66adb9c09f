#include "core/build/compile_db.h"

#include "core/bounded_json.h"
#include "core/build/process.h"
#include "core/untrusted.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

constexpr size_t kMaxDatabaseBytes = kMaxDocumentBytes; // 64 MiB, as docs/SECURITY.md says
constexpr size_t kMaxValueLength = 4096;

// Values taken from the database travel to nvcc, which runs its steps through a shell: only plain
// characters pass (paths, NAME=VALUE, numbers). A value with anything else is dropped and listed.
bool plainValue(const std::string& v) {
    if (v.empty() || v.size() > kMaxValueLength) return false;
    for (char c : v)
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("_-.=,:/+@%").find(c) == std::string_view::npos)
            return false;
    return true;
}

std::string canonicalString(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return (ec ? fs::absolute(p, ec).lexically_normal() : c).string();
}

bool startsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

constexpr size_t kMaxOptionsFileBytes = 1u << 20;

// nvcc's --options-file F / -optf F (CMake writes a target's include directories into
// CMakeFiles/<target>.dir/includes_CUDA.rsp): the words of F in place of the flag, one level
// deep. F (relative names taken from the entry's directory) is read only when it lies inside the
// folder of the database the user opened (`allowedRoot`), never where the entry's "directory"
// says: a database that says "directory": "/" must not make the tool read files elsewhere.
// Otherwise, or when unreadable, the flag is dropped and listed. `origin` receives, per word of the
// result, the options file it came from ("" for the command's own words): words of a file are
// never echoed in what is dropped (no message shows the content of a file it read).
std::vector<std::string> expandOptionsFiles(const std::vector<std::string>& argv, const std::string& directory,
                                            const std::string& allowedRoot, std::vector<std::string>& dropped,
                                            std::vector<std::string>& origin) {
    std::vector<std::string> out;
    origin.clear();
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        std::string file;
        if ((a == "--options-file" || a == "-optf") && i + 1 < argv.size()) {
            file = argv[++i];
        } else if (startsWith(a, "--options-file=")) {
            file = a.substr(15);
        } else if (startsWith(a, "-optf=")) {
            file = a.substr(6);
        } else {
            out.push_back(a);
            origin.emplace_back();
            continue;
        }
        const std::string flag = "--options-file " + file;
        // The document-path rule (core/untrusted.h): lexically and with symlinks resolved, inside
        // the database's folder.
        fs::path candidate(file);
        if (candidate.is_relative() && !directory.empty()) candidate = fs::path(directory) / candidate;
        std::string real, why;
        if (allowedRoot.empty() ||
            !resolveDocumentPath(candidate.string(), {allowedRoot}, "an options file", real, why)) {
            dropped.push_back(flag + " (outside the compile database's folder)");
            continue;
        }
        std::string text;
        if (!readInputFile(real, kMaxOptionsFileBytes, "an options file", text, why)) {
            dropped.push_back(flag + " (not a readable options file: " + why + ")");
            continue;
        }
        try {
            const std::vector<std::string> words = splitCommandLine(text);
            for (size_t k = 0; k < words.size(); ++k) {
                const std::string& w = words[k];
                if (w == "--options-file" || w == "-optf") {
                    if (k + 1 < words.size()) ++k;
                    dropped.push_back(w + " in " + file + " (nested options file)");
                } else if (startsWith(w, "--options-file=") || startsWith(w, "-optf=")) {
                    dropped.push_back(w.substr(0, w.find('=')) + " in " + file + " (nested options file)");
                } else {
                    out.push_back(w);
                    origin.push_back(file);
                }
            }
        } catch (const std::exception&) {
            // The splitter's message quotes the text: not shown.
            dropped.push_back(flag + " (not an options file: an unterminated quote or a trailing backslash)");
        }
    }
    return out;
}

// ptxas options that read or write a file, or take their input from the command line: a database
// must not make ptxas read another file (its text would appear in diagnostics).
bool ptxasFileOption(const std::string& opt) {
    const std::string name = opt.substr(0, opt.find('='));
    for (const char* f : {"--options-file", "-optf", "--output-file", "-o", "--input-as-string", "-ias"})
        if (name == f) return true;
    return false;
}

// How a dropped word of an options file is listed: its option name only, never its value.
std::string optionName(const std::string& word) {
    if (word.size() >= 2 && word[0] == '-' && word[1] != '-' && std::isupper(static_cast<unsigned char>(word[1])))
        return word.substr(0, 2) + "...";
    const size_t eq = word.find('=');
    if (word.empty() || word[0] != '-') return "a word";
    return eq == std::string::npos ? word.substr(0, 64) : word.substr(0, std::min<size_t>(eq, 64)) + "=...";
}

int triValue(const std::string& v) { return v == "true" ? 1 : v == "false" ? 0 : -2; }

// The real architectures named by an -arch / -gencode value ("sm_80", "compute_90",
// "arch=compute_80,code=[compute_80,sm_80]"): every sm_XX, else compute_XX as sm_XX.
std::vector<std::string> archsIn(const std::string& value) {
    static const std::regex sm(R"(sm_(\d{2,3}[af]?))"), compute(R"(compute_(\d{2,3}[af]?))");
    std::vector<std::string> out;
    std::string codePart = value;
    if (auto p = value.find("code="); p != std::string::npos) codePart = value.substr(p);
    for (std::sregex_iterator it(codePart.begin(), codePart.end(), sm), end; it != end; ++it)
        out.push_back("sm_" + (*it)[1].str());
    if (out.empty())
        for (std::sregex_iterator it(value.begin(), value.end(), compute), end; it != end; ++it)
            out.push_back("sm_" + (*it)[1].str());
    return out;
}

// Device-relevant nvcc flags without a BuildOptions field of their own, taken verbatim.
bool keptVerbatim(const std::string& a) {
    static const char* exact[] = {"--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--extended-lambda",
                                  "-extended-lambda",         "--expt-extended-lambda",  "-expt-extended-lambda",
                                  "-rdc=true",                "-rdc=false",              "--relocatable-device-code=true",
                                  "--relocatable-device-code=false", "--restrict",       "-restrict",
                                  "-Wno-deprecated-gpu-targets",     "--default-stream=per-thread",
                                  "--default-stream=legacy",         "--default-stream=null"};
    return std::find(std::begin(exact), std::end(exact), a) != std::end(exact);
}

// Flags that take the next argument as their value and only matter to the host side or to the
// build system (output names, dependency files, host compiler): skipped together with the value.
bool hostFlagWithValue(const std::string& a) {
    static const char* flags[] = {"-o", "-MF", "-MT", "-MQ", "-ccbin", "--compiler-bindir", "-Xcompiler",
                                  "--compiler-options", "-Xlinker", "--linker-options", "-Xnvlink", "-Xfatbin",
                                  "-x", "--x", "--options-file", "-optf", "-include", "-L", "-l", "-U",
                                  "--output-file", "--dependency-output", "-odir", "--output-directory"};
    return std::find(std::begin(flags), std::end(flags), a) != std::end(flags);
}

} // namespace

std::vector<std::string> splitCommandLine(const std::string& text) {
    try {
        return splitShellWords(text);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(std::string(e.what()) + " in the compile command");
    }
}

void applyCompileCommand(const std::vector<std::string>& givenArgv, const std::string& directory, ProjectOptions& out) {
    std::error_code ec;
    const std::string allowedRoot =
        out.database.empty() ? std::string() : fs::absolute(out.database, ec).parent_path().lexically_normal().string();
    std::vector<std::string> origin;
    const std::vector<std::string> argv = expandOptionsFiles(givenArgv, directory, allowedRoot, out.dropped, origin);
    BuildOptions& o = out.options;
    auto mark = [&](const char* key) { out.fromProject.insert(key); };
    size_t current = 0; // the index of the flag being read
    auto drop = [&](const std::string& a, const char* why = nullptr) {
        if (current < origin.size() && !origin[current].empty()) {
            out.dropped.push_back(optionName(argv[current]) + " from " + origin[current] +
                                  (why ? std::string(" (") + why + ")" : std::string(" (not taken)")));
            return;
        }
        out.dropped.push_back(why ? a + " (" + why + ")" : a);
    };
    auto addArchs = [&](const std::string& value, const std::string& flag) {
        std::vector<std::string> found = archsIn(value);
        if (found.empty()) return drop(flag, "no sm_XX or compute_XX architecture in it");
        for (auto& a : found)
            if (std::find(out.archs.begin(), out.archs.end(), a) == out.archs.end()) out.archs.push_back(a);
        mark("arch");
    };
    auto addInclude = [&](const std::string& dir, const std::string& flag) {
        if (!plainValue(dir)) return drop(flag, "characters not allowed in a project option");
        fs::path p(dir);
        if (p.is_relative() && !directory.empty()) p = fs::path(directory) / p;
        o.includeDirs.push_back(p.lexically_normal().string());
        mark("include_dirs");
    };
    auto addDefine = [&](const std::string& def, const std::string& flag) {
        if (!plainValue(def) || def[0] == '=') return drop(flag, "characters not allowed in a project option");
        o.defines.push_back(def);
        mark("defines");
    };
    auto setTri = [&](int& field, const std::string& value, const char* key, const std::string& flag) {
        const int v = triValue(value);
        if (v < 0) return drop(flag);
        field = v;
        mark(key);
    };
    // Two-word forms take the next argument; `value(i, prefix)` gives the attached or next value.
    for (size_t i = 1; i < argv.size(); ++i) {
        current = i;
        const std::string& a = argv[i];
        auto next = [&](std::string& v) {
            if (i + 1 >= argv.size()) return false;
            v = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-c" || a == "--compile" || a == "-dc" || a == "--device-c") {
            if (a == "-dc" || a == "--device-c") {
                o.extraNvccFlags.push_back("-rdc=true");
                mark("extra_nvcc_flags");
            }
        } else if (hostFlagWithValue(a)) {
            std::string value;
            next(value);
            if (a != "-o" && a != "-x" && a != "--x") drop(a + " " + value);
        } else if (a == "-I" || a == "-isystem" || a == "--include-path") {
            if (next(v)) addInclude(v, a + " " + v);
        } else if (startsWith(a, "--include-path=")) {
            addInclude(a.substr(15), a);
        } else if (startsWith(a, "-isystem")) {
            addInclude(a.substr(8), a);
        } else if (startsWith(a, "-I")) {
            addInclude(a.substr(2), a);
        } else if (a == "-D" || a == "--define-macro") {
            if (next(v)) addDefine(v, a + " " + v);
        } else if (startsWith(a, "--define-macro=")) {
            addDefine(a.substr(15), a);
        } else if (startsWith(a, "-D")) {
            addDefine(a.substr(2), a);
        } else if (a == "-std" || a == "--std") {
            if (next(v)) {
                o.cppStd = v;
                mark("std");
            }
        } else if (startsWith(a, "-std=") || startsWith(a, "--std=")) {
            o.cppStd = a.substr(a.find('=') + 1);
            mark("std");
        } else if (a == "-arch" || a == "--gpu-architecture" || a == "-gencode" || a == "--generate-code" ||
                   a == "-code" || a == "--gpu-code") {
            if (next(v)) addArchs(v, a + " " + v);
        } else if (startsWith(a, "-arch=") || startsWith(a, "--gpu-architecture=") || startsWith(a, "-gencode=") ||
                   startsWith(a, "--generate-code=") || startsWith(a, "-code=") || startsWith(a, "--gpu-code=") ||
                   startsWith(a, "--cuda-gpu-arch=")) {
            addArchs(a.substr(a.find('=') + 1), a);
        } else if (a == "-Xptxas" || a == "--ptxas-options" || startsWith(a, "-Xptxas=") || startsWith(a, "--ptxas-options=")) {
            if (a.find('=') != std::string::npos) v = a.substr(a.find('=') + 1);
            else if (!next(v)) break;
            std::stringstream ss(v);
            std::string opt;
            while (std::getline(ss, opt, ',')) {
                if (opt == "-v" || opt == "--verbose") continue; // the build always asks for the report
                if (ptxasFileOption(opt)) {
                    // Its value, when it is the next word of the list, goes with it.
                    std::string value;
                    if (opt.find('=') == std::string::npos) std::getline(ss, value, ',');
                    drop("-Xptxas " + opt + (value.empty() ? "" : "," + value), "makes ptxas read or write a file");
                    continue;
                }
                if (opt.empty() || opt[0] != '-') {
                    drop("-Xptxas " + opt, "not a ptxas option");
                    continue;
                }
                if (opt.size() == 3 && startsWith(opt, "-O") && opt[2] >= '0' && opt[2] <= '3') {
                    o.ptxasOpt = opt[2] - '0';
                    mark("ptxas_opt");
                } else if (plainValue(opt)) {
                    o.extraPtxasFlags.push_back(opt);
                    mark("extra_ptxas_flags");
                } else {
                    drop("-Xptxas " + opt, "characters not allowed in a project option");
                }
            }
        } else if (a.size() == 3 && startsWith(a, "-O") && a[2] >= '0' && a[2] <= '3') {
            o.hostOpt = a[2] - '0';
            mark("host_opt");
        } else if (a == "-lineinfo" || a == "--generate-line-info") {
            o.lineinfo = true;
            mark("lineinfo");
        } else if (a == "-G" || a == "--device-debug") {
            o.deviceDebug = true;
            mark("device_debug");
        } else if (a == "--use_fast_math" || a == "-use_fast_math") {
            o.fastMath = true;
            mark("fast_math");
        } else if (a == "--extra-device-vectorization" || a == "-extra-device-vectorization") {
            o.extraDeviceVectorization = true;
            mark("extra_device_vectorization");
        } else if (startsWith(a, "-ftz=") || startsWith(a, "--ftz=")) {
            setTri(o.ftz, a.substr(a.find('=') + 1), "ftz", a);
        } else if (startsWith(a, "-prec-div=") || startsWith(a, "--prec-div=")) {
            setTri(o.precDiv, a.substr(a.find('=') + 1), "prec_div", a);
        } else if (startsWith(a, "-prec-sqrt=") || startsWith(a, "--prec-sqrt=")) {
            setTri(o.precSqrt, a.substr(a.find('=') + 1), "prec_sqrt", a);
        } else if (startsWith(a, "-fmad=") || startsWith(a, "--fmad=")) {
            setTri(o.fmad, a.substr(a.find('=') + 1), "fmad", a);
        } else if (a == "-maxrregcount" || a == "--maxrregcount" || startsWith(a, "-maxrregcount=") ||
                   startsWith(a, "--maxrregcount=")) {
            if (a.find('=') != std::string::npos) v = a.substr(a.find('=') + 1);
            else if (!next(v)) break;
            if (v.empty() || v.size() > 3 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                drop(a, "not a register count");
                continue;
            }
            o.maxRegCount = std::stoi(v);
            mark("max_reg_count");
        } else if (keptVerbatim(a)) {
            o.extraNvccFlags.push_back(a);
            mark("extra_nvcc_flags");
        } else if (!a.empty() && a[0] != '-') {
            // The source file (or another input): not a flag.
        } else {
            drop(a);
        }
    }
    if (!out.archs.empty()) o.arch = out.archs.front();
}

nlohmann::json projectJson(const ProjectOptions& p) {
    return nlohmann::json{{"database", p.database},       {"directory", p.directory},
                          {"archs", p.archs},             {"from_project", p.fromProject},
                          {"overridden", p.overridden},   {"dropped", p.dropped}};
}

ProjectOptions projectOptions(const std::string& databasePath, const std::string& sourcePath) {
    fs::path dbPath(databasePath);
    std::error_code ec;
    if (fs::is_directory(dbPath, ec)) dbPath /= "compile_commands.json";
    // The one input rule (core/untrusted.h): a FIFO or /dev/zero is refused before it is opened,
    // the size before it is read.
    std::string text, readError;
    if (!readInputFile(dbPath.string(), kMaxDatabaseBytes, "a compile database", text, readError))
        throw std::runtime_error("cannot read the compile database: " + readError);
    // Bounded like every document (core/bounded_json.h): a project folder is someone else's.
    JsonLimits limits;
    limits.maxBytes = kMaxDatabaseBytes;
    nlohmann::json db;
    try {
        db = parseJsonBounded(text, limits);
    } catch (const JsonLimitError& e) {
        throw std::runtime_error(dbPath.string() + ": " + e.what());
    } catch (const nlohmann::json::exception&) {
        db = nullptr; // reported below
    }
    if (!db.is_array())
        throw std::runtime_error(dbPath.string() + " is not a compile database (expected a JSON array of entries)");

    const std::string wanted = canonicalString(fs::absolute(sourcePath, ec));
    std::vector<std::string> listed;
    for (const auto& e : db) {
        if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) continue;
        const std::string dir = e.value("directory", std::string());
        fs::path file(e["file"].get<std::string>());
        if (file.is_relative()) file = fs::path(dir) / file;
        const std::string entryFile = canonicalString(file);
        if (entryFile != wanted) {
            if (listed.size() < 3) listed.push_back(fs::path(entryFile).filename().string());
            else listed.push_back({});
            continue;
        }
        std::vector<std::string> argv;
        if (e.contains("arguments") && e["arguments"].is_array()) {
            for (const auto& a : e["arguments"])
                if (a.is_string()) argv.push_back(a.get<std::string>());
        } else if (e.contains("command") && e["command"].is_string()) {
            argv = splitCommandLine(e["command"].get<std::string>());
        } else {
            throw std::runtime_error(dbPath.string() + ": the entry for " + sourcePath + " has neither \"arguments\" nor \"command\"");
        }
        ProjectOptions po;
        po.database = canonicalString(fs::absolute(dbPath, ec));
        po.directory = dir;
        applyCompileCommand(argv, dir, po);
        if (std::string bad = checkBuildOptions(po.options); !bad.empty())
            throw std::runtime_error(dbPath.string() + ": the entry for " + sourcePath + " gives invalid options: " + bad);
        for (const auto& a : po.archs)
            if (std::string bad = checkBuildOptions([&] {
                    BuildOptions x = po.options;
                    x.arch = a;
                    return x;
                }());
                !bad.empty())
                throw std::runtime_error(dbPath.string() + ": the entry for " + sourcePath + " gives invalid options: " + bad);
        return po;
    }
    std::string examples;
    for (const auto& n : listed)
        if (!n.empty()) examples += (examples.empty() ? "" : ", ") + n;
    throw std::runtime_error(dbPath.string() + " has no entry for " + fs::path(sourcePath).filename().string() + "; it lists " +
                             std::to_string(listed.size()) + " file(s)" + (examples.empty() ? "" : ", e.g. " + examples));
}

} // namespace lowerscope
