// CudaDeviceModel: the module's DeviceModel: weights (f16 and/or f32), decoder caches and one
// workspace (arena, scratch, inputs) on one device, and the interpreter that launches a plan's
// steps on one stream with cuBLAS GEMMs (f16 operands, f32 accumulation and output).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/cuda/cuda_launch_rules.h"
#include "backend/cuda/cuda_step_fusions.h"
#include "backend/cuda/device_module.h"
#include "device_buffer.h"

namespace earshot::backend::cuda {

class CudaDeviceModel final : public DeviceModel {
public:
    CudaDeviceModel(int device, std::string model_name);
    ~CudaDeviceModel() override;

    void add_param(const HostParam& param) override;
    void set_states(const std::vector<StateSpec>& states) override;
    void gather_rows(std::span<const int64_t> source, int64_t batch, int64_t rows) override;
    int prepare(const ExecutionPlan& plan) override;
    void run(int handle, std::span<const HostInput> inputs, int32_t pos, void* output,
             int64_t output_bytes, std::vector<double>* step_ms) override;
    void run_keeping_attention(int handle, std::span<const HostInput> inputs, int32_t pos,
                               void* output, int64_t output_bytes,
                               std::span<const KeptAttention> kept, float* weights,
                               int64_t weights_bytes, std::vector<double>* step_ms) override;
    void run_tapped(int handle, std::span<const HostInput> inputs, int32_t pos, void* output,
                    int64_t output_bytes, std::span<const KeptAttention> kept, float* weights,
                    int64_t weights_bytes, std::span<const TapTransfer> taps,
                    std::vector<double>* step_ms) override;
    void run_choosing(int handle, std::span<const HostInput> inputs, int32_t pos,
                      const ChoiceRequest& request, RowChoice* chosen,
                      std::vector<double>* step_ms) override;
    int64_t device_bytes() const override;
    int64_t graph_capture_failures() const override { return graph_capture_failures_; }

private:
    struct Param {
        DeviceBuffer f16;
        // Where the f16 values live when they are part of a concatenation (the fused q, k, v
        // weights, prepare_qkv) instead of `f16`: one copy on the device.
        const void* f16_in = nullptr;
        const void* f16_data() const { return f16_in != nullptr ? f16_in : f16.get(); }
        DeviceBuffer f32;
        DeviceBuffer blocks;     // a linear's weight as quantized blocks (HostParam::blocks)
        int32_t block_type = 0;  // their ggml type; 0 without blocks
        int64_t elements = 0;
    };
    // A decoder cache: room for the most rows it has held (allocated once per model and row
    // count, so later windows keep its address and their captured graphs), `rows` in use. A
    // self-attention cache has its own allocation; the cross caches (StateRows::shareable) live
    // in one, cross_caches_ (cuda_device_caches.cpp).
    struct State {
        DeviceBuffer own;             // its allocation; empty for a cross cache
        std::byte* values = nullptr;  // [capacity_rows, row_elements] f16
        int64_t capacity_rows = 0;
        int64_t row_elements = 0;  // f32 values per row as planned
        int64_t rows = 0;          // the batch
        bool cross = false;        // StateRows::shareable: its values are in cross_caches_
        bool shareable = false;    // cross, unless EARSHOT_CUDA_OLD_KERNELS has cross_caches
        bool shared = false;       // every row reads row 0's values (one copy, not `rows`)
        int64_t row_bytes() const { return row_elements * kCacheValueBytes; }
    };
    // A new allocation for every cross cache, `capacity_rows` rows each, in cross_order_: where
    // each cache's values will be ([caches][capacity_rows][row_elements] f16). Nothing moves yet.
    struct CrossCaches {
        DeviceBuffer values;
        int64_t capacity_rows = 0;
        std::unordered_map<std::string, std::byte*> at;  // [path] the cache's first row
    };
    // The cross k/v projections of a fused listen, joined (prepare_cross_kv): weights
    // [caches, D, D] then biases [caches, D] f16 (zeros where the checkpoint has none), in the
    // order of the run's cache writes.
    struct CrossKvWeights {
        DeviceBuffer values;
        int64_t d = 0;
        std::vector<std::string> weights;  // [caches] the weight paths
        std::vector<bool> has_bias;        // [caches] whether the checkpoint has its bias
        bool any_bias = false;
        const uint16_t* weight(size_t i) const {
            return values.as<uint16_t>() + static_cast<int64_t>(i) * d * d;
        }
        const uint16_t* bias(size_t i) const {
            return values.as<uint16_t>() + static_cast<int64_t>(weights.size()) * d * d +
                   static_cast<int64_t>(i) * d;
        }
    };
    // Where a prepared plan's parts live in the workspace, and its param pointers per step input.
    struct Prepared {
        const ExecutionPlan* plan = nullptr;
        int64_t scratch_offset = 0;
        std::vector<int64_t> input_offsets;  // by input index; -1 for scalars
        int64_t pos_offset = 0;
        std::vector<std::vector<const void*>> params;  // [step][input], null when no param
        std::vector<int32_t> weight_blocks;  // [step]: a linear's weight block type, 0 for f16
        std::vector<StepFusion> fusions;     // [step] (cuda_step_fusions.h); empty: none fused
        std::vector<std::string> writes;     // the caches its steps write
        std::vector<cudaEvent_t> events;     // steps + 1, made when first profiled
        int64_t runs = 0;
        bool graphable = true;               // false once a capture failed
        cudaGraphExec_t graph = nullptr;     // the steps captured, from the second run on
        std::vector<const void*> signature;  // the addresses the graph was captured with
        int32_t fed_token_slot = -1;         // fed_token_slot(plan), found once at prepare
        // A decoder step (fed_token_slot >= 0) on a device with dependent launches: its kernels,
        // and the token choice after them, launched dependent (dependent_launches_).
        bool dependent_launches = false;
    };

