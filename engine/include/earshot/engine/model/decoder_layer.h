// whisper::DecoderLayer: causal self-attention, cross-attention over the audio, MLP; its
// self/cross key and value caches are `state` members.
#pragma once

#include "earshot/engine/model/attention.h"
#include "earshot/engine/model/layer_norm.h"
#include "earshot/engine/model/mlp.h"

namespace earshot::model {

class DecoderLayer : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    DecoderLayer(std::vector<program::GenericArg> args, std::string path,
                 const program::BlockDecl& decl = declaration());

    // Stateless: x [B, S, D], audio [B, A, D] -> [B, S, D]
    program::ValueId forward(program::GraphBuilder& b, program::ValueId x,
                             program::ValueId audio) const;
    // Writes cross_k / cross_v from audio [Batch, Audio, D]; returns audio.
    program::ValueId listen(program::GraphBuilder& b, program::ValueId audio) const;
    // Positions 0 .. S - 1: writes self_k / self_v there. x [Batch, S, D] -> [Batch, S, D]
    program::ValueId prefill(program::GraphBuilder& b, program::ValueId x) const;
    // One position `pos`: writes self_k / self_v at pos, attends over 0 .. pos.
    program::ValueId step(program::GraphBuilder& b, program::ValueId x, program::ValueId pos) const;
    // Cross-attention over the cached audio keys and values, then the MLP.
    program::ValueId cross(program::GraphBuilder& b, program::ValueId attended) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;

private:
    LayerNorm self_attn_layer_norm_;
    Attention self_attn_;
    LayerNorm encoder_attn_layer_norm_;
    Attention encoder_attn_;
    LayerNorm final_layer_norm_;
    Mlp mlp_;
};

}  // namespace earshot::model
