// Choosing a block dot kernel (legacy types and k-quants): the ISA this CPU runs, checked once,
// or a lower one EARSHOT_CPU_ISA names (an AVX2 laptop's kernels on an AVX-512 machine).
#include "backend/cpu/quant/block_dot.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "backend/cpu/quant/block_dot_k.h"

namespace earshot::backend::cpu {

BlockDotIsa cpu_block_dot_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                      __builtin_cpu_supports("f16c");
    const bool vnni = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vnni");
    if (vnni && avx512_vnni_block_dot(checkpoint::GgmlType::q8_0) != nullptr) {
        return BlockDotIsa::avx512_vnni;
    }
    if (avx2 && avx2_block_dot(checkpoint::GgmlType::q8_0) != nullptr) return BlockDotIsa::avx2;
#endif
    return BlockDotIsa::reference;
}

BlockDotIsa chosen_block_dot_isa(BlockDotIsa cpu, const char* asked) {
    if (asked == nullptr || *asked == 0) return cpu;
    for (const BlockDotIsa isa :
         {BlockDotIsa::reference, BlockDotIsa::avx2, BlockDotIsa::avx512_vnni}) {
        if (block_dot_isa_name(isa) != asked) continue;
        if (static_cast<int>(isa) > static_cast<int>(cpu)) {
            throw std::invalid_argument(std::string(kIsaVariable) + "=" + asked +
                                        ": this CPU runs at most " +
                                        std::string(block_dot_isa_name(cpu)));
        }
        return isa;
    }
    throw std::invalid_argument(std::string(kIsaVariable) + "=" + asked +
                                ": not one of reference, avx2, avx512-vnni");
}

BlockDotIsa best_block_dot_isa() {
    // A throwing initializer leaves the static uninitialized: the next call reads the variable
    // again and throws the same error.
    static const BlockDotIsa isa =
        chosen_block_dot_isa(cpu_block_dot_isa(), std::getenv(kIsaVariable));
    return isa;
}

BlockDot block_dot(checkpoint::GgmlType type, BlockDotIsa isa) {
    switch (isa) {
        case BlockDotIsa::reference:
            return reference_block_dot(type);
        case BlockDotIsa::avx2:
            return avx2_block_dot(type);
        case BlockDotIsa::avx512_vnni:
            return avx512_vnni_block_dot(type);
    }
    return nullptr;
}

BlockDotRows block_dot_rows(checkpoint::GgmlType type, BlockDotIsa isa) {
    switch (isa) {
        case BlockDotIsa::reference:
            return reference_block_dot_rows(type);
        case BlockDotIsa::avx2:
            return avx2_block_dot_rows(type);
        case BlockDotIsa::avx512_vnni:
            return avx512_vnni_block_dot_rows(type);
    }
    return nullptr;
}

KBlockDot k_block_dot(checkpoint::GgmlType type, BlockDotIsa isa) {
    switch (isa) {
        case BlockDotIsa::reference:
            return reference_k_block_dot(type);
        case BlockDotIsa::avx2:
            return avx2_k_block_dot(type);
        case BlockDotIsa::avx512_vnni:
            return avx512_vnni_k_block_dot(type);
    }
    return nullptr;
}

KBlockDotRows k_block_dot_rows(checkpoint::GgmlType type, BlockDotIsa isa) {
    switch (isa) {
        case BlockDotIsa::reference:
            return reference_k_block_dot_rows(type);
        case BlockDotIsa::avx2:
            return avx2_k_block_dot_rows(type);
        case BlockDotIsa::avx512_vnni:
            return avx512_vnni_k_block_dot_rows(type);
    }
    return nullptr;
}

std::string_view block_dot_isa_name(BlockDotIsa isa) {
    switch (isa) {
        case BlockDotIsa::reference:
            return "reference";
        case BlockDotIsa::avx2:
            return "avx2";
        case BlockDotIsa::avx512_vnni:
            return "avx512-vnni";
    }
    return "unknown";
}

}  // namespace earshot::backend::cpu
