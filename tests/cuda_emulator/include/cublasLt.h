// The CPU emulation of the cuBLASLt calls Earshot's CUDA module makes: one matmul descriptor
// (compute f32, scale f32, transposes, the DEFAULT or BIAS epilogue and its bias pointer), matrix
// layouts (type, rows, columns, leading dimension; column-major; a batch count and stride, alike
// in every layout, a stride 0 reading one matrix for every batch) and cublasLtMatmul computing,
// in double, D = alpha op(A) op(B) + beta C, then the bias [rows of D] (the next batch's at the
// bias batch stride) added to every column, as the cuBLAS documentation defines
// CUBLASLT_EPILOGUE_BIAS. A, B f16; C and D f16 or f32 alike; the bias of D's type. Anything else
// is CUBLAS_STATUS_NOT_SUPPORTED. The heuristic's algorithm records its problem; cublasLtMatmul
// with an algorithm checks it against the call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cublas_v2.h"

struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext*;
struct cublasLtMatmulDescOpaque_t;
using cublasLtMatmulDesc_t = cublasLtMatmulDescOpaque_t*;
struct cublasLtMatrixLayoutOpaque_t;
using cublasLtMatrixLayout_t = cublasLtMatrixLayoutOpaque_t*;
// An algorithm as cublasLtMatmulAlgoGetHeuristic returns it: here, the problem it was chosen for
// (cublasLtMatmul refuses it for another one, or for pointers less aligned than it assumed).
struct cublasLtMatmulAlgo_t {
    uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
};
struct cublasLtMatmulPreferenceOpaque_t;
using cublasLtMatmulPreference_t = cublasLtMatmulPreferenceOpaque_t*;
enum cublasLtMatmulPreferenceAttributes_t {
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,
};

enum cublasLtMatmulDescAttributes_t {
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
    CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,  // int64_t, elements
};
enum cublasLtMatrixLayoutAttribute_t {
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,           // int32_t
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,  // int64_t, elements
};
enum cublasLtEpilogue_t {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_BIAS = 4,
};

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                        cudaDataType scale_type);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attribute,
                                              const void* value, size_t bytes);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                cublasLtMatrixLayoutAttribute_t attribute,
                                                const void* value, size_t bytes);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
// Values are uint64_t (workspace bytes; alignments in bytes, 256 when not set).
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attribute,
                                                    const void* value, size_t bytes);
// One algorithm for the problem (counted: the tests check that each distinct GEMM asks once).
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a_desc,
    cublasLtMatrixLayout_t b_desc, cublasLtMatrixLayout_t c_desc, cublasLtMatrixLayout_t d_desc,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t* results,
    int* returned);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void* a, cublasLtMatrixLayout_t a_desc, const void* b,
                              cublasLtMatrixLayout_t b_desc, const void* beta, const void* c,
                              cublasLtMatrixLayout_t c_desc, void* d, cublasLtMatrixLayout_t d_desc,
                              const cublasLtMatmulAlgo_t* algo, void* workspace,
                              size_t workspace_bytes, cudaStream_t stream);
