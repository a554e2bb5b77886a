// The embedded micro model against PyTorch: its training recipe exported one held-out mel, the
// tokens fed and the logits PyTorch computed from the f16-rounded weights at a few positions
// (tests/golden/micro/parity.npz); Earshot's CPU engine must give the same logits within 1e-3
// relative. An independent check of the engine, with a model that understands speech.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "npz_reader.h"
#include "value_difference.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kModelDir(EARSHOT_MICRO_MODEL_DIR);
const fs::path kFixture = fs::path(EARSHOT_TEST_GOLDEN_DIR) / "micro" / "parity.npz";

std::vector<int32_t> as_i32(const NpyArray& array) {
    EXPECT_EQ(array.descr, "<i4");
    std::vector<int32_t> values(array.data.size() / sizeof(int32_t));
    std::memcpy(values.data(), array.data.data(), values.size() * sizeof(int32_t));
    return values;
}

TEST(MicroModelParity, CpuEngineLogitsMatchPyTorchWithin1e3Relative) {
    ASSERT_TRUE(fs::exists(kModelDir / "model.safetensors")) << kModelDir;
    ASSERT_TRUE(fs::exists(kFixture)) << kFixture;
    const std::map<std::string, NpyArray> npz = read_npz(kFixture);
    const NpyArray& mel = npz.at("mel");  // [80, Frames]
    const std::vector<int32_t> fed = as_i32(npz.at("tokens"));
    const std::vector<int32_t> positions = as_i32(npz.at("positions"));
    const NpyArray& logits = npz.at("logits");  // [P, Vocab]
    ASSERT_EQ(mel.shape.size(), 2u);
    ASSERT_EQ(logits.shape.size(), 2u);
    ASSERT_EQ(logits.shape[0], static_cast<int64_t>(positions.size()));

    const model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(kModelDir);
    auto model = runtime::make_cpu_decoder_model(checkpoint);
    ASSERT_EQ(model->mels(), mel.shape[0]);
    ASSERT_EQ(model->frames(), mel.shape[1]);
    ASSERT_EQ(model->vocab(), logits.shape[1]);
    model->listen(backend::HostTensor::f32({1, mel.shape[0], mel.shape[1]}, mel.as_f32()));

    const std::vector<float> expected_all = logits.as_f32();
    const auto vocab = static_cast<size_t>(logits.shape[1]);
    for (size_t i = 0; i < positions.size(); ++i) {
        const auto upto = static_cast<int64_t>(positions[i]) + 1;  // tokens 0 .. position
        const backend::HostTensor got = model->prefill(backend::HostTensor::i32(
            {1, upto}, std::vector<int32_t>(fed.begin(), fed.begin() + upto)));
        const auto values = got.f32_values();
        ASSERT_EQ(values.size(), vocab);
        double max_abs = 0.0;
        double max_diff = 0.0;
        size_t argmax_got = 0;
        size_t argmax_expected = 0;
        for (size_t v = 0; v < vocab; ++v) {
            const double e = expected_all[i * vocab + v];
            max_abs = std::max(max_abs, std::abs(e));
            max_diff = std::max(max_diff, value_difference(values[v], e));
            if (values[v] > values[argmax_got]) argmax_got = v;
            if (expected_all[i * vocab + v] > expected_all[i * vocab + argmax_expected]) {
                argmax_expected = v;
            }
        }
        std::printf("position %d: max |diff| %.3g over max |logit| %.3g = %.3g relative\n",
                    positions[i], max_diff, max_abs, max_diff / max_abs);
        EXPECT_LE(max_diff / max_abs, 1e-3) << "position " << positions[i];
        EXPECT_EQ(argmax_got, argmax_expected) << "position " << positions[i];
    }
}

}  // namespace
}  // namespace earshot::test
