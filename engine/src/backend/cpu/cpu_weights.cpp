// CpuWeights: a checkpoint's matrices in quantized ggml blocks mapped from the file under a read
// lease (leased_mapping.h) where the kernel grants one, so they are clean file pages shared with
// the page cache; every other f16 or block matrix copied, as stored, into one anonymous region the
// backend owns, so that no plain mapping of a model file outlives the load (a file truncated or
// replaced later cannot fault this process). Each copied matrix's pages of the checkpoint's mapping
// are dropped from this process once copied (MADV_DONTNEED on a read-only file mapping only unmaps
// them: the bytes stay in the page cache), so the model's bytes are resident about once while
// loading. The copy runs on several threads.
#include "cpu_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "cpu_gemv_f16.h"
#include "cpu_threads.h"
#include "earshot/base/piece_threads.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "leased_mapping.h"
#include "quant/block_linear.h"

namespace earshot::backend::cpu {

namespace {

constexpr size_t kAlignBytes = 64;  // every copied matrix starts on a cache line
// The copy's unit of work, and how many bytes are copied before their file pages are dropped.
constexpr size_t kPieceBytes = size_t{1} << 20;
constexpr size_t kBatchBytes = size_t{64} << 20;

struct Piece {
    std::byte* target;
    const std::byte* source;
    size_t bytes;
};

// Copies the pieces on as many threads as the CPU kernels use, started for this batch.
void copy_pieces(const std::vector<Piece>& pieces) {
    base::run_pieces(
        pieces.size(), static_cast<uint64_t>(ThreadPool::shared_threads()),
        [&](uint64_t i) { std::memcpy(pieces[i].target, pieces[i].source, pieces[i].bytes); });
}

// Matrices kept as stored: f16, or quantized blocks.
bool is_copied_matrix(const checkpoint::Weight& weight) {
    return (weight.dtype == checkpoint::WeightDType::f16 ||
            weight.dtype == checkpoint::WeightDType::ggml_blocks) &&
           weight.shape.size() == 2;
}

size_t aligned_bytes(size_t bytes) { return (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

// The index of the checkpoint file whose mapping holds `bytes`, or -1 (a weight decoded at load:
// its pages are anonymous memory, which MADV_DONTNEED would zero).
int64_t file_index(std::span<const std::byte> bytes,
                   const std::vector<checkpoint::MappedFile>& files) {
    const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t end = begin + bytes.size();
    for (size_t i = 0; i < files.size(); ++i) {
        const auto file_begin = reinterpret_cast<uintptr_t>(files[i].bytes().data());
        if (begin >= file_begin && end <= file_begin + files[i].size_bytes()) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

}  // namespace

CpuWeights::CpuWeights(const model::WhisperCheckpoint& checkpoint) {
    std::vector<const checkpoint::Weight*> copied;
    size_t copied_bytes = 0;
    const std::vector<checkpoint::MappedFile>& files = checkpoint.weights.files();
    // Per file of the checkpoint: its leased mapping, once a block matrix lies in it (null when
    // the lease was refused; the matrices are copied then).
    std::vector<std::unique_ptr<LeasedMapping>> leased(files.size());
    std::vector<bool> tried(files.size(), false);
    for (const auto& weight : checkpoint.weights.weights()) {
        if (!is_copied_matrix(weight)) {
            std::vector<float> values(static_cast<size_t>(weight.element_count()));
            checkpoint::convert_to_f32(weight, values);
            f32_.emplace(weight.path, std::move(values));
            continue;
        }
        if (weight.bytes.size() != weight.stored_bytes()) {
            throw std::logic_error("parameter " + weight.path + " holds " +
                                   std::to_string(weight.bytes.size()) + " bytes, its type needs " +
                                   std::to_string(weight.stored_bytes()));
        }
        if (weight.dtype == checkpoint::WeightDType::ggml_blocks &&
            map_block_matrix(weight, files, leased, tried)) {
            continue;
        }
        copied.push_back(&weight);
        copied_bytes += aligned_bytes(weight.bytes.size());
    }
    for (auto& mapping : leased) {
        if (mapping) mapped_.push_back(std::move(mapping));
    }
    if (copied.empty()) return;
    region_bytes_ = copied_bytes;
    void* region =
        mmap(nullptr, region_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) throw std::bad_alloc();
    madvise(region, region_bytes_, MADV_HUGEPAGE);  // fewer faults and TLB misses
    region_ = static_cast<std::byte*>(region);
    // Batches of matrices are copied in pieces by several threads (the kernel zeroes each
    // new page of the region as it is first written, and that runs on every core too); after each
    // batch its file pages are dropped, so at most one batch is resident twice.
    std::vector<Piece> batch;
    std::vector<const checkpoint::Weight*> batch_weights;
    size_t batch_bytes = 0;
    const auto flush = [&] {
        copy_pieces(batch);
        for (const checkpoint::Weight* weight : batch_weights) {
            if (file_index(weight->bytes, files) >= 0) {
                drop_file_pages(weight->bytes);
            }
        }
        batch.clear();
        batch_weights.clear();
        batch_bytes = 0;
    };
    size_t offset = 0;
    for (const checkpoint::Weight* weight : copied) {
        // At most max(kBatchBytes, the largest matrix) copied bytes still have their file pages.
        if (batch_bytes > 0 && batch_bytes + weight->bytes.size() > kBatchBytes) flush();
        std::byte* target = region_ + offset;
        for (size_t done = 0; done < weight->bytes.size(); done += kPieceBytes) {
            batch.push_back({target + done, weight->bytes.data() + done,
                             std::min(kPieceBytes, weight->bytes.size() - done)});
        }
        batch_weights.push_back(weight);
        batch_bytes += weight->bytes.size();
        if (weight->dtype == checkpoint::WeightDType::f16) {
            half_.emplace(weight->path, Half{reinterpret_cast<const uint16_t*>(target),
                                             static_cast<int64_t>(weight->element_count())});
        } else {
            const int64_t rows = weight->shape[0];
            blocks_.emplace(
                weight->path,
                BlockMatrix{weight->blocks, target, rows, weight->shape[1],
                            rows > 0 ? static_cast<int64_t>(weight->bytes.size()) / rows : 0});
        }
        offset += aligned_bytes(weight->bytes.size());
    }
    flush();
}

bool CpuWeights::map_block_matrix(const checkpoint::Weight& weight,
                                  const std::vector<checkpoint::MappedFile>& files,
                                  std::vector<std::unique_ptr<LeasedMapping>>& leased,
                                  std::vector<bool>& tried) {
    const int64_t index = file_index(weight.bytes, files);
    if (index < 0) return false;  // decoded at load: not in a file
    const auto i = static_cast<size_t>(index);
    if (!tried[i]) {
        tried[i] = true;
        leased[i] = LeasedMapping::open(files[i].path(), files[i].bytes(), mapping_refusal_);
    }
    if (!leased[i]) return false;
    // The block kernels read scales and bits with memcpy: any offset in the file will do.
    const std::byte* data = leased[i]->data() + (weight.bytes.data() - files[i].bytes().data());
    const int64_t rows = weight.shape[0];
    blocks_.emplace(weight.path,
                    BlockMatrix{weight.blocks, data, rows, weight.shape[1],
                                rows > 0 ? static_cast<int64_t>(weight.bytes.size()) / rows : 0});
    mapped_bytes_ += weight.bytes.size();
    mapped_paths_.emplace(weight.path, leased[i].get());
    return true;
}

void CpuWeights::drop_mapped_pages(std::string_view path_prefix) {
    for (const auto& [path, mapping] : mapped_paths_) {
        if (!path.starts_with(path_prefix)) continue;
        const BlockMatrix& m = blocks_.at(path);
        mapping->drop_pages({m.data, static_cast<size_t>(m.rows * m.row_bytes)});
    }
}

bool CpuWeights::file_backed() const {
    return !mapped_.empty() && std::all_of(mapped_.begin(), mapped_.end(),
                                           [](const auto& m) { return m->file_backed(); });
}

CpuWeights::~CpuWeights() { release(); }

CpuWeights::CpuWeights(CpuWeights&& other) noexcept
    : f32_(std::move(other.f32_)),
      half_(std::move(other.half_)),
      blocks_(std::move(other.blocks_)),
      mapped_(std::move(other.mapped_)),
      mapped_paths_(std::move(other.mapped_paths_)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      mapping_refusal_(std::move(other.mapping_refusal_)),
      region_(std::exchange(other.region_, nullptr)),
      region_bytes_(std::exchange(other.region_bytes_, 0)) {}

CpuWeights& CpuWeights::operator=(CpuWeights&& other) noexcept {
    if (this != &other) {
        release();
        f32_ = std::move(other.f32_);
        half_ = std::move(other.half_);
        blocks_ = std::move(other.blocks_);
        mapped_ = std::move(other.mapped_);
        mapped_paths_ = std::move(other.mapped_paths_);
        mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
        mapping_refusal_ = std::move(other.mapping_refusal_);
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
    return half_.contains(path) || blocks_.contains(path) || f32_.contains(path);
}

int64_t CpuWeights::element_count(const std::string& path) const {
    if (auto found = half_.find(path); found != half_.end()) return found->second.elements;
    if (auto found = blocks_.find(path); found != blocks_.end()) {
        return found->second.rows * found->second.row_values;
    }
    if (auto found = f32_.find(path); found != f32_.end()) {
        return static_cast<int64_t>(found->second.size());
    }
    return 0;
}

const uint16_t* CpuWeights::half(const std::string& path) const {
    auto found = half_.find(path);
    return found == half_.end() ? nullptr : found->second.data;
}

const BlockMatrix* CpuWeights::blocks(const std::string& path) const {
    auto found = blocks_.find(path);
    return found == blocks_.end() ? nullptr : &found->second;
}

const float* CpuWeights::f32(const std::string& path) {
    if (auto found = f32_.find(path); found != f32_.end()) return found->second.data();
    if (auto matrix = blocks_.find(path); matrix != blocks_.end()) {
        const BlockMatrix& m = matrix->second;
        std::vector<float> values(static_cast<size_t>(m.rows * m.row_values));
        decode_block_rows(m, 0, m.rows, values.data());
        return f32_.emplace(path, std::move(values)).first->second.data();
    }
    auto half = half_.find(path);
    if (half == half_.end()) return nullptr;
    std::vector<float> values(static_cast<size_t>(half->second.elements));
    widen_f16(half->second.data, values.data(), half->second.elements);
    return f32_.emplace(path, std::move(values)).first->second.data();
}

}  // namespace earshot::backend::cpu
