// CpuWhisper: the weights (f16 matrices stay f16, see cpu_weights.h), f32 or f16 caches resident
// only where written (cpu_cache.h), one plan per (entry, binding), and the step interpreter that
// runs a plan's steps on the CPU kernels.
#include "earshot/engine/backend/cpu_whisper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <span>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "../whisper_plans.h"
#include "cpu_cache.h"
#include "cpu_gemv_f16.h"
#include "cpu_kernels.h"
#include "cpu_threads.h"
#include "cpu_weights.h"
#include "earshot/engine/backend/plan.h"
#include "earshot/engine/checkpoint/half_float.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/model/whisper_model.h"

namespace earshot::backend {

using program::OpKind;

namespace {

using program::shape_str;

bool is_cross_cache(const std::string& path) {
    return path.ends_with("cross_k") || path.ends_with("cross_v");
}

// Whether a step reads input `i` in a way an f16 matrix serves directly.
bool reads_half(const PlanStep& step, size_t i) {
    return i == 1 && (step.kind == OpKind::linear || step.kind == OpKind::embedding);
}

}  // namespace

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
        void copy_row(int64_t from, cpu::CacheBuffer& into, int64_t to) const {
            const int64_t head_bytes = positions * dh * value_bytes;
            for (int64_t h = 0; h < heads; ++h) {
                std::memcpy(into.data() + to * row_bytes() + h * head_bytes,
                            values.data() + from * row_bytes() + h * head_bytes,
                            static_cast<size_t>(filled * dh * value_bytes));
            }
        }
    };

    // What a plan needs resolved once: param pointers, and which of them are f16 matrices.
    struct Prepared {
        std::vector<const void*> params;  // per slot; null for other slots or absent params
        std::vector<uint8_t> half;        // per slot: 1 when params[slot] is f16 bits
        // States the plan writes, or reads other than as attention keys and values: a shared
        // audio cache gets its full rows before the plan runs.
        std::vector<std::string> unshared_states;
        // Whether a step reads a state other than as attention keys and values or as the cache
        // a write fills (what f16 caches cannot serve).
        bool reads_state_values = false;
    };

    model::WhisperBinding binding;
    int64_t batch = 1;
    CacheStorage cache_storage = CacheStorage::f32;
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

    const ExecutionPlan& plan_for(const std::string& entry, const program::DimValues& extra) {
        const ExecutionPlan& plan = plans.plan(entry, batch, extra);
        if (!prepared.contains(&plan)) prepared.emplace(&plan, prepare(plan));
        return plan;
    }

    // Checks every param a plan reads against the planned shape (optional ones may be absent)
    // and resolves it: f16 bits where every read is a product or a lookup, f32 otherwise.
    Prepared prepare(const ExecutionPlan& plan) {
        Prepared result;
        result.params.assign(plan.slots.size(), nullptr);
        result.half.assign(plan.slots.size(), 0);
        std::vector<uint8_t> needs_f32(plan.slots.size(), 0);
        for (const PlanStep& step : plan.steps) {
            for (size_t i = 0; i < step.inputs.size(); ++i) {
                if (!reads_half(step, i) || step.alias) {
                    needs_f32[static_cast<size_t>(step.inputs[i])] = 1;
                }
            }
            const Slot& out = plan.slots[static_cast<size_t>(step.output)];
            if (out.kind == SlotKind::state) result.unshared_states.push_back(out.path);
            for (size_t i = 0; i < step.inputs.size(); ++i) {
                const Slot& read = plan.slots[static_cast<size_t>(step.inputs[i])];
                const bool kv = step.kind == OpKind::attention && (i == 1 || i == 2);
                if (read.kind == SlotKind::state && !kv)
                    result.unshared_states.push_back(read.path);
                const bool written =
                    i == 0 && (step.kind == OpKind::write_span || step.kind == OpKind::write_at);
                if (read.kind == SlotKind::state && !kv && !written) {
                    result.reads_state_values = true;
                }
            }
        }
        for (size_t s = 0; s < plan.slots.size(); ++s) {
            const Slot& slot = plan.slots[s];
            if (slot.kind != SlotKind::param || !weights.contains(slot.path)) continue;
            const int64_t held = weights.element_count(slot.path);
            if (held != element_count(slot.shape)) {
                throw std::runtime_error("parameter " + slot.path + " holds " +
                                         std::to_string(held) + " values, the plan expects " +
                                         shape_str(slot.shape));
            }
            const uint16_t* half = needs_f32[s] != 0 ? nullptr : weights.half(slot.path);
            result.half[s] = half != nullptr ? 1 : 0;
            result.params[s] = half != nullptr ? static_cast<const void*>(half)
                                               : static_cast<const void*>(weights.f32(slot.path));
        }
        return result;
    }

    // The decoder caches: [Batch, Heads, MaxTokens | Audio, D / Heads] per layer, all zero.
    void allocate_states() {
        states.clear();
        for (const CacheShape& cache : plans.cache_shapes(batch)) {
            State& state = states[cache.path];
            state.value_bytes = cache_storage == CacheStorage::f16 ? 2 : 4;
            state.values =
                cpu::CacheBuffer(static_cast<size_t>(cache.elements() * state.value_bytes));
            state.heads = cache.shape.at(1);
            state.positions = cache.shape.at(2);
            state.dh = cache.shape.at(3);
        }
    }

    // A shared cache gets its own copy of the row for every batch row (before a plan writes it).
    void unshare(State& state) const {
        if (!state.shared) return;
        cpu::CacheBuffer next(static_cast<size_t>(state.row_bytes() * batch));
        for (int64_t r = 0; r < batch; ++r) state.copy_row(0, next, r);
        state.values = std::move(next);
        state.shared = false;
    }

    // The encoder's intermediates are the largest by far; a decoder that follows needs a small
    // part of them, so they go rather than stay resident beside the caches.
    void release_scratch() {
        arena = {};
        conv_scratch = {};
    }

    // Every cache becomes `rows` rows, row r copying row source[r] of the current caches. An
    // audio cache whose rows would all be copies of one row keeps that row, shared.
    void gather_rows(std::span<const int64_t> source, int64_t rows) {
        for (int64_t r = 0; r < rows; ++r) {
            const int64_t from = source[static_cast<size_t>(r)];
            if (from < 0 || from >= batch) {
                throw std::out_of_range("row " + std::to_string(from) + " of a batch of " +
                                        std::to_string(batch));
            }
        }
        const bool one_source = std::all_of(source.begin(), source.begin() + rows,
                                            [&](int64_t from) { return from == source[0]; });
        for (auto& [path, state] : states) {
            if (state.shared) continue;  // every row is the same row, whatever the order
            if (is_cross_cache(path) && one_source) {
                cpu::CacheBuffer kept(static_cast<size_t>(state.row_bytes()));
                state.copy_row(source[0], kept, 0);
                state.values = std::move(kept);
                state.shared = rows > 1;
                continue;
            }
            cpu::CacheBuffer next(static_cast<size_t>(state.row_bytes() * rows));
            for (int64_t r = 0; r < rows; ++r) {
                state.copy_row(source[static_cast<size_t>(r)], next, r);
            }
            state.values = std::move(next);
        }
        batch = rows;
        binding.values.dims["Batch"] = rows;
        if (rows == 1) {
            for (auto& entry : states) entry.second.shared = false;
        }
    }

    HostTensor run(const ExecutionPlan& plan, const std::vector<const HostTensor*>& inputs,
                   int32_t pos) {
        check_inputs(plan, inputs);
        const Prepared& ready = prepared.at(&plan);
        if (ready.reads_state_values && cache_storage == CacheStorage::f16) {
            throw std::logic_error(plan.entry +
                                   " reads a decoder cache the f16 caches cannot serve");
        }
        for (const std::string& path : ready.unshared_states) unshare(states.at(path));
        if (arena.size() < static_cast<size_t>(plan.arena_bytes / 4 + 16)) {
            arena.resize(static_cast<size_t>(plan.arena_bytes / 4 + 16));
        }
        auto* base = reinterpret_cast<std::byte*>(arena.data());
        slot_data.assign(plan.slots.size(), nullptr);
        slot_states.assign(plan.slots.size(), nullptr);
        std::vector<void*>& ptr = slot_data;
        half_slots = &ready.half;
        for (size_t s = 0; s < plan.slots.size(); ++s) {
            const Slot& slot = plan.slots[s];
            switch (slot.kind) {
                case SlotKind::none:
                    break;
                case SlotKind::input: {
                    if (slot.scalar) {
                        ptr[s] = &pos;
                        break;
                    }
                    const HostTensor& t = *inputs.at(static_cast<size_t>(slot.index));
                    const void* data = t.kind() == HostTensor::Kind::f32
                                           ? static_cast<const void*>(t.f32_values().data())
                                           : static_cast<const void*>(t.i32_values().data());
                    // Kernels only read inputs; one pointer table serves every slot kind.
                    ptr[s] = const_cast<void*>(data);
                    break;
                }
                case SlotKind::param:
                    // Kernels only read params (see the input case).
                    ptr[s] = const_cast<void*>(ready.params[s]);
                    break;
                case SlotKind::state: {
                    State& state = states.at(slot.path);
                    slot_states[s] = &state;
                    ptr[s] = state.values.data();
                    break;
                }
                case SlotKind::arena:
                    ptr[s] = base + slot.offset_bytes;
                    break;
            }
        }
        timings.clear();
        for (const PlanStep& step : plan.steps) {
            if (step.alias) continue;  // a view: its bytes are its input's
            if (!profiling) {
                execute(plan, step, ptr);
                continue;
            }
            const auto start = std::chrono::steady_clock::now();
            execute(plan, step, ptr);
            const std::chrono::duration<double, std::milli> took =
                std::chrono::steady_clock::now() - start;
            timings.push_back({step.scope, std::string(program::op_kind_name(step.kind)),
                               took.count(), plan.entry});
        }
        const Slot& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
        HostTensor result = HostTensor::f32(out.shape);
        std::memcpy(result.f32_values().data(), ptr[static_cast<size_t>(plan.outputs[0])],
                    static_cast<size_t>(out.size_bytes));
        return result;
    }

    // Whether `slot` is a decoder cache of f16 values.
    bool half_cache(const Slot& slot) const {
        return slot.kind == SlotKind::state && cache_storage == CacheStorage::f16;
    }

    // Whether the state at `slot` is an audio cache every batch row shares.
    bool shared_state(const Slot& slot) const {
        if (slot.kind != SlotKind::state) return false;
        return states.at(slot.path).shared;
    }

    const std::vector<uint8_t>* half_slots = nullptr;  // Prepared::half of the running plan
    CrossAttentionRequest* cross_attention = nullptr;  // set while a prefill asks for weights

    // After an attention step over a decoder layer's cross_k cache: the asked heads of that
    // layer get their probabilities. q [B, H, Q, Dh], k [B, H, K, Dh] ([1, ...] when shared).
    void keep_cross_attention(const Slot& keys, const float* q, const void* k,
                              const std::vector<int64_t>& qs, int64_t k_len, float scale,
                              bool shared) const {
        static constexpr std::string_view kPrefix = "decoder_layers.";
        if (keys.kind != SlotKind::state || !keys.path.starts_with(kPrefix) ||
            !keys.path.ends_with(".cross_k")) {
            return;
        }
        const int64_t layer = std::stoll(keys.path.substr(kPrefix.size()));
        const int64_t rows = qs[0];
        const int64_t heads = qs[1];
        const int64_t q_len = qs[2];
        const int64_t dh = qs[3];
        const auto wanted = static_cast<int64_t>(cross_attention->heads.size());
        float* out = cross_attention->weights.f32_values().data();  // [B, wanted, Q, K]
        for (int64_t i = 0; i < wanted; ++i) {
            const AttentionHead& head = cross_attention->heads[static_cast<size_t>(i)];
            if (head.layer != layer) continue;
            for (int64_t b = 0; b < rows; ++b) {
                const int64_t bh = b * heads + head.head;
                const int64_t offset = (shared ? head.head : bh) * k_len * dh;
                const float* head_keys = static_cast<const float*>(k) + offset;
                std::vector<float> widened;
                if (cache_storage == CacheStorage::f16) {
                    widened.resize(static_cast<size_t>(k_len * dh));
                    cpu::widen_f16(static_cast<const uint16_t*>(k) + offset, widened.data(),
                                   k_len * dh);
                    head_keys = widened.data();
                }
                cpu::attention_weights(q + bh * q_len * dh, head_keys,
                                       out + (b * wanted + i) * q_len * k_len, q_len, k_len, dh,
                                       scale);
            }
        }
    }

    void execute(const ExecutionPlan& plan, const PlanStep& step, const std::vector<void*>& ptr) {
        auto slot = [&](size_t i) -> const Slot& {
            return plan.slots[static_cast<size_t>(step.inputs.at(i))];
        };
        auto in = [&](size_t i) {
            return static_cast<const float*>(ptr[static_cast<size_t>(step.inputs.at(i))]);
        };
        auto in_i32 = [&](size_t i) {
            return static_cast<const int32_t*>(ptr[static_cast<size_t>(step.inputs.at(i))]);
        };
        const Slot& out_slot = plan.slots[static_cast<size_t>(step.output)];
        void* out_raw = ptr[static_cast<size_t>(step.output)];
        auto* out = static_cast<float*>(out_raw);
        const int64_t out_n = element_count(out_slot.shape);
        switch (step.kind) {
            case OpKind::permute:
                cpu::permute(in(0), out, slot(0).shape, step.axes);
                return;
            case OpKind::conv1d: {
                const auto& xs = slot(0).shape;  // [B, L, Cin]
                const auto& ws = slot(1).shape;  // [Cout, Cin, K]
                cpu::conv1d(in(0), in(1), in(2), out, xs[0], xs[1], xs[2], ws[0], ws[2],
                            step.ints.at("stride"), step.ints.at("padding"), conv_scratch);
                return;
            }
            case OpKind::gelu_erf:
                cpu::gelu_erf(in(0), out, out_n);
                return;
            case OpKind::add:
                cpu::add(in(0), in(1), out, out_n, element_count(slot(1).shape));
                return;
            case OpKind::layer_norm: {
                const int64_t d = slot(0).shape.back();
                cpu::layer_norm(in(0), in(1), in(2), out, out_n / d, d, step.eps);
                return;
            }
            case OpKind::rms_norm: {
                const int64_t d = slot(0).shape.back();
                cpu::rms_norm(in(0), in(1), out, out_n / d, d, step.eps);
                return;
            }
            case OpKind::linear: {
                const int64_t k = slot(0).shape.back();
                const int64_t n = slot(1).shape.at(0);
                const int64_t m = element_count(slot(0).shape) / k;
                const auto bias_input = linear_bias_input(step);
                const float* bias = bias_input ? in(*bias_input) : nullptr;
                if ((*half_slots)[static_cast<size_t>(step.inputs[1])] != 0) {
                    const auto* w =
                        static_cast<const uint16_t*>(ptr[static_cast<size_t>(step.inputs[1])]);
                    cpu::linear_f16(in(0), w, bias, out, m, k, n);
                } else {
                    cpu::linear(in(0), in(1), bias, out, m, k, n);
                }
                // Epilogues the plan folded in: the same arithmetic as the separate ops.
                if (linear_gelu_epilogue(step)) cpu::gelu_erf(out, out, m * n);
                if (const auto residual = linear_residual_input(step)) {
                    cpu::add(out, in(*residual), out, m * n, m * n);
                }
                return;
            }
            case OpKind::split_heads: {
                const auto& xs = slot(0).shape;  // [B, N, D]
                const int64_t heads = step.ints.at("heads");
                cpu::split_heads(in(0), out, xs[0], xs[1], heads, xs[2] / heads);
                return;
            }
            case OpKind::merge_heads: {
                const auto& xs = slot(0).shape;  // [B, H, N, Dh]
                cpu::merge_heads(in(0), out, xs[0], xs[1], xs[2], xs[3]);
                return;
            }
            case OpKind::attention: {
                const auto& qs = slot(0).shape;  // [B, H, Q, Dh]
                const auto& ks = slot(1).shape;  // [B, H, K, Dh]
                const auto* mask =
                    static_cast<const uint8_t*>(ptr[static_cast<size_t>(step.inputs.at(3))]);
                const float scale = 1.0F / std::sqrt(static_cast<float>(step.ints.at("scale_dim")));
                const bool shared = shared_state(slot(1)) && shared_state(slot(2));
                if (!shared && (shared_state(slot(1)) || shared_state(slot(2)))) {
                    throw std::logic_error("attention over one shared and one per-row cache");
                }
                const auto rows = shared ? cpu::KvRows::shared : cpu::KvRows::per_batch_row;
                const void* keys = ptr[static_cast<size_t>(step.inputs.at(1))];
                const void* values = ptr[static_cast<size_t>(step.inputs.at(2))];
                if (half_cache(slot(1)) != half_cache(slot(2))) {
                    throw std::logic_error("attention over one f16 and one f32 cache");
                }
                if (half_cache(slot(1))) {
                    cpu::attention_f16kv(in(0), static_cast<const uint16_t*>(keys),
                                         static_cast<const uint16_t*>(values), mask, out, qs[0],
                                         qs[1], qs[2], ks[2], qs[3], scale, rows);
                } else {
                    cpu::attention(in(0), in(1), in(2), mask, out, qs[0], qs[1], qs[2], ks[2],
                                   qs[3], scale, rows);
                }
                if (cross_attention != nullptr) {
                    keep_cross_attention(slot(1), in(0), keys, qs, ks[2], scale, shared);
                }
                return;
            }
            case OpKind::embedding: {
                const auto& ts = slot(1).shape;  // [V, H]
                if ((*half_slots)[static_cast<size_t>(step.inputs[1])] != 0) {
                    cpu::embedding_f16(
                        in_i32(0),
                        static_cast<const uint16_t*>(ptr[static_cast<size_t>(step.inputs[1])]), out,
                        element_count(slot(0).shape), ts[0], ts[1]);
                    return;
                }
                cpu::embedding(in_i32(0), in(1), out, element_count(slot(0).shape), ts[0], ts[1]);
                return;
            }
            case OpKind::slice_rows: {
                const auto& ts = slot(0).shape;  // [N, D]
                const int64_t start = step.inputs.size() > 1 ? *in_i32(1) : step.ints.at("start");
                const int64_t length = step.ints.at("length");
                if (start < 0 || start + length > ts[0]) {
                    throw std::out_of_range(plan.entry + ": position " + std::to_string(start) +
                                            " + " + std::to_string(length) + " is outside the " +
                                            std::to_string(ts[0]) + " positions of the table");
                }
                std::memcpy(out, in(0) + start * ts[1],
                            static_cast<size_t>(length * ts[1]) * sizeof(float));
                return;
            }
            case OpKind::take: {
                const auto& xs = slot(0).shape;
                const int64_t axis = step.ints.at("axis");
                const int64_t index = step.ints.at("index");
                const int64_t outer = element_count(xs, 0, static_cast<size_t>(axis));
                const int64_t inner = element_count(xs, static_cast<size_t>(axis) + 1);
                const int64_t n = xs[static_cast<size_t>(axis)];
                for (int64_t o = 0; o < outer; ++o) {
                    std::memcpy(out + o * inner, in(0) + (o * n + index) * inner,
                                static_cast<size_t>(inner) * sizeof(float));
                }
                return;
            }
            case OpKind::causal_mask: {
                const int64_t s = step.ints.at("size");
                auto* mask = static_cast<uint8_t*>(out_raw);
                for (int64_t i = 0; i < s; ++i) {
                    for (int64_t j = 0; j < s; ++j) mask[i * s + j] = j <= i ? 1 : 0;
                }
                return;
            }
            case OpKind::iota: {
                auto* values = static_cast<int32_t*>(out_raw);
                for (int64_t i = 0; i < out_n; ++i) values[i] = static_cast<int32_t>(i);
                return;
            }
            case OpKind::less_equal: {
                const int32_t* x = in_i32(0);
                const int32_t bound = *in_i32(1);
                auto* result = static_cast<uint8_t*>(out_raw);
                for (int64_t i = 0; i < out_n; ++i) result[i] = x[i] <= bound ? 1 : 0;
                return;
            }
            case OpKind::reshape:
                std::memcpy(out_raw, ptr[static_cast<size_t>(step.inputs.at(0))],
                            static_cast<size_t>(out_slot.size_bytes));
                return;
            case OpKind::write_span:
            case OpKind::write_at: {
                const auto& ss = slot(0).shape;
                const auto& vs = slot(1).shape;
                const auto axis = static_cast<size_t>(step.ints.at("axis"));
                const int64_t start =
                    step.kind == OpKind::write_at ? *in_i32(2) : step.ints.at("start");
                if (start < 0 || start + vs[axis] > ss[axis]) {
                    throw std::out_of_range(plan.entry + ": writing positions " +
                                            std::to_string(start) + " .. " +
                                            std::to_string(start + vs[axis] - 1) +
                                            " of a cache with " + std::to_string(ss[axis]));
                }
                const int64_t outer = element_count(ss, 0, axis);
                const int64_t inner = element_count(ss, axis + 1);
                if (State* cache = slot_states[static_cast<size_t>(step.output)]) {
                    // Positions along axis 2 of [rows, Heads, Positions, D / Heads]; a write
                    // along another axis may touch any position.
                    cache->filled =
                        axis == 2 ? std::max(cache->filled, start + vs[axis]) : cache->positions;
                }
                if (half_cache(out_slot)) {
                    // Narrowed on the pool in pieces of 16 Ki values (a window's audio caches:
                    // millions), each piece within one of the `outer` spans or across several.
                    auto* state = static_cast<uint16_t*>(out_raw);
                    const int64_t span = vs[axis] * inner;
                    const float* values = in(1);
                    cpu::ThreadPool::shared().parallel_for(
                        outer * span, int64_t{1} << 14, [&](int64_t begin, int64_t end) {
                            for (int64_t i = begin; i < end;) {
                                const int64_t o = i / span;
                                const int64_t n = std::min(end, (o + 1) * span) - i;
                                uint16_t* to =
                                    state + (o * ss[axis] + start) * inner + (i - o * span);
                                checkpoint::narrow_to_f16(
                                    std::span(values + i, static_cast<size_t>(n)),
                                    std::span(to, static_cast<size_t>(n)));
                                i += n;
                            }
                        });
                    return;
                }
                auto* state = static_cast<float*>(out_raw);
                for (int64_t o = 0; o < outer; ++o) {
                    std::memcpy(state + (o * ss[axis] + start) * inner,
                                in(1) + o * vs[axis] * inner,
                                static_cast<size_t>(vs[axis] * inner) * sizeof(float));
                }
                return;
            }
            case OpKind::input:
            case OpKind::param:
            case OpKind::state:
            case OpKind::none:
                break;
        }
        throw std::logic_error("the CPU backend has no kernel for " +
                               std::string(program::op_kind_name(step.kind)));
    }
};

