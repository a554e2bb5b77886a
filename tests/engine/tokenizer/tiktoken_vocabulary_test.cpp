// The tokenizer on openai's .tiktoken vocabularies: known encodings, round trips over several
// scripts, openai's non-speech list, decode semantics for specials and timestamps, languages.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "temp_dir.h"
#include "tokenizer_assets.h"

namespace earshot::tokenizer {
namespace {

using Ids = std::vector<int32_t>;

class TokenizerTiktoken : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(test::multilingual_tiktoken()) ||
            !std::filesystem::exists(test::gpt2_tiktoken())) {
            GTEST_SKIP() << "the openai .tiktoken vocabularies are not available at "
                         << test::multilingual_tiktoken().parent_path();
        }
    }
    // Loaded once for the suite: 50k ranks each.
    static const Tokenizer& multilingual() {
        static const Tokenizer t = Tokenizer::load(test::multilingual_tiktoken());
        return t;
    }
    static const Tokenizer& gpt2() {
        static const Tokenizer t = Tokenizer::load(test::gpt2_tiktoken());
        return t;
    }
};

TEST_F(TokenizerTiktoken, SizesFollowTheBaseVocabulary) {
    EXPECT_EQ(multilingual().n_vocab(), 51865);
    EXPECT_TRUE(multilingual().multilingual());
    EXPECT_EQ(multilingual().specials().eot, 50257);
    EXPECT_EQ(gpt2().n_vocab(), 51864);
    EXPECT_FALSE(gpt2().multilingual());
    EXPECT_EQ(gpt2().specials().eot, 50256);
    EXPECT_EQ(Tokenizer::load(test::multilingual_tiktoken(), 51866).specials().timestamp_begin,
              50365);
}

TEST_F(TokenizerTiktoken, KnownEncodings) {
    EXPECT_EQ(multilingual().encode("Hello world"), (Ids{15947, 1002}));
    EXPECT_EQ(gpt2().encode(" Hello world"), (Ids{18435, 995}));
    EXPECT_EQ(multilingual().encode(" "), (Ids{220}));
    EXPECT_EQ(gpt2().encode(" "), (Ids{220}));
    EXPECT_EQ(multilingual().encode(""), Ids{});
    // Special names are ordinary text: several base tokens, none of them EOT.
    const Ids eot_text = multilingual().encode("<|endoftext|>");
    EXPECT_GT(eot_text.size(), 1u);
    EXPECT_TRUE(
        std::all_of(eot_text.begin(), eot_text.end(), [](int32_t id) { return id < 50257; }));
}

TEST_F(TokenizerTiktoken, RoundTripsSeveralScripts) {
    const std::vector<std::string> texts = test::sample_texts(400);
    size_t multi_token_texts = 0;
    for (const Tokenizer* tokenizer : {&multilingual(), &gpt2()}) {
        for (const std::string& text : texts) {
            const Ids ids = tokenizer->encode(text);
            ASSERT_EQ(tokenizer->decode(ids), text) << "n_vocab " << tokenizer->n_vocab();
            ASSERT_EQ(tokenizer->decode_text(ids), text);
            for (const int32_t id : ids) {
                ASSERT_GE(id, 0);
                ASSERT_LT(id, tokenizer->specials().eot) << text;
            }
            multi_token_texts += ids.size() > 1 ? 1u : 0u;
        }
    }
    EXPECT_GT(multi_token_texts, 700u) << "the corpus should mostly hold multi-token texts";
    // Whitespace handling of the pre-tokenizer: a run before a word keeps its last space with it.
    const Ids spaced = gpt2().encode("a   b");
    EXPECT_EQ(gpt2().decode(Ids{spaced.back()}), " b");
    EXPECT_EQ(gpt2().decode(Ids(spaced.begin() + 1, spaced.end() - 1)), "  ");
}

TEST_F(TokenizerTiktoken, MultilingualEncodesCompactlyPerScript) {
    // The multilingual ranks hold whole words of other scripts that GPT-2 spells byte by byte.
    for (const char* text : {" привет мир", " 你好世界", " नमस्ते दुनिया"}) {
        EXPECT_LT(multilingual().encode(text).size(), gpt2().encode(text).size()) << text;
    }
}

