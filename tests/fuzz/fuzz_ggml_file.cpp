// Fuzz target for the whisper.cpp ggml container reader: the input is a whole .bin file. Only
// CheckpointError is expected; a file that parses must have blocks and tensors inside its bytes,
// each tensor exactly its type's whole blocks, and quantized ones must decode to finite-or-not
// floats without reading past their data.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/checkpoint/ggml_file.h"

namespace {

using earshot::checkpoint::GgmlFile;

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "ggml invariant broken: %s\n", what);
        std::abort();
    }
}

// A tensor's bytes are its rows of whole blocks; a quantized one decodes to one float per element.
void check_tensor_data(const earshot::checkpoint::GgmlTensorInfo& tensor,
                       std::span<const std::byte> bytes) {
    namespace ck = earshot::checkpoint;
    const ck::GgmlBlockLayout layout = ck::ggml_block_layout(tensor.ttype);
    uint64_t elements = 1;
    for (const int64_t n : tensor.ne) elements *= static_cast<uint64_t>(n);
    require(static_cast<uint64_t>(tensor.ne[0]) % layout.elements == 0, "rows of whole blocks");
    require(tensor.size_bytes == elements / layout.elements * layout.bytes,
            "data is exactly the blocks");
    // Decoding is bounded by the element count; skip the huge ones a fuzzer can declare in a
    // small file only when their data would not fit (it must, having parsed).
    if (ck::is_quantized(tensor.ttype) && elements <= (1u << 20)) {
        std::vector<float> values(elements);
        ck::dequantize_ggml_blocks(
            tensor.ttype, bytes.subspan(tensor.data_offset_bytes, tensor.size_bytes), values);
    }
}

// What parse_ggml_file promises about a container it accepts.
void check(const GgmlFile& file, std::span<const std::byte> bytes) {
    const std::size_t size = bytes.size();
    require(file.file_size_bytes == size, "file size is the buffer size");
    require(file.mel_count >= 0 && file.mel_bins >= 0, "mel block size is not negative");
    require(file.mel_filters.size() ==
                static_cast<std::size_t>(file.mel_count) * static_cast<std::size_t>(file.mel_bins),
            "mel block holds count x bins floats");
    uint64_t previous_end = 0;
    for (const auto& tensor : file.tensors) {
        require(!tensor.ne.empty() && tensor.ne.size() <= 4, "1 to 4 dimensions");
        require(!tensor.name.empty(), "tensor has a name");
        require(tensor.data_offset_bytes >= previous_end, "tensors follow one another");
        require(tensor.size_bytes <= size && tensor.data_offset_bytes <= size - tensor.size_bytes,
                "tensor data inside the file");
        previous_end = tensor.data_offset_bytes + tensor.size_bytes;
        check_tensor_data(tensor, bytes);
    }
    require(file.tensors.empty() || previous_end == size, "the last tensor ends the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const std::byte> bytes = std::as_bytes(std::span(data, size));
    try {
        check(earshot::checkpoint::parse_ggml_file(bytes, "fuzz.bin"), bytes);
    } catch (const earshot::checkpoint::CheckpointError&) {
        // Rejected input: the expected outcome for almost everything a fuzzer makes.
    }
    return 0;
}
