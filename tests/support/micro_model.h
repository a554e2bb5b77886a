// Where tests find the embedded micro model: EARSHOT_MICRO_MODEL_DIR in the environment (to
// measure a candidate export before it replaces the committed one), else the source tree's
// resources/models/micro/model. Its recipe's held-out sentences stay in the source tree.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "plain_words.h"

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

// The first `count` held-out sentences (non-empty lines), each as its plain_words.
inline std::vector<std::vector<std::string>> micro_heldout_words(size_t count) {
    std::ifstream in(micro_heldout_sentences());
    std::vector<std::vector<std::string>> sentences;
    for (std::string line; sentences.size() < count && std::getline(in, line);) {
        if (!line.empty()) sentences.push_back(plain_words(line));
    }
    return sentences;
}

}  // namespace earshot::test
