// Fuzz target for the Hugging Face vocabulary reader: the input up to its first NUL byte is
// written as vocab.json and the rest as merges.txt in a private directory, which is then loaded
// as a tokenizer. A vocabulary that loads must encode and decode text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "temp_dir.h"

namespace {

void write(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const earshot::test::TempDir dir("earshot-fuzz-hf-vocabulary");
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    write(dir.path() / "vocab.json", input.substr(0, split));
    write(dir.path() / "merges.txt",
          split == std::string_view::npos ? std::string_view() : input.substr(split + 1));
    try {
        const auto tokenizer = earshot::tokenizer::Tokenizer::load(dir.path());
        const std::vector<int32_t> ids = tokenizer.encode("hello world, 123");
        for (const int32_t id : ids) {
            if (id < 0 || id >= tokenizer.n_vocab()) {
                std::fprintf(stderr, "encode gave id %d outside the vocabulary\n", id);
                std::abort();
            }
        }
        (void)tokenizer.decode(ids);
    } catch (const earshot::tokenizer::TokenizerError&) {
        // Rejected: malformed JSON, a token that is not byte-level, a bad merge line.
    }
    return 0;
}
