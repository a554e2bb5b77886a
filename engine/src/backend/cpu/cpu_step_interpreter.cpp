// CpuWhisper's step interpreter: a plan's slots bound to inputs, params, caches and the arena,
// each step run on the CPU kernels (cpu_kernels.h), and the cross-attention a prefill keeps.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "backend/cpu/cpu_gemv_f16.h"
#include "backend/cpu/cpu_kernels.h"
#include "backend/cpu/cpu_threads.h"
#include "backend/cpu/cpu_whisper_impl.h"
#include "backend/cpu/quant/block_linear.h"
#include "earshot/base/half_float.h"

namespace earshot::backend {

using program::OpKind;

HostTensor CpuWhisper::Impl::run(const ExecutionPlan& plan,
                                 const std::vector<const HostTensor*>& inputs, int32_t pos) {
    check_inputs(plan, inputs);
    const cpu::ThreadPool::Use pool(own_pool.get());
    const Prepared& ready = prepared.at(&plan);
    if (ready.reads_state_values && cache_storage == CacheStorage::f16) {
        throw std::logic_error(plan.entry + " reads a decoder cache the f16 caches cannot serve");
    }
    for (const std::string& path : ready.unshared_states) unshare(states.at(path));
    if (arena.size() < static_cast<size_t>(plan.arena_bytes / 4 + 16)) {
        arena.resize(static_cast<size_t>(plan.arena_bytes / 4 + 16));
    }
    auto* base = reinterpret_cast<std::byte*>(arena.data());
    slot_data.assign(plan.slots.size(), nullptr);
    slot_states.assign(plan.slots.size(), nullptr);
    std::vector<void*>& ptr = slot_data;
    param_forms = &ready.form;
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
    const ResolvedTaps* tapped = taps != nullptr ? tap_plan(plan) : nullptr;
    for (size_t index = 0; index < plan.steps.size(); ++index) {
        const PlanStep& step = plan.steps[index];
        // Copied right after the step that completes them: a later step may reuse the bytes.
        if (step.alias) {  // a view: its bytes are its input's
            if (tapped != nullptr) copy_taps(plan, *tapped, index, ptr, pos);
            continue;
        }
        if (!profiling) {
            execute(plan, step, ptr);
            if (tapped != nullptr) copy_taps(plan, *tapped, index, ptr, pos);
            continue;
        }
        const auto start = std::chrono::steady_clock::now();
        execute(plan, step, ptr);
        const std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - start;
        timings.push_back(
            {step.scope, std::string(program::op_kind_name(step.kind)), took.count(), plan.entry});
        if (tapped != nullptr) copy_taps(plan, *tapped, index, ptr, pos);
    }
    const Slot& out = plan.slots.at(static_cast<size_t>(plan.outputs.at(0)));
    HostTensor result = HostTensor::f32(out.shape);
    std::memcpy(result.f32_values().data(), ptr[static_cast<size_t>(plan.outputs[0])],
                static_cast<size_t>(out.size_bytes));
    return result;
}

const ResolvedTaps* CpuWhisper::Impl::tap_plan(const ExecutionPlan& plan) {
    if (taps->empty()) return nullptr;
    auto found = tap_plans.find(&plan);
    if (found == tap_plans.end() || found->second.generation != taps->generation()) {
        ResolvedTaps resolved = resolve_taps(plan, plans.graph(plan_entries.at(&plan)), *taps);
        found = tap_plans.insert_or_assign(&plan, std::move(resolved)).first;
    }
    return found->second.any ? &found->second : nullptr;
}

void CpuWhisper::Impl::copy_taps(const ExecutionPlan& plan, const ResolvedTaps& copies,
                                 size_t index, const std::vector<void*>& ptr, int32_t pos) {
    for (const TapCopy& copy : copies.after[index]) {
        const Slot& slot = plan.slots[static_cast<size_t>(copy.slot)];
        const float* minus =
            copy.minus_slot >= 0
                ? static_cast<const float*>(ptr[static_cast<size_t>(copy.minus_slot)])
                : nullptr;
        fill_tapped(taps->value_at(copy.request), plan, slot, ptr[static_cast<size_t>(copy.slot)],
                    pos, minus);
    }
}

bool CpuWhisper::Impl::half_cache(const Slot& slot) const {
    return slot.kind == SlotKind::state && cache_storage == CacheStorage::f16;
}

bool CpuWhisper::Impl::shared_state(const Slot& slot) const {
    if (slot.kind != SlotKind::state) return false;
    return states.at(slot.path).shared;
}

void CpuWhisper::Impl::keep_cross_attention(const Slot& keys, const float* q, const void* k,
                                            const std::vector<int64_t>& qs, int64_t k_len,
                                            float scale, bool shared) const {
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
                                   out + (b * wanted + i) * q_len * k_len, q_len, k_len, dh, scale);
        }
    }
}

