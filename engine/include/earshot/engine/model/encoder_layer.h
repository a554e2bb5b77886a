// whisper::EncoderLayer: pre-norm self-attention and MLP, each with a residual connection.
#pragma once

#include "earshot/engine/model/attention.h"
#include "earshot/engine/model/layer_norm.h"
#include "earshot/engine/model/mlp.h"

namespace earshot::model {

class EncoderLayer : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    EncoderLayer(std::vector<program::GenericArg> args, std::string path,
                 const program::BlockDecl& decl = declaration());

    // x [B, N, D] -> [B, N, D]
    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;

private:
    LayerNorm self_attn_layer_norm_;
    Attention self_attn_;
    LayerNorm final_layer_norm_;
    Mlp mlp_;
};

}  // namespace earshot::model
