// CpuWhisper::Impl: what a CpuWhisper holds (weights, decoder caches, plans and their resolved
// params, the arena) and the functions of its three parts: plan preparation (cpu_whisper.cpp),
// the caches (cpu_whisper_caches.cpp) and the step interpreter (cpu_step_interpreter.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_cache.h"
#include "backend/cpu/cpu_threads.h"
#include "backend/cpu/cpu_weights.h"
#include "backend/tap_copy.h"
#include "backend/whisper_plans.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/plan.h"

namespace earshot::backend {

struct CpuWhisper::Impl {
    explicit Impl(const model::WhisperBinding& bound) : binding(bound), plans(bound) {}

    // One decoder cache [rows, Heads, Positions, D / Heads], f32 or f16 values. The audio
    // caches of a batch expanded from one row (beams over one window) keep that single row, which
    // every batch row reads (`shared`). Positions at or past `filled` have never been written in
    // any row: they are zeros, and copies leave them out (so their pages stay unmapped).
    struct State {
        cpu::CacheBuffer values;
        int64_t heads = 0;
        int64_t positions = 0;
        int64_t dh = 0;
        int64_t filled = 0;
        int64_t value_bytes = 4;  // 2: f16 bits
        bool shared = false;

        int64_t row_bytes() const { return heads * positions * dh * value_bytes; }
        // Row `to` of `into` takes the written positions of row `from` of this cache.
        void copy_row(int64_t from, cpu::CacheBuffer& into, int64_t to) const;
    };

    // How a param slot's pointer reads: f32 values, f16 bits, or a cpu::BlockMatrix.
    enum class ParamForm : uint8_t { f32, f16, blocks };

    // What a plan needs resolved once: param pointers, and the form of each.
    struct Prepared {
        std::vector<const void*> params;  // per slot; null for other slots or absent params
        std::vector<ParamForm> form;      // per slot
        // States the plan writes, or reads other than as attention keys and values: a shared
        // audio cache gets its full rows before the plan runs.
        std::vector<std::string> unshared_states;
        // Whether a step reads a state other than as attention keys and values or as the cache
        // a write fills (what f16 caches cannot serve).
        bool reads_state_values = false;
    };

    model::WhisperBinding binding;
    // This instance's own pool (set_threads); null: the shared one. `run` names it current.
    std::unique_ptr<cpu::ThreadPool> own_pool;
    int64_t batch = 1;
    CacheStorage cache_storage = CacheStorage::f32;
    WeightResidency residency = WeightResidency::all;
    cpu::CpuWeights weights;
    std::unordered_map<std::string, State> states;
    WhisperPlans plans;
    std::unordered_map<const ExecutionPlan*, Prepared> prepared;
    std::vector<float> arena;  // intermediates of the running plan
    std::vector<float> conv_scratch;
    std::vector<void*> slot_data;     // per slot of the running plan
    std::vector<State*> slot_states;  // per slot of the running plan: its cache, or null
    bool profiling = false;
    std::vector<StepTiming> timings;

    // Plan preparation (cpu_whisper.cpp).
    const ExecutionPlan& plan_for(const std::string& entry, const program::DimValues& extra);
    // Checks every param a plan reads against the planned shape (optional ones may be absent)
    // and resolves it: f16 bits or blocks where every read is a product or a lookup, f32
    // otherwise.
    Prepared prepare(const ExecutionPlan& plan);

    // The caches (cpu_whisper_caches.cpp).
    // The decoder caches: [Batch, Heads, MaxTokens | Audio, D / Heads] per layer, all zero.
    void allocate_states();
    // A shared cache gets its own copy of the row for every batch row (before a plan writes it).
    void unshare(State& state) const;
    // The encoder's intermediates are the largest by far; a decoder that follows needs a small
    // part of them, so they go rather than stay resident beside the caches.
    void release_scratch();
    // Every cache becomes `rows` rows, row r copying row source[r] of the current caches. An
    // audio cache whose rows would all be copies of one row keeps that row, shared.
    void gather_rows(std::span<const int64_t> source, int64_t rows);
    // gather_rows for a batch of the same size: rows rewritten in place (gather_scratch keeps the
    // written positions of the rows others take).
    void reorder_in_place(State& state, std::span<const int64_t> source);
    std::vector<std::byte> gather_scratch;

    // The step interpreter (cpu_step_interpreter.cpp).
    HostTensor run(const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs,
                   int32_t pos);
    // Whether `slot` is a decoder cache of f16 values.
    bool half_cache(const Slot& slot) const;
    // Whether the state at `slot` is an audio cache every batch row shares.
    bool shared_state(const Slot& slot) const;
    // After an attention step over a decoder layer's cross_k cache: the asked heads of that
    // layer get their probabilities. q [B, H, Q, Dh], k [B, H, K, Dh] ([1, ...] when shared).
    void keep_cross_attention(const Slot& keys, const float* q, const void* k,
                              const std::vector<int64_t>& qs, int64_t k_len, float scale,
                              bool shared) const;
    void execute(const ExecutionPlan& plan, const PlanStep& step, const std::vector<void*>& ptr);

    // Taps: the copies of the attached taps for `plan` (resolved once per TapSet change), or
    // null when the plan has none of their names.
    const ResolvedTaps* tap_plan(const ExecutionPlan& plan);
    // Copies the values step `index` completed into the attached TapSet.
    void copy_taps(const ExecutionPlan& plan, const ResolvedTaps& copies, size_t index,
                   const std::vector<void*>& ptr, int32_t pos);
    TapSet* taps = nullptr;
    std::unordered_map<const ExecutionPlan*, ResolvedTaps> tap_plans;
    std::unordered_map<const ExecutionPlan*, std::string> plan_entries;  // "encode", ...

    const std::vector<ParamForm>* param_forms = nullptr;  // Prepared::form of the running plan
    CrossAttentionRequest* cross_attention = nullptr;     // set while a prefill asks for weights
};

}  // namespace earshot::backend