TEST_F(TokenizerTiktoken, NonSpeechTokensAreOpenaisLists) {
    const Ids multilingual_expected{
        1,     2,     7,     8,     9,     10,    14,    25,    26,    27,    28,    29,
        31,    58,    59,    60,    61,    62,    63,    90,    91,    92,    93,    359,
        503,   522,   542,   873,   893,   902,   918,   922,   931,   1350,  1853,  1982,
        2460,  2627,  3246,  3253,  3268,  3536,  3846,  3961,  4183,  4667,  6585,  6647,
        7273,  9061,  9383,  10428, 10929, 11938, 12033, 12331, 12562, 13793, 14157, 14635,
        15265, 15618, 16553, 16604, 18362, 18956, 20075, 21675, 22520, 26130, 26161, 26435,
        28279, 29464, 31650, 32302, 32470, 36865, 42863, 47425, 49870, 50254};
    const Ids gpt2_expected{
        1,     2,     7,     8,     9,     10,    14,    25,    26,    27,    28,    29,
        31,    58,    59,    60,    61,    62,    63,    90,    91,    92,    93,    357,
        366,   438,   532,   685,   705,   796,   930,   1058,  1220,  1267,  1279,  1303,
        1343,  1377,  1391,  1635,  1782,  1875,  2162,  2361,  2488,  3467,  4008,  4211,
        4600,  4808,  5299,  5855,  6329,  7203,  9609,  9959,  10563, 10786, 11420, 11709,
        11907, 13163, 13697, 13700, 14808, 15306, 16410, 16791, 17992, 19203, 19510, 20724,
        22305, 22935, 27007, 30109, 30420, 33409, 34949, 40283, 40493, 40549, 47282, 49146};
    ASSERT_EQ(multilingual_expected.size(), 82u);
    ASSERT_EQ(gpt2_expected.size(), 84u);
    EXPECT_EQ(multilingual().non_speech_tokens(), multilingual_expected);
    EXPECT_EQ(gpt2().non_speech_tokens(), gpt2_expected);
}

TEST_F(TokenizerTiktoken, DecodeShowsSpecialNamesAndDropsTimestamps) {
    const Tokenizer& v2 = multilingual();
    const Ids ids{50258, 50259, 50359, 50364, 15947, 1002, 50364 + 100, 50257};
    EXPECT_EQ(v2.decode(ids), "<|startoftranscript|><|en|><|transcribe|>Hello world<|endoftext|>");
    EXPECT_EQ(v2.decode_text(ids), "Hello world");
    EXPECT_EQ(v2.decode(Ids{50364, 51864, 60000}), "") << "every id >= timestamp_begin is dropped";

    const Tokenizer v3 = Tokenizer::load(test::multilingual_tiktoken(), 51866);
    EXPECT_EQ(v3.decode(Ids{50258, 50259, 50360, 50364, 50365, 15947, 50366}),
              "<|startoftranscript|><|en|><|transcribe|><|notimestamps|>Hello");
    EXPECT_EQ(v3.decode(Ids{50358, 50359, 50363}), "<|yue|><|translate|><|nospeech|>");

    EXPECT_EQ(gpt2().decode(Ids{50257, 18435, 50256}), "<|startoftranscript|> Hello<|endoftext|>");
    EXPECT_EQ(v2.decode(Ids{50256}), "") << "the multilingual empty token";
    EXPECT_THROW(v2.decode(Ids{-1}), TokenizerError);
}

TEST_F(TokenizerTiktoken, DecodeReplacesInvalidUtf8LikePython) {
    // "é" is C3 A9 and "世" E4 B8 96; single-byte tokens decode alone to U+FFFD per maximal
    // ill-formed subpart (CPython errors="replace").
    const std::vector<std::string> ranks = test::read_tiktoken_ranks(test::multilingual_tiktoken());
    const auto byte_token = [&](unsigned char byte) {
        const auto it =
            std::find(ranks.begin(), ranks.end(), std::string(1, static_cast<char>(byte)));
        return static_cast<int32_t>(it - ranks.begin());
    };
    const Tokenizer& t = multilingual();
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(t.decode(Ids{byte_token(0xC3)}), fffd);
    EXPECT_EQ(t.decode(Ids{byte_token(0xC3), byte_token(0xA9)}), "é");
    EXPECT_EQ(t.decode(Ids{byte_token(0xE4), byte_token(0xB8)}), fffd) << "one truncated sequence";
    EXPECT_EQ(t.decode(Ids{byte_token(0xE4), byte_token(0xB8), byte_token('a')}), fffd + "a");
    EXPECT_EQ(t.decode(Ids{byte_token(0xA9), byte_token(0xA9)}), fffd + fffd);
    EXPECT_EQ(t.decode(Ids{byte_token(0xC0), byte_token(0xAF)}), fffd + fffd) << "overlong";
    EXPECT_EQ(t.decode(Ids{byte_token(0xED), byte_token(0xA0), byte_token(0x80)}),
              fffd + fffd + fffd)
        << "surrogate";
    EXPECT_EQ(t.token_name(byte_token(0xE4)), "\\xe4");
}

