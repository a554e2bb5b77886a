// What each named op computes, in one line, for people: the inspector shows it on a node and
// searches it ("softmax" finds the attention ops).
#include "earshot/engine/program/graph.h"

namespace earshot::program {

std::string_view op_description(OpKind kind) {
    switch (kind) {
        case OpKind::permute:
            return "reorders the axes";
        case OpKind::conv1d:
            return "1-D convolution over time (channels last), zero padding";
        case OpKind::gelu_erf:
            return "GELU: 0.5 x (1 + erf(x / sqrt 2))";
        case OpKind::add:
            return "a + b (b repeated over the leading dims)";
        case OpKind::layer_norm:
            return "(x - mean) / sqrt(var + eps) * w + b over the last dim";
        case OpKind::rms_norm:
            return "x / sqrt(mean(x^2) + eps) * w over the last dim";
        case OpKind::linear:
            return "x w^T + b (matrix product)";
        case OpKind::split_heads:
            return "[B, N, D] -> [B, Heads, N, D / Heads]";
        case OpKind::merge_heads:
            return "[B, Heads, N, D / Heads] -> [B, N, D]";
        case OpKind::attention:
            return "softmax(q k^T / sqrt(D / Heads) + mask) v, scaled dot-product attention";
        case OpKind::embedding:
            return "the table's rows at the token ids (lookup)";
        case OpKind::slice_rows:
            return "rows start .. start + length of a table";
        case OpKind::take:
            return "one position of a sequence";
        case OpKind::causal_mask:
            return "true where key <= query (causal mask)";
        case OpKind::iota:
            return "0, 1, ..., N - 1";
        case OpKind::less_equal:
            return "x <= a scalar, elementwise";
        case OpKind::reshape:
            return "the same values in another shape";
        case OpKind::write_span:
            return "writes positions start .. of a cache (state)";
        case OpKind::write_at:
            return "writes position pos of a cache (state)";
        case OpKind::input:
        case OpKind::param:
        case OpKind::state:
        case OpKind::none:
            return "";
    }
    return "";
}

}  // namespace earshot::program