    // Whether plan slot `slot` is a cache whose rows read one shared copy (kv_rows in kernels.h).
    bool shares_rows(const ExecutionPlan& plan, int32_t slot) const;
    // Before a run writes them: the shared caches among `writes` get a copy per row (row 0's).
    void own_rows(const std::vector<std::string>& writes);
    // Room for `capacity_rows` rows of each of `caches` (path and row bytes, in their order),
    // allocated; nothing moves yet, so running out of memory changes nothing.
    CrossCaches allocate_cross_caches(const std::vector<std::pair<std::string, int64_t>>& caches,
                                      int64_t capacity_rows) const;
    // The current cross caches' paths and row bytes, in cross_order_.
    std::vector<std::pair<std::string, int64_t>> cross_layout() const;
    // The rows of `state` copied to `to`: row r of `to` = row source[r] of the state.
    void copy_rows(const State& state, std::byte* to, std::span<const int64_t> source);
    // The cross caches moved into `caches` (the copies into it made): the old allocation freed
    // once they are done.
    void adopt_cross_caches(CrossCaches caches);
    // The rows of `state` in place: row r = row source[r] of `batch` (rows past the old batch
    // straight from their source, moved rows inside it through reorder_spare_).
    void gather_in_place(State& state, std::span<const int64_t> source, int64_t batch,
                         int64_t rows);
    // A run's inputs and `pos` copied in (`pos` is read until the run synchronises): every
    // slot's device address. Through `pinned` (room for every input and pos) when not null; an
    // input or pos that fed_ already left on the device for this plan is not copied again.
    std::vector<void*> bind(const Prepared& prepared, std::span<const HostInput> inputs,
                            const int32_t& pos, std::byte* pinned = nullptr);
    // Whether `plan` reads one token per row and pos (a step), and its token input: the inputs
    // feed_next_step can write (-1: not a step).
    static int32_t fed_token_slot(const ExecutionPlan& plan);
    // The run's output copied back, the stream synchronised, the step times read.
    void finish(const Prepared& prepared, const std::vector<void*>& ptr, void* output,
                int64_t output_bytes, std::vector<double>* step_ms);
    // Where a kept head's probabilities go: its attention step's B, Q, K checked against the
    // first kept step's, and the head inside [0, H).
    void check_kept(const ExecutionPlan& plan, std::span<const KeptAttention> kept,
                    int64_t weights_bytes) const;
    // After step `index`: the probabilities of the kept heads of that step into kept_attention_.
    void keep_attention(const ExecutionPlan& plan, size_t index, const std::vector<void*>& ptr,
                        std::span<const KeptAttention> kept);
    // What one step needs in the scratch area (f16 operands, attention scores).
    int64_t scratch_bytes(const ExecutionPlan& plan, const PlanStep& step) const;
    // Whether attention with head size dh runs as the fused kernel.
    bool fused_attention(int64_t dh) const;
    // Every step of a run: replayed from the plan's CUDA graph when it has one for these
    // addresses, else launched one by one (and captured on the second run).
    void launch_steps(Prepared& prepared, const std::vector<void*>& ptr, std::byte* scratch);
    // Every step launched one by one: between CUDA events when `timed`, each followed by the
    // probabilities of the `kept` heads it computes.
    void run_step_by_step(Prepared& prepared, const std::vector<void*>& ptr,
                          std::span<const KeptAttention> kept, bool timed,
                          std::span<const TapTransfer> taps = {});
    std::vector<const void*> graph_signature(const Prepared& prepared,
                                             const std::vector<void*>& ptr) const;
    // Step `index` launched (with the probabilities of the `kept` heads it computes), then the
    // stream synchronised when sync_each_step_; a CudaError it throws names the step, its op and
    // its scope.
    void run_step(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                  std::byte* scratch, std::span<const KeptAttention> kept = {});
    // After a failed capture (`graph`: what it captured, if anything): the capture ended and
    // its graph and error dropped, so the stream can run again.
    void abandon_capture(cudaGraph_t graph);
    void execute(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                 std::byte* scratch);
    // The fused GEMV that step `index` launches for its group (StepFusion::Role::fused_gemv).
    void fused_gemv(const Prepared& prepared, size_t index, const std::vector<void*>& ptr);
    void attention(const ExecutionPlan& plan, const PlanStep& step, const std::vector<void*>& ptr,
                   std::byte* scratch);
    // An encoder layer's half, fused (cuda_encoder_fusions.h), launched at step `index`.
    void encoder_attention(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                           std::byte* scratch);
    void encoder_mlp(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                     std::byte* scratch);
    // The q, k, v weights [3 D, D] f16 and biases [3 D] f16 (k's zero) of the fused attention
    // half launched at step `index`, concatenated on the device once per model.
    // The separate q, k, v weights then become views into the concatenation (their own copies
    // freed, every prepared plan's pointers moved, graphs captured with them dropped).
    void prepare_qkv(Prepared& prepared, size_t index);
    // Every pointer `from` among the params of `prepared` and of the plans prepared before moved
    // to `to`; a plan's graph captured with it dropped.
    void move_param(const void* from, const void* to, Prepared& prepared);
    const DeviceBuffer& qkv_of(const ExecutionPlan& plan, const StepFusion& fusion) const;
    // listen's cross keys and values of the run launched at step `index`
    // (cuda_cross_kv_fusion.h): x to f16 once, then one GEMM for every cache when the caches line
    // up in cross_caches_, else one batched GEMM per cache.
    void cross_kv(const Prepared& prepared, size_t index, const std::vector<void*>& ptr,
                  std::byte* scratch);
    // The weights of the fused cross k/v linears at step `index` joined with their biases as f16
    // (cuBLASLt's bias takes D's type), once per model: the separate weights become views of
    // the join (their own copies freed, every prepared plan's pointers moved).
    void prepare_cross_kv(Prepared& prepared, size_t index);
    const CrossKvWeights& cross_kv_weights_of(const ExecutionPlan& plan,
                                              const StepFusion& fusion) const;
    // y [m, n] f32 = x [m, k] f16 * w^T (w [n, k] f16)
    void gemm(const uint16_t* x, const uint16_t* w, float* y, int64_t m, int64_t k, int64_t n);

