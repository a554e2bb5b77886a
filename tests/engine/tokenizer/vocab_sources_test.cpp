// The tokenizer from Hugging Face files (vocab.json + merges.txt, tokenizer.json) built here from
// the openai ranks encodes exactly like the .tiktoken source; n_vocab from config.json or the
// added tokens; malformed directories; the vocabulary block of ggml files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "earshot/engine/tokenizer/special_tokens.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "temp_dir.h"
#include "tokenizer_assets.h"

namespace earshot::tokenizer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Ids = std::vector<int32_t>;

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The HF spelling of a tiktoken vocabulary: vocab.json (spelled bytes -> rank) and merges in rank
// order, each token split into two lower-ranked tokens (what the HF converter rebuilds).
struct HfSpelling {
    json vocab = json::object();
    std::vector<std::string> merges;
};

HfSpelling spell_vocabulary(const std::vector<std::string>& ranks) {
    std::unordered_map<std::string, size_t> rank_of;
    for (size_t r = 0; r < ranks.size(); ++r) rank_of.emplace(ranks[r], r);
    HfSpelling hf;
    for (size_t r = 0; r < ranks.size(); ++r) {
        const std::string& bytes = ranks[r];
        hf.vocab[test::spell_bytes(bytes)] = r;
        for (size_t cut = 1; cut < bytes.size(); ++cut) {
            const auto left = rank_of.find(bytes.substr(0, cut));
            const auto right = rank_of.find(bytes.substr(cut));
            if (left != rank_of.end() && right != rank_of.end() && left->second < r &&
                right->second < r) {
                hf.merges.push_back(test::spell_bytes(left->first) + " " +
                                    test::spell_bytes(right->first));
                break;
            }
        }
    }
    return hf;
}

// Special names and ids of a layout, below the timestamps (what added_tokens.json lists).
std::vector<std::pair<std::string, int32_t>> layout_names(int64_t n_vocab) {
    const SpecialTokens s = special_tokens(n_vocab);
    std::vector<std::pair<std::string, int32_t>> names;
    for (int32_t id = s.eot; id < s.timestamp_begin; ++id) {
        names.emplace_back(special_token_name(s, id), id);
    }
    return names;
}

void write_vocab_and_merges(const fs::path& dir, const HfSpelling& hf) {
    write_text(dir / "vocab.json", hf.vocab.dump());
    std::string merges = "#version: 0.2\n";
    for (const std::string& m : hf.merges) merges += m + "\n";
    write_text(dir / "merges.txt", merges);
}

class TokenizerSources : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(test::multilingual_tiktoken()) || !fs::exists(test::gpt2_tiktoken())) {
            GTEST_SKIP() << "the openai .tiktoken vocabularies are not available at "
                         << test::multilingual_tiktoken().parent_path();
        }
    }
    static const std::vector<std::string>& multilingual_ranks() {
        static const auto ranks = test::read_tiktoken_ranks(test::multilingual_tiktoken());
        return ranks;
    }
    static const HfSpelling& multilingual_hf() {
        static const HfSpelling hf = spell_vocabulary(multilingual_ranks());
        return hf;
    }
    // Encodes every sample text with both tokenizers and compares ids and decoded text.
    static void expect_same_encoding(const Tokenizer& hf, const Tokenizer& reference) {
        for (const std::string& text : test::sample_texts(300)) {
            const Ids ids = hf.encode(text);
            ASSERT_EQ(ids, reference.encode(text)) << text;
            ASSERT_EQ(hf.decode(ids), text);
        }
    }
    test::TempDir dir_;
};

TEST_F(TokenizerSources, SpelledVocabularyIsComplete) {
    ASSERT_EQ(multilingual_ranks().size(), 50257u);
    EXPECT_EQ(multilingual_ranks()[50256], "") << "the multilingual empty token";
    EXPECT_EQ(multilingual_hf().vocab.size(), 50257u);
    // Every rank from 256 on is a merge, except the empty token.
    EXPECT_EQ(multilingual_hf().merges.size(), 50257u - 256u - 1u);
    EXPECT_EQ(test::spell_bytes(" \n"), "\xC4\xA0\xC4\x8A");  // U+0120 U+010A
}

TEST_F(TokenizerSources, VocabJsonAndMergesEncodeLikeTiktoken) {
    write_vocab_and_merges(dir_.path(), multilingual_hf());
    const Tokenizer hf = Tokenizer::load(dir_.path());
    EXPECT_EQ(hf.n_vocab(), 51865) << "50257 base ranks, no config.json: the tiktoken rule";
    EXPECT_EQ(hf.encode("Hello world"), (Ids{15947, 1002}));
    expect_same_encoding(hf, Tokenizer::load(test::multilingual_tiktoken()));
    EXPECT_EQ(hf.non_speech_tokens().size(), 82u);
}

