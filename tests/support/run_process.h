// Running a shell command from a test and capturing its exit code, stdout and stderr; used to
// drive the real earshot executable (EARSHOT_EXE) the way a user's shell does.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace earshot::test {

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Everything left in `file` (stdio rather than iostreams: GCC 12 reports a false
// -Wnull-dereference inside istreambuf_iterator).
inline std::string read_all(FILE* file) {
    std::string text;
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), file)) > 0) {
        text.append(buffer.data(), n);
    }
    return text;
}

// `text` in single quotes for /bin/sh.
inline std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'') {
            quoted += "'\\''";
        } else {
            quoted += c;
        }
    }
    return quoted + "'";
}

// Runs `command` with /bin/sh, capturing stdout and stderr (stderr through a temporary file named
// after the process and the current test).
inline ProcessResult run_shell(const std::string& command) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::filesystem::path err_path =
        std::filesystem::temp_directory_path() /
        ("earshot_cli_test_" + std::to_string(::getpid()) + "_" +
         (info != nullptr ? std::string(info->name()) : std::string("none")) + ".err");
    const std::string full = "( " + command + " ) 2>" + shell_quote(err_path.string());
    ProcessResult result;
    FILE* pipe = popen(full.c_str(), "r");
    if (pipe == nullptr) {
        return result;
    }
    result.out = read_all(pipe);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (FILE* err_file = std::fopen(err_path.c_str(), "r")) {
        result.err = read_all(err_file);
        std::fclose(err_file);
    }
    std::filesystem::remove(err_path);
    return result;
}

// Runs the earshot executable with `args` (already shell-quoted).
inline ProcessResult run_earshot(const std::string& args) {
    return run_shell(shell_quote(EARSHOT_EXE) + " " + args);
}

}  // namespace earshot::test
