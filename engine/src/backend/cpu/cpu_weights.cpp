// CpuWeights: where a checkpoint's f16 matrix lies in one of its mapped files (the weight set
// keeps them), the backend maps that file itself and reads the matrix there; the
// checkpoint's own pages of it are dropped from this process (MADV_DONTNEED on a read-only file
// mapping only unmaps them: the bytes stay in the page cache and a later read sees them
// unchanged). Other f16 matrices are copied into one anonymous region.
#include "cpu_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <new>
#include <optional>
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

// Where `bytes` lie in one of the checkpoint's mapped files: that file and the offset there.
struct FilePlace {
    const checkpoint::MappedFile* file = nullptr;
    uint64_t offset = 0;
};

std::optional<FilePlace> place_in(std::span<const std::byte> bytes,
                                  const std::vector<checkpoint::MappedFile>& files) {
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t end = begin + bytes.size();
    for (const checkpoint::MappedFile& file : files) {
        const auto file_begin = reinterpret_cast<uintptr_t>(file.bytes().data());
        if (begin >= file_begin && end <= file_begin + file.size_bytes()) {
            return FilePlace{&file, begin - file_begin};
        }
    }
    return std::nullopt;
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
    std::map<std::string, const checkpoint::MappedFile*> own_files;
    // The file bytes of a weight in a mapping of ours, or null (then it is copied).
    auto in_own_file = [&](const checkpoint::Weight& weight) -> const uint16_t* {
        const auto place = place_in(weight.bytes, checkpoint.weights.files());
        if (!place) return nullptr;  // decoded at load: in no file
        const std::string path = place->file->path().string();
        auto found = own_files.find(path);
        if (found == own_files.end()) {
            const checkpoint::MappedFile* file = nullptr;
            try {
                file = &files_.emplace_back(place->file->path());
            } catch (const std::exception&) {
                file = nullptr;  // unreadable now: copy its weights instead
            }
            found = own_files.emplace(path, file).first;
        }
        if (found->second == nullptr) return nullptr;
        const uint64_t offset = place->offset;
        const auto file = found->second->bytes();
        if (offset + weight.bytes.size() > file.size() || offset % alignof(uint16_t) != 0 ||
            std::memcmp(file.data() + offset, weight.bytes.data(),
                        std::min<size_t>(weight.bytes.size(), 64)) != 0) {
            return nullptr;
        }
        return reinterpret_cast<const uint16_t*>(file.data() + offset);
    };
    std::vector<const checkpoint::Weight*> copied;
    size_t copied_elements = 0;
    for (const auto& weight : checkpoint.weights.weights()) {
        if (!is_half_matrix(weight)) {
            std::vector<float> values(static_cast<size_t>(weight.element_count()));
            checkpoint::convert_to_f32(weight, values);
            f32_.emplace(weight.path, std::move(values));
            continue;
        }
        const auto count = static_cast<int64_t>(weight.element_count());
        if (const uint16_t* data = in_own_file(weight)) {
            half_.emplace(weight.path, Half{data, count});
            release_file_pages(weight.bytes);
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
        half_.emplace(weight->path,
                      Half{region_ + offset, static_cast<int64_t>(weight->element_count())});
        offset += aligned_elements(weight->element_count());
    }
}

CpuWeights::~CpuWeights() { release(); }

CpuWeights::CpuWeights(CpuWeights&& other) noexcept
    : f32_(std::move(other.f32_)),
      half_(std::move(other.half_)),
      files_(std::move(other.files_)),
      region_(std::exchange(other.region_, nullptr)),
      region_bytes_(std::exchange(other.region_bytes_, 0)) {}

CpuWeights& CpuWeights::operator=(CpuWeights&& other) noexcept {
    if (this != &other) {
        release();
        f32_ = std::move(other.f32_);
        half_ = std::move(other.half_);
        files_ = std::move(other.files_);
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
