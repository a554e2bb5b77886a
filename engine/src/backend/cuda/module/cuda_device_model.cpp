// CudaDeviceModel: uploads, the workspace layout of each prepared plan, the step interpreter, and
// the attention probabilities a run keeps for word alignment.
#include "cuda_device_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels.h"
#include "kernels_step.h"

namespace earshot::backend::cuda {

using program::OpKind;

namespace {

constexpr int64_t kAlignBytes = 256;
// The decoder caches are f16 on the device (kCacheValueBytes, cuda_launch_rules.h); every value
// written to them is rounded once, to nearest even, as the f16 GEMM operands are.

// Where an op may read or write a cache: the state a write_span / write_at updates (input 0)
// and the keys and values of an attention (inputs 1, 2). Any other read would see f16 bits.
bool reads_cache_as_f16(OpKind kind, size_t input) {
    return ((kind == OpKind::write_span || kind == OpKind::write_at) && input == 0) ||
           (kind == OpKind::attention && (input == 1 || input == 2));
}

// What NVIDIA recommends giving cuBLAS on Hopper (cuBLAS documentation, cublasSetWorkspace).
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;

int64_t align_up(int64_t n) { return (n + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

int64_t count(const std::vector<int64_t>& shape, size_t begin = 0, size_t end = SIZE_MAX) {
    int64_t n = 1;
    for (size_t i = begin; i < shape.size() && i < end; ++i) n *= shape[i];
    return n;
}

// The attention operands in scratch: q, k, v as f16, scores f32, probabilities f16.
struct AttentionScratch {
    int64_t q16 = 0, k16 = 0, v16 = 0, scores = 0, probs = 0, total = 0;
};

// `fused`: the fused kernel keeps scores and probabilities on chip, so they take no room here.
AttentionScratch attention_scratch(int64_t bh, int64_t q_len, int64_t k_len, int64_t dh,
                                   bool fused) {
    AttentionScratch s;
    s.q16 = 0;
    s.k16 = s.q16 + align_up(bh * q_len * dh * 2);
    s.v16 = s.k16 + align_up(bh * k_len * dh * 2);
    s.scores = s.v16 + align_up(bh * k_len * dh * 2);
    s.probs = s.scores + (fused ? 0 : align_up(bh * q_len * k_len * 4));
    s.total = s.probs + (fused ? 0 : align_up(bh * q_len * k_len * 2));
    return s;
}

}  // namespace

CudaDeviceModel::CudaDeviceModel(int device, std::string model_name)
    : device_(device), model_name_(std::move(model_name)) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&cublas_));
    CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
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
    workspace_.reset();
    if (cublas_ != nullptr) cublasDestroy(cublas_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CudaDeviceModel::add_param(const HostParam& param) {
    CUDA_CHECK(cudaSetDevice(device_));
    Param stored;
    stored.elements = param.elements;
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

void CudaDeviceModel::set_states(const std::vector<StateSpec>& states) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    states_.clear();
    for (const StateSpec& spec : states) {
        State state;
        state.elements = spec.elements;
        state.values =
            DeviceBuffer(spec.elements * kCacheValueBytes, "the cache " + spec.path, model_name_);
        CUDA_CHECK(cudaMemsetAsync(state.values.get(), 0,
                                   static_cast<size_t>(spec.elements * kCacheValueBytes), stream_));
        states_[spec.path] = std::move(state);
    }
}

void CudaDeviceModel::gather_rows(std::span<const int64_t> source, int64_t batch, int64_t rows) {
    CUDA_CHECK(cudaSetDevice(device_));
    // Every buffer is allocated before any cache changes: running out of memory half way leaves
    // each cache as it was (before, the caches already resized kept their new row count and the
    // rest their old one).
    if (rows != batch) {
        // A new row count (expand) gets new buffers; captured graphs see the new addresses.
        std::vector<std::pair<State*, DeviceBuffer>> next;  // [caches]
        next.reserve(states_.size());
        for (auto& [path, state] : states_) {
            const int64_t row_bytes = state.elements / batch * kCacheValueBytes;
            next.emplace_back(&state,
                              DeviceBuffer(row_bytes * rows, "the cache " + path, model_name_));
        }
        for (auto& [state, buffer] : next) {
            const int64_t row_bytes = state->elements / batch * kCacheValueBytes;
            const auto* values = state->values.as<std::byte>();
            for (int64_t r = 0; r < rows; ++r) {
                CUDA_CHECK(cudaMemcpyAsync(buffer.as<std::byte>() + r * row_bytes,
                                           values + source[static_cast<size_t>(r)] * row_bytes,
                                           static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice,
                                           stream_));
            }
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (auto& [state, buffer] : next) {
            state->elements = state->elements / batch * rows;
            state->values = std::move(buffer);
            state->spare.reset();
        }
        return;
    }
    // Reordering (beam search): the moved rows go through the spare and back, so each cache
    // keeps its address and a captured step graph stays valid. The spares come first.
    for (auto& [path, state] : states_) {
        if (state.spare.bytes() != state.values.bytes()) {
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            state.spare = DeviceBuffer(state.values.bytes(), "the cache " + path, model_name_);
        }
    }
    for (auto& [path, state] : states_) {
        const int64_t row_bytes = state.elements / batch * kCacheValueBytes;
        auto* values = state.values.as<std::byte>();
        auto* spare = state.spare.as<std::byte>();
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t from = source[static_cast<size_t>(r)];
            if (from == r) continue;
            CUDA_CHECK(cudaMemcpyAsync(spare + r * row_bytes, values + from * row_bytes,
                                       static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice,
                                       stream_));
        }
        for (int64_t r = 0; r < rows; ++r) {
            if (source[static_cast<size_t>(r)] == r) continue;
            CUDA_CHECK(cudaMemcpyAsync(values + r * row_bytes, spare + r * row_bytes,
                                       static_cast<size_t>(row_bytes), cudaMemcpyDeviceToDevice,
                                       stream_));
        }
    }
}

bool CudaDeviceModel::fused_attention(int64_t dh) const {
    return flash_enabled_ && kernels::flash_attention_fits(dh);
}

int64_t CudaDeviceModel::scratch_bytes(const ExecutionPlan& plan, const PlanStep& step) const {
    auto shape = [&](size_t i) -> const std::vector<int64_t>& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))].shape;
    };
    switch (step.kind) {
        case OpKind::linear:
            return align_up(count(shape(0)) * 2);
        case OpKind::conv1d: {
            const auto& out =
                plan.slots[static_cast<size_t>(step.output)].shape;  // [B, Lout, Cout]
            const auto& ws = shape(1);                               // [Cout, Cin, K]
            return align_up(out[0] * out[1] * ws[1] * ws[2] * 2);
        }
        case OpKind::attention: {
            const auto& qs = shape(0);  // [B, H, Q, Dh]
            const auto& ks = shape(1);  // [B, H, K, Dh]
            const int64_t bh = qs[0] * qs[1];
            const int64_t general =
                attention_scratch(bh, qs[2], ks[2], qs[3], fused_attention(qs[3])).total;
            if (qs[2] != 1) return general;
            // One query split over the keys: its partial results [BH, spans, Dh + 2] f32.
            const int64_t partials = split_keys_partial_floats(bh, ks[2], qs[3]) * 4;
            return std::max(general, align_up(partials));
        }
        default:
            return 0;
    }
}

