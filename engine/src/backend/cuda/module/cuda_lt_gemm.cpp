// lt_gemm (cuda_lt_gemm.h): one cublasLtMatmul, row-major y = x w^T computed as the column-major
// y^T [n, m] = w^T (w stored as [k, n], transposed) x^T (x stored as [k, m]); the bias, of length
// n = D's rows, is what CUBLASLT_EPILOGUE_BIAS adds to every column. Its descriptors and the
// algorithm cuBLASLt's heuristic picks are made once per distinct GEMM and handle (shape, output
// type, epilogue, residual, pointer alignments, workspace) and kept until forget_lt_gemms.
// Batches are strided.
#include "cuda_lt_gemm.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "cuda_check.h"

namespace earshot::backend::cuda {

namespace {

// What makes two calls the same GEMM to cuBLASLt. The alignments (the largest power of two up to
// 256 dividing each address) are part of it: the heuristic picks an algorithm for them.
struct LtGemmKey {
    cublasLtHandle_t lt = nullptr;
    int64_t m = 0, k = 0, n = 0;
    bool y_half = false, bias = false, residual = false;
    uint32_t x_align_bytes = 0, w_align_bytes = 0, y_align_bytes = 0, c_align_bytes = 0,
             bias_align_bytes = 0;
    size_t workspace_bytes = 0;
    int64_t batch = 1, x_stride = 0, w_stride = 0, y_stride = 0, bias_stride = 0;
    auto tie() const {
        return std::tie(lt, m, k, n, y_half, bias, residual, x_align_bytes, w_align_bytes,
                        y_align_bytes, c_align_bytes, bias_align_bytes, workspace_bytes, batch,
                        x_stride, w_stride, y_stride, bias_stride);
    }
    bool operator<(const LtGemmKey& other) const { return tie() < other.tie(); }
};

uint32_t alignment_bytes(const void* address) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    uint32_t align = 256;
    while (align > 1 && at % align != 0) align /= 2;
    return align;
}

// One GEMM's descriptors and algorithm, destroyed with the cache entry.
struct LtPlan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
    LtPlan() = default;
    LtPlan(const LtPlan&) = delete;
    LtPlan& operator=(const LtPlan&) = delete;
    ~LtPlan() {
        if (c != nullptr) cublasLtMatrixLayoutDestroy(c);
        if (b != nullptr) cublasLtMatrixLayoutDestroy(b);
        if (a != nullptr) cublasLtMatrixLayoutDestroy(a);
        if (op != nullptr) cublasLtMatmulDescDestroy(op);
    }
};

// The preference of one heuristic query, destroyed however it ends.
struct LtPreference {
    cublasLtMatmulPreference_t pref = nullptr;
    ~LtPreference() {
        if (pref != nullptr) cublasLtMatmulPreferenceDestroy(pref);
    }
};

// Every handle's GEMMs. One lock: several models may run on several threads, and a plan's bias
// pointer is set on its shared descriptor right before the call that reads it.
std::mutex g_plans_mutex;
std::map<LtGemmKey, std::unique_ptr<LtPlan>> g_plans;

void set_pref_bytes(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attribute,
                    uint64_t value) {
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, attribute, &value, sizeof(value)));
}

