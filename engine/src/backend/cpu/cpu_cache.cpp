// CacheBuffer: anonymous private mappings. Their pages read as zeros and become resident (and
// counted) on their first write, a 4 KiB page at a time (never huge pages); reads of a page never
// written map the kernel's shared zero page.
#include "cpu_cache.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace earshot::backend::cpu {

CacheBuffer::CacheBuffer(size_t bytes) : size_(bytes) {
    if (bytes == 0) return;
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    // Never huge pages: where transparent huge pages are "always", the first write into 2 MiB
    // would make all of it resident, and a self cache written a few positions per head (each
    // head's positions are consecutive, 57 KiB apart for large-v3's f16 rows) would be resident
    // whole, MaxTokens positions of every row, from the first step.
    madvise(mapped, bytes, MADV_NOHUGEPAGE);
    data_ = static_cast<std::byte*>(mapped);
}

CacheBuffer::~CacheBuffer() { release(); }

CacheBuffer::CacheBuffer(CacheBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

CacheBuffer& CacheBuffer::operator=(CacheBuffer&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void CacheBuffer::release() noexcept {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace earshot::backend::cpu
