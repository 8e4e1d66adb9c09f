#include "core/build/cache.h"

#include "core/atomic_file.h"
#include "core/bounded_json.h"
#include "core/build/json_io.h"
#include "core/build/triton.h"
#include "core/untrusted.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

constexpr const char* kFormat = "lowerscope.cache/1";
constexpr size_t kMaxIncludeFiles = 4096; // a pathological include graph must not stall a build

// Every file read here goes through the one input rule (core/untrusted.h): regular files only,
// never blocking on a FIFO, the size checked first.
bool readFile(const std::string& path, std::string& out, std::size_t limit = kMaxCodeBytes,
              const char* what = "a cubin or PTX", std::string* error = nullptr) {
    std::string why;
    if (readInputFile(path, limit, what, out, why)) return true;
    if (error) *error = why;
    return false;
}

// The text a cache entry's "result" hashes to: the same dump on store and on load (keys sorted,
// invalid UTF-8 replaced), so that every artefact of the entry (PTX, SASS, diagnostics, the
// resource report), not only the cubin, is checked before it is replayed.
std::string resultText(const nlohmann::json& result) {
    return result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string hex128(XXH128_hash_t h) {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return buf;
}

std::string canonicalPath(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? fs::absolute(p, ec).lexically_normal().string() : c.string();
}

bool isRegularFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// The include directives of a file: (quoted?, name).
std::vector<std::pair<bool, std::string>> includeDirectives(const std::string& text) {
    std::vector<std::pair<bool, std::string>> out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        size_t i = pos;
        auto skipSpace = [&] {
            while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
        };
        skipSpace();
        if (i < end && text[i] == '#') {
            ++i;
            skipSpace();
            if (text.compare(i, 7, "include") == 0) {
                i += 7;
                skipSpace();
                if (i < end && (text[i] == '"' || text[i] == '<')) {
                    char close = text[i] == '"' ? '"' : '>';
                    size_t nameEnd = text.find(close, i + 1);
                    if (nameEnd != std::string::npos && nameEnd < end && nameEnd > i + 1)
                        out.emplace_back(close == '"', text.substr(i + 1, nameEnd - i - 1));
                }
            }
        }
        pos = end + 1;
    }
    return out;
}

std::vector<std::string> absoluteDirs(const std::vector<std::string>& dirs) {
    std::vector<std::string> out;
    for (const auto& d : dirs) out.push_back(canonicalPath(d));
    return out;
}

} // namespace

std::string xxh3Hex(const void* data, size_t size) { return hex128(XXH3_128bits(data, size)); }

std::vector<std::string> localIncludes(const std::string& sourcePath, const std::vector<std::string>& includeDirs) {
    std::vector<std::string> found;
    std::set<std::string> seen{canonicalPath(sourcePath)};
    std::vector<std::string> dirs = absoluteDirs(includeDirs);
    std::vector<std::string> queue{canonicalPath(sourcePath)};
    for (size_t qi = 0; qi < queue.size() && found.size() < kMaxIncludeFiles; ++qi) {
        std::string text;
        if (!readFile(queue[qi], text, kMaxSourceBytes, "a header")) continue;
        fs::path here = fs::path(queue[qi]).parent_path();
        for (const auto& [quoted, name] : includeDirectives(text)) {
            std::vector<fs::path> candidates;
            if (fs::path(name).is_absolute()) {
                candidates.push_back(name);
            } else {
                if (quoted) candidates.push_back(here / name);
                for (const auto& d : dirs) candidates.push_back(fs::path(d) / name);
            }
            for (const auto& c : candidates) {
                if (!isRegularFile(c)) continue;
                std::string abs = canonicalPath(c);
                if (seen.insert(abs).second) {
                    found.push_back(abs);
                    queue.push_back(abs);
                }
                break;
            }
        }
    }
    return found;
}

