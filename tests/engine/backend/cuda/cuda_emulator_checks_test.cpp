// The CUDA emulator's own checks against deliberately broken kernels (tests/cuda_emulator/
// emulator_probes.cpp): memory nobody wrote reads as NaN, misaligned 16-byte and wmma accesses
// and shared memory over the limit fail the launch naming the kernel, and blocks that depend on
// each other's writes are found by running the grid again in reverse order. Each broken kernel
// has a correct twin that passes. Built where the emulated module is
// (EARSHOT_CUDA_EMULATED_MODULE).
#ifdef EARSHOT_CUDA_EMULATED_MODULE
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Error codes of the CUDA runtime (driver_types.h) that the emulator returns.
constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorInvalidValue = 1;
constexpr int kCudaErrorMisalignedAddress = 716;
constexpr int kCudaErrorUnknown = 999;

struct ProbeResult {
    int error = -1;
    std::vector<float> values;
    std::string stderr_text;  // what the emulator reported
};

using Probe = int (*)(const char*, float*, int64_t);

Probe load_probe() {
    void* module = dlopen(EARSHOT_CUDA_EMULATED_MODULE, RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) return nullptr;
    return reinterpret_cast<Probe>(dlsym(module, "earshot_cuda_emulator_probe"));
}

ProbeResult run_probe(const char* name) {
    static const Probe probe = load_probe();
    ProbeResult result;
    if (probe == nullptr) {
        ADD_FAILURE() << "the emulated module " << EARSHOT_CUDA_EMULATED_MODULE
                      << " cannot be loaded or lacks earshot_cuda_emulator_probe";
        return result;
    }
    result.values.assign(64, 0.0F);
    testing::internal::CaptureStderr();
    result.error = probe(name, result.values.data(), static_cast<int64_t>(result.values.size()));
    result.stderr_text = testing::internal::GetCapturedStderr();
    return result;
}

TEST(EmulatorChecks, AReadOfDeviceMemoryNobodyWroteIsNan) {
    const ProbeResult broken = run_probe("unwritten_read");
    EXPECT_EQ(broken.error, kCudaSuccess);
    EXPECT_TRUE(std::isnan(broken.values[0])) << broken.values[0];
    const ProbeResult correct = run_probe("written_read");
    EXPECT_EQ(correct.error, kCudaSuccess);
    EXPECT_EQ(correct.values[0], 8.0F);
}

TEST(EmulatorChecks, AMisalignedSixteenByteLoadOrStoreFailsTheLaunchNamingTheKernel) {
    for (const char* name : {"misaligned_vector_load", "misaligned_vector_store"}) {
        const ProbeResult broken = run_probe(name);
        EXPECT_EQ(broken.error, kCudaErrorMisalignedAddress) << name;
        EXPECT_NE(broken.stderr_text.find("misaligned 16-byte vector"), std::string::npos)
            << broken.stderr_text;
        EXPECT_NE(broken.stderr_text.find("in copy_vector_kernel (block 0, thread 0)"),
                  std::string::npos)
            << broken.stderr_text;
    }
    const ProbeResult correct = run_probe("aligned_vector_copy");
    EXPECT_EQ(correct.error, kCudaSuccess);
    EXPECT_EQ(correct.stderr_text, "");
}

TEST(EmulatorChecks, AWmmaLoadThatIsNot32ByteAlignedFailsTheLaunch) {
    const ProbeResult broken = run_probe("misaligned_wmma_load");
    EXPECT_EQ(broken.error, kCudaErrorMisalignedAddress);
    EXPECT_NE(broken.stderr_text.find("wmma fragment access"), std::string::npos)
        << broken.stderr_text;
    EXPECT_NE(broken.stderr_text.find("wmma_offset_kernel"), std::string::npos);
    const ProbeResult correct = run_probe("aligned_wmma_load");
    EXPECT_EQ(correct.error, kCudaSuccess) << correct.stderr_text;
    EXPECT_EQ(correct.values[0], 16.0F);  // a row of 16 ones times a column of 16 ones
}

