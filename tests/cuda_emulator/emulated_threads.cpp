// The emulated GPU threads: blocks run in turn with their threads as ucontext coroutines
// (switching at __syncthreads and warp shuffles), shared memory, the launch checks (bounds,
// alignment, shared memory limits, races between blocks) and run_grid, which runs a kernel.
#include <setjmp.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda_runtime.h"
#include "emulator_state.h"

namespace earshot::cuda_emulator {

namespace {

constexpr size_t kStackBytes = 64 * 1024;
constexpr int kWarp = 32;

// A coroutine that runs one GPU thread at a time. Fibers live for the whole process and are
// reused by every block: entered once through a ucontext, then resumed and suspended with
// _setjmp/_longjmp (no signal-mask system call), and after a thread's body returns they wait for
// the next one.
struct Fiber {
    ucontext_t context{};
    jmp_buf resume{};
    std::unique_ptr<char[]> stack;
    ThreadState state;
    bool started = false;
    bool done = true;
    bool blocked = false;  // waiting at a barrier that has not opened yet
    // Asynchronous copies (cuda_pipeline.h) not landed yet: committed groups, oldest first, and
    // the open group last.
    struct Copy {
        void* shared;
        const void* global;
        size_t bytes;
    };
    std::vector<std::vector<Copy>> pipeline = {{}};
};

// A barrier over a set of coroutines: the last live one to arrive opens it and wakes the others.
struct Barrier {
    int arrived = 0;
    int live = 0;
    std::vector<Fiber*> waiting;
};

struct Block {
    std::vector<Fiber*> fibers;
    jmp_buf scheduler_resume{};
    Fiber* running = nullptr;
    const std::function<void()>* body = nullptr;
    std::byte* dynamic_shared = nullptr;
    Barrier block_barrier;
    std::vector<Barrier> warp_barriers;
    std::vector<float> lanes[2];  // shuffle exchange, one slot per thread, used in turn
    std::vector<uint8_t> lane_turn;
    std::vector<float> reduced[2];          // a warp reduction's result per lane, per turn
    std::vector<uint8_t> reduced_ready[2];  // per warp: reduced[turn] holds this exchange's
    bool synchronised = false;  // a thread of this launch waited at a barrier or shuffled
    bool plain = false;         // threads run one after another as plain calls
};

// Shared memory a block may use (compute capability 9.0): 48 KiB, or up to 227 KiB for a kernel
// that opted in with cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize).
constexpr size_t kDefaultSharedBytes = 48 * 1024;
constexpr size_t kOptInSharedBytes = 227 * 1024;

// The launch running now: what the checks report against, once per launch.
struct LaunchState {
    const LaunchInfo* info = nullptr;
    size_t dynamic_limit = kDefaultSharedBytes;  // the size set by cudaFuncSetAttribute
    size_t total_limit = kDefaultSharedBytes;    // static and dynamic: 227 KiB when opted in
    size_t static_shared_bytes = 0;
    std::set<void*> static_arrays;
    cudaError_t fault = cudaSuccess;  // the first check that failed
    // A dependent launch (LaunchInfo::dependent): the previous kernel, its written allocations
    // as it left them (held back, NaN bytes in their place, until the first wait), whether they
    // are back, and whether the running block waited.
    const char* previous = "";
    std::vector<std::pair<std::byte*, size_t>> held_regions;
    std::vector<std::vector<std::byte>> held_values;
    bool released = true;
    bool block_waited = false;
    unsigned block = 0;
};

Block* g_block = nullptr;
LaunchState* g_launch = nullptr;
std::map<const void*, size_t> g_max_dynamic_shared;  // per kernel, from cudaFuncSetAttribute
std::vector<std::unique_ptr<Fiber>> g_fibers;
// EARSHOT_CUDA_EMULATOR_FAULT_AT_LAUNCH=N: the N-th kernel run after the variable took its value
// faults as a kernel that reads out of bounds does on a GPU: nothing at its launch, and
// cudaErrorLaunchFailure from the next cudaStreamSynchronize (once; a GPU's stays).
std::string g_fault_setting;
size_t g_runs_since_fault_setting = 0;

void count_run_for_fault() {
    const char* value = std::getenv("EARSHOT_CUDA_EMULATOR_FAULT_AT_LAUNCH");
    const std::string setting = value != nullptr ? value : "";
    if (setting != g_fault_setting) {
        g_fault_setting = setting;
        g_runs_since_fault_setting = 0;
    }
    if (setting.empty()) return;
    if (++g_runs_since_fault_setting == std::strtoull(setting.c_str(), nullptr, 10)) {
        g_pending_fault = cudaErrorLaunchFailure;
    }
}

// A check failed in the running launch: said once on stderr, naming the kernel and the thread,
// and the launch fails as on a GPU (cudaGetLastError, and the next synchronisation).
void report(cudaError_t error, const std::string& what) {
    const char* kernel = g_launch != nullptr ? g_launch->info->name : "host code";
    std::string where;
    if (g_block != nullptr && g_block->running != nullptr) {
        const ThreadState& state = g_block->running->state;
        where = " (block " + std::to_string(state.block_idx.x) + ", thread " +
                std::to_string(state.thread_idx.x) + ")";
    }
    if (g_launch != nullptr) {
        if (g_launch->fault != cudaSuccess) return;
        g_launch->fault = error;
    }
    std::fprintf(stderr, "CUDA emulator: %s in %s%s\n", what.c_str(), kernel, where.c_str());
    g_last_error = error;
    g_pending_fault = error;
}

// Whether this launch's grid runs a second time in reverse block order:
// EARSHOT_CUDA_EMULATOR_CHECK_BLOCK_ORDER=1 checks every grid of several blocks; =sampled checks
// the first 4 launches of each kernel at each grid, block and shared-memory size and then every
// 64th (a whole-model test repeats the same launches thousands of times: sampled, its kernels
// are still each checked at every shape they run, at a fraction of the time).
bool check_block_order(const LaunchInfo& info) {
    if (info.grid.x <= 1) return false;
    const char* value = std::getenv("EARSHOT_CUDA_EMULATOR_CHECK_BLOCK_ORDER");  // tests set it
    const std::string mode = value == nullptr ? "" : value;
    if (mode == "1") return true;
    if (mode != "sampled") return false;
    using Shape = std::tuple<const void*, unsigned, unsigned, size_t>;
    static std::map<Shape, uint64_t> launches;  // under g_mutex, as run_grid holds it
    const uint64_t n = launches[Shape{info.kernel, info.grid.x, info.block.x, info.shared_bytes}]++;
    return n < 4 || n % 64 == 0;
}

void suspend() {
    if (_setjmp(g_block->running->resume) == 0) _longjmp(g_block->scheduler_resume, 1);
}

void open(Barrier& barrier) {
    barrier.arrived = 0;
    for (Fiber* fiber : barrier.waiting) fiber->blocked = false;
    barrier.waiting.clear();
}

void wait(Barrier& barrier) {
    if (g_block->plain) {
        // Plain calls are only used once the first block showed the kernel never synchronises.
        throw std::logic_error("CUDA emulator: a kernel synchronised only in later blocks");
    }
    g_block->synchronised = true;
    if (++barrier.arrived >= barrier.live) {
        open(barrier);
        return;
    }
    Fiber* self = g_block->running;
    self->blocked = true;
    barrier.waiting.push_back(self);
    suspend();  // the scheduler resumes this fiber once the barrier opened
}

// A finished thread no longer counts; a barrier its peers wait at may now be complete.
void leave(Barrier& barrier) {
    --barrier.live;
    if (barrier.arrived > 0 && barrier.arrived >= barrier.live) open(barrier);
}

void fiber_main() {
    for (;;) {
        Block& block = *g_block;
        (*block.body)();
        Fiber& self = *block.running;
        self.done = true;
        leave(block.block_barrier);
        leave(block.warp_barriers[self.state.thread_idx.x / kWarp]);
        suspend();  // resumed with the next thread to run
    }
}

Fiber& fiber_at(size_t index) {
    while (g_fibers.size() <= index) {
        auto fiber = std::make_unique<Fiber>();
        fiber->stack = std::make_unique<char[]>(kStackBytes);
        getcontext(&fiber->context);
        fiber->context.uc_stack.ss_sp = fiber->stack.get();
        fiber->context.uc_stack.ss_size = kStackBytes;
        fiber->context.uc_link = nullptr;  // fiber_main never returns
        makecontext(&fiber->context, fiber_main, 0);
        g_fibers.push_back(std::move(fiber));
    }
    return *g_fibers[index];
}

// Runs `fiber` until it suspends or finishes its thread.
void resume(Block& block, Fiber& fiber) {
    block.running = &fiber;
    if (_setjmp(block.scheduler_resume) != 0) return;
    if (!fiber.started) {
        fiber.started = true;
        setcontext(&fiber.context);
    }
    _longjmp(fiber.resume, 1);
}

// results [kWarp]: the warp's values as the butterfly of __shfl_xor_sync with offsets 16, 8, 4,
// 2, 1 combines them for each lane (the same additions in the same order as on a GPU).
void butterfly(const float* values, float* results, bool take_max) {
    float v[kWarp];
    std::copy(values, values + kWarp, v);
    for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) {
        float next[kWarp];
        for (unsigned l = 0; l < kWarp; ++l) {
            next[l] = take_max ? std::fmax(v[l], v[l ^ offset]) : v[l] + v[l ^ offset];
        }
        std::copy(next, next + kWarp, v);
    }
    std::copy(v, v + kWarp, results);
}

}  // namespace

