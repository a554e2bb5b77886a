#!/usr/bin/env bash
# Builds, on a machine without a GPU, everything tests/gpu/run.sh needs on a GPU machine, and
# gathers it in build/gpu-carry (under 10 MiB): the engine's test binary, the CUDA benchmark, the
# CUDA module, and the shared libraries a bare CUDA machine lacks (Google Benchmark), which
# run.sh puts on LD_LIBRARY_PATH.
# The GPU machine must have: an NVIDIA driver, CUDA 13's libcublas.so.13, libopenblas.so.0,
# libpcre2-8, zlib, and a libstdc++/glibc at least as new as this machine's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
preset=${1:-ci}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)" --target earshot_engine_tests earshot_cuda \
    earshot_cuda_bench
carry=build/gpu-carry
rm -rf "$carry"
mkdir -p "$carry"
cp "build/$preset/tests/earshot_engine_tests" "$carry/"
cp "build/$preset/tests/bench/earshot_cuda_bench" "$carry/"
cp "build/$preset/lib/libearshot_cuda.so" "$carry/"
# Libraries the GPU machine does not have: GoogleTest and Google Benchmark, when linked shared.
for binary in "$carry/earshot_engine_tests" "$carry/earshot_cuda_bench"; do
    for lib in $(ldd "$binary" | awk '/libgtest|libgmock|libbenchmark/ {print $3}'); do
        cp -L "$lib" "$carry/"
    done
done
git rev-parse HEAD >"$carry/COMMIT"
du -sh "$carry"
ls -l "$carry"
