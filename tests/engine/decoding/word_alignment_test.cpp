// Word alignment's pieces on hand-made inputs with known answers: the median filter, the time
// warp (ties included), the word split and punctuation merge, times from synthetic attention,
// and the segment bookkeeping (offsets, rounding, clamping next to sentence ends).
#include "earshot/engine/decoding/word_alignment.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/generation_config.h"
#include "earshot/engine/decoding/transcript.h"
#include "temp_dir.h"

using namespace earshot::decoding;
using earshot::backend::HostTensor;

namespace {

// A toy vocabulary: each id's bytes; the text is read as UTF-8 with U+FFFD for a character the
// tokens leave unfinished, as the real tokenizer's decode does.
std::string toy_decode(std::span<const int32_t> ids) {
    static const std::map<int32_t, std::string> kBytes = {
        {1, " Hello"}, {2, ","},     {3, " wor"}, {4, "ld"},       {5, "!"},
        {6, " ("},     {7, "maybe"}, {8, ")"},    {9, "\xE4\xBD"}, {10, "\xA0"},
        {11, " ."},    {12, " Hi"},  {13, "."},   {14, " there"},  {15, " ok"}};
    std::string bytes;
    for (int32_t id : ids) bytes += kBytes.at(id);
    // An unfinished 3-byte character at the end becomes U+FFFD.
    for (size_t i = 0; i < bytes.size(); ++i) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        const size_t length = lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (i + length > bytes.size()) return bytes.substr(0, i) + "\xEF\xBF\xBD";
        i += length - 1;
    }
    return bytes;
}

std::vector<std::string> texts(const std::vector<AlignedWord>& words) {
    std::vector<std::string> result;
    for (const AlignedWord& w : words) result.push_back(w.text);
    return result;
}

TEST(WordAlignmentHeads, WithoutTheCheckpointsListEveryHeadOfTheLastHalfOfTheLayers) {
    const auto heads = default_alignment_heads(4, 2);
    ASSERT_EQ(heads.size(), 4U);
    EXPECT_EQ(heads[0], (earshot::backend::AttentionHead{2, 0}));
    EXPECT_EQ(heads[3], (earshot::backend::AttentionHead{3, 1}));
    // An odd count keeps the larger half: layers 1 and 2 of 3.
    const auto odd = default_alignment_heads(3, 1);
    ASSERT_EQ(odd.size(), 2U);
    EXPECT_EQ(odd[0].layer, 1);
}

TEST(WordAlignmentHeads, TheCheckpointsOwnListIsReadFromGenerationConfig) {
    earshot::test::TempDir dir("earshot-alignment-heads");
    const auto write = [&](const std::string& text) {
        std::ofstream(dir.path() / "generation_config.json") << text;
    };
    write(R"({"alignment_heads": [[1, 0], [3, 2]]})");
    const auto config = earshot::checkpoint::read_generation_config(dir.path(), 100);
    ASSERT_TRUE(config.alignment_heads.has_value());
    ASSERT_EQ(config.alignment_heads->size(), 2U);
    EXPECT_EQ((*config.alignment_heads)[1][0], 3);
    EXPECT_EQ((*config.alignment_heads)[1][1], 2);
    write(R"({"suppress_tokens": [1]})");
    EXPECT_FALSE(earshot::checkpoint::read_generation_config(dir.path(), 100).alignment_heads);
    write(R"({"alignment_heads": [[1, 0], [2]]})");
    EXPECT_THROW(earshot::checkpoint::read_generation_config(dir.path(), 100),
                 earshot::checkpoint::CheckpointError);
    write(R"({"alignment_heads": [[1, -1]]})");
    EXPECT_THROW(earshot::checkpoint::read_generation_config(dir.path(), 100),
                 earshot::checkpoint::CheckpointError);
}

TEST(WordAlignmentMedianFilter, ReflectsAtTheEdgesAndTakesTheMiddleValue) {
    std::vector<float> row = {1, 9, 2, 8, 3, 7, 4};
    median_filter(row, 1, 7, 3);  // padded 9 | 1 9 2 8 3 7 4 | 7
    EXPECT_EQ(row, (std::vector<float>{9, 2, 8, 3, 7, 4, 7}));

    // Width 7: a one-position spike disappears, a step edge stays where it is; rows independent.
    std::vector<float> two = {0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5};
    median_filter(two, 2, 8, 7);
    EXPECT_EQ(two, (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5}));

    // Rows of at most width / 2 values are left alone.
    std::vector<float> short_row = {3, 1, 2};
    median_filter(short_row, 1, 3, 7);
    EXPECT_EQ(short_row, (std::vector<float>{3, 1, 2}));
    EXPECT_THROW(median_filter(short_row, 1, 3, 4), std::invalid_argument);
}

