// StepTiming: the measured time of one executed plan step, on any backend (host clock on the CPU,
// CUDA events on the GPU), with the call scope it ran in; the inspector's heat overlay reads it.
#pragma once

#include <string>

namespace earshot::backend {

struct StepTiming {
    std::string scope;  // "decoder_layers.2.step > self_attn.attend"
    std::string op;     // "linear"
    double ms = 0.0;
    std::string entry{};  // the plan's traced entry: "whisper.step", "whisper.listen"; "" unknown
};

}  // namespace earshot::backend