    int device_;
    std::string model_name_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t cublas_ = nullptr;
    cublasLtHandle_t lt_ = nullptr;  // the encoder's GEMMs with epilogues (cuda_lt_gemm.h)
    // [q weight path] q, k, v weights then biases, f16 (prepare_qkv)
    std::unordered_map<std::string, DeviceBuffer> qkv_weights_;
    // [first weight path] listen's cross k/v weights and biases joined (prepare_cross_kv)
    std::unordered_map<std::string, CrossKvWeights> cross_kv_weights_;
    DeviceBuffer cublas_workspace_;
    DeviceBuffer split_key_counts_;  // [kMaxSplitKeyRows] unsigned, zero between launches
    bool graphs_enabled_ = true;
    bool flash_enabled_ = true;
    bool sync_each_step_ = false;
    // A decoder step's kernels as programmatic dependent launches: a device of compute
    // capability 9.0 or more, unless EARSHOT_CUDA_OLD_KERNELS has pdl.
    bool dependent_launches_ = false;
    bool unfused_run_ = false;  // a tapped run: every step launched as the plan has it
    OldKernels old_kernels_;    // EARSHOT_CUDA_OLD_KERNELS (cuda_launch_rules.h)
    int64_t graph_capture_failures_ = 0;
    std::unordered_map<std::string, Param> params_;
    std::unordered_map<std::string, State> states_;
    // Every cross cache in one allocation, [caches][capacity rows][row] f16 in cross_order_ (the
    // order set_states got them: layer by layer, k then v), so that one batched GEMM with one
    // stride writes every (cache, head) block of a row when each cache holds one row.
    DeviceBuffer cross_caches_;
    std::vector<std::string> cross_order_;
    DeviceBuffer reorder_spare_;  // the moved rows of one cache at a time (gather_in_place)
    DeviceBuffer workspace_;
    DeviceBuffer kept_attention_;  // [B, kept, Q, K] f32 of the last run that kept some
    std::vector<Prepared> prepared_;
    // Token choice (run_choosing): the window's suppressed and boosted ids as on the device
    // ([suppressed..., boosted...] int32), the filtered rows, the rules and the choices (device),
    // and pinned host room for the rules going in and the choices coming back.
    std::vector<int32_t> choice_lists_;
    DeviceBuffer choice_lists_device_;
    DeviceBuffer choice_work_;       // [rows, vocab] f32
    DeviceBuffer choice_rules_;      // [rows] RowRules
    DeviceBuffer choice_out_;        // [rows] RowChoice
    void* choice_pinned_ = nullptr;  // [rows] RowRules, [rows] RowChoice, then the inputs and pos
    int64_t choice_pinned_bytes_ = 0;
    // What run_choosing left on the device for the next run of the same plan: each row's best
    // token in the plan's token input and pos + 1 in its pos (kernels::feed_next_step), so a
    // step that feeds exactly these (greedy) uploads neither. Any other run and prepare clear it.
    struct Fed {
        const Prepared* prepared = nullptr;
        std::vector<int32_t> tokens;  // [rows]
        int32_t pos = 0;
    };
    Fed fed_;
};

}  // namespace earshot::backend::cuda
