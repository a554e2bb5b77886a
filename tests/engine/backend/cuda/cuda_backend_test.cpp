// The CUDA backend against the CPU backend on random checkpoints (f32, f16 and bf16 stored,
// uploaded as f16): every entry, cache consistency on the GPU, batch 1 and 5, beam reordering,
// profiling with CUDA events, and the embedded micro model's logits and decoded tokens. Suites
// named *OnCudaDevice are labelled cuda; they skip with one line on a machine without a driver or
// a device and fail on any other CUDA error (cuda_test_device.h); CudaAvailability runs everywhere
// and checks what a machine without a GPU is told.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/window_decoder.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"
#include "npz_reader.h"
#include "source_paths.h"
#include "temp_dir.h"

namespace {

using namespace earshot::test::backend_data;
using earshot::backend::CpuWhisper;
using earshot::backend::CudaError;
using earshot::backend::CudaErrorKind;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::cuda_unavailable;
using earshot::test::emulator_graph_launches;
using earshot::test::emulator_memory;
using earshot::test::EmulatorMemory;
namespace fs = std::filesystem;

// The tolerances for f16 weights and activations against the f32 CPU backend.
constexpr double kEncoderTolerance = 2e-3;
constexpr double kLogitsTolerance = 1e-2;
constexpr double kArgmaxAgreement = 0.99;
// The GPU against itself (prefill + steps vs one decode; batch 5 vs batch 1): other GEMM shapes
// and the single-query kernel, the same f16 rounding of every operand.
constexpr double kCacheTolerance = 5e-3;

struct Shape {
    std::string name;
    earshot::model::RandomCheckpointOptions options;
};

void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

Shape make_shape(std::string name, int64_t mels, int64_t d, int64_t heads, int64_t layers,
                 int64_t vocab, int64_t frames, int64_t max_tokens, std::string dtype,
                 uint64_t seed) {
    Shape shape{std::move(name), {}};
    auto& o = shape.options;
    o.mels = mels;
    o.d = d;
    o.heads = heads;
    o.enc_layers = layers;
    o.dec_layers = layers;
    o.vocab = vocab;
    o.frames = frames;
    o.max_tokens = max_tokens;
    o.dtype = std::move(dtype);
    o.seed = seed;
    return shape;
}

const std::vector<Shape>& shapes() {
    static const std::vector<Shape> list = {
        make_shape("F32Small", 80, 64, 4, 2, 512, 200, 32, "f32", 21),
        make_shape("Bf16OddHeads", 128, 96, 3, 1, 300, 64, 16, "bf16", 22),
        // tiny.en's shape and window: 1500 audio positions, 448 tokens, the real vocabulary.
        make_shape("F16TinyShape", 80, 384, 6, 4, 51864, 3000, 448, "f16", 23),
    };
    return list;
}

double agreement(std::span<const float> got, std::span<const float> want, int64_t width) {
    const int64_t rows = static_cast<int64_t>(want.size()) / width;
    int64_t same = 0;
    for (int64_t r = 0; r < rows; ++r) {
        same += argmax(row_of(got, r, width)) == argmax(row_of(want, r, width)) ? 1 : 0;
    }
    return static_cast<double>(same) / static_cast<double>(rows);
}

class BackendParityOnCudaDevice : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        earshot::model::write_random_checkpoint(dir_.path(), GetParam().options);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
        const auto& o = GetParam().options;
        mels_ = o.mels;
        frames_ = o.frames;
        vocab_ = o.vocab;
        max_tokens_ = o.max_tokens;
    }

    earshot::test::TempDir dir_{"earshot-cuda-parity"};
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    int64_t mels_ = 0, frames_ = 0, vocab_ = 0, max_tokens_ = 0;
};

