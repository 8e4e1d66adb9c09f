#pragma once
// The GUI's one way to read a file the user or a document named (docs/SECURITY.md): the core's
// readInputFile rule — the type is checked before open (a FIFO, device or folder is refused and
// never blocks), the size before the first byte is read — with its one-line error, as QStrings.

#include "core/untrusted.h"

#include <QString>

namespace lowerscope {

// Reads `path` whole as UTF-8 (invalid bytes become U+FFFD); false with `error` set when refused.
inline bool readUserTextFile(const QString& path, std::size_t maxBytes, const char* what, QString& text,
                             QString& error) {
    std::string bytes, why;
    if (!readInputFile(path.toStdString(), maxBytes, what, bytes, why)) {
        error = QString::fromStdString(why);
        return false;
    }
    text = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
    return true;
}

} // namespace lowerscope
