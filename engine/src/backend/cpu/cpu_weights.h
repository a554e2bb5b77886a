// CpuWeights: the CPU backend's view of a checkpoint's parameters. Matrices stored as f16 stay
// f16, copied into one region the backend owns (no mapping of a model file outlives the load);
// everything else (biases, norms, conv kernels, f32 or bf16 matrices) is widened to f32. An f16
// matrix read by an op other than a product or a lookup gets an f32 copy on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

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
    // The f32 values (widened on first use for an f16 matrix), or nullptr when absent.
    const float* f32(const std::string& path);

private:
    struct Half {
        const uint16_t* data = nullptr;  // in region_
        int64_t elements = 0;
    };
    void release() noexcept;

    std::unordered_map<std::string, std::vector<float>> f32_;
    std::unordered_map<std::string, Half> half_;
    uint16_t* region_ = nullptr;
    size_t region_bytes_ = 0;
};

}  // namespace earshot::backend::cpu
