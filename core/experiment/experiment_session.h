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
        Corrupt,       // not JSON, or JSON that is not a session object
        MissingKey,    // a required key is absent (path in what(), e.g. "a.options")
        WrongType,     // a key has the wrong JSON type
        FutureVersion  // "saved by a newer Lowerscope: schema lowerscope.session/3"
    };
    SessionError(Kind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

// ExperimentSession ↔ JSON. fromJson throws SessionError (never nlohmann exceptions).
nlohmann::json sessionToJson(const ExperimentSession& session);
ExperimentSession sessionFromJson(const nlohmann::json& json);

// Writes atomically: a temporary file in the same folder, flushed and fsync'ed, then renamed over
// `path`; on any failure the old file is untouched and the temporary removed. Throws SessionError(Io).
void saveSession(const ExperimentSession& session, const std::string& path);

// Reads and validates a whole file. Returns a new ExperimentSession; the caller's current one is never
// touched, so on error it stays as it was. Throws SessionError.
ExperimentSession loadSession(const std::string& path);

// Non-throwing form: on success assigns `into` and returns true; on failure leaves `into`
// unchanged, sets `error` and returns false.
bool loadSession(const std::string& path, ExperimentSession& into, std::string& error);

// ------------------------------------------------------------------------------------ trust

// A build setting of an opened session that can make the build run or load arbitrary programs.
struct TrustItem {
    std::string side;    // "A" / "B" (the configuration's label)
    std::string setting; // "extra nvcc flag", "extra ptxas flag", "arch", "C++ standard", "define"
    std::string value;   // the flag as it would appear in nvcc's argv
    bool operator==(const TrustItem&) const = default;
};

// The settings that need the user's consent before building a session from someone else.
// Policy (documented in docs and the prompt):
//   * every extra nvcc flag: passed verbatim, they can name programs (-ccbin, --compiler-bindir,
//     -Xcompiler -fplugin=..., -Xlinker, --run, --keep-dir writes files);
//   * every extra ptxas flag: verbatim too; asked for the same reason, conservatively;
//   * structured values that fail their syntax check (arch not sm_XX[a|f], C++ standard not
//     c++NN/gnu++NN, a define whose name does not start with a letter or '_'), since they become
//     argv elements and could smuggle an option.
// Not asked: include directories and well-formed defines. They only change which headers and
// macros the compiler sees, which the untrusted source text can already do itself (#include of any
// absolute path, #define); preprocessing and device compilation do not execute the code.
std::vector<TrustItem> untrustedSettings(const ExperimentSession& session);
inline bool needsTrustPrompt(const ExperimentSession& session) { return !untrustedSettings(session).empty(); }

// A stable hex digest of untrustedSettings(session) (not of the whole session): the app may
// remember "trusted" per fingerprint so the same flags are not asked about twice.
std::string trustFingerprint(const ExperimentSession& session);

} // namespace lowerscope
