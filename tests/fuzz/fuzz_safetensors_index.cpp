// Fuzz target for the sharded safetensors index (model.safetensors.index.json): the input is
// written as the index of a private HF directory that also holds a fixed config.json and two
// small shards, which is then read as a checkpoint (read_whisper_config: the dtype census of the
// shards the index names) and mapped (read_weights: every weight_map entry in its shard). Only
// CheckpointError is expected; weights read come from the shards, each once.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/checkpoint/whisper_config.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "safetensors index invariant broken: %s\n", what);
        std::abort();
    }
}

void write_file(const fs::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A .safetensors file holding one tensor of `data` bytes: u64 header length, the JSON header
// padded with spaces to 8 bytes, the data.
std::string one_tensor_file(const std::string& name, const std::string& dtype, int64_t count,
                            std::string_view data) {
    std::string header = "{\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" +
                         std::to_string(count) + "],\"data_offsets\":[0," +
                         std::to_string(data.size()) + "]}}";
    header.append((8 - header.size() % 8) % 8, ' ');
    std::string file(8, '\0');
    const uint64_t length = header.size();
    for (int i = 0; i < 8; ++i)
        file[static_cast<std::size_t>(i)] = static_cast<char>(length >> (8 * i));
    return file + header + std::string(data);
}

const fs::path& checkpoint_dir() {
    static const earshot::test::TempDir dir("earshot-fuzz-safetensors-index");
    static const bool written = [] {
        write_file(dir.path() / "config.json",
                   R"({"num_mel_bins":80,"max_source_positions":1500,"d_model":384,)"
                   R"("encoder_attention_heads":6,"encoder_layers":4,"encoder_ffn_dim":1536,)"
                   R"("max_target_positions":448,"decoder_attention_heads":6,)"
                   R"("decoder_layers":4,"decoder_ffn_dim":1536,"vocab_size":51865})");
        const char f32_pair[8] = {0, 0, 0, 63, 0, 0, char(128), char(191)};  // 0.5, -1.0
        const char f16_pair[4] = {0, 60, 0, 64};                             // 1.0, 2.0
        write_file(dir.path() / "model-00001-of-00002.safetensors",
                   one_tensor_file("model.encoder.conv1.bias", "F32", 2,
                                   std::string_view(f32_pair, sizeof(f32_pair))));
        write_file(dir.path() / "model-00002-of-00002.safetensors",
                   one_tensor_file("model.decoder.layer_norm.weight", "F16", 2,
                                   std::string_view(f16_pair, sizeof(f16_pair))));
        return true;
    }();
    require(written, "checkpoint directory written");
    return dir.path();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace checkpoint = earshot::checkpoint;
    const fs::path& dir = checkpoint_dir();
    write_file(dir / "model.safetensors.index.json",
               std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        const checkpoint::WhisperConfig config = checkpoint::read_whisper_config(dir);
        require(config.format == checkpoint::CheckpointFormat::hf_directory, "an HF directory");
        const checkpoint::WeightSet set = checkpoint::read_weights(config);
        std::set<std::string> names;
        for (const auto& weight : set.weights()) {
            require(names.insert(weight.source_name).second, "each tensor read once");
            require(weight.bytes.size() ==
                        weight.element_count() * checkpoint::weight_dtype_size_bytes(weight.dtype),
                    "bytes match shape and dtype");
            require(weight.source_name == "model.encoder.conv1.bias" ||
                        weight.source_name == "model.decoder.layer_norm.weight",
                    "weights come from the shards");
        }
    } catch (const checkpoint::CheckpointError&) {
        // Rejected: malformed JSON, no weight_map, a shard that is missing or does not hold the
        // tensor the index puts in it.
    }
    return 0;
}
