// CpuWeights: every f16 matrix of a checkpoint copied into one anonymous region the backend owns,
// so that no mapping of a model file outlives the load (a file truncated or replaced later cannot
// fault this process). Each matrix's pages of the checkpoint's mapping are dropped from this
// process once copied (MADV_DONTNEED on a read-only file mapping only unmaps them: the bytes stay
// in the page cache), so the model's bytes are resident about once while loading.
#include "cpu_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "cpu_gemv_f16.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::backend::cpu {

namespace {

constexpr size_t kAlignElements = 32;  // 64-byte aligned rows of every copied matrix

bool is_half_matrix(const checkpoint::Weight& weight) {
    return weight.dtype == checkpoint::WeightDType::f16 && weight.shape.size() == 2;
}

size_t aligned_elements(uint64_t count) {
    return (count + kAlignElements - 1) / kAlignElements * kAlignElements;
}

// Whether `bytes` lie in one of the checkpoint's mapped files (a weight decoded at load does not:
// its pages are anonymous memory, which MADV_DONTNEED would zero).
bool in_file(std::span<const std::byte> bytes, const std::vector<checkpoint::MappedFile>& files) {
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t end = begin + bytes.size();
    return std::any_of(files.begin(), files.end(), [&](const checkpoint::MappedFile& file) {
        const auto file_begin = reinterpret_cast<uintptr_t>(file.bytes().data());
        return begin >= file_begin && end <= file_begin + file.size_bytes();
    });
}

// Drops the whole pages of `bytes` (in a read-only file mapping) from this process.
void release_file_pages(std::span<const std::byte> bytes) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t end = begin + bytes.size();
    const uintptr_t first = (begin + page - 1) / page * page;
    const uintptr_t last = end / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

CpuWeights::CpuWeights(const model::WhisperCheckpoint& checkpoint) {
    std::vector<const checkpoint::Weight*> copied;
    size_t copied_elements = 0;
    for (const auto& weight : checkpoint.weights.weights()) {
        if (!is_half_matrix(weight)) {
            std::vector<float> values(static_cast<size_t>(weight.element_count()));
            checkpoint::convert_to_f32(weight, values);
            f32_.emplace(weight.path, std::move(values));
            continue;
        }
        copied.push_back(&weight);
        copied_elements += aligned_elements(weight.element_count());
    }
    if (copied.empty()) return;
    region_bytes_ = copied_elements * sizeof(uint16_t);
    void* region =
        mmap(nullptr, region_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) throw std::bad_alloc();
    madvise(region, region_bytes_, MADV_HUGEPAGE);  // fewer faults and TLB misses
    region_ = static_cast<uint16_t*>(region);
    size_t offset = 0;
    for (const checkpoint::Weight* weight : copied) {
        std::memcpy(region_ + offset, weight->bytes.data(), weight->bytes.size());
        if (in_file(weight->bytes, checkpoint.weights.files())) release_file_pages(weight->bytes);
        half_.emplace(weight->path,
                      Half{region_ + offset, static_cast<int64_t>(weight->element_count())});
        offset += aligned_elements(weight->element_count());
    }
}

CpuWeights::~CpuWeights() { release(); }

CpuWeights::CpuWeights(CpuWeights&& other) noexcept
    : f32_(std::move(other.f32_)),
      half_(std::move(other.half_)),
      region_(std::exchange(other.region_, nullptr)),
      region_bytes_(std::exchange(other.region_bytes_, 0)) {}

CpuWeights& CpuWeights::operator=(CpuWeights&& other) noexcept {
    if (this != &other) {
        release();
        f32_ = std::move(other.f32_);
        half_ = std::move(other.half_);
        region_ = std::exchange(other.region_, nullptr);
        region_bytes_ = std::exchange(other.region_bytes_, 0);
    }
    return *this;
}

void CpuWeights::release() noexcept {
    if (region_ != nullptr) munmap(region_, region_bytes_);
    region_ = nullptr;
    region_bytes_ = 0;
}

bool CpuWeights::contains(const std::string& path) const {
    return half_.contains(path) || f32_.contains(path);
}

int64_t CpuWeights::element_count(const std::string& path) const {
    if (auto found = half_.find(path); found != half_.end()) return found->second.elements;
    if (auto found = f32_.find(path); found != f32_.end()) {
        return static_cast<int64_t>(found->second.size());
    }
    return 0;
}

const uint16_t* CpuWeights::half(const std::string& path) const {
    auto found = half_.find(path);
    return found == half_.end() ? nullptr : found->second.data;
}

const float* CpuWeights::f32(const std::string& path) {
    if (auto found = f32_.find(path); found != f32_.end()) return found->second.data();
    auto half = half_.find(path);
    if (half == half_.end()) return nullptr;
    std::vector<float> values(static_cast<size_t>(half->second.elements));
    widen_f16(half->second.data, values.data(), half->second.elements);
    return f32_.emplace(path, std::move(values)).first->second.data();
}

}  // namespace earshot::backend::cpu