const ThreadState& current() { return g_block->running->state; }

void sync_block() { wait(g_block->block_barrier); }

void sync_warp() { wait(g_block->warp_barriers[g_block->running->state.thread_idx.x / kWarp]); }

// One exchange through the warp's lanes: double-buffered, so one barrier per call suffices (a
// lane's buffer is written again only two exchanges later, after every read of it).
// Returns the warp's values and the turn (buffer) they are in.
std::pair<const float*, unsigned> exchange(float value) {
    Block& block = *g_block;
    const unsigned thread = block.running->state.thread_idx.x;
    const unsigned warp = thread / kWarp;
    uint8_t& turn_of_lane = block.lane_turn[thread];
    const unsigned turn = turn_of_lane;
    turn_of_lane ^= 1U;
    if (block.warp_barriers[warp].arrived == 0) block.reduced_ready[turn][warp] = 0;
    block.lanes[turn][thread] = value;
    wait(block.warp_barriers[warp]);
    return {block.lanes[turn].data() + warp * kWarp, turn};
}

float shfl_xor(float value, int lane_mask) {
    const unsigned lane = g_block->running->state.thread_idx.x % kWarp;
    return exchange(value).first[lane ^ static_cast<unsigned>(lane_mask)];
}

float warp_reduce(float value, bool take_max) {
    Block& block = *g_block;
    const unsigned thread = block.running->state.thread_idx.x;
    const unsigned warp = thread / kWarp;
    const auto [values, turn] = exchange(value);
    float* results = block.reduced[turn].data() + warp * kWarp;
    if (block.reduced_ready[turn][warp] == 0) {  // the warp's first lane here computes them all
        butterfly(values, results, take_max);
        block.reduced_ready[turn][warp] = 1;
    }
    return results[thread % kWarp];
}