TEST_P(BackendParityOnCudaDevice, EncodeAndDecodeMatchTheCpu) {
    CpuWhisper cpu(*checkpoint_);
    CudaWhisper gpu(*checkpoint_);
    for (int64_t batch : {int64_t{1}, int64_t{2}}) {
        const HostTensor mel = test_mel(batch, mels_, frames_, 0);
        const HostTensor want_audio = cpu.encode(mel);
        const HostTensor got_audio = gpu.encode(mel);
        ASSERT_EQ(got_audio.shape(), want_audio.shape());
        const double audio_error = relative_error(got_audio.f32_values(), want_audio.f32_values());
        std::printf("%s batch %lld: encoder states relative error %.3g\n", GetParam().name.c_str(),
                    static_cast<long long>(batch), audio_error);
        EXPECT_LE(audio_error, kEncoderTolerance) << "batch " << batch;

        // Both decoders read the CPU's audio states, so decode is compared on its own.
        const auto tokens = random_tokens(batch, max_tokens_, vocab_, 5);
        const HostTensor token_rows = token_tensor(tokens, 0, max_tokens_);
        const HostTensor want = cpu.decode(token_rows, want_audio);
        const HostTensor got = gpu.decode(token_rows, want_audio);
        ASSERT_EQ(got.shape(), want.shape());
        const double logits_error = relative_error(got.f32_values(), want.f32_values());
        const double same = agreement(got.f32_values(), want.f32_values(), vocab_);
        std::printf("%s batch %lld: logits relative error %.3g, argmax agreement %.4f\n",
                    GetParam().name.c_str(), static_cast<long long>(batch), logits_error, same);
        EXPECT_LE(logits_error, kLogitsTolerance) << "batch " << batch;
        EXPECT_GE(same, kArgmaxAgreement) << "batch " << batch;
    }
}

// listen + prefill + steps on the GPU reproduce the GPU's own full decode at every position.
TEST_P(BackendParityOnCudaDevice, PrefillAndStepsMatchTheFullDecode) {
    CudaWhisper gpu(*checkpoint_, 1);
    const HostTensor mel = test_mel(1, mels_, frames_, 1);
    const HostTensor audio = gpu.listen(mel);
    EXPECT_LE(relative_error(audio.f32_values(), gpu.encode(mel).f32_values()), kCacheTolerance);
    const auto tokens = random_tokens(1, max_tokens_, vocab_, 6);
    const HostTensor full = gpu.decode(token_tensor(tokens, 0, max_tokens_), audio);
    const std::span<const float> full_flat = full.f32_values();
    constexpr int64_t kPrefill = 3;
    const HostTensor first = gpu.prefill(token_tensor(tokens, 0, kPrefill));
    EXPECT_LE(relative_error(first.f32_values(), row_of(full_flat, kPrefill - 1, vocab_)),
              kCacheTolerance);
    double worst = 0.0;
    for (int64_t pos = kPrefill; pos < max_tokens_; ++pos) {
        const HostTensor next =
            gpu.step(token_tensor(tokens, pos, pos + 1), static_cast<int32_t>(pos));
        const double error = relative_error(next.f32_values(), row_of(full_flat, pos, vocab_));
        worst = std::max(worst, error);
        EXPECT_LE(error, kCacheTolerance) << "step at position " << pos;
    }
    std::printf("%s: steps against the full decode, worst relative error %.3g\n",
                GetParam().name.c_str(), worst);
    // On the emulated device the graph replays are counted: the steps after the first two were
    // replayed from the captured graph (with pos and the token changing under it).
    if (const auto launches = emulator_graph_launches()) {
        EXPECT_GE(*launches, static_cast<size_t>(max_tokens_ - kPrefill - 2));
    }
}

