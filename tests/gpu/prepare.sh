#!/usr/bin/env bash
# Builds, on a machine without a GPU, everything tests/gpu/session.sh (and run.sh) runs on a GPU
# machine, and gathers it in one folder to carry there (build/gpu-carry, or EARSHOT_GPU_CARRY):
# the engine's test binary, the CUDA benchmark and the CUDA module, stripped, with every shared
# library they need that the GPU machine does not provide itself (carry.sh: OpenBLAS and its
# Fortran runtime, GoogleTest, Google Benchmark, ...), in one xz archive that session.sh unpacks
# there. Ends with the self-test session.sh starts with, here, on the unpacked archive.
#
#   prepare.sh [PRESET]                     configure and build with a preset (default ci: sm_90)
#   EARSHOT_GPU_BUILD_DIR=DIR prepare.sh    build the targets in an already configured tree
#
# The GPU machine must have: an NVIDIA driver, CUDA 13's libcublas.so.13 (in the toolkit's lib64
# or a place carry.sh knows), and a libstdc++/glibc at least as new as this machine's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/gpu/carry.sh
source "$root/tests/gpu/carry.sh"

targets=(earshot_engine_tests earshot_cuda earshot_cuda_bench)
if [[ -n ${EARSHOT_GPU_BUILD_DIR:-} ]]; then
    build=$EARSHOT_GPU_BUILD_DIR
else
    preset=${1:-ci}
    cmake --preset "$preset" >/dev/null
    build=build/$preset
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

carry=${EARSHOT_GPU_CARRY:-$root/build/gpu-carry}
stage=$(mktemp -d)
check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
binaries=("$build/tests/earshot_engine_tests" "$build/tests/bench/earshot_cuda_bench"
          "$build/lib/libearshot_cuda.so")
for binary in "${binaries[@]}"; do
    cp "$binary" "$stage/"
    # Every library ldd resolves that the GPU machine does not have itself (ldd lists the
    # libraries' own dependencies too: libopenblas.so.0 brings libgfortran.so.5 and
    # libquadmath.so.0).
    while read -r name arrow path _; do
        [[ $arrow == "=>" ]] || continue
        if [[ $path == "not" ]]; then
            echo "prepare.sh: $(basename "$binary") needs $name, which is not found here" >&2
            exit 1
        fi
        [[ $name =~ $earshot_host_libraries ]] && continue
        [[ -e $stage/$name ]] || cp -L "$path" "$stage/$name"
    done < <(ldd "$binary")
done
chmod u+w "$stage"/*
strip --strip-unneeded "$stage"/*
rm -rf "$carry"
mkdir -p "$carry"
XZ_OPT='-6 -T0' tar -cJf "$carry/bin.tar.xz" -C "$stage" .
find "$stage" -type f -printf '%s %f\n' | sort -k2 >"$carry/MANIFEST"
git rev-parse HEAD >"$carry/COMMIT"
echo "== carried: $carry"
cat "$carry/MANIFEST"
ls -l "$carry"

# What travels is the working tree and the carried folder, 64 MiB in all.
tree_bytes=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
carry_bytes=$(du -cb "$carry" | tail -1 | cut -f1)
echo "working tree $((tree_bytes / 1048576)) MiB + carry $((carry_bytes / 1048576)) MiB" \
    "of 64 MiB"
if ((tree_bytes + carry_bytes > 64 * 1048576)); then
    echo "prepare.sh: the working tree and the carry exceed 64 MiB" >&2
    exit 1
fi

# The self-test session.sh starts with, on this machine.
earshot_unpack_carry "$carry" "$check"
cublas=$(earshot_find_cublas) || {
    echo "prepare.sh: no libcublas.so.13 here to check the module against" >&2
    exit 1
}
echo "cuBLAS: $cublas"
LD_LIBRARY_PATH=$check:$cublas earshot_carry_self_test "$check"
