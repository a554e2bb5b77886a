// MultipartForm: a multipart/form-data body (RFC 7578) split into its named parts: the form
// fields and the uploaded file of OpenAI's audio endpoints.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::server {

// The body does not follow multipart/form-data; what() says where it breaks.
class MultipartError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct FormPart {
    std::string name;                     // Content-Disposition name="..."
    std::optional<std::string> filename;  // filename="..." (a file part); empty: a plain field
    std::string content_type;             // the part's Content-Type; empty when not given
    std::string_view body;                // into the body given to parse_multipart
};

// The boundary of a Content-Type header "multipart/form-data; boundary=XYZ" (quoted or not).
// Throws MultipartError when the type is another or the boundary is missing.
std::string multipart_boundary(std::string_view content_type);

// The parts of `body` in order. Each part's body views `body`, which must outlive the result.
// Throws MultipartError when a delimiter, a part header or the closing delimiter is missing.
std::vector<FormPart> parse_multipart(std::string_view body, std::string_view boundary);

// The first part named `name`, or nullptr.
const FormPart* find_part(const std::vector<FormPart>& parts, std::string_view name);

}  // namespace earshot::server