int CudaDeviceModel::prepare(const ExecutionPlan& plan) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared prepared;
    prepared.plan = &plan;
    prepared.params.resize(plan.steps.size());
    int64_t scratch = 0;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        const PlanStep& step = plan.steps[s];
        scratch = std::max(scratch, scratch_bytes(plan, step));
        prepared.params[s].assign(step.inputs.size(), nullptr);
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            const Slot& slot = plan.slots[static_cast<size_t>(step.inputs[i])];
            if (slot.kind == SlotKind::state && states_.count(slot.path) == 0) {
                throw std::logic_error(plan.entry + " reads the cache " + slot.path +
                                       ", which the CUDA model does not hold");
            }
            if (slot.kind == SlotKind::state && !reads_cache_as_f16(step.kind, i)) {
                throw std::logic_error(
                    plan.entry + ": op " + std::to_string(static_cast<int>(step.kind)) +
                    " reads the cache " + slot.path + ", which the CUDA backend keeps as f16");
            }
            if (slot.kind != SlotKind::param) continue;
            auto found = params_.find(slot.path);
            if (found == params_.end()) continue;  // an absent optional parameter (a bias)
            const bool half = reads_param_as_f16(step.kind, i);
            const DeviceBuffer& buffer = half ? found->second.f16 : found->second.f32;
            if (buffer.get() == nullptr || found->second.elements != count(slot.shape)) {
                throw std::logic_error("parameter " + slot.path + " is not on the device as " +
                                       (half ? "f16" : "f32") + " with " +
                                       std::to_string(count(slot.shape)) + " values");
            }
            prepared.params[s][i] = buffer.get();
        }
    }
    int64_t top = align_up(plan.arena_bytes);
    prepared.scratch_offset = top;
    top += scratch;
    for (const Slot& slot : plan.slots) {
        if (slot.kind != SlotKind::input) continue;
        const auto index = static_cast<size_t>(slot.index);
        if (prepared.input_offsets.size() <= index) prepared.input_offsets.resize(index + 1, -1);
        if (slot.scalar) continue;
        prepared.input_offsets[index] = top;
        top += align_up(slot.size_bytes);
    }
    prepared.pos_offset = top;
    top += kAlignBytes;
    if (top > workspace_.bytes()) {
        // One workspace serves every plan (they run one at a time on one stream); it grows here,
        // when a plan is first prepared, and never while a plan runs.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        workspace_.reset();
        workspace_ = DeviceBuffer(top, "the " + plan.entry + " workspace", model_name_);
    }
    prepared_.push_back(std::move(prepared));
    return static_cast<int>(prepared_.size() - 1);
}

