// CacheBuffer: the storage of one decoder cache (f32 or f16 values), zero-filled memory mapped on
// demand: a page costs resident memory only once something is written to it, so a cache shaped
// for MaxTokens positions holds about what the positions decoded so far fill (the self caches'
// rows are [Heads, MaxTokens, D / Heads]: each head's positions are consecutive, 16 positions of
// 64 f32 values or 32 of 64 f16 values a page).
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::backend::cpu {

class CacheBuffer {
public:
    CacheBuffer() = default;
    // `bytes` of zeros; none resident yet. Throws std::bad_alloc when the mapping fails.
    explicit CacheBuffer(size_t bytes);
    ~CacheBuffer();
    CacheBuffer(CacheBuffer&& other) noexcept;
    CacheBuffer& operator=(CacheBuffer&& other) noexcept;
    CacheBuffer(const CacheBuffer&) = delete;
    CacheBuffer& operator=(const CacheBuffer&) = delete;

    std::byte* data() { return data_; }
    const std::byte* data() const { return data_; }
    size_t size_bytes() const { return size_; }

private:
    void release() noexcept;

    std::byte* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace earshot::backend::cpu
