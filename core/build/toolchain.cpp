#include "core/build/toolchain.h"

#include "core/atomic_file.h"
#include "core/bounded_json.h"

#include "core/build/build.h"
#include "core/build/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LOWERSCOPE_SOURCE_TOOLS_DIR
#define LOWERSCOPE_SOURCE_TOOLS_DIR ""
#endif
#ifndef LOWERSCOPE_BUILD_DIR
#define LOWERSCOPE_BUILD_DIR ""
#endif

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

std::string envOr(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool isExecutableFile(const std::string& path) {
    struct stat st;
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string absolutePath(const std::string& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    if (ec) return p;
    return a.lexically_normal().string();
}

std::string executableDir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().string();
}

// True when the running program lives in the build folder it was compiled in (build-x/app/exe,
// build-x/tests/...), not where `cmake --install` or a package put it.
bool runningFromBuildFolder() {
    const std::string exeDir = executableDir();
    if (std::string(LOWERSCOPE_BUILD_DIR).empty() || exeDir.empty()) return false;
    std::error_code ec;
    fs::path build = fs::weakly_canonical(fs::path(LOWERSCOPE_BUILD_DIR), ec);
    if (ec) build = fs::path(LOWERSCOPE_BUILD_DIR).lexically_normal();
    std::string prefix = build.string();
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    return (exeDir + "/").rfind(prefix + "/", 0) == 0;
}

// The project-local folders, in order: explicit option, $LOWERSCOPE_TOOLS_DIR, then, for a program
// that runs from its build folder only, the source tree's .tools/bin (compiled in) and
// <exe dir>/../../.tools/bin (an in-tree build dir: build-x/app/exe). Installed programs (and the
// Python module, whose executable is Python) use no build-folder path: the toolkit and PATH follow.
std::vector<std::string> projectDirs(const DiscoveryOptions& options) {
    std::vector<std::string> dirs;
    if (!options.projectToolsDir.empty()) {
        dirs.push_back(options.projectToolsDir);
        return dirs;
    }
    std::string env = envOr("LOWERSCOPE_TOOLS_DIR");
    if (!env.empty()) {
        dirs.push_back(env);
        return dirs;
    }
    if (!runningFromBuildFolder()) return dirs;
    if (std::string(LOWERSCOPE_SOURCE_TOOLS_DIR).size()) dirs.push_back(LOWERSCOPE_SOURCE_TOOLS_DIR);
    std::string exeDir = executableDir();
    if (!exeDir.empty()) dirs.push_back((fs::path(exeDir) / ".." / ".." / ".tools" / "bin").lexically_normal().string());
    return dirs;
}

std::vector<std::string> pathDirs() {
    std::vector<std::string> dirs;
    std::string path = envOr("PATH");
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
        if (!d.empty()) dirs.push_back(d);
    return dirs;
}

// Toolkit bin folders: $CUDA_HOME, $CUDA_PATH, the folder of an nvcc on PATH, /usr/local/cuda.
// `nvccDir` (the nvcc actually chosen) goes first so ptxas etc. come from the same toolkit.
std::vector<std::string> toolkitDirs(const std::string& nvccDir) {
    std::vector<std::string> dirs;
    if (!nvccDir.empty()) dirs.push_back(nvccDir);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        std::string root = envOr(var);
        if (!root.empty()) dirs.push_back((fs::path(root) / "bin").string());
    }
    for (const auto& d : pathDirs())
        if (isExecutableFile((fs::path(d) / "nvcc").string())) {
            dirs.push_back(d);
            break;
        }
    dirs.push_back("/usr/local/cuda/bin");
    return dirs;
}

std::string envVarFor(const std::string& tool) {
    std::string v = "LOWERSCOPE_";
    for (char c : tool) v.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return v;
}

ToolInfo findTool(const std::string& name, const DiscoveryOptions& options, const std::string& nvccDir) {
    ToolInfo t;
    t.name = name;
    std::string var = envVarFor(name);
    std::string explicitPath = envOr(var.c_str());
    if (!explicitPath.empty()) {
        // An explicit setting is never silently replaced by another copy: pointing it at a missing
        // file is an error the user must see.
        t.origin = "env";
        if (isExecutableFile(explicitPath)) t.path = absolutePath(explicitPath);
        else t.note = var + "=" + explicitPath + " is not an executable file";
        return t;
    }
    auto tryDirs = [&](const std::vector<std::string>& dirs, const char* origin) {
        for (const auto& d : dirs) {
            std::string p = (fs::path(d) / name).string();
            if (isExecutableFile(p)) {
                t.path = absolutePath(p);
                t.origin = origin;
                return true;
            }
        }
        return false;
    };
    if (tryDirs(projectDirs(options), "project")) return t;
    if (tryDirs(toolkitDirs(nvccDir), "toolkit")) return t;
    if (tryDirs(pathDirs(), "path")) return t;
    std::string where = var + ", ";
    for (const auto& d : projectDirs(options)) where += d + ", ";
    where += "$CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, PATH";
    t.note = "searched " + where;
    return t;
}

