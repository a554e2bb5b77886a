// Where a test binary finds the project's files: the paths compiled in, unless the environment
// names others (a test binary carried to another machine, whose checkout lies elsewhere).
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

// resources/models/micro/model (EARSHOT_MICRO_MODEL_DIR)
inline std::filesystem::path micro_model_dir() {
    return path_from_env("EARSHOT_MICRO_MODEL_DIR", EARSHOT_MICRO_MODEL_DIR);
}

}  // namespace earshot::test
