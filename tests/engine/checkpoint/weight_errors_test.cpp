// Checkpoints that must not load, each with its message: missing, extra and mis-shaped tensors, a
// non-float dtype, non-finite values, an untied output projection, truncation, a ggml tensor type
// Earshot does not read, two tensors for one parameter, and whisper.cpp's zero-tensor test
// container.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace earshot::model {
namespace {

namespace fs = std::filesystem;
using checkpoint::TensorToWrite;
using earshot::test::TempDir;

using Tensors = std::vector<TensorToWrite>;

// A random checkpoint of `options` in `dir`/base, and copies of it with edited tensor lists.
class BrokenCheckpoints : public testing::Test {
protected:
    void write_base(const RandomCheckpointOptions& options) {
        write_random_checkpoint(dir_.path() / "base", options);
        const WhisperCheckpoint base = load_whisper_checkpoint(dir_.path() / "base");
        tensors_ = test::copy_tensors(base.weights);
    }

    void SetUp() override {
        RandomCheckpointOptions o{.mels = 20,
                                  .d = 64,
                                  .heads = 4,
                                  .enc_layers = 2,
                                  .dec_layers = 2,
                                  .vocab = 500,
                                  .frames = 200,
                                  .max_tokens = 32,
                                  .dtype = "f32"};
        write_base(o);
    }

    fs::path variant(const std::string& name, const std::function<void(Tensors&)>& edit) {
        Tensors tensors = tensors_;
        edit(tensors);
        return test::write_hf_checkpoint(dir_.path() / name, dir_.path() / "base" / "config.json",
                                         tensors);
    }

    static TensorToWrite& named(Tensors& tensors, const std::string& name) {
        for (auto& t : tensors) {
            if (t.name == name) return t;
        }
        throw std::logic_error("no tensor " + name);
    }

    // The message of the error loading `path` throws; fails the test when it loads.
    template <typename Error>
    static std::string load_error(const fs::path& path) {
        try {
            load_whisper_checkpoint(path);
        } catch (const Error& error) {
            return error.what();
        }
        ADD_FAILURE() << path << " loaded";
        return {};
    }

