// GEMMs with fused epilogues through cuBLASLt (issue 30): a linear's bias (CUBLASLT_EPILOGUE_BIAS)
// and its residual (C, beta = 1) in the GEMM itself, f16 or f32 out, optionally strided-batched.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace earshot::backend::cuda {

// y [m, n] = x [m, k] w^T (w [n, k]) + bias [n] + residual [m, n]; x and w f16, f32
// accumulation. y f16 (`y_half`; bias f16, no residual) or f32 (bias and residual f32). Bias
// and residual may be null; residual may be y itself.
struct LtGemm {
    const uint16_t* x = nullptr;
    const uint16_t* w = nullptr;
    const void* bias = nullptr;
    const float* residual = nullptr;
    void* y = nullptr;
    bool y_half = false;
    int64_t m = 0, k = 0, n = 0;
    // Strided batches (cuBLASLt's STRIDED_BATCH_OFFSET and BIAS_BATCH_STRIDE, in elements):
    // batch i reads x + i x_stride, w + i w_stride, bias + i bias_stride and writes y + i
    // y_stride. A stride of 0 reads the same matrix in every batch (listen's x for each head).
    int64_t batch = 1;
    int64_t x_stride = 0, w_stride = 0, y_stride = 0, bias_stride = 0;
};

// Throws CudaError when cuBLASLt refuses or fails; asynchronous on `stream`. The first call of
// each distinct GEMM on a handle makes its descriptors and asks cuBLASLt's heuristic for its
// algorithm; later calls reuse them (until forget_lt_gemms).
void lt_gemm(cublasLtHandle_t lt, const LtGemm& gemm, void* workspace, size_t workspace_bytes,
             cudaStream_t stream);

// Drops what lt_gemm kept for `lt`, before the handle is destroyed.
void forget_lt_gemms(cublasLtHandle_t lt);

}  // namespace earshot::backend::cuda
