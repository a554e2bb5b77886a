// The custom vocabulary: its file, and what the one transcription setup gives the decoder (the
// micro model's vocabulary: every one of its words is one token as " word").
#include "core/transcription/vocabulary_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "micro_model.h"

namespace earshot::app {
namespace {

std::string parse_error(const std::string& text) {
    try {
        parse_vocabulary(text, "words.txt");
    } catch (const VocabularyFileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(VocabularyList, OneEntryALineTrimmedWithoutRepeats) {
    EXPECT_EQ(parse_vocabulary("# numbers\n nine\r\n\neight  \nnine\nFort Worth\n", "w"),
              (std::vector<std::string>{"nine", "eight", "Fort Worth"}));
    EXPECT_EQ(parse_error("# only a comment\n\n"), "words.txt: no words in the file");
    EXPECT_EQ(std::string([] {
                  try {
                      load_vocabulary("/nonexistent/words.txt");
                  } catch (const VocabularyFileError& e) {
                      return std::string(e.what());
                  }
                  return std::string();
              }()),
              "/nonexistent/words.txt: cannot be read");
}

TEST(VocabularyList, TheSetupGivesThePromptOrTheBiasTokens) {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(test::micro_model_dir());
    TranscriptionChoice choice;
    choice.language = "en";
    choice.vocabulary = {"nine", "eight"};
    choice.vocabulary_use = VocabularyUse::prompt;
    decoding::DecodingOptions options = decoding_options(choice, tok);
    EXPECT_EQ(options.vocabulary_tokens, tok.encode(" nine, eight"));
    EXPECT_EQ(tok.decode_text(options.vocabulary_tokens), " nine, eight");
    EXPECT_TRUE(options.vocabulary_first_tokens.empty());
    EXPECT_EQ(options.vocabulary_logit_bias, 0.0);

    std::vector<int32_t> first{tok.encode(" nine").front(), tok.encode(" eight").front()};
    std::sort(first.begin(), first.end());
    choice.vocabulary_use = VocabularyUse::prompt_and_bias;
    options = decoding_options(choice, tok);
    EXPECT_EQ(options.vocabulary_tokens, tok.encode(" nine, eight"));
    EXPECT_EQ(options.vocabulary_first_tokens, first);
    EXPECT_DOUBLE_EQ(options.vocabulary_logit_bias, TranscriptionChoice::kVocabularyLogitBias);

    choice.vocabulary_use = VocabularyUse::bias;
    options = decoding_options(choice, tok);
    EXPECT_TRUE(options.vocabulary_tokens.empty());
    EXPECT_EQ(options.vocabulary_first_tokens, first);

    // More than the prompt holds is refused, with the count.
    choice.vocabulary.clear();
    for (int i = 0; i < 120; ++i) choice.vocabulary.push_back("nine" + std::to_string(i));
    try {
        decoding_options(choice, tok);
        FAIL() << "no error";
    } catch (const TranscriptionSetupError& e) {
        EXPECT_NE(std::string(e.what()).find("the decoder's prompt holds 223"), std::string::npos)
            << e.what();
    }
}

// auto: the micro model says it was trained without previous-text prompts, so files and
// dictation both get the bias, not the prompt.
TEST(VocabularyList, AutomaticGivesTheMicroModelTheBias) {
    const auto loaded = load_model(test::micro_model_dir());
    ASSERT_EQ(loaded->generation.condition_on_prev_tokens, std::optional<bool>(false));
    TranscriptionChoice choice;
    choice.language = "en";
    choice.vocabulary = {"five"};
    const decoding::TranscribeOptions files = file_transcription_options(choice, *loaded);
    EXPECT_TRUE(files.decoding.vocabulary_tokens.empty());
    EXPECT_EQ(files.decoding.vocabulary_first_tokens,
              std::vector<int32_t>{loaded->tokenizer.encode(" five").front()});
    EXPECT_DOUBLE_EQ(files.decoding.vocabulary_logit_bias, 2.0);
    const decoding::StreamingOptions live = dictation_options(choice, *loaded, {});
    EXPECT_TRUE(live.decoding.vocabulary_tokens.empty());
    EXPECT_EQ(live.decoding.vocabulary_first_tokens, files.decoding.vocabulary_first_tokens);
}

}  // namespace
}  // namespace earshot::app
