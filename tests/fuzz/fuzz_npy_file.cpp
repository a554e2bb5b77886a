// Fuzz target for parse_npy, the .npy reader of the `earshot debug` tools: the input is a whole
// file image. Only NpyError is expected; an array it accepts is consistent with its header.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "cli/debug/npy_file.h"

namespace {

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "npy invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using earshot::app::NpyDtype;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const earshot::app::NpyArray array = earshot::app::parse_npy(bytes, "fuzz.npy");
        int64_t count = 1;
        for (const int64_t dim : array.shape) {
            require(dim >= 0, "dimensions are not negative");
            count *= dim;
        }
        require(array.element_count() == count, "element count is the product of the shape");
        const std::size_t held = array.dtype == NpyDtype::f32 ? array.f32.size() : array.i32.size();
        const std::size_t other =
            array.dtype == NpyDtype::f32 ? array.i32.size() : array.f32.size();
        require(held == static_cast<std::size_t>(count), "the values match the shape");
        require(other == 0, "only the array's own dtype holds values");
        require(held * 4 <= size, "the values came from the input");
    } catch (const earshot::app::NpyError&) {
        // Rejected: another version or dtype, a malformed header, a size that does not match.
    }
    return 0;
}
