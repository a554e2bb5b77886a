// What a file holds by its content, not its name (libmagic): names a text file or an image that
// was given as audio, where FFmpeg's own message ("Could not seek to 1041") would not.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace earshot::audio {

// A one-line phrase for a file whose content is known and is neither audio nor video, e.g.
// "a text file, not audio or video (Unicode text, UTF-8 text)" or "not audio or video (PNG image
// data, 1 x 1, 8-bit/color RGB, non-interlaced)". nullopt when the content is audio, video,
// unrecognised data, or the type database cannot be read: the caller keeps FFmpeg's message.
std::optional<std::string> describe_non_media_content(const std::filesystem::path& path);

}  // namespace earshot::audio
