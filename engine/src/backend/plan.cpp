// Planning: loop unrolling, path resolution, concrete shapes and arena offsets by liveness.
#include "earshot/engine/backend/plan.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace earshot::backend {

using program::Graph;
using program::Op;
using program::OpKind;
using program::ScopeKind;

namespace {

constexpr int64_t kAlignBytes = 64;

int64_t align_up(int64_t n) { return (n + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

program::DType storage_dtype(const program::Type& type) {
    if (!type.element.is_variable() && type.element.dtype == program::DType::boolean) {
        return program::DType::boolean;
    }
    if (!type.element.is_variable() && type.element.dtype == program::DType::i32) {
        return program::DType::i32;
    }
    return program::DType::f32;  // every float type computes in f32
}

int64_t element_bytes(program::DType dtype) { return dtype == program::DType::boolean ? 1 : 4; }

// First-fit allocation in one arena with coalescing of freed blocks.
class ArenaAllocator {
public:
    int64_t allocate(int64_t bytes) {
        bytes = align_up(std::max<int64_t>(bytes, 1));
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second < bytes) continue;
            int64_t offset = it->first;
            int64_t rest = it->second - bytes;
            free_.erase(it);
            if (rest > 0) free_.emplace(offset + bytes, rest);
            return offset;
        }
        // Grow: reuse a free block that ends at the top.
        if (!free_.empty()) {
            auto last = std::prev(free_.end());
            if (last->first + last->second == top_) {
                int64_t offset = last->first;
                free_.erase(last);
                top_ = offset + bytes;
                return offset;
            }
        }
        int64_t offset = top_;
        top_ += bytes;
        return offset;
    }

    void release(int64_t offset, int64_t bytes) {
        bytes = align_up(std::max<int64_t>(bytes, 1));
        auto [it, inserted] = free_.emplace(offset, bytes);
        assert(inserted);
        (void)inserted;
        auto next = std::next(it);
        if (next != free_.end() && it->first + it->second == next->first) {
            it->second += next->second;
            free_.erase(next);
        }
        if (it != free_.begin()) {
            auto prev = std::prev(it);
            if (prev->first + prev->second == it->first) {
                prev->second += it->second;
                free_.erase(it);
            }
        }
    }

    int64_t top() const { return top_; }

private:
    std::map<int64_t, int64_t> free_;  // offset -> size
    int64_t top_ = 0;
};

class Planner {
public:
    Planner(const Graph& graph, const program::ConcreteBinding& binding)
        : graph_(graph), binding_(binding), value_slot_(graph.values.size(), -1) {
        plan_.entry = graph.name;
    }

    ExecutionPlan run() {
        process(0, graph_.ops.size());
        for (program::ValueId v : graph_.outputs) {
            plan_.outputs.push_back(value_slot_.at(static_cast<size_t>(v)));
        }
        fuse_epilogues();
        assign_offsets();
        return std::move(plan_);
    }

private:
    // The outermost loop holding `scope` that is not being unrolled yet, or -1.
    program::ScopeId pending_loop(program::ScopeId scope) const {
        program::ScopeId found = -1;
        for (program::ScopeId s = scope; s > 0; s = graph_.scopes[static_cast<size_t>(s)].parent) {
            if (graph_.scopes[static_cast<size_t>(s)].kind == ScopeKind::loop &&
                active_.count(s) == 0) {
                found = s;
            }
        }
        return found;
    }

    void process(size_t begin, size_t end) {
        for (size_t i = begin; i < end;) {
            program::ScopeId loop = pending_loop(graph_.ops[i].scope);
            if (loop < 0) {
                emit(graph_.ops[i]);
                ++i;
                continue;
            }
            size_t last = i;
            while (last + 1 < end && graph_.within(graph_.ops[last + 1].scope, loop)) ++last;
            unroll(loop, i, last + 1);
            i = last + 1;
        }
    }