    TempDir dir_{"earshot-weights-errors"};
    Tensors tensors_;
};

TEST_F(BrokenCheckpoints, TheBaseLoadsWithoutKeyBiases) {
    const WhisperCheckpoint ck = load_whisper_checkpoint(dir_.path() / "base");
    EXPECT_EQ(ck.weights.find("decoder_layers.1.encoder_attn.k_proj.bias"), nullptr);
    EXPECT_NE(ck.weights.find("decoder_layers.1.encoder_attn.k_proj.weight"), nullptr);
}

TEST_F(BrokenCheckpoints, MissingTensorNamesTheParameter) {
    const fs::path path = variant("missing", [](Tensors& tensors) {
        std::erase_if(tensors, [](const TensorToWrite& t) {
            return t.name == "model.encoder.conv1.weight" ||
                   t.name == "model.decoder.layers.1.fc2.weight";
        });
    });
    EXPECT_EQ(load_error<LoadError>(path),
              "conv1_weight: Tensor[D, Mels, 3; T] expects [64, 20, 3], found no tensor in " +
                  path.string() + " (1 more parameters missing)");
}

TEST_F(BrokenCheckpoints, MissingOptionalBiasIsFineMissingWeightIsNot) {
    const fs::path no_bias = variant("no_bias", [](Tensors& tensors) {
        std::erase_if(tensors, [](const TensorToWrite& t) {
            return t.name == "model.encoder.layers.0.fc1.bias";
        });
    });
    EXPECT_EQ(load_whisper_checkpoint(no_bias).weights.find("encoder_layers.0.mlp.fc1.bias"),
              nullptr);
    const fs::path no_norm = variant("no_norm", [](Tensors& tensors) {
        std::erase_if(tensors, [](const TensorToWrite& t) {
            return t.name == "model.decoder.layer_norm.bias";
        });
    });
    EXPECT_EQ(
        load_error<LoadError>(no_norm),
        "decoder_norm.bias: Tensor[D; T] expects [64], found no tensor in " + no_norm.string());
}

TEST_F(BrokenCheckpoints, ExtraTensorIsRefused) {
    const fs::path unknown = variant("unknown", [](Tensors& tensors) {
        tensors.push_back({"model.encoder.extra.weight",
                           checkpoint::SafetensorsDType::f32,
                           {2},
                           std::vector<std::byte>(8)});
    });
    EXPECT_EQ(load_error<LoadError>(unknown),
              "tensor model.encoder.extra.weight in model.safetensors is not a parameter of the "
              "Whisper program");
    // A well-formed name past the bound layer count.
    const fs::path extra_layer = variant("extra_layer", [](Tensors& tensors) {
        TensorToWrite copy = named(tensors, "model.encoder.layers.1.fc1.bias");
        copy.name = "model.encoder.layers.2.fc1.bias";
        tensors.push_back(copy);
    });
    EXPECT_EQ(load_error<LoadError>(extra_layer),
              "encoder_layers.2.mlp.fc1.bias: tensor model.encoder.layers.2.fc1.bias in "
              "model.safetensors is not a parameter of the Whisper program under this "
              "checkpoint's binding");
}

TEST_F(BrokenCheckpoints, WrongShapeGivesTypeExpectedAndFound) {
    const fs::path path = variant("shape", [](Tensors& tensors) {
        TensorToWrite& fc1 = named(tensors, "model.decoder.layers.1.fc1.weight");
        fc1.shape = {256, 32};
        fc1.bytes.resize(256 * 32 * 4);
    });
    EXPECT_EQ(load_error<LoadError>(path),
              "decoder_layers.1.mlp.fc1.weight: Tensor[Inner, D; T] expects [256, 64], found "
              "[256, 32] (model.decoder.layers.1.fc1.weight in model.safetensors)");
}

// The message of the design, at tiny's width: a 4-layer encoder with d = 384.
TEST_F(BrokenCheckpoints, WrongShapeAtTinyWidth) {
    RandomCheckpointOptions o{.mels = 8,
                              .d = 384,
                              .heads = 6,
                              .enc_layers = 4,
                              .dec_layers = 1,
                              .vocab = 16,
                              .frames = 8,
                              .max_tokens = 4,
                              .inner = 8,
                              .dtype = "f16"};
    fs::remove_all(dir_.path() / "base");
    write_base(o);
    const fs::path path = variant("tiny_width", [](Tensors& tensors) {
        TensorToWrite& q = named(tensors, "model.encoder.layers.3.self_attn.q_proj.weight");
        q.shape = {384, 380};
        q.bytes.resize(384 * 380 * 2);
    });
    EXPECT_EQ(load_error<LoadError>(path),
              "encoder_layers.3.self_attn.q_proj.weight: Tensor[D, D; T] expects [384, 384], "
              "found [384, 380] (model.encoder.layers.3.self_attn.q_proj.weight in "
              "model.safetensors)");
}

TEST_F(BrokenCheckpoints, NonFloatDtypeIsRefused) {
    const fs::path path = variant("int", [](Tensors& tensors) {
        named(tensors, "model.encoder.layers.0.fc2.bias").dtype = checkpoint::SafetensorsDType::i32;
    });
    const std::string message = load_error<checkpoint::CheckpointError>(path);
    EXPECT_NE(message.find("tensor \"model.encoder.layers.0.fc2.bias\": dtype I32 is not a "
                           "supported float type (F32, F16, BF16) (parameter "
                           "encoder_layers.0.mlp.fc2.bias)"),
              std::string::npos)
        << message;
}

TEST_F(BrokenCheckpoints, NanAndInfinityAreFoundByIndex) {
    const fs::path nan = variant("nan", [](Tensors& tensors) {
        const float value = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(named(tensors, "model.encoder.layers.1.fc1.weight").bytes.data() + 4 * 777,
                    &value, sizeof(value));
    });
    EXPECT_EQ(load_error<LoadError>(nan),
              "encoder_layers.1.mlp.fc1.weight: Tensor[Inner, D; T] has a non-finite value at "
              "flat index 777 (model.encoder.layers.1.fc1.weight in model.safetensors)");
    // f16 infinity in an otherwise f32 checkpoint (dtypes may mix).
    const fs::path inf = variant("inf", [](Tensors& tensors) {
        TensorToWrite& bias = named(tensors, "model.decoder.layer_norm.bias");
        std::vector<std::byte> halves(bias.bytes.size() / 2);
        for (std::size_t i = 0; i < halves.size() / 2; ++i) {
            float value = 0.0f;
            std::memcpy(&value, bias.bytes.data() + 4 * i, sizeof(value));
            const uint16_t bits = i == 63 ? uint16_t{0xfc00} : base::f32_to_f16(value);
            std::memcpy(halves.data() + 2 * i, &bits, sizeof(bits));
        }
        bias.bytes = halves;
        bias.dtype = checkpoint::SafetensorsDType::f16;
    });
    EXPECT_EQ(load_error<LoadError>(inf),
              "decoder_norm.bias: Tensor[D; T] has a non-finite value at flat index 63 "
              "(model.decoder.layer_norm.bias in model.safetensors)");
}

TEST_F(BrokenCheckpoints, UntiedOutputProjectionIsRefused) {
    const fs::path path = variant("untied", [](Tensors& tensors) {
        TensorToWrite head = named(tensors, "model.decoder.embed_tokens.weight");
        head.name = "proj_out.weight";
        head.bytes[5] = std::byte{0x11};
        tensors.push_back(head);
    });
    const std::string message = load_error<checkpoint::CheckpointError>(path);
    EXPECT_NE(message.find("tensor \"proj_out.weight\": an untied output projection is not part "
                           "of the Whisper program"),
              std::string::npos)
        << message;
}

TEST_F(BrokenCheckpoints, TwoTensorsForOneParameterAreRefused) {
    const fs::path path = variant("twice", [](Tensors& tensors) {
        TensorToWrite copy = named(tensors, "model.encoder.conv1.bias");
        copy.name = "encoder.conv1.bias";
        tensors.push_back(copy);
    });
    const std::string message = load_error<checkpoint::CheckpointError>(path);
    EXPECT_NE(message.find("is parameter conv1_bias, which"), std::string::npos) << message;
}

TEST_F(BrokenCheckpoints, TruncatedSafetensorsIsRefused) {
    const fs::path path = variant("truncated", [](Tensors&) {});
    std::vector<char> bytes = test::read_file_bytes(path / "model.safetensors");
    bytes.resize(bytes.size() - 10);
    test::write_file_bytes(path / "model.safetensors", bytes);
    const std::string message = load_error<checkpoint::CheckpointError>(path);
    EXPECT_NE(message.find("model.safetensors: "), std::string::npos) << message;
    // A header length past the end of the file.
    bytes.resize(100);
    test::write_file_bytes(path / "model.safetensors", bytes);
    EXPECT_NE(load_error<checkpoint::CheckpointError>(path).find("model.safetensors"),
              std::string::npos);
}

TEST_F(BrokenCheckpoints, QuantizedGgmlTensorIsRefusedByName) {
    // A mostly-f16 container (ftype 1) holding one q8_1 tensor (ggml type 9, which whisper.cpp
    // files do not use and Earshot does not read): 32 elements in one 36-byte block.
    std::vector<char> bytes;
    const auto i32 = [&](int32_t v) {
        const auto u = std::bit_cast<uint32_t>(v);
        for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    };
    i32(static_cast<int32_t>(checkpoint::ggml_file_magic));
    for (const int32_t v : {500, 100, 64, 4, 2, 32, 64, 4, 2, 20, 1}) i32(v);
    i32(0);  // no mel filters
    i32(0);
    i32(0);  // no vocabulary
    const std::string name = "decoder.token_embedding.weight";
    i32(2);
    i32(static_cast<int32_t>(name.size()));
    i32(9);
    i32(32);
    i32(1);
    bytes.insert(bytes.end(), name.begin(), name.end());
    bytes.insert(bytes.end(), 36, '\0');
    test::write_file_bytes(dir_.path() / "q8.bin", bytes);
    const std::string message = load_error<checkpoint::CheckpointError>(dir_.path() / "q8.bin");
    EXPECT_NE(message.find("tensor \"decoder.token_embedding.weight\": ggml type 9 (q8_1) is not "
                           "supported"),
              std::string::npos)
        << message;
}

TEST(ZeroTensorGgml, LoadsEmptyAndReportsConv1WeightMissing) {
    const fs::path path =
        fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "for-tests-ggml-tiny.bin";
    if (!fs::exists(path)) {
        GTEST_SKIP() << "whisper.cpp's test container is not available (" << path << ")";
    }
    const WhisperBinding binding = bind_whisper(checkpoint::read_whisper_config(path));
    const checkpoint::WeightSet weights = checkpoint::read_weights(binding.config);
    EXPECT_TRUE(weights.weights().empty());
    try {
        check_weights(weights, binding);
        ADD_FAILURE() << "an empty weight set passed the check";
    } catch (const LoadError& error) {
        EXPECT_EQ(error.param_path(), "conv1_weight");
        EXPECT_EQ(std::string(error.what()),
                  "conv1_weight: Tensor[D, Mels, 3; T] expects [384, 80, 3], found no tensor in " +
                      path.string() + " (114 more parameters missing)");
    }
}

}  // namespace
}  // namespace earshot::model