// Running out of device memory while the caches grow for beam search leaves every cache as it
// was: the window goes on at one row, and a later expansion with memory to spare gives the rows
// the CPU gives. (Before, the caches resized before the failure kept the new row count and the
// rest the old one.)
TEST_P(BackendParityOnCudaDevice, OutOfMemoryWhileExpandingLeavesTheCachesAsTheyWere) {
    constexpr int64_t kRows = 5;
    const EmulatorMemory memory = emulator_memory();
    if (memory.allocated == nullptr || memory.set_limit == nullptr) {
        GTEST_SKIP() << "runs on the emulated device only (it sets the device's memory size)";
    }
    const HostTensor mel = test_mel(1, mels_, frames_, 2);
    const auto prompt = random_tokens(1, 2, vocab_, 7);
    // What the expansion allocates: measured on a twin. Its new caches are kRows times the old
    // ones, and the old ones are freed after, so it adds (kRows - 1) / kRows of what it takes.
    size_t expansion_bytes = 0;
    {
        CudaWhisper twin(*checkpoint_, 1);
        twin.listen(mel);
        (void)twin.prefill(token_tensor(prompt, 0, 2));
        const size_t before = memory.allocated();
        twin.expand_batch(kRows);
        expansion_bytes = (memory.allocated() - before) * kRows / (kRows - 1);
    }
    ASSERT_GT(expansion_bytes, 0u);

    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    cpu.listen(mel);
    gpu.listen(mel);
    (void)cpu.prefill(token_tensor(prompt, 0, 2));
    (void)gpu.prefill(token_tensor(prompt, 0, 2));
    const size_t before = memory.allocated();
    const size_t limit = memory.set_limit(before);
    for (int eighth = 0; eighth < 8; ++eighth) {
        memory.set_limit(before + expansion_bytes * static_cast<size_t>(eighth) / 8);
        EXPECT_THROW(gpu.expand_batch(kRows), CudaError) << eighth << "/8 of the memory it needs";
        EXPECT_EQ(gpu.batch(), 1);
        // Nothing was resized: the device holds what it held.
        EXPECT_EQ(memory.allocated(), before) << eighth << "/8 of the memory it needs";
    }
    memory.set_limit(limit);
    cpu.expand_batch(kRows);
    gpu.expand_batch(kRows);
    ASSERT_EQ(gpu.batch(), kRows);
    EXPECT_EQ(memory.allocated() - before, expansion_bytes * (kRows - 1) / kRows);
    const auto rows = random_tokens(kRows, 1, vocab_, 9);
    const HostTensor want = cpu.step(token_tensor(rows, 0, 1), 2);
    const HostTensor got = gpu.step(token_tensor(rows, 0, 1), 2);
    ASSERT_EQ(got.shape(), (std::vector<int64_t>{kRows, vocab_}));
    EXPECT_LE(relative_error(got.f32_values(), want.f32_values()), kLogitsTolerance);
}

// One window expanded to 5 rows (beam search), stepped, reordered, stepped: the GPU follows the
// CPU doing the same moves, and a reordered row really carries its source row's cache.
TEST_P(BackendParityOnCudaDevice, BeamRowsExpandAndReorderLikeTheCpu) {
    constexpr int64_t kRows = 5;
    CpuWhisper cpu(*checkpoint_, 1);
    CudaWhisper gpu(*checkpoint_, 1);
    const HostTensor mel = test_mel(1, mels_, frames_, 2);
    cpu.listen(mel);
    gpu.listen(mel);
    const auto prompt = random_tokens(1, 2, vocab_, 7);
    EXPECT_LE(relative_error(gpu.prefill(token_tensor(prompt, 0, 2)).f32_values(),
                             cpu.prefill(token_tensor(prompt, 0, 2)).f32_values()),
              kLogitsTolerance);
    cpu.expand_batch(kRows);
    gpu.expand_batch(kRows);
    ASSERT_EQ(gpu.batch(), kRows);
    const auto rows = random_tokens(kRows, 4, vocab_, 8);
    const std::vector<int64_t> order = {4, 4, 0, 2, 1};
    for (int64_t pos = 2; pos < 6; ++pos) {
        const HostTensor step_tokens = token_tensor(rows, pos - 2, pos - 1);
        const HostTensor want = cpu.step(step_tokens, static_cast<int32_t>(pos));
        const HostTensor got = gpu.step(step_tokens, static_cast<int32_t>(pos));
        ASSERT_EQ(got.shape(), (std::vector<int64_t>{kRows, vocab_}));
        EXPECT_LE(relative_error(got.f32_values(), want.f32_values()), kLogitsTolerance)
            << "position " << pos;
        EXPECT_GE(agreement(got.f32_values(), want.f32_values(), vocab_), 0.8);
        if (pos == 3) {
            cpu.reorder_batch(order);
            gpu.reorder_batch(order);
        }
    }
    // Every row a copy of row 3: the same next token must give the same logits in every row.
    const std::vector<int64_t> same = {3, 3, 3, 3, 3};
    gpu.reorder_batch(same);
    const HostTensor twin =
        gpu.step(token_tensor(std::vector<std::vector<int32_t>>(kRows, {7}), 0, 1), 6);
    for (int64_t r = 1; r < kRows; ++r) {
        EXPECT_LE(relative_error(row_of(twin.f32_values(), r, vocab_),
                                 row_of(twin.f32_values(), 0, vocab_)),
                  1e-6)
            << "row " << r;
    }
}