    void unroll(program::ScopeId loop_id, size_t begin, size_t end) {
        const program::Scope& loop = graph_.scopes[static_cast<size_t>(loop_id)];
        const int64_t count = binding_.dim(loop.count);
        std::vector<int32_t> before;
        for (program::ValueId v : loop.carried_in) before.push_back(slot_of(v));
        std::vector<int32_t> current = before;
        active_.insert(loop_id);
        loop_order_.push_back(loop.index);
        for (int64_t index = 0; index < count; ++index) {
            indices_[loop.index] = index;
            for (size_t k = 0; k < current.size(); ++k) {
                value_slot_[static_cast<size_t>(loop.carried_in[k])] = current[k];
            }
            process(begin, end);
            for (size_t k = 0; k < current.size(); ++k) current[k] = slot_of(loop.carried_out[k]);
        }
        active_.erase(loop_id);
        indices_.erase(loop.index);
        loop_order_.pop_back();
        for (size_t k = 0; k < before.size(); ++k) {
            value_slot_[static_cast<size_t>(loop.carried_in[k])] = before[k];
        }
        for (size_t k = 0; k < current.size(); ++k) {
            value_slot_[static_cast<size_t>(loop.carried_out[k])] = current[k];
        }
    }

    int32_t slot_of(program::ValueId v) const {
        int32_t s = value_slot_.at(static_cast<size_t>(v));
        assert(s >= 0);
        return s;
    }

    // `encoder_layers[layer].fc1.weight` with layer = 3 -> `encoder_layers.3.fc1.weight`.
    std::string resolve(std::string path) const {
        for (const auto& [index, value] : indices_) {
            const std::string pattern = "[" + index + "]";
            for (auto at = path.find(pattern); at != std::string::npos; at = path.find(pattern)) {
                path.replace(at, pattern.size(), "." + std::to_string(value));
            }
        }
        return path;
    }

    int32_t new_slot(Slot slot) {
        plan_.slots.push_back(std::move(slot));
        return static_cast<int32_t>(plan_.slots.size() - 1);
    }

    Slot typed_slot(SlotKind kind, const program::Type& type) const {
        Slot slot;
        slot.kind = kind;
        slot.dtype = storage_dtype(type);
        slot.scalar = type.kind == program::Type::Kind::scalar;
        if (type.kind == program::Type::Kind::tensor) slot.shape = concrete_shape(type, binding_);
        int64_t n = 1;
        for (int64_t d : slot.shape) n *= d;
        slot.size_bytes = n * element_bytes(slot.dtype);
        return slot;
    }

    void emit(const Op& op) {
        const program::Type& type = graph_.type(op.output);
        auto& out = value_slot_[static_cast<size_t>(op.output)];
        switch (op.kind) {
            case OpKind::input: {
                Slot slot = typed_slot(SlotKind::input, type);
                auto at = std::find(graph_.inputs.begin(), graph_.inputs.end(), op.output);
                slot.index = at - graph_.inputs.begin();
                out = new_slot(std::move(slot));
                return;
            }
            case OpKind::param:
            case OpKind::state: {
                Slot slot =
                    typed_slot(op.kind == OpKind::param ? SlotKind::param : SlotKind::state, type);
                slot.path = resolve(std::get<std::string>(op.attr("path")));
                out = new_slot(std::move(slot));
                return;
            }
            case OpKind::none:
                out = new_slot(Slot{});
                return;
            default:
                break;
        }
        PlanStep step;
        step.kind = op.kind;
        for (program::ValueId in : op.inputs) step.inputs.push_back(slot_of(in));
        for (const auto& [key, attr] : op.attrs) {
            if (const auto* i = std::get_if<int64_t>(&attr)) step.ints[key] = *i;
            if (const auto* d = std::get_if<program::Dim>(&attr)) step.ints[key] = binding_.dim(*d);
            if (const auto* e = std::get_if<double>(&attr)) step.eps = *e;
            if (const auto* a = std::get_if<std::vector<int64_t>>(&attr)) step.axes = *a;
        }
        step.scope = scope_label(op.scope);
        // An exact repeat of a pure op takes the earlier result.
        std::string key;
        if (op.kind == OpKind::iota || op.kind == OpKind::causal_mask ||
            op.kind == OpKind::less_equal || op.kind == OpKind::reshape) {
            key = repeat_key(step, type);
            if (auto seen = repeats_.find(key); seen != repeats_.end()) {
                out = seen->second;
                record(op.output, out);
                return;
            }
        }
        if (op.kind == OpKind::write_span || op.kind == OpKind::write_at) {
            step.output = step.inputs.at(0);  // the state, written in place
        } else {
            step.output = new_slot(typed_slot(SlotKind::arena, type));
        }
        step.alias = is_view(step);
        out = step.output;
        record(op.output, step.output);
        if (!key.empty()) repeats_.emplace(std::move(key), step.output);
        plan_.steps.push_back(std::move(step));
    }

