// std.nn.linear::Linear: declaration and trace.
#include "earshot/engine/model/linear.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GenericArg;
using program::GraphBuilder;
using program::ValueId;

const BlockDecl& Linear::declaration() {
    static const BlockDecl decl = program::parse_block(
        "std.nn.linear::Linear<In: Dim, Out: Dim, T: Float = bf16>",
        {
            "param weight: Tensor[Out, In; T]",
            "param bias: Tensor[Out; T]?",
            "pub fn forward<*S: Shape>(x: Tensor[*S, In; T]) -> Tensor[*S, Out; T]",
        });
    return decl;
}

Linear::Linear(std::vector<GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)) {}

ValueId Linear::forward(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "forward", {x});
    return call.finish(b.linear(x, param(b, "weight"), param(b, "bias"), "std.nn.linear"));
}

ValueId Linear::invoke(GraphBuilder& b, std::string_view function,
                       const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