std::string computeCacheKey(const BuildInput& input, const std::string& fingerprint, std::string* error) {
    std::string bytes;
    if (input.kind == InputKind::Triton) {
        // One kernel's folder: its metadata, PTX and cubin make the key.
        try {
            const TritonKernel k = readTritonKernel(input.path);
            for (const std::string* f : {&k.metadataPath, &k.ptxPath, &k.cubinPath}) {
                std::string part;
                if (!f->empty() && !readFile(*f, part, f == &k.metadataPath ? kMaxDocumentBytes : kMaxCodeBytes,
                                             f == &k.metadataPath ? "Triton metadata" : "a Triton kernel's code",
                                             error))
                    return {};
                bytes += std::to_string(part.size()) + ":" + part;
            }
        } catch (const std::exception& e) {
            if (error) *error = e.what();
            return {};
        }
    } else {
        const bool source = input.kind == InputKind::CudaSource;
        const bool code = input.kind == InputKind::Ptx || input.kind == InputKind::Cubin;
        // Containers (executables, libraries) are read whole only to hash them: a larger limit.
        const std::size_t limit = source ? kMaxSourceBytes : code ? kMaxCodeBytes : kMaxCodeBytes * 4;
        const char* what = source ? "a source file" : input.kind == InputKind::Ptx ? "PTX"
                           : input.kind == InputKind::Cubin                     ? "a cubin"
                                                                                 : "a binary";
        if (!readFile(input.path, bytes, limit, what, error)) return {};
    }
    const BuildOptions& options = input.options;
    XXH3_state_t* state = XXH3_createState();
    XXH3_128bits_reset(state);
    auto add = [&](const std::string& s) {
        // Length-prefixed so that field boundaries cannot shift between inputs.
        uint64_t n = s.size();
        XXH3_128bits_update(state, &n, sizeof n);
        XXH3_128bits_update(state, s.data(), s.size());
    };
    add("lowerscope.build-key/2");
    add(inputKindName(input.kind));
    switch (input.kind) {
    case InputKind::CudaSource: {
        // The path matters, not only the bytes: nvcc records it in line info and diagnostics.
        add(canonicalPath(input.path));
        add(bytes);
        for (const auto& inc : localIncludes(input.path, options.includeDirs)) {
            std::string text;
            add(inc);
            add(readFile(inc, text, kMaxSourceBytes, "a header") ? text : std::string("<unreadable>"));
        }
        nlohmann::json oj = options;
        add(oj.dump());
        // Relative -I dirs and verbatim flags are interpreted against the working directory.
        bool cwdMatters = !options.extraNvccFlags.empty();
        for (const auto& d : options.includeDirs) cwdMatters |= !fs::path(d).is_absolute();
        if (cwdMatters) {
            std::error_code ec;
            add(fs::current_path(ec).string());
        }
        for (const char* var : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"}) {
            const char* v = std::getenv(var);
            add(v ? std::string(var) + "=" + v : std::string());
        }
        break;
    }
    case InputKind::Ptx: {
        // ptxas names the file in diagnostics; only the options it is given count.
        add(canonicalPath(input.path));
        add(bytes);
        for (const auto& a : toPtxasArgs(options, options.arch)) add(a);
        break;
    }
    case InputKind::Cubin:
        add(bytes); // the disassembly depends on the bytes alone
        break;
    case InputKind::Fatbin:
    case InputKind::Object:
    case InputKind::SharedLibrary:
    case InputKind::Executable:
        // The bytes and which member: named, or the default for the arch; an embedded PTX is
        // assembled with the ptxas options. "members/2": the listing names each member once
        // (entries made before listed a shared library's cubins twice).
        add("members/2");
        add(bytes);
        add(input.member);
        for (const auto& a : toPtxasArgs(options, options.arch)) add(a);
        break;
    case InputKind::Triton:
        // The kernel's files and folder; `member` carries the cache root's listing when a root was
        // opened (the result lists the root's kernels).
        add(bytes);
        add(canonicalPath(input.path));
        add(input.member);
        break;
    }
    add(fingerprint);
    std::string key = hex128(XXH3_128bits_digest(state));
    XXH3_freeState(state);
    return key;
}

BuildCache::BuildCache(std::string dir) : m_dir(dir.empty() ? cacheDirectory() : std::move(dir)) {}