CpuWhisper::CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch)
    : CpuWhisper(checkpoint, batch, CacheStorage::f32) {}

CpuWhisper::CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch,
                       CacheStorage caches)
    : impl_(std::make_unique<Impl>(checkpoint.binding)) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    impl_->batch = batch;
    impl_->cache_storage = caches;
    impl_->binding.values.dims["Batch"] = batch;
    impl_->weights = cpu::CpuWeights(checkpoint);
    impl_->allocate_states();
}

void CpuWhisper::resize_batch(int64_t batch) {
    if (batch < 1) throw std::invalid_argument("batch must be at least 1");
    impl_->batch = batch;
    impl_->binding.values.dims["Batch"] = batch;
    impl_->allocate_states();
}

void CpuWhisper::expand_batch(int64_t rows) {
    if (rows < 1) throw std::invalid_argument("batch must be at least 1");
    const std::vector<int64_t> source(static_cast<size_t>(rows), 0);
    impl_->gather_rows(source, rows);
}

void CpuWhisper::reorder_batch(std::span<const int64_t> source_rows) {
    if (static_cast<int64_t>(source_rows.size()) != impl_->batch) {
        throw std::invalid_argument("reorder_batch needs one source row per row of the batch");
    }
    impl_->gather_rows(source_rows, impl_->batch);
}

