#!/usr/bin/env bash
# The two developer commands: `dev.sh run` builds and starts the app, `dev.sh test` runs every test.
# A third, run by hand and never in CI: `dev.sh train [train.py arguments...]` retrains the
# embedded micro model (resources/models/micro/README.md).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)

usage() {
    echo "usage: packaging/dev.sh run [earshot arguments...] | test | sanitize address|thread |" \
        "train [train.py arguments...]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
command=$1
shift

case "$command" in
run)
    packaging/setup.sh
    cmake --preset default
    cmake --build --preset default -j"$jobs"
    exe=build/default/app/earshot
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
        echo "dev.sh: neither DISPLAY nor WAYLAND_DISPLAY is set; starting under xvfb-run" >&2
        exec xvfb-run -a "$exe" "$@"
    fi
    exec "$exe" "$@"
    ;;
test)
    [[ $# -eq 0 ]] || usage
    packaging/setup.sh
    # engine/, audio/ and the live controller must build without Qt; that build, with
    # ThreadSanitizer, gives the live pipeline's tests that ctest runs below (label tsan). -O1 with
    # line tables, as ThreadSanitizer's documentation advises: reports keep file and line, and the
    # engine compiles in about 60% of the time -O2 -g takes.
    cmake -S . -B build/tsan-live -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
        -DEARSHOT_SANITIZE=thread -DEARSHOT_BUILD_UI=OFF -DEARSHOT_BUILD_TESTS=ON \
        -DEARSHOT_WERROR=ON
    cmake --build build/tsan-live -j"$jobs" --target earshot_core_tests
    # Everything, warnings as errors; the parsers' fuzz replays also run once more under ASan and
    # UBSan (a second, sanitized build of the parsers only: tests/fuzz/CMakeLists.txt).
    cmake --preset ci -DEARSHOT_TSAN_LIVE_TESTS="$root/build/tsan-live/tests/app/earshot_core_tests" \
        -DEARSHOT_SANITIZED_REPLAY=ON
    cmake --build --preset ci -j"$jobs"
    # Last, so the run ends with ctest's summary and its exit code. Label long (a 10-hour file)
    # is run on demand: ctest --test-dir build/ci -L long.
    set +e
    ctest --test-dir build/ci --output-on-failure -j"$jobs" -LE long
    status=$?
    set -e
    exit "$status"
    ;;
sanitize)
    # The whole test suite once more under AddressSanitizer + UBSan (`sanitize address`) or
    # ThreadSanitizer (`sanitize thread`), in build/asan-all or build/tsan-all. -O1 with debug
    # information; the CUDA module is left out (nvcc takes no -fsanitize). Run by hand, not in CI.
    [[ $# -eq 1 ]] || usage
    case "$1" in
    address) sanitizers=address,undefined dir=build/asan-all ;;
    thread) sanitizers=thread dir=build/tsan-all ;;
    *) usage ;;
    esac
    packaging/setup.sh
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DEARSHOT_SANITIZE="$sanitizers" \
        -DEARSHOT_CUDA=OFF -DEARSHOT_BUILD_UI=ON -DEARSHOT_BUILD_TESTS=ON
    cmake --build "$dir" -j"$jobs"
    supp="$root/tests/sanitizers"
    export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
    # OpenBLAS's own threads are not instrumented; the engine's thread pool is.
    export OPENBLAS_NUM_THREADS=1
    # Left out: labels long and slow (hours of audio), and the tests that assert time or memory
    # bounds, which a sanitizer's slowdown (5-15x for TSan) and shadow memory change; the
    # normal build runs them all. Accuracy tests that decode minutes of audio take up to 16 minutes
    # each under TSan; the whole run about 50 minutes on 2 cores.
    timed='LiveLatencyLiveDevice|TenMinuteFileStreamsInBoundedMemory|TwentyMinutesPeakNearAShortFile|StopHearsWhatIsQueuedAndCommitsIt'
    set +e
    ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE 'long|slow' -E "$timed" --timeout 2400
    status=$?
    set -e
    exit "$status"
    ;;
train)
    packaging/setup.sh --train
    # Debian's python3, whose dist-packages hold python3-torch (not a virtual environment's).
    exec /usr/bin/python3 resources/models/micro/train.py "$@"
    ;;
*)
    usage
    ;;
esac