TEST_P(BackendParityOnCudaDevice, ChecksTokensAndPositionsLikeTheCpu) {
    CudaWhisper gpu(*checkpoint_, 1);
    gpu.listen(test_mel(1, mels_, frames_, 0));
    EXPECT_THROW(gpu.prefill(HostTensor::i32({1, 2}, {0, static_cast<int32_t>(vocab_)})),
                 std::out_of_range);
    EXPECT_THROW(gpu.step(HostTensor::i32({1, 1}, {1}), static_cast<int32_t>(max_tokens_)),
                 std::out_of_range);
    EXPECT_THROW(gpu.encode(HostTensor::f32({1, mels_, frames_ + 2})), std::invalid_argument);
    // The model still works after refusing.
    const HostTensor logits = gpu.step(HostTensor::i32({1, 1}, {1}), 0);
    EXPECT_EQ(logits.shape(), (std::vector<int64_t>{1, vocab_}));
}

// Profiling times every plan step with CUDA events and names its op and scope.
TEST_P(BackendParityOnCudaDevice, ProfilingTimesEveryStepWithEvents) {
    CudaWhisper gpu(*checkpoint_, 1);
    gpu.set_profiling(true);
    gpu.listen(test_mel(1, mels_, frames_, 0));
    const auto listen_steps = gpu.last_timings();
    ASSERT_FALSE(listen_steps.empty());
    double total_ms = 0.0;
    bool saw_attention = false;
    for (const auto& timing : listen_steps) {
        EXPECT_GE(timing.ms, 0.0);
        EXPECT_FALSE(timing.op.empty());
        total_ms += timing.ms;
        saw_attention = saw_attention || (timing.op == "attention" &&
                                          timing.scope.find("self_attn") != std::string::npos);
    }
    EXPECT_GT(total_ms, 0.0);
    EXPECT_TRUE(saw_attention);
    gpu.step(HostTensor::i32({1, 1}, {1}), 0);
    EXPECT_FALSE(gpu.last_timings().empty());
    gpu.set_profiling(false);
    gpu.step(HostTensor::i32({1, 1}, {1}), 1);
    EXPECT_TRUE(gpu.last_timings().empty());
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, BackendParityOnCudaDevice,
                         ::testing::ValuesIn(shapes()),
                         [](const ::testing::TestParamInfo<Shape>& param_info) {
                             return param_info.param.name;
                         });

// The embedded micro model (a model that understands speech) on a held-out mel: the GPU's logits
// against PyTorch's, and whole windows decoded greedily and with a beam of 5 give the same tokens
// and text on both backends.
class MicroModelOnCudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        npz_ = earshot::test::read_npz(earshot::test::golden_dir() / "micro" / "parity.npz");
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(kModelDir));
        const earshot::test::NpyArray& mel = npz_.at("mel");  // [80, Frames]
        mel_ = HostTensor::f32({1, mel.shape[0], mel.shape[1]}, mel.as_f32());
    }

    const fs::path kModelDir = earshot::test::micro_model_dir();
    std::map<std::string, earshot::test::NpyArray> npz_;
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    HostTensor mel_;
};

