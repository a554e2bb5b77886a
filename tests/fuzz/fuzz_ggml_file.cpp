// Fuzz target for the whisper.cpp ggml container reader: the input is a whole .bin file. Only
// CheckpointError is expected; a file that parses must have blocks and tensors inside its bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"

namespace {

using earshot::checkpoint::GgmlFile;

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "ggml invariant broken: %s\n", what);
        std::abort();
    }
}

// What parse_ggml_file promises about a container it accepts.
void check(const GgmlFile& file, std::size_t size) {
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
    }
    require(file.tensors.empty() || previous_end == size, "the last tensor ends the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const std::byte> bytes = std::as_bytes(std::span(data, size));
    try {
        check(earshot::checkpoint::parse_ggml_file(bytes, "fuzz.bin"), size);
    } catch (const earshot::checkpoint::CheckpointError&) {
        // Rejected input: the expected outcome for almost everything a fuzzer makes.
    }
    return 0;
}
