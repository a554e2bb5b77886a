// whisper::Model: the root block. Its five entries (encode, decode, listen, prefill, step) are
// what every backend runs; its blocks are what `inspect` prints.
#pragma once

#include <memory>
#include <vector>

#include "earshot/engine/model/decoder_layer.h"
#include "earshot/engine/model/encoder_layer.h"
#include "earshot/engine/model/layer_norm.h"

namespace earshot::model {

class WhisperModel : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    // By default every generic is a symbol of its own name (Mels, Frames, ...).
    explicit WhisperModel(
        std::vector<program::GenericArg> args = program::symbolic_args(declaration()),
        const program::BlockDecl& decl = declaration());

    // mel [B, Mels, Frames] -> [B, 1 + (-1 + Frames) / 2, D]
    program::ValueId encode(program::GraphBuilder& b, program::ValueId mel) const;
    program::ValueId encoded(program::GraphBuilder& b, program::ValueId mel) const;
    // tokens [B, S; i32], audio [B, A, D] -> logits [B, S, Vocab]
    program::ValueId decode(program::GraphBuilder& b, program::ValueId tokens,
                            program::ValueId audio) const;
    // mel [Batch, Mels, Frames] -> audio states; fills every layer's cross caches.
    program::ValueId listen(program::GraphBuilder& b, program::ValueId mel) const;
    // tokens [Batch, S; i32] at positions 0 .. S - 1 -> logits of position S - 1 [Batch, Vocab]
    program::ValueId prefill(program::GraphBuilder& b, program::ValueId tokens) const;
    // token [Batch, 1; i32] at position pos -> logits [Batch, Vocab]
    program::ValueId step(program::GraphBuilder& b, program::ValueId token,
                          program::ValueId pos) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;

private:
    // x [*, S, D] -> logits through decoder_norm and the tied token embedding.
    program::ValueId logits(program::GraphBuilder& b, program::ValueId x) const;

    EncoderLayer encoder_layer_;  // the body of `for layer in encoder_layers`
    LayerNorm encoder_norm_;
    DecoderLayer decoder_layer_;  // the body of `for layer in decoder_layers`
    LayerNorm decoder_norm_;
};

// The encoder's output length under bound dims, as the program declares it (the first dim of
// encoder_positions: 1 + (-1 + Frames) / 2).
int64_t audio_positions(const program::DimValues& dims);

// The declarations of every block of the Whisper program, the root (Model) first.
const std::vector<const program::BlockDecl*>& whisper_blocks();

// A C++ instance of any block of the program, by its declaration's name, traced with `decl`
// (which may differ from the block's own declaration, to test the signature checks).
std::unique_ptr<program::BlockInstance> make_whisper_block(const program::BlockDecl& decl,
                                                           std::vector<program::GenericArg> args,
                                                           std::string path);

// The traced graph of an entry (or any function of the root) of the symbolic model.
program::Graph trace_whisper(std::string_view function);

}  // namespace earshot::model
