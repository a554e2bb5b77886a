// The TXT, SRT, WebVTT and JSON writers against hand-written golden files (tests/golden/
// transcripts): times past an hour, millisecond rounding, an empty segment (kept in JSON only)
// and UTF-8 text.
#include "core/files/transcript_formats.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "segment_fields.h"

namespace earshot::app {
namespace {

namespace fs = std::filesystem;
using decoding::Segment;
using decoding::Transcript;
using test::segment;

std::string read_golden(const std::string& name) {
    const fs::path path = fs::path(EARSHOT_TEST_GOLDEN_DIR) / "transcripts" / name;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "cannot read " << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The transcript the golden files were written from.
Transcript sample() {
    Transcript t;
    t.language = "de";
    t.segments.push_back(
        segment(0.0, 2.5, " Hello world.", {50364, 2425, 1002, 13, 50489}, -0.25, 0.125, 0.0, 1.0));
    t.segments.push_back(segment(2.5, 65.25, "", {}, -0.5, 0.5, 0.2, 0.0));
    t.segments.push_back(segment(3599.9996, 3725.5, " Grüße, 世界 --> ok", {50364, 1000, 50400},
                                 -1.5, 0.75, 1.0, 2.5));
    t.segments.push_back(segment(3725.5, 7384.0126, "  final line  ", {50364, 2001, 1002, 50365},
                                 -0.125, 0.0625, 0.0, 1.25));
    // The windows they came from (openai's "seek", in 10 ms frames).
    t.segments[1].seek_frames = 250;
    t.segments[2].seek_frames = 359999;
    t.segments[3].seek_frames = 372550;
    for (const Segment& s : t.segments) t.text += s.text;
    return t;
}

TEST(TranscriptFormats, TxtMatchesGolden) {
    EXPECT_EQ(render_txt(sample()), read_golden("sample.txt"));
}

TEST(TranscriptFormats, SrtMatchesGolden) {
    EXPECT_EQ(render_srt(sample()), read_golden("sample.srt"));
}

TEST(TranscriptFormats, VttMatchesGolden) {
    EXPECT_EQ(render_vtt(sample()), read_golden("sample.vtt"));
}

TEST(TranscriptFormats, JsonMatchesGoldenKeysInOrder) {
    const std::string rendered = render_json(sample());
    const auto parsed = nlohmann::ordered_json::parse(rendered);
    const auto golden = nlohmann::ordered_json::parse(read_golden("sample.json"));
    EXPECT_EQ(parsed, golden) << rendered;
    EXPECT_EQ(parsed.begin().key(), "text");
    EXPECT_EQ(parsed["segments"][0].begin().key(), "id");
    // UTF-8 is written as is, not as \u escapes.
    EXPECT_NE(rendered.find("世界"), std::string::npos);
}

TEST(TranscriptFormats, RenderTranscriptDispatches) {
    EXPECT_EQ(render_transcript(sample(), TranscriptFormat::srt), read_golden("sample.srt"));
    EXPECT_EQ(render_transcript(sample(), TranscriptFormat::txt), read_golden("sample.txt"));
}

TEST(TranscriptFormats, TimestampsRoundToTheNearestMillisecond) {
    EXPECT_EQ(srt_timestamp(0.0), "00:00:00,000");
    EXPECT_EQ(srt_timestamp(1.0004), "00:00:01,000");
    EXPECT_EQ(srt_timestamp(1.0006), "00:00:01,001");
    EXPECT_EQ(srt_timestamp(59.9996), "00:01:00,000");
    EXPECT_EQ(srt_timestamp(36000.25), "10:00:00,250");
    EXPECT_EQ(srt_timestamp(-3.0), "00:00:00,000");
    EXPECT_EQ(vtt_timestamp(3599.9994), "59:59.999");
    EXPECT_EQ(vtt_timestamp(3599.9996), "01:00:00.000");
    EXPECT_EQ(vtt_timestamp(0.02), "00:00.020");
}

// Segment times are whole centiseconds times 0.01 in binary: JSON writes them to the millisecond,
// as SRT and WebVTT do, not as 0.9400000000000001.
TEST(TranscriptFormats, JsonTimesAreWrittenToTheMillisecond) {
    earshot::decoding::Transcript transcript;
    earshot::decoding::Segment segment;
    segment.start_s = 94 * 0.01;  // 0.9400000000000001
    segment.end_s = 1234 * 0.01;  // 12.340000000000002
    segment.text = " hello";
    transcript.segments.push_back(segment);
    const std::string json = render_json(transcript);
    EXPECT_NE(json.find("\"start\": 0.94,"), std::string::npos) << json;
    EXPECT_NE(json.find("\"end\": 12.34,"), std::string::npos) << json;
    EXPECT_EQ(json.find("0000000"), std::string::npos) << json;
}

TEST(TranscriptFormats, JsonReplacesInvalidUtf8) {
    Transcript t;
    t.language = "en";
    t.segments.push_back(segment(0.0, 1.0, std::string(" a\xE4"), {1}, 0, 0, 0, 0));
    t.text = t.segments[0].text;
    const auto parsed = nlohmann::json::parse(render_json(t));
    EXPECT_EQ(parsed["segments"][0]["text"].get<std::string>(), " a\xEF\xBF\xBD");
}

TEST(TranscriptFormats, LineBreaksInsideASegmentBecomeSpaces) {
    Transcript t;
    t.segments.push_back(segment(0.0, 1.0, " one\n\ntwo\r\n", {}, 0, 0, 0, 0));
    EXPECT_EQ(render_txt(t), "one  two\n");
    EXPECT_EQ(render_srt(t), "1\n00:00:00,000 --> 00:00:01,000\none  two\n\n");
    EXPECT_EQ(render_vtt(t), "WEBVTT\n\n00:00.000 --> 00:01.000\none  two\n\n");
    // JSON keeps the text as decoded.
    EXPECT_EQ(nlohmann::json::parse(render_json(t))["segments"][0]["text"], " one\n\ntwo\r\n");
}

TEST(TranscriptFormats, FormatNames) {
    EXPECT_EQ(parse_transcript_format("vtt"), TranscriptFormat::vtt);
    EXPECT_EQ(parse_transcript_format("json"), TranscriptFormat::json);
    // Any case: --format TXT,Srt works as txt,srt.
    EXPECT_EQ(parse_transcript_format("SRT"), TranscriptFormat::srt);
    EXPECT_EQ(parse_transcript_format("Txt"), TranscriptFormat::txt);
    EXPECT_EQ(parse_transcript_format(" json"), TranscriptFormat::json);
    EXPECT_FALSE(parse_transcript_format("docx").has_value());
    EXPECT_EQ(transcript_format_name(TranscriptFormat::srt), "srt");
}

}  // namespace
}  // namespace earshot::app
