// MappedFile: open, fstat, mmap(PROT_READ, MAP_PRIVATE) and munmap, with errors naming the file.
#include "earshot/engine/checkpoint/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::checkpoint {
namespace {

std::string system_reason(int error_number) { return std::strerror(error_number); }

// Closes a descriptor when the constructor leaves, whether it maps or throws.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
        const int error_number = errno;
        throw CheckpointError(path, error_number == ENOENT ? std::string("no such file")
                                                           : "cannot open for reading: " +
                                                                 system_reason(error_number));
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
        throw CheckpointError(path, "cannot read the file size: " + system_reason(errno));
    }
    if (!S_ISREG(info.st_mode)) {
        throw CheckpointError(path, "not a regular file");
    }
    size_bytes_ = static_cast<std::size_t>(info.st_size);
    if (size_bytes_ == 0) {
        return;  // mmap of zero bytes fails; an empty file is an empty span
    }
    void* address = ::mmap(nullptr, size_bytes_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (address == MAP_FAILED) {
        const int error_number = errno;
        size_bytes_ = 0;
        throw CheckpointError(path, "cannot map " + std::to_string(info.st_size) +
                                        " bytes into memory: " + system_reason(error_number));
    }
    data_ = static_cast<const std::byte*>(address);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        data_ = std::exchange(other.data_, nullptr);
        size_bytes_ = std::exchange(other.size_bytes_, 0);
    }
    return *this;
}

void MappedFile::release() noexcept {
    if (data_ != nullptr) {
        // munmap takes a non-const pointer; the mapping is ours and read-only.
        ::munmap(const_cast<std::byte*>(data_), size_bytes_);
        data_ = nullptr;
        size_bytes_ = 0;
    }
}

}  // namespace earshot::checkpoint
