// Tests for read_generation_config: where generation_config.json is looked for, suppress_tokens
// read as given, and one-line errors for files that are not what they claim.
#include "earshot/engine/checkpoint/generation_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "temp_dir.h"

namespace earshot::checkpoint {
namespace {

namespace fs = std::filesystem;
using earshot::test::TempDir;

constexpr int64_t kVocab = 51864;

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

std::string error_of(const fs::path& path) {
    try {
        read_generation_config(path, kVocab);
    } catch (const CheckpointError& error) {
        return error.what();
    }
    ADD_FAILURE() << "expected a CheckpointError for " << path;
    return {};
}

TEST(GenerationConfig, ReadsSuppressTokensFromADirectoryInTheirOrder) {
    const TempDir dir;
    write_text(dir.path() / "generation_config.json",
               R"({"eos_token_id": 50256, "suppress_tokens": [50363, 1, 51863, 220]})");
    const GenerationConfig config = read_generation_config(dir.path(), kVocab);
    EXPECT_EQ(config.file, dir.path() / "generation_config.json");
    ASSERT_TRUE(config.suppress_tokens.has_value());
    EXPECT_EQ(*config.suppress_tokens, (std::vector<int32_t>{50363, 1, 51863, 220}));
}

TEST(GenerationConfig, FoundBesideASafetensorsFileOrAConfigJson) {
    const TempDir dir;
    write_text(dir.path() / "generation_config.json", R"({"suppress_tokens": [7]})");
    for (const char* name : {"model.safetensors", "config.json"}) {
        const GenerationConfig config = read_generation_config(dir.path() / name, kVocab);
        ASSERT_TRUE(config.suppress_tokens.has_value()) << name;
        EXPECT_EQ(*config.suppress_tokens, std::vector<int32_t>{7}) << name;
    }
}

TEST(GenerationConfig, AbsentFileNullListOrGgmlGiveNoList) {
    const TempDir dir;
    const GenerationConfig none = read_generation_config(dir.path(), kVocab);
    EXPECT_TRUE(none.file.empty());
    EXPECT_FALSE(none.suppress_tokens.has_value());

    write_text(dir.path() / "generation_config.json", R"({"suppress_tokens": null})");
    const GenerationConfig null_list = read_generation_config(dir.path(), kVocab);
    EXPECT_FALSE(null_list.file.empty());
    EXPECT_FALSE(null_list.suppress_tokens.has_value());

    write_text(dir.path() / "generation_config.json", R"({"max_length": 448})");
    EXPECT_FALSE(read_generation_config(dir.path(), kVocab).suppress_tokens.has_value());

    // A ggml file has no generation_config.json, even with one lying beside it.
    write_text(dir.path() / "ggml-tiny.bin", "lmgg");
    EXPECT_TRUE(read_generation_config(dir.path() / "ggml-tiny.bin", kVocab).file.empty());
}

TEST(GenerationConfig, EmptyListIsKept) {
    const TempDir dir;
    write_text(dir.path() / "generation_config.json", R"({"suppress_tokens": []})");
    const GenerationConfig config = read_generation_config(dir.path(), kVocab);
    ASSERT_TRUE(config.suppress_tokens.has_value());
    EXPECT_TRUE(config.suppress_tokens->empty());
}

// Hugging Face's condition_on_prev_tokens: the long-form prompt setting a checkpoint carries (the
// micro model sets it to false); absent or null leaves the caller's default.
TEST(GenerationConfig, ReadsConditionOnPrevTokens) {
    const TempDir dir;
    write_text(dir.path() / "generation_config.json", R"({"condition_on_prev_tokens": false})");
    EXPECT_EQ(read_generation_config(dir.path(), kVocab).condition_on_prev_tokens, false);
    write_text(dir.path() / "generation_config.json", R"({"condition_on_prev_tokens": true})");
    EXPECT_EQ(read_generation_config(dir.path(), kVocab).condition_on_prev_tokens, true);
    write_text(dir.path() / "generation_config.json", R"({"condition_on_prev_tokens": null})");
    EXPECT_FALSE(read_generation_config(dir.path(), kVocab).condition_on_prev_tokens.has_value());
    write_text(dir.path() / "generation_config.json", R"({"condition_on_prev_tokens": 0})");
    EXPECT_NE(error_of(dir.path()).find("condition_on_prev_tokens"), std::string::npos);
    EXPECT_EQ(read_generation_config(EARSHOT_MICRO_MODEL_DIR, kVocab).condition_on_prev_tokens,
              false);
}

TEST(GenerationConfig, BadFilesAreOneLineErrorsNamingTheProblem) {
    const TempDir dir;
    const fs::path file = dir.path() / "generation_config.json";
    struct Case {
        const char* json;
        const char* expected;
    };
    const std::vector<Case> cases = {
        {R"({"suppress_tokens": [1, 2)", "malformed JSON"},
        {R"([1, 2])", "the top level is not an object"},
        {R"({"suppress_tokens": "-1"})", "field \"suppress_tokens\" is not a list"},
        {R"({"suppress_tokens": [1, -1]})",
         "suppress_tokens[1] = -1 is not a token id in [0, 51864)"},
        {R"({"suppress_tokens": [51864]})", "suppress_tokens[0] = 51864 is not a token id"},
        {R"({"suppress_tokens": [3, 2.5]})", "suppress_tokens[1] = 2.5 is not a token id"},
        {R"({"suppress_tokens": [3, "4"]})", "suppress_tokens[1] = \"4\" is not a token id"},
    };
    for (const Case& c : cases) {
        write_text(file, c.json);
        const std::string what = error_of(dir.path());
        EXPECT_NE(what.find(c.expected), std::string::npos) << c.json << " -> " << what;
        EXPECT_NE(what.find("generation_config.json"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace earshot::checkpoint
