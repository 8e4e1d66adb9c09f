#pragma once
// The `.lowerscope` experiment session: everything needed to rebuild, re-measure and read an A/B
// experiment later or on another machine. A JSON document, schema "lowerscope.session/1":
//
//   { "schema": "lowerscope.session/1", "saved_by": "Lowerscope 0.1.0", "title": "...",
//     "source": {"name": "kernels/x.cu", "text": "..."},
//     "a": {"label": "A", "kernel": "...", "options": {BuildOptions}, "source": null | {name, text}},
//     "b": null | {same as "a"},
//     "launch": {"grid": ["ceil(n/256)"], "block": ["256"], "shared_bytes": "0", "args": ["n=1<<24", ...],
//                "outputs": ["y"], "bytes": "12*n", "flops": "2*n"},
//     "measurements": [ <runner result documents, verbatim> ],
//     "card": {"hypothesis": "", "implementation": "", "measurement": "", "result": "", "interpretation": ""} }
//
// BuildOptions use the snake_case keys of core/build/json_io.h. Unknown top-level keys of a version-1
// file are kept (ExperimentSession::extra) and written back, so a round trip loses nothing.

#include "core/build/build.h"
#include "core/build/option_safety.h"
#include "core/run/argspec.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace lowerscope {

inline constexpr const char* kSessionSchema = "lowerscope.session/1";
inline constexpr int kSessionVersion = 1;

struct SourceFile {
    std::string name; // as shown and as passed to nvcc, e.g. "kernels/saxpy.cu" (relative or absolute)
    std::string text; // the full source text
    bool operator==(const SourceFile&) const = default;
};

// One side of the comparison.
struct BuildConfig {
    std::string label = "A";  // shown in tables and charts
    std::string kernel;       // kernel name (demangled or mangled); "" = the first kernel
    BuildOptions options;
    bool ownSource = false;   // true: `source` below is this side's file (B built from another file)
    SourceFile source;        // used only when ownSource
    bool operator==(const BuildConfig&) const = default;
    static BuildConfig named(std::string label) {
        BuildConfig c;
        c.label = std::move(label);
        return c;
    }
};

// Launch configuration in the runner's expression language (core/run/expr): each dimension and
// the shared-memory size are expressions over the argument names ("ceil(n/256)"). The same fields
// as core/run/argspec.h's LaunchSpec (a sidecar entry) minus the kernel, which each side names.
struct SessionLaunch {
    std::vector<std::string> grid{"1"};   // 1 to 3 expressions (x, y, z)
    std::vector<std::string> block{"1"};  // 1 to 3 expressions
    std::string sharedBytes = "0";        // dynamic shared memory per block
    std::vector<std::string> args;        // argument specs, same language as the CLI / sidecars
    std::vector<std::string> lets;        // scalars and buffers not passed to the kernel (saved when any)
    std::vector<std::string> cluster;     // thread block cluster, 0 or 1..3 expressions (saved when set)
    std::vector<std::string> outputs;     // output buffer names; empty = every non-const buffer
    std::string bytes;                    // bytes moved per launch, expression; "" = not declared
    std::string flops;                    // FLOPs per launch, expression; "" = not declared
    bool operator==(const SessionLaunch&) const = default;
};

// Conversions to and from a sidecar / CLI launch description.
SessionLaunch sessionLaunchFrom(const LaunchSpec& spec);
LaunchSpec launchSpecFor(const SessionLaunch& launch, const std::string& kernel);

// Free text, numbers linked in by the user.
struct ExperimentCard {
    std::string hypothesis, implementation, measurement, result, interpretation;
    bool operator==(const ExperimentCard&) const = default;
};

struct ExperimentSession {
    std::string title;
    SourceFile source;                      // the file both sides build unless a side has its own
    BuildConfig a;
    bool hasB = false;
    BuildConfig b = BuildConfig::named("B");
    SessionLaunch launch;
    std::vector<nlohmann::json> measurements; // runner result documents ("lowerscope.run/1"), verbatim
    ExperimentCard card;
    nlohmann::json extra = nlohmann::json::object(); // unknown top-level keys, preserved
    bool operator==(const ExperimentSession&) const = default;

