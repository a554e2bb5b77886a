// parse_multipart: delimiters, part headers (Content-Disposition, Content-Type) and bodies.
#include "server/multipart_form.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace earshot::server {
namespace {

constexpr std::size_t kMaxBoundaryChars = 70;  // RFC 2046 §5.1.1
constexpr std::size_t kMaxPartHeaderBytes = 16 * 1024;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// The value of `key` among "; key=value" parameters of a header value (quoted or bare).
std::optional<std::string> header_parameter(std::string_view value, std::string_view key) {
    std::size_t at = value.find(';');
    while (at != std::string_view::npos) {
        std::string_view rest = trim(value.substr(at + 1));
        const std::size_t equals = rest.find('=');
        const std::string_view name = trim(rest.substr(0, equals));
        if (equals != std::string_view::npos && lower(name) == key) {
            std::string_view raw = trim(rest.substr(equals + 1));
            if (!raw.empty() && raw.front() == '"') {
                std::string out;
                for (std::size_t i = 1; i < raw.size() && raw[i] != '"'; ++i) {
                    if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
                    out += raw[i];
                }
                return out;
            }
            return std::string(raw.substr(0, raw.find(';')));
        }
        // The next ';' outside quotes.
        bool quoted = false;
        std::size_t next = std::string_view::npos;
        for (std::size_t i = at + 1; i < value.size(); ++i) {
            if (value[i] == '"') quoted = !quoted;
            if (value[i] == ';' && !quoted) {
                next = i;
                break;
            }
        }
        at = next;
    }
    return std::nullopt;
}

FormPart parse_part(std::string_view part, std::size_t index) {
    const std::size_t header_end = part.find("\r\n\r\n");
    if (header_end == std::string_view::npos || header_end > kMaxPartHeaderBytes) {
        throw MultipartError("part " + std::to_string(index + 1) +
                             " has no blank line after its headers");
    }
    FormPart result;
    bool disposition = false;
    std::string_view headers = part.substr(0, header_end);
    while (!headers.empty()) {
        const std::size_t end = headers.find("\r\n");
        const std::string_view line = headers.substr(0, end);
        headers = end == std::string_view::npos ? std::string_view() : headers.substr(end + 2);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            throw MultipartError("part " + std::to_string(index + 1) +
                                 " has a header line "
                                 "without a colon");
        }
        const std::string name = lower(trim(line.substr(0, colon)));
        const std::string_view value = trim(line.substr(colon + 1));
        if (name == "content-disposition") {
            if (lower(value.substr(0, value.find(';'))) != "form-data") {
                throw MultipartError("part " + std::to_string(index + 1) + " is not form-data");
            }
            const std::optional<std::string> field = header_parameter(value, "name");
            if (!field) {
                throw MultipartError("part " + std::to_string(index + 1) + " has no name");
            }
            result.name = *field;
            result.filename = header_parameter(value, "filename");
            disposition = true;
        } else if (name == "content-type") {
            result.content_type = std::string(value);
        }
    }
    if (!disposition) {
        throw MultipartError("part " + std::to_string(index + 1) +
                             " has no Content-Disposition header");
    }
    result.body = part.substr(header_end + 4);
    return result;
}

}  // namespace

std::string multipart_boundary(std::string_view content_type) {
    const std::string type = lower(trim(content_type.substr(0, content_type.find(';'))));
    if (type != "multipart/form-data") {
        throw MultipartError("the body must be multipart/form-data, not " +
                             (type.empty() ? std::string("an untyped body") : type));
    }
    const std::optional<std::string> boundary = header_parameter(content_type, "boundary");
    if (!boundary || boundary->empty() || boundary->size() > kMaxBoundaryChars) {
        throw MultipartError("the multipart/form-data Content-Type has no valid boundary");
    }
    return *boundary;
}

std::vector<FormPart> parse_multipart(std::string_view body, std::string_view boundary) {
    const std::string delimiter = "--" + std::string(boundary);
    const std::string inner = "\r\n" + delimiter;
    // The first delimiter starts the body or follows a preamble ending in CRLF.
    std::size_t at = 0;
    if (body.substr(0, delimiter.size()) != delimiter) {
        at = body.find(inner);
        if (at == std::string_view::npos) {
            throw MultipartError("the body holds no delimiter of its boundary");
        }
        at += 2;
    }
    std::vector<FormPart> parts;
    for (;;) {
        at += delimiter.size();
        if (body.substr(at, 2) == "--") return parts;  // the closing delimiter
        // Transport padding, then CRLF.
        while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;
        if (body.substr(at, 2) != "\r\n") {
            throw MultipartError("a delimiter is not followed by a line end");
        }
        at += 2;
        const std::size_t end = body.find(inner, at);
        if (end == std::string_view::npos) {
            throw MultipartError("part " + std::to_string(parts.size() + 1) +
                                 " is not closed by a delimiter (the body is truncated)");
        }
        parts.push_back(parse_part(body.substr(at, end - at), parts.size()));
        at = end + 2;
    }
}

const FormPart* find_part(const std::vector<FormPart>& parts, std::string_view name) {
    for (const FormPart& part : parts) {
        if (part.name == name) return &part;
    }
    return nullptr;
}

}  // namespace earshot::server
