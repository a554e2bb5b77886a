// Where a CUDA fault is reported, on the emulated device (which can fault and refuse captures on
// demand): with EARSHOT_CUDA_SYNC_EACH_STEP=1 an asynchronous fault names the plan step, its op
// and its scope, where without it surfaces at the entry's last synchronise; a failed graph capture
// is reported once with its reason and counted while the steps still run; any other exception
// during a capture ends the capture. A real GPU cannot fault on demand: these skip there.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace {

using namespace earshot::test::backend_data;
using earshot::backend::CudaError;
using earshot::backend::CudaErrorKind;
using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;
using earshot::test::emulator_graph_launches;

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
    ~ScopedEnv() { unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
};

class StepErrorsOnCudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        if (!emulator_graph_launches()) GTEST_SKIP() << "faults on demand: the emulated device";
        earshot::model::RandomCheckpointOptions& o = options_;
        o.mels = 80;
        o.d = 64;
        o.heads = 4;
        o.enc_layers = 2;
        o.dec_layers = 2;
        o.vocab = 512;
        o.frames = 200;
        o.max_tokens = 32;
        o.dtype = "f32";
        o.seed = 31;
        earshot::model::write_random_checkpoint(dir_.path(), o);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
        mel_ = test_mel(1, o.mels, o.frames, 0);
    }

    // The logits of a prefill of 3 tokens and `steps` steps after it, in order.
    std::vector<std::vector<float>> decode(CudaWhisper& gpu, int steps) {
        std::vector<std::vector<float>> logits;
        gpu.listen(mel_);
        const HostTensor first = gpu.prefill(HostTensor::i32({1, 3}, {1, 2, 3}));
        logits.emplace_back(first.f32_values().begin(), first.f32_values().end());
        for (int32_t pos = 3; pos < 3 + steps; ++pos) {
            const HostTensor next = gpu.step(HostTensor::i32({1, 1}, {5 + pos}), pos);
            logits.emplace_back(next.f32_values().begin(), next.f32_values().end());
        }
        return logits;
    }

    earshot::test::TempDir dir_{"earshot-cuda-step-errors"};
    earshot::model::RandomCheckpointOptions options_;
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    HostTensor mel_;
};

TEST_F(StepErrorsOnCudaDevice, SyncEachStepNamesTheFaultingStepItsOpAndScope) {
    std::string named;
    {
        const ScopedEnv sync("EARSHOT_CUDA_SYNC_EACH_STEP", "1");
        CudaWhisper gpu(*checkpoint_);
        const ScopedEnv fault("EARSHOT_CUDA_EMULATOR_FAULT_AT_LAUNCH", "12");
        try {
            gpu.encode(mel_);
            FAIL() << "the twelfth kernel faulted, and encode returned";
        } catch (const CudaError& error) {
            EXPECT_EQ(error.kind(), CudaErrorKind::runtime);
            named = error.what();
        }
    }
    std::printf("with EARSHOT_CUDA_SYNC_EACH_STEP=1: %s\n", named.c_str());
    // "<entry>, step 3 of 40 (conv1d in conv2): cudaStreamSynchronize(stream_) failed: ..."
    static const std::regex form(
        R"((\S+), step (\d+) of (\d+) \(([a-z_0-9]+) in ([^)]+)\): cudaStreamSynchronize.*)"
        R"(unspecified launch failure.*)");
    std::smatch match;
    ASSERT_TRUE(std::regex_match(named, match, form)) << named;
    EXPECT_LT(std::stoi(match[2]), std::stoi(match[3]));
    EXPECT_NE(match[4], "?");
    EXPECT_NE(match[5], "the entry") << "an encoder op has a scope";

    // Without it the same fault surfaces at the entry's last synchronise, naming no step.
    CudaWhisper gpu(*checkpoint_);
    const ScopedEnv fault("EARSHOT_CUDA_EMULATOR_FAULT_AT_LAUNCH", "012");
    try {
        gpu.encode(mel_);
        FAIL() << "the twelfth kernel faulted, and encode returned";
    } catch (const CudaError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("unspecified launch failure"), std::string::npos) << message;
        EXPECT_EQ(message.find(", step "), std::string::npos) << message;
    }
}

TEST_F(StepErrorsOnCudaDevice, AFailedCaptureIsReportedOnceCountedAndTheStepsStillRun) {
    CudaWhisper reference(*checkpoint_);
    const auto want = decode(reference, 5);
    EXPECT_EQ(reference.graph_capture_failures(), 0);

    const ScopedEnv refuse("EARSHOT_CUDA_EMULATOR_REFUSE_CAPTURE", "1");
    CudaWhisper gpu(*checkpoint_);
    const size_t launches_before = *emulator_graph_launches();
    testing::internal::CaptureStderr();
    const auto got = decode(gpu, 5);
    const std::string log = testing::internal::GetCapturedStderr();
    // The step plan's second run tried to capture, once: its plan then runs step by step.
    EXPECT_EQ(gpu.graph_capture_failures(), 1);
    EXPECT_EQ(*emulator_graph_launches(), launches_before);
    const std::string line = "CUDA graph capture failed";
    ASSERT_NE(log.find(line), std::string::npos) << log;
    EXPECT_EQ(log.find(line, log.find(line) + 1), std::string::npos) << "reported once: " << log;
    EXPECT_NE(log.find("cudaErrorStreamCaptureInvalidated"), std::string::npos) << log;
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(relative_error(got[i], want[i]), 0.0) << "call " << i;
    }
}

TEST_F(StepErrorsOnCudaDevice, AnyExceptionDuringACaptureEndsTheCapture) {
    CudaWhisper reference(*checkpoint_);
    const auto want = decode(reference, 3);

    CudaWhisper gpu(*checkpoint_);
    gpu.listen(mel_);
    gpu.prefill(HostTensor::i32({1, 3}, {1, 2, 3}));
    gpu.step(HostTensor::i32({1, 1}, {8}), 3);  // the step plan's first run: step by step
    {
        // The second run captures; the emulator throws a plain exception from the first launch.
        const ScopedEnv throws("EARSHOT_CUDA_EMULATOR_THROW_WHILE_CAPTURING", "1");
        EXPECT_THROW(gpu.step(HostTensor::i32({1, 1}, {9}), 4), std::runtime_error);
    }
    EXPECT_EQ(gpu.graph_capture_failures(), 0) << "only a CudaError counts as a failed capture";
    // The stream is not left capturing: the same step runs again, is captured and replayed, and
    // gives the logits of a model that never saw the exception.
    const size_t launches_before = *emulator_graph_launches();
    const HostTensor again = gpu.step(HostTensor::i32({1, 1}, {9}), 4);
    const HostTensor next = gpu.step(HostTensor::i32({1, 1}, {10}), 5);
    EXPECT_GT(*emulator_graph_launches(), launches_before);
    EXPECT_EQ(relative_error(again.f32_values(), want[2]), 0.0);
    EXPECT_EQ(relative_error(next.f32_values(), want[3]), 0.0);
}

}  // namespace
