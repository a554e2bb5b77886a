// HostTensor construction and checked access.
#include "earshot/engine/backend/host_tensor.h"

#include <functional>
#include <numeric>
#include <stdexcept>

#include "earshot/engine/program/types.h"

namespace earshot::backend {

namespace {

int64_t count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw std::invalid_argument("negative tensor dimension");
        n *= d;
    }
    return n;
}

}  // namespace

HostTensor HostTensor::f32(std::vector<int64_t> shape, float fill) {
    HostTensor t;
    t.kind_ = Kind::f32;
    t.f32_.assign(static_cast<size_t>(count(shape)), fill);
    t.shape_ = std::move(shape);
    return t;
}

HostTensor HostTensor::i32(std::vector<int64_t> shape, int32_t fill) {
    HostTensor t;
    t.kind_ = Kind::i32;
    t.i32_.assign(static_cast<size_t>(count(shape)), fill);
    t.shape_ = std::move(shape);
    return t;
}

HostTensor HostTensor::f32(std::vector<int64_t> shape, std::vector<float> values) {
    if (static_cast<int64_t>(values.size()) != count(shape)) {
        throw std::invalid_argument("f32 tensor: values do not fill the shape");
    }
    HostTensor t;
    t.kind_ = Kind::f32;
    t.f32_ = std::move(values);
    t.shape_ = std::move(shape);
    return t;
}

HostTensor HostTensor::i32(std::vector<int64_t> shape, std::vector<int32_t> values) {
    if (static_cast<int64_t>(values.size()) != count(shape)) {
        throw std::invalid_argument("i32 tensor: values do not fill the shape");
    }
    HostTensor t;
    t.kind_ = Kind::i32;
    t.i32_ = std::move(values);
    t.shape_ = std::move(shape);
    return t;
}

int64_t HostTensor::numel() const { return count(shape_); }

std::string HostTensor::shape_str() const { return program::shape_str(shape_); }

std::span<float> HostTensor::f32_values() {
    if (kind_ != Kind::f32) throw std::logic_error("tensor holds i32, not f32");
    return f32_;
}

std::span<const float> HostTensor::f32_values() const {
    if (kind_ != Kind::f32) throw std::logic_error("tensor holds i32, not f32");
    return f32_;
}

std::span<int32_t> HostTensor::i32_values() {
    if (kind_ != Kind::i32) throw std::logic_error("tensor holds f32, not i32");
    return i32_;
}

std::span<const int32_t> HostTensor::i32_values() const {
    if (kind_ != Kind::i32) throw std::logic_error("tensor holds f32, not i32");
    return i32_;
}

}  // namespace earshot::backend
