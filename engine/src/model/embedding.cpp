// std.nn.embedding::Embedding: declaration and trace.
#include "earshot/engine/model/embedding.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::ValueId;

const BlockDecl& Embedding::declaration() {
    static const BlockDecl decl = program::parse_block(
        "std.nn.embedding::Embedding<Vocab: Dim, H: Dim, T: Float = bf16>",
        {
            "param weight: Tensor[Vocab, H; T]",
            "pub fn forward<*S: Shape>(ids: Tensor[*S; i32]) -> Tensor[*S, H; T]",
        });
    return decl;
}

Embedding::Embedding(std::vector<program::GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)) {}

ValueId Embedding::forward(GraphBuilder& b, ValueId ids) const {
    program::Call call(b, *this, "forward", {ids});
    return call.finish(b.embedding(ids, param(b, "weight"), "std.nn.embedding"));
}

ValueId Embedding::invoke(GraphBuilder& b, std::string_view function,
                          const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