TEST_F(MicroModelOnCudaDevice, LogitsMatchPyTorch) {
    auto gpu = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    EXPECT_NE(gpu->backend_name().find("CUDA"), std::string::npos);
    gpu->listen(mel_);
    const earshot::test::NpyArray& logits = npz_.at("logits");  // [P, Vocab]
    const earshot::test::NpyArray& fed = npz_.at("tokens");
    const earshot::test::NpyArray& positions = npz_.at("positions");
    std::vector<int32_t> tokens(fed.data.size() / 4);
    std::memcpy(tokens.data(), fed.data.data(), fed.data.size());
    std::vector<int32_t> at(positions.data.size() / 4);
    std::memcpy(at.data(), positions.data.data(), positions.data.size());
    const std::vector<float> want_all = logits.as_f32();
    const auto vocab = static_cast<size_t>(logits.shape[1]);
    for (size_t i = 0; i < at.size(); ++i) {
        const int64_t upto = at[i] + 1;
        const HostTensor got = gpu->prefill(HostTensor::i32(
            {1, upto}, std::vector<int32_t>(tokens.begin(), tokens.begin() + upto)));
        const std::span<const float> want(want_all.data() + i * vocab, vocab);
        const double error = relative_error(got.f32_values(), want);
        std::printf("micro position %d: GPU against PyTorch %.3g relative\n", at[i], error);
        EXPECT_LE(error, kLogitsTolerance);
        EXPECT_EQ(argmax(got.f32_values()), argmax(want)) << "position " << at[i];
    }
}

TEST_F(MicroModelOnCudaDevice, GreedyAndBeamWindowsDecodeLikeTheCpu) {
    const auto tok = earshot::tokenizer::Tokenizer::load(
        kModelDir, checkpoint_->binding.values.dims.at("Vocab"));
    auto cpu = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    auto gpu = earshot::runtime::make_cuda_decoder_model(*checkpoint_);
    for (int beam : {1, 5}) {
        earshot::decoding::DecodingOptions options;
        options.beam_size = beam;
        std::mt19937_64 rng_cpu(1);
        std::mt19937_64 rng_gpu(1);
        const auto want =
            earshot::decoding::decode_window(*cpu, tok, mel_, {}, "", options, 0.0, rng_cpu);
        const auto got =
            earshot::decoding::decode_window(*gpu, tok, mel_, {}, "", options, 0.0, rng_gpu);
        std::printf("beam %d: CPU \"%s\", CUDA \"%s\"\n", beam, want.text.c_str(),
                    got.text.c_str());
        EXPECT_FALSE(want.text.empty());
        EXPECT_EQ(got.tokens, want.tokens) << "beam " << beam;
        EXPECT_EQ(got.text, want.text) << "beam " << beam;
    }
}

// A device too small for the model (the emulated device of cuda_out_of_memory_emulated, whose
// size EARSHOT_CUDA_EMULATOR_MEMORY_BYTES sets): the error names the model and what it needed,
// and the automatic choice runs the model on the CPU instead.
TEST(OutOfMemoryOnCudaDevice, NamesTheModelAndWhatItNeeded) {
    EARSHOT_NEEDS_CUDA_DEVICE();
    if (std::getenv("EARSHOT_CUDA_EMULATOR_MEMORY_BYTES") == nullptr) {
        GTEST_SKIP() << "runs on the emulated device with a memory limit only";
    }
    earshot::test::TempDir dir("earshot-cuda-oom");
    earshot::model::write_random_checkpoint(dir.path(), shapes().front().options);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    try {
        CudaWhisper gpu(checkpoint, 1, 0, "the random model");
        FAIL() << "the model fit in the limited device";
    } catch (const CudaError& error) {
        EXPECT_EQ(error.kind(), CudaErrorKind::out_of_memory) << error.what();
        const std::string message = error.what();
        EXPECT_NE(message.find("the random model needs"), std::string::npos) << message;
        EXPECT_NE(message.find("KiB"), std::string::npos) << message;
    }
    auto chosen = earshot::runtime::make_decoder_model(
        checkpoint, earshot::backend::BackendChoice::automatic, "the random model");
    EXPECT_EQ(chosen.model->backend_name(), "CPU");
    EXPECT_NE(chosen.fallback_reason.find("out of memory"), std::string::npos)
        << chosen.fallback_reason;
}

