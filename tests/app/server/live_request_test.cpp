// The live endpoint's query: each parameter read and checked, a bad one a 400 naming it.
#include "server/live_request.h"

#include <gtest/gtest.h>

#include <string>

namespace earshot::server {
namespace {

ApiError refusal(std::string_view target) {
    auto result = parse_live_request(target);
    if (auto* error = std::get_if<ApiError>(&result)) return *error;
    return ApiError{0, "accepted", "", std::nullopt, std::nullopt};
}

TEST(LiveRequest, DefaultsAreEarshotLives) {
    const auto result = parse_live_request("/v1/realtime/transcription");
    ASSERT_TRUE(std::holds_alternative<LiveRequest>(result));
    const LiveRequest& r = std::get<LiveRequest>(result);
    EXPECT_EQ(r.sample_rate_hz, 16000);
    EXPECT_EQ(r.language, "auto");
    EXPECT_EQ(r.task, "transcribe");
    EXPECT_EQ(r.step_ms, 500);
    EXPECT_FALSE(r.exact_steps);
    EXPECT_TRUE(r.commands);
    EXPECT_TRUE(r.guard);
    EXPECT_EQ(r.model, "");
}

TEST(LiveRequest, EveryParameterIsRead) {
    const auto result = parse_live_request(
        "/v1/realtime/transcription?sample_rate=48000&language=de&task=translate&step_ms=250&"
        "exact_steps=1&commands=0&guard=false&model=whisper-1&");
    ASSERT_TRUE(std::holds_alternative<LiveRequest>(result));
    const LiveRequest& r = std::get<LiveRequest>(result);
    EXPECT_EQ(r.sample_rate_hz, 48000);
    EXPECT_EQ(r.language, "de");
    EXPECT_EQ(r.task, "translate");
    EXPECT_EQ(r.step_ms, 250);
    EXPECT_TRUE(r.exact_steps);
    EXPECT_FALSE(r.commands);
    EXPECT_FALSE(r.guard);
    EXPECT_EQ(r.model, "whisper-1");
}

TEST(LiveRequest, BadValuesAre400NamingTheParameter) {
    struct Case {
        const char* query;
        const char* param;
        const char* says;
    };
    for (const Case& c : {
             Case{"sample_rate=7", "sample_rate", "from 8000 to 192000 Hz"},
             Case{"sample_rate=16k", "sample_rate", "from 8000 to 192000 Hz"},
             Case{"sample_rate=", "sample_rate", "from 8000 to 192000 Hz"},
             Case{"step_ms=50", "step_ms", "from 100 to 10000"},
             Case{"task=summarize", "task", "transcribe or translate"},
             Case{"exact_steps=yes", "exact_steps", "1 or 0"},
             Case{"language=", "language", "a language code, or auto"},
             Case{"speed=2", "speed", "unknown parameter speed"},
         }) {
        const ApiError e = refusal(std::string("/v1/realtime/transcription?") + c.query);
        EXPECT_EQ(e.status, 400) << c.query;
        EXPECT_EQ(e.param, std::optional<std::string>(c.param)) << c.query;
        EXPECT_NE(e.message.find(c.says), std::string::npos) << c.query << ": " << e.message;
    }
}

}  // namespace
}  // namespace earshot::server
