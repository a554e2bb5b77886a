// whisper::LayerNorm: declaration and trace.
#include "earshot/engine/model/layer_norm.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::ValueId;

// PyTorch's nn.LayerNorm default; openai/whisper does not override it and checkpoints carry no
// eps field (reference section 2.4).
constexpr double kLayerNormEps = 1e-5;

const BlockDecl& LayerNorm::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::LayerNorm<D: Dim, T: Float>",
        {
            "param weight: Tensor[D; T]",
            "param bias: Tensor[D; T]",
            "pub fn forward<*S: Shape>(x: Tensor[*S, D; T]) -> Tensor[*S, D; T]",
        });
    return decl;
}

LayerNorm::LayerNorm(std::vector<program::GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)) {}

ValueId LayerNorm::forward(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "forward", {x});
    return call.finish(b.layer_norm(x, param(b, "weight"), param(b, "bias"), kLayerNormEps));
}

ValueId LayerNorm::invoke(GraphBuilder& b, std::string_view function,
                          const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
