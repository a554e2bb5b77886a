// The block dot kernels for AVX2 + FMA + F16C (this file is compiled with those flags, see
// engine/CMakeLists.txt; block_dot.cpp runs it only on a CPU that has them).
#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/block_dot_k.h"
#include "backend/cpu/quant/block_dot_k_x86.h"
#include "backend/cpu/quant/block_dot_x86.h"

namespace earshot::backend::cpu {

#if defined(__x86_64__)
BlockDot avx2_block_dot(checkpoint::GgmlType type) { return x86_block_dot(type); }
BlockDotRows avx2_block_dot_rows(checkpoint::GgmlType type) { return x86_block_dot_rows(type); }
KBlockDot avx2_k_block_dot(checkpoint::GgmlType type) { return x86_k_block_dot(type); }
KBlockDotRows avx2_k_block_dot_rows(checkpoint::GgmlType type) {
    return x86_k_block_dot_rows(type);
}
#else
BlockDot avx2_block_dot(checkpoint::GgmlType /*type*/) { return nullptr; }
BlockDotRows avx2_block_dot_rows(checkpoint::GgmlType /*type*/) { return nullptr; }
KBlockDot avx2_k_block_dot(checkpoint::GgmlType /*type*/) { return nullptr; }
KBlockDotRows avx2_k_block_dot_rows(checkpoint::GgmlType /*type*/) { return nullptr; }
#endif

}  // namespace earshot::backend::cpu