    void record(program::ValueId value, int32_t slot) {
        PlannedValue planned;
        planned.value = value;
        planned.slot = slot;
        // Outermost loop first: the order the loops were entered in.
        for (const std::string& index : loop_order_) {
            planned.loop_indices.emplace_back(index, indices_.at(index));
        }
        plan_.values.push_back(std::move(planned));
    }

    std::string repeat_key(const PlanStep& step, const program::Type& type) const {
        std::string key = std::string(program::op_kind_name(step.kind)) + "(";
        for (int32_t in : step.inputs) key += std::to_string(in) + ",";
        key += ")";
        for (const auto& [name, value] : step.ints) key += name + "=" + std::to_string(value) + ";";
        for (int64_t d : concrete_shape(type, binding_)) key += std::to_string(d) + "x";
        return key;
    }

    // A step whose output has exactly its arena input's bytes: reshape, and heads split or merged
    // for a single position (or a single head), where both layouts are the same.
    bool is_view(const PlanStep& step) const {
        if (step.inputs.empty()) return false;
        const Slot& in = plan_.slots[static_cast<size_t>(step.inputs[0])];
        if (in.kind != SlotKind::arena ||
            in.dtype != plan_.slots[static_cast<size_t>(step.output)].dtype) {
            return false;
        }
        switch (step.kind) {
            case OpKind::reshape:
                return true;
            case OpKind::split_heads:  // [B, N, D] -> [B, H, N, D / H]
                return in.shape.at(1) == 1 || step.ints.at("heads") == 1;
            case OpKind::merge_heads:  // [B, H, N, Dh] -> [B, N, H Dh]
                return in.shape.at(2) == 1 || in.shape.at(1) == 1;
            default:
                return false;
        }
    }

    std::string scope_label(program::ScopeId scope) const {
        std::string label;
        for (program::ScopeId s = scope; s > 0; s = graph_.scopes[static_cast<size_t>(s)].parent) {
            const auto& sc = graph_.scopes[static_cast<size_t>(s)];
            if (sc.kind != ScopeKind::call) continue;
            label = label.empty() ? resolve(sc.label) : resolve(sc.label) + " > " + label;
        }
        return label;
    }

