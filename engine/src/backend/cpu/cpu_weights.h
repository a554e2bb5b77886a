// CpuWeights: the CPU backend's view of a checkpoint's parameters. Matrices stored as f16 stay
// f16 and matrices stored in quantized ggml blocks stay in their blocks: the blocks mapped from
// the file under a read lease where the kernel grants one (leased_mapping.h), else copied like
// the f16 matrices into one region the backend owns; everything else (biases, norms,
// conv kernels, f32 or bf16 matrices) is widened to f32. An f16 or block matrix read by an op
// other than a product or a lookup gets an f32 copy on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "backend/cpu/leased_mapping.h"
#include "backend/cpu/quant/block_matrix.h"

namespace earshot::model {
struct WhisperCheckpoint;
}
namespace earshot::checkpoint {
struct Weight;
class MappedFile;
}  // namespace earshot::checkpoint

namespace earshot::backend::cpu {

class CpuWeights {
public:
    CpuWeights() = default;
    explicit CpuWeights(const model::WhisperCheckpoint& checkpoint);
    ~CpuWeights();
    CpuWeights(CpuWeights&& other) noexcept;
    CpuWeights& operator=(CpuWeights&& other) noexcept;
    CpuWeights(const CpuWeights&) = delete;
    CpuWeights& operator=(const CpuWeights&) = delete;

    bool contains(const std::string& path) const;
    // Elements of the parameter at `path` (0 when absent).
    int64_t element_count(const std::string& path) const;
    // The f16 bits of a matrix kept as f16, or nullptr.
    const uint16_t* half(const std::string& path) const;
    // A matrix kept in quantized blocks, or nullptr. The address stays valid while this object
    // lives (moves included).
    const BlockMatrix* blocks(const std::string& path) const;
    // The f32 values (decoded on first use for an f16 or block matrix), or nullptr when absent.
    const float* f32(const std::string& path);
    // Bytes of the region holding the copied f16 and block matrices.
    size_t region_bytes() const { return region_bytes_; }
    // Bytes of the block matrices mapped from their files, and why a file's were not (empty when
    // every one was).
    size_t mapped_bytes() const { return mapped_bytes_; }
    const std::string& mapping_refusal() const { return mapping_refusal_; }
    // Whether some block matrices are mapped and all of those still read the file's pages (false
    // once a lease break made a private copy of them).
    bool file_backed() const;
    // Drops the resident pages of the mapped block matrices whose path starts with `path_prefix`
    // (while they are the file's pages): the next read faults them back from the page cache.
    void drop_mapped_pages(std::string_view path_prefix);

private:
    struct Half {
        const uint16_t* data = nullptr;  // in region_
        int64_t elements = 0;
    };
    void release() noexcept;
    // Points a block matrix lying in one of `files` at the file's leased mapping (leasing it on
    // first use); false when the matrix must be copied.
    bool map_block_matrix(const checkpoint::Weight& weight,
                          const std::vector<checkpoint::MappedFile>& files,
                          std::vector<std::unique_ptr<LeasedMapping>>& leased,
                          std::vector<bool>& tried);

    std::unordered_map<std::string, std::vector<float>> f32_;
    std::unordered_map<std::string, Half> half_;
    std::unordered_map<std::string, BlockMatrix> blocks_;  // data in region_ or a mapping
    std::vector<std::unique_ptr<LeasedMapping>> mapped_;
    std::unordered_map<std::string, LeasedMapping*> mapped_paths_;  // the mapped block matrices
    size_t mapped_bytes_ = 0;
    std::string mapping_refusal_;
    std::byte* region_ = nullptr;
    size_t region_bytes_ = 0;
};

}  // namespace earshot::backend::cpu
