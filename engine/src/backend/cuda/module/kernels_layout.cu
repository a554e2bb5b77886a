// Layout kernels: permute, head split and merge, conv's im2col (to f16), row slices, take, and
// the cache writes (write_span, write_at).
#include <cuda_fp16.h>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

__global__ void permute_kernel(const uint32_t* x, uint32_t* y, int64_t total, Permutation p) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, total) {
        int64_t rest = i;
        int64_t src = 0;
        for (int axis = p.rank - 1; axis >= 0; --axis) {
            src += (rest % p.out_shape[axis]) * p.src_strides[axis];
            rest /= p.out_shape[axis];
        }
        y[i] = x[src];
    }
}

// [B, N, H, Dh] <-> [B, H, N, Dh]: `to_heads` picks the direction; i indexes the output.
__global__ void heads_kernel(const float* x, float* y, int64_t batch, int64_t n, int64_t heads,
                             int64_t dh, bool to_heads) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t total = batch * n * heads * dh;
    EARSHOT_GRID_STRIDE(i, total) {
        const int64_t d = i % dh;
        if (to_heads) {  // output [B, H, N, Dh]
            const int64_t t = (i / dh) % n;
            const int64_t h = (i / (dh * n)) % heads;
            const int64_t b = i / (dh * n * heads);
            y[i] = x[((b * n + t) * heads + h) * dh + d];
        } else {  // output [B, N, H, Dh]
            const int64_t h = (i / dh) % heads;
            const int64_t t = (i / (dh * heads)) % n;
            const int64_t b = i / (dh * heads * n);
            y[i] = x[((b * heads + h) * n + t) * dh + d];
        }
    }
}

__global__ void im2col_kernel(const float* x, __half* cols, int64_t batch, int64_t length,
                              int64_t cin, int64_t kernel, int64_t stride, int64_t padding,
                              int64_t out_length) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t total = batch * out_length * cin * kernel;
    EARSHOT_GRID_STRIDE(i, total) {
        const int64_t j = i % kernel;
        const int64_t c = (i / kernel) % cin;
        const int64_t t = (i / (kernel * cin)) % out_length;
        const int64_t b = i / (kernel * cin * out_length);
        const int64_t src = t * stride + j - padding;
        const float v = src >= 0 && src < length ? x[(b * length + src) * cin + c] : 0.0F;
        cols[i] = __float2half_rn(v);
    }
}

__global__ void slice_rows_kernel(const float* table, float* y, int64_t width, int64_t length,
                                  int64_t start, const int32_t* start_device) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t first = start_device != nullptr ? *start_device : start;
    EARSHOT_GRID_STRIDE(i, length * width) { y[i] = table[first * width + i]; }
}

__global__ void take_kernel(const float* x, float* y, int64_t outer, int64_t n, int64_t inner,
                            int64_t index) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    EARSHOT_GRID_STRIDE(i, outer * inner) {
        const int64_t o = i / inner;
        y[i] = x[(o * n + index) * inner + i % inner];
    }
}

__device__ inline void store(float* p, float v) { *p = v; }
__device__ inline void store(__half* p, float v) { *p = __float2half_rn(v); }

// State: float, or __half for the f16 caches.
template <typename State>
__global__ void write_span_kernel(State* state, const float* value, int64_t outer,
                                  int64_t state_len, int64_t value_len, int64_t inner,
                                  int64_t start, const int32_t* start_device) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    const int64_t first = start_device != nullptr ? *start_device : start;
    const int64_t span = value_len * inner;
    EARSHOT_GRID_STRIDE(i, outer * span) {
        const int64_t o = i / span;
        store(state + o * state_len * inner + first * inner + i % span, value[i]);
    }
}

}  // namespace

void permute(const uint32_t* x, uint32_t* y, int64_t total, const Permutation& permutation,
             cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(permute_kernel, grid_for(total), kThreads, 0, stream)
    (x, y, total, permutation);
    EARSHOT_CHECK_LAUNCH();
}

void split_heads(const float* x, float* y, int64_t batch, int64_t n, int64_t heads, int64_t dh,
                 cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(heads_kernel, grid_for(batch * n * heads * dh), kThreads, 0, stream)
    (x, y, batch, n, heads, dh, true);
    EARSHOT_CHECK_LAUNCH();
}

void merge_heads(const float* x, float* y, int64_t batch, int64_t heads, int64_t n, int64_t dh,
                 cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(heads_kernel, grid_for(batch * n * heads * dh), kThreads, 0, stream)
    (x, y, batch, n, heads, dh, false);
    EARSHOT_CHECK_LAUNCH();
}

void im2col_half(const float* x, uint16_t* cols, int64_t batch, int64_t length, int64_t in_channels,
                 int64_t kernel, int64_t stride, int64_t padding, int64_t out_length,
                 cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(im2col_kernel, grid_for(batch * out_length * in_channels * kernel),
                             kThreads, 0, stream)
    (x, reinterpret_cast<__half*>(cols), batch, length, in_channels, kernel, stride, padding,
     out_length);
    EARSHOT_CHECK_LAUNCH();
}

void slice_rows(const float* table, float* y, int64_t width, int64_t length, int64_t start,
                const int32_t* start_device, cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(slice_rows_kernel, grid_for(length * width), kThreads, 0, stream)
    (table, y, width, length, start, start_device);
    EARSHOT_CHECK_LAUNCH();
}

void take(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, int64_t index,
          cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(take_kernel, grid_for(outer * inner), kThreads, 0, stream)
    (x, y, outer, n, inner, index);
    EARSHOT_CHECK_LAUNCH();
}

namespace {

template <typename State>
void launch_write_span(State* state, const float* value, int64_t outer, int64_t state_len,
                       int64_t value_len, int64_t inner, int64_t start, const int32_t* start_device,
                       cudaStream_t stream) {
    EARSHOT_LAUNCH_DEPENDENT(write_span_kernel<State>, grid_for(outer * value_len * inner),
                             kThreads, 0, stream)
    (state, value, outer, state_len, value_len, inner, start, start_device);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace

void write_span(float* state, const float* value, int64_t outer, int64_t state_len,
                int64_t value_len, int64_t inner, int64_t start, const int32_t* start_device,
                cudaStream_t stream) {
    launch_write_span(state, value, outer, state_len, value_len, inner, start, start_device,
                      stream);
}

void write_span(uint16_t* state, const float* value, int64_t outer, int64_t state_len,
                int64_t value_len, int64_t inner, int64_t start, const int32_t* start_device,
                cudaStream_t stream) {
    launch_write_span(reinterpret_cast<__half*>(state), value, outer, state_len, value_len, inner,
                      start, start_device, stream);
}

}  // namespace earshot::backend::cuda::kernels
