// One query's attention split over the keys (a decoder step): a block per (batch-head, 64 keys)
// writes that span's partial softmax (its max, its sum, its unnormalised p x V), and the last
// block of each (batch, head) to finish merges its partials, in the same launch. Keys the mask
// hides are never read: a decoder step's self-attention mask is `iota <= pos` computed on the
// device, so a step replayed from a CUDA graph reads the cache positions 0 .. pos only, with pos
// taken from device memory.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels_step.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

constexpr int kSplitThreads = 128;
// Eight lanes share a key: each holds 8 consecutive elements (one 16-byte load of f16) of every
// 64-wide pass over the head.
constexpr int kLanesPerKey = 8;
constexpr int kElementsPerLane = 8;
constexpr int kPassWidth = kLanesPerKey * kElementsPerLane;     // 64
constexpr int kKeyGroups = kSplitThreads / kLanesPerKey;        // 16 keys read at once
constexpr int kKeysPerGroup = kSplitKeysPerBlock / kKeyGroups;  // 4
constexpr int kMaxPasses = kMaxSplitHeadSize / kPassWidth;      // 4
static_assert(kSplitKeysPerBlock % kKeyGroups == 0);

// out [8] = p [0 .. 8) as f32: one 16-byte load (f16) or two (f32) when `vector`, else element by
// element, zeros past `valid`.
__device__ inline void load8(const __half* p, float* out, bool vector, int64_t valid) {
    if (vector && valid >= kElementsPerLane) {
        const uint4 raw = *reinterpret_cast<const uint4*>(p);
        const __half* halves = reinterpret_cast<const __half*>(&raw);
        for (int i = 0; i < kElementsPerLane; ++i) out[i] = __half2float(halves[i]);
        return;
    }
    for (int i = 0; i < kElementsPerLane; ++i) out[i] = i < valid ? __half2float(p[i]) : 0.0F;
}

__device__ inline void load8(const float* p, float* out, bool vector, int64_t valid) {
    if (vector && valid >= kElementsPerLane) {
        const float4 a = *reinterpret_cast<const float4*>(p);
        const float4 b = *reinterpret_cast<const float4*>(p + 4);
        out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w;
        out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
        return;
    }
    for (int i = 0; i < kElementsPerLane; ++i) out[i] = i < valid ? p[i] : 0.0F;
}

// The sum over the 8 lanes that share a key (lanes differing in their low three bits). Every
// lane of the warp calls it.
__device__ inline float key_lanes_sum(float v) {
    for (int offset = kLanesPerKey / 2; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(0xffffffffU, v, offset);
    }
    return v;
}

// The softmax-weighted values of one span whose largest score `top` is finite: weights and sums
// are the block's shared arrays, `mine` the thread's score (threads < 64); writes out [Dh] and
// the span's max and sum. Every thread of the block calls it.
template <typename KV>
__device__ inline void span_softmax_times_v(float* weights, float* sums, float* reduce, float mine,
                                            float top, const KV* vh, float* out, float* partial_max,
                                            float* partial_sum, int64_t bh, int64_t spans,
                                            int64_t span, int64_t first, int64_t dh, int passes,
                                            int group, int sub, bool vector) {
    const int tid = static_cast<int>(threadIdx.x);
    const float e = mine == -INFINITY ? 0.0F : expf(mine - top);
    if (tid < kSplitKeysPerBlock) weights[tid] = e;
    const float sum = block_sum(e, reduce);  // also makes every weight visible

    // p x V: group g again takes keys g + 16 t, each lane 8 elements of every pass.
    float acc[kMaxPasses][kElementsPerLane] = {};
#pragma unroll
    for (int t = 0; t < kKeysPerGroup; ++t) {
        const int local = group + kKeyGroups * t;
        const float weight = weights[local];
        if (weight == 0.0F) continue;  // hidden (or underflowed): contributes nothing
        const int64_t j = first + local;
#pragma unroll
        for (int p = 0; p < kMaxPasses; ++p) {
            if (p >= passes) break;
            const int64_t base = p * kPassWidth + sub * kElementsPerLane;
            float vv[kElementsPerLane];
            load8(vh + j * dh + base, vv, vector, dh - base);
            for (int i = 0; i < kElementsPerLane; ++i) acc[p][i] += weight * vv[i];
        }
    }
#pragma unroll
    for (int p = 0; p < kMaxPasses; ++p) {
        if (p >= passes) break;
        const int64_t base = p * kPassWidth + sub * kElementsPerLane;
        for (int i = 0; i < kElementsPerLane; ++i) {
            if (base + i < dh) sums[group * dh + base + i] = acc[p][i];
        }
    }
    __syncthreads();
    for (int64_t d = tid; d < dh; d += blockDim.x) {
        float total = 0.0F;
        for (int g = 0; g < kKeyGroups; ++g) total += sums[g * dh + d];
        out[d] = total;
    }
    if (tid == 0) {
        partial_max[bh * spans + span] = top;
        partial_sum[bh * spans + span] = sum;
    }
}