TEST_F(TokenizerTiktoken, LanguageTokens) {
    const Tokenizer v3 = Tokenizer::load(test::multilingual_tiktoken(), 51866);
    EXPECT_EQ(v3.language_token("en"), 50259);
    EXPECT_EQ(v3.language_token("yue"), 50358);
    EXPECT_EQ(v3.language_token("he"), 50279);
    EXPECT_EQ(v3.language_token("iw"), 50279);
    EXPECT_EQ(v3.language_token("xx"), -1);
    EXPECT_EQ(v3.language_token(""), -1);
    EXPECT_EQ(v3.language_code(50358), "yue");
    EXPECT_EQ(v3.language_code(50359), "") << "translate";

    const Tokenizer& v2 = multilingual();
    EXPECT_EQ(v2.language_token("en"), 50259);
    EXPECT_EQ(v2.language_token("su"), 50357);
    EXPECT_EQ(v2.language_token("yue"), -1);
    EXPECT_EQ(v2.language_code(50259), "en");
    EXPECT_EQ(v2.language_code(50274), "it");
    EXPECT_EQ(v2.language_code(50358), "");
    EXPECT_EQ(v2.language_code(50258), "");
    EXPECT_EQ(gpt2().language_token("en"), 50258) << "present but unused in English-only models";
}

TEST_F(TokenizerTiktoken, TokenNames) {
    const Tokenizer& t = multilingual();
    EXPECT_EQ(t.token_name(220), " ");
    EXPECT_EQ(t.token_name(15947), "Hello");
    EXPECT_EQ(t.token_name(50256), "");
    EXPECT_EQ(t.token_name(50258), "<|startoftranscript|>");
    EXPECT_EQ(t.token_name(50364 + 75), "<|1.50|>");
    EXPECT_EQ(t.token_name(51864), "<|30.00|>");
    EXPECT_THROW(t.token_name(51865), TokenizerError);
    EXPECT_THROW(t.token_name(-1), TokenizerError);
}

TEST_F(TokenizerTiktoken, SizeMismatchesAreErrors) {
    // The gpt2 base (50256) cannot carry a multilingual layout (EOT at 50257), nor the reverse.
    EXPECT_THROW(Tokenizer::load(test::gpt2_tiktoken(), 51865), TokenizerError);
    EXPECT_THROW(Tokenizer::load(test::multilingual_tiktoken(), 51864), TokenizerError);
    EXPECT_THROW(Tokenizer::load(test::multilingual_tiktoken(), 50000), TokenizerError);
    try {
        Tokenizer::load(test::gpt2_tiktoken(), 51866);
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("gpt2.tiktoken"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("50256"), std::string::npos) << e.what();
    }
}

TEST(TokenizerTiktokenFile, MalformedFilesAreErrors) {
    const test::TempDir dir;
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir.path() / name, std::ios::binary) << text;
        return dir.path() / name;
    };
    EXPECT_THROW(Tokenizer::load(dir.path() / "missing.tiktoken"), TokenizerError);
    EXPECT_THROW(Tokenizer::load(write("norank.tiktoken", "IQ==\n")), TokenizerError);
    EXPECT_THROW(Tokenizer::load(write("badb64.tiktoken", "I*== 0\n")), TokenizerError);
    EXPECT_THROW(Tokenizer::load(write("gap.tiktoken", "IQ== 0\nIg== 2\n")), TokenizerError);
    EXPECT_THROW(Tokenizer::load(write("twice.tiktoken", "IQ== 0\nIg== 0\n")), TokenizerError);
    EXPECT_THROW(Tokenizer::load(write("empty.tiktoken", "")), TokenizerError);
    try {
        // Two ranks: n_vocab cannot be told, and given, it does not fit.
        Tokenizer::load(write("small.tiktoken", "IQ== 0\nIg== 1\n"), 51865);
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("small.tiktoken"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace earshot::tokenizer
