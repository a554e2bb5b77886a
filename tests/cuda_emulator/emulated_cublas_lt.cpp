// The emulated cuBLASLt (cublasLt.h): descriptors as plain structs, and cublasLtMatmul as a
// double-precision reference product with the documented beta C term and BIAS epilogue.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <mutex>
#include <set>
#include <tuple>
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
struct cublasLtMatmulPreferenceOpaque_t {
    uint64_t workspace_bytes = 0;
    uint64_t align_bytes[4] = {256, 256, 256, 256};  // A, B, C, D
};

namespace earshot::cuda_emulator {
std::atomic<size_t> g_lt_heuristic_queries{0};
std::atomic<size_t> g_lt_matmuls{0};
}  // namespace earshot::cuda_emulator

namespace {

constexpr uint64_t kAlgoMagic = 0x4c74416c676fULL;  // "LtAlgo"

// The problem an algorithm is for: shapes, leading dimensions, types, epilogue, transposes.
std::array<uint64_t, 5> problem_of(const cublasLtMatmulDescOpaque_t& desc,
                                   const cublasLtMatrixLayoutOpaque_t& a,
                                   const cublasLtMatrixLayoutOpaque_t& b,
                                   const cublasLtMatrixLayoutOpaque_t& c,
                                   const cublasLtMatrixLayoutOpaque_t& d) {
    const auto u = [](int64_t v) { return static_cast<uint64_t>(v) & 0xffffffffULL; };
    const int64_t k = desc.transa == CUBLAS_OP_N ? a.cols : a.rows;
    return {u(d.rows) | u(d.cols) << 32, u(k) | u(a.ld) << 32, u(b.ld) | u(c.ld) << 32,
            static_cast<uint64_t>(a.type) | static_cast<uint64_t>(b.type) << 8 |
                static_cast<uint64_t>(c.type) << 16 | static_cast<uint64_t>(d.type) << 24 |
                static_cast<uint64_t>(desc.epilogue) << 32 |
                static_cast<uint64_t>(desc.transa) << 40 | static_cast<uint64_t>(desc.transb) << 48,
            u(d.ld)};
}

uint64_t alignment_of(const void* address) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    uint64_t align = 256;
    while (align > 1 && at % align != 0) align /= 2;
    return align;
}

// The distinct GEMMs run per handle: problem, the alignments of A, B, C, D and the bias, and
// the workspace bytes.
std::mutex g_gemms_mutex;
std::set<std::tuple<const void*, std::array<uint64_t, 5>, std::array<uint64_t, 5>, size_t>> g_gemms;

}  // namespace

namespace earshot::cuda_emulator {
size_t lt_distinct_gemms() {
    std::lock_guard<std::mutex> lock(g_gemms_mutex);
    return g_gemms.size();
}
}  // namespace earshot::cuda_emulator

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
    *handle = new cublasLtContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
    {
        std::lock_guard<std::mutex> lock(g_gemms_mutex);
        for (auto it = g_gemms.begin(); it != g_gemms.end();) {
            it = std::get<0>(*it) == handle ? g_gemms.erase(it) : std::next(it);
        }
    }
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

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
    *pref = new cublasLtMatmulPreferenceOpaque_t;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
    delete pref;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attribute,
                                                    const void* value, size_t bytes) {
    if (bytes != sizeof(uint64_t)) return CUBLAS_STATUS_INVALID_VALUE;
    uint64_t v = 0;
    std::memcpy(&v, value, bytes);
    switch (attribute) {
        case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
            pref->workspace_bytes = v;
            return CUBLAS_STATUS_SUCCESS;
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
            if (v == 0 || (v & (v - 1)) != 0) return CUBLAS_STATUS_INVALID_VALUE;
            pref->align_bytes[attribute - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = v;
            return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t /*handle*/, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a_desc,
    cublasLtMatrixLayout_t b_desc, cublasLtMatrixLayout_t c_desc, cublasLtMatrixLayout_t d_desc,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t* results,
    int* returned) {
    if (requested < 1 || results == nullptr || returned == nullptr) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    ++g_lt_heuristic_queries;
    cublasLtMatmulHeuristicResult_t result{};
    const auto problem = problem_of(*desc, *a_desc, *b_desc, *c_desc, *d_desc);
    result.algo.data[0] = kAlgoMagic;
    std::copy(problem.begin(), problem.end(), result.algo.data + 1);
    for (int i = 0; i < 4; ++i) result.algo.data[6] |= pref->align_bytes[i] << (16 * i);
    // The bias pointer's alignment, as the heuristic reads it from the descriptor, and the most
    // workspace the algorithm may be given.
    result.algo.data[7] =
        (desc->bias != nullptr ? alignment_of(desc->bias) : 0) | pref->workspace_bytes << 16;
    result.workspaceSize = 0;
    result.state = CUBLAS_STATUS_SUCCESS;
    result.wavesCount = 1.0F;
    results[0] = result;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

namespace {

// Whether `algo` was chosen for this call's problem and pointers.
bool algo_fits(const cublasLtMatmulAlgo_t& algo, const std::array<uint64_t, 5>& problem,
               const void* const (&pointers)[4], const void* bias, size_t workspace_bytes) {
    if (algo.data[0] != kAlgoMagic || !std::equal(problem.begin(), problem.end(), algo.data + 1)) {
        return false;
    }
    for (int i = 0; i < 4; ++i) {
        const uint64_t assumed = (algo.data[6] >> (16 * i)) & 0xffffU;
        if (alignment_of(pointers[i]) < assumed) return false;
    }
    if (bias != nullptr && alignment_of(bias) < (algo.data[7] & 0xffffU)) return false;
    return workspace_bytes <= (algo.data[7] >> 16);
}

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
    cudaStream_t stream;

    void run() const {
        ++g_lt_matmuls;
        note_library_kernel(stream, "a cuBLASLt matmul", d_data);
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

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void* a, cublasLtMatrixLayout_t a_desc, const void* b,
                              cublasLtMatrixLayout_t b_desc, const void* beta, const void* c,
                              cublasLtMatrixLayout_t c_desc, void* d, cublasLtMatrixLayout_t d_desc,
                              const cublasLtMatmulAlgo_t* algo, void* /*workspace*/,
                              size_t workspace_bytes, cudaStream_t stream) {
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
                        *static_cast<const float*>(beta),
                        stream};
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
    const auto problem = problem_of(*desc, *a_desc, *b_desc, *c_desc, *d_desc);
    const void* const pointers[4] = {a, b, c, d};
    const void* bias = desc->epilogue == CUBLASLT_EPILOGUE_BIAS ? desc->bias : nullptr;
    if (algo != nullptr && !algo_fits(*algo, problem, pointers, bias, workspace_bytes)) {
        return CUBLAS_STATUS_INVALID_VALUE;  // an algorithm chosen for another problem
    }
    {
        std::lock_guard<std::mutex> lock(g_gemms_mutex);
        g_gemms.insert({handle,
                        problem,
                        {alignment_of(a), alignment_of(b), alignment_of(c), alignment_of(d),
                         bias != nullptr ? alignment_of(bias) : 0},
                        workspace_bytes});
    }
    if (capturing(stream)) {
        stream->capture->push_back([matmul] { matmul.run(); });
        return CUBLAS_STATUS_SUCCESS;
    }
    ++g_kernel_runs;
    matmul.run();
    return CUBLAS_STATUS_SUCCESS;
}