void CpuWhisper::Impl::execute(const ExecutionPlan& plan, const PlanStep& step,
                               const std::vector<void*>& ptr) {
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
            const void* w = ptr[static_cast<size_t>(step.inputs[1])];
            switch ((*param_forms)[static_cast<size_t>(step.inputs[1])]) {
                case ParamForm::f16:
                    cpu::linear_f16(in(0), static_cast<const uint16_t*>(w), bias, out, m, k, n);
                    break;
                case ParamForm::blocks:
                    cpu::linear_blocks(in(0), *static_cast<const cpu::BlockMatrix*>(w), bias, out,
                                       m, k, n);
                    break;
                case ParamForm::f32:
                    cpu::linear(in(0), in(1), bias, out, m, k, n);
                    break;
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
                                     static_cast<const uint16_t*>(values), mask, out, qs[0], qs[1],
                                     qs[2], ks[2], qs[3], scale, rows);
            } else {
                cpu::attention(in(0), in(1), in(2), mask, out, qs[0], qs[1], qs[2], ks[2], qs[3],
                               scale, rows);
            }
            if (cross_attention != nullptr) {
                keep_cross_attention(slot(1), in(0), keys, qs, ks[2], scale, shared);
            }
            return;
        }
        case OpKind::embedding: {
            const auto& ts = slot(1).shape;  // [V, H]
            const ParamForm form = (*param_forms)[static_cast<size_t>(step.inputs[1])];
            if (form == ParamForm::blocks) {
                cpu::embedding_blocks(
                    in_i32(0),
                    *static_cast<const cpu::BlockMatrix*>(ptr[static_cast<size_t>(step.inputs[1])]),
                    out, element_count(slot(0).shape));
                return;
            }
            if (form == ParamForm::f16) {
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
                throw std::out_of_range(plan.entry + ": position " + std::to_string(start) + " + " +
                                        std::to_string(length) + " is outside the " +
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
                                        std::to_string(start + vs[axis] - 1) + " of a cache with " +
                                        std::to_string(ss[axis]));
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
                cpu::ThreadPool::current().parallel_for(
                    outer * span, int64_t{1} << 14, [&](int64_t begin, int64_t end) {
                        for (int64_t i = begin; i < end;) {
                            const int64_t o = i / span;
                            const int64_t n = std::min(end, (o + 1) * span) - i;
                            uint16_t* to = state + (o * ss[axis] + start) * inner + (i - o * span);
                            base::narrow_to_f16(std::span(values + i, static_cast<size_t>(n)),
                                                std::span(to, static_cast<size_t>(n)));
                            i += n;
                        }
                    });
                return;
            }
            auto* state = static_cast<float*>(out_raw);
            for (int64_t o = 0; o < outer; ++o) {
                std::memcpy(state + (o * ss[axis] + start) * inner, in(1) + o * vs[axis] * inner,
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

}  // namespace earshot::backend
