// Choosing a block dot kernel (legacy types and k-quants): the ISA this CPU runs, checked once.
#include "backend/cpu/quant/block_dot.h"

#include "backend/cpu/quant/block_dot_k.h"

namespace earshot::backend::cpu {

BlockDotIsa best_block_dot_isa() {
    static const BlockDotIsa isa = [] {
#if defined(__x86_64__) && defined(__GNUC__)
        const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          __builtin_cpu_supports("f16c");
        const bool vnni =
            avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
        if (vnni && avx512_vnni_block_dot(checkpoint::GgmlType::q8_0) != nullptr) {
            return BlockDotIsa::avx512_vnni;
        }
        if (avx2 && avx2_block_dot(checkpoint::GgmlType::q8_0) != nullptr) return BlockDotIsa::avx2;
#endif
        return BlockDotIsa::reference;
    }();
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
