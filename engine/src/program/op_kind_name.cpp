// op_kind_name: an op kind's name, in a file of its own so that the CUDA module, which names a
// failing plan step by its op, compiles it without the rest of the program library.
#include <string_view>

#include "earshot/engine/program/graph.h"

namespace earshot::program {

std::string_view op_kind_name(OpKind kind) {
    switch (kind) {
        case OpKind::input:
            return "input";
        case OpKind::param:
            return "param";
        case OpKind::state:
            return "state";
        case OpKind::none:
            return "none";
        case OpKind::permute:
            return "permute";
        case OpKind::conv1d:
            return "conv1d";
        case OpKind::gelu_erf:
            return "gelu_erf";
        case OpKind::add:
            return "add";
        case OpKind::layer_norm:
            return "layer_norm";
        case OpKind::rms_norm:
            return "rms_norm";
        case OpKind::linear:
            return "linear";
        case OpKind::split_heads:
            return "split_heads";
        case OpKind::merge_heads:
            return "merge_heads";
        case OpKind::attention:
            return "attention";
        case OpKind::embedding:
            return "embedding";
        case OpKind::slice_rows:
            return "slice_rows";
        case OpKind::take:
            return "take";
        case OpKind::causal_mask:
            return "causal_mask";
        case OpKind::iota:
            return "iota";
        case OpKind::less_equal:
            return "less_equal";
        case OpKind::reshape:
            return "reshape";
        case OpKind::write_span:
            return "write_span";
        case OpKind::write_at:
            return "write_at";
    }
    return "?";
}

}  // namespace earshot::program
