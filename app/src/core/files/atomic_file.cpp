// write_file_atomically: open a unique temporary file in the target's folder, write everything,
// fsync, rename over the target, then fsync the folder so that the rename itself is on disk.
#include "core/files/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace earshot::app {
namespace {

namespace fs = std::filesystem;

std::string reason(int error) { return std::strerror(error); }

[[noreturn]] void fail(const fs::path& path, int error) {
    throw std::runtime_error("cannot write " + path.string() + ": " + reason(error));
}

// Closes the descriptor and removes the temporary file unless released after the rename.
class TemporaryFile {
public:
    TemporaryFile(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}
    ~TemporaryFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!renamed_) ::unlink(path_.c_str());
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    int fd() const { return fd_; }
    const fs::path& path() const { return path_; }
    // Closes the descriptor; the close's own error (a delayed write error on some file systems).
    int close() {
        const int result = ::close(fd_);
        fd_ = -1;
        return result == 0 ? 0 : errno;
    }
    void mark_renamed() { renamed_ = true; }

private:
    int fd_;
    fs::path path_;
    bool renamed_ = false;
};

int open_temporary(const fs::path& target, fs::path& temporary) {
    static std::atomic<unsigned> counter{0};
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    for (int attempt = 0; attempt < 100; ++attempt) {
        temporary = folder / ("." + target.filename().string() + ".tmp-" +
                              std::to_string(::getpid()) + "-" + std::to_string(counter++));
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view bytes) {
    if (fs::is_directory(path)) fail(path, EISDIR);
    fs::path temporary_path;
    const int fd = open_temporary(path, temporary_path);
    if (fd < 0) fail(path, errno);
    TemporaryFile temporary(fd, temporary_path);

    const char* data = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        const ssize_t written = ::write(temporary.fd(), data, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            fail(path, errno);
        }
        data += written;
        left -= static_cast<size_t>(written);
    }
    if (::fsync(temporary.fd()) != 0) fail(path, errno);
    if (const int error = temporary.close(); error != 0) fail(path, error);
    if (::rename(temporary.path().c_str(), path.c_str()) != 0) fail(path, errno);
    temporary.mark_renamed();

    // The rename is durable once the folder's entry is on disk; a failure here changes nothing
    // about what the name holds, so it is not reported.
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const int folder_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder_fd >= 0) {
        ::fsync(folder_fd);
        ::close(folder_fd);
    }
}

}  // namespace earshot::app
