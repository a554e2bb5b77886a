// The emulated cuBLAS: handles bound to a stream, and GEMMs (single and strided batched) computed
// in double precision as reference products.
#include <cstddef>
#include <cstdint>

#include "cublas_v2.h"
#include "cuda_fp16.h"
#include "cuda_runtime.h"
#include "emulator_state.h"

using namespace earshot::cuda_emulator;

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
    *handle = new cublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace(cublasHandle_t /*handle*/, void* /*workspace*/,
                                  size_t /*bytes*/) {
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusString(cublasStatus_t status) {
    return status == CUBLAS_STATUS_SUCCESS ? "success" : "emulated cuBLAS error";
}

const char* cublasGetStatusName(cublasStatus_t status) {
    return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
                                           : "CUBLAS_STATUS_INVALID_VALUE";
}

namespace {

double element(const void* data, cudaDataType type, int64_t index) {
    if (type == CUDA_R_16F) {
        return __half2float(static_cast<const __half*>(data)[index]);
    }
    return static_cast<const float*>(data)[index];
}

// Column-major C [m, n] = alpha op(A) [m, k] op(B) [k, n] + beta C, in double.
cublasStatus_t gemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const void* alpha, const void* a, cudaDataType a_type, int lda, const void* b,
                    cudaDataType b_type, int ldb, const void* beta, void* c, cudaDataType c_type,
                    int ldc) {
    if (c_type != CUDA_R_32F || m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (lda < (transa == CUBLAS_OP_N ? m : k) || ldb < (transb == CUBLAS_OP_N ? k : n) || ldc < m) {
        return CUBLAS_STATUS_INVALID_VALUE;  // cuBLAS checks leading dimensions the same way
    }
    const double scale = *static_cast<const float*>(alpha);
    const double keep = *static_cast<const float*>(beta);
    auto* out = static_cast<float*>(c);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            double sum = 0.0;
            for (int p = 0; p < k; ++p) {
                const int64_t ai =
                    transa == CUBLAS_OP_N ? i + int64_t{p} * lda : p + int64_t{i} * lda;
                const int64_t bi =
                    transb == CUBLAS_OP_N ? p + int64_t{j} * ldb : j + int64_t{p} * ldb;
                sum += element(a, a_type, ai) * element(b, b_type, bi);
            }
            float& result = out[i + int64_t{j} * ldc];
            result = static_cast<float>(scale * sum + (keep == 0.0 ? 0.0 : keep * result));
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}

int64_t element_bytes(cudaDataType type) { return type == CUDA_R_16F ? 2 : 4; }

}  // namespace

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* a, cudaDataType a_type, int lda, const void* b,
                            cudaDataType b_type, int ldb, const void* beta, void* c,
                            cudaDataType c_type, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo) {
    return cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, a, a_type, lda, 0, b,
                                      b_type, ldb, 0, beta, c, c_type, ldc, 0, 1, compute, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* a, cudaDataType a_type, int lda, long long stride_a,
    const void* b, cudaDataType b_type, int ldb, long long stride_b, const void* beta, void* c,
    cudaDataType c_type, int ldc, long long stride_c, int batch_count,
    cublasComputeType_t /*compute*/, cublasGemmAlgo_t /*algo*/) {
    // Host-pointer mode: alpha and beta are read when the call is made (also when captured).
    const float alpha_value = *static_cast<const float*>(alpha);
    const float beta_value = *static_cast<const float*>(beta);
    if (capturing(handle->stream)) {
        handle->stream->capture->push_back([=] {
            cublasContext now;
            cublasGemmStridedBatchedEx(&now, transa, transb, m, n, k, &alpha_value, a, a_type, lda,
                                       stride_a, b, b_type, ldb, stride_b, &beta_value, c, c_type,
                                       ldc, stride_c, batch_count, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT);
        });
        return CUBLAS_STATUS_SUCCESS;
    }
    alpha = &alpha_value;
    beta = &beta_value;
    ++g_kernel_runs;
    note_library_kernel(handle->stream, "a cuBLAS GEMM", c);
    for (int i = 0; i < batch_count; ++i) {
        const cublasStatus_t status =
            gemm(transa, transb, m, n, k, alpha,
                 static_cast<const std::byte*>(a) + i * stride_a * element_bytes(a_type), a_type,
                 lda, static_cast<const std::byte*>(b) + i * stride_b * element_bytes(b_type),
                 b_type, ldb, beta, static_cast<std::byte*>(c) + i * stride_c * 4, c_type, ldc);
        if (status != CUBLAS_STATUS_SUCCESS) return status;
    }
    return CUBLAS_STATUS_SUCCESS;
}
