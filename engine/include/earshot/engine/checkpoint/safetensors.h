// The safetensors header: the tensor directory (name, dtype, shape, byte range) and metadata of a
// .safetensors file, validated against the format. Reading the tensor data is not done here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::checkpoint {

// The element types the format defines (safetensors README / safetensors crate `Dtype`).
enum class SafetensorsDType {
    boolean,
    u8,
    i8,
    f8_e5m2,
    f8_e4m3,
    i16,
    u16,
    f16,
    bf16,
    i32,
    u32,
    f32,
    f64,
    i64,
    u64,
};

// The name as written in headers: "BOOL", "F16", "BF16", "F8_E4M3", ...
std::string_view dtype_name(SafetensorsDType dtype);
// Bytes per element: 1 for BOOL, U8, I8 and the F8 types, 2, 4 or 8 for the others.
uint64_t dtype_size_bytes(SafetensorsDType dtype);
// The inverse of dtype_name (exact, case-sensitive match); nullopt for an unknown name.
std::optional<SafetensorsDType> dtype_from_name(std::string_view name);
// True for F8_E5M2, F8_E4M3, F16, BF16, F32, F64.
bool is_floating(SafetensorsDType dtype);

struct SafetensorsTensor {
    std::string name;
    SafetensorsDType dtype = SafetensorsDType::f32;
    std::vector<int64_t> shape;  // PyTorch order (row-major, last dimension fastest); [] = scalar
    uint64_t begin_bytes = 0;    // offsets into the data buffer, which starts at data_offset_bytes
    uint64_t end_bytes = 0;      // one past the last byte
};

// Elements of a tensor (1 for a scalar). The header parser has checked that it does not overflow.
uint64_t element_count(const SafetensorsTensor& tensor);

struct SafetensorsHeader {
    std::vector<SafetensorsTensor> tensors;       // in data order: sorted by begin_bytes, then name
    std::map<std::string, std::string> metadata;  // "__metadata__", e.g. {"format": "pt"}
    uint64_t data_offset_bytes = 0;               // 8 + N: where the data buffer starts in the file
    uint64_t file_size_bytes = 0;
};

// The tensor with this name, or nullptr.
const SafetensorsTensor* find_tensor(const SafetensorsHeader& header, std::string_view name);

// Largest header length accepted, as the reference implementation (safetensors crate,
// MAX_HEADER_SIZE) does.
inline constexpr uint64_t safetensors_max_header_bytes = 100'000'000;

// Reads the 8-byte length and the JSON header of `path` (not the data) and validates it:
// - N <= safetensors_max_header_bytes and 8 + N <= file size;
// - the header is a JSON object; every key but "__metadata__" is a tensor
//   {"dtype": known name, "shape": [non-negative ints], "data_offsets": [begin, end]} (other keys
//   in a tensor entry are ignored, as the reference does); no tensor name appears twice;
//   "__metadata__", when present, maps strings to strings (null counts as absent);
// - end - begin == element count x dtype size, computed without overflow;
// - sorted by begin, the tensors tile the data buffer: the first begins at 0, each begins where the
//   previous ends (no gap, no overlap), the last ends at the buffer size (file size - 8 - N).
// Throws CheckpointError naming the file, the tensor where there is one, and the problem.
SafetensorsHeader read_safetensors_header(const std::filesystem::path& path);

// The same validation on bytes already in memory: `file_prefix_or_whole` holds at least the first
// 8 + N bytes of a file whose total size is `file_size_bytes` (a whole file in a buffer works,
// which is what a fuzzer passes). `name_for_errors` names the file in messages.
SafetensorsHeader parse_safetensors_header(std::span<const std::byte> file_prefix_or_whole,
                                           uint64_t file_size_bytes,
                                           const std::string& name_for_errors);

}  // namespace earshot::checkpoint
