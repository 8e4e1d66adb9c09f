#pragma once
// Text and paths that come from files other people wrote (sources, sessions, compare and result
// documents, tool output about them) or from a runner. Three rules live here:
//   * terminal output: control bytes are shown as \xNN, never sent raw (a garbage source's bytes
//     echoed in a diagnostic must not drive the terminal);
//   * document paths: a path named inside a document may only lead into the folders the user
//     chose (the current directory and the document's own folder), checked lexically and after
//     resolving symlinks;
//   * names that become files (a runner's output names): reduced to a safe base name;
//   * input files: only a regular file is opened (a FIFO, device or socket never is: open() on a
//     FIFO blocks), through a non-blocking descriptor, and only when its size is within the limit
//     for its kind; the error names the file and the limit;
//   * text shown in markup (SVG, Markdown tables): escaped for that markup.

#include <cstddef>
#include <cstdint>
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

// Size limits of the files Lowerscope reads whole, checked before the first byte is read.
constexpr std::size_t kMaxSourceBytes = std::size_t(64) << 20;    // .cu sources and their headers
constexpr std::size_t kMaxDocumentBytes = std::size_t(64) << 20;  // JSON documents, compile databases
constexpr std::size_t kMaxCodeBytes = std::size_t(256) << 20;     // PTX and cubins (inputs, extracted, cached)

// "64 MiB", "3 KiB", "17 bytes".
std::string byteSizeText(std::size_t bytes);

// True when `path` is a regular file (after following symlinks) of at most `maxBytes`; else false
// with `error` one sentence naming the file and what it is ("cannot read X: it is a FIFO (named
// pipe), not a regular file", "X is larger than 256 MiB (limit) for a cubin (it is 8.0 GiB); not
// read"). `what`
// names the kind of file in the size message ("a source file", "a cubin"). Never opens the file.
bool checkInputFile(const std::string& path, std::size_t maxBytes, const std::string& what, std::string& error);

// Reads `path` whole: checkInputFile's rule, then open(O_NONBLOCK) and fstat of that descriptor
// (the file may have been swapped), and never more than maxBytes + 1 bytes even if it grows.
bool readInputFile(const std::string& path, std::size_t maxBytes, const std::string& what, std::string& text,
                   std::string& error);

// At most `n` first bytes of `path` when it is a regular file (same rule), else "" (never blocks).
std::string readInputHead(const std::string& path, std::size_t n);

// `text` for an XML/SVG text node or attribute: & < > " ' escaped, control bytes and invalid UTF-8
// (which XML 1.0 cannot hold) written as U+FFFD, tab and newline kept.
std::string xmlEscape(std::string_view text);

// `text` for one cell of a Markdown table: escapeControl, then | and the characters that start
// markup or HTML (\ ` * _ [ ] < > |) escaped with a backslash, newlines as spaces.
std::string markdownCell(std::string_view text);

// `text` cut to at most `maxBytes` bytes on a UTF-8 boundary, with "… (N bytes in all)" appended
// when it was cut. For long fields of documents shown to people.
std::string boundedText(std::string_view text, std::size_t maxBytes);

} // namespace lowerscope