std::vector<void*> CudaDeviceModel::bind(const Prepared& prepared,
                                         std::span<const HostInput> inputs, const int32_t& pos) {
    const ExecutionPlan& plan = *prepared.plan;
    auto* base = workspace_.as<std::byte>();
    std::vector<void*> ptr(plan.slots.size(), nullptr);
    for (size_t s = 0; s < plan.slots.size(); ++s) {
        const Slot& slot = plan.slots[s];
        switch (slot.kind) {
            case SlotKind::input: {
                if (slot.scalar) {
                    ptr[s] = base + prepared.pos_offset;
                    break;
                }
                const auto index = static_cast<size_t>(slot.index);
                const HostInput& input = inputs[index];
                if (input.size_bytes != slot.size_bytes) {
                    throw std::invalid_argument(plan.entry + ": input " + std::to_string(index) +
                                                " holds " + std::to_string(input.size_bytes) +
                                                " bytes, the plan expects " +
                                                std::to_string(slot.size_bytes));
                }
                ptr[s] = base + prepared.input_offsets[index];
                CUDA_CHECK(cudaMemcpyAsync(ptr[s], input.data,
                                           static_cast<size_t>(input.size_bytes),
                                           cudaMemcpyHostToDevice, stream_));
                break;
            }
            case SlotKind::state:
                ptr[s] = states_.at(slot.path).values.get();
                break;
            case SlotKind::arena:
                ptr[s] = base + slot.offset_bytes;
                break;
            case SlotKind::param:  // resolved per step input (f16 or f32)
            case SlotKind::none:
                break;
        }
    }
    CUDA_CHECK(cudaMemcpyAsync(base + prepared.pos_offset, &pos, sizeof(pos),
                               cudaMemcpyHostToDevice, stream_));
    return ptr;
}

void CudaDeviceModel::finish(const Prepared& prepared, const std::vector<void*>& ptr, void* output,
                             int64_t output_bytes, std::vector<double>* step_ms) {
    const ExecutionPlan& plan = *prepared.plan;
    if (output != nullptr) {
        CUDA_CHECK(cudaMemcpyAsync(output, ptr[static_cast<size_t>(plan.outputs.at(0))],
                                   static_cast<size_t>(output_bytes), cudaMemcpyDeviceToHost,
                                   stream_));
    }
    // Once per call: an entry returns when its work is done (and its errors are known).
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (step_ms != nullptr) {
        step_ms->assign(plan.steps.size(), 0.0);
        for (size_t s = 0; s < plan.steps.size(); ++s) {
            float ms = 0.0F;
            CUDA_CHECK(cudaEventElapsedTime(&ms, prepared.events[s], prepared.events[s + 1]));
            (*step_ms)[s] = ms;
        }
    }
}