// What a machine without a usable GPU is told: the typed error, CUDA's or the loader's own
// message, and the automatic choice falling back to the CPU with that reason.
TEST(CudaAvailability, NoDriverIsReportedByName) {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver != nullptr) {
        dlclose(driver);
        GTEST_SKIP() << "this machine has an NVIDIA driver";
    }
    if (!earshot::backend::cuda_backend_built()) {
        try {
            earshot::backend::cuda_devices();
            FAIL() << "cuda_devices() returned without a CUDA backend";
        } catch (const CudaError& error) {
            EXPECT_EQ(error.kind(), CudaErrorKind::not_built);
        }
        return;
    }
    try {
        earshot::backend::cuda_devices();
        FAIL() << "cuda_devices() returned without a driver";
    } catch (const CudaError& error) {
        EXPECT_EQ(error.kind(), CudaErrorKind::no_driver) << error.what();
        EXPECT_NE(std::string(error.what()).find("libcuda.so.1"), std::string::npos)
            << error.what();
    }
}

TEST(CudaAvailability, AutomaticFallsBackToTheCpuAndSaysWhy) {
    const auto why = cuda_unavailable();
    if (!why) GTEST_SKIP() << "a CUDA device is usable here";
    earshot::test::TempDir dir("earshot-cuda-fallback");
    const Shape shape = shapes().front();
    earshot::model::write_random_checkpoint(dir.path(), shape.options);
    const auto checkpoint = earshot::model::load_whisper_checkpoint(dir.path());

    auto chosen = earshot::runtime::make_decoder_model(
        checkpoint, earshot::backend::BackendChoice::automatic, "the random model");
    ASSERT_NE(chosen.model, nullptr);
    EXPECT_EQ(chosen.model->backend_name(), "CPU");
    EXPECT_NE(chosen.fallback_reason.find("CUDA is not available"), std::string::npos);
    EXPECT_EQ(chosen.fallback_reason.find('\n'), std::string::npos) << "one line";

    auto cpu =
        earshot::runtime::make_decoder_model(checkpoint, earshot::backend::BackendChoice::cpu);
    EXPECT_TRUE(cpu.fallback_reason.empty());
    EXPECT_EQ(cpu.model->backend_name(), "CPU");

    EXPECT_THROW(
        earshot::runtime::make_decoder_model(checkpoint, earshot::backend::BackendChoice::cuda),
        CudaError);
    EXPECT_THROW(CudaWhisper{checkpoint}, CudaError);
}

TEST(CudaAvailability, BackendChoicesParseByName) {
    using earshot::backend::BackendChoice;
    EXPECT_EQ(earshot::backend::parse_backend_choice("auto"), BackendChoice::automatic);
    EXPECT_EQ(earshot::backend::parse_backend_choice("cpu"), BackendChoice::cpu);
    EXPECT_EQ(earshot::backend::parse_backend_choice("cuda"), BackendChoice::cuda);
    EXPECT_EQ(earshot::backend::parse_backend_choice("CUDA"), std::nullopt);
    EXPECT_EQ(earshot::backend::parse_backend_choice("gpu"), std::nullopt);
    EXPECT_EQ(earshot::backend::backend_choice_name(BackendChoice::automatic), "auto");
}

TEST(CudaAvailability, DeviceDescriptionNamesMemoryAndComputeCapability) {
    earshot::backend::CudaDevice device;
    device.name = "NVIDIA H200";
    device.total_memory_bytes = int64_t{150} * 1024 * 1024 * 1024 + int64_t{512} * 1024 * 1024;
    device.compute_major = 9;
    device.compute_minor = 0;
    EXPECT_EQ(earshot::backend::describe_cuda_device(device),
              "NVIDIA H200, 150.5 GiB, compute 9.0");
}

}  // namespace
