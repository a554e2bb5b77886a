// The block dot kernels for AVX-512 VNNI on 256-bit vectors (vpdpbusd does the u8 x s8 dot in one
// instruction; this file is compiled with AVX-512 F/VL/BW/VNNI flags, see engine/CMakeLists.txt;
// block_dot.cpp runs it only on a CPU that has them).
#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/block_dot_k.h"
#include "backend/cpu/quant/block_dot_k_x86.h"
#include "backend/cpu/quant/block_dot_x86.h"

namespace earshot::backend::cpu {

#if defined(__x86_64__) && defined(__AVX512VNNI__)
BlockDot avx512_vnni_block_dot(checkpoint::GgmlType type) { return x86_block_dot(type); }
BlockDotRows avx512_vnni_block_dot_rows(checkpoint::GgmlType type) {
    return x86_block_dot_rows(type);
}
KBlockDot avx512_vnni_k_block_dot(checkpoint::GgmlType type) { return x86_k_block_dot(type); }
KBlockDotRows avx512_vnni_k_block_dot_rows(checkpoint::GgmlType type) {
    return x86_k_block_dot_rows(type);
}
#else
BlockDot avx512_vnni_block_dot(checkpoint::GgmlType /*type*/) { return nullptr; }
BlockDotRows avx512_vnni_block_dot_rows(checkpoint::GgmlType /*type*/) { return nullptr; }
KBlockDot avx512_vnni_k_block_dot(checkpoint::GgmlType /*type*/) { return nullptr; }
KBlockDotRows avx512_vnni_k_block_dot_rows(checkpoint::GgmlType /*type*/) { return nullptr; }
#endif

}  // namespace earshot::backend::cpu
