// CheckpointError's message format and the quoting that keeps every message on one line.
#include "earshot/engine/checkpoint/errors.h"

#include <cstdio>
#include <utility>

#include "earshot/base/one_line.h"

namespace earshot::checkpoint {
namespace {

using base::one_line;

std::string compose(const std::filesystem::path& file, const std::string& tensor,
                    const std::string& problem) {
    const std::string full = file.string();
    std::string name = file.filename().string();
    if (name.empty()) {
        name = full.empty() ? std::string("<unnamed>") : full;
    }
    std::string message = one_line(name) + ": ";
    if (!tensor.empty()) {
        message += "tensor " + quote_for_message(tensor) + ": ";
    }
    message += one_line(problem);
    if (!full.empty() && full != name) {
        message += " (" + one_line(full) + ")";
    }
    return message;
}

}  // namespace

CheckpointError::CheckpointError(std::filesystem::path file, std::string problem)
    : CheckpointError(std::move(file), std::string(), std::move(problem)) {}

CheckpointError::CheckpointError(std::filesystem::path file, std::string tensor,
                                 std::string problem)
    : std::runtime_error(compose(file, tensor, problem)),
      file_(std::move(file)),
      tensor_(std::move(tensor)),
      problem_(std::move(problem)) {}

std::string quote_for_message(std::string_view text, std::size_t max_chars) {
    std::string out = "\"";
    std::size_t count = 0;
    for (const char c : text) {
        if (count == max_chars) {
            out += "...";
            break;
        }
        ++count;
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned>(byte));
            out += escaped;
        } else {
            out += c;
        }
    }
    out += '"';
    return out;
}

}  // namespace earshot::checkpoint