// y [Dh] = sum_s exp(max_s - M) out_s / sum_s exp(max_s - M) sum_s over one (batch, head)'s
// spans, M the largest max_s; spans with no visible key are skipped; zeros when no key at all is
// visible. Reads through volatile: other blocks wrote the partials during this launch.
__device__ inline void merge_spans(const volatile float* out, const volatile float* maxes,
                                   const volatile float* sums, float* y, int64_t spans,
                                   int64_t dh) {
    float top = -INFINITY;
    for (int64_t s = 0; s < spans; ++s) top = fmaxf(top, maxes[s]);
    if (top == -INFINITY) {
        for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) y[d] = 0.0F;
        return;
    }
    float total = 0.0F;
    for (int64_t s = 0; s < spans; ++s) {
        if (maxes[s] != -INFINITY) total += sums[s] * expf(maxes[s] - top);
    }
    const float inv = 1.0F / total;
    for (int64_t d = threadIdx.x; d < dh; d += blockDim.x) {
        float acc = 0.0F;
        for (int64_t s = 0; s < spans; ++s) {
            if (maxes[s] != -INFINITY) acc += out[s * dh + d] * expf(maxes[s] - top);
        }
        y[d] = acc * inv;
    }
}

// Block bh * spans + span: keys span * 64 .. + 64 of q [BH, Dh] against k, v [BH, K, Dh] -> the
// span's max score, sum of exp(score - max) and sum of exp(score - max) v, in partial_max [BH,
// spans], partial_sum [BH, spans] and partial_out [BH, spans, Dh]; a span with no visible key has
// max -inf, sum 0 and out 0. The last block of a (batch, head) to finish (counted in done [BH],
// zero between launches) merges its spans into y [BH, Dh] and sets its count back to zero, so one
// launch is the whole attention (the fence-and-count reduction of the CUDA samples).
// `vector`: k and v rows are 16-byte aligned with Dh % 8 == 0.
template <typename KV>
__global__ void attend_split_keys_kernel(const float* q, const KV* k, const KV* v,
                                         const uint8_t* mask, float* partial_out,
                                         float* partial_max, float* partial_sum, unsigned* done,
                                         float* y, int64_t spans, int64_t k_len, int64_t dh,
                                         float scale, bool vector, int64_t kv_rows) {
    EARSHOT_STATIC_SHARED(float, weights, kSplitKeysPerBlock);          // [64]
    EARSHOT_STATIC_SHARED(float, sums, kKeyGroups* kMaxSplitHeadSize);  // [groups, Dh]
    EARSHOT_STATIC_SHARED(float, reduce, 32);
    EARSHOT_STATIC_SHARED(unsigned, last, 1);
    wait_for_previous_kernel();  // q (and a self-attention's cache) the previous kernel's output
    let_next_kernel_start();
    const int64_t span = static_cast<int64_t>(blockIdx.x) % spans;
    const int64_t bh = static_cast<int64_t>(blockIdx.x) / spans;
    const int sub = static_cast<int>(threadIdx.x) % kLanesPerKey;
    const int group = static_cast<int>(threadIdx.x) / kLanesPerKey;
    const int passes = static_cast<int>((dh + kPassWidth - 1) / kPassWidth);
    const int64_t first = span * kSplitKeysPerBlock;
    const KV* kh = k + bh % kv_rows * k_len * dh;  // kv_rows: see kernels.h
    const KV* vh = v + bh % kv_rows * k_len * dh;
    // The lane's slice of q in registers: element p * 64 + sub * 8 + i.
    float qr[kMaxPasses][kElementsPerLane];
#pragma unroll
    for (int p = 0; p < kMaxPasses; ++p) {
        const int64_t base = p * kPassWidth + sub * kElementsPerLane;
        for (int i = 0; i < kElementsPerLane; ++i) {
            qr[p][i] = p < passes && base + i < dh ? q[bh * dh + base + i] : 0.0F;
        }
    }

    // Scores: group g takes keys g, g + 16, g + 32, g + 48 of the span, their loads issued
    // before their sums. Hidden keys (masked or past K) are not read.
    float dots[kKeysPerGroup];
    bool shown[kKeysPerGroup];
#pragma unroll
    for (int t = 0; t < kKeysPerGroup; ++t) {
        const int64_t j = first + group + kKeyGroups * t;
        shown[t] = j < k_len && (mask == nullptr || mask[j] != 0);
        float dot = 0.0F;
        if (shown[t]) {
#pragma unroll
            for (int p = 0; p < kMaxPasses; ++p) {
                if (p >= passes) break;
                const int64_t base = p * kPassWidth + sub * kElementsPerLane;
                float kv[kElementsPerLane];
                load8(kh + j * dh + base, kv, vector, dh - base);
                for (int i = 0; i < kElementsPerLane; ++i) dot += qr[p][i] * kv[i];
            }
        }
        dots[t] = dot;
    }
#pragma unroll
    for (int t = 0; t < kKeysPerGroup; ++t) {
        const float dot = key_lanes_sum(dots[t]);
        if (sub == 0) weights[group + kKeyGroups * t] = shown[t] ? dot * scale : -INFINITY;
    }
    __syncthreads();

    const int tid = static_cast<int>(threadIdx.x);
    const float mine = tid < kSplitKeysPerBlock ? weights[tid] : -INFINITY;
    const float top = block_max(mine, reduce);  // uniform over the block
    float* out = partial_out + (bh * spans + span) * dh;
    if (top == -INFINITY) {  // nothing visible here (past pos, or masked)
        for (int64_t d = tid; d < dh; d += blockDim.x) out[d] = 0.0F;
        if (tid == 0) {
            partial_max[bh * spans + span] = -INFINITY;
            partial_sum[bh * spans + span] = 0.0F;
        }
    } else {
        span_softmax_times_v(weights, sums, reduce, mine, top, vh, out, partial_max, partial_sum,
                             bh, spans, span, first, dh, passes, group, sub, vector);
    }

    // Count this block once its partials are visible device-wide; the last one merges.
    __threadfence();
    __syncthreads();
    if (tid == 0) {
        last[0] = atomicAdd(done + bh, 1U) == static_cast<unsigned>(spans - 1) ? 1U : 0U;
    }
    __syncthreads();
    if (last[0] == 0U) return;
    merge_spans(partial_out + bh * spans * dh, partial_max + bh * spans, partial_sum + bh * spans,
                y + bh * dh, spans, dh);
    if (tid == 0) done[bh] = 0U;  // ready for the next launch (a CUDA graph replays this one)
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <typename KV>
bool attend_split(const float* q, const KV* k, const KV* v, const uint8_t* mask, float* y,
                  float* partials, unsigned* done, int64_t bh, int64_t k_len, int64_t dh,
                  float scale, cudaStream_t stream, int64_t kv_rows) {
    if (!attend_split_keys_fits(bh, dh)) return false;
    if (bh == 0) return true;
    const int64_t spans = split_key_spans(k_len);        // cuda_launch_rules.h
    float* partial_out = partials;                       // [BH, spans, Dh]
    float* partial_max = partial_out + bh * spans * dh;  // [BH, spans]
    float* partial_sum = partial_max + bh * spans;       // [BH, spans]
    if (spans == 0) {                                    // no keys: zeros, as a fully masked row
        CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<size_t>(bh * dh) * sizeof(float), stream));
        return true;
    }
    const bool vector = dh % kElementsPerLane == 0 && aligned16(k) && aligned16(v);
    EARSHOT_LAUNCH_DEPENDENT(attend_split_keys_kernel<KV>, static_cast<unsigned>(bh * spans),
                             kSplitThreads, 0, stream)
    (q, k, v, mask, partial_out, partial_max, partial_sum, done, y, spans, k_len, dh, scale, vector,
     kv_rows > 0 ? kv_rows : bh);
    EARSHOT_CHECK_LAUNCH();
    return true;
}

}  // namespace

bool attend_one_query_split_keys(const float* q, const float* k, const float* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale,
                                 cudaStream_t stream) {
    return attend_split(q, k, v, mask, y, partials, done, bh, k_len, dh, scale, stream, bh);
}

bool attend_one_query_split_keys(const float* q, const uint16_t* k, const uint16_t* v,
                                 const uint8_t* mask, float* y, float* partials, unsigned* done,
                                 int64_t bh, int64_t k_len, int64_t dh, float scale,
                                 cudaStream_t stream, int64_t kv_rows) {
    return attend_split(q, reinterpret_cast<const __half*>(k), reinterpret_cast<const __half*>(v),
                        mask, y, partials, done, bh, k_len, dh, scale, stream, kv_rows);
}

}  // namespace earshot::backend::cuda::kernels