void* dynamic_shared() { return g_block->dynamic_shared; }

void static_shared(void* array, size_t bytes) {
    LaunchState& launch = *g_launch;
    if (!launch.static_arrays.insert(array).second) return;
    std::memset(array, kUnwrittenByte, bytes);  // shared memory starts with what was there
    launch.static_shared_bytes += bytes;
    const size_t total = launch.static_shared_bytes + launch.info->shared_bytes;
    if (launch.static_shared_bytes > kDefaultSharedBytes || total > launch.total_limit) {
        report(cudaErrorInvalidValue, std::to_string(launch.static_shared_bytes) +
                                          " bytes of static and " +
                                          std::to_string(launch.info->shared_bytes) +
                                          " of dynamic shared memory, over the limit of " +
                                          std::to_string(launch.total_limit) +
                                          " bytes (more than 48 KiB needs cudaFuncSetAttribute("
                                          "cudaFuncAttributeMaxDynamicSharedMemorySize))");
    }
}

namespace {

std::string address_text(const void* address) {
    char text[32];
    std::snprintf(text, sizeof(text), "%p", address);
    return text;
}

void check_aligned(const void* address, size_t bytes, const char* access) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    if (at % bytes == 0) return;
    report(cudaErrorMisalignedAddress, "misaligned " + std::to_string(bytes) + "-byte " + access +
                                           " at " + address_text(address) + " (address % " +
                                           std::to_string(bytes) + " = " +
                                           std::to_string(at % bytes) + ")");
}

}  // namespace