// "Cuda compilation tools, release 13.0, V13.0.88" → "13.0.88".
std::string parseVersion(const std::string& text) {
    static const std::regex full(R"(V(\d+\.\d+\.\d+))");
    static const std::regex release(R"(release (\d+\.\d+))");
    std::smatch m;
    if (std::regex_search(text, m, full)) return m[1];
    if (std::regex_search(text, m, release)) return m[1];
    return {};
}

// "13.0.88" → {13, 0}; {-1, -1} when unknown.
std::pair<int, int> majorMinor(const std::string& v) {
    int major = -1, minor = -1;
    if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) != 2) return {-1, -1};
    return {major, minor};
}

std::string howToGet(const std::string& name) {
    std::string var = envVarFor(name);
    if (name == "nvdisasm" || name == "cuobjdump")
        return "run scripts/bootstrap (installs NVIDIA's PyPI wheel nvidia-cuda-" + name +
               " into the project's .tools/ folder), or `pip install nvidia-cuda-" + name +
               "` matching nvcc's major.minor version, or set " + var + "=/path/to/" + name;
    return "install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads) and set CUDA_HOME, "
           "put its bin/ on PATH, or set " + var + "=/path/to/" + name;
}

// The identity of a tool binary: path, size, mtime (ns), inode, device. Same identity = same
// answers to --version / --list-gpu-code (the check ccache uses for compilers by default).
std::string fileIdentity(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return {};
    return path + "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + "|" + std::to_string(st.st_ino) + "|" + std::to_string(st.st_dev);
}

// A version or arch from the memo as a tool would print it: short, letters, digits and . _ - +.
// Anything else (a tampered memo in a shared cache folder: control bytes, escape sequences, text
// meant for a terminal) is not taken; the tool is asked again.
bool memoWord(const nlohmann::json& v) {
    const std::string& s = v.get_ref<const std::string&>();
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+';
    });
}

nlohmann::json readMemo(const std::string& file) {
    // Bounded like every document (core/bounded_json.h): the cache folder may be shared or damaged.
    JsonLimits limits;
    limits.maxBytes = size_t(1) << 20;
    std::string error;
    auto j = readJsonFileBounded(file, error, limits);
    return j && j->is_object() ? *j : nlohmann::json::object(); // absent or corrupt: start over
}

void writeMemo(const std::string& file, const nlohmann::json& j) {
    std::error_code ec;
    fs::create_directories(fs::path(file).parent_path(), ec);
    std::string error;
    writeFileAtomically(file, j.dump(1), error); // a memo is an optimisation: failing to write it is not an error
}

} // namespace

std::vector<std::string> Toolchain::problems() const {
    std::vector<std::string> out;
    for (const ToolInfo* t : {&nvcc, &ptxas, &nvdisasm, &cuobjdump}) {
        if (t->found()) continue;
        std::string line = t->name + " not found";
        if (!t->note.empty()) line += " (" + t->note + ")";
        line += ". To get it: " + howToGet(t->name) + ".";
        out.push_back(line);
    }
    // An older disassembler cannot read a newer toolkit's cubins (CUDA 11.8's nvdisasm fails on
    // CUDA 13 cubins), so a version behind nvcc's is a problem even though the file exists.
    auto [nvMaj, nvMin] = majorMinor(nvcc.version);
    for (const ToolInfo* t : {&nvdisasm, &cuobjdump}) {
        if (!t->found() || nvMaj < 0) continue;
        auto [maj, min] = majorMinor(t->version);
        if (maj < 0) continue;
        if (maj < nvMaj || (maj == nvMaj && min < nvMin))
            out.push_back(t->name + " " + t->version + " (" + t->path + ") is older than nvcc " + nvcc.version +
                          " and may not read its cubins. To fix: " + howToGet(t->name) + ".");
    }
    return out;
}

std::string Toolchain::fingerprint() const {
    std::string fp;
    for (const ToolInfo* t : {&nvcc, &ptxas, &nvdisasm, &cuobjdump}) {
        if (!fp.empty()) fp += "; ";
        fp += t->name + " ";
        if (!t->found()) {
            fp += "missing";
        } else if (!t->version.empty()) {
            fp += t->version;
        } else {
            // Unknown version: the file identity stands in for it.
            struct stat st{};
            ::stat(t->path.c_str(), &st);
            fp += t->path + "@" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
        }
    }
    return fp;
}

