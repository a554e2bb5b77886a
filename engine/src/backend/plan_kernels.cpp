// Describing the kernels of a plan step: operands and the bytes they move, scopes as listed, and
// the steps every backend runs as one kernel (layout, elementwise, lookups, cache writes).
#include "plan_kernels.h"

#include <algorithm>

#include "earshot/engine/checkpoint/ggml_blocks.h"

namespace earshot::backend {

using program::OpKind;

int64_t stored_bytes(StoredAs dtype) { return dtype == StoredAs::f16 ? 2 : 4; }
const char* stored_name(StoredAs dtype) { return dtype == StoredAs::f16 ? "f16" : "f32"; }

namespace {

int64_t element_bytes(const std::string& dtype) {
    if (dtype == "f16" || dtype == "bf16") return 2;
    if (dtype == "bool") return 1;
    return 4;  // f32, i32
}

}  // namespace

std::string PlanOperand::str() const { return dtype + program::shape_str(shape); }

// The quantized ggml type a dtype names ("q5_0"), if any.
std::optional<checkpoint::GgmlType> block_type_named(const std::string& dtype) {
    if (dtype.size() < 2 || dtype[0] != 'q') return std::nullopt;
    for (int32_t id = 2; id <= 14; ++id) {
        const auto type = checkpoint::ggml_type_from_id(id);
        if (type && checkpoint::ggml_type_name(*type) == dtype) return type;
    }
    return std::nullopt;
}

int64_t operand_bytes(const std::string& dtype, const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (const auto blocks = block_type_named(dtype)) {  // whole blocks of their bytes
        const checkpoint::GgmlBlockLayout layout = checkpoint::ggml_block_layout(*blocks);
        return n / static_cast<int64_t>(layout.elements) * static_cast<int64_t>(layout.bytes);
    }
    return n * element_bytes(dtype);
}

std::string slot_dtype(const Slot& slot) { return std::string(program::dtype_name(slot.dtype)); }

std::string listing_scope(const std::string& plan_scope) {
    // Parts joined by " > ", each a dotted path whose numeric parts are loop indices.
    std::string out;
    size_t begin = 0;
    while (begin <= plan_scope.size()) {
        size_t end = plan_scope.find(" > ", begin);
        if (end == std::string::npos) end = plan_scope.size();
        std::string part = plan_scope.substr(begin, end - begin);
        const bool last = end == plan_scope.size();
        // Each part is `member.method`; the method of a part the next one calls into says
        // nothing the next part does not (`decoder_layers.3.step`), nor does a last `.forward`.
        const size_t method = part.rfind('.');
        if ((!last || part.ends_with(".forward")) && method != std::string::npos) {
            part.resize(method);
        }
        std::string bracketed;
        size_t at = 0;
        while (at <= part.size()) {
            size_t dot = part.find('.', at);
            if (dot == std::string::npos) dot = part.size();
            const std::string name = part.substr(at, dot - at);
            const bool index = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
                return c >= '0' && c <= '9';
            });
            if (index) {
                bracketed += "[" + name + "]";
            } else if (!name.empty()) {
                bracketed += (bracketed.empty() ? "" : ".") + name;
            }
            at = dot + 1;
        }
        if (!bracketed.empty()) out += (out.empty() ? "" : ".") + bracketed;
        begin = end + 3;
    }
    return out;
}

KernelDescription::KernelDescription(std::string kernel, const PlanStep& step) {
    kernel_.kernel = std::move(kernel);
    kernel_.op = std::string(program::op_kind_name(step.kind));
    kernel_.scope = listing_scope(step.scope);
}

KernelDescription& KernelDescription::read(const std::string& dtype,
                                           const std::vector<int64_t>& shape) {
    return read_part(dtype, shape, operand_bytes(dtype, shape));
}

KernelDescription& KernelDescription::write(const std::string& dtype,
                                            const std::vector<int64_t>& shape) {
    return write_part(dtype, shape, operand_bytes(dtype, shape));
}

