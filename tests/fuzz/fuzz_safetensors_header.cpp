// Fuzz target for the safetensors header parser: the input is a whole .safetensors file. Only
// CheckpointError is expected; a header that parses must describe tensors that tile the data.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/safetensors.h"

namespace {

using earshot::checkpoint::SafetensorsHeader;

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "safetensors invariant broken: %s\n", what);
        std::abort();
    }
}

// What parse_safetensors_header promises about a header it accepts.
void check(const SafetensorsHeader& header, std::size_t size) {
    require(header.file_size_bytes == size, "file size is the buffer size");
    require(header.data_offset_bytes >= 8 && header.data_offset_bytes <= size,
            "data starts inside the file");
    uint64_t expected_begin = 0;
    for (const auto& tensor : header.tensors) {
        require(tensor.begin_bytes == expected_begin, "tensors tile the data without gaps");
        require(tensor.end_bytes >= tensor.begin_bytes, "ranges are ordered");
        const uint64_t bytes = element_count(tensor) * dtype_size_bytes(tensor.dtype);
        require(tensor.end_bytes - tensor.begin_bytes == bytes, "range matches shape and dtype");
        require(find_tensor(header, tensor.name) == &tensor, "names are unique");
        expected_begin = tensor.end_bytes;
    }
    require(header.data_offset_bytes + expected_begin == size, "the last tensor ends the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const std::byte> bytes = std::as_bytes(std::span(data, size));
    try {
        check(earshot::checkpoint::parse_safetensors_header(bytes, size, "fuzz.safetensors"), size);
    } catch (const earshot::checkpoint::CheckpointError&) {
        // Rejected input: the expected outcome for almost everything a fuzzer makes.
    }
    return 0;
}