std::string BuildCache::entryPath(const std::string& key) const {
    std::string prefix = key.size() >= 2 ? key.substr(0, 2) : "xx";
    return (fs::path(m_dir) / "v1" / prefix / (key + ".json")).string();
}

std::optional<BuildResult> BuildCache::load(const std::string& key) const {
    if (key.empty()) return std::nullopt;
    try {
        std::string jsonPath = entryPath(key);
        std::string text;
        if (!readFile(jsonPath, text, size_t(1) << 30, "a cache entry")) return std::nullopt;
        // Bounded (core/bounded_json.h): a damaged or planted entry must not take the build down.
        // Entries are shallow but can be large (the SASS texts of a big module).
        JsonLimits limits;
        limits.maxBytes = size_t(1) << 30;
        limits.maxDepth = 16;
        nlohmann::json j = parseJsonBounded(text, limits);
        if (j.value("format", "") != kFormat || j.value("key", "") != key) return std::nullopt;
        // Every artefact is hashed, not only the cubin: an entry whose PTX, SASS or diagnostics were
        // changed (or that predates the result hash) is no hit.
        const std::string rt = resultText(j.at("result"));
        if (xxh3Hex(rt.data(), rt.size()) != j.value("result_xxh3", "")) return std::nullopt;
        BuildResult r = j.at("result").get<BuildResult>();
        std::string cubinPath = jsonPath.substr(0, jsonPath.size() - 5) + ".cubin";
        std::string cubin;
        if (!readFile(cubinPath, cubin)) return std::nullopt;
        if (cubin.size() != j.at("cubin_size").get<size_t>() || xxh3Hex(cubin.data(), cubin.size()) != j.at("cubin_xxh3").get<std::string>())
            return std::nullopt;
        r.cubin.assign(cubin.begin(), cubin.end());
        return r;
    } catch (const std::exception&) {
        return std::nullopt; // corrupt entry: rebuilt and overwritten by the next store
    }
}

bool BuildCache::store(const std::string& key, const BuildResult& result, std::string* error) const {
    if (key.empty()) {
        if (error) *error = "empty cache key";
        return false;
    }
    std::string jsonPath = entryPath(key);
    std::string cubinPath = jsonPath.substr(0, jsonPath.size() - 5) + ".cubin";
    std::error_code ec;
    fs::create_directories(fs::path(jsonPath).parent_path(), ec);
    if (ec) {
        if (error) *error = "cannot create " + fs::path(jsonPath).parent_path().string() + ": " + ec.message();
        return false;
    }
    // Each file atomically (atomic_file.h): no partial file ever carries an entry's name.
    auto writeAtomic = [&](const std::string& path, const char* data, size_t size) {
        std::string why;
        if (writeFileAtomically(path, std::string_view(data, size), why)) return true;
        if (error) *error = why;
        return false;
    };
    nlohmann::json resultJson = result;
    // Stored as the text it was hashed from, so that the reader's dump of the parsed value matches.
    resultJson = nlohmann::json::parse(resultText(resultJson));
    const std::string rt = resultText(resultJson);
    nlohmann::json j{{"format", kFormat},
                     {"key", key},
                     {"cubin_size", result.cubin.size()},
                     {"cubin_xxh3", xxh3Hex(result.cubin.data(), result.cubin.size())},
                     {"result_xxh3", xxh3Hex(rt.data(), rt.size())},
                     {"result", std::move(resultJson)}};
    // Tool output may hold invalid UTF-8 (a source comment in Latin-1 echoed in a diagnostic).
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    // The cubin first, the JSON (which names the cubin's hash) last: a reader that finds the JSON
    // either finds the matching cubin or treats the entry as corrupt.
    if (!writeAtomic(cubinPath, reinterpret_cast<const char*>(result.cubin.data()), result.cubin.size())) return false;
    if (writeAtomic(jsonPath, text.data(), text.size())) return true;
    // No JSON: the cubin alone is no entry. Removed, so that the folder holds no half of one (an
    // older JSON for this key, if any, no longer finds its cubin: a miss, never a wrong hit).
    ::unlink(cubinPath.c_str());
    return false;
}

} // namespace lowerscope
