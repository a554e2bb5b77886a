// The shape and dtype rules of every named op, written once for all backends.
#include <numeric>

#include "earshot/engine/program/builder.h"

namespace earshot::program {

namespace {

std::string dims_str(const std::vector<Dim>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) out += ", ";
        out += dims[i].str();
    }
    return out + "]";
}

Dim product(const std::vector<Dim>& dims) {
    return std::accumulate(dims.begin(), dims.end(), Dim(1),
                           [](const Dim& a, const Dim& b) { return a * b; });
}

const ElementType kBool = ElementType::of(DType::boolean);
const ElementType kI32 = ElementType::of(DType::i32);

}  // namespace

const Type& GraphBuilder::tensor_operand(std::string_view op, std::string_view role,
                                         ValueId v) const {
    const Type& t = type(v);
    if (t.kind != Type::Kind::tensor || t.has_pack()) {
        fail(op, std::string(role) + " must be a tensor, got " + t.str());
    }
    return t;
}

ValueId GraphBuilder::permute(ValueId x, std::vector<int64_t> axes) {
    const Type& t = tensor_operand("permute", "x", x);
    auto d = t.dims();
    std::vector<bool> seen(d.size(), false);
    std::vector<Dim> out;
    if (axes.size() != d.size()) fail("permute", "axes do not match rank of " + t.str());
    for (int64_t a : axes) {
        if (a < 0 || static_cast<size_t>(a) >= d.size() || seen[static_cast<size_t>(a)]) {
            fail("permute", "axes are not a permutation");
        }
        seen[static_cast<size_t>(a)] = true;
        out.push_back(d[static_cast<size_t>(a)]);
    }
    return emit(OpKind::permute, "permute", "", {x}, Type::tensor(out, t.element),
                {{"axes", std::move(axes)}});
}

ValueId GraphBuilder::conv1d(ValueId x, ValueId w, ValueId b, int64_t stride, int64_t padding,
                             std::string module) {
    auto xd = tensor_operand("conv1d", "x", x).dims();
    auto wd = tensor_operand("conv1d", "weight", w).dims();
    auto bd = tensor_operand("conv1d", "bias", b).dims();
    if (xd.size() != 3 || wd.size() != 3 || bd.size() != 1) {
        fail("conv1d", "expects x [B, L, Cin], weight [Cout, Cin, K], bias [Cout]; got " +
                           dims_str(xd) + ", " + dims_str(wd) + ", " + dims_str(bd));
    }
    if (!(xd[2] == wd[1]) || !(bd[0] == wd[0])) {
        fail("conv1d", "channels disagree: x " + dims_str(xd) + ", weight " + dims_str(wd) +
                           ", bias " + dims_str(bd));
    }
    if (!(type(x).element == type(w).element) || !(type(x).element == type(b).element)) {
        fail("conv1d", "element types disagree");
    }
    Dim length = (xd[1] + 2 * padding - wd[2]) / stride + 1;  // [B, L', Cout]
    return emit(OpKind::conv1d, "conv1d", std::move(module), {x, w, b},
                Type::tensor({xd[0], length, wd[0]}, type(x).element),
                {{"stride", stride}, {"padding", padding}});
}

ValueId GraphBuilder::gelu_erf(ValueId x) {
    const Type& t = tensor_operand("gelu_erf", "x", x);
    return emit(OpKind::gelu_erf, "gelu_erf", "std.nn.activations", {x}, t);
}

ValueId GraphBuilder::add(ValueId a, ValueId b) {
    auto ad = tensor_operand("+", "lhs", a).dims();
    auto bd = tensor_operand("+", "rhs", b).dims();
    bool suffix = bd.size() <= ad.size() &&
                  std::equal(bd.begin(), bd.end(), ad.end() - static_cast<ptrdiff_t>(bd.size()));
    if (!suffix || !(type(a).element == type(b).element)) {
        fail("+", "cannot add " + type(a).str() + " and " + type(b).str());
    }
    return emit(OpKind::add, "+", "", {a, b}, type(a));
}

ValueId GraphBuilder::layer_norm(ValueId x, ValueId w, ValueId b, double eps) {
    auto xd = tensor_operand("layer_norm", "x", x).dims();
    auto wd = tensor_operand("layer_norm", "weight", w).dims();
    auto bd = tensor_operand("layer_norm", "bias", b).dims();
    if (xd.empty() || wd.size() != 1 || bd.size() != 1 || !(wd[0] == xd.back()) ||
        !(bd[0] == xd.back())) {
        fail("layer_norm", "normalizes the last dim of " + type(x).str() + " with weight " +
                               type(w).str() + " and bias " + type(b).str());
    }
    return emit(OpKind::layer_norm, "layer_norm", "std.nn.norm", {x, w, b}, type(x),
                {{"eps", eps}});
}

