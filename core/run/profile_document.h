#pragma once
// A `lowerscope.profile/1` document (written by `lowerscope-cli profile`) read back, e.g. to show
// its counts and stall samples on the SASS rows of the GUI. Documents are untrusted: the reader
// bounds size and nesting, checks every field's type and never follows a path from the document.

#include "core/model.h"
#include "core/run/profile_data.h"
#include "core/run/protocol.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

struct ProfileDocumentError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ProfileDocument {
    std::string kernel;      // mangled name of the profiled kernel
    std::string cubinDigest; // XXH3-64 hex of the module image it was taken on
    std::string codeDigest;  // sassCodeDigest() of the profiled function ("" in documents without it)
    std::string file;        // the source file's name as written (display only)
    std::string arch;         // the build's arch ("sm_90"), display only (control bytes escaped)
    std::string buildOptions; // the build's nvcc options as recorded, display only (escaped, bounded)
    std::vector<ProfileMetric> metrics;
    std::optional<DeviceInfo> device; // the device it was taken on (its peaks), when recorded
    // Per-instruction counts and samples of every row the document marks as profiled, as one
    // "instructions" profile (the form joinProfiles() takes), keyed like the runner's.
    ProfileData rows;
};

// Why `doc` cannot be shown on `function` of a build whose cubin digest is `cubinDigest`, or
// nullopt when it can: the same cubin, or the same machine code (code digest) of the same kernel.
std::optional<std::string> profileDocumentMismatch(const ProfileDocument& doc, const std::string& cubinDigest,
                                                   const SassFunction& function, const std::string& mangled);

// Parses `text` with the bounded reader (core/bounded_json.h: at most 64 MiB, 32 levels). Throws
// ProfileDocumentError naming the problem: not JSON or past a limit (the limit named), another
// schema, a field of the wrong type.
ProfileDocument readProfileDocument(const std::string& text);
// The same for a document already parsed (a profile just collected; compare --profile's sides).
ProfileDocument readProfileDocument(const nlohmann::json& document);

} // namespace lowerscope
