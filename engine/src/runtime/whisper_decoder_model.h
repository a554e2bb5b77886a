// WhisperDecoderModel<Backend>: a Whisper backend (CpuWhisper, CudaWhisper) as decoding's
// DecoderModel, its Batch following the decoder's rows; the same code for every backend.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/decoding/decoder_model.h"

namespace earshot::runtime {

template <typename Backend>
class WhisperDecoderModel final : public decoding::DecoderModel {
public:
    WhisperDecoderModel(Backend backend, std::string backend_name)
        : whisper_(std::move(backend)), backend_name_(std::move(backend_name)) {
        const auto& dims = whisper_.binding().values.dims;
        vocab_ = dims.at("Vocab");
        max_tokens_ = dims.at("MaxTokens");
        mels_ = dims.at("Mels");
        frames_ = dims.at("Frames");
    }

    int64_t vocab() const override { return vocab_; }
    int64_t max_tokens() const override { return max_tokens_; }
    int64_t mels() const override { return mels_; }
    int64_t frames() const override { return frames_; }
    std::string backend_name() const override { return backend_name_; }

    // The same window again (a temperature fallback, language detection then decoding) keeps
    // the audio caches: one row is kept and the encoder does not run twice.
    void listen(const backend::HostTensor& mel) override {
        const auto values = mel.f32_values();
        if (mel.shape() == heard_shape_ &&
            std::equal(values.begin(), values.end(), heard_.begin(), heard_.end())) {
            whisper_.expand_batch(1);
            return;
        }
        if (whisper_.batch() != 1) whisper_.resize_batch(1);
        heard_shape_.clear();  // a failed listen leaves nothing remembered
        if constexpr (requires(Backend & w) { w.listen_on_device(mel); }) {
            whisper_.listen_on_device(mel);  // the audio states stay where the caches are
        } else {
            whisper_.listen(mel);
        }
        keep_timings();
        heard_.assign(values.begin(), values.end());
        heard_shape_ = mel.shape();
    }
    void expand(int64_t rows) override { whisper_.expand_batch(rows); }
    int64_t rows() const override { return whisper_.batch(); }
    backend::HostTensor prefill(const backend::HostTensor& tokens) override {
        backend::HostTensor logits = whisper_.prefill(tokens);
        keep_timings();
        return logits;
    }
    backend::HostTensor prefill_keeping_cross_attention(
        const backend::HostTensor& tokens,
        backend::CrossAttentionRequest& cross_attention) override {
        if constexpr (kKeepsCrossAttention) {
            backend::HostTensor logits = whisper_.prefill(tokens, &cross_attention);
            keep_timings();
            return logits;
        } else {
            return decoding::DecoderModel::prefill_keeping_cross_attention(tokens, cross_attention);
        }
    }
    bool keeps_cross_attention() const override { return kKeepsCrossAttention; }
    backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) override {
        backend::HostTensor logits = whisper_.step(tokens, pos);
        keep_timings();
        return logits;
    }
    // Where the backend can (CUDA), each row's tokens are chosen beside the logits and only the
    // choices come back; otherwise (the CPU, taps attached, host_selection, a beam wider than
    // kMaxChoices) on the host from step()'s logits.
    std::vector<decoding::TokenChoice> step_choosing(const backend::HostTensor& tokens, int32_t pos,
                                                     const decoding::ChoiceSpec& spec) override {
        if constexpr (requires(Backend & w, const backend::ChoiceRequest& r) {
                          w.step_choosing(tokens, pos, r);
                      }) {
            if (whisper_.chooses_on_device() && spec.choices <= backend::kMaxChoices) {
                const std::vector<backend::RowChoice> rows =
                    whisper_.step_choosing(tokens, pos, decoding::choice_request(spec));
                keep_timings();
                std::vector<decoding::TokenChoice> choices;
                for (const backend::RowChoice& row : rows) {
                    choices.push_back(decoding::token_choice(row));
                }
                return choices;
            }
        }
        return decoding::DecoderModel::step_choosing(tokens, pos, spec);
    }
    void reorder(std::span<const int64_t> source_rows) override {
        whisper_.reorder_batch(source_rows);
    }

    void set_profiling(bool on) override {
        whisper_.set_profiling(on);
        profiling_ = on;
        if (!on) timings_.clear();
    }
    std::vector<backend::StepTiming> take_step_timings() override {
        return std::exchange(timings_, {});
    }
    // Attaching taps forgets the window heard last: its listen ran without them (or with other
    // names), so the next listen of that window runs again and fills the taps.
    void set_taps(backend::TapSet* taps) override {
        if (taps != nullptr) heard_shape_.clear();
        whisper_.set_taps(taps);
    }
    bool taps_supported() const override { return true; }
    Backend& backend() { return whisper_; }

private:
    static constexpr bool kKeepsCrossAttention =
        requires(Backend & w, const backend::HostTensor& t, backend::CrossAttentionRequest* r) {
        w.prefill(t, r);
    };

    // After each call: its timed steps join those not yet taken.
    void keep_timings() {
        if (!profiling_) return;
        const auto& last = whisper_.last_timings();
        timings_.insert(timings_.end(), last.begin(), last.end());
    }

    Backend whisper_;
    std::string backend_name_;
    std::vector<float> heard_;  // the mel the caches hold
    std::vector<int64_t> heard_shape_;
    bool profiling_ = false;
    std::vector<backend::StepTiming> timings_;  // timed steps not yet taken
    int64_t vocab_ = 0;
    int64_t max_tokens_ = 0;
    int64_t mels_ = 0;
    int64_t frames_ = 0;
};

}  // namespace earshot::runtime
