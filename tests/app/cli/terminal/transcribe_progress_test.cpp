// The progress line of `earshot transcribe`: percent, elapsed time, real-time factor, file name,
// and its redraw with '\r' that blanks a longer previous line.
#include "cli/terminal/transcribe_progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace earshot::app {
namespace {

TEST(TranscribeProgress, FormatsPercentElapsedAndRealTimeFactor) {
    EXPECT_EQ(TranscribeProgress::format_line(0.5, 10.0, 30.0, "a.wav"),
              " 50% | 0:10 elapsed | 1.5x real time | a.wav");
    EXPECT_EQ(TranscribeProgress::format_line(1.0, 75.9, 600.0, "talk.mp3"),
              "100% | 1:15 elapsed | 7.9x real time | talk.mp3");
    EXPECT_EQ(TranscribeProgress::format_line(0.999, 0.0, 10.0, "x"),
              " 99% | 0:00 elapsed | - real time | x");
    EXPECT_EQ(TranscribeProgress::format_line(1.5, 1.0, 2.0, "x"),
              "100% | 0:01 elapsed | 2.0x real time | x");
}

TEST(TranscribeProgress, RedrawsOneLineAndEndsItWithANewline) {
    std::ostringstream err;
    {
        TranscribeProgress progress(err, "jfk.wav", 11.0);
        progress.update(0.25);
        progress.finish();
    }
    const std::string text = err.str();
    ASSERT_EQ(text.front(), '\r');
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 2);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
    EXPECT_NE(text.find(" 25% | "), std::string::npos) << text;
    EXPECT_NE(text.find("100% | "), std::string::npos) << text;
    // The last draw may be padded with spaces to blank a longer earlier line.
    const size_t name_at = text.rfind("| jfk.wav");
    ASSERT_NE(name_at, std::string::npos) << text;
    EXPECT_EQ(text.find_first_not_of(' ', name_at + 9), text.size() - 1) << text;
}

TEST(TranscribeProgress, AbandonEndsAnOpenLineOnlyOnce) {
    std::ostringstream err;
    TranscribeProgress progress(err, "f.wav", 1.0);
    progress.abandon();
    EXPECT_EQ(err.str(), "");
    progress.update(0.1);
    progress.abandon();
    progress.abandon();
    const std::string text = err.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

}  // namespace
}  // namespace earshot::app