CacheStorage CpuWhisper::cache_storage() const { return impl_->cache_storage; }

int64_t CpuWhisper::cache_bytes() const {
    int64_t bytes = 0;
    for (const auto& [path, state] : impl_->states) {
        const int64_t rows = state.shared ? 1 : impl_->batch;
        bytes += rows * state.heads * state.filled * state.dh * state.value_bytes;
    }
    return bytes;
}

CpuWhisper::~CpuWhisper() = default;
CpuWhisper::CpuWhisper(CpuWhisper&&) noexcept = default;
CpuWhisper& CpuWhisper::operator=(CpuWhisper&&) noexcept = default;

void CpuWhisper::set_profiling(bool on) { impl_->profiling = on; }

const std::vector<StepTiming>& CpuWhisper::last_timings() const { return impl_->timings; }

const model::WhisperBinding& CpuWhisper::binding() const { return impl_->binding; }
int64_t CpuWhisper::batch() const { return impl_->batch; }

HostTensor CpuWhisper::encode(const HostTensor& mel) {
    require_rank(mel, 3, "encode: mel [B, Mels, Frames]");
    const auto& plan = impl_->plan_for("encode", {{"B", mel.dim(0)}});
    return impl_->run(plan, {&mel}, 0);
}

HostTensor CpuWhisper::decode(const HostTensor& tokens, const HostTensor& audio) {
    require_rank(tokens, 2, "decode: tokens [B, S]");
    require_rank(audio, 3, "decode: audio [B, A, D]");
    const auto& plan = impl_->plan_for(
        "decode", {{"B", tokens.dim(0)}, {"S", tokens.dim(1)}, {"A", audio.dim(1)}});
    return impl_->run(plan, {&tokens, &audio}, 0);
}