const void* vector_load_address(const void* address, size_t bytes) {
    check_aligned(address, bytes, "vector load");
    return address;
}

void* vector_store_address(void* address, size_t bytes) {
    check_aligned(address, bytes, "vector store");
    return address;
}

void check_wmma_access(const void* address, unsigned ldm, size_t element_bytes) {
    const auto at = reinterpret_cast<uintptr_t>(address);
    if (at % 32 != 0) {
        report(cudaErrorMisalignedAddress,
               "wmma fragment access at " + address_text(address) +
                   " not 32-byte aligned (address % 32 = " + std::to_string(at % 32) + ")");
    } else if ((ldm * element_bytes) % 16 != 0) {
        report(cudaErrorMisalignedAddress, "wmma fragment access with a leading dimension of " +
                                               std::to_string(ldm) +
                                               " elements, not a multiple of 16 bytes");
    }
}

void pipeline_copy(void* shared, const void* global, size_t bytes) {
    if (bytes != 4 && bytes != 8 && bytes != 16) {
        report(cudaErrorInvalidValue,
               "an asynchronous copy of " + std::to_string(bytes) + " bytes (4, 8 or 16 only)");
        return;
    }
    check_aligned(shared, bytes, "asynchronous copy (shared side)");
    check_aligned(global, bytes, "asynchronous copy (global side)");
    g_block->running->pipeline.back().push_back({shared, global, bytes});
}

void pipeline_commit() { g_block->running->pipeline.emplace_back(); }

void pipeline_wait_prior(size_t pending_groups) {
    auto& groups = g_block->running->pipeline;  // committed groups, then the open one
    while (groups.size() - 1 > pending_groups) {
        for (const Fiber::Copy& copy : groups.front()) {
            std::memcpy(copy.shared, copy.global, copy.bytes);
        }
        groups.erase(groups.begin());
    }
}

cudaError_t set_max_dynamic_shared(const void* kernel, int bytes) {
    if (bytes < 0 || static_cast<size_t>(bytes) > kOptInSharedBytes) return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_max_dynamic_shared[kernel] = static_cast<size_t>(bytes);
    return cudaSuccess;
}

namespace {

// The running launch's previous kernel's writes back in place (its first wait).
void release_held(LaunchState& launch) {
    if (launch.released) return;
    launch.released = true;
    for (size_t r = 0; r < launch.held_regions.size(); ++r) {
        const auto& [start, bytes] = launch.held_regions[r];
        const bool untouched = std::all_of(start, start + bytes, [](std::byte b) {
            return b == static_cast<std::byte>(kUnwrittenByte);
        });
        if (!untouched) {
            report(cudaErrorUnknown,
                   std::string("a write, before cudaGridDependencySynchronize(), into memory the "
                               "previous kernel ") +
                       launch.previous + " writes (launched dependent on it)");
        }
        std::memcpy(start, launch.held_values[r].data(), bytes);
    }
}

void check_block_waited(const LaunchInfo& info) {
    LaunchState& launch = *g_launch;
    if (!info.dependent || launch.block_waited) return;
    report(cudaErrorUnknown, "block " + std::to_string(launch.block) +
                                 " never called cudaGridDependencySynchronize(), launched "
                                 "dependent on " +
                                 (*launch.previous != '\0' ? launch.previous : "nothing"));
}

}  // namespace

