// CacheBuffer: the storage of one decoder cache, zero-filled memory mapped on demand: a page costs
// resident memory only once something is written to it, so a cache shaped for MaxTokens positions
// holds about what the positions decoded so far fill (the self caches' rows are [Heads,
// MaxTokens, D / Heads]: each head's positions are consecutive, 16 positions of 64 f32 a page).
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::backend::cpu {

class CacheBuffer {
public:
    CacheBuffer() = default;
    // `elements` f32 zeros; none resident yet. Throws std::bad_alloc when the mapping fails.
    explicit CacheBuffer(size_t elements);
    ~CacheBuffer();
    CacheBuffer(CacheBuffer&& other) noexcept;
    CacheBuffer& operator=(CacheBuffer&& other) noexcept;
    CacheBuffer(const CacheBuffer&) = delete;
    CacheBuffer& operator=(const CacheBuffer&) = delete;

    float* data() { return data_; }
    const float* data() const { return data_; }
    size_t size() const { return size_; }

private:
    void release() noexcept;

    float* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace earshot::backend::cpu
