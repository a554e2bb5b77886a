// SHA-256 and SHA-1 of a file (OpenSSL's EVP digests), as lower-case hex.
#pragma once

#include <filesystem>
#include <string>

namespace earshot::app {

enum class DigestKind { sha256, sha1 };

// The digest of the whole file; throws std::runtime_error naming the file when it cannot be read.
std::string file_digest(const std::filesystem::path& path, DigestKind kind);

}  // namespace earshot::app
