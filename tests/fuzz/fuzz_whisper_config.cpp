// Fuzz target for the config.json side of read_whisper_config: the input is written as
// config.json into a private temporary directory, which is then read as a checkpoint directory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/whisper_config.h"
#include "temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const earshot::test::TempDir dir("earshot-fuzz-config");
    {
        std::ofstream out(dir.path() / "config.json", std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const auto config = earshot::checkpoint::read_whisper_config(dir.path());
        // read_whisper_config promises non-negative sizes and one of three dtypes.
        const bool sizes_ok =
            config.n_mels >= 0 && config.n_audio_ctx >= 0 && config.n_audio_state >= 0 &&
            config.n_audio_head >= 0 && config.n_audio_layer >= 0 && config.n_text_ctx >= 0 &&
            config.n_text_head >= 0 && config.n_text_layer >= 0 && config.n_vocab >= 0;
        const bool dtype_ok = config.weight_dtype == "f32" || config.weight_dtype == "f16" ||
                              config.weight_dtype == "bf16";
        if (!sizes_ok || !dtype_ok) {
            std::fprintf(stderr, "whisper config invariant broken\n");
            std::abort();
        }
    } catch (const earshot::checkpoint::CheckpointError&) {
        // Rejected input: malformed JSON, a missing or negative field, a bad dtype.
    }
    return 0;
}
