// CpuWhisper: the CPU backend running the traced Whisper program. f16 matrices stay f16 (the
// products widen them as they go), other weights become f32 once; each (entry, binding) is planned
// once (buffer reuse) and replayed; the decoder caches are the program's `state` members and live
// here between calls (the audio caches once for all rows of a batch expanded from one row).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/backend/step_timing.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/backend/weight_residency.h"
#include "earshot/engine/model/whisper_binding.h"

namespace earshot::model {
struct WhisperCheckpoint;
}

namespace earshot::backend {

// How the decoder caches keep keys and values: f32 (the values as computed), or f16 (half the
// memory; each cached value rounded to half precision, as the CUDA backend keeps them).
enum class CacheStorage { f32, f16 };

class CpuWhisper {
public:
    // `batch` binds the program's Batch (the caches' first dim) for listen, prefill and step;
    // the caches keep f32 values unless `caches` says f16.
    explicit CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch = 1);
    CpuWhisper(const model::WhisperCheckpoint& checkpoint, int64_t batch, CacheStorage caches);
    ~CpuWhisper();
    CpuWhisper(CpuWhisper&&) noexcept;
    CpuWhisper& operator=(CpuWhisper&&) noexcept;

    const model::WhisperBinding& binding() const;
    int64_t batch() const;

    // mel [B, Mels, Frames] f32 -> audio states [B, 1 + (-1 + Frames) / 2, D]
    HostTensor encode(const HostTensor& mel);
    // tokens [B, S] i32, audio [B, A, D] -> logits [B, S, Vocab] (stateless, causal)
    HostTensor decode(const HostTensor& tokens, const HostTensor& audio);
    // mel [Batch, Mels, Frames] -> audio states; fills every layer's cross_k / cross_v
    HostTensor listen(const HostTensor& mel);
    // tokens [Batch, S] at positions 0 .. S - 1 -> logits of position S - 1 [Batch, Vocab].
    // With `cross_attention` the asked heads' cross-attention weights are kept as the decoder
    // layers run (throws std::out_of_range for a head the model lacks); without it nothing is.
    HostTensor prefill(const HostTensor& tokens, CrossAttentionRequest* cross_attention = nullptr);
    // token [Batch, 1] at position pos -> logits [Batch, Vocab]; attends over 0 .. pos
    HostTensor step(const HostTensor& token, int32_t pos);

    // Rebinds Batch: every cache gets `batch` rows, all zero.
    void resize_batch(int64_t batch);
    // Rebinds Batch to `rows`, every row of every cache a copy of row 0 (one window's audio
    // shared by the rows of a beam search or best-of sampling).
    void expand_batch(int64_t rows);
    // Row i of every cache takes the contents of row source_rows[i] (beam reordering).
    void reorder_batch(std::span<const int64_t> source_rows);

    CacheStorage cache_storage() const;
    // Bytes the decoder caches hold: every stored row's positions written so far (an audio cache
    // the rows share counts once). The caches' other positions take no memory (never written).
    int64_t cache_bytes() const;
    // Bytes of scratch held between calls: the running plan's intermediates (sized by the largest
    // plan since the last listen) and the convolutions' unfolded input. listen releases them, the
    // encoder's being far larger than what a decoder step needs.
    int64_t scratch_bytes() const;

    // Time spent in each step of the last call, when profiling is on: the op and the call scope
    // it ran in (`encoder_layers.2.forward > self_attn.forward`). Measured, not estimated.
    void set_profiling(bool on);
    const std::vector<StepTiming>& last_timings() const;

    // Threads the kernels of this instance's runs share: `threads` >= 1 gives it a pool of its
    // own of that size (the caller being one of them), 0 returns it to the process's shared pool
    // (ThreadPool::shared, EARSHOT_CPU_THREADS or one per hardware thread), which is where every
    // instance starts. OpenBLAS's matrix products keep their own, process-wide threads. Throws
    // std::invalid_argument for a negative count.
    void set_threads(int threads);
    int threads() const;  // the running pool's size (the shared pool's when none is owned)

    // WeightResidency::encoder_dropped_while_decoding: each listen ends by dropping the resident
    // pages of the encoder layers' block matrices mapped from the model file (cpu_weights.h);
    // the next listen faults them back from the page cache. `all` (the default) keeps them.
    void set_weight_residency(WeightResidency residency);

    // Taps (tap.h): while `taps` is attached, every entry copies the values it asks for from the
    // arena right after the step that writes them (before the plan's reuse of that memory);
    // null detaches. `taps` must outlive the attachment. With none attached a run checks one
    // pointer per call.
    void set_taps(TapSet* taps);
    // The tappable values of an entry as this backend plans it now (the current Batch; encode
    // with B = 1, prefill with S = `tokens`).
    std::vector<TappableEdge> tappable_edges(const std::string& entry, int64_t tokens = 4);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The instruction set the CPU backend's quantized block kernels run on: "avx512-vnni", "avx2" or
// "reference", the best this CPU has unless EARSHOT_CPU_ISA names a lower one. Throws
// std::invalid_argument for a name it does not know or one above this CPU.
std::string cpu_block_kernels();

}  // namespace earshot::backend
