// describe_non_media_content: libmagic's MIME type decides, its description names the content.
#include "file_content_kind.h"

#include <magic.h>

#include <memory>
#include <string_view>

namespace earshot::audio {
namespace {

struct MagicCookieDeleter {
    void operator()(magic_set* cookie) const { magic_close(cookie); }
};
using MagicCookie = std::unique_ptr<magic_set, MagicCookieDeleter>;

// libmagic's answer for `path` with `flags`, or nullopt when it has none.
std::optional<std::string> magic_answer(const std::filesystem::path& path, int flags) {
    // One cookie per call: this runs only when a file failed to open, and a cookie is not
    // safe to share between threads.
    MagicCookie cookie(magic_open(flags));
    if (cookie == nullptr || magic_load(cookie.get(), nullptr) != 0) {
        return std::nullopt;
    }
    const char* answer = magic_file(cookie.get(), path.c_str());
    if (answer == nullptr) {
        return std::nullopt;
    }
    return std::string(answer);
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::optional<std::string> describe_non_media_content(const std::filesystem::path& path) {
    const auto mime = magic_answer(path, MAGIC_MIME_TYPE | MAGIC_SYMLINK);
    if (!mime || mime->empty()) {
        return std::nullopt;
    }
    // Audio, video, and bytes libmagic cannot name (a damaged or raw stream may be media).
    if (starts_with(*mime, "audio/") || starts_with(*mime, "video/") ||
        *mime == "application/octet-stream" || *mime == "application/ogg") {
        return std::nullopt;
    }
    const auto description = magic_answer(path, MAGIC_NONE | MAGIC_SYMLINK);
    const std::string detail = description && !description->empty() ? *description : *mime;
    if (starts_with(*mime, "text/") || *mime == "application/json") {
        return "a text file, not audio or video (" + detail + ")";
    }
    return "not audio or video (" + detail + ")";
}

}  // namespace earshot::audio
