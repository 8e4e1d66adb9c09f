#pragma once
// JSON (de)serialisation of the build types, with nlohmann::json. Keys are snake_case. The
// to_json/from_json pairs are found by ADL, so `nlohmann::json j = options;` and
// `j.get<BuildOptions>()` work. from_json fills missing keys with the struct defaults and throws
// nlohmann::json::exception on a wrong type.

#include "core/build/build.h"
#include "core/build/toolchain.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace lowerscope {

// The one reader of BuildOptions, shared by from_json, session files and the GUI's saved settings.
// Absent keys keep the struct defaults (documents from older versions); a present key of the wrong
// type is reported to `onWrongType(keyPath, expected, found)` and the field keeps its default.
// keyPath is `path` + "." + key ("a.options.max_reg_count"); expected reads "an integer",
// "true, false or null", ... The handler decides: sessions throw SessionError, from_json throws
// nlohmann's type_error, the GUI settings ignore it. Not an object: reported with keyPath == path.
using OptionsTypeHandler =
    std::function<void(const std::string& keyPath, const char* expected, const nlohmann::json& found)>;
BuildOptions readBuildOptions(const nlohmann::json& j, const std::string& path, const OptionsTypeHandler& onWrongType);

void to_json(nlohmann::json& j, const BuildOptions& o);     // tri-states: -1 → null, 0/1 → false/true
void from_json(const nlohmann::json& j, BuildOptions& o);
void to_json(nlohmann::json& j, const Resources& r);        // registers, shared_bytes, ...; -1 (absent) → null
void from_json(const nlohmann::json& j, Resources& r);
void to_json(nlohmann::json& j, const Diagnostic& d);       // severity as "error"/"warning"/...
void from_json(const nlohmann::json& j, Diagnostic& d);
void to_json(nlohmann::json& j, const CommandRecord& c);    // plus "command": the shell-quoted argv
void from_json(const nlohmann::json& j, CommandRecord& c);
void to_json(nlohmann::json& j, const EmbeddedCode& e);    // name, ptx (bool), arch, kernels
void from_json(const nlohmann::json& j, EmbeddedCode& e);
void to_json(nlohmann::json& j, const KernelArtifacts& k);
void from_json(const nlohmann::json& j, KernelArtifacts& k);
void to_json(nlohmann::json& j, const ToolInfo& t);
void from_json(const nlohmann::json& j, ToolInfo& t);
void to_json(nlohmann::json& j, const Toolchain& t);        // nvcc, ptxas, nvdisasm, cuobjdump, gpu_archs,
void from_json(const nlohmann::json& j, Toolchain& t);      // fingerprint (output only), problems (output only)
// The whole result except the cubin bytes (stored next to it by the cache; "cubin_bytes" = size).
void to_json(nlohmann::json& j, const BuildResult& r);
void from_json(const nlohmann::json& j, BuildResult& r);

// The `lowerscope-cli build --json` document, schema "lowerscope.build/1": schema, source, input
// {kind, path, member, embedded[name, ptx, arch, kernels]}, arch, ok, error,
// toolchain, options, nvcc_args, commands, diagnostics, kernels[name, mangled, resources, ptx,
// ptx_first_line, sass, sass_ptx_lines], ptx (module), cache_key, timings_ms (per stage
// + "total" + "cache_hit").
nlohmann::json buildReportJson(const std::string& sourcePath, const Toolchain& toolchain, const BuildOptions& options,
                               const BuildResult& result);

} // namespace lowerscope
