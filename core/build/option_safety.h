#pragma once
// The one rule for text that reaches nvcc's argv, whatever its origin (CLI flags, the GUI, sessions,
// experiment cards, compare documents, compile databases).
//
// Lowerscope starts nvcc without a shell, but nvcc itself runs its steps (gcc -E, cicc, ptxas, ...)
// through /bin/sh, with command lines it composes from its own argv. It puts some values in double
// quotes (defines, include dirs, file names), escapes `$` and `'` in some places and not in others,
// and pastes most free flags (-Xcompiler, -Xptxas values) unquoted. So shell syntax inside an
// option value can run a command. Measured with nvcc 13.0 (scripts/probe-nvcc-shell, table in
// docs/SECURITY.md); the tests re-check the allowed sets against the installed nvcc.
//
// The rule per place a value lands ("slot"):
//   Define      -D "NAME=VALUE" (double quotes, nvcc escapes `"`): refused  $ ` \  control bytes.
//               Spaces, quotes, ;&|<>() and the rest are kept literally: -DMSG="a b" works.
//   IncludeDir  -I"DIR" (double quotes, nvcc escapes `$`): refused  ` \ " '  control bytes.
//   PtxasFlag   unquoted (nvcc escapes `$` and `'`): refused  whitespace ; & | < > ( ) ` \ " * ? [ ]
//               # ~ { }  control bytes.
//   NvccFlag    a free nvcc argument can land anywhere, unquoted and unescaped: refused everything
//               PtxasFlag refuses plus $ and '. Free arguments that are themselves a define, an
//               include dir or a ptxas option (-DX, -I DIR, -Xptxas V, --ptxas-options=V, ...) get
//               that slot's rule for their value; the list syntax of -gencode/-arch/-code
//               (code=[sm_90,compute_90], code="sm_90") keeps its brackets and quotes, which
//               nvcc consumes itself.
// Source file paths are not refused: buildFile builds an unsafe path from a copy with a safe name
// (isShellSafePath decides).

#include "core/build/build.h"

#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

// Where an option value ends up in the command lines nvcc hands to its shell.
enum class OptionSlot { Define, IncludeDir, PtxasFlag, NvccFlag };

// "" when `value` may be passed to nvcc in `slot`; else one sentence naming `option` (e.g. "define",
// "include dir", "extra nvcc flag"), the value and the first refused character with what the shell
// would do with it, e.g.
//   define "X=$(id)": '$' would be run by the shell nvcc starts its steps with (command substitution)
std::string checkOptionValue(std::string_view option, std::string_view value, OptionSlot slot);

// Checks a list of verbatim nvcc arguments (extra flags, a compile database's command), each in its
// slot: "-D" followed by a value, "-DX", "--define-macro=X" are defines, "-I", "--include-path"
// include dirs, "-Xptxas", "--ptxas-options" ptxas flags; anything else a free NvccFlag. `option`
// names the origin in the message ("extra nvcc flag", "compile_commands.json entry 3"). "" when all
// are safe, else the first problem.
std::string checkNvccArgs(std::string_view option, const std::vector<std::string>& args);

// Every string field of `options` that reaches nvcc's argv (arch and C++ standard are checked by
// their own syntax in checkBuildOptions). "" when safe, else the first problem.
std::string checkOptionSafety(const BuildOptions& options);

// True when `path` can be handed to nvcc as a file name as it is: only letters, digits, bytes >= 0x80
// (UTF-8 names) and / . _ + - , = @ % :. Anything else (space, quotes, $, `, ...) is built from a
// safe-named copy instead.
bool isShellSafePath(std::string_view path);

// ------------------------------------------------------------------------------------ trust

// A build setting from a document (session, compare document, compile database) that needs the
// user's consent before it is built, or that is refused outright.
struct TrustItem {
    std::string side;    // "A" / "B" (the configuration's label), or the document's name for it
    std::string setting; // "define", "include dir", "extra nvcc flag", "extra ptxas flag", "arch",
                         // "C++ standard"
    std::string value;   // as it would appear in nvcc's argv ("-DX=1", "-I/opt/inc", "-Xptxas -v")
    std::string refused; // "" = may be trusted; else why it is never built (checkOptionValue's text)
    bool operator==(const TrustItem&) const = default;
};

// The trust policy for one set of options from a document. Listed (the user decides):
//   * every define: it changes what the compiler sees and its value reaches nvcc's command lines;
//   * every include dir: a path on this machine the compiler reads;
//   * every extra nvcc flag and ptxas flag: verbatim flags can name programs (-ccbin,
//     -Xcompiler -fplugin=..., --run) or write files (--keep-dir, -o);
//   * an arch or C++ standard that fails its syntax check.
// An item whose value fails checkOptionValue carries `refused`: no answer lets it be built.
std::vector<TrustItem> optionTrustItems(const BuildOptions& options, const std::string& side);

} // namespace lowerscope
