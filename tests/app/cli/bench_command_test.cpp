// `earshot bench` through the real executable, on the micro model quantized to q8_0 by `earshot
// models quantize`: it names the model's blocks, reports the memory against the file, the load
// time, the encoder, steps at the positions the model has and a beam-5 step, each with a positive
// time; a bad thread count is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// The number after `label` in `text` (-1 when absent).
double number_after(const std::string& text, const std::string& label) {
    const auto at = text.find(label);
    if (at == std::string::npos) return -1.0;
    return std::stod(text.substr(at + label.size()));
}

TEST(BenchCommand, ReportsMemoryEncoderStepsAndBeamOnAQuantizedModel) {
    const TempDir dir("earshot-bench-command");
    const fs::path q8 = dir.path() / "micro-q8_0.bin";
    const ProcessResult quantized =
        run_earshot("models quantize " + shell_quote(micro_model_dir().string()) + " " +
                    shell_quote(q8.string()) + " --type q8_0");
    ASSERT_EQ(quantized.exit_code, 0) << quantized.err;

    const ProcessResult result =
        run_earshot("bench --model " + shell_quote(q8.string()) + " --threads 2 --backend cpu");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string& out = result.out;
    EXPECT_NE(out.find("(ggml ftype 2007 (mostly q8_0, kept in its blocks))"), std::string::npos)
        << out;
    EXPECT_NE(out.find("backend: CPU, threads: 2, block kernels: "), std::string::npos) << out;
    const double file_mib = number_after(out, "memory: file ");
    EXPECT_NEAR(file_mib, double(fs::file_size(q8)) / (1024.0 * 1024.0), 0.06) << out;
    EXPECT_GT(number_after(out, "resident after loading "), 0.0) << out;
    EXPECT_GT(number_after(out, "load: "), 0.0) << out;
    EXPECT_GT(number_after(out, "encoder: "), 0.0) << out;
    EXPECT_GT(number_after(out, "step at position 8: "), 0.0) << out;
    EXPECT_GT(number_after(out, "beam-5 step at position "), 0.0) << out;
    // A step reads the decoder's matrices as stored: fewer bytes than the whole file.
    const double read_mib = number_after(out, "ms, reads ");
    EXPECT_GT(read_mib, 0.0) << out;
    EXPECT_LT(read_mib, file_mib) << out;
}

// EARSHOT_CPU_ISA=reference runs the portable block kernels on any CPU, and the bench says so;
// a name the engine does not know is one line and exit 2.
TEST(BenchCommand, SaysWhichBlockKernelsRan) {
    const TempDir dir("earshot-bench-kernels");
    const fs::path q8 = dir.path() / "micro-q8_0.bin";
    ASSERT_EQ(run_earshot("models quantize " + shell_quote(micro_model_dir().string()) + " " +
                          shell_quote(q8.string()) + " --type q8_0")
                  .exit_code,
              0);
    const std::string bench = shell_quote(EARSHOT_EXE) + " bench --model " +
                              shell_quote(q8.string()) + " --threads 1 --backend cpu";
    const ProcessResult reference = run_shell("EARSHOT_CPU_ISA=reference " + bench);
    ASSERT_EQ(reference.exit_code, 0) << reference.err;
    EXPECT_NE(reference.out.find("backend: CPU, threads: 1, block kernels: reference\n"),
              std::string::npos)
        << reference.out;
    const ProcessResult unknown = run_shell("EARSHOT_CPU_ISA=avx3 " + bench);
    EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
    EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1) << unknown.err;
    EXPECT_NE(unknown.err.find("EARSHOT_CPU_ISA=avx3"), std::string::npos) << unknown.err;
}

TEST(BenchCommand, ANegativeThreadCountIsOneLineAndExit2) {
    const ProcessResult result = run_earshot("bench --threads -1");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find("earshot bench: --threads must be at least 1"), std::string::npos)
        << result.err;
}

}  // namespace
}  // namespace earshot::test