ValueId GraphBuilder::rms_norm(ValueId x, ValueId w, double eps) {
    auto xd = tensor_operand("rms_norm", "x", x).dims();
    auto wd = tensor_operand("rms_norm", "weight", w).dims();
    if (xd.empty() || wd.size() != 1 || !(wd[0] == xd.back())) {
        fail("rms_norm",
             "normalizes the last dim of " + type(x).str() + " with weight " + type(w).str());
    }
    return emit(OpKind::rms_norm, "rms_norm", "std.nn.norm", {x, w}, type(x), {{"eps", eps}});
}

ValueId GraphBuilder::linear(ValueId x, ValueId w, ValueId bias, std::string module) {
    auto xd = tensor_operand("linear", "x", x).dims();
    auto wd = tensor_operand("linear", "weight", w).dims();
    if (xd.empty() || wd.size() != 2 || !(wd[1] == xd.back())) {
        fail("linear", "x " + type(x).str() + " does not fit weight " + type(w).str());
    }
    std::vector<ValueId> inputs{x, w};
    if (bias != kNoValue && type(bias).kind != Type::Kind::none) {
        auto bd = tensor_operand("linear", "bias", bias).dims();
        if (bd.size() != 1 || !(bd[0] == wd[0])) {
            fail("linear", "bias " + type(bias).str() + " does not fit weight " + type(w).str());
        }
    }
    if (bias != kNoValue) inputs.push_back(bias);
    xd.back() = wd[0];  // [*S, Out]
    return emit(OpKind::linear, "linear", std::move(module), std::move(inputs),
                Type::tensor(xd, type(x).element));
}

ValueId GraphBuilder::split_heads(ValueId x, const Dim& heads) {
    auto xd = tensor_operand("split_heads", "x", x).dims();
    if (xd.size() != 3) fail("split_heads", "expects [B, N, D], got " + type(x).str());
    return emit(OpKind::split_heads, "split_heads", "whisper", {x},
                Type::tensor({xd[0], heads, xd[1], xd[2] / heads}, type(x).element),
                {{"heads", heads}});
}

ValueId GraphBuilder::merge_heads(ValueId x, const Dim& model_dim) {
    auto xd = tensor_operand("merge_heads", "x", x).dims();
    if (xd.size() != 4 || !(xd[3] == model_dim / xd[1])) {
        fail("merge_heads", "expects [B, Heads, N, " + (model_dim / Dim::symbol("Heads")).str() +
                                "], got " + type(x).str());
    }
    return emit(OpKind::merge_heads, "merge_heads", "whisper", {x},
                Type::tensor({xd[0], xd[2], model_dim}, type(x).element),
                {{"model_dim", model_dim}});
}

ValueId GraphBuilder::attention(ValueId q, ValueId k, ValueId v, ValueId mask,
                                const Dim& scale_dim) {
    auto qd = tensor_operand("attention", "q", q).dims();
    auto kd = tensor_operand("attention", "k", k).dims();
    auto vd = tensor_operand("attention", "v", v).dims();
    bool ok = qd.size() == 4 && kd.size() == 4 && vd.size() == 4 && qd[0] == kd[0] &&
              qd[1] == kd[1] && qd[3] == kd[3] && kd == vd;
    if (!ok) {
        fail("attention", "q " + type(q).str() + ", k " + type(k).str() + ", v " + type(v).str() +
                              " are not [B, H, Q, Dh], [B, H, K, Dh] twice");
    }
    if (!(type(q).element == type(k).element) || !(type(k).element == type(v).element)) {
        fail("attention", "element types disagree");
    }
    if (type(mask).kind != Type::Kind::none) {
        const Type& mt = tensor_operand("attention", "mask", mask);
        if (!(mt.dims() == std::vector<Dim>{qd[2], kd[2]}) || !(mt.element == kBool)) {
            fail("attention", "mask " + mt.str() + " is not Tensor[" + qd[2].str() + ", " +
                                  kd[2].str() + "; bool]");
        }
    }
    return emit(OpKind::attention, "attention", "std.nn.attention", {q, k, v, mask}, type(q),
                {{"scale_dim", scale_dim}});
}

ValueId GraphBuilder::embedding(ValueId ids, ValueId table, std::string module) {
    const Type& it = tensor_operand("embedding", "ids", ids);
    auto td = tensor_operand("embedding", "table", table).dims();
    if (!(it.element == kI32) || td.size() != 2) {
        fail("embedding", "expects ids of i32 and a table [V, H], got " + it.str() + " and " +
                              type(table).str());
    }
    auto out = it.dims();
    out.push_back(td[1]);  // [*S, H]
    return emit(OpKind::embedding, "embedding", std::move(module), {ids, table},
                Type::tensor(out, type(table).element));
}

