// attention_one_query: tasks (row and head, block of keys) on the pool. A task's part is
// [max, sum, y (Dh)] in one buffer of the calling thread; a counter per head, raised with
// acquire-release ordering by each range of tasks for the blocks it finished, tells the range
// that finishes the head's last one to merge: y = sum_b e^(max_b - max) y_b / sum_b e^(max_b - max)
// sum_b, blocks in order.
#include "cpu_attention_one_query.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "cpu_gemv_f16.h"
#include "cpu_kernels.h"
#include "cpu_simd.h"
#include "cpu_threads.h"

namespace earshot::backend::cpu {

namespace {

// scores [n] = scale * q [dh] k^T (k [n, dh]).
EARSHOT_VECTOR_CLONES void score_block(const float* q, const float* k, int64_t n, int64_t dh,
                                       float scale, float* scores) {
    for (int64_t j = 0; j < n; ++j) {
        const float* kj = k + j * dh;
        float dot = 0.0F;
#pragma omp simd reduction(+ : dot)
        for (int64_t d = 0; d < dh; ++d) dot += q[d] * kj[d];
        scores[j] = dot * scale;
    }
}

void score_block(const float* q, const uint16_t* k, int64_t n, int64_t dh, float scale,
                 float* scores) {
    dot_rows_f16(q, k, n, dh, scores);
    for (int64_t j = 0; j < n; ++j) scores[j] *= scale;
}

// y [dh] = sum of p[j] v[j] over the rows j of v [n, dh] with p[j] != 0, in row order.
EARSHOT_VECTOR_CLONES void weigh_block(const float* p, const float* v, int64_t n, int64_t dh,
                                       float* y) {
    for (int64_t d = 0; d < dh; ++d) y[d] = 0.0F;
    for (int64_t j = 0; j < n; ++j) {
        if (p[j] == 0.0F) continue;  // masked cache slots
        const float* vj = v + j * dh;
        const float pj = p[j];
#pragma omp simd
        for (int64_t d = 0; d < dh; ++d) y[d] += pj * vj[d];
    }
}

void weigh_block(const float* p, const uint16_t* v, int64_t n, int64_t dh, float* y) {
    std::fill(y, y + dh, 0.0F);
    accumulate_rows_f16(p, v, n, dh, y);
}

// parts [blocks, 2 + dh] of one head -> y [dh].
void merge_parts(const float* parts, int64_t blocks, int64_t dh, float* y) {
    const int64_t width = 2 + dh;
    float max = -INFINITY;
    for (int64_t b = 0; b < blocks; ++b) max = std::max(max, parts[b * width]);
    std::fill(y, y + dh, 0.0F);
    if (max == -INFINITY) return;  // the row sees no key
    float sum = 0.0F;
    for (int64_t b = 0; b < blocks; ++b) {
        const float* part = parts + b * width;
        if (part[0] == -INFINITY) continue;
        const float weight = std::exp(part[0] - max);
        sum += weight * part[1];
        for (int64_t d = 0; d < dh; ++d) y[d] += weight * part[2 + d];
    }
    const float inv = 1.0F / sum;
    for (int64_t d = 0; d < dh; ++d) y[d] *= inv;
}

template <typename Value>
void one_query(const float* q, const Value* k, const Value* v, const uint8_t* mask, float* y,
               int64_t batch, int64_t heads, int64_t k_len, int64_t dh, float scale,
               bool kv_shared) {
    const int64_t rows = batch * heads;
    const int64_t blocks = (k_len + kKeyBlock - 1) / kKeyBlock;
    const int64_t width = 2 + dh;
    // The calling thread's buffers, grown once and reused (a step allocates nothing). Each
    // head's counter has a cache line of its own: threads finishing blocks of different heads do
    // not contend for one line.
    constexpr int64_t kCounterStride = 64 / sizeof(int32_t);
    thread_local std::vector<float> part_buffer;
    thread_local std::vector<int32_t> finished_buffer;
    part_buffer.resize(static_cast<size_t>(rows * blocks * width));
    finished_buffer.assign(static_cast<size_t>(rows * kCounterStride), 0);
    float* parts = part_buffer.data();           // [B * H, blocks, 2 + Dh]
    int32_t* finished = finished_buffer.data();  // blocks done per (b, h), one line apart
    // The last of a head's blocks to be counted merges; acquire-release makes the other blocks'
    // parts visible to it. A range counts its blocks once per head it touches.
    auto count_done = [&](int64_t bh, int32_t done) {
        std::atomic_ref<int32_t> counter(finished[bh * kCounterStride]);
        if (counter.fetch_add(done, std::memory_order_acq_rel) + done == blocks) {
            merge_parts(parts + bh * blocks * width, blocks, dh, y + bh * dh);
        }
    };
    // Whole heads per range when there are heads enough for every thread (a head's parts then
    // stay in its thread's cache for the merge), single blocks otherwise. Either way each block
    // and each merge computes the same values.
    ThreadPool& pool = ThreadPool::current();
    const int64_t grain = rows >= 2 * pool.size() ? blocks : 1;
    pool.parallel_for(rows * blocks, grain, [&](int64_t begin, int64_t end) {
        float scores[kKeyBlock];
        int32_t done = 0;  // blocks of the current head finished here and not yet counted
        for (int64_t task = begin; task < end; ++task) {
            const int64_t bh = task / blocks;
            if (done > 0 && task % blocks == 0) {
                count_done(bh - 1, done);
                done = 0;
            }
            const int64_t j0 = (task % blocks) * kKeyBlock;
            const int64_t n = std::min(kKeyBlock, k_len - j0);
            const int64_t offset = ((kv_shared ? bh % heads : bh) * k_len + j0) * dh;
            const uint8_t* visible = mask == nullptr ? nullptr : mask + j0;
            float* part = parts + task * width;
            ++done;
            if (visible != nullptr &&
                std::all_of(visible, visible + n, [](uint8_t m) { return m == 0; })) {
                part[0] = -INFINITY;  // not read: every key is masked away
                part[1] = 0.0F;
                continue;
            }
            score_block(q + bh * dh, k + offset, n, dh, scale, scores);
            const SoftmaxPartial partial = softmax_partial(scores, visible, n);
            part[0] = partial.max;
            part[1] = partial.sum;
            if (partial.max != -INFINITY) weigh_block(scores, v + offset, n, dh, part + 2);
        }
        if (done > 0) count_done((end - 1) / blocks, done);
    });
}

}  // namespace

void attention_one_query(const float* q, const float* k, const float* v, const uint8_t* mask,
                         float* y, int64_t batch, int64_t heads, int64_t k_len, int64_t dh,
                         float scale, bool kv_shared) {
    one_query(q, k, v, mask, y, batch, heads, k_len, dh, scale, kv_shared);
}

void attention_one_query_f16(const float* q, const uint16_t* k, const uint16_t* v,
                             const uint8_t* mask, float* y, int64_t batch, int64_t heads,
                             int64_t k_len, int64_t dh, float scale, bool kv_shared) {
    one_query(q, k, v, mask, y, batch, heads, k_len, dh, scale, kv_shared);
}

}  // namespace earshot::backend::cpu