TEST_F(TokenizerSources, TokenizerJsonWithLargeV3AddedTokens) {
    json doc;
    doc["model"] = {{"type", "BPE"}, {"vocab", multilingual_hf().vocab}};
    doc["model"]["merges"] = multilingual_hf().merges;
    doc["added_tokens"] = json::array();
    for (const auto& [name, id] : layout_names(51866)) {
        doc["added_tokens"].push_back({{"id", id}, {"content", name}, {"special", true}});
    }
    write_text(dir_.path() / "tokenizer.json", doc.dump());
    // No config.json: <|notimestamps|> at 50364 ends the specials, 1501 timestamps follow.
    const Tokenizer hf = Tokenizer::load(dir_.path());
    EXPECT_EQ(hf.n_vocab(), 51866);
    EXPECT_EQ(hf.language_token("yue"), 50358);
    expect_same_encoding(hf, Tokenizer::load(test::multilingual_tiktoken(), 51866));
    // A path to tokenizer.json itself means its directory.
    EXPECT_EQ(Tokenizer::load(dir_.path() / "tokenizer.json").n_vocab(), 51866);
}

TEST_F(TokenizerSources, ConfigVocabSizeWins) {
    write_vocab_and_merges(dir_.path(), multilingual_hf());
    write_text(dir_.path() / "config.json", R"({"vocab_size": 51866, "d_model": 384})");
    EXPECT_EQ(Tokenizer::load(dir_.path()).n_vocab(), 51866);
    EXPECT_EQ(Tokenizer::load(dir_.path(), 51865).n_vocab(), 51865) << "an explicit size wins";
    write_text(dir_.path() / "config.json", R"({"vocab_size": "big"})");
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError);
}

TEST_F(TokenizerSources, EnglishOnlyVocabJsonWithEndOfText) {
    // HF's English-only vocab.json lists <|endoftext|> at 50256 beside the GPT-2 ranks.
    HfSpelling hf = spell_vocabulary(test::read_tiktoken_ranks(test::gpt2_tiktoken()));
    hf.vocab["<|endoftext|>"] = 50256;
    write_vocab_and_merges(dir_.path(), hf);
    json added = json::object();
    for (const auto& [name, id] : layout_names(51864)) added[name] = id;
    added.erase("<|nospeech|>");
    added["<|nocaptions|>"] = 50361;  // the old name
    write_text(dir_.path() / "added_tokens.json", added.dump());
    const Tokenizer en = Tokenizer::load(dir_.path());
    EXPECT_EQ(en.n_vocab(), 51864);
    EXPECT_EQ(en.encode(" Hello world"), (Ids{18435, 995}));
    expect_same_encoding(en, Tokenizer::load(test::gpt2_tiktoken()));
}

TEST_F(TokenizerSources, InconsistentDirectoriesAreErrors) {
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError) << "empty directory";
    write_text(dir_.path() / "vocab.json", multilingual_hf().vocab.dump());
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError) << "no merges.txt";
    write_vocab_and_merges(dir_.path(), multilingual_hf());

    // An added token where this layout does not put it.
    write_text(dir_.path() / "added_tokens.json", R"({"<|startoftranscript|>": 50300})");
    try {
        Tokenizer::load(dir_.path());
        FAIL() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("<|startoftranscript|>"), std::string::npos)
            << e.what();
    }
    fs::remove(dir_.path() / "added_tokens.json");

    json vocab = multilingual_hf().vocab;
    vocab["a b"] = 50257;  // a plain space is not in the byte-level alphabet
    write_text(dir_.path() / "vocab.json", vocab.dump());
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError);

    vocab = multilingual_hf().vocab;
    vocab.erase(test::spell_bytes("Hello"));  // a hole in the ids
    write_text(dir_.path() / "vocab.json", vocab.dump());
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError);

    write_text(dir_.path() / "vocab.json", "{not json");
    EXPECT_THROW(Tokenizer::load(dir_.path()), TokenizerError);
}

TEST_F(TokenizerSources, GgmlVocabularyBlock) {
    const fs::path tiny = test::whisper_asset("for-tests-ggml-tiny.bin");
    const fs::path tiny_en = test::whisper_asset("for-tests-ggml-tiny.en.bin");
    if (!fs::exists(tiny) || !fs::exists(tiny_en)) {
        GTEST_SKIP() << "the whisper.cpp test containers are not available at "
                     << tiny.parent_path();
    }
    // Their vocabularies store some partial UTF-8 tokens as U+FFFD, so only plain ASCII is
    // compared here.
    const Tokenizer multi = Tokenizer::load(tiny);
    EXPECT_EQ(multi.n_vocab(), 51865);
    EXPECT_EQ(multi.encode("Hello world"), (Ids{15947, 1002}));
    EXPECT_EQ(multi.decode(Ids{50258, 50259, 50359, 15947, 1002}),
              "<|startoftranscript|><|en|><|transcribe|>Hello world");
    const Tokenizer en = Tokenizer::load(tiny_en);
    EXPECT_EQ(en.n_vocab(), 51864);
    EXPECT_EQ(en.encode(" Hello world"), (Ids{18435, 995}));
    EXPECT_THROW(Tokenizer::load(tiny_en, 51865), TokenizerError);
}

}  // namespace
}  // namespace earshot::tokenizer
