// The CPU backend's scratch between calls: the encoder's intermediates (the plan's arena and the
// convolutions' unfolded input) are released by listen, so a decoder that follows holds only what
// its own plans need, a fraction of the encoder's; the bytes are the backend's own count, exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "backend_test_data.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CacheStorage;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using namespace earshot::test::backend_data;

TEST(CpuScratch, ListenReleasesTheEncodersScratchAndDecodingNeedsAFractionOfIt) {
    earshot::test::TempDir temp("earshot-cpu-scratch");
    const earshot::model::RandomCheckpointOptions o{.d = 128,
                                                    .heads = 4,
                                                    .enc_layers = 2,
                                                    .dec_layers = 2,
                                                    .vocab = 400,
                                                    .frames = 400,
                                                    .max_tokens = 64,
                                                    .dtype = "f16"};
    earshot::model::write_random_checkpoint(temp.path() / "model", o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(temp.path() / "model");
    CpuWhisper backend(checkpoint, 1, CacheStorage::f16);
    const auto& dims = backend.binding().values.dims;
    const HostTensor mel = test_mel(1, dims.at("Mels"), dims.at("Frames"), 0);
    EXPECT_EQ(backend.scratch_bytes(), 0);

    // encode keeps its scratch (a caller may encode again): at least the MLP's hidden activations,
    // [Frames / 2, 4 D] f32, and the second convolution's unfolded input, [Frames / 2, 3 D] f32.
    backend.encode(mel);
    const int64_t audio = o.frames / 2;
    const int64_t encoder_scratch = backend.scratch_bytes();
    EXPECT_GE(encoder_scratch, audio * 4 * o.d * 4 + audio * 3 * o.d * 4);

    backend.listen(mel);
    EXPECT_EQ(backend.scratch_bytes(), 0);

    // A beam-5 decode: the prefill's and the steps' intermediates, far less than the encoder's.
    backend.expand_batch(5);
    const auto tokens = random_tokens(5, 8, o.vocab, 3);
    backend.prefill(token_tensor(tokens, 0, 3));
    for (int32_t pos = 3; pos < 8; ++pos) backend.step(token_tensor(tokens, pos, pos + 1), pos);
    const int64_t decoder_scratch = backend.scratch_bytes();
    EXPECT_GT(decoder_scratch, 0);
    EXPECT_LT(decoder_scratch, encoder_scratch / 4)
        << "decoder " << decoder_scratch << " bytes, encoder " << encoder_scratch;
}

}  // namespace
