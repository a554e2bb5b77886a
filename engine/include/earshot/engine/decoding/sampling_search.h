// Greedy decoding (T = 0) and best-of-N sampling (T > 0) of one window (reference §5.3).
#pragma once

#include <cstdint>
#include <random>

#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/window_search.h"

namespace earshot::decoding {

// `rows` independent sequences (1 for greedy, best_of for sampling), starting with
// run_first_pass (the model must have listened, one row) and expand(rows). Each
// step filters each row, picks argmax (T = 0) or draws from softmax(logits / T), and adds the
// log-softmax of the unscaled filtered logits at that token while the row is unfinished.
// Stops when every row has sampled EOT, after sample_len tokens, or when the next token would
// sit at position max_tokens. One candidate per row, in row order.
SearchResult sample_window(DecoderModel& model, const WindowSetup& setup, double temperature,
                           int64_t rows, std::mt19937_64& rng);

}  // namespace earshot::decoding