void CudaDeviceModel::run(int handle, std::span<const HostInput> inputs, int32_t pos, void* output,
                          int64_t output_bytes, std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    const std::vector<void*> ptr = bind(prepared, inputs, pos);
    if (step_ms != nullptr) {
        run_step_by_step(prepared, ptr, {}, true);
    } else {
        launch_steps(prepared, ptr, workspace_.as<std::byte>() + prepared.scratch_offset);
    }
    finish(prepared, ptr, output, output_bytes, step_ms);
}

void CudaDeviceModel::run_keeping_attention(int handle, std::span<const HostInput> inputs,
                                            int32_t pos, void* output, int64_t output_bytes,
                                            std::span<const KeptAttention> kept, float* weights,
                                            int64_t weights_bytes, std::vector<double>* step_ms) {
    CUDA_CHECK(cudaSetDevice(device_));
    Prepared& prepared = prepared_.at(static_cast<size_t>(handle));
    check_kept(*prepared.plan, kept, weights_bytes);
    if (kept_attention_.bytes() < weights_bytes) {
        // Only runs that keep weights use it, so ordinary runs never wait for this allocation.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        kept_attention_.reset();
        kept_attention_ = DeviceBuffer(weights_bytes, "the cross-attention weights", model_name_);
    }
    const std::vector<void*> ptr = bind(prepared, inputs, pos);
    run_step_by_step(prepared, ptr, kept, step_ms != nullptr);
    if (weights_bytes > 0) {
        CUDA_CHECK(cudaMemcpyAsync(weights, kept_attention_.get(),
                                   static_cast<size_t>(weights_bytes), cudaMemcpyDeviceToHost,
                                   stream_));
    }
    finish(prepared, ptr, output, output_bytes, step_ms);
}

void CudaDeviceModel::check_kept(const ExecutionPlan& plan, std::span<const KeptAttention> kept,
                                 int64_t weights_bytes) const {
    int64_t expected = 0;
    std::vector<int64_t> first;  // B, Q, K of the first kept step
    for (const KeptAttention& keep : kept) {
        if (keep.step < 0 || keep.step >= static_cast<int64_t>(plan.steps.size()) ||
            plan.steps[static_cast<size_t>(keep.step)].kind != OpKind::attention) {
            throw std::invalid_argument(plan.entry + ": step " + std::to_string(keep.step) +
                                        " is no attention whose probabilities could be kept");
        }
        const PlanStep& step = plan.steps[static_cast<size_t>(keep.step)];
        const auto& qs = plan.slots[static_cast<size_t>(step.inputs.at(0))].shape;  // [B,H,Q,Dh]
        const auto& ks = plan.slots[static_cast<size_t>(step.inputs.at(1))].shape;  // [B,H,K,Dh]
        if (keep.head < 0 || keep.head >= qs[1]) {
            throw std::invalid_argument(plan.entry + ": no head " + std::to_string(keep.head) +
                                        " in an attention of " + std::to_string(qs[1]));
        }
        const std::vector<int64_t> sizes = {qs[0], qs[2], ks[2]};
        if (first.empty()) first = sizes;
        if (sizes != first) {
            throw std::invalid_argument(plan.entry +
                                        ": kept attentions differ in batch, queries or keys");
        }
    }
    if (!first.empty()) {
        expected = first[0] * static_cast<int64_t>(kept.size()) * first[1] * first[2] * 4;
    }
    if (weights_bytes != expected) {
        throw std::invalid_argument(plan.entry + ": the kept weights take " +
                                    std::to_string(expected) + " bytes, not " +
                                    std::to_string(weights_bytes));
    }
}

