// CudaDeviceModel: the stream, cuBLAS and the device memory it holds: params uploaded as f16
// and/or f32 (the decoder caches: cuda_device_caches.cpp).
#include "cuda_device_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "cuda_lt_gemm.h"
#include "cuda_workspace_layout.h"
#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

using program::OpKind;

namespace {

// What NVIDIA recommends giving cuBLAS on Hopper (cuBLAS documentation, cublasSetWorkspace).
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;

}  // namespace

CudaDeviceModel::CudaDeviceModel(int device, std::string model_name)
    : device_(device), model_name_(std::move(model_name)) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&cublas_));
    CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
    CUBLAS_CHECK(cublasLtCreate(&lt_));
    // cuBLAS's own workspace, fixed here so that GEMMs captured in a graph never allocate.
    cublas_workspace_ = DeviceBuffer(kCublasWorkspaceBytes, "cuBLAS's workspace", model_name_);
    CUBLAS_CHECK(cublasSetWorkspace(cublas_, cublas_workspace_.get(),
                                    static_cast<size_t>(kCublasWorkspaceBytes)));
    // EARSHOT_CUDA_GRAPHS=0 runs every plan step by step (to compare, or to debug a kernel).
    const char* graphs = std::getenv("EARSHOT_CUDA_GRAPHS");
    graphs_enabled_ = graphs == nullptr || std::string(graphs) != "0";
    // EARSHOT_CUDA_FUSED_ATTENTION=0 materialises the scores through cuBLAS instead (to compare).
    flash_enabled_ = fused_attention_enabled();
    // EARSHOT_CUDA_SYNC_EACH_STEP=1 synchronises after every step, without graphs, so that an
    // asynchronous fault is reported by the step that caused it (its op and scope).
    const char* sync = std::getenv("EARSHOT_CUDA_SYNC_EACH_STEP");
    sync_each_step_ = sync != nullptr && std::string(sync) == "1";
    // EARSHOT_CUDA_OLD_KERNELS=attention,gemv brings back a step's old kernels (to compare).
    old_kernels_ = old_kernels_enabled();
    cudaDeviceProp properties{};
    CUDA_CHECK(cudaGetDeviceProperties(&properties, device_));
    dependent_launches_ = !old_kernels_.pdl && properties.major >= 9;
    // The split-key attention's counts per (batch, head): zero now, and each launch leaves them
    // zero. Fixed here, so that graphs captured later keep a valid address.
    split_key_counts_ = DeviceBuffer(kMaxSplitKeyRows * static_cast<int64_t>(sizeof(unsigned)),
                                     "the split-key attention's counts", model_name_);
    CUDA_CHECK(cudaMemsetAsync(split_key_counts_.get(), 0,
                               static_cast<size_t>(kMaxSplitKeyRows) * sizeof(unsigned), stream_));
}

CudaDeviceModel::~CudaDeviceModel() {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    for (Prepared& prepared : prepared_) {
        for (cudaEvent_t event : prepared.events) cudaEventDestroy(event);
        if (prepared.graph != nullptr) cudaGraphExecDestroy(prepared.graph);
    }
    params_.clear();
    states_.clear();
    cross_caches_.reset();
    workspace_.reset();
    qkv_weights_.clear();
    cross_kv_weights_.clear();
    if (lt_ != nullptr) {
        forget_lt_gemms(lt_);
        cublasLtDestroy(lt_);
    }
    if (choice_pinned_ != nullptr) cudaFreeHost(choice_pinned_);
    if (cublas_ != nullptr) cublasDestroy(cublas_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CudaDeviceModel::add_param(const HostParam& param) {
    CUDA_CHECK(cudaSetDevice(device_));
    Param stored;
    stored.elements = param.elements;
    if (param.blocks != nullptr) {
        // Sizes checked here, at load: a GEMV would read past a short buffer.
        const int64_t block_size = kernels::gemv_block_bytes(param.block_type);
        if (block_size == 0 || param.f16 != nullptr ||
            param.elements % kernels::kBlockValues != 0 ||
            param.block_bytes != param.elements / kernels::kBlockValues * block_size) {
            throw std::invalid_argument(
                "parameter " + param.path + ": " + std::to_string(param.block_bytes) +
                " bytes of blocks of ggml type " + std::to_string(param.block_type) + " for " +
                std::to_string(param.elements) +
                " values; the CUDA module keeps whole q8_0, q5_0 or q4_0 blocks only");
        }
        stored.blocks = DeviceBuffer(param.block_bytes, param.path + " (blocks)", model_name_);
        stored.block_type = param.block_type;
        CUDA_CHECK(cudaMemcpy(stored.blocks.get(), param.blocks,
                              static_cast<size_t>(param.block_bytes), cudaMemcpyHostToDevice));
    }
    if (param.f16 != nullptr) {
        stored.f16 = DeviceBuffer(param.elements * 2, param.path + " (f16)", model_name_);
        CUDA_CHECK(cudaMemcpy(stored.f16.get(), param.f16, static_cast<size_t>(param.elements * 2),
                              cudaMemcpyHostToDevice));
    }
    if (param.f32 != nullptr) {
        stored.f32 = DeviceBuffer(param.elements * 4, param.path, model_name_);
        CUDA_CHECK(cudaMemcpy(stored.f32.get(), param.f32, static_cast<size_t>(param.elements * 4),
                              cudaMemcpyHostToDevice));
    }
    params_[param.path] = std::move(stored);
}

}  // namespace earshot::backend::cuda
