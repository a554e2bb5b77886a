// `earshot models quantize IN OUT --type T`: a checkpoint to a whisper.cpp ggml file with its 2-D
// weights quantized, written atomically, with progress on stderr.
#pragma once

#include <iosfwd>
#include <string>

namespace earshot::app {

struct QuantizeRequest {
    std::string input;   // any checkpoint Earshot reads (HF directory, .safetensors, ggml .bin)
    std::string output;  // the ggml file to write
    std::string type;    // q8_0, q5_1, q5_0, q4_1, q4_0, f16 or f32
};

// Writes the file and says so on `out`; one line per tensor on `err` as it goes. A bad type, an
// unreadable input or an unwritable output is one line on `err` and kExitBadInput; the output
// name then holds what it held before (the file is written beside it and renamed when whole).
int run_models_quantize(const QuantizeRequest& request, std::ostream& out, std::ostream& err);

}  // namespace earshot::app