HostTensor CpuWhisper::listen(const HostTensor& mel) {
    require_rank(mel, 3, "listen: mel [Batch, Mels, Frames]");
    HostTensor audio = impl_->run(impl_->plan_for("listen", {}), {&mel}, 0);
    impl_->release_scratch();
    return audio;
}

HostTensor CpuWhisper::prefill(const HostTensor& tokens, CrossAttentionRequest* cross_attention) {
    require_rank(tokens, 2, "prefill: tokens [Batch, S]");
    const auto& plan = impl_->plan_for("prefill", {{"S", tokens.dim(1)}});
    if (cross_attention == nullptr) return impl_->run(plan, {&tokens}, 0);
    const auto& dims = impl_->binding.values.dims;
    require_decoder_heads(cross_attention->heads, dims.at("DecoderLayers"), dims.at("Heads"));
    cross_attention->weights =
        HostTensor::f32({impl_->batch, static_cast<int64_t>(cross_attention->heads.size()),
                         tokens.dim(1), model::audio_positions(dims)});
    impl_->cross_attention = cross_attention;
    struct Forget {
        Impl& impl;
        ~Forget() { impl.cross_attention = nullptr; }
    } forget{*impl_};
    return impl_->run(plan, {&tokens}, 0);
}

HostTensor CpuWhisper::step(const HostTensor& token, int32_t pos) {
    require_rank(token, 2, "step: token [Batch, 1]");
    return impl_->run(impl_->plan_for("step", {}), {&token}, pos);
}

}  // namespace earshot::backend
