// Fuzz target for read_generation_config: the input is written as generation_config.json into a
// private temporary directory, which is then read as a checkpoint directory (51865 tokens).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/generation_config.h"
#include "temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const earshot::test::TempDir dir("earshot-fuzz-generation-config");
    constexpr int64_t kVocab = 51865;  // multilingual Whisper
    {
        std::ofstream out(dir.path() / "generation_config.json",
                          std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const auto config = earshot::checkpoint::read_generation_config(dir.path(), kVocab);
        // Every accepted id is inside the vocabulary, and the file read is named.
        if (config.suppress_tokens) {
            for (const int32_t id : *config.suppress_tokens) {
                if (id < 0 || id >= kVocab) {
                    std::fprintf(stderr, "suppress_tokens accepted id %d\n", id);
                    std::abort();
                }
            }
        }
        if (config.file.empty()) {
            std::fprintf(stderr, "a read generation_config.json is not named\n");
            std::abort();
        }
    } catch (const earshot::checkpoint::CheckpointError&) {
        // Rejected: malformed JSON, a field of the wrong type, an id out of range.
    }
    return 0;
}
