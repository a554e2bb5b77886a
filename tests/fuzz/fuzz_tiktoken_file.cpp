// Fuzz target for the .tiktoken reader: the input is written as a .tiktoken file and loaded as a
// vocabulary ("base64(bytes) rank" per line). A vocabulary that loads must encode and decode text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "earshot/engine/tokenizer/tokenizer.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const earshot::test::TempDir dir("earshot-fuzz-tiktoken");
    const auto path = dir.path() / "vocab.tiktoken";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const auto tokenizer = earshot::tokenizer::Tokenizer::load(path);
        const std::vector<int32_t> ids = tokenizer.encode("hello world, 123");
        for (const int32_t id : ids) {
            if (id < 0 || id >= tokenizer.n_vocab()) {
                std::fprintf(stderr, "encode gave id %d outside the vocabulary\n", id);
                std::abort();
            }
        }
        (void)tokenizer.decode(ids);
    } catch (const earshot::tokenizer::TokenizerError&) {
        // Rejected: a bad base64 token, a bad or repeated rank, a size no layout fits.
    }
    return 0;
}
