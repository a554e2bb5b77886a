// Running out of device memory while the caches are resized (set_states, through resize_batch):
// every new buffer, the one of all the cross caches included, is allocated before any cache
// changes, so the model keeps its batch, its caches' contents and the device memory it held, and
// a resize with memory to spare then works. On the emulated device, whose size the test sets
// (cuda_out_of_memory_emulated starts it at 64 KiB; the model is loaded with more).
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using namespace earshot::test::backend_data;  // NOLINT: test mel, tokens, relative_error
using earshot::backend::CpuWhisper;
using earshot::backend::CudaError;
using earshot::backend::CudaErrorKind;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;

// f16 caches and activations against the f32 CPU backend (as cuda_cross_kv_test.cpp).
constexpr double kLogitsTolerance = 2e-3;
constexpr int64_t kRows = 3;
constexpr size_t kRoomyDevice = size_t{1} << 32;

// The emulated device's size for one scope, the earlier size put back after (the other tests of
// cuda_out_of_memory_emulated need their small device).
class DeviceSize {
public:
    DeviceSize(const earshot::test::EmulatorMemory& memory, size_t bytes)
        : memory_(memory), before_(memory.set_limit(bytes)) {}
    ~DeviceSize() { memory_.set_limit(before_); }
    DeviceSize(const DeviceSize&) = delete;
    DeviceSize& operator=(const DeviceSize&) = delete;

private:
    earshot::test::EmulatorMemory memory_;
    size_t before_;
};

TEST(OutOfMemoryOnCudaDevice, ResizingTheBatchLeavesTheModelAsItWas) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    const earshot::test::EmulatorMemory memory = earshot::test::emulator_memory();
    if (memory.allocated == nullptr || memory.set_limit == nullptr) {
        GTEST_SKIP() << "runs on the emulated device only (it sets the device's memory size)";
    }
    const DeviceSize roomy(memory, kRoomyDevice);  // room to load the model
    earshot::test::TempDir dir("earshot-cuda-resize-oom");
    earshot::model::RandomCheckpointOptions o{
        .mels = 80, .d = 64, .heads = 4, .enc_layers = 1, .dec_layers = 2, .vocab = 300};
    o.frames = 40;
    o.max_tokens = 8;
    o.dtype = "f16";
    o.seed = 56;
    earshot::model::write_random_checkpoint(dir.path(), o);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    CpuWhisper cpu(checkpoint, 1);
    CudaWhisper gpu(checkpoint, 1);
    const HostTensor mel = test_mel(1, o.mels, o.frames, 2);
    const auto prompt = random_tokens(1, 3, o.vocab, 7);
    auto window = [&] {
        cpu.listen(mel);
        gpu.listen(mel);
        (void)cpu.prefill(token_tensor(prompt, 0, 2));
        (void)gpu.prefill(token_tensor(prompt, 0, 2));
    };
    // Resizes to kRows rows with less memory than `needed` all fail, leaving the batch, the
    // device memory and the caches: the step after the prefill reads them (the cross caches that
    // listen wrote, the self-attention caches of the prompt) as the CPU does.
    auto resizes_fail = [&](size_t needed, const char* when) {
        const size_t before = memory.allocated();
        for (int eighth = 0; eighth < 8; ++eighth) {
            memory.set_limit(before + needed * static_cast<size_t>(eighth) / 8);
            try {
                gpu.resize_batch(kRows);
                ADD_FAILURE() << when << ": the resize fit in " << eighth << "/8 of what it needs";
            } catch (const CudaError& error) {
                EXPECT_EQ(error.kind(), CudaErrorKind::out_of_memory) << error.what();
            }
            EXPECT_EQ(gpu.batch(), 1) << when;
            EXPECT_EQ(memory.allocated(), before) << when << ", " << eighth << "/8";
        }
        memory.set_limit(kRoomyDevice);
        const HostTensor token = token_tensor(prompt, 2, 3);
        const double kept =
            relative_error(gpu.step(token, 2).f32_values(), cpu.step(token, 2).f32_values());
        std::printf("%s: the step after the failed resizes against the CPU %.3g\n", when, kept);
        EXPECT_LE(kept, kLogitsTolerance) << when;
    };
    // One row of a cache, f16: self-attention [H, MaxTokens, Dh], cross [H, Audio, Dh].
    const int64_t dh = o.d / o.heads;
    const auto self_rows =
        static_cast<size_t>(kRows * 2 * o.dec_layers * o.heads * o.max_tokens * dh * 2);
    const auto cross_rows =
        static_cast<size_t>(kRows * 2 * o.dec_layers * o.heads * (o.frames / 2) * dh * 2);
    // A fresh model: every cache needs its kRows rows at once, before the old ones go.
    window();
    resizes_fail(self_rows + cross_rows, "fresh");
    // After a beam of kRows rows the self-attention caches keep room for them (the cross caches,
    // shared, one row): back at one row, a resize needs only the cross caches' rows, and the
    // self-attention caches, which fit, must not have moved when that allocation fails.
    cpu.expand_batch(kRows);
    gpu.expand_batch(kRows);
    cpu.resize_batch(1);
    gpu.resize_batch(1);
    window();
    resizes_fail(cross_rows, "after a beam");
    const size_t before = memory.allocated();
    const size_t needed = cross_rows;
    memory.set_limit(before + needed);
    cpu.resize_batch(kRows);
    gpu.resize_batch(kRows);
    ASSERT_EQ(gpu.batch(), kRows);
    memory.set_limit(kRoomyDevice);  // the workspace grows for listen's rows
    const HostTensor mels = test_mel(kRows, o.mels, o.frames, 3);
    cpu.listen(mels);
    gpu.listen(mels);
    const HostTensor prompts = token_tensor(random_tokens(kRows, 2, o.vocab, 8), 0, 2);
    EXPECT_LE(relative_error(gpu.prefill(prompts).f32_values(), cpu.prefill(prompts).f32_values()),
              kLogitsTolerance);
}

}  // namespace
