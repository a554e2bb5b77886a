// Driver for the fuzz targets when libFuzzer is not available: runs every seed of the corpus, then
// a fixed number of deterministic mutations of them, so that ctest exercises each target.
#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

using Bytes = std::vector<uint8_t>;

constexpr uint64_t default_iterations = 20000;
constexpr uint64_t default_seed = 0x5eed;
constexpr std::size_t max_input_bytes = 1 << 16;

// The input being run, written out if the process dies so that the crash can be replayed alone.
// The handler uses stdio, which is not async-signal-safe; good enough for a dying test process.
const Bytes* current_input = nullptr;

void dump_current_input(int signal_number) {
    if (current_input != nullptr) {
        if (std::FILE* out = std::fopen("fuzz-replay-crash.bin", "wb")) {
            std::fwrite(current_input->data(), 1, current_input->size(), out);
            std::fclose(out);
            std::fputs("replay: input written to fuzz-replay-crash.bin\n", stderr);
        }
    }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

void run(const Bytes& input) {
    current_input = &input;
    LLVMFuzzerTestOneInput(input.data(), input.size());
    current_input = nullptr;
}

Bytes read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Seeds in a fixed order: files given directly, and the files of directories, sorted by path.
std::vector<Bytes> load_seeds(const std::vector<fs::path>& paths) {
    std::vector<fs::path> files;
    for (const auto& path : paths) {
        if (fs::is_directory(path)) {
            for (const auto& entry : fs::directory_iterator(path)) {
                if (entry.is_regular_file()) files.push_back(entry.path());
            }
        } else {
            files.push_back(path);
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<Bytes> seeds;
    for (const auto& file : files) seeds.push_back(read_file(file));
    return seeds;
}

// Deterministic byte-level mutations. Only the raw output of mt19937_64 is used (its sequence is
// fixed by the standard; the distributions are not), so every platform runs the same inputs.
class Mutator {
public:
    Mutator(uint64_t seed, const std::vector<Bytes>& seeds) : random_(seed), seeds_(seeds) {}

    Bytes next() {
        Bytes input = seeds_[below(seeds_.size())];
        const uint64_t rounds = 1 + below(4);
        for (uint64_t i = 0; i < rounds; ++i) mutate(input);
        if (input.size() > max_input_bytes) input.resize(max_input_bytes);
        return input;
    }

private:
    uint64_t below(uint64_t bound) { return bound == 0 ? 0 : random_() % bound; }

    void mutate(Bytes& input) {
        const std::size_t size = input.size();
        switch (below(8)) {
            case 0:  // flip one bit
                if (size > 0) input[below(size)] ^= static_cast<uint8_t>(1U << below(8));
                break;
            case 1: {  // set a byte to an interesting value
                static constexpr uint8_t values[] = {0,   1,   0x7f, 0x80, 0xff, '0', '9', '-',
                                                     '(', ')', '[',  ']',  ',',  ';', '"', '\n'};
                if (size > 0) input[below(size)] = values[below(std::size(values))];
                break;
            }
            case 2:  // insert a random byte
                input.insert(input.begin() + static_cast<std::ptrdiff_t>(below(size + 1)),
                             static_cast<uint8_t>(random_()));
                break;
            case 3: {  // delete a range
                if (size == 0) break;
                const std::size_t at = below(size);
                const std::size_t count = 1 + below(std::min<std::size_t>(size - at, 16));
                input.erase(input.begin() + static_cast<std::ptrdiff_t>(at),
                            input.begin() + static_cast<std::ptrdiff_t>(at + count));
                break;
            }
            case 4:  // truncate
                input.resize(below(size + 1));
                break;
            case 5: {  // overwrite a little-endian u32 with a boundary value
                static constexpr uint32_t values[] = {
                    0, 1, 2, 4, 0x7fffffff, 0x80000000, 0xffffffff, 0x10000, 1024, 1025};
                if (size < 4) break;
                const uint32_t value = values[below(std::size(values))];
                const std::size_t at = below(size - 3);
                for (std::size_t i = 0; i < 4; ++i) {
                    input[at + i] = static_cast<uint8_t>(value >> (8 * i));
                }
                break;
            }
            case 6: {  // splice: a prefix of this input, then a suffix of another seed
                const Bytes& other = seeds_[below(seeds_.size())];
                input.resize(below(size + 1));
                const std::size_t from = below(other.size() + 1);
                input.insert(input.end(), other.begin() + static_cast<std::ptrdiff_t>(from),
                             other.end());
                break;
            }
            default: {  // duplicate a chunk in place
                if (size == 0) break;
                const std::size_t at = below(size);
                const std::size_t count = 1 + below(std::min<std::size_t>(size - at, 32));
                const Bytes chunk(input.begin() + static_cast<std::ptrdiff_t>(at),
                                  input.begin() + static_cast<std::ptrdiff_t>(at + count));
                input.insert(input.begin() + static_cast<std::ptrdiff_t>(below(size + 1)),
                             chunk.begin(), chunk.end());
                break;
            }
        }
    }

    std::mt19937_64 random_;
    const std::vector<Bytes>& seeds_;
};

uint64_t parse_count(const char* text, const char* what) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 0);
    if (end == text || *end != '\0') {
        std::fprintf(stderr, "replay: %s must be a number, not \"%s\"\n", what, text);
        std::exit(2);
    }
    return value;
}

}  // namespace

// Usage: <target>_replay [--iterations N] [--seed S] <corpus dir or file>...
// EARSHOT_FUZZ_ITERATIONS overrides the default number of mutations (20000).
int main(int argc, char** argv) {
    uint64_t iterations = default_iterations;
    uint64_t seed = default_seed;
    if (const char* env = std::getenv("EARSHOT_FUZZ_ITERATIONS")) {
        iterations = parse_count(env, "EARSHOT_FUZZ_ITERATIONS");
    }
    std::vector<fs::path> paths;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--iterations" || arg == "--seed") && i + 1 < argc) {
            (arg == "--seed" ? seed : iterations) = parse_count(argv[i + 1], argv[i]);
            ++i;
        } else {
            paths.emplace_back(arg);
        }
    }
    const std::vector<Bytes> seeds = load_seeds(paths);
    if (seeds.empty()) {
        std::fprintf(stderr, "replay: no seed files (give the corpus directory)\n");
        return 2;
    }
    for (const int signal_number : {SIGABRT, SIGSEGV, SIGFPE, SIGILL, SIGBUS}) {
        std::signal(signal_number, dump_current_input);
    }

    for (const auto& input : seeds) run(input);
    Mutator mutator(seed, seeds);
    for (uint64_t i = 0; i < iterations; ++i) run(mutator.next());
    std::printf("replay: %zu seeds and %llu mutations (seed %llu) ran clean\n", seeds.size(),
                static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(seed));
    return 0;
}
