// Blank segments as openai's transcribe() sees them: text that Python's str.strip() empties,
// which includes the Unicode whitespace (\x1c-\x1f, \x85, \xa0, \u3000, ...), not only ASCII.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decoding/python_strip.h"
#include "earshot/engine/decoding/compression_ratio.h"
#include "earshot/engine/decoding/seek_loop.h"

namespace earshot::decoding {
namespace {

using backend::HostTensor;

constexpr int32_t kEot = 999;
constexpr int32_t kTb = 1000;  // <|0.00|>

int32_t ts(int32_t index) { return kTb + index; }

// Every code point Python 3.11's str.isspace() accepts (str.strip() removes exactly these), in
// UTF-8.
const std::vector<std::string> kPythonWhitespace{
    "\t",           "\n",           "\v",           "\f",           "\r",
    "\x1c",         "\x1d",         "\x1e",         "\x1f",         " ",
    "\xc2\x85",     "\xc2\xa0",     "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81",
    "\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85", "\xe2\x80\x86",
    "\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89", "\xe2\x80\x8a", "\xe2\x80\xa8",
    "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80",
};

TEST(PythonStrip, StripsEveryPythonWhitespaceCodePoint) {
    for (const std::string& space : kPythonWhitespace) {
        EXPECT_EQ(python_strip(space + "x" + space + space), "x") << testing::PrintToString(space);
        EXPECT_TRUE(is_python_blank(space + space)) << testing::PrintToString(space);
    }
    EXPECT_EQ(python_strip("\xe3\x80\x80 a\xc2\xa0"
                           "b \x1f\xc2\x85"),
              "a\xc2\xa0"
              "b");
}

TEST(PythonStrip, KeepsWhatPythonDoesNotCountAsWhitespace) {
    // U+200B zero width space, U+FEFF BOM, U+180E Mongolian vowel separator, U+00AD soft hyphen,
    // U+FFFD (a decoded invalid byte): str.isspace() is False for each.
    for (const std::string text : {"\xe2\x80\x8b", "\xef\xbb\xbf", "\xe1\xa0\x8e", "\xc2\xad",
                                   "\xef\xbf\xbd", "\x1b", "\x7f"}) {
        EXPECT_EQ(python_strip(" " + text + " "), text) << testing::PrintToString(text);
    }
    EXPECT_EQ(python_strip(""), "");
}

// The compression ratio is taken over the stripped text (openai strips the decoded text first).
TEST(PythonStrip, CompressionRatioStripsUnicodeWhitespace) {
    EXPECT_DOUBLE_EQ(compression_ratio("\xe3\x80\x80hello world\xc2\xa0"),
                     compression_ratio("hello world"));
}

// A window whose segments decode to Unicode whitespace only: each is cleared (text "", no tokens,
// nothing added to the prompt) as openai clears it; a segment with a word in it is kept.
TEST(SeekLoopBlank, SegmentsOfUnicodeWhitespaceAreCleared) {
    SegmentVocabulary vocabulary;
    vocabulary.timestamp_begin = kTb;
    vocabulary.eot = kEot;
    // Id i < 29 decodes to the i-th whitespace code point, 100 to a word.
    vocabulary.decode_text = [](std::span<const int32_t> ids) {
        std::string text;
        for (int32_t id : ids)
            text += id == 100 ? std::string(" word") : kPythonWhitespace.at(size_t(id));
        return text;
    };
    std::vector<int32_t> tokens;
    for (int32_t i = 0; i < 29; ++i) tokens.insert(tokens.end(), {ts(2 * i), i, ts(2 * i + 1)});
    tokens.insert(tokens.end(), {ts(60), 11, 100, 28, ts(62), ts(62)});  // "\xa0 word\u3000"
    std::vector<std::vector<int32_t>> prompts;
    const WindowDecodeFn decode = [&](const HostTensor&, std::span<const int32_t> prompt) {
        prompts.emplace_back(prompt.begin(), prompt.end());
        WindowResult result;
        if (prompts.size() == 1) result.tokens = tokens;
        result.no_speech_prob = 0.1;
        result.avg_logprob = -0.2;
        return result;
    };
    SeekLoopOptions options;
    options.frames = 600;
    const std::vector<Segment> segments = run_seek_loop(
        HostTensor::f32({4, 700 + 600}, 1.0F), 700, vocabulary, options, decode, nullptr, nullptr);
    ASSERT_EQ(segments.size(), 30u + 1u);  // the second window: one segment without timestamps
    for (int32_t i = 0; i < 29; ++i) {
        EXPECT_EQ(segments[size_t(i)].text, "") << i;
        EXPECT_TRUE(segments[size_t(i)].tokens.empty()) << i;
        EXPECT_DOUBLE_EQ(segments[size_t(i)].start_s, 0.04 * double(i));
    }
    EXPECT_EQ(segments[29].text, "\xc2\xa0 word\xe3\x80\x80");
    ASSERT_EQ(prompts.size(), 2u);
    EXPECT_EQ(prompts[1], (std::vector<int32_t>{ts(60), 11, 100, 28, ts(62)}));
}

}  // namespace
}  // namespace earshot::decoding
