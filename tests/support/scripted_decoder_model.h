// ScriptedDecoderModel: a DecoderModel without weights for decoding tests. It keeps each row's
// token history (prefill sets it, step appends, expand copies row 0, reorder moves rows) and
// answers every call with logits from a script of that history, so filters, search and cache
// moves can be checked exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"

namespace earshot::test {

class ScriptedDecoderModel final : public decoding::DecoderModel {
public:
    // history (every token fed to this row so far, position 0 first) -> logits [vocab]
    using Script = std::function<std::vector<float>(std::span<const int32_t> history)>;

    ScriptedDecoderModel(int64_t vocab, int64_t max_tokens, Script script)
        : vocab_(vocab), max_tokens_(max_tokens), script_(std::move(script)) {}

    int64_t vocab() const override { return vocab_; }
    int64_t max_tokens() const override { return max_tokens_; }
    int64_t mels() const override { return 80; }
    int64_t frames() const override { return 3000; }

    void listen(const backend::HostTensor& mel) override {
        if (!mel.shape().empty() && mel.shape() != std::vector<int64_t>{1, 80, 3000}) {
            throw std::invalid_argument("scripted model: mel " + mel.shape_str());
        }
        ++listens;
        histories_.assign(1, {});
    }
    void expand(int64_t rows) override {
        if (histories_.size() != 1) throw std::logic_error("scripted model: expand from many rows");
        histories_.assign(static_cast<size_t>(rows), histories_[0]);
    }
    int64_t rows() const override { return static_cast<int64_t>(histories_.size()); }

    backend::HostTensor prefill(const backend::HostTensor& tokens) override {
        check_rows(tokens);
        const int64_t s = tokens.dim(1);
        if (s > max_tokens_) throw std::out_of_range("scripted model: prefill past max_tokens");
        const auto values = tokens.i32_values();
        for (size_t r = 0; r < histories_.size(); ++r) {
            const auto begin = values.begin() + static_cast<std::ptrdiff_t>(r) * s;
            histories_[r].assign(begin, begin + s);
        }
        ++prefills;
        return logits();
    }
    backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) override {
        check_rows(tokens);
        if (pos >= max_tokens_) throw std::out_of_range("scripted model: step past max_tokens");
        for (size_t r = 0; r < histories_.size(); ++r) {
            if (static_cast<int64_t>(histories_[r].size()) != pos) {
                throw std::logic_error("scripted model: step at " + std::to_string(pos) +
                                       " after " + std::to_string(histories_[r].size()) +
                                       " tokens");
            }
            histories_[r].push_back(tokens.i32_values()[r]);
        }
        ++steps;
        return logits();
    }
    void reorder(std::span<const int64_t> source_rows) override {
        if (source_rows.size() != histories_.size()) {
            throw std::invalid_argument("scripted model: reorder size");
        }
        std::vector<std::vector<int32_t>> moved;
        for (int64_t source : source_rows)
            moved.push_back(histories_.at(static_cast<size_t>(source)));
        histories_ = std::move(moved);
        ++reorders;
    }

    const std::vector<std::vector<int32_t>>& histories() const { return histories_; }

    int listens = 0;
    int prefills = 0;
    int steps = 0;
    int reorders = 0;

private:
    void check_rows(const backend::HostTensor& tokens) const {
        if (tokens.dim(0) != static_cast<int64_t>(histories_.size())) {
            throw std::invalid_argument("scripted model: " + tokens.shape_str() + " for " +
                                        std::to_string(histories_.size()) + " rows");
        }
    }
    backend::HostTensor logits() const {
        std::vector<float> out;
        for (const auto& history : histories_) {
            std::vector<float> row = script_(history);
            if (static_cast<int64_t>(row.size()) != vocab_) {
                throw std::logic_error("scripted model: script gave " + std::to_string(row.size()) +
                                       " logits");
            }
            out.insert(out.end(), row.begin(), row.end());
        }
        return backend::HostTensor::f32({rows(), vocab_}, std::move(out));
    }

    int64_t vocab_;
    int64_t max_tokens_;
    Script script_;
    std::vector<std::vector<int32_t>> histories_;
};

}  // namespace earshot::test