    // The source a side builds: its own when ownSource, else the session's.
    const SourceFile& sourceFor(const BuildConfig& side) const { return side.ownSource ? side.source : source; }
};

// Why a session could not be read or written. what() is one sentence for the user, naming the file.
class SessionError : public std::runtime_error {
public:
    enum class Kind {
        Io,            // cannot open / read / write / rename
        Corrupt,       // not JSON, JSON past a size/depth limit (core/bounded_json.h), or not a session
        MissingKey,    // a required key is absent (path in what(), e.g. "a.options")
        WrongType,     // a key has the wrong JSON type
        FutureVersion, // "written by a newer Lowerscope: schema lowerscope.session/3"
        UnsafePath     // a source name leads outside the folders the user chose (resolveSessionPaths)
    };
    SessionError(Kind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

// An experiment card file (`lowerscope-cli experiment --card`): a JSON object with any of
// "hypothesis", "implementation", "measurement", "result", "interpretation" (strings; absent keys
// stay ""), or a whole session whose "card" object is used. Throws SessionError(WrongType /
// Corrupt) naming the key; nothing else of the document is used (its options never are).
ExperimentCard cardFromJson(const nlohmann::json& json);

// ExperimentSession ↔ JSON. fromJson throws SessionError (never nlohmann exceptions).
nlohmann::json sessionToJson(const ExperimentSession& session);
ExperimentSession sessionFromJson(const nlohmann::json& json);

// Writes atomically: a temporary file in the same folder, flushed and fsync'ed, then renamed over
// `path`; on any failure the old file is untouched and the temporary removed. Throws SessionError(Io).
void saveSession(const ExperimentSession& session, const std::string& path);

// Reads and validates a whole file (at most 64 MiB, 64 levels deep: core/bounded_json.h). Returns a
// new ExperimentSession; the caller's current one is never touched, so on error it stays as it was.
// Source names are not checked here (see resolveSessionPaths). Throws SessionError.
ExperimentSession loadSession(const std::string& path);

// Non-throwing form: on success assigns `into` and returns true; on failure leaves `into`
// unchanged, sets `error` and returns false.
bool loadSession(const std::string& path, ExperimentSession& into, std::string& error);

// For a session someone else may have written: replaces every source name (the session's and a
// side's own) by the path resolveDocumentPath (core/untrusted.h) gives for it under `roots`
// (typically the current directory and the session file's folder), so that saving, the build's
// include path and sidecar lookups stay in those folders. Throws SessionError(UnsafePath) naming
// the key ("source.name", "b.source.name") when a name leads outside.
void resolveSessionPaths(ExperimentSession& session, const std::vector<std::string>& roots);

// ------------------------------------------------------------------------------------ trust

// The settings of an opened session that need the user's consent before anything is built, in the
// order A, B. Policy (documented in docs/SECURITY.md and shown in the prompt):
//   * optionTrustItems (core/build/option_safety.h) of each side: every define, include dir, extra
//     nvcc and ptxas flag, and a malformed arch or C++ standard; items whose value nvcc's shell
//     would interpret carry `refused` and are never built, whatever the answer.
// Source names are not asked about: resolveSessionPaths keeps them inside the folders the user
// chose or refuses the session.
std::vector<TrustItem> untrustedSettings(const ExperimentSession& session);
inline bool needsTrustPrompt(const ExperimentSession& session) { return !untrustedSettings(session).empty(); }
// The first refused item's reason, "" when none is refused.
std::string refusedSetting(const ExperimentSession& session);

// A stable hex digest of untrustedSettings(session) (not of the whole session): the app may
// remember "trusted" per fingerprint so the same flags are not asked about twice.
std::string trustFingerprint(const ExperimentSession& session);

} // namespace lowerscope