    // A linear whose only reader is the next step, a GELU of it or a residual add of it, takes
    // that step in as its epilogue and writes the later step's output: one pass instead of two.
    void fuse_epilogues() {
        std::vector<int> readers(plan_.slots.size(), 0);
        for (const PlanStep& step : plan_.steps) {
            for (int32_t in : step.inputs) ++readers[static_cast<size_t>(in)];
        }
        for (int32_t out : plan_.outputs) ++readers[static_cast<size_t>(out)];
        std::vector<PlanStep> fused;
        for (PlanStep& step : plan_.steps) {
            PlanStep* linear = fused.empty() ? nullptr : &fused.back();
            if (linear != nullptr && linear->kind == OpKind::linear &&
                readers[static_cast<size_t>(linear->output)] == 1 &&
                linear->ints.count(kGeluEpilogue) == 0 && linear->ints.count(kResidualInput) == 0) {
                const Slot& produced = plan_.slots[static_cast<size_t>(linear->output)];
                if (step.kind == OpKind::gelu_erf && step.inputs.at(0) == linear->output) {
                    linear->ints[kGeluEpilogue] = 1;
                    linear->output = step.output;
                    continue;
                }
                if (step.kind == OpKind::add && step.inputs.size() == 2) {
                    const int other = step.inputs[1] == linear->output   ? 0
                                      : step.inputs[0] == linear->output ? 1
                                                                         : -1;
                    if (other >= 0 &&
                        plan_.slots[static_cast<size_t>(step.inputs[static_cast<size_t>(other)])]
                                .shape == produced.shape) {
                        linear->inputs.push_back(step.inputs[static_cast<size_t>(other)]);
                        linear->ints[kResidualInput] =
                            static_cast<int64_t>(linear->inputs.size()) - 1;
                        linear->output = step.output;
                        continue;
                    }
                }
            }
            fused.push_back(std::move(step));
        }
        plan_.steps = std::move(fused);
    }

    void assign_offsets() {
        std::vector<int64_t> last_use(plan_.slots.size(), -1);
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            for (int32_t in : plan_.steps[s].inputs) {
                last_use[static_cast<size_t>(in)] = static_cast<int64_t>(s);
            }
        }
        for (int32_t out : plan_.outputs) {
            last_use[static_cast<size_t>(out)] = static_cast<int64_t>(plan_.steps.size());
        }
        // A view keeps its input's bytes alive as long as the view is used (chains included:
        // walking backwards passes a later view's last use on to the earlier ones).
        for (size_t s = plan_.steps.size(); s-- > 0;) {
            const PlanStep& step = plan_.steps[s];
            if (!step.alias) continue;
            auto& root = last_use[static_cast<size_t>(step.inputs[0])];
            root = std::max(
                {root, last_use[static_cast<size_t>(step.output)], static_cast<int64_t>(s)});
        }
        // Slots to free after each step.
        std::vector<std::vector<int32_t>> dying(plan_.steps.size() + 1);
        ArenaAllocator arena;
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            int32_t out = plan_.steps[s].output;
            Slot& slot = plan_.slots[static_cast<size_t>(out)];
            if (plan_.steps[s].alias) {
                slot.offset_bytes =
                    plan_.slots[static_cast<size_t>(plan_.steps[s].inputs[0])].offset_bytes;
            } else if (slot.kind == SlotKind::arena) {
                slot.offset_bytes = arena.allocate(slot.size_bytes);
                plan_.naive_bytes += align_up(slot.size_bytes);
                int64_t death =
                    std::max<int64_t>(last_use[static_cast<size_t>(out)], static_cast<int64_t>(s));
                dying[static_cast<size_t>(death)].push_back(out);
            }
            for (int32_t d : dying[s]) {
                const Slot& dead = plan_.slots[static_cast<size_t>(d)];
                arena.release(dead.offset_bytes, dead.size_bytes);
            }
        }
        plan_.arena_bytes = arena.top();
    }

    const Graph& graph_;
    const program::ConcreteBinding& binding_;
    ExecutionPlan plan_;
    std::vector<int32_t> value_slot_;
    std::set<program::ScopeId> active_;
    std::map<std::string, int32_t> repeats_;  // pure ops emitted so far -> their result slot
    std::map<std::string, int64_t> indices_;
    std::vector<std::string> loop_order_;  // the loops being unrolled, outermost first
};

}  // namespace

std::vector<int64_t> concrete_shape(const program::Type& type,
                                    const program::ConcreteBinding& binding) {
    std::vector<int64_t> shape;
    for (const auto& d : type.dims()) shape.push_back(binding.dim(d));
    return shape;
}

ExecutionPlan build_plan(const Graph& graph, const program::ConcreteBinding& binding) {
    return Planner(graph, binding).run();
}

}  // namespace earshot::backend
