// Where a test binary finds the project's golden files: the path compiled in, unless the
// environment names another (a test binary carried to another machine, whose checkout lies
// elsewhere). The micro model's folder: micro_model.h.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace earshot::test {

inline std::filesystem::path path_from_env(const char* variable, const char* compiled_in) {
    const char* value = std::getenv(variable);
    return value != nullptr && *value != '\0' ? std::filesystem::path(value)
                                              : std::filesystem::path(compiled_in);
}

// tests/golden (EARSHOT_TEST_GOLDEN_DIR)
inline std::filesystem::path golden_dir() {
    return path_from_env("EARSHOT_TEST_GOLDEN_DIR", EARSHOT_TEST_GOLDEN_DIR);
}

}  // namespace earshot::test
