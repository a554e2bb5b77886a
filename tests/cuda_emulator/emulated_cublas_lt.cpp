// The emulated cuBLASLt (cublasLt.h): descriptors as plain structs, and cublasLtMatmul as a
// double-precision reference product with the documented beta C term and BIAS epilogue.
#include <cstddef>
#include <cstring>
#include <vector>

#include "cublasLt.h"
#include "cuda_fp16.h"
#include "emulator_state.h"

using namespace earshot::cuda_emulator;

struct cublasLtContext {};
struct cublasLtMatmulDescOpaque_t {
    cublasOperation_t transa = CUBLAS_OP_N;
    cublasOperation_t transb = CUBLAS_OP_N;
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    const void* bias = nullptr;
    int64_t bias_batch_stride = 0;
};
struct cublasLtMatrixLayoutOpaque_t {
    cudaDataType type = CUDA_R_32F;
    int64_t rows = 0, cols = 0, ld = 0;
    int32_t batch_count = 1;
    int64_t batch_stride = 0;
};

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
    *handle = new cublasLtContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                        cudaDataType scale_type) {
    if (compute != CUBLAS_COMPUTE_32F || scale_type != CUDA_R_32F) {
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    *desc = new cublasLtMatmulDescOpaque_t;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
    delete desc;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attribute,
                                              const void* value, size_t bytes) {
    switch (attribute) {
        case CUBLASLT_MATMUL_DESC_TRANSA:
        case CUBLASLT_MATMUL_DESC_TRANSB: {
            if (bytes != sizeof(cublasOperation_t)) return CUBLAS_STATUS_INVALID_VALUE;
            cublasOperation_t op;
            std::memcpy(&op, value, bytes);
            (attribute == CUBLASLT_MATMUL_DESC_TRANSA ? desc->transa : desc->transb) = op;
            return CUBLAS_STATUS_SUCCESS;
        }
        case CUBLASLT_MATMUL_DESC_EPILOGUE: {
            if (bytes != sizeof(cublasLtEpilogue_t)) return CUBLAS_STATUS_INVALID_VALUE;
            std::memcpy(&desc->epilogue, value, bytes);
            if (desc->epilogue != CUBLASLT_EPILOGUE_DEFAULT &&
                desc->epilogue != CUBLASLT_EPILOGUE_BIAS) {
                return CUBLAS_STATUS_NOT_SUPPORTED;
            }
            return CUBLAS_STATUS_SUCCESS;
        }
        case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
            if (bytes != sizeof(void*)) return CUBLAS_STATUS_INVALID_VALUE;
            std::memcpy(&desc->bias, value, bytes);
            return CUBLAS_STATUS_SUCCESS;
        case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
            if (bytes != sizeof(int64_t)) return CUBLAS_STATUS_INVALID_VALUE;
            std::memcpy(&desc->bias_batch_stride, value, bytes);
            return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                cublasLtMatrixLayoutAttribute_t attribute,
                                                const void* value, size_t bytes) {
    switch (attribute) {
        case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
            if (bytes != sizeof(int32_t)) return CUBLAS_STATUS_INVALID_VALUE;
            std::memcpy(&layout->batch_count, value, bytes);
            return layout->batch_count >= 1 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
        case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
            if (bytes != sizeof(int64_t)) return CUBLAS_STATUS_INVALID_VALUE;
            std::memcpy(&layout->batch_stride, value, bytes);
            return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
    if (ld < static_cast<int64_t>(rows)) return CUBLAS_STATUS_INVALID_VALUE;
    *layout = new cublasLtMatrixLayoutOpaque_t{type, static_cast<int64_t>(rows),
                                               static_cast<int64_t>(cols), ld};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
    delete layout;
    return CUBLAS_STATUS_SUCCESS;
}

namespace {

double read(const void* data, cudaDataType type, int64_t index) {
    if (type == CUDA_R_16F) return __half2float(static_cast<const __half*>(data)[index]);
    return static_cast<const float*>(data)[index];
}

void write(void* data, cudaDataType type, int64_t index, double value) {
    if (type == CUDA_R_16F) {
        static_cast<__half*>(data)[index] = __float2half_rn(static_cast<float>(value));
    } else {
        static_cast<float*>(data)[index] = static_cast<float>(value);
    }
}

struct Matmul {
    cublasLtMatmulDescOpaque_t desc;
    cublasLtMatrixLayoutOpaque_t a, b, c, d;
    const void *a_data, *b_data, *c_data;
    void* d_data;
    float alpha, beta;

    void run() const {
        for (int64_t i = 0; i < d.batch_count; ++i) run_batch(i);
    }

    static const void* at(const void* data, const cublasLtMatrixLayoutOpaque_t& l, int64_t i,
                          int64_t stride) {
        const int64_t bytes = l.type == CUDA_R_16F ? 2 : 4;
        return static_cast<const std::byte*>(data) + i * stride * bytes;
    }

    void run_batch(int64_t batch) const {
        const void* a_at = at(a_data, a, batch, a.batch_stride);
        const void* b_at = at(b_data, b, batch, b.batch_stride);
        const void* c_at = at(c_data, c, batch, c.batch_stride);
        void* d_at = const_cast<void*>(at(d_data, d, batch, d.batch_stride));
        const void* bias_at =
            desc.bias == nullptr ? nullptr : at(desc.bias, d, batch, desc.bias_batch_stride);
        const int64_t m = d.rows;
        const int64_t n = d.cols;
        const int64_t k = desc.transa == CUBLAS_OP_N ? a.cols : a.rows;
        // D is written only after every product is formed: C may be D (in place).
        std::vector<double> out(static_cast<size_t>(m * n));
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) {
                double sum = 0.0;
                for (int64_t p = 0; p < k; ++p) {
                    const int64_t ai = desc.transa == CUBLAS_OP_N ? i + p * a.ld : p + i * a.ld;
                    const int64_t bi = desc.transb == CUBLAS_OP_N ? p + j * b.ld : j + p * b.ld;
                    sum += read(a_at, a.type, ai) * read(b_at, b.type, bi);
                }
                double value = double{alpha} * sum;
                if (beta != 0.0F) value += double{beta} * read(c_at, c.type, i + j * c.ld);
                if (desc.epilogue == CUBLASLT_EPILOGUE_BIAS) value += read(bias_at, d.type, i);
                out[static_cast<size_t>(i + j * m)] = value;
            }
        }
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) {
                write(d_at, d.type, i + j * d.ld, out[static_cast<size_t>(i + j * m)]);
            }
        }
    }
};

}  // namespace

