// CpuWeights: one anonymous mapping for the f16 matrices, filled weight by weight; after each
// copy the source pages of a file mapping are dropped from this process (MADV_DONTNEED on a
// read-only file mapping only unmaps them: the file's bytes stay in the page cache and a later
// read of the checkpoint sees them unchanged).
#include "cpu_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <utility>

#include "cpu_gemv_f16.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::backend::cpu {

namespace {

constexpr size_t kAlignElements = 32;  // 64-byte aligned rows of every matrix

bool is_half_matrix(const checkpoint::Weight& weight) {
    return weight.dtype == checkpoint::WeightDType::f16 && weight.shape.size() == 2;
}

// The address ranges of this process's read-only file mappings (/proc/self/maps).
std::vector<std::pair<uintptr_t, uintptr_t>> file_mappings() {
    std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, perms, offset, device, inode, path;
        fields >> range >> perms >> offset >> device >> inode >> path;
        if (path.empty() || path.front() != '/' || perms.size() < 2 || perms[1] != '-') continue;
        const size_t dash = range.find('-');
        if (dash == std::string::npos) continue;
        ranges.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16),
                            std::stoull(range.substr(dash + 1), nullptr, 16));
    }
    return ranges;
}

// Drops the whole pages of `bytes` from this process when they lie in a read-only file mapping
// (never anonymous memory, whose contents MADV_DONTNEED would discard).
void release_file_pages(std::span<const std::byte> bytes,
                        const std::vector<std::pair<uintptr_t, uintptr_t>>& mappings) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t end = begin + bytes.size();
    const bool in_file = std::any_of(mappings.begin(), mappings.end(), [&](const auto& range) {
        return begin >= range.first && end <= range.second;
    });
    if (!in_file) return;
    const uintptr_t first = (begin + page - 1) / page * page;
    const uintptr_t last = end / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

CpuWeights::CpuWeights(const model::WhisperCheckpoint& checkpoint) {
    size_t half_elements = 0;
    for (const auto& weight : checkpoint.weights.weights()) {
        if (!is_half_matrix(weight)) continue;
        half_elements +=
            (weight.element_count() + kAlignElements - 1) / kAlignElements * kAlignElements;
    }
    if (half_elements > 0) {
        region_bytes_ = half_elements * sizeof(uint16_t);
        void* region = mmap(nullptr, region_bytes_, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) throw std::bad_alloc();
        madvise(region, region_bytes_, MADV_HUGEPAGE);  // fewer faults at load, fewer TLB misses
        region_ = static_cast<uint16_t*>(region);
    }
    const auto mappings = file_mappings();
    size_t offset = 0;
    for (const auto& weight : checkpoint.weights.weights()) {
        const auto count = static_cast<int64_t>(weight.element_count());
        if (!is_half_matrix(weight)) {
            std::vector<float> values(static_cast<size_t>(count));
            checkpoint::convert_to_f32(weight, values);
            f32_.emplace(weight.path, std::move(values));
            continue;
        }
        std::memcpy(region_ + offset, weight.bytes.data(), weight.bytes.size());
        if (checkpoint.weights.dequantized_from(weight.path).empty()) {
            release_file_pages(weight.bytes, mappings);
        }
        half_.emplace(weight.path, Half{offset, count});
        offset +=
            (static_cast<size_t>(count) + kAlignElements - 1) / kAlignElements * kAlignElements;
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
    return found == half_.end() ? nullptr : region_ + found->second.offset;
}

const float* CpuWeights::f32(const std::string& path) {
    if (auto found = f32_.find(path); found != f32_.end()) return found->second.data();
    auto half = half_.find(path);
    if (half == half_.end()) return nullptr;
    std::vector<float> values(static_cast<size_t>(half->second.elements));
    widen_f16(region_ + half->second.offset, values.data(), half->second.elements);
    return f32_.emplace(path, std::move(values)).first->second.data();
}

}  // namespace earshot::backend::cpu
