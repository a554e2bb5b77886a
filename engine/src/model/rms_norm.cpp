// std.nn.norm::RmsNorm: declaration and trace.
#include "earshot/engine/model/rms_norm.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::ValueId;

// The usual RMSNorm epsilon (LLaMA-style models); Whisper itself never uses this block.
constexpr double kRmsNormEps = 1e-6;

const BlockDecl& RmsNorm::declaration() {
    static const BlockDecl decl = program::parse_block(
        "std.nn.norm::RmsNorm<H: Dim, T: Float = bf16>",
        {
            "param weight: Tensor[H; T]",
            "pub fn forward<*S: Shape>(x: Tensor[*S, H; T]) -> Tensor[*S, H; T]",
        });
    return decl;
}

RmsNorm::RmsNorm(std::vector<program::GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)) {}

ValueId RmsNorm::forward(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "forward", {x});
    return call.finish(b.rms_norm(x, param(b, "weight"), kRmsNormEps));
}

ValueId RmsNorm::invoke(GraphBuilder& b, std::string_view function,
                        const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
