// LeasedMapping: a model file mapped read-only for the CPU backend's block weights, held under a
// read lease so that the file can change under Earshot without faulting it or changing its weights.
// When another process (or thread) opens the file for writing or truncates it, the kernel holds
// that writer back and tells this process; a watcher thread then copies the mapped bytes into
// anonymous memory at the same addresses, and only then lets the writer go on. A file renamed over
// the name needs nothing: the mapping keeps the old file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>

namespace earshot::backend::cpu {

// Drops the whole pages of `bytes` (in a read-only file mapping) from this process's resident
// memory: MADV_DONTNEED only unmaps them, the bytes stay in the page cache and the next read
// faults them back. Never on anonymous memory, which it would zero.
void drop_file_pages(std::span<const std::byte> bytes);

class LeasedMapping {
public:
    // Maps `path` read-only under a read lease when the kernel grants one (it does not to a
    // process that neither owns the file nor has CAP_LEASE, for a file open for writing, or on
    // some file systems) and, once leased, the file still holds exactly `loaded` (the bytes the
    // load read and checked, through its own mapping: compared a batch at a time, whose pages
    // of both mappings are then dropped from this process: the backend faults in what it reads).
    // nullptr otherwise, with the reason in `why`.
    static std::unique_ptr<LeasedMapping> open(const std::filesystem::path& path,
                                               std::span<const std::byte> loaded, std::string& why);
    ~LeasedMapping();
    LeasedMapping(const LeasedMapping&) = delete;
    LeasedMapping& operator=(const LeasedMapping&) = delete;

    const std::byte* data() const { return data_; }
    size_t size_bytes() const { return size_bytes_; }
    // Whether the bytes are still the file's pages (false once a lease break made them a copy).
    bool file_backed() const;
    // Drops the whole pages of `bytes` (inside this mapping) from this process's resident memory
    // while they are the file's pages: they stay in the page cache, and the next read faults them
    // back. Nothing once they are a private copy (dropping anonymous pages would zero them).
    void drop_pages(std::span<const std::byte> bytes);

    // The watcher's work when the lease breaks: copies every byte into anonymous memory at the
    // same addresses, then releases the lease and closes the file. Idempotent.
    void copy_privately();
    // The descriptor the lease is on; -1 once released.
    int lease_fd() const;

private:
    LeasedMapping() = default;

    mutable std::mutex mutex_;  // orders copy_privately against drop_pages and file_backed
    std::filesystem::path path_;
    int fd_ = -1;
    std::byte* data_ = nullptr;
    size_t size_bytes_ = 0;
    bool file_backed_ = true;
};

}  // namespace earshot::backend::cpu
