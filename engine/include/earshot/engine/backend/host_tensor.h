// HostTensor: a contiguous row-major f32 or i32 array in host memory, the values entries take
// and return on every backend.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace earshot::backend {

class HostTensor {
public:
    enum class Kind { f32, i32 };

    HostTensor() = default;
    static HostTensor f32(std::vector<int64_t> shape, float fill = 0.0F);
    static HostTensor i32(std::vector<int64_t> shape, int32_t fill = 0);
    static HostTensor f32(std::vector<int64_t> shape, std::vector<float> values);
    static HostTensor i32(std::vector<int64_t> shape, std::vector<int32_t> values);

    Kind kind() const { return kind_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int64_t dim(size_t axis) const { return shape_.at(axis); }
    int64_t numel() const;
    std::string shape_str() const;  // "[1, 80, 3000]"

    std::span<float> f32_values();  // throws std::logic_error on an i32 tensor
    std::span<const float> f32_values() const;
    std::span<int32_t> i32_values();
    std::span<const int32_t> i32_values() const;

private:
    Kind kind_ = Kind::f32;
    std::vector<int64_t> shape_;
    std::vector<float> f32_;
    std::vector<int32_t> i32_;
};

}  // namespace earshot::backend
