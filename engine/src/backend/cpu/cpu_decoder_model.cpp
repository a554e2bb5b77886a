// The CPU backend as decoding's DecoderModel: a CpuWhisper whose Batch follows the decoder's rows.
#include <algorithm>
#include <utility>
#include <vector>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::decoding {

namespace {

class CpuDecoderModel final : public DecoderModel {
public:
    explicit CpuDecoderModel(const model::WhisperCheckpoint& checkpoint) : whisper_(checkpoint) {
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
        whisper_.listen(mel);
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
    backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) override {
        backend::HostTensor logits = whisper_.step(tokens, pos);
        keep_timings();
        return logits;
    }
    void reorder(std::span<const int64_t> source_rows) override {
        whisper_.reorder_batch(source_rows);
    }

    void set_profiling(bool on) override {
        whisper_.set_profiling(on);
        profiling_ = on;
        if (!on) timings_.clear();
    }
    std::vector<backend::CpuWhisper::StepTiming> take_step_timings() override {
        return std::exchange(timings_, {});
    }

private:
    // After each call: its timed steps join those not yet taken.
    void keep_timings() {
        if (!profiling_) return;
        const auto& last = whisper_.last_timings();
        timings_.insert(timings_.end(), last.begin(), last.end());
    }

    backend::CpuWhisper whisper_;
    std::vector<float> heard_;  // the mel the caches hold
    std::vector<int64_t> heard_shape_;
    bool profiling_ = false;
    std::vector<backend::CpuWhisper::StepTiming> timings_;  // timed steps not yet taken
    int64_t vocab_ = 0;
    int64_t max_tokens_ = 0;
    int64_t mels_ = 0;
    int64_t frames_ = 0;
};

}  // namespace

std::unique_ptr<DecoderModel> make_cpu_decoder_model(const model::WhisperCheckpoint& checkpoint) {
    return std::make_unique<CpuDecoderModel>(checkpoint);
}

}  // namespace earshot::decoding