KernelDescription& KernelDescription::read_part(const std::string& dtype,
                                                const std::vector<int64_t>& shape, int64_t bytes) {
    kernel_.inputs.push_back({dtype, shape});
    kernel_.read_bytes += bytes;
    return *this;
}

KernelDescription& KernelDescription::write_part(const std::string& dtype,
                                                 const std::vector<int64_t>& shape, int64_t bytes) {
    kernel_.outputs.push_back({dtype, shape});
    kernel_.written_bytes += bytes;
    return *this;
}

KernelDescription& KernelDescription::extra_bytes(int64_t read, int64_t written) {
    kernel_.read_bytes += read;
    kernel_.written_bytes += written;
    return *this;
}

KernelDescription& KernelDescription::flops(int64_t flops) {
    kernel_.flops += flops;
    return *this;
}

std::optional<PlanKernel> common_step_kernel(const ExecutionPlan& plan, const PlanStep& step,
                                             const InputDtype& dtype) {
    auto in = [&](size_t i) -> const Slot& {
        return plan.slots[static_cast<size_t>(step.inputs.at(i))];
    };
    const Slot& out = plan.slots[static_cast<size_t>(step.output)];
    const std::string op(program::op_kind_name(step.kind));
    // Every input read whole, the output written whole.
    auto whole = [&](const std::string& name) {
        KernelDescription k(name, step);
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            if (in(i).kind != SlotKind::none) k.read(dtype(i), in(i).shape);
        }
        return k.write(slot_dtype(out), out.shape).done();
    };
    switch (step.kind) {
        case OpKind::permute:
        case OpKind::gelu_erf:
        case OpKind::add:
        case OpKind::layer_norm:
        case OpKind::rms_norm:
        case OpKind::split_heads:
        case OpKind::merge_heads:
        case OpKind::causal_mask:
        case OpKind::iota:
        case OpKind::less_equal:
            return whole(op);
        case OpKind::reshape:  // not a view: its input is no intermediate, so it is copied
            return whole("copy");
        case OpKind::embedding: {
            // ids [..] into table [V, W]: the rows looked up are read, not the table.
            const auto& ids = in(0).shape;
            const auto& table = in(1).shape;
            const std::string table_dtype = dtype(1);
            int64_t rows = 1;
            for (int64_t d : ids) rows *= d;
            KernelDescription k(table_dtype == "f16" ? "embedding_f16" : "embedding", step);
            k.read(dtype(0), ids);
            k.read_part(table_dtype, table, operand_bytes(table_dtype, {rows, table.at(1)}));
            return k.write(slot_dtype(out), out.shape).done();
        }
        case OpKind::slice_rows: {
            // table [N, W] rows start .. start + length (start a runtime scalar when an input).
            const auto& table = in(0).shape;
            KernelDescription k(op, step);
            k.read_part(dtype(0), table,
                        operand_bytes(dtype(0), {step.ints.at("length"), table.at(1)}));
            if (step.inputs.size() > 1) k.read(dtype(1), in(1).shape);
            return k.write(slot_dtype(out), out.shape).done();
        }
        case OpKind::take: {
            // x [outer, n, inner] at one index of the middle axis -> [outer, inner]
            KernelDescription k(op, step);
            k.read_part(dtype(0), in(0).shape, operand_bytes(dtype(0), out.shape));
            return k.write(slot_dtype(out), out.shape).done();
        }
        case OpKind::write_span:
        case OpKind::write_at: {
            // value [.., value_len, ..] into the cache's positions start .. start + value_len.
            const std::string cache = dtype(0);
            KernelDescription k(cache == "f16" ? op + "_f16" : op, step);
            k.read(dtype(1), in(1).shape);
            if (step.kind == OpKind::write_at) k.read(dtype(2), in(2).shape);  // pos
            return k.write_part(cache, in(0).shape, operand_bytes(cache, in(1).shape)).done();
        }
        default:
            return std::nullopt;
    }
}

}  // namespace earshot::backend
