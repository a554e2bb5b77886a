// The transcript writers with word times: JSON words on every segment once any has them, and
// SRT/VTT cues of at most --max-line-words words timed by their words, never across segments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/files/transcript_formats.h"
#include "earshot/engine/decoding/transcript.h"

namespace earshot::app {
namespace {

decoding::Transcript with_words() {
    decoding::Transcript t;
    t.language = "en";
    decoding::Segment first;
    first.start_s = 0.5;
    first.end_s = 2.0;
    first.text = " One two three.";
    first.words = {
        {" One", 0.5, 0.8, 0.9}, {" two", 0.8, 1.2, 0.8}, {" three.", 1.3, 2.0, 0.71234}};
    decoding::Segment blank;  // a window's blank segment: no text, no words
    blank.start_s = 2.0;
    blank.end_s = 2.5;
    decoding::Segment second;
    second.start_s = 3.0;
    second.end_s = 3.4;
    second.text = " Four.";
    second.words = {{" Four.", 3.0, 3.4, 1.0}};
    t.segments = {first, blank, second};
    t.text = first.text + second.text;
    return t;
}

TEST(WordFormats, SrtCuesHoldAtMostTheAskedWordsAndNeverSpanTwoSegments) {
    EXPECT_EQ(render_srt(with_words(), CueOptions{2}),
              "1\n00:00:00,500 --> 00:00:01,200\nOne two\n\n"
              "2\n00:00:01,300 --> 00:00:02,000\nthree.\n\n"
              "3\n00:00:03,000 --> 00:00:03,400\nFour.\n\n");
    EXPECT_EQ(render_vtt(with_words(), CueOptions{5}),
              "WEBVTT\n\n00:00.500 --> 00:02.000\nOne two three.\n\n"
              "00:03.000 --> 00:03.400\nFour.\n\n");
    // Without a word limit: one cue per segment, as before.
    EXPECT_EQ(render_srt(with_words()),
              "1\n00:00:00,500 --> 00:00:02,000\nOne two three.\n\n"
              "2\n00:00:03,000 --> 00:00:03,400\nFour.\n\n");
}

TEST(WordFormats, JsonGivesEverySegmentItsWordsOnceAnyHasThem) {
    const auto json = nlohmann::ordered_json::parse(render_json(with_words()));
    const auto& segments = json.at("segments");
    ASSERT_EQ(segments.size(), 3U);
    ASSERT_EQ(segments[0].at("words").size(), 3U);
    EXPECT_EQ(segments[0].at("words")[2].at("word"), " three.");
    EXPECT_DOUBLE_EQ(segments[0].at("words")[2].at("start").get<double>(), 1.3);
    EXPECT_DOUBLE_EQ(segments[0].at("words")[2].at("end").get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(segments[0].at("words")[2].at("probability").get<double>(), 0.7123);
    EXPECT_TRUE(segments[1].at("words").empty());
    EXPECT_EQ(segments[2].at("words")[0].at("word"), " Four.");
    // The key comes last, after the keys openai's format has always had.
    EXPECT_EQ(segments[0].items().begin().key(), "id");
    EXPECT_EQ(std::prev(segments[0].end()).value(), segments[0].at("words"));

    // A transcript without word times is written without the key.
    decoding::Transcript plain = with_words();
    for (auto& s : plain.segments) s.words.clear();
    EXPECT_FALSE(nlohmann::json::parse(render_json(plain)).at("segments")[0].contains("words"));
}

}  // namespace
}  // namespace earshot::app
