// lt_gemm (cuda_lt_gemm.h): one cublasLtMatmul, row-major y = x w^T computed as the column-major
// y^T [n, m] = w^T (w stored as [k, n], transposed) x^T (x stored as [k, m]); the bias, of length
// n = D's rows, is what CUBLASLT_EPILOGUE_BIAS adds to every column. Batches are strided.
#include "cuda_lt_gemm.h"

#include <stdexcept>
#include <utility>

#include "cuda_check.h"

namespace earshot::backend::cuda {

namespace {

// The descriptors of one call, destroyed however it ends.
struct LtDescriptors {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    ~LtDescriptors() {
        if (c != nullptr) cublasLtMatrixLayoutDestroy(c);
        if (b != nullptr) cublasLtMatrixLayoutDestroy(b);
        if (a != nullptr) cublasLtMatrixLayoutDestroy(a);
        if (op != nullptr) cublasLtMatmulDescDestroy(op);
    }
};

}  // namespace

void lt_gemm(cublasLtHandle_t lt, const LtGemm& g, void* workspace, size_t workspace_bytes,
             cudaStream_t stream) {
    if (g.y_half && g.residual != nullptr) {
        throw std::logic_error("lt_gemm: a residual needs an f32 output");
    }
    if (g.m == 0 || g.n == 0) return;
    LtDescriptors d;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t plain = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                                sizeof(transpose)));
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof(plain)));
    if (g.bias != nullptr) {
        // The bias takes D's type (the attribute's documented default).
        const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                    sizeof(epilogue)));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                    &g.bias, sizeof(g.bias)));
    }
    const cudaDataType out_type = g.y_half ? CUDA_R_16F : CUDA_R_32F;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d.a, CUDA_R_16F, static_cast<uint64_t>(g.k),
                                            static_cast<uint64_t>(g.n), g.k));  // w [n, k]
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d.b, CUDA_R_16F, static_cast<uint64_t>(g.k),
                                            static_cast<uint64_t>(g.m), g.k));  // x [m, k]
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d.c, out_type, static_cast<uint64_t>(g.n),
                                            static_cast<uint64_t>(g.m), g.n));  // y [m, n]
    if (g.batch > 1) {
        if (g.residual != nullptr) {
            throw std::logic_error("lt_gemm: a batched GEMM takes no residual");
        }
        // Every layout carries the batch count and its stride; the bias its own stride.
        const auto count = static_cast<int32_t>(g.batch);
        const std::pair<cublasLtMatrixLayout_t, int64_t> layouts[] = {
            {d.a, g.w_stride}, {d.b, g.x_stride}, {d.c, g.y_stride}};
        for (const auto& [layout, stride] : layouts) {
            CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
        }
        if (g.bias != nullptr) {
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op,
                                                        CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                                        &g.bias_stride, sizeof(g.bias_stride)));
        }
    }
    const float alpha = 1.0F;
    const float beta = g.residual != nullptr ? 1.0F : 0.0F;
    const void* c = g.residual != nullptr ? static_cast<const void*>(g.residual) : g.y;
    CUBLAS_CHECK(cublasLtMatmul(lt, d.op, &alpha, g.w, d.a, g.x, d.b, &beta, c, d.c, g.y, d.c,
                                nullptr, workspace, workspace_bytes, stream));
}

}  // namespace earshot::backend::cuda
