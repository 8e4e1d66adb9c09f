#pragma once
// Text and paths that come from files other people wrote (sources, sessions, compare and result
// documents, tool output about them) or from a runner. Three rules live here:
//   * terminal output: control bytes are shown as \xNN, never sent raw (a garbage source's bytes
//     echoed in a diagnostic must not drive the terminal);
//   * document paths: a path named inside a document may only lead into the folders the user
//     chose (the current directory and the document's own folder), checked lexically and after
//     resolving symlinks;
//   * names that become files (a runner's output names): reduced to a safe base name.

#include <string>
#include <string_view>
#include <vector>

namespace lowerscope {

// `text` with control bytes (< 0x20 except tab, and 0x7f; newline too unless `keepNewlines`) and
// bytes that are not valid UTF-8 written as \xNN. Valid UTF-8 is kept as it is.
std::string escapeControl(std::string_view text, bool keepNewlines = false);

// A file name made from `name`, a name that came from elsewhere (a runner's output name): letters,
// digits and . _ - + are kept, every other byte becomes '_', a leading '.' too; at most 100 bytes;
// "" becomes "output". So it never holds a '/', is never "." or "..", and stays in the folder it
// is joined to.
std::string safeBaseName(std::string_view name);

// Resolves `name`, a path read from a document, against `roots` (folders the user chose, e.g.
// the current directory and the document's folder; relative roots are taken from the current
// directory). A relative name is tried under each root in order: the first under which it
// exists wins, else the first root. An absolute name is kept. Either way the result must lie inside
// one of the roots, lexically and with symlinks resolved (as far as the path exists).
// True with `resolved` set (absolute, normalised); false with `error` one sentence naming `what`
// ("a.file", "the session's source"), the name and the roots.
bool resolveDocumentPath(const std::string& name, const std::vector<std::string>& roots,
                         const std::string& what, std::string& resolved, std::string& error);

} // namespace lowerscope