TEST(EmulatorChecks, SharedMemoryOver48KibFailsUnlessTheKernelOptedIn) {
    const ProbeResult static_and_dynamic = run_probe("shared_over_limit");  // 32 + 20 KiB
    EXPECT_EQ(static_and_dynamic.error, kCudaErrorInvalidValue);
    EXPECT_NE(static_and_dynamic.stderr_text.find("static_shared_kernel"), std::string::npos)
        << static_and_dynamic.stderr_text;
    const ProbeResult dynamic_only = run_probe("dynamic_shared_over_limit");  // 49 KiB
    EXPECT_EQ(dynamic_only.error, kCudaErrorInvalidValue);
    EXPECT_NE(dynamic_only.stderr_text.find("50176 bytes of dynamic shared memory"),
              std::string::npos)
        << dynamic_only.stderr_text;
    const ProbeResult opted_in = run_probe("shared_over_limit_opted_in");
    EXPECT_EQ(opted_in.error, kCudaSuccess) << opted_in.stderr_text;
    EXPECT_EQ(opted_in.values[0], 3.0F);
}

// EARSHOT_CUDA_EMULATOR_CHECK_BLOCK_ORDER=`mode` for one test, then as it was.
class ScopedBlockOrderCheck {
public:
    explicit ScopedBlockOrderCheck(const char* mode = "1") {
        const char* value = std::getenv(kName);
        if (value != nullptr) before_ = value;
        setenv(kName, mode, 1);
    }
    ~ScopedBlockOrderCheck() {
        if (before_.empty()) {
            unsetenv(kName);
        } else {
            setenv(kName, before_.c_str(), 1);
        }
    }
    ScopedBlockOrderCheck(const ScopedBlockOrderCheck&) = delete;
    ScopedBlockOrderCheck& operator=(const ScopedBlockOrderCheck&) = delete;

private:
    static constexpr const char* kName = "EARSHOT_CUDA_EMULATOR_CHECK_BLOCK_ORDER";
    std::string before_;
};

// cuda_pipeline.h: an asynchronous copy lands when the thread waits for it (a kernel that reads
// its tile without waiting reads shared memory's NaN bytes), and both addresses must be 16-byte
// aligned.
TEST(EmulatorChecks, AnAsynchronousCopyLandsOnlyWhenWaitedForAndMustBeAligned) {
    const ProbeResult waited = run_probe("async_copy_waited");
    EXPECT_EQ(waited.error, kCudaSuccess) << waited.stderr_text;
    EXPECT_EQ(waited.values[0], 5.0F);
    EXPECT_EQ(waited.values[3], 8.0F);
    const ProbeResult not_waited = run_probe("async_copy_not_waited");
    EXPECT_EQ(not_waited.error, kCudaSuccess);
    EXPECT_TRUE(std::isnan(not_waited.values[0])) << not_waited.values[0];
    const ProbeResult misaligned = run_probe("misaligned_async_copy");
    EXPECT_EQ(misaligned.error, kCudaErrorMisalignedAddress);
    EXPECT_NE(misaligned.stderr_text.find("asynchronous copy (global side)"), std::string::npos)
        << misaligned.stderr_text;
}

TEST(EmulatorChecks, BlocksThatReadEachOthersWritesAreARace) {
    const ScopedBlockOrderCheck check;
    const ProbeResult broken = run_probe("racing_blocks");
    EXPECT_EQ(broken.error, kCudaErrorUnknown);
    EXPECT_NE(broken.stderr_text.find("a race between blocks"), std::string::npos)
        << broken.stderr_text;
    EXPECT_NE(broken.stderr_text.find("chain_kernel"), std::string::npos);
    const ProbeResult correct = run_probe("independent_blocks");
    EXPECT_EQ(correct.error, kCudaSuccess) << correct.stderr_text;
    EXPECT_EQ(correct.values[63], 64.0F);
}

