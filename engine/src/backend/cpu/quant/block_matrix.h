// BlockMatrix: a weight matrix kept in a quantized ggml type's blocks (ggml-common.h layouts), the
// way the CPU backend reads it: `rows` rows of `row_values` values, each row `row_bytes` bytes of
// whole blocks, one row after the other.
#pragma once

#include <cstddef>
#include <cstdint>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::backend::cpu {

struct BlockMatrix {
    checkpoint::GgmlType type = checkpoint::GgmlType::q8_0;
    const std::byte* data = nullptr;  // [rows, row_bytes]
    int64_t rows = 0;                 // N (output features)
    int64_t row_values = 0;           // K (input features), a multiple of the type's block
    int64_t row_bytes = 0;            // K / block values x block bytes

    const std::byte* row(int64_t r) const { return data + r * row_bytes; }
};

}  // namespace earshot::backend::cpu
