// bearer_matches: a constant-time comparison of the Authorization header with the key.
#include "server/api_key.h"

#include <cstddef>
#include <fstream>
#include <stdexcept>

namespace earshot::server {

bool bearer_matches(std::string_view authorization, std::string_view key) {
    constexpr std::string_view kScheme = "Bearer ";
    if (key.empty()) return false;
    if (authorization.substr(0, kScheme.size()) != kScheme) return false;
    const std::string_view given = authorization.substr(kScheme.size());
    // Every byte of the key is compared whatever the given token's length; the length
    // difference goes into the same accumulator.
    unsigned difference = given.size() == key.size() ? 0U : 1U;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0U;
        const unsigned char b = static_cast<unsigned char>(key[i]);
        difference |= static_cast<unsigned>(a ^ b);
    }
    // Keep the compiler from ending the loop early on the accumulator.
    volatile unsigned result = difference;
    return result == 0U;
}

std::string read_api_key_file(const std::string& path) {
    std::ifstream file(path);
    if (!file) throw std::runtime_error(path + ": cannot read the API key file");
    std::string key;
    std::getline(file, key);
    while (!key.empty() && (key.back() == '\r' || key.back() == ' ')) key.pop_back();
    if (key.empty()) throw std::runtime_error(path + ": the API key file's first line is empty");
    return key;
}

}  // namespace earshot::server
