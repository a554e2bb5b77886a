// The server's reading of OpenAI's form fields, and its API key check.
#include "server/transcription_request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/api_key.h"

namespace earshot::server {
namespace {

FormPart field(std::string name, std::string_view value) {
    return FormPart{std::move(name), std::nullopt, "", value};
}

FormPart file(std::string_view bytes) { return FormPart{"file", "talk.mp3", "audio/mpeg", bytes}; }

ApiError refusal(const std::vector<FormPart>& parts) {
    auto result = read_transcription_form(parts, decoding::Task::transcribe);
    if (auto* error = std::get_if<ApiError>(&result)) return *error;
    return ApiError{0, "accepted", "", std::nullopt, std::nullopt};
}

TEST(TranscriptionForm, FieldsAsOpenAiDefinesThem) {
    const std::vector<FormPart> parts{file("ID3"),
                                      field("model", "whisper-1"),
                                      field("language", "fr"),
                                      field("prompt", "Earshot"),
                                      field("response_format", "verbose_json"),
                                      field("temperature", "0.4"),
                                      field("timestamp_granularities[]", "word")};
    auto result = read_transcription_form(parts, decoding::Task::transcribe);
    ASSERT_TRUE(std::holds_alternative<TranscriptionRequest>(result));
    const auto& request = std::get<TranscriptionRequest>(result);
    EXPECT_EQ(request.model, "whisper-1");
    EXPECT_EQ(request.language, "fr");
    EXPECT_EQ(request.prompt, "Earshot");
    EXPECT_EQ(request.format, ResponseFormat::verbose_json);
    EXPECT_EQ(request.temperature.value_or(-1.0), 0.4);
    EXPECT_TRUE(request.word_times);
    EXPECT_FALSE(request.segment_times);  // only "word" was asked for
    EXPECT_EQ(request.filename, "talk.mp3");
}

TEST(TranscriptionForm, DefaultsAndTranslationIgnoresLanguage) {
    auto result =
        read_transcription_form({file("x"), field("language", "de")}, decoding::Task::translate);
    const auto& request = std::get<TranscriptionRequest>(result);
    EXPECT_EQ(request.format, ResponseFormat::json);
    EXPECT_EQ(request.language, "auto");
    EXPECT_FALSE(request.temperature.has_value());
    EXPECT_TRUE(request.segment_times);
    EXPECT_FALSE(request.word_times);
}

TEST(TranscriptionForm, RefusalsNameTheField) {
    EXPECT_EQ(refusal({field("model", "whisper-1")}).param.value_or(""), "file");
    EXPECT_EQ(refusal({file("")}).code.value_or(""), "empty_file");
    EXPECT_EQ(refusal({file("x"), field("response_format", "docx")}).param.value_or(""),
              "response_format");
    for (const char* bad : {"-0.1", "1.5", "hot", "0.5x", "nan"}) {
        EXPECT_EQ(refusal({file("x"), field("temperature", bad)}).param.value_or(""), "temperature")
            << bad;
    }
    EXPECT_EQ(refusal({file("x"), field("timestamp_granularities[]", "word")}).param.value_or(""),
              "timestamp_granularities");  // words need verbose_json
    EXPECT_EQ(refusal({file("x"), field("response_format", "verbose_json"),
                       field("timestamp_granularities[]", "letter")})
                  .param.value_or(""),
              "timestamp_granularities");
    EXPECT_EQ(refusal({file("x")}).status, 0);  // accepted
}

TEST(ApiKey, BearerTokenMatchesExactly) {
    EXPECT_TRUE(bearer_matches("Bearer s3cret", "s3cret"));
    EXPECT_FALSE(bearer_matches("Bearer s3cre", "s3cret"));
    EXPECT_FALSE(bearer_matches("Bearer s3cret2", "s3cret"));
    EXPECT_FALSE(bearer_matches("Bearer S3cret", "s3cret"));
    EXPECT_FALSE(bearer_matches("Basic s3cret", "s3cret"));
    EXPECT_FALSE(bearer_matches("", "s3cret"));
    EXPECT_FALSE(bearer_matches("Bearer ", ""));  // no key never matches
}

}  // namespace
}  // namespace earshot::server
