// The plan listing against the CUDA module itself: on the emulated device, which counts every
// kernel it runs, each entry of the micro model launches exactly the kernels `earshot debug plan
// --backend cuda` lists (so the listing cannot drift from the module's launch choices). On a GPU
// (no counter) the test checks only that the entries run.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/plan_listing.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "micro_model.h"

namespace {

using earshot::backend::CudaWhisper;
using earshot::backend::HostTensor;

// Kernels the emulated device has run (grids, cuBLAS calls, device copies); nullopt on a GPU.
std::optional<size_t> emulator_kernel_runs() {
    const char* module = std::getenv("EARSHOT_CUDA_MODULE");
    if (module == nullptr) return std::nullopt;
    void* handle = dlopen(module, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return std::nullopt;
    using Count = size_t (*)();
    auto count = reinterpret_cast<Count>(dlsym(handle, "earshot_cuda_emulator_kernel_runs"));
    dlclose(handle);
    if (count == nullptr) return std::nullopt;
    return count();
}

size_t listed_kernels(const earshot::model::WhisperBinding& binding, const std::string& entry,
                      int64_t rows, int64_t tokens = 4) {
    earshot::backend::PlanListingRequest request;
    request.entry = entry;
    request.backend = earshot::backend::PlanBackend::cuda;
    request.rows = rows;
    request.tokens = tokens;
    return earshot::backend::list_plan(binding, request).kernels.size();
}

// The kernels `run` launches, or nullopt without the emulator's counter.
template <typename Run>
std::optional<size_t> kernels_run_by(Run run) {
    const std::optional<size_t> before = emulator_kernel_runs();
    run();
    const std::optional<size_t> after = emulator_kernel_runs();
    if (!before || !after) return std::nullopt;
    return *after - *before;
}

TEST(PlanListingOnCudaDevice, EveryEntryLaunchesTheListedKernels) {
    EARSHOT_CUDA_TEST_GATE(earshot::test::cuda_test_gate());
    const auto checkpoint =
        earshot::model::load_whisper_checkpoint(earshot::test::micro_model_dir());
    // One row: every entry. Nine rows: prefill and step, whose linears then take cuBLAS instead
    // of the GEMV (cuda_launch_rules.h), the other path.
    for (const int64_t rows : {int64_t{1}, int64_t{9}}) {
        CudaWhisper gpu(checkpoint, rows);
        const auto& binding = gpu.binding();
        const auto& dims = binding.values.dims;
        const HostTensor mel = HostTensor::f32({rows, dims.at("Mels"), dims.at("Frames")});
        // Each plan's first run goes step by step (no graph), every launch on its own.
        std::optional<size_t> launched;
        if (rows == 1) {
            launched = kernels_run_by([&] { gpu.listen_on_device(mel); });
            if (!launched) GTEST_SKIP() << "no emulated device counting kernels";
            EXPECT_EQ(*launched, listed_kernels(binding, "listen", rows));
            launched = kernels_run_by([&] { gpu.encode(mel); });
            EXPECT_EQ(launched, listed_kernels(binding, "encode", rows));
        }
        launched = kernels_run_by([&] { gpu.prefill(HostTensor::i32({rows, 4}, 50)); });
        if (!launched) GTEST_SKIP() << "no emulated device counting kernels";
        EXPECT_GT(*launched, 0u);
        EXPECT_EQ(*launched, listed_kernels(binding, "prefill", rows)) << rows << " rows";
        launched = kernels_run_by([&] { gpu.step(HostTensor::i32({rows, 1}, 50), 4); });
        EXPECT_EQ(launched, listed_kernels(binding, "step", rows)) << rows << " rows";
        std::printf("%lld rows: step %zu kernels, prefill %zu\n", static_cast<long long>(rows),
                    listed_kernels(binding, "step", rows),
                    listed_kernels(binding, "prefill", rows));
    }
}

// A beam's step reads one copy of the cross caches (the module shares it between the rows) and
// a copy per row of the self-attention caches; the listing counts the bytes so. Runs anywhere.
TEST(PlanListing, BeamStepReadsOneCopyOfTheCrossCaches) {
    const auto checkpoint =
        earshot::model::load_whisper_checkpoint(earshot::test::micro_model_dir());
    earshot::backend::PlanListingRequest request;
    request.entry = "step";
    request.backend = earshot::backend::PlanBackend::cuda;
    request.rows = 5;
    const auto listing = earshot::backend::list_plan(checkpoint.binding, request);
    int cross = 0;
    int self = 0;
    for (const auto& kernel : listing.kernels) {
        if (kernel.op != "attention") continue;
        ASSERT_GE(kernel.inputs.size(), 3u) << kernel.scope;
        const bool is_cross = kernel.scope.find("encoder_attn") != std::string::npos;
        // keys and values [rows read, H, K, Dh]
        EXPECT_EQ(kernel.inputs[1].shape.at(0), is_cross ? 1 : 5) << kernel.scope;
        EXPECT_EQ(kernel.inputs[2].shape.at(0), is_cross ? 1 : 5) << kernel.scope;
        (is_cross ? cross : self) += 1;
    }
    const auto layers = checkpoint.binding.values.dims.at("DecoderLayers");
    EXPECT_EQ(cross, layers);
    EXPECT_EQ(self, layers);
}

}  // namespace
