// DecoderModel: what decoding needs from a backend — one window's audio, a batch of token rows
// with their self-attention caches, and the cache moves beam search makes. The backends' models
// come from runtime/ (earshot/engine/runtime/decoder_models.h), above both.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/step_timing.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/decoding/token_choice.h"

namespace earshot::decoding {

class DecoderModel {
public:
    virtual ~DecoderModel() = default;

    virtual int64_t vocab() const = 0;       // logits width
    virtual int64_t max_tokens() const = 0;  // decoder positions (448)
    virtual int64_t mels() const = 0;        // a window is mel [1, mels, frames]
    virtual int64_t frames() const = 0;
    // What runs it, for people: "CPU", "CUDA (NVIDIA H200)"; empty for models that are no
    // backend (test doubles).
    virtual std::string backend_name() const { return {}; }

    // Encodes one window and fills the cross caches; afterwards there is one token row.
    virtual void listen(const backend::HostTensor& mel) = 0;
    // Copies row 0 of every cache into `rows` rows (beam search, best-of sampling).
    virtual void expand(int64_t rows) = 0;
    virtual int64_t rows() const = 0;
    // tokens [rows, S] at positions 0 .. S - 1 -> logits of the last position [rows, vocab]
    virtual backend::HostTensor prefill(const backend::HostTensor& tokens) = 0;
    // prefill that also keeps the cross-attention weights of `cross_attention.heads` in
    // `cross_attention.weights` [rows, heads, S, Audio] (word alignment). Only models whose
    // keeps_cross_attention() is true can; the others throw std::logic_error.
    virtual backend::HostTensor prefill_keeping_cross_attention(
        const backend::HostTensor& /*tokens*/,
        backend::CrossAttentionRequest& /*cross_attention*/) {
        throw std::logic_error(backend_name() + " does not return cross-attention weights");
    }
    virtual bool keeps_cross_attention() const { return false; }
    // tokens [rows, 1] at position pos -> logits [rows, vocab]
    virtual backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) = 0;
    // step, then each row's best spec.choices tokens after the window's filters (token_choice.h).
    // Here on the host from step()'s logits; a backend that keeps its logits may choose there
    // and send back only the choices (CUDA: a few hundred bytes a step instead of the logits).
    virtual std::vector<TokenChoice> step_choosing(const backend::HostTensor& tokens, int32_t pos,
                                                   const ChoiceSpec& spec) {
        return choose_on_host(step(tokens, pos), spec);
    }
    // Self-attention caches: row i takes the contents of row source_rows[i] (beam reordering).
    virtual void reorder(std::span<const int64_t> source_rows) = 0;

    // Profiling, for backends that time their steps (CPU: host clock; CUDA: events): while on, the
    // timed steps of every listen, prefill and step are kept until take_step_timings(). Off by
    // default; backends without it ignore it and report nothing.
    virtual void set_profiling(bool /*on*/) {}
    // The steps timed since the last take, oldest first (e.g. one live update's listen, prefill
    // and steps), each with the call scope it ran in; empty when profiling is off.
    virtual std::vector<backend::StepTiming> take_step_timings() { return {}; }
    // Taps (backend/tap.h): while attached, every listen, prefill and step fills the values of
    // `taps` that its plan has; null detaches. Backends without taps ignore it (taps_supported).
    virtual void set_taps(backend::TapSet* /*taps*/) {}
    virtual bool taps_supported() const { return false; }
};

}  // namespace earshot::decoding