Toolchain discoverToolchain(const DiscoveryOptions& options) {
    Toolchain tc;
    tc.nvcc = findTool("nvcc", options, "");
    std::string nvccDir = tc.nvcc.found() ? fs::path(tc.nvcc.path).parent_path().string() : "";
    tc.ptxas = findTool("ptxas", options, nvccDir);
    tc.nvdisasm = findTool("nvdisasm", options, nvccDir);
    tc.cuobjdump = findTool("cuobjdump", options, nvccDir);

    // Remembered answers first: a cache-hit build should start no process at all.
    std::string memoFile;
    nlohmann::json memo = nlohmann::json::object();
    bool memoChanged = false;
    if (options.memoDir != "-" && (options.queryVersions || options.queryArchs)) {
        memoFile = (fs::path(options.memoDir.empty() ? cacheDirectory() : options.memoDir) / "toolchain-memo-v1.json").string();
        memo = readMemo(memoFile);
    }
    auto memoGet = [&](const std::string& identity, const char* field) -> const nlohmann::json* {
        if (memoFile.empty() || identity.empty()) return nullptr;
        auto it = memo.find(identity);
        if (it == memo.end() || !it->is_object()) return nullptr;
        auto f = it->find(field);
        return f == it->end() ? nullptr : &*f;
    };

    // Version and arch queries run in parallel: each is a few ms, but they add up on every CLI call.
    std::vector<ProcessSpec> specs;
    std::vector<ToolInfo*> versionOf;
    if (options.queryVersions) {
        for (ToolInfo* t : {&tc.nvcc, &tc.ptxas, &tc.nvdisasm, &tc.cuobjdump}) {
            if (!t->found()) continue;
            if (const auto* v = memoGet(fileIdentity(t->path), "version"); v && v->is_string() && memoWord(*v)) {
                t->version = v->get<std::string>();
                continue;
            }
            ProcessSpec s;
            s.argv = {t->path, "--version"};
            s.timeout = std::chrono::milliseconds(10000);
            specs.push_back(std::move(s));
            versionOf.push_back(t);
        }
    }
    bool archs = options.queryArchs && tc.nvcc.found();
    std::string nvccIdentity = tc.nvcc.found() ? fileIdentity(tc.nvcc.path) : "";
    bool archsFromMemo = false;
    if (archs) {
        if (const auto* a = memoGet(nvccIdentity, "archs"); a && a->is_array() && !a->empty()) {
            for (const auto& x : *a)
                if (x.is_string() && memoWord(x)) tc.gpuArchs.push_back(x.get<std::string>());
            // One word no tool would print and the whole answer is asked again.
            if (tc.gpuArchs.size() != a->size()) tc.gpuArchs.clear();
            archsFromMemo = !tc.gpuArchs.empty();
        }
    }
    if (archs && !archsFromMemo) {
        // --list-gpu-code names the real (SASS) architectures, sm_XX, which is what a build targets;
        // --list-gpu-arch (compute_XX, virtual) is the fallback for nvcc versions without it.
        ProcessSpec s;
        s.argv = {tc.nvcc.path, "--list-gpu-code"};
        s.timeout = std::chrono::milliseconds(10000);
        specs.push_back(std::move(s));
    }
    std::vector<ProcessResult> results = runProcessesParallel(specs);
    for (size_t i = 0; i < versionOf.size(); ++i) {
        if (!results[i].started()) continue;
        versionOf[i]->version = parseVersion(results[i].stdoutText + results[i].stderrText);
        std::string id = fileIdentity(versionOf[i]->path);
        if (!memoFile.empty() && !id.empty() && !versionOf[i]->version.empty()) {
            memo[id]["version"] = versionOf[i]->version;
            memoChanged = true;
        }
    }

    auto collectArchs = [&](const std::string& text) {
        std::stringstream ss(text);
        std::string w;
        while (ss >> w) {
            if (w.rfind("compute_", 0) == 0) w = "sm_" + w.substr(8);
            if (w.rfind("sm_", 0) == 0 && std::find(tc.gpuArchs.begin(), tc.gpuArchs.end(), w) == tc.gpuArchs.end())
                tc.gpuArchs.push_back(w);
        }
    };
    if (archs && !archsFromMemo) {
        const ProcessResult& r = results.back();
        if (r.ok()) collectArchs(r.stdoutText);
        if (tc.gpuArchs.empty()) {
            ProcessSpec s;
            s.argv = {tc.nvcc.path, "--list-gpu-arch"};
            s.timeout = std::chrono::milliseconds(10000);
            ProcessResult r2 = runProcess(s);
            if (r2.ok()) collectArchs(r2.stdoutText);
        }
        // Numeric order (sm_100 after sm_90), variants after their base.
        std::stable_sort(tc.gpuArchs.begin(), tc.gpuArchs.end(), [](const std::string& a, const std::string& b) {
            int na = std::atoi(a.c_str() + 3), nb = std::atoi(b.c_str() + 3);
            if (na != nb) return na < nb;
            return a < b;
        });
        if (!memoFile.empty() && !nvccIdentity.empty() && !tc.gpuArchs.empty()) {
            memo[nvccIdentity]["archs"] = tc.gpuArchs;
            memoChanged = true;
        }
    }
    if (memoChanged) {
        // Bounded: entries of replaced toolkits are dropped wholesale rather than tracked.
        if (memo.size() > 64) {
            nlohmann::json keep = nlohmann::json::object();
            for (const ToolInfo* t : {&tc.nvcc, &tc.ptxas, &tc.nvdisasm, &tc.cuobjdump}) {
                std::string id = t->found() ? fileIdentity(t->path) : "";
                if (!id.empty() && memo.contains(id)) keep[id] = memo[id];
            }
            memo = std::move(keep);
        }
        writeMemo(memoFile, memo);
    }
    return tc;
}

} // namespace lowerscope
