// The multipart/form-data reader of the server: boundaries, parts, and the breaks it names.
#include "server/multipart_form.h"

#include <gtest/gtest.h>

#include <string>

namespace earshot::server {
namespace {

std::string form_body(const std::string& boundary) {
    return "preamble\r\n--" + boundary +
           "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--" + boundary +
           "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".wav\"\r\n"
           "Content-Type: audio/wav\r\n\r\nRIFF\r\n--not-the-boundary\r\n--" +
           boundary + "--\r\nepilogue";
}

TEST(MultipartForm, BoundaryFromContentType) {
    EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=abc"), "abc");
    EXPECT_EQ(multipart_boundary("Multipart/Form-Data;boundary=\"a b;c\""), "a b;c");
    EXPECT_EQ(multipart_boundary("multipart/form-data; charset=utf-8; boundary=x1"), "x1");
    EXPECT_THROW(multipart_boundary("application/json"), MultipartError);
    EXPECT_THROW(multipart_boundary("multipart/form-data"), MultipartError);
    EXPECT_THROW(multipart_boundary("multipart/form-data; boundary=" + std::string(71, 'x')),
                 MultipartError);
}

TEST(MultipartForm, PartsWithNamesFilenamesTypesAndBodies) {
    const std::string body = form_body("XyZ");
    const std::vector<FormPart> parts = parse_multipart(body, "XyZ");
    ASSERT_EQ(parts.size(), 2U);
    EXPECT_EQ(parts[0].name, "model");
    EXPECT_FALSE(parts[0].filename.has_value());
    EXPECT_EQ(parts[0].body, "whisper-1");
    EXPECT_EQ(parts[1].name, "file");
    EXPECT_EQ(parts[1].filename.value_or(""), "a \"b\".wav");
    EXPECT_EQ(parts[1].content_type, "audio/wav");
    // A line that only looks like a delimiter stays in the body.
    EXPECT_EQ(parts[1].body, "RIFF\r\n--not-the-boundary");
    EXPECT_EQ(find_part(parts, "file"), &parts[1]);
    EXPECT_EQ(find_part(parts, "prompt"), nullptr);
}

TEST(MultipartForm, EmptyFormAndEmptyPart) {
    EXPECT_TRUE(parse_multipart("--b--\r\n", "b").empty());
    const auto parts = parse_multipart(
        "--b\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\n\r\n--b--", "b");
    ASSERT_EQ(parts.size(), 1U);
    EXPECT_EQ(parts[0].body, "");
}

TEST(MultipartForm, BreaksAreNamed) {
    const auto message = [](const std::string& body) {
        try {
            parse_multipart(body, "b");
        } catch (const MultipartError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("garbage"), "the body holds no delimiter of its boundary");
    const std::string truncated =
        "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF";
    EXPECT_EQ(message(truncated), "part 1 is not closed by a delimiter (the body is truncated)");
    EXPECT_EQ(message("--b\r\nno headers here\r\n--b--"),
              "part 1 has no blank line after its headers");
    EXPECT_EQ(message("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--"),
              "part 1 has no Content-Disposition header");
    EXPECT_EQ(message("--b\r\nContent-Disposition: attachment; name=\"x\"\r\n\r\nx\r\n--b--"),
              "part 1 is not form-data");
    EXPECT_EQ(message("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--"),
              "part 1 has no name");
    EXPECT_EQ(message("--bX\r\n"), "a delimiter is not followed by a line end");
}

}  // namespace
}  // namespace earshot::server
