// MappedFile: a whole file mapped read-only into memory (mmap), unmapped when the object goes
// away. Movable, not copyable; errors are CheckpointErrors naming the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace earshot::checkpoint {

class MappedFile {
public:
    MappedFile() = default;
    // Maps all of `path`. An empty file maps to an empty span. Throws CheckpointError (missing
    // file, not a regular file, open or mmap failure) naming the file and the system's reason.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();

    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // Valid until this object is destroyed or moved from; moving keeps the address.
    std::span<const std::byte> bytes() const { return {data_, size_bytes_}; }
    std::size_t size_bytes() const { return size_bytes_; }
    const std::filesystem::path& path() const { return path_; }

private:
    void release() noexcept;

    std::filesystem::path path_;
    const std::byte* data_ = nullptr;
    std::size_t size_bytes_ = 0;
};

}  // namespace earshot::checkpoint