// The descriptors of `key`'s GEMM and the algorithm the heuristic ranks first for them (`g`'s
// bias pointer set: the heuristic reads its alignment).
std::unique_ptr<LtPlan> make_plan(const LtGemmKey& key, const LtGemm& g) {
    auto plan = std::make_unique<LtPlan>();
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T;
    const cublasOperation_t plain = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                                sizeof(transpose)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &plain,
                                                sizeof(plain)));
    if (key.bias) {
        // The bias takes D's type (the attribute's documented default).
        const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                    &epilogue, sizeof(epilogue)));
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                    &g.bias, sizeof(g.bias)));
    }
    const cudaDataType out_type = key.y_half ? CUDA_R_16F : CUDA_R_32F;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->a, CUDA_R_16F, static_cast<uint64_t>(key.k),
                                            static_cast<uint64_t>(key.n), key.k));  // w [n, k]
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->b, CUDA_R_16F, static_cast<uint64_t>(key.k),
                                            static_cast<uint64_t>(key.m), key.k));  // x [m, k]
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->c, out_type, static_cast<uint64_t>(key.n),
                                            static_cast<uint64_t>(key.m), key.n));  // y [m, n]
    if (key.batch > 1) {
        // Every layout carries the batch count and its stride; the bias its own stride.
        const auto count = static_cast<int32_t>(key.batch);
        const std::pair<cublasLtMatrixLayout_t, int64_t> layouts[] = {
            {plan->a, key.w_stride}, {plan->b, key.x_stride}, {plan->c, key.y_stride}};
        for (const auto& [layout, stride] : layouts) {
            CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
        }
        if (key.bias) {
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op,
                                                        CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                                        &key.bias_stride, sizeof(key.bias_stride)));
        }
    }
    LtPreference p;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&p.pref));
    set_pref_bytes(p.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, key.workspace_bytes);
    set_pref_bytes(p.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.w_align_bytes);
    set_pref_bytes(p.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.x_align_bytes);
    set_pref_bytes(p.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.c_align_bytes);
    set_pref_bytes(p.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.y_align_bytes);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(key.lt, plan->op, plan->a, plan->b, plan->c,
                                                plan->c, p.pref, 1, &result, &found));
    if (found < 1) {
        throw CudaError(CudaErrorKind::runtime,
                        "cuBLASLt has no algorithm for the GEMM [" + std::to_string(key.m) + ", " +
                            std::to_string(key.k) + "] x [" + std::to_string(key.k) + ", " +
                            std::to_string(key.n) + "]" + (key.y_half ? " f16" : " f32") +
                            (key.bias ? " with bias" : "") +
                            (key.residual ? " with residual" : ""));
    }
    plan->algo = result.algo;
    return plan;
}

}  // namespace

void lt_gemm(cublasLtHandle_t lt, const LtGemm& g, void* workspace, size_t workspace_bytes,
             cudaStream_t stream) {
    if (g.y_half && g.residual != nullptr) {
        throw std::logic_error("lt_gemm: a residual needs an f32 output");
    }
    if (g.m == 0 || g.n == 0) return;
    if (g.batch > 1 && g.residual != nullptr) {
        throw std::logic_error("lt_gemm: a batched GEMM takes no residual");
    }
    const void* c = g.residual != nullptr ? static_cast<const void*>(g.residual) : g.y;
    const LtGemmKey key{lt,
                        g.m,
                        g.k,
                        g.n,
                        g.y_half,
                        g.bias != nullptr,
                        g.residual != nullptr,
                        alignment_bytes(g.x),
                        alignment_bytes(g.w),
                        alignment_bytes(g.y),
                        alignment_bytes(c),
                        g.bias != nullptr ? alignment_bytes(g.bias) : 0U,
                        workspace != nullptr ? workspace_bytes : 0,
                        g.batch,
                        g.batch > 1 ? g.x_stride : 0,
                        g.batch > 1 ? g.w_stride : 0,
                        g.batch > 1 ? g.y_stride : 0,
                        g.batch > 1 ? g.bias_stride : 0};
    std::lock_guard<std::mutex> lock(g_plans_mutex);
    auto found = g_plans.find(key);
    if (found == g_plans.end()) found = g_plans.emplace(key, make_plan(key, g)).first;
    const LtPlan& plan = *found->second;
    if (g.bias != nullptr) {
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                    &g.bias, sizeof(g.bias)));
    }
    const float alpha = 1.0F;
    const float beta = g.residual != nullptr ? 1.0F : 0.0F;
    CUBLAS_CHECK(cublasLtMatmul(lt, plan.op, &alpha, g.w, plan.a, g.x, plan.b, &beta, c, plan.c,
                                g.y, plan.c, &plan.algo, workspace, key.workspace_bytes, stream));
}

void forget_lt_gemms(cublasLtHandle_t lt) {
    std::lock_guard<std::mutex> lock(g_plans_mutex);
    for (auto it = g_plans.begin(); it != g_plans.end();) {
        it = it->first.lt == lt ? g_plans.erase(it) : std::next(it);
    }
}

}  // namespace earshot::backend::cuda
