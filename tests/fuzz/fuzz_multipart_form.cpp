// Fuzz target for the server's multipart/form-data reader: the input's first line is the
// request's Content-Type (its boundary, when it has a valid one, else "b0undary"), the rest the
// body. Only MultipartError is expected; every part it returns views the body.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/multipart_form.h"

namespace {

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "multipart invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using earshot::server::MultipartError;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t line_end = input.find('\n');
    const std::string_view content_type = input.substr(0, line_end);
    const std::string_view body =
        line_end == std::string_view::npos ? std::string_view() : input.substr(line_end + 1);
    std::string boundary = "b0undary";
    try {
        boundary = earshot::server::multipart_boundary(content_type);
        require(!boundary.empty() && boundary.size() <= 70, "a boundary of 1 to 70 characters");
    } catch (const MultipartError&) {
        // Not multipart/form-data, or no valid boundary: the body is read with the default.
    }
    try {
        for (const auto& part : earshot::server::parse_multipart(body, boundary)) {
            require(part.body.data() >= body.data() &&
                        part.body.data() + part.body.size() <= body.data() + body.size(),
                    "a part's body lies inside the input");
            require(part.body.find("\r\n--" + boundary) == std::string_view::npos,
                    "no part's body holds a delimiter");
        }
    } catch (const MultipartError&) {
        // Rejected: no delimiter, a part without headers or name, a truncated body.
    }
    return 0;
}