cublasStatus_t cublasLtMatmul(cublasLtHandle_t /*handle*/, cublasLtMatmulDesc_t desc,
                              const void* alpha, const void* a, cublasLtMatrixLayout_t a_desc,
                              const void* b, cublasLtMatrixLayout_t b_desc, const void* beta,
                              const void* c, cublasLtMatrixLayout_t c_desc, void* d,
                              cublasLtMatrixLayout_t d_desc, const cublasLtMatmulAlgo_t* /*algo*/,
                              void* /*workspace*/, size_t /*workspace_bytes*/,
                              cudaStream_t stream) {
    const Matmul matmul{*desc,
                        *a_desc,
                        *b_desc,
                        *c_desc,
                        *d_desc,
                        a,
                        b,
                        c,
                        d,
                        *static_cast<const float*>(alpha),
                        *static_cast<const float*>(beta)};
    const int64_t a_rows = desc->transa == CUBLAS_OP_N ? a_desc->rows : a_desc->cols;
    const int64_t k = desc->transa == CUBLAS_OP_N ? a_desc->cols : a_desc->rows;
    const int64_t b_rows = desc->transb == CUBLAS_OP_N ? b_desc->rows : b_desc->cols;
    const int64_t b_cols = desc->transb == CUBLAS_OP_N ? b_desc->cols : b_desc->rows;
    // The combinations the documentation lists for f16 operands and f32 compute, as used here.
    const bool types =
        a_desc->type == CUDA_R_16F && b_desc->type == CUDA_R_16F && c_desc->type == d_desc->type;
    const bool shapes = a_rows == d_desc->rows && b_cols == d_desc->cols && b_rows == k &&
                        c_desc->rows == d_desc->rows && c_desc->cols == d_desc->cols &&
                        c_desc->ld == d_desc->ld;
    // One batch count in every layout (a stride of 0 reads one matrix for all).
    const bool batches = a_desc->batch_count == d_desc->batch_count &&
                         b_desc->batch_count == d_desc->batch_count &&
                         c_desc->batch_count == d_desc->batch_count;
    if (!types) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!batches) return CUBLAS_STATUS_INVALID_VALUE;
    if (!shapes) return CUBLAS_STATUS_INVALID_VALUE;
    if (desc->epilogue == CUBLASLT_EPILOGUE_BIAS && desc->bias == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (capturing(stream)) {
        stream->capture->push_back([matmul] { matmul.run(); });
        return CUBLAS_STATUS_SUCCESS;
    }
    ++g_kernel_runs;
    matmul.run();
    return CUBLAS_STATUS_SUCCESS;
}