void grid_dependency_synchronize() {
    if (g_launch == nullptr || !g_launch->info->dependent) return;
    g_launch->block_waited = true;
    release_held(*g_launch);
}

void trigger_dependent_launches() {
    if (g_launch == nullptr || !g_launch->info->dependent || g_launch->block_waited) return;
    // The next kernel could then start while this one's predecessor still runs, which the
    // emulator does not model: the kernels wait first.
    report(cudaErrorUnknown,
           "cudaTriggerProgrammaticLaunchCompletion() before cudaGridDependencySynchronize() in a "
           "dependent launch");
}

namespace {

// Runs every block of the grid, in order or in reverse order.
void run_blocks(const LaunchInfo& info, const std::function<void()>& body, bool reverse) {
    const dim3 grid = info.grid;
    const dim3 block_dim = info.block;
    const unsigned threads = block_dim.x;
    Block block;
    block.body = &body;
    for (unsigned t = 0; t < threads; ++t) block.fibers.push_back(&fiber_at(t));
    block.lanes[0].assign(threads, 0.0F);
    block.lanes[1].assign(threads, 0.0F);
    for (unsigned turn = 0; turn < 2; ++turn) {
        block.reduced[turn].assign(threads, 0.0F);
        block.reduced_ready[turn].assign(threads / kWarp, 0);
    }
    // Aligned as a GPU's shared memory window (wmma needs 32 bytes), unwritten bytes NaN.
    const size_t storage_bytes = std::max<size_t>((info.shared_bytes + 127) / 128 * 128, 128);
    std::unique_ptr<std::byte, decltype(&std::free)> dynamic(
        static_cast<std::byte*>(std::aligned_alloc(128, storage_bytes)), &std::free);
    std::memset(dynamic.get(), kUnwrittenByte, storage_bytes);
    block.dynamic_shared = dynamic.get();
    Block* outer = g_block;
    g_block = &block;
    for (unsigned i = 0; i < grid.x; ++i) {
        const unsigned b = reverse ? grid.x - 1 - i : i;
        g_launch->block = b;
        g_launch->block_waited = false;
        // A kernel whose first block never synchronised runs its other blocks' threads as plain
        // calls: the same results, without a coroutine switch per thread.
        block.plain = i > 0 && !block.synchronised;
        if (block.plain) {
            for (unsigned t = 0; t < threads; ++t) {
                Fiber& fiber = *block.fibers[t];
                fiber.state = ThreadState{dim3(t), dim3(b), block_dim, grid};
                fiber.pipeline = {{}};
                block.running = &fiber;
                body();
            }
            check_block_waited(info);
            continue;
        }
        block.block_barrier = Barrier{0, static_cast<int>(threads), {}};
        block.warp_barriers.assign(threads / kWarp, Barrier{0, kWarp, {}});
        block.lane_turn.assign(threads, 0);
        for (unsigned t = 0; t < threads; ++t) {
            Fiber& fiber = *block.fibers[t];
            fiber.done = false;
            fiber.blocked = false;
            fiber.state = ThreadState{dim3(t), dim3(b), block_dim, grid};
            fiber.pipeline = {{}};
        }
        for (bool any = true; any;) {
            any = false;
            for (Fiber* fiber : block.fibers) {
                if (fiber->done) continue;
                any = true;
                if (!fiber->blocked) resume(block, *fiber);
            }
        }
        check_block_waited(info);
    }
    block.running = nullptr;
    g_block = outer;
}

}  // namespace

