// Atomic file writes (atomic_file.h).
#include "core/atomic_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace lowerscope {

bool writeFileAtomically(const std::string& path, std::string_view data, std::string& error) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string pattern = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) {
        error = "cannot create a file in " + dir.string() + ": " + std::strerror(errno);
        return false;
    }
    const std::string tmp(name.data());
    auto fail = [&](const char* what, bool open) {
        const int err = errno;
        if (open) ::close(fd);
        ::unlink(tmp.c_str());
        error = std::string(what) + " " + tmp + ": " + std::strerror(err);
        return false;
    };
    for (size_t done = 0; done < data.size();) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail("cannot write", true);
        done += size_t(n);
    }
    // Durable before visible: without fsync a crash after the rename can leave an empty file.
    if (::fsync(fd) != 0) return fail("cannot sync", true);
    ::fchmod(fd, 0644); // mkstemp creates 0600; these are ordinary documents
    if (::close(fd) != 0) return fail("cannot close", false);
    if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename", false);
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return true;
}

} // namespace lowerscope
