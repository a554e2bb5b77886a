// The CPU backend maps a quantized ggml file's block matrices under a read lease: once loaded (the
// weight set's own mapping released) the process still maps the file, and those pages are the
// file's (no anonymous memory). Overwritten in place or truncated, the writer waits while the
// backend copies the bytes; the mapping then holds the copy, nothing faults (SIGBUS), and the
// logits stay bit for bit the same. A file renamed over the name leaves the old file mapped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_weights.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_writer.h"
#include "temp_dir.h"

namespace earshot {
namespace {

namespace fs = std::filesystem;
using checkpoint::GgmlType;

model::RandomCheckpointOptions options() {
    return {.mels = 80,
            .d = 256,
            .heads = 4,
            .enc_layers = 2,
            .dec_layers = 2,
            .vocab = 600,
            .frames = 40,
            .max_tokens = 16,
            .dtype = "f32",
            .seed = 23};
}

// Rss and Anonymous (kB) summed over the mappings of `file` in /proc/self/smaps, and how many.
struct FileMappings {
    int count = 0;
    int64_t rss_kb = 0;
    int64_t anonymous_kb = 0;
};

FileMappings mappings_of(const fs::path& file) {
    std::ifstream smaps("/proc/self/smaps");
    FileMappings found;
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        const bool header = line.find('-') < line.find(' ') &&
                            line.find(' ') != std::string::npos &&
                            std::isxdigit(static_cast<unsigned char>(line[0]));
        if (header) {
            inside = line.find(file.string()) != std::string::npos;
            if (inside) ++found.count;
            continue;
        }
        if (!inside) continue;
        if (line.rfind("Rss:", 0) == 0) found.rss_kb += std::stoll(line.substr(4));
        if (line.rfind("Anonymous:", 0) == 0) found.anonymous_kb += std::stoll(line.substr(10));
    }
    return found;
}

// The logits of listen, prefill [1, 2, 3] and a step at position 3.
std::vector<float> logits_of(backend::CpuWhisper& cpu) {
    std::mt19937_64 engine(5);
    std::normal_distribution<float> normal(0.0F, 1.0F);
    std::vector<float> mel(80 * 40);  // [1, Mels, Frames]
    for (float& v : mel) v = normal(engine);
    cpu.listen(backend::HostTensor::f32({1, 80, 40}, mel));
    std::vector<float> all;
    const auto append = [&](const backend::HostTensor& t) {
        all.insert(all.end(), t.f32_values().begin(), t.f32_values().end());
    };
    append(cpu.prefill(backend::HostTensor::i32({1, 3}, {1, 2, 3})));
    append(cpu.step(backend::HostTensor::i32({1, 1}, {7}), 3));
    return all;
}

enum class Change { overwrite_in_place, truncate, rename_over };

class CpuLeasedWeights : public testing::TestWithParam<Change> {};

TEST_P(CpuLeasedWeights, BlocksAreTheFilesPagesAndSurviveItsChange) {
    const test::TempDir dir("earshot-cpu-leased");
    model::write_random_checkpoint(dir.path() / "hf", options());
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");
    const fs::path file = dir.path() / "q.bin";
    test::write_ggml_file(file, test::ggml_twin(hf.weights, hf.binding.config, GgmlType::q8_0));
    model::WhisperCheckpoint q = model::load_whisper_checkpoint(file);
    size_t block_bytes = 0;
    for (const auto& w : q.weights.weights()) {
        if (w.dtype == checkpoint::WeightDType::ggml_blocks) block_bytes += w.bytes.size();
    }
    ASSERT_GT(block_bytes, 0U);
    {
        const backend::cpu::CpuWeights weights(q);
        EXPECT_EQ(weights.mapping_refusal(), "");
        EXPECT_EQ(weights.mapped_bytes(), block_bytes);
        EXPECT_EQ(weights.region_bytes(), 0U);  // the rest is f32 in this twin
        EXPECT_TRUE(weights.file_backed());
    }
    backend::CpuWhisper cpu(q);
    q.weights.release_files();
    const std::vector<float> before = logits_of(cpu);
    const FileMappings loaded = mappings_of(file);
    EXPECT_EQ(loaded.count, 1);  // the backend's leased mapping only
    EXPECT_GE(loaded.rss_kb * 1024, static_cast<int64_t>(block_bytes) * 9 / 10);
    EXPECT_EQ(loaded.anonymous_kb, 0);

    const std::vector<char> other(fs::file_size(file), 0x5A);
    switch (GetParam()) {
        case Change::overwrite_in_place: {
            // open() for writing waits until the backend has copied the bytes and let go.
            const int fd = ::open(file.c_str(), O_WRONLY);
            ASSERT_GE(fd, 0);
            ASSERT_EQ(::write(fd, other.data(), other.size()), static_cast<ssize_t>(other.size()));
            ::close(fd);
            break;
        }
        case Change::truncate:
            fs::resize_file(file, 0);
            break;
        case Change::rename_over: {
            const fs::path temporary = file.string() + ".new";
            std::ofstream(temporary, std::ios::binary)
                .write(other.data(), static_cast<std::streamsize>(other.size()));
            fs::rename(temporary, file);
            break;
        }
    }
    const std::vector<float> after = logits_of(cpu);
    EXPECT_EQ(after, before);
    const FileMappings changed = mappings_of(file);
    if (GetParam() == Change::rename_over) {
        EXPECT_EQ(changed.count, 1);  // the old file, "(deleted)", still mapped and leased
        EXPECT_EQ(changed.anonymous_kb, 0);
    } else {
        EXPECT_EQ(changed.count, 0);  // the copy is anonymous memory at the same addresses
    }
}

// File transcription's residency: after each listen the encoder layers' mapped blocks leave the
// process's resident memory (the mapping's Rss falls by their pages), the next listen reads them
// back, and every logit equals the run that keeps them resident.
TEST(CpuWeightResidency, EncoderBlocksLeaveResidentMemoryAfterListenAndComeBack) {
    const test::TempDir dir("earshot-cpu-residency");
    model::write_random_checkpoint(dir.path() / "hf", options());
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");
    const fs::path file = dir.path() / "q.bin";
    test::write_ggml_file(file, test::ggml_twin(hf.weights, hf.binding.config, GgmlType::q8_0));
    model::WhisperCheckpoint q = model::load_whisper_checkpoint(file);
    int64_t encoder_bytes = 0;
    int64_t other_bytes = 0;
    int encoder_matrices = 0;
    int matrices = 0;
    for (const auto& w : q.weights.weights()) {
        if (w.dtype != checkpoint::WeightDType::ggml_blocks) continue;
        ++matrices;
        if (w.path.starts_with("encoder_layers.")) {
            encoder_bytes += static_cast<int64_t>(w.bytes.size());
            ++encoder_matrices;
        } else {
            other_bytes += static_cast<int64_t>(w.bytes.size());
        }
    }
    ASSERT_EQ(encoder_matrices, 2 * 6);
    backend::CpuWhisper kept(q);
    backend::CpuWhisper dropping(q);
    dropping.set_weight_residency(backend::WeightResidency::encoder_dropped_while_decoding);
    q.weights.release_files();
    const std::vector<float> want = logits_of(kept);
    // Two leased mappings of the file now, one per backend; the kept one has read every block.
    const int64_t before_kb = mappings_of(file).rss_kb;
    const std::vector<float> first = logits_of(dropping);
    EXPECT_EQ(first, want);
    // The dropping backend's mapping holds what was read since its listen dropped the encoder's
    // blocks: every other block, and at most the page at each end of every matrix (shared with
    // its neighbour in the file; without the drop the encoder's 408 pages would be here too).
    const int64_t page = sysconf(_SC_PAGESIZE);
    const int64_t resident = (mappings_of(file).rss_kb - before_kb) * 1024;
    std::printf(
        "[          ] encoder blocks %lld B, other blocks %lld B, resident after the "
        "window %lld B\n",
        static_cast<long long>(encoder_bytes), static_cast<long long>(other_bytes),
        static_cast<long long>(resident));
    EXPECT_GE(resident, other_bytes);
    EXPECT_LE(resident, other_bytes + 2 * page * matrices);
    // The next window's listen reads the dropped blocks back: the same logits again.
    EXPECT_EQ(logits_of(dropping), want);
}

INSTANTIATE_TEST_SUITE_P(Changes, CpuLeasedWeights,
                         testing::Values(Change::overwrite_in_place, Change::truncate,
                                         Change::rename_over),
                         [](const testing::TestParamInfo<Change>& change) {
                             switch (change.param) {
                                 case Change::overwrite_in_place:
                                     return std::string("OverwrittenInPlace");
                                 case Change::truncate:
                                     return std::string("Truncated");
                                 case Change::rename_over:
                                     return std::string("RenamedOver");
                             }
                             return std::string("Unknown");
                         });

}  // namespace
}  // namespace earshot