// =sampled (as the whole-model ctest entry runs): the first 4 launches of a kernel at a shape
// and then every 64th run twice, so 200 launches of a racing grid report the race 7 times
// (launches 0-3, 64, 128, 192); =1 reports it on every launch.
TEST(EmulatorChecks, TheSampledBlockOrderCheckTakesTheFirstLaunchesOfAShapeThenOneIn64) {
    {
        const ScopedBlockOrderCheck sampled("sampled");
        const ProbeResult result = run_probe("racing_blocks_200_launches");
        EXPECT_EQ(result.error, kCudaSuccess);
        EXPECT_EQ(result.values[0], 7.0F) << result.stderr_text.substr(0, 400);
    }
    const ScopedBlockOrderCheck every("1");
    const ProbeResult result = run_probe("racing_blocks_200_launches");
    EXPECT_EQ(result.values[0], 200.0F);
}

// A kernel launched dependent (programmatic dependent launch) must wait in every block before it
// touches what the kernel before it writes: the emulator holds that kernel's writes back (NaN)
// until the first wait, and reports a block that never waits or a write before the wait. The same
// in a captured graph, replayed.
TEST(EmulatorChecks, ADependentLaunchMustWaitForTheKernelBeforeIt) {
    const ProbeResult correct = run_probe("dependent_waits");
    EXPECT_EQ(correct.error, kCudaSuccess) << correct.stderr_text;
    EXPECT_EQ(correct.values[0], 1.0F);
    EXPECT_EQ(correct.values[63], 1024.0F);  // x [1023] = 1 + 1023
    const ProbeResult never = run_probe("dependent_never_waits");
    EXPECT_EQ(never.error, kCudaErrorUnknown);
    EXPECT_NE(never.stderr_text.find("block 0 never called cudaGridDependencySynchronize()"),
              std::string::npos)
        << never.stderr_text;
    EXPECT_NE(never.stderr_text.find("copy_after_kernel"), std::string::npos);
    EXPECT_NE(never.stderr_text.find("fill_kernel"), std::string::npos);
    {
        // In block order: run again in reverse, block 0 would read after block 3's wait.
        const ScopedBlockOrderCheck in_order("0");
        const ProbeResult early_read = run_probe("dependent_reads_before_waiting");
        EXPECT_TRUE(std::isnan(early_read.values[0])) << early_read.values[0];
        EXPECT_EQ(early_read.values[1], 2.0F);  // read by a later thread, after the wait
    }
    const ProbeResult early_write = run_probe("dependent_writes_before_waiting");
    EXPECT_EQ(early_write.error, kCudaErrorUnknown);
    EXPECT_NE(early_write.stderr_text.find("a write, before cudaGridDependencySynchronize()"),
              std::string::npos)
        << early_write.stderr_text;
    const ProbeResult graph = run_probe("dependent_waits_in_graph");
    EXPECT_EQ(graph.error, kCudaSuccess) << graph.stderr_text;
    EXPECT_EQ(graph.values[63], 1024.0F);
    const ProbeResult graph_never = run_probe("dependent_never_waits_in_graph");
    EXPECT_EQ(graph_never.error, kCudaErrorUnknown);
    EXPECT_NE(graph_never.stderr_text.find("never called cudaGridDependencySynchronize()"),
              std::string::npos)
        << graph_never.stderr_text;
}

// Before its wait a dependent launch may load weights (what no kernel writes during a run: the
// GEMVs load their first tile so) and reads them as they are; what the kernel before it writes
// reads as NaN until the wait, so a prefetch that loads an activation spoils the result.
TEST(EmulatorChecks, ADependentLaunchLoadsWeightsButNotActivationsBeforeItsWait) {
    const ProbeResult weights = run_probe("dependent_loads_weights_before_waiting");
    EXPECT_EQ(weights.error, kCudaSuccess) << weights.stderr_text;
    EXPECT_EQ(weights.values[0], 3.0F);      // x [0] = 1, w [0] = 2
    EXPECT_EQ(weights.values[63], 1026.0F);  // x [1023] = 1024, w = 2
    const ScopedBlockOrderCheck in_order("0");
    const ProbeResult activations = run_probe("dependent_loads_activations_before_waiting");
    EXPECT_TRUE(std::isnan(activations.values[0])) << activations.values[0];
}

}  // namespace
#endif