ValueId GraphBuilder::slice_rows(ValueId table, const Dim& start, const Dim& length) {
    auto td = tensor_operand("slice_rows", "table", table).dims();
    if (td.size() != 2) fail("slice_rows", "expects a table [N, D], got " + type(table).str());
    return emit(OpKind::slice_rows, "slice_rows", "", {table},
                Type::tensor({length, td[1]}, type(table).element),
                {{"start", start}, {"length", length}});
}

ValueId GraphBuilder::slice_rows_at(ValueId table, ValueId start_scalar, const Dim& length) {
    auto td = tensor_operand("slice_rows", "table", table).dims();
    const Type& st = type(start_scalar);
    if (td.size() != 2 || st.kind != Type::Kind::scalar || !(st.element == kI32)) {
        fail("slice_rows", "expects a table [N, D] and an i32 position, got " + type(table).str() +
                               " and " + st.str());
    }
    return emit(OpKind::slice_rows, "slice_rows", "", {table, start_scalar},
                Type::tensor({length, td[1]}, type(table).element), {{"length", length}});
}

ValueId GraphBuilder::take(ValueId x, int64_t axis, const Dim& index) {
    auto xd = tensor_operand("take", "x", x).dims();
    if (axis < 0 || static_cast<size_t>(axis) >= xd.size()) fail("take", "axis out of range");
    xd.erase(xd.begin() + axis);
    return emit(OpKind::take, "take", "", {x}, Type::tensor(xd, type(x).element),
                {{"axis", axis}, {"index", index}});
}

ValueId GraphBuilder::causal_mask(const Dim& size) {
    return emit(OpKind::causal_mask, "causal_mask", "std.nn.attention", {},
                Type::tensor({size, size}, kBool), {{"size", size}});
}

ValueId GraphBuilder::iota(const Dim& size) {
    return emit(OpKind::iota, "iota", "", {}, Type::tensor({size}, kI32), {{"size", size}});
}

ValueId GraphBuilder::less_equal(ValueId x, ValueId scalar) {
    const Type& xt = tensor_operand("<=", "lhs", x);
    const Type& st = type(scalar);
    if (st.kind != Type::Kind::scalar || !(st.element == xt.element)) {
        fail("<=", "compares " + xt.str() + " with a scalar of its element type, got " + st.str());
    }
    return emit(OpKind::less_equal, "<=", "", {x, scalar}, Type::tensor(xt.dims(), kBool));
}

ValueId GraphBuilder::reshape(ValueId x, std::vector<Dim> dims) {
    const Type& xt = tensor_operand("reshape", "x", x);
    if (!(product(xt.dims()) == product(dims))) {
        fail("reshape", "cannot reshape " + xt.str() + " to " + dims_str(dims));
    }
    return emit(OpKind::reshape, "reshape", "", {x}, Type::tensor(std::move(dims), xt.element));
}

ValueId GraphBuilder::write_span(ValueId state_value, ValueId value, int64_t axis,
                                 const Dim& start) {
    auto sd = tensor_operand("write_span", "state", state_value).dims();
    auto vd = tensor_operand("write_span", "value", value).dims();
    bool ok = sd.size() == vd.size() && axis >= 0 && static_cast<size_t>(axis) < sd.size();
    for (size_t i = 0; ok && i < sd.size(); ++i) {
        if (i != static_cast<size_t>(axis) && !(sd[i] == vd[i])) ok = false;
    }
    if (!ok || !(type(state_value).element == type(value).element)) {
        fail("write_span", "cannot write " + type(value).str() + " into " +
                               type(state_value).str() + " along axis " + std::to_string(axis));
    }
    return emit(OpKind::write_span, "write_span", "", {state_value, value}, type(state_value),
                {{"axis", axis}, {"start", start}});
}

ValueId GraphBuilder::write_at(ValueId state_value, ValueId value, int64_t axis,
                               ValueId pos_scalar) {
    auto sd = tensor_operand("write_at", "state", state_value).dims();
    auto vd = tensor_operand("write_at", "value", value).dims();
    const Type& pt = type(pos_scalar);
    bool ok = sd.size() == vd.size() && axis >= 0 && static_cast<size_t>(axis) < sd.size() &&
              vd[static_cast<size_t>(axis)] == Dim(1) && pt.kind == Type::Kind::scalar &&
              pt.element == kI32;
    for (size_t i = 0; ok && i < sd.size(); ++i) {
        if (i != static_cast<size_t>(axis) && !(sd[i] == vd[i])) ok = false;
    }
    if (!ok || !(type(state_value).element == type(value).element)) {
        fail("write_at", "cannot write " + type(value).str() + " into " + type(state_value).str() +
                             " at an i32 position on axis " + std::to_string(axis));
    }
    return emit(OpKind::write_at, "write_at", "", {state_value, value, pos_scalar},
                type(state_value), {{"axis", axis}});
}

}  // namespace earshot::program
