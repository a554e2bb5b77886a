// File digests through OpenSSL's EVP interface, read in 1 MiB blocks.
#include "core/models/file_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

namespace earshot::app {

std::string file_digest(const std::filesystem::path& path, DigestKind kind) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file) throw std::runtime_error("cannot read " + path.string() + " to check its hash");
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context ||
        EVP_DigestInit_ex(context.get(), kind == DigestKind::sha256 ? EVP_sha256() : EVP_sha1(),
                          nullptr) != 1) {
        throw std::runtime_error("cannot start a digest for " + path.string());
    }
    std::vector<unsigned char> buffer(size_t{1} << 20);
    size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
        EVP_DigestUpdate(context.get(), buffer.data(), n);
    }
    if (std::ferror(file.get())) throw std::runtime_error("error reading " + path.string());
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context.get(), digest, &length);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    return hex;
}

}  // namespace earshot::app
