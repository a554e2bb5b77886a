// CpuWeights: the CPU backend's view of a checkpoint's parameters. Matrices stored as f16 stay
// f16 and matrices stored in quantized ggml blocks stay in their blocks, copied into one region the
// backend owns (no mapping of a model file outlives the load); everything else (biases, norms,
// conv kernels, f32 or bf16 matrices) is widened to f32. An f16 or block matrix read by an op
// other than a product or a lookup gets an f32 copy on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cpu/quant/block_matrix.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

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
    // Bytes of the region holding the f16 and block matrices.
    size_t region_bytes() const { return region_bytes_; }

private:
    struct Half {
        const uint16_t* data = nullptr;  // in region_
        int64_t elements = 0;
    };
    void release() noexcept;

    std::unordered_map<std::string, std::vector<float>> f32_;
    std::unordered_map<std::string, Half> half_;
    std::unordered_map<std::string, BlockMatrix> blocks_;  // data in region_
    std::byte* region_ = nullptr;
    size_t region_bytes_ = 0;
};

}  // namespace earshot::backend::cpu