void CudaDeviceModel::keep_attention(const ExecutionPlan& plan, size_t index,
                                     const std::vector<void*>& ptr,
                                     std::span<const KeptAttention> kept) {
    const PlanStep& step = plan.steps[index];
    const auto wanted = static_cast<int64_t>(kept.size());
    for (int64_t i = 0; i < wanted; ++i) {
        if (kept[static_cast<size_t>(i)].step != static_cast<int64_t>(index)) continue;
        const Slot& q_slot = plan.slots[static_cast<size_t>(step.inputs.at(0))];
        const Slot& k_slot = plan.slots[static_cast<size_t>(step.inputs.at(1))];
        const auto& qs = q_slot.shape;  // [B, H, Q, Dh]
        const int64_t q_len = qs[2];
        const int64_t k_len = k_slot.shape[2];
        const auto* q = static_cast<const float*>(ptr[static_cast<size_t>(step.inputs[0])]);
        const void* k = ptr[static_cast<size_t>(step.inputs[1])];
        // The same scale as the attention itself: 1 / sqrt(scale_dim) in f32.
        const float scale = 1.0F / std::sqrt(static_cast<float>(step.ints.at("scale_dim")));
        // [B, wanted, Q, K]: head i of row b at (b wanted + i) Q K.
        float* p = kept_attention_.as<float>() + i * q_len * k_len;
        const int64_t row_stride = wanted * q_len * k_len;
        const int64_t head = kept[static_cast<size_t>(i)].head;
        if (k_slot.kind == SlotKind::state) {  // the f16 cross cache
            kernels::attention_probabilities(q, static_cast<const uint16_t*>(k), p, qs[0], qs[1],
                                             head, q_len, k_len, qs[3], scale, row_stride, stream_);
        } else {
            kernels::attention_probabilities(q, static_cast<const float*>(k), p, qs[0], qs[1], head,
                                             q_len, k_len, qs[3], scale, row_stride, stream_);
        }
    }
}

int64_t CudaDeviceModel::device_bytes() const {
    int64_t total = workspace_.bytes() + kept_attention_.bytes();
    for (const auto& [path, param] : params_) total += param.f16.bytes() + param.f32.bytes();
    for (const auto& [path, state] : states_) total += state.values.bytes() + state.spare.bytes();
    return total;
}

