#pragma once
// Content-addressed on-disk cache of build results. A key (XXH3-128, hex) covers everything that can
// change the toolchain's output, which depends on the input kind: for CUDA source the source bytes
// and path, the bytes of the local headers it includes (recursively), the options and the nvcc
// environment variables; for PTX its bytes and path and the options ptxas uses; for a cubin its
// bytes; always the kind and the toolchain fingerprint. An entry is <dir>/v1/<key[0..1]>/<key>.json (the BuildResult) + <key>.cubin; both are
// written to a temporary name, fsync'ed and renamed (the folder fsync'ed after), the JSON last, so
// readers never see half an entry, even after a crash. Entries are read through the bounded JSON
// reader. A failed build is stored only when it is the compiler's verdict (BuildResult::compileError;
// core/build/failure_kind.h), never after a signal, timeout, cancel, full disk or crashed tool.
// Not covered (as with ccache's direct mode): system headers outside the -I dirs (they change with
// the toolchain, which is in the key) and `#include MACRO` directives; --no-cache builds afresh.

#include "core/build/build.h"

#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

// The local files `sourcePath` includes, recursively, as absolute paths in discovery order (source
// itself excluded). `#include "x"` is looked up next to the including file, then in includeDirs;
// `#include <x>` only in includeDirs (system headers belong to the toolchain fingerprint).
// Unreadable or missing headers are skipped. Never throws.
std::vector<std::string> localIncludes(const std::string& sourcePath, const std::vector<std::string>& includeDirs);

// The cache key for building `input` (its options resolved: a PTX input's arch filled in) on a
// toolchain with `fingerprint`; 32 hex digits. "" when the input cannot be read (*error says why).
std::string computeCacheKey(const BuildInput& input, const std::string& fingerprint, std::string* error = nullptr);

// XXH3-128 of `data` as 32 hex digits.
std::string xxh3Hex(const void* data, size_t size);

class BuildCache {
public:
    // `dir` is created on the first store. "" = cacheDirectory().
    explicit BuildCache(std::string dir = {});
    const std::string& dir() const { return m_dir; }
    // The stored result (cubin included), or nullopt on a miss. A missing, unreadable or corrupt
    // entry (bad JSON, wrong key, cubin of the wrong size or hash) is a miss. Never throws.
    std::optional<BuildResult> load(const std::string& key) const;
    // Stores `result` under `key` (timings and cacheHit are stored as they are). False on an I/O
    // error (*error says why); a failed store never leaves a partial entry behind.
    bool store(const std::string& key, const BuildResult& result, std::string* error = nullptr) const;
    // Path of the entry's JSON file (it may not exist).
    std::string entryPath(const std::string& key) const;

private:
    std::string m_dir;
};

} // namespace lowerscope
