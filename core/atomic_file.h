#pragma once
// Writing a file so that a reader (another window, a second process, the next start after a
// crash) sees either the old file or the whole new one, never a part.

#include <string>
#include <string_view>

namespace lowerscope {

// Writes `data` to `path`: a unique temporary "<folder>/.<name>.tmp-XXXXXX" beside the target
// (rename is atomic only within one filesystem), written in full, fsync'ed, mode 0644, renamed
// over `path`, then the folder fsync'ed so that the rename itself survives a crash. The folder
// must exist. Any failure removes the temporary and returns false with `error` naming the step
// and the file ("cannot write /a/.b.json.tmp-x1Yz2Q: File too large").
bool writeFileAtomically(const std::string& path, std::string_view data, std::string& error);

} // namespace lowerscope
