// Which files a `earshot transcribe` run takes: those on the command line and in --manifest
// lists, this job's share of them under --shard K/N, and with --skip-done not those whose outputs
// are all written already (batch jobs that restart, or split a corpus across machines).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace earshot::app {

// A manifest that cannot be read, or a --shard that is not K/N with 0 <= K < N.
class TranscribeInputsError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// The files a manifest lists: one path a line; blank lines and lines starting with '#' skipped,
// surrounding spaces trimmed; a relative path is taken from the manifest's own folder.
std::vector<std::string> read_manifest(const std::filesystem::path& manifest);

struct Shard {
    int index = 0;  // K: 0 .. count - 1 (a Slurm array's SLURM_ARRAY_TASK_ID from --array=0-N-1)
    int count = 1;  // N
};

// "K/N" -> {K, N}.
Shard parse_shard(const std::string& text);

// Whether input number `position` (of the whole list) is this shard's: position % N == K, so
// that the shards together take every input exactly once, in any mix of lengths.
inline bool in_shard(const Shard& shard, std::size_t position) {
    return position % static_cast<std::size_t>(shard.count) ==
           static_cast<std::size_t>(shard.index);
}

}  // namespace earshot::app
