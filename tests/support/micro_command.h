// A test of `earshot transcribe` on the embedded micro model with speech espeak-ng says: the
// fixture checks both are there and runs the executable with the model into its own folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {

class MicroModelCommand : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(std::filesystem::exists(micro_model_dir() / "model.safetensors"))
            << micro_model_dir();
        ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
    }

    // `earshot transcribe FILES --model <micro> OPTIONS --output-dir <dir_>`.
    ProcessResult transcribe(const std::vector<std::filesystem::path>& files,
                             const std::string& options) {
        std::string command = "transcribe";
        for (const std::filesystem::path& file : files) command += " " + shell_quote(file.string());
        return run_earshot(command + " --model " + shell_quote(micro_model_dir().string()) + " " +
                           options + " --output-dir " + shell_quote(dir_.path().string()));
    }

    TempDir dir_{"earshot-micro-command"};
};

}  // namespace earshot::test
