// Token choice on the device (backend/token_choice.h): one block per row applies the window's
// logit filters, the timestamp rule (e), the log-softmax normaliser in double and ranks the best
// tokens, so a step sends back RowChoice values instead of its logits.
#include <stdexcept>
#include <string>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kChooseThreads = 256;  // a power of two: the reductions halve it

__device__ inline int64_t clamp_id(int64_t id, int64_t vocab) {
    return id < 0 ? 0 : (id > vocab ? vocab : id);
}

// Larger value first, the lower id first on equal values (std::max_element, the beam's sort).
__device__ inline bool ranks_before(float va, int32_t ia, float vb, int32_t ib) {
    return va > vb || (va == vb && ia < ib);
}

// The largest of w [begin, end) over the block (-inf when empty).
__device__ float range_max(const float* w, int64_t begin, int64_t end, float* shared) {
    float v = -INFINITY;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) v = fmaxf(v, w[i]);
    return block_max(v, shared);
}

// sum(exp(double(w[i]) - peak)) over [begin, end) in double, a tree over the block's threads.
__device__ double range_exp_sum(const float* w, int64_t begin, int64_t end, double peak,
                                double* shared) {
    double v = 0.0;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) v += exp(double(w[i]) - peak);
    const unsigned t = threadIdx.x;
    shared[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) shared[t] += shared[t + stride];
        __syncthreads();
    }
    const double total = shared[0];
    __syncthreads();
    return total;
}

// log(sum(exp(w))) over [begin, end) as the host's log_sum_exp: -inf when every value is -inf.
__device__ double range_log_sum_exp(const float* w, int64_t begin, int64_t end, float* fshared,
                                    double* dshared) {
    const float peak = range_max(w, begin, end, fshared);
    if (peak == -INFINITY) return -INFINITY;
    return double(peak) + log(range_exp_sum(w, begin, end, double(peak), dshared));
}

__global__ void choose_tokens_kernel(const float* logits, float* work, int64_t vocab,
                                     const int32_t* suppressed, int64_t suppressed_count,
                                     const int32_t* boosted, int64_t boosted_count, float boost,
                                     int32_t timestamp_begin, const RowRules* rules,
                                     int32_t choices, RowChoice* out) {
    EARSHOT_STATIC_SHARED(float, fshared, 32);
    EARSHOT_STATIC_SHARED(double, dshared, kChooseThreads);
    EARSHOT_STATIC_SHARED(float, best_value, kChooseThreads);
    EARSHOT_STATIC_SHARED(int32_t, best_id, kChooseThreads);
    EARSHOT_STATIC_SHARED(int32_t, chosen, kMaxChoices);
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t row = blockIdx.x;
    const unsigned t = threadIdx.x;
    const float* in = logits + row * vocab;  // [vocab]
    float* w = work + row * vocab;           // [vocab], the filtered row
    const RowRules& rule = rules[row];
    RowChoice& result = out[row];

    for (int64_t i = t; i < vocab; i += blockDim.x) w[i] = in[i];
    __syncthreads();
    // The vocabulary bias first, in list order (an id listed twice gets it twice, as on the host).
    if (t == 0) {
        for (int64_t j = 0; j < boosted_count; ++j) {
            const int32_t id = boosted[j];
            if (id >= 0 && id < vocab) w[id] += boost;
        }
    }
    __syncthreads();
    for (int64_t j = t; j < suppressed_count; j += blockDim.x) {
        const int32_t id = suppressed[j];
        if (id >= 0 && id < vocab) w[id] = -INFINITY;
    }
    for (int32_t r = 0; r < rule.forbidden_count; ++r) {
        const int64_t end = clamp_id(rule.forbidden[r].end, vocab);
        for (int64_t i = clamp_id(rule.forbidden[r].begin, vocab) + t; i < end; i += blockDim.x) {
            w[i] = -INFINITY;
        }
    }
    __syncthreads();

    // (e): the timestamps' summed probability against the likeliest text token, compared as
    // log-probabilities of the masked row (the shared normaliser cancels).
    double mass = 0.0;
    float best_text = 0.0F;
    int32_t forced = 0;
    if (rule.timestamp_rule != 0) {
        const int64_t text_end = clamp_id(timestamp_begin, vocab);
        best_text = range_max(w, 0, text_end, fshared);
        mass = range_log_sum_exp(w, text_end, vocab, fshared, dshared);
        forced = mass > double(best_text) ? 1 : 0;
        if (forced != 0) {
            for (int64_t i = t; i < text_end; i += blockDim.x) w[i] = -INFINITY;
        }
        __syncthreads();
    }

    const double log_norm = [&] {
        const float peak = range_max(w, 0, vocab, fshared);
        if (peak == -INFINITY) return double(NAN);  // every id suppressed: no distribution
        return double(peak) + log(range_exp_sum(w, 0, vocab, double(peak), dshared));
    }();

    // The best `choices` ids, one block-wide argmax each over the ids not yet chosen.
    for (int32_t k = 0; k < choices; ++k) {
        float v = -INFINITY;
        int32_t id = INT32_MAX;
        for (int64_t i = t; i < vocab; i += blockDim.x) {
            bool taken = false;
            for (int32_t c = 0; c < k; ++c) taken = taken || chosen[c] == i;
            if (!taken && ranks_before(w[i], static_cast<int32_t>(i), v, id)) {
                v = w[i];
                id = static_cast<int32_t>(i);
            }
        }
        best_value[t] = v;
        best_id[t] = id;
        __syncthreads();
        for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (t < stride && ranks_before(best_value[t + stride], best_id[t + stride],
                                           best_value[t], best_id[t])) {
                best_value[t] = best_value[t + stride];
                best_id[t] = best_id[t + stride];
            }
            __syncthreads();
        }
        if (t == 0) {
            chosen[k] = best_id[0];
            result.tokens[k] = best_id[0];
            result.logits[k] = best_value[0];
        }
        __syncthreads();
    }
    if (t == 0) {
        for (int32_t k = choices; k < kMaxChoices; ++k) {
            result.tokens[k] = -1;
            result.logits[k] = 0.0F;
        }
        result.log_norm = log_norm;
        result.timestamp_log_mass = mass;
        result.best_text_logit = best_text;
        result.timestamp_forced = forced;
        result.count = choices;
        result.padding = 0;
    }
}

}  // namespace

void choose_tokens(const float* logits, float* work, int64_t rows, int64_t vocab,
                   const int32_t* suppressed, int64_t suppressed_count, const int32_t* boosted,
                   int64_t boosted_count, float boost, int32_t timestamp_begin,
                   const RowRules* rules, int32_t choices, RowChoice* out, cudaStream_t stream) {
    if (rows < 1 || vocab < 1 || choices < 1 || choices > kMaxChoices || choices > vocab) {
        throw std::invalid_argument("choose_tokens: " + std::to_string(choices) + " choices of " +
                                    std::to_string(rows) + " rows of " + std::to_string(vocab) +
                                    " logits");
    }
    EARSHOT_LAUNCH_DEPENDENT(choose_tokens_kernel, static_cast<unsigned>(rows), kChooseThreads, 0,
                             stream)
    (logits, work, vocab, suppressed, suppressed_count, boosted, boosted_count, boost,
     timestamp_begin, rules, choices, out);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
