// whisper::EncoderLayer: declaration and trace.
#include "earshot/engine/model/encoder_layer.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::kNoValue;
using program::ValueId;

const BlockDecl& EncoderLayer::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::EncoderLayer<D: Dim, Heads: Dim, Inner: Dim, T: Float>",
        {
            "sub self_attn_layer_norm: LayerNorm<D, T>",
            "sub self_attn: Attention<D, Heads, T>",
            "sub final_layer_norm: LayerNorm<D, T>",
            "sub mlp: Mlp<D, Inner, T>",
            "pub fn forward<B: Dim, N: Dim>(x: Tensor[B, N, D; T]) -> Tensor[B, N, D; T]",
        });
    return decl;
}

EncoderLayer::EncoderLayer(std::vector<program::GenericArg> args, std::string path,
                           const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)),
      self_attn_layer_norm_(sub_args("self_attn_layer_norm"), sub_path("self_attn_layer_norm")),
      self_attn_(sub_args("self_attn"), sub_path("self_attn")),
      final_layer_norm_(sub_args("final_layer_norm"), sub_path("final_layer_norm")),
      mlp_(sub_args("mlp"), sub_path("mlp")) {}

ValueId EncoderLayer::forward(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "forward", {x});
    ValueId normed = self_attn_layer_norm_.forward(b, x);                          // [B, N, D]
    ValueId attended = b.add(x, self_attn_.forward(b, normed, normed, kNoValue));  // [B, N, D]
    ValueId mlp_in = final_layer_norm_.forward(b, attended);
    return call.finish(b.add(attended, mlp_.forward(b, mlp_in)));
}

ValueId EncoderLayer::invoke(GraphBuilder& b, std::string_view function,
                             const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