void CudaDeviceModel::gemm(const uint16_t* x, const uint16_t* w, float* y, int64_t m, int64_t k,
                           int64_t n) {
    // Row-major y = x w^T is column-major y^T [n, m] = w (col-major [k, n])^T x (col-major [k, m]).
    const float one = 1.0F;
    const float zero = 0.0F;
    CUBLAS_CHECK(cublasGemmEx(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n),
                              static_cast<int>(m), static_cast<int>(k), &one, w, CUDA_R_16F,
                              static_cast<int>(k), x, CUDA_R_16F, static_cast<int>(k), &zero, y,
                              CUDA_R_32F, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

void CudaDeviceModel::attention(const ExecutionPlan& plan, const PlanStep& step,
                                const std::vector<void*>& ptr, std::byte* scratch) {
    auto at = [&](size_t i) { return ptr[static_cast<size_t>(step.inputs.at(i))]; };
    const auto& qs = plan.slots[static_cast<size_t>(step.inputs.at(0))].shape;  // [B, H, Q, Dh]
    const auto& ks = plan.slots[static_cast<size_t>(step.inputs.at(1))].shape;  // [B, H, K, Dh]
    const int64_t bh = qs[0] * qs[1];
    const int64_t q_len = qs[2];
    const int64_t k_len = ks[2];
    const int64_t dh = qs[3];
    const auto* q = static_cast<const float*>(at(0));
    // Keys and values are f16 when they are the caches, f32 when just computed (prefill, decode).
    const bool k_cached =
        plan.slots[static_cast<size_t>(step.inputs.at(1))].kind == SlotKind::state;
    const bool v_cached =
        plan.slots[static_cast<size_t>(step.inputs.at(2))].kind == SlotKind::state;
    const auto* k = static_cast<const float*>(at(1));
    const auto* v = static_cast<const float*>(at(2));
    const auto* mask = step.inputs.size() > 3 ? static_cast<const uint8_t*>(at(3)) : nullptr;
    auto* y = static_cast<float*>(ptr[static_cast<size_t>(step.output)]);
    // As the CPU backend computes it: 1 / sqrt(scale_dim) in f32.
    const float scale = 1.0F / std::sqrt(static_cast<float>(step.ints.at("scale_dim")));
    // The path `earshot debug plan` lists too (cuda_launch_rules.h).
    const AttentionPath path =
        attention_path(q_len, k_len, dh, k_cached, v_cached, fused_attention(dh));
    const bool one_query =
        path == AttentionPath::one_query_f16 || path == AttentionPath::one_query_f32;
    if (one_query && one_query_kernels(bh, dh, old_kernels_) == OneQueryKernels::split_keys) {
        auto* partials = reinterpret_cast<float*>(scratch);  // [BH, spans, Dh + 2]
        auto* done = split_key_counts_.as<unsigned>();       // [BH], zero between launches
        const bool launched =
            path == AttentionPath::one_query_f16
                ? kernels::attend_one_query_split_keys(
                      q, static_cast<const uint16_t*>(at(1)), static_cast<const uint16_t*>(at(2)),
                      mask, y, partials, done, bh, k_len, dh, scale, stream_)
                : kernels::attend_one_query_split_keys(q, k, v, mask, y, partials, done, bh, k_len,
                                                       dh, scale, stream_);
        if (!launched) {
            throw std::logic_error(
                "attend_one_query_split_keys refused a shape the launch rules let through");
        }
        return;
    }
    if (path == AttentionPath::one_query_f16) {
        if (!kernels::attend_one_query(q, static_cast<const uint16_t*>(at(1)),
                                       static_cast<const uint16_t*>(at(2)), mask, y, bh, k_len, dh,
                                       scale, stream_)) {
            throw std::logic_error("attend_one_query refused keys the launch rules let through");
        }
        return;
    }
    if (path == AttentionPath::one_query_f32) {
        if (!kernels::attend_one_query(q, k, v, mask, y, bh, k_len, dh, scale, stream_)) {
            throw std::logic_error("attend_one_query refused keys the launch rules let through");
        }
        return;
    }
    const bool fused = path == AttentionPath::fused;
    const AttentionScratch layout = attention_scratch(bh, q_len, k_len, dh, fused);
    auto* q16 = reinterpret_cast<uint16_t*>(scratch + layout.q16);
    const uint16_t* k16 = k_cached ? static_cast<const uint16_t*>(at(1))
                                   : reinterpret_cast<uint16_t*>(scratch + layout.k16);
    const uint16_t* v16 = v_cached ? static_cast<const uint16_t*>(at(2))
                                   : reinterpret_cast<uint16_t*>(scratch + layout.v16);
    auto* scores = reinterpret_cast<float*>(scratch + layout.scores);
    auto* probs = reinterpret_cast<uint16_t*>(scratch + layout.probs);
    kernels::to_half(q, q16, bh * q_len * dh, stream_);
    if (!k_cached) {
        kernels::to_half(k, reinterpret_cast<uint16_t*>(scratch + layout.k16), bh * k_len * dh,
                         stream_);
    }
    if (!v_cached) {
        kernels::to_half(v, reinterpret_cast<uint16_t*>(scratch + layout.v16), bh * k_len * dh,
                         stream_);
    }
    if (fused) {
        kernels::flash_attention(q16, k16, v16, mask, y, bh, q_len, k_len, dh, scale, stream_);
        return;
    }
    const float zero = 0.0F;
    const float one = 1.0F;
    // scores [Q, K] = scale * q [Q, Dh] k^T per (b, h): column-major scores^T = k q^T.
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        cublas_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(k_len), static_cast<int>(q_len),
        static_cast<int>(dh), &scale, k16, CUDA_R_16F, static_cast<int>(dh), k_len * dh, q16,
        CUDA_R_16F, static_cast<int>(dh), q_len * dh, &zero, scores, CUDA_R_32F,
        static_cast<int>(k_len), q_len * k_len, static_cast<int>(bh), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
    kernels::softmax_rows_half(scores, mask, probs, bh * q_len, q_len, k_len, stream_);
    // y [Q, Dh] = p [Q, K] v [K, Dh]: column-major y^T = v^T p^T.
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        cublas_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(dh), static_cast<int>(q_len),
        static_cast<int>(k_len), &one, v16, CUDA_R_16F, static_cast<int>(dh), k_len * dh, probs,
        CUDA_R_16F, static_cast<int>(k_len), q_len * k_len, &zero, y, CUDA_R_32F,
        static_cast<int>(dh), q_len * dh, static_cast<int>(bh), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
}

void CudaDeviceModel::execute(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                              std::byte* scratch) {
    const ExecutionPlan& plan = *prepared.plan;
    const PlanStep& step = plan.steps[index];
    if (step.alias) return;  // a view: its bytes are its input's
    auto slot = [&](size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))];
    };
    // A step input: its param pointer (f16 or f32 as the op reads it), else its slot's.
    auto raw = [&](size_t i) -> const void* {
        const void* param = prepared.params[index][i];
        return param != nullptr ? param : ptr[static_cast<size_t>(step.inputs.at(i))];
    };
    auto in = [&](size_t i) { return static_cast<const float*>(raw(i)); };
    auto in_i32 = [&](size_t i) { return static_cast<const int32_t*>(raw(i)); };
    auto in_f16 = [&](size_t i) { return static_cast<const uint16_t*>(raw(i)); };
    const Slot& out_slot = plan.slots[static_cast<size_t>(step.output)];
    void* out_raw = ptr[static_cast<size_t>(step.output)];
    auto* out = static_cast<float*>(out_raw);
    const int64_t out_n = count(out_slot.shape);
    switch (step.kind) {
        case OpKind::permute: {
            const auto& shape = slot(0).shape;
            kernels::Permutation p;
            p.rank = static_cast<int>(shape.size());
            if (p.rank > 6) throw std::invalid_argument("permute supports rank <= 6");
            int64_t stride = 1;
            int64_t in_strides[6] = {};
            for (int i = p.rank - 1; i >= 0; --i) {
                in_strides[i] = stride;
                stride *= shape[static_cast<size_t>(i)];
            }
            for (int i = 0; i < p.rank; ++i) {
                const auto axis = static_cast<size_t>(step.axes.at(static_cast<size_t>(i)));
                p.out_shape[i] = shape[axis];
                p.src_strides[i] = in_strides[axis];
            }
            kernels::permute(static_cast<const uint32_t*>(raw(0)), static_cast<uint32_t*>(out_raw),
                             out_n, p, stream_);
            return;
        }
        case OpKind::conv1d: {
            const auto& xs = slot(0).shape;  // [B, L, Cin]
            const auto& ws = slot(1).shape;  // [Cout, Cin, K]
            const int64_t out_length = out_slot.shape[1];
            auto* cols = reinterpret_cast<uint16_t*>(scratch);
            kernels::im2col_half(in(0), cols, xs[0], xs[1], xs[2], ws[2], step.ints.at("stride"),
                                 step.ints.at("padding"), out_length, stream_);
            gemm(cols, in_f16(1), out, xs[0] * out_length, ws[1] * ws[2], ws[0]);
            if (step.inputs.size() > 2 && raw(2) != nullptr) {
                kernels::add_bias(out, in(2), xs[0] * out_length, ws[0], stream_);
            }
            return;
        }
        case OpKind::gelu_erf:
            kernels::gelu_erf(in(0), out, out_n, stream_);
            return;
        case OpKind::add:
            kernels::add(in(0), in(1), out, out_n, count(slot(1).shape), stream_);
            return;
        case OpKind::layer_norm: {
            const int64_t d = slot(0).shape.back();
            kernels::layer_norm(in(0), in(1), in(2), out, out_n / d, d,
                                static_cast<float>(step.eps), stream_);
            return;
        }
        case OpKind::rms_norm: {
            const int64_t d = slot(0).shape.back();
            kernels::rms_norm(in(0), in(1), out, out_n / d, d, static_cast<float>(step.eps),
                              stream_);
            return;
        }
        case OpKind::linear: {
            const int64_t k = slot(0).shape.back();
            const int64_t n = slot(1).shape.at(0);
            const int64_t m = count(slot(0).shape) / k;
            const auto bias_input = linear_bias_input(step);
            const float* bias = bias_input ? in(*bias_input) : nullptr;
            kernels::Epilogue epilogue;
            epilogue.gelu = linear_gelu_epilogue(step);
            if (const auto residual = linear_residual_input(step))
                epilogue.residual = in(*residual);
            if (linear_path(m) == LinearPath::gemv) {  // a step: one kernel reads the weights once
                if (gemv_kernel(k, old_kernels_) == GemvKernel::columns) {
                    kernels::gemv_f16_columns(in(0), in_f16(1), bias, out, m, k, n, epilogue,
                                              stream_);
                } else {
                    kernels::gemv_f16(in(0), in_f16(1), bias, out, m, k, n, epilogue, stream_);
                }
                return;
            }
            auto* x16 = reinterpret_cast<uint16_t*>(scratch);
            kernels::to_half(in(0), x16, m * k, stream_);
            gemm(x16, in_f16(1), out, m, k, n);
            if (bias != nullptr || epilogue.gelu || epilogue.residual != nullptr) {
                kernels::finish_linear(out, bias, m, n, epilogue, stream_);
            }
            return;
        }
        case OpKind::split_heads: {
            const auto& xs = slot(0).shape;  // [B, N, D]
            const int64_t heads = step.ints.at("heads");
            kernels::split_heads(in(0), out, xs[0], xs[1], heads, xs[2] / heads, stream_);
            return;
        }
        case OpKind::merge_heads: {
            const auto& xs = slot(0).shape;  // [B, H, N, Dh]
            kernels::merge_heads(in(0), out, xs[0], xs[1], xs[2], xs[3], stream_);
            return;
        }
        case OpKind::attention:
            attention(plan, step, ptr, scratch);
            return;
        case OpKind::embedding: {
            const auto& ts = slot(1).shape;  // [V, H]
            kernels::embedding(in_i32(0), in_f16(1), out, count(slot(0).shape), ts[1], stream_);
            return;
        }
        case OpKind::slice_rows: {
            const auto& ts = slot(0).shape;  // [N, D]
            const int32_t* start_device = step.inputs.size() > 1 ? in_i32(1) : nullptr;
            const int64_t start = start_device != nullptr ? 0 : step.ints.at("start");
            kernels::slice_rows(in(0), out, ts[1], step.ints.at("length"), start, start_device,
                                stream_);
            return;
        }
        case OpKind::take: {
            const auto& xs = slot(0).shape;
            const auto axis = static_cast<size_t>(step.ints.at("axis"));
            kernels::take(in(0), out, count(xs, 0, axis), xs[axis], count(xs, axis + 1),
                          step.ints.at("index"), stream_);
            return;
        }
        case OpKind::causal_mask:
            kernels::causal_mask(static_cast<uint8_t*>(out_raw), step.ints.at("size"), stream_);
            return;
        case OpKind::iota:
            kernels::iota(static_cast<int32_t*>(out_raw), out_n, stream_);
            return;
        case OpKind::less_equal:
            kernels::less_equal(in_i32(0), in_i32(1), static_cast<uint8_t*>(out_raw), out_n,
                                stream_);
            return;
        case OpKind::reshape:
            if (out_raw != raw(0)) {
                CUDA_CHECK(cudaMemcpyAsync(out_raw, raw(0),
                                           static_cast<size_t>(out_slot.size_bytes),
                                           cudaMemcpyDeviceToDevice, stream_));
            }
            return;
        case OpKind::write_span:
        case OpKind::write_at: {
            const auto& ss = slot(0).shape;
            const auto& vs = slot(1).shape;
            const auto axis = static_cast<size_t>(step.ints.at("axis"));
            const int32_t* start_device = step.kind == OpKind::write_at ? in_i32(2) : nullptr;
            const int64_t start = start_device != nullptr ? 0 : step.ints.at("start");
            kernels::write_span(static_cast<uint16_t*>(out_raw), in(1), count(ss, 0, axis),
                                ss[axis], vs[axis], count(ss, axis + 1), start, start_device,
                                stream_);
            return;
        }
        case OpKind::input:
        case OpKind::param:
        case OpKind::state:
        case OpKind::none:
            break;
    }
    throw std::logic_error("the CUDA backend has no kernel for op " +
                           std::to_string(static_cast<int>(step.kind)) + " in " + plan.entry);
}

}  // namespace earshot::backend::cuda