TEST(WordAlignmentWarp, FollowsTheCheapestMonotonicPath) {
    const std::vector<float> cost = {0, 1, 1, 1,  //
                                     1, 0, 0, 1,  //
                                     1, 1, 1, 0};
    const WarpPath path = dynamic_time_warp(cost, 3, 4);
    EXPECT_EQ(path.rows, (std::vector<int64_t>{0, 1, 1, 2}));
    EXPECT_EQ(path.cols, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(WordAlignmentWarp, TiesGoToTheColumnStepThenTheRowStepAsOpenaiOrdersThem) {
    const std::vector<float> zeros(4, 0.0F);
    const WarpPath path = dynamic_time_warp(zeros, 2, 2);
    EXPECT_EQ(path.rows, (std::vector<int64_t>{0, 1, 1}));
    EXPECT_EQ(path.cols, (std::vector<int64_t>{0, 0, 1}));

    const WarpPath one_row = dynamic_time_warp(std::vector<float>{5, 1, 2}, 1, 3);
    EXPECT_EQ(one_row.rows, (std::vector<int64_t>{0, 0, 0}));
    EXPECT_EQ(one_row.cols, (std::vector<int64_t>{0, 1, 2}));
    const WarpPath one_col = dynamic_time_warp(std::vector<float>{5, 1}, 2, 1);
    EXPECT_EQ(one_col.rows, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(one_col.cols, (std::vector<int64_t>{0, 0}));
    EXPECT_THROW(dynamic_time_warp(zeros, 3, 2), std::invalid_argument);
}

TEST(WordAlignmentSplit, SpacesAndPunctuationStartWordsAndPiecesJoin) {
    const std::vector<int32_t> tokens = {1, 2, 3, 4, 5};
    std::vector<AlignedWord> words = split_word_tokens(tokens, toy_decode, false);
    EXPECT_EQ(texts(words), (std::vector<std::string>{" Hello", ",", " world", "!"}));
    EXPECT_EQ(words[2].tokens, (std::vector<int32_t>{3, 4}));

    merge_punctuations(words);
    EXPECT_EQ(texts(words), (std::vector<std::string>{" Hello,", "", " world!", ""}));
    EXPECT_EQ(words[0].tokens, (std::vector<int32_t>{1, 2}));
    EXPECT_TRUE(words[1].tokens.empty());

    // A piece without a space joins the mark before it; a closing mark joins the word before.
    std::vector<AlignedWord> bracket =
        split_word_tokens(std::vector<int32_t>{6, 7, 8}, toy_decode, false);
    EXPECT_EQ(texts(bracket), (std::vector<std::string>{" (maybe", ")"}));
    merge_punctuations(bracket);
    EXPECT_EQ(texts(bracket), (std::vector<std::string>{" (maybe)", ""}));
    // An opening mark after its space joins the word after it, which keeps its own space.
    std::vector<AlignedWord> opening =
        split_word_tokens(std::vector<int32_t>{6, 15, 8}, toy_decode, false);
    EXPECT_EQ(texts(opening), (std::vector<std::string>{" (", " ok", ")"}));
    merge_punctuations(opening);
    EXPECT_EQ(texts(opening), (std::vector<std::string>{"", " ( ok)", ""}));
    EXPECT_EQ(opening[1].tokens, (std::vector<int32_t>{6, 15, 8}));
}

TEST(WordAlignmentSplit, ACharacterSplitOverTokensStaysInOneGroup) {
    const std::vector<int32_t> tokens = {9, 10, 1};
    const std::vector<AlignedWord> groups = split_word_tokens(tokens, toy_decode, true);
    ASSERT_EQ(groups.size(), 2U);
    EXPECT_EQ(groups[0].text, "\xE4\xBD\xA0");
    EXPECT_EQ(groups[0].tokens, (std::vector<int32_t>{9, 10}));
    EXPECT_TRUE(splits_by_character("ja"));
    EXPECT_FALSE(splits_by_character("en"));
}

// weights [1, 1, S, A] over <|notimestamps|> + " Hello" " wor" "ld" + EOT, where the row that
// predicts text token k looks at audio block k (8 positions each); EOT's row looks everywhere.
TEST(WordAlignmentFromAttention, WordsStartWhereTheirTokensAttentionBlockStarts) {
    const std::vector<int32_t> text = {1, 3, 4};
    const int64_t s_len = 1 + 3 + 1;
    const int64_t audio = 40;  // the model's positions; the window's audio is the first 30
    HostTensor weights = HostTensor::f32({1, 1, s_len, audio}, 0.0F);
    auto v = weights.f32_values();
    const int64_t blocks[4][2] = {{0, 8}, {8, 16}, {16, 24}, {24, 30}};
    for (int64_t r = 0; r < 4; ++r) {  // rows 0 .. 3: notimestamps, " Hello", " wor", "ld"
        for (int64_t t = 0; t < audio; ++t) {
            const bool inside = t >= blocks[r][0] && t < blocks[r][1];
            v[static_cast<size_t>(r * audio + t)] = inside ? 0.1F : 0.001F;
        }
    }
    for (int64_t t = 0; t < audio; ++t) v[static_cast<size_t>(4 * audio + t)] = 0.025F;
    const std::vector<double> probabilities = {0.9, 0.5, 0.7};
    const std::vector<AlignedWord> words =
        align_from_cross_attention(weights, 1, text, probabilities, 60, toy_decode, false);
    ASSERT_EQ(texts(words), (std::vector<std::string>{" Hello", " world"}));
    EXPECT_DOUBLE_EQ(words[0].start_s, 0.0);
    EXPECT_DOUBLE_EQ(words[0].end_s, 8 / 50.0);
    EXPECT_DOUBLE_EQ(words[1].start_s, 8 / 50.0);
    EXPECT_DOUBLE_EQ(words[1].end_s, 24 / 50.0);  // "ld" is reached at block 3
    EXPECT_DOUBLE_EQ(words[0].probability, 0.9);
    EXPECT_DOUBLE_EQ(words[1].probability, 0.6);

    // The weights must cover SOT + text + EOT.
    EXPECT_THROW(align_from_cross_attention(weights, 2, text, {}, 60, toy_decode, false),
                 std::invalid_argument);
}

Segment segment_of(std::vector<int32_t> tokens, double start_s, double end_s) {
    Segment s;
    s.tokens = std::move(tokens);
    s.start_s = start_s;
    s.end_s = end_s;
    return s;
}

AlignedWord word(std::string text, std::vector<int32_t> tokens, double start_s, double end_s) {
    return {std::move(text), std::move(tokens), start_s, end_s, 0.5};
}

TEST(WordAlignmentSegments, EachSegmentTakesItsWordsShiftedAndRoundedAndFitsItsTimesToThem) {
    constexpr int32_t kEot = 100;  // ids from 100 on are specials and timestamps here
    std::vector<Segment> segments = {segment_of({150, 1, 2, 170}, 30.0, 30.6),
                                     segment_of({170, 3, 4, 5, 210}, 30.6, 31.2)};
    std::vector<AlignedWord> alignment = {word(" Hello", {1}, 0.104, 0.5), word(",", {2}, 0.5, 0.5),
                                          word(" world", {3, 4}, 0.6, 1.0),
                                          word("!", {5}, 1.0, 1.0)};
    double last_speech_s = 0.0;
    add_words_to_segments(segments, alignment, 30.0, kEot, last_speech_s);
    ASSERT_EQ(segments[0].words.size(), 1U);
    EXPECT_EQ(segments[0].words[0].text, " Hello,");
    EXPECT_DOUBLE_EQ(segments[0].words[0].start_s, 30.1);
    EXPECT_DOUBLE_EQ(segments[0].words[0].end_s, 30.5);
    EXPECT_DOUBLE_EQ(segments[0].words[0].probability, 0.5);
    EXPECT_DOUBLE_EQ(segments[0].start_s, 30.1);  // the segment takes its words' span
    EXPECT_DOUBLE_EQ(segments[0].end_s, 30.5);
    ASSERT_EQ(segments[1].words.size(), 1U);
    EXPECT_EQ(segments[1].words[0].text, " world!");
    EXPECT_DOUBLE_EQ(segments[1].words[0].start_s, 30.6);
    EXPECT_DOUBLE_EQ(segments[1].end_s, 31.0);
    EXPECT_DOUBLE_EQ(last_speech_s, 31.0);
}

TEST(WordAlignmentSegments, AWordLongerThanTwiceTheMedianAfterASentenceEndIsCut) {
    std::vector<Segment> segments = {segment_of({12, 13, 14, 15}, 0.0, 2.2)};
    std::vector<AlignedWord> alignment = {word(" Hi", {12}, 0.0, 0.2), word(".", {13}, 0.2, 0.2),
                                          word(" there", {14}, 0.2, 2.0),
                                          word(" ok", {15}, 2.0, 2.2)};
    double last_speech_s = 0.0;
    add_words_to_segments(segments, alignment, 0.0, 100, last_speech_s);
    ASSERT_EQ(segments[0].words.size(), 3U);
    EXPECT_EQ(segments[0].words[0].text, " Hi.");
    // Durations 0.2, 1.8, 0.2: median 0.2, so " there" keeps its last 0.4 s.
    EXPECT_DOUBLE_EQ(segments[0].words[1].start_s, 1.6);
    EXPECT_DOUBLE_EQ(segments[0].words[1].end_s, 2.0);
    EXPECT_DOUBLE_EQ(segments[0].words[2].end_s, 2.2);
}

}  // namespace
