// The bearer token every request but /health must carry when the server has an API key.
#pragma once

#include <string>
#include <string_view>

namespace earshot::server {

// Whether `authorization` (the Authorization header) is "Bearer <key>". The comparison takes the
// same time whatever byte differs first, so the key cannot be found one byte at a time by timing.
bool bearer_matches(std::string_view authorization, std::string_view key);

// The first line of `path` without its line end: the key of --api-key-file. Throws
// std::runtime_error naming the file when it cannot be read or holds no key.
std::string read_api_key_file(const std::string& path);

}  // namespace earshot::server
