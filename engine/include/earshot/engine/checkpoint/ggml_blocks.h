// The ggml tensor types a whisper.cpp file may hold: their block layouts (elements and bytes per
// block), names, and the decoding of quantized blocks to f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace earshot::checkpoint {

// The ggml_type values Earshot reads (ggml.h). Ids 4 and 5 (q4_2, q4_3) were removed from ggml.
enum class GgmlType : int32_t {
    f32 = 0,
    f16 = 1,
    q4_0 = 2,
    q4_1 = 3,
    q5_0 = 6,
    q5_1 = 7,
    q8_0 = 8,
    q2_k = 10,
    q3_k = 11,
    q4_k = 12,
    q5_k = 13,
    q6_k = 14,
};

// One block of a type: `elements` values stored in `bytes` bytes (f32 and f16: one value).
struct GgmlBlockLayout {
    uint64_t elements = 1;
    uint64_t bytes = 4;
};

// The type of a raw ggml_type id, or nullopt for an id Earshot does not read.
std::optional<GgmlType> ggml_type_from_id(int32_t id);
GgmlBlockLayout ggml_block_layout(GgmlType type);
bool is_quantized(GgmlType type);  // every type but f32 and f16

std::string_view ggml_type_name(GgmlType type);  // "f32", "f16", "q4_0", ..., "q6_k"
// ggml's name for any id, read or not ("q8_1", "iq2_xxs", "bf16", ...); "unknown" otherwise.
std::string_view ggml_type_name_of_id(int32_t id);
// "f32, f16, q4_0, ..., q6_k": the types Earshot reads, for error messages.
std::string supported_ggml_type_names();

// Decodes whole blocks of a quantized `type` (ggml-common.h layouts, values in the order ggml's
// dequantize_row_* writes them) into f32. `blocks` holds n whole blocks and `out` exactly
// n x elements values; std::invalid_argument otherwise, or for f32 / f16.
void dequantize_ggml_blocks(GgmlType type, std::span<const std::byte> blocks, std::span<float> out);

// The index of the first block of `blocks` (whole blocks of a quantized `type`) whose f16 scale d
// (or min m, or k-quant dmin) is an infinity or a NaN, which makes its values non-finite; -1 when
// every scale is finite. std::invalid_argument for f32 / f16 or a size that is not whole blocks.
int64_t first_block_with_non_finite_scale(GgmlType type, std::span<const std::byte> blocks);

}  // namespace earshot::checkpoint