void run_grid(const LaunchInfo& info, const std::function<void()>& body) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_kernel_runs;
    ++(info.dependent ? g_dependent_grids : g_plain_grids);
    count_run_for_fault();
    const dim3 grid = info.grid;
    const dim3 block_dim = info.block;
    const unsigned threads = block_dim.x * block_dim.y * block_dim.z;
    if (threads == 0 || threads > 1024 || threads % kWarp != 0 || block_dim.y != 1 ||
        block_dim.z != 1 || grid.y != 1 || grid.z != 1) {
        g_last_error = cudaErrorInvalidValue;
        return;
    }
    LaunchState launch;
    launch.info = &info;
    const auto opted_in = g_max_dynamic_shared.find(info.kernel);
    if (opted_in != g_max_dynamic_shared.end()) {
        launch.dynamic_limit = opted_in->second;
        launch.total_limit = kOptInSharedBytes;
    }
    // This grid is what the next one follows; a dependent one runs first with what its
    // predecessor wrote held back.
    PreviousWork& last = previous_work(info.stream);
    const PreviousWork previous = std::exchange(last, PreviousWork{true, info.name, info.written});
    last.written.insert(last.written.end(), info.written_inside.begin(), info.written_inside.end());
    if (info.dependent && previous.kernel) {
        launch.previous = previous.name;
        launch.held_regions = allocations_of(previous.written);
        for (const auto& [start, bytes] : launch.held_regions) {
            launch.held_values.emplace_back(start, start + bytes);
            std::memset(start, kUnwrittenByte, bytes);
        }
        launch.released = false;
    }
    LaunchState* outer = g_launch;
    g_launch = &launch;
    if (info.shared_bytes > launch.dynamic_limit) {  // a GPU refuses the launch: nothing runs
        report(cudaErrorInvalidValue, std::to_string(info.shared_bytes) +
                                          " bytes of dynamic shared memory, over the limit of " +
                                          std::to_string(launch.dynamic_limit) +
                                          " bytes (more than 48 KiB needs cudaFuncSetAttribute("
                                          "cudaFuncAttributeMaxDynamicSharedMemorySize))");
        release_held(launch);
        g_launch = outer;
        return;
    }
    const bool check_order = check_block_order(info);
    const auto regions =
        check_order ? allocations_of(info.written) : std::vector<std::pair<std::byte*, size_t>>{};
    if (regions.empty()) {
        run_blocks(info, body, false);
        release_held(launch);
        g_launch = outer;
        return;
    }
    // The grid in order, then again from the same memory in reverse order: blocks that depend on
    // each other's writes (a race on a GPU, where blocks run in any order) write other values.
    std::vector<std::vector<std::byte>> before;
    for (const auto& [start, bytes] : regions) before.emplace_back(start, start + bytes);
    run_blocks(info, body, false);
    std::vector<std::vector<std::byte>> in_order;
    for (size_t r = 0; r < regions.size(); ++r) {
        const auto& [start, bytes] = regions[r];
        in_order.emplace_back(start, start + bytes);
        std::memcpy(start, before[r].data(), bytes);
    }
    launch.static_arrays.clear();
    launch.static_shared_bytes = 0;
    if (!launch.held_regions.empty()) {  // held back again, as at the first pass
        for (const auto& [start, bytes] : launch.held_regions) {
            std::memset(start, kUnwrittenByte, bytes);
        }
        launch.released = false;
    }
    run_blocks(info, body, true);
    release_held(launch);
    for (size_t r = 0; r < regions.size(); ++r) {
        const auto& [start, bytes] = regions[r];
        const auto differs = std::mismatch(in_order[r].begin(), in_order[r].end(), start);
        if (differs.first == in_order[r].end()) continue;
        const auto offset = static_cast<size_t>(differs.first - in_order[r].begin());
        report(cudaErrorUnknown, "a race between blocks: byte " + std::to_string(offset) +
                                     " of the allocation at " + address_text(start) +
                                     " differs when the " + std::to_string(grid.x) +
                                     " blocks run in reverse order");
        break;
    }
    g_launch = outer;
}

}  // namespace earshot::cuda_emulator
