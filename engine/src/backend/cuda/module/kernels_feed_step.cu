// The next decoder step's inputs written on the device (issue 30): each row's best token, as
// choose_tokens ranked it, into the step's token input, and pos + 1 into its pos, so a greedy
// step uploads nothing before its graph replays.
#include <stdexcept>
#include <string>

#include "kernels.h"
#include "launch.cuh"

namespace earshot::backend::cuda::kernels {

namespace {

__global__ void feed_next_step_kernel(const RowChoice* chosen, int64_t rows, int32_t* tokens,
                                      int32_t* pos) {
    wait_for_previous_kernel();
    let_next_kernel_start();
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) tokens[r] = chosen[r].tokens[0];
    if (threadIdx.x == 0) *pos = *pos + 1;
}

}  // namespace

void feed_next_step(const RowChoice* chosen, int64_t rows, int32_t* tokens, int32_t* pos,
                    cudaStream_t stream) {
    if (rows < 1) {
        throw std::invalid_argument("feed_next_step: " + std::to_string(rows) + " rows");
    }
    EARSHOT_LAUNCH_DEPENDENT(feed_next_step_kernel, 1, 32, 0, stream)(chosen, rows, tokens, pos);
    EARSHOT_CHECK_LAUNCH();
}

}  // namespace earshot::backend::cuda::kernels
