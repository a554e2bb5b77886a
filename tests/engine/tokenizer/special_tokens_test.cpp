// Special-token layouts from the vocabulary size: every row of the three known layouts, the
// formula beyond them, names and ids both ways, and the language code list.
#include "earshot/engine/tokenizer/special_tokens.h"

#include <gtest/gtest.h>

#include <string>

#include "earshot/engine/tokenizer/tokenizer_error.h"

namespace earshot::tokenizer {
namespace {

struct LayoutRow {
    int64_t n_vocab;
    int32_t eot, sot, first_language, last_language, num_languages, translate, transcribe,
        startoflm, startofprev, nospeech, notimestamps, timestamp_begin, last_timestamp;
};

// whisper-inference.md §4.2: English-only, multilingual v1/v2, large-v3.
constexpr LayoutRow kRows[] = {
    {51864, 50256, 50257, 50258, 50356, 99, 50357, 50358, 50359, 50360, 50361, 50362, 50363, 51863},
    {51865, 50257, 50258, 50259, 50357, 99, 50358, 50359, 50360, 50361, 50362, 50363, 50364, 51864},
    {51866, 50257, 50258, 50259, 50358, 100, 50359, 50360, 50361, 50362, 50363, 50364, 50365,
     51865},
};

TEST(TokenizerSpecialTokens, EveryRowOfTheThreeLayouts) {
    for (const LayoutRow& row : kRows) {
        SCOPED_TRACE(row.n_vocab);
        const SpecialTokens s = special_tokens(row.n_vocab);
        EXPECT_EQ(s.eot, row.eot);
        EXPECT_EQ(s.sot, row.sot);
        EXPECT_EQ(s.first_language, row.first_language);
        EXPECT_EQ(s.first_language + s.num_languages - 1, row.last_language);
        EXPECT_EQ(s.num_languages, row.num_languages);
        EXPECT_EQ(s.translate, row.translate);
        EXPECT_EQ(s.transcribe, row.transcribe);
        EXPECT_EQ(s.startoflm, row.startoflm);
        EXPECT_EQ(s.startofprev, row.startofprev);
        EXPECT_EQ(s.nospeech, row.nospeech);
        EXPECT_EQ(s.notimestamps, row.notimestamps);
        EXPECT_EQ(s.timestamp_begin, row.timestamp_begin);
        EXPECT_EQ(s.last_timestamp, row.last_timestamp);
        EXPECT_EQ(s.last_timestamp, row.n_vocab - 1);
    }
}

TEST(TokenizerSpecialTokens, NamesOfEachLayout) {
    const SpecialTokens en = special_tokens(51864);
    EXPECT_EQ(special_token_name(en, 50256), "<|endoftext|>");
    EXPECT_EQ(special_token_name(en, 50257), "<|startoftranscript|>");
    EXPECT_EQ(special_token_name(en, 50258), "<|en|>");
    EXPECT_EQ(special_token_name(en, 50356), "<|su|>");
    EXPECT_EQ(special_token_name(en, 50362), "<|notimestamps|>");
    EXPECT_EQ(special_token_name(en, 50363), "<|0.00|>");
    EXPECT_EQ(special_token_name(en, 51863), "<|30.00|>");
    EXPECT_EQ(special_token_name(en, 50255), "");
    EXPECT_EQ(special_token_name(en, 51864), "");

    const SpecialTokens v2 = special_tokens(51865);
    EXPECT_EQ(special_token_name(v2, 50257), "<|endoftext|>");
    EXPECT_EQ(special_token_name(v2, 50279), "<|he|>");
    EXPECT_EQ(special_token_name(v2, 50357), "<|su|>");
    EXPECT_EQ(special_token_name(v2, 50358), "<|translate|>");
    EXPECT_EQ(special_token_name(v2, 50359), "<|transcribe|>");
    EXPECT_EQ(special_token_name(v2, 50360), "<|startoflm|>");
    EXPECT_EQ(special_token_name(v2, 50361), "<|startofprev|>");
    EXPECT_EQ(special_token_name(v2, 50362), "<|nospeech|>");
    EXPECT_EQ(special_token_name(v2, 50364 + 75), "<|1.50|>");
    EXPECT_EQ(special_token_name(v2, 50364 + 1), "<|0.02|>");
    EXPECT_EQ(special_token_name(v2, 50364 + 500), "<|10.00|>");

    const SpecialTokens v3 = special_tokens(51866);
    EXPECT_EQ(special_token_name(v3, 50358), "<|yue|>");
    EXPECT_EQ(special_token_name(v3, 50359), "<|translate|>");
    EXPECT_EQ(special_token_name(v3, 50364), "<|notimestamps|>");
    EXPECT_EQ(special_token_name(v3, 50365), "<|0.00|>");
}

TEST(TokenizerSpecialTokens, IdsAndNamesAreInverse) {
    for (const int64_t n_vocab : {51864, 51865, 51866, 51870}) {
        SCOPED_TRACE(n_vocab);
        const SpecialTokens s = special_tokens(n_vocab);
        for (int32_t id = s.eot; id <= s.last_timestamp; ++id) {
            const std::string name = special_token_name(s, id);
            ASSERT_FALSE(name.empty()) << id;
            ASSERT_EQ(special_token_id(s, name), id) << name;
        }
    }
    const SpecialTokens v2 = special_tokens(51865);
    EXPECT_EQ(special_token_id(v2, "<|nocaptions|>"), 50362);
    EXPECT_EQ(special_token_id(v2, "<|iw|>"), 50279);
    EXPECT_EQ(special_token_id(v2, "<|yue|>"), -1) << "99 languages before large-v3";
    EXPECT_EQ(special_token_id(v2, "<|30.02|>"), -1);
    EXPECT_EQ(special_token_id(v2, "<|0.01|>"), -1);
    EXPECT_EQ(special_token_id(v2, "<|01.00|>"), -1);
    EXPECT_EQ(special_token_id(v2, "<|xx|>"), -1);
    EXPECT_EQ(special_token_id(v2, "hello"), -1);
    EXPECT_EQ(special_token_id(special_tokens(51866), "<|yue|>"), 50358);
}

TEST(TokenizerSpecialTokens, LargerSizesFollowTheFormula) {
    // Two more language slots than large-v3: everything from translate on shifts by two.
    const SpecialTokens s = special_tokens(51868);
    EXPECT_EQ(s.eot, 50257);
    EXPECT_EQ(s.num_languages, 102);
    EXPECT_EQ(s.translate, 50361);
    EXPECT_EQ(s.timestamp_begin, 50367);
    EXPECT_EQ(s.last_timestamp, 51867);
    EXPECT_EQ(special_token_name(s, 50358), "<|yue|>");
    EXPECT_EQ(special_token_name(s, 50359), "<|lang100|>");
}

TEST(TokenizerSpecialTokens, TooSmallVocabularyIsAnError) {
    EXPECT_THROW(special_tokens(51863), TokenizerError);
    EXPECT_THROW(special_tokens(0), TokenizerError);
    try {
        special_tokens(50000);
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("50000"), std::string::npos) << e.what();
    }
}

TEST(TokenizerSpecialTokens, LanguageCodesInOpenaiOrder) {
    const auto codes = language_codes();
    ASSERT_EQ(codes.size(), 100u);
    EXPECT_EQ(codes[0], "en");
    EXPECT_EQ(codes[1], "zh");
    EXPECT_EQ(codes[20], "he");
    EXPECT_EQ(codes[93], "haw");
    EXPECT_EQ(codes[97], "jw");
    EXPECT_EQ(codes[98], "su");
    EXPECT_EQ(codes[99], "yue");
}

TEST(TokenizerSpecialTokens, LanguageNamesAreOpenaisInTheSameOrder) {
    const auto names = language_names();
    ASSERT_EQ(names.size(), language_codes().size());
    EXPECT_EQ(names[0], "english");
    EXPECT_EQ(names[1], "chinese");
    EXPECT_EQ(names[5], "korean");
    EXPECT_EQ(names[80], "haitian creole");
    EXPECT_EQ(names[87], "myanmar");
    EXPECT_EQ(names[99], "cantonese");
    EXPECT_EQ(language_name("fr"), "french");
    EXPECT_EQ(language_name("iw"), "hebrew");
    EXPECT_EQ(language_name("klingon"), "");
    EXPECT_EQ(find_language_code("French"), "fr");
    EXPECT_EQ(find_language_code("ZH"), "zh");
    EXPECT_EQ(find_language_code("haitian creole"), "ht");
    EXPECT_EQ(find_language_code("iw"), "he");
    EXPECT_EQ(find_language_code("klingon"), "");
    EXPECT_EQ(find_language_code(""), "");
}

}  // namespace
}  // namespace earshot::tokenizer
