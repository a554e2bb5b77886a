// The random checkpoint the tap tests run (2 + 2 layers, D 64, 4 heads, 200 frames), its
// weights for the double-precision reference, and helpers shared by the CPU and CUDA tap tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "reference/whisper_reference.h"
#include "temp_dir.h"

namespace earshot::test::taps {

namespace ref = earshot::test::reference;
using earshot::backend::HostTensor;

inline ref::Weights reference_weights(const earshot::checkpoint::WeightSet& set,
                                      const ref::Dims& dims) {
    ref::Weights weights;
    for (const ref::Parameter& p : ref::parameter_list(dims)) {
        const earshot::checkpoint::Weight* w = set.find(p.path);
        if (w == nullptr) throw std::runtime_error("checkpoint lacks " + p.path);
        std::vector<float> values(w->element_count());
        earshot::checkpoint::convert_to_f32(*w, values);
        weights[p.path] = std::vector<double>(values.begin(), values.end());
    }
    return weights;
}

inline ref::Array3 to_array(const HostTensor& t) {
    ref::Array3 a(t.dim(0), t.dim(1), t.dim(2));
    const auto v = t.f32_values();
    std::copy(v.begin(), v.end(), a.values.begin());
    return a;
}

class TapTestModel : public ::testing::Test {
protected:
    void SetUp() override {
        options_.mels = 80;
        options_.d = 64;
        options_.heads = 4;
        options_.enc_layers = 2;
        options_.dec_layers = 2;
        options_.vocab = 512;
        options_.frames = 200;
        options_.max_tokens = 32;
        options_.inner = 256;
        options_.dtype = "f32";
        options_.seed = 31;
        earshot::model::write_random_checkpoint(dir_.path(), options_);
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
        dims_.mels = 80;
        dims_.d = 64;
        dims_.heads = 4;
        dims_.inner = 256;
        dims_.encoder_layers = 2;
        dims_.decoder_layers = 2;
        dims_.vocab = 512;
        dims_.frames = 200;
        dims_.max_tokens = 32;
    }

    earshot::test::TempDir dir_{"earshot-taps"};
    earshot::model::RandomCheckpointOptions options_;
    std::optional<earshot::model::WhisperCheckpoint> checkpoint_;
    ref::Dims dims_;
};

}  // namespace earshot::test::taps
