// Where tests find the embedded micro model: EARSHOT_MICRO_MODEL_DIR in the environment (to
// measure a candidate export before it replaces the committed one), else the source tree's
// resources/models/micro/model. Its recipe's held-out sentences stay in the source tree.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace earshot::test {

inline std::filesystem::path micro_model_dir() {
    if (const char* dir = std::getenv("EARSHOT_MICRO_MODEL_DIR"); dir != nullptr && *dir != 0) {
        return dir;
    }
    return EARSHOT_MICRO_MODEL_DIR;
}

inline std::filesystem::path micro_heldout_sentences() {
    return std::filesystem::path(EARSHOT_MICRO_MODEL_DIR).parent_path() / "heldout.txt";
}

}  // namespace earshot::test
