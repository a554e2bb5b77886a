// whisper::Mlp: declaration and trace.
#include "earshot/engine/model/mlp.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::ValueId;

const BlockDecl& Mlp::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::Mlp<D: Dim, Inner: Dim, T: Float>",
        {
            "sub fc1: Linear<D, Inner, T>",
            "sub fc2: Linear<Inner, D, T>",
            "pub fn forward<*S: Shape>(x: Tensor[*S, D; T]) -> Tensor[*S, D; T]",
        });
    return decl;
}

Mlp::Mlp(std::vector<program::GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)),
      fc1_(sub_args("fc1"), sub_path("fc1")),
      fc2_(sub_args("fc2"), sub_path("fc2")) {}

ValueId Mlp::forward(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "forward", {x});
    ValueId hidden = b.gelu_erf(fc1_.forward(b, x));  // [*S, Inner]
    return call.finish(fc2_.forward(b, hidden));
}

ValueId Mlp::invoke(GraphBuilder& b, std::string_view function,
                    const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
